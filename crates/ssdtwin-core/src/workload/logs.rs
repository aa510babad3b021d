//! fio's latency, bandwidth, IOPS and latency-histogram logs (`write_lat_log`,
//! `write_bw_log`, `write_iops_log`, `write_hist_log`), in fio 3.33's format
//! (interfaces.md § 2.4).
//!
//! Files are `PREFIX_slat.N.log`, `PREFIX_clat.N.log`, `PREFIX_lat.N.log`, `PREFIX_bw.N.log`
//! and `PREFIX_iops.N.log`, with `N` the clone's global thread number (1-based). Lines are
//! `time, value, ddir, bs[, offset], prio` separated by `", "`. Times are ms since the
//! clone's statistics started (after ramp); latencies ns, bandwidth KiB/s.
//!
//! * `log_avg_msec = 0`: one line per I/O (bandwidth is that I/O's size over its latency;
//!   IOPS is 1).
//! * `log_avg_msec = W`: one line per direction per window of W ms with the window average,
//!   block size and offset 0. fio stamps latency windows at the window end (500, 1000, ...)
//!   and bandwidth/IOPS windows 1 ms earlier (499, 999, ...); we do the same.
//!
//! The histogram log `PREFIX_clat_hist.N.log` is fio's `add_clat_sample`/`flush_hist_samples`:
//! when a completion arrives `log_hist_msec` or more after a direction's last line, a line
//! `time, ddir, bs, c0, c1, ...` gives that direction's completion-latency counts since the
//! last line in fio's 1856 buckets, summed in groups of 2^`log_hist_coarseness`; the next
//! window starts `log_hist_msec` after the last (fio subtracts the drift).

use super::{Direction, IoPriority, JobSpec};
use crate::stats::{PLAT_NR, PlatHistogram};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where the lines of one log kind go.
struct Sink {
    out: BufWriter<File>,
    path: PathBuf,
}

/// Window accumulator of one direction.
#[derive(Clone, Copy, Default)]
struct Window {
    n: u64,
    bytes: u64,
    slat: u128,
    clat: u128,
    lat: u128,
}

/// The completion-latency histogram log of one clone.
struct HistLog {
    sink: Sink,
    msec: u64,
    coarseness: u32,
    /// Per direction: counts since the last line, and when that line was (`None` before
    /// the first completion).
    dirs: [(PlatHistogram, Option<u64>); 3],
}

impl HistLog {
    fn record(&mut self, t_ms: u64, dir: usize, clat: u64, bytes: u64) -> Result<(), LogError> {
        let (hist, last) = &mut self.dirs[dir];
        hist.record(clat);
        let since = *last.get_or_insert(t_ms);
        let window = t_ms - since;
        if self.msec == 0 || window < self.msec {
            return Ok(());
        }
        let stride = 1usize << self.coarseness;
        let sums: Vec<String> = hist.counts().chunks(stride).map(|c| c.iter().sum::<u64>().to_string()).collect();
        debug_assert_eq!(sums.len(), PLAT_NR / stride);
        writeln!(self.sink.out, "{t_ms}, {dir}, {bytes}, {}", sums.join(", ")).map_err(|e| self.sink.error(&e))?;
        hist.clear();
        *last = Some(t_ms - (window - self.msec));
        Ok(())
    }
}

impl Sink {
    fn create(path: PathBuf) -> Result<Self, LogError> {
        let file = File::create(&path).map_err(|e| LogError {
            path: path.display().to_string(),
            reason: e.to_string(),
            kind: e.kind(),
        })?;
        Ok(Sink { out: BufWriter::new(file), path })
    }

    fn error(&self, e: &std::io::Error) -> LogError {
        LogError { path: self.path.display().to_string(), reason: e.to_string(), kind: e.kind() }
    }
}

/// The logs of one clone.
pub(crate) struct JobLogs {
    slat: Option<Sink>,
    clat: Option<Sink>,
    lat: Option<Sink>,
    bw: Option<Sink>,
    iops: Option<Sink>,
    avg_ms: u64,
    offset_column: bool,
    /// `log_prio`: the priority column holds the priority, not whether it is real-time.
    log_prio: bool,
    windows: [Window; 3],
    window_end_ms: u64,
    /// Latency logs hold slat lines only when the engine reports submission latency.
    log_slat: bool,
    hist: Option<HistLog>,
}

/// A log file could not be written.
#[derive(Debug)]
pub(crate) struct LogError {
    pub path: String,
    pub reason: String,
    pub kind: std::io::ErrorKind,
}

impl JobLogs {
    /// Opens the files `spec` asks for; `None` if it asks for none.
    pub(crate) fn open(spec: &JobSpec, thread: u32, dir: &Path, log_slat: bool) -> Result<Option<Self>, LogError> {
        if spec.write_lat_log.is_none()
            && spec.write_bw_log.is_none()
            && spec.write_iops_log.is_none()
            && spec.write_hist_log.is_none()
        {
            return Ok(None);
        }
        let open = |prefix: &Option<String>, kind: &str| -> Result<Option<Sink>, LogError> {
            let Some(prefix) = prefix else { return Ok(None) };
            Sink::create(dir.join(format!("{prefix}_{kind}.{thread}.log"))).map(Some)
        };
        let hist = open(&spec.write_hist_log, "clat_hist")?.map(|sink| HistLog {
            sink,
            msec: spec.log_hist_msec,
            coarseness: spec.log_hist_coarseness,
            dirs: Default::default(),
        });
        Ok(Some(JobLogs {
            slat: open(&spec.write_lat_log, "slat")?,
            clat: open(&spec.write_lat_log, "clat")?,
            lat: open(&spec.write_lat_log, "lat")?,
            bw: open(&spec.write_bw_log, "bw")?,
            iops: open(&spec.write_iops_log, "iops")?,
            avg_ms: spec.log_avg_msec,
            offset_column: spec.log_offset,
            log_prio: spec.log_prio,
            windows: [Window::default(); 3],
            window_end_ms: spec.log_avg_msec,
            log_slat,
            hist,
        }))
    }

    /// Records one completed I/O at `t_ns` after the statistics started.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record(
        &mut self,
        t_ns: u64,
        dir: Direction,
        slat: u64,
        clat: u64,
        bytes: u64,
        offset: u64,
        priority: IoPriority,
    ) -> Result<(), LogError> {
        let at_ms = t_ns / 1_000_000;
        let prio = self.prio_column(priority);
        if let Some(h) = &mut self.hist {
            h.record(at_ms, dir.index(), clat, bytes)?;
        }
        if self.avg_ms == 0 {
            let d = dir.index();
            let lat = slat + clat;
            let bw_kib = (bytes * 1_000_000_000).checked_div(clat).map_or(0, |b| b / 1024);
            if self.log_slat {
                line(&mut self.slat, at_ms, slat, d, bytes, offset, self.offset_column, &prio)?;
            }
            line(&mut self.clat, at_ms, clat, d, bytes, offset, self.offset_column, &prio)?;
            line(&mut self.lat, at_ms, lat, d, bytes, offset, self.offset_column, &prio)?;
            line(&mut self.bw, at_ms, bw_kib, d, bytes, offset, self.offset_column, &prio)?;
            line(&mut self.iops, at_ms, 1, d, bytes, offset, self.offset_column, &prio)?;
            return Ok(());
        }
        self.flush_until(at_ms)?;
        let w = &mut self.windows[dir.index()];
        w.n += 1;
        w.bytes += bytes;
        w.slat += u128::from(slat);
        w.clat += u128::from(clat);
        w.lat += u128::from(slat + clat);
        Ok(())
    }

    /// The last column of a line (fio's `flush_samples`): `0x` and the priority's value
    /// under `log_prio`, else 1 for a real-time command and 0 for any other.
    fn prio_column(&self, p: IoPriority) -> String {
        if self.log_prio { format!("0x{:04x}", p.value()) } else { u8::from(p.class == 1).to_string() }
    }

    /// Writes every window that ended at or before `t_ms`.
    pub(crate) fn flush_until(&mut self, t_ms: u64) -> Result<(), LogError> {
        if self.avg_ms == 0 {
            return Ok(());
        }
        // Averaged lines stand for many commands: fio gives them priority 0.
        let no_prio = self.prio_column(IoPriority::default());
        while self.window_end_ms <= t_ms {
            let end = self.window_end_ms;
            for d in 0..3 {
                let w = std::mem::take(&mut self.windows[d]);
                if w.n == 0 {
                    continue;
                }
                let n = u128::from(w.n);
                if self.log_slat {
                    line(&mut self.slat, end, (w.slat / n) as u64, d, 0, 0, self.offset_column, &no_prio)?;
                }
                line(&mut self.clat, end, (w.clat / n) as u64, d, 0, 0, self.offset_column, &no_prio)?;
                line(&mut self.lat, end, (w.lat / n) as u64, d, 0, 0, self.offset_column, &no_prio)?;
                let bw = w.bytes * 1000 / 1024 / self.avg_ms;
                line(&mut self.bw, end - 1, bw, d, 0, 0, self.offset_column, &no_prio)?;
                line(&mut self.iops, end - 1, w.n * 1000 / self.avg_ms, d, 0, 0, self.offset_column, &no_prio)?;
            }
            self.window_end_ms += self.avg_ms;
        }
        Ok(())
    }

    /// Removes the clone's log files: the run they belong to did not finish (interrupted,
    /// or failed), and a partial log must not pass for a complete one.
    pub(crate) fn discard(self) {
        let hist = self.hist.map(|h| h.sink);
        for sink in [self.slat, self.clat, self.lat, self.bw, self.iops, hist].into_iter().flatten() {
            let Sink { out, path } = sink;
            drop(out);
            std::fs::remove_file(&path).ok();
        }
    }

    /// Flushes complete windows up to `end_ns` and the files.
    pub(crate) fn finish(&mut self, end_ns: u64) -> Result<(), LogError> {
        self.flush_until(end_ns / 1_000_000)?;
        let hist = self.hist.as_mut().map(|h| &mut h.sink);
        for sink in [&mut self.slat, &mut self.clat, &mut self.lat, &mut self.bw, &mut self.iops]
            .into_iter()
            .filter_map(Option::as_mut)
            .chain(hist)
        {
            sink.out.flush().map_err(|e| sink.error(&e))?;
        }
        Ok(())
    }
}

#[allow(clippy::too_many_arguments)] // one log line's fields, in fio's order
fn line(
    sink: &mut Option<Sink>,
    t: u64,
    value: u64,
    ddir: usize,
    bs: u64,
    offset: u64,
    offset_column: bool,
    prio: &str,
) -> Result<(), LogError> {
    let Some(s) = sink else { return Ok(()) };
    let r = if offset_column {
        writeln!(s.out, "{t}, {value}, {ddir}, {bs}, {offset}, {prio}")
    } else {
        writeln!(s.out, "{t}, {value}, {ddir}, {bs}, {prio}")
    };
    r.map_err(|e| s.error(&e))
}
