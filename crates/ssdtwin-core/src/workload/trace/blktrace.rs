//! blktrace binary files (`blktrace.c`): 48-byte `blk_io_trace` records, each followed by
//! `pdu_len` bytes, in the writer's byte order. Only queue (`Q`) events are replayed: reads
//! and writes by their category bits, discards as trims, flushes as syncs; the offset is
//! `sector × 512` and the delay the time since the previous queue event. The queue depth
//! is inferred as fio does: queue events add one per direction, merges take one off, and
//! each completion records the running count as a candidate and starts it again.

use super::{ReplayOptions, TraceEntry, TraceOp};
use std::fs::File;
use std::io::{BufReader, Read};

const MAGIC: u32 = 0x6561_7400;
const VERSION: u32 = 0x07;
const RECORD_BYTES: usize = 48;

const TA_QUEUE: u32 = 1;
const TA_BACKMERGE: u32 = 2;
const TA_FRONTMERGE: u32 = 3;
const TA_COMPLETE: u32 = 8;
const TC_READ: u32 = 1 << 16;
const TC_WRITE: u32 = 2 << 16;
const TC_FLUSH: u32 = 4 << 16;
const TC_NOTIFY: u32 = 1 << 26;
const TC_DISCARD: u32 = 1 << 29;

/// Whether the first four bytes are a blktrace magic, in either byte order.
pub fn is_magic(head: [u8; 4]) -> bool {
    let le = u32::from_le_bytes(head);
    let be = u32::from_be_bytes(head);
    le & 0xffff_ff00 == MAGIC || be & 0xffff_ff00 == MAGIC
}

pub struct BlktraceReader {
    path: String,
    input: BufReader<File>,
    record: u64,
    last_time: u64,
    options: ReplayOptions,
    /// Running and largest depth per direction (read, write, trim).
    this_depth: [i64; 3],
    depth: [i64; 3],
}

impl BlktraceReader {
    pub fn new(path: &str, file: File, options: ReplayOptions) -> Self {
        BlktraceReader {
            path: path.to_string(),
            input: BufReader::new(file),
            record: 0,
            last_time: 0,
            options,
            this_depth: [0; 3],
            depth: [0; 3],
        }
    }

    fn bad(&self, what: &str) -> String {
        format!("{}: record {}: {what}", self.path, self.record)
    }

    /// fio's depth: each direction's largest, at most 1024, at least 1 where it has I/O.
    pub fn inferred_depth(&self, ios: &[u64; 4]) -> u32 {
        (0..3)
            .map(|d| {
                if self.depth[d] > 1024 {
                    1024
                } else if self.depth[d] <= 0 && ios[d] > 0 {
                    1
                } else {
                    self.depth[d]
                }
            })
            .max()
            .unwrap_or(1)
            .max(1) as u32
    }

    pub fn next_entry(&mut self) -> Option<Result<TraceEntry, String>> {
        loop {
            let mut raw = [0u8; RECORD_BYTES];
            match read_full(&mut self.input, &mut raw) {
                Ok(0) => return None,
                Ok(n) if n < RECORD_BYTES => {
                    self.record += 1;
                    return Some(Err(self.bad("cut short (a partial record at the end)")));
                }
                Ok(_) => {}
                Err(e) => return Some(Err(format!("{}: {e}", self.path))),
            }
            self.record += 1;
            let le = u32::from_le_bytes(raw[..4].try_into().expect("4 bytes")) & 0xffff_ff00 == MAGIC;
            let u32_at = |at: usize| {
                let b: [u8; 4] = raw[at..at + 4].try_into().expect("4 bytes");
                if le { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) }
            };
            let u64_at = |at: usize| {
                let b: [u8; 8] = raw[at..at + 8].try_into().expect("8 bytes");
                if le { u64::from_le_bytes(b) } else { u64::from_be_bytes(b) }
            };
            let magic = u32_at(0);
            if magic & 0xffff_ff00 != MAGIC {
                return Some(Err(self.bad(&format!("bad magic {magic:#x}; not blktrace data"))));
            }
            if magic & 0xff != VERSION {
                return Some(Err(self.bad(&format!("blktrace version {} (fio reads version 7)", magic & 0xff))));
            }
            let (time, sector, bytes, action) = (u64_at(8), u64_at(16), u32_at(24), u32_at(28));
            let pdu_len = {
                let b: [u8; 2] = raw[46..48].try_into().expect("2 bytes");
                if le { u16::from_le_bytes(b) } else { u16::from_be_bytes(b) }
            };
            if pdu_len > 0 {
                // A payload that runs past the end of the file is a record cut short, not the
                // end of the trace (copying stops at the end without an error).
                match std::io::copy(&mut (&mut self.input).take(u64::from(pdu_len)), &mut std::io::sink()) {
                    Ok(n) if n == u64::from(pdu_len) => {}
                    Ok(n) => {
                        return Some(Err(self
                            .bad(&format!("cut short in its payload ({n} of the {pdu_len} bytes its header gives)"))));
                    }
                    Err(e) => return Some(Err(format!("{}: {e}", self.path))),
                }
            }
            if action & TC_NOTIFY != 0 {
                continue;
            }
            let d = if action & TC_READ != 0 {
                Some(0)
            } else if action & TC_WRITE != 0 {
                Some(1)
            } else if action & TC_DISCARD != 0 {
                Some(2)
            } else {
                None
            };
            match (action & 0xffff, d) {
                (TA_QUEUE, Some(d)) => self.this_depth[d] += 1,
                (TA_BACKMERGE | TA_FRONTMERGE, Some(d)) => self.this_depth[d] -= 1,
                (TA_COMPLETE, Some(d)) => {
                    self.depth[d] = self.depth[d].max(self.this_depth[d]);
                    self.this_depth[d] = 0;
                }
                _ => {}
            }
            if action & 0xffff != TA_QUEUE {
                continue;
            }
            let delay = self.options.delay(self.last_time, time) / 1000;
            self.last_time = time;
            let (op, skip) = if action & TC_DISCARD != 0 {
                (TraceOp::Trim, 2)
            } else if action & TC_FLUSH != 0 {
                (TraceOp::Sync, 3)
            } else if action & TC_WRITE != 0 {
                (TraceOp::Write, 1)
            } else {
                (TraceOp::Read, 0)
            };
            if self.options.skip[skip] || (bytes == 0 && matches!(op, TraceOp::Read | TraceOp::Write)) {
                continue;
            }
            let offset = if op == TraceOp::Sync { 0 } else { self.options.place(sector * 512) };
            let bytes = if op == TraceOp::Sync { 0 } else { u64::from(bytes) };
            return Some(Ok(TraceEntry { op, offset, bytes, delay_us: delay, at: self.record }));
        }
    }
}

/// One input of a merge: its queue events, each file's times scaled by `scalar` % and the
/// file replayed `iters` times end to end (fio's `blktrace_cursor`).
struct MergeInput {
    path: String,
    input: BufReader<File>,
    scalar: u64,
    iters: u64,
    iter: u64,
    /// The last time stamp in the file: where its next iteration starts.
    length: u64,
    last_raw_time: u64,
    /// The current queue event, its time scaled.
    record: Option<([u8; RECORD_BYTES], u64)>,
}

impl MergeInput {
    /// Moves to the next queue event (rewinding for the next iteration at the end).
    fn advance(&mut self) -> Result<(), String> {
        loop {
            let mut raw = [0u8; RECORD_BYTES];
            let n = read_full(&mut self.input, &mut raw).map_err(|e| format!("{}: {e}", self.path))?;
            if n == 0 {
                if self.length == 0 {
                    self.length = self.last_raw_time;
                }
                self.iter += 1;
                if self.iter >= self.iters {
                    self.record = None;
                    return Ok(());
                }
                let file = File::open(&self.path).map_err(|e| format!("{}: {e}", self.path))?;
                self.input = BufReader::new(file);
                continue;
            }
            if n < RECORD_BYTES {
                return Err(format!("{}: a partial record at the end", self.path));
            }
            let le = u32::from_le_bytes(raw[..4].try_into().expect("4 bytes")) & 0xffff_ff00 == MAGIC;
            let get32 = |at: usize| {
                let b: [u8; 4] = raw[at..at + 4].try_into().expect("4 bytes");
                if le { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) }
            };
            if get32(0) & 0xffff_ff00 != MAGIC {
                return Err(format!("{}: not blktrace data (bad magic)", self.path));
            }
            let time = {
                let b: [u8; 8] = raw[8..16].try_into().expect("8 bytes");
                if le { u64::from_le_bytes(b) } else { u64::from_be_bytes(b) }
            };
            let pdu = {
                let b: [u8; 2] = raw[46..48].try_into().expect("2 bytes");
                if le { u16::from_le_bytes(b) } else { u16::from_be_bytes(b) }
            };
            std::io::copy(&mut (&mut self.input).take(u64::from(pdu)), &mut std::io::sink())
                .map_err(|e| format!("{}: {e}", self.path))?;
            self.last_raw_time = time;
            let action = get32(28);
            if action & 0xffff != TA_QUEUE || action & (TC_READ | TC_WRITE | TC_DISCARD) == 0 {
                continue;
            }
            let scaled = (u128::from(time + self.iter * self.length) * u128::from(self.scalar) / 100) as u64;
            // Written out little-endian with the scaled time and no payload.
            let mut out = [0u8; RECORD_BYTES];
            let fields32 = [
                (0, get32(0)),
                (4, get32(4)),
                (24, get32(24)),
                (28, action),
                (32, get32(32)),
                (36, get32(36)),
                (40, get32(40)),
            ];
            for (at, v) in fields32 {
                out[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            let sector = {
                let b: [u8; 8] = raw[16..24].try_into().expect("8 bytes");
                if le { u64::from_le_bytes(b) } else { u64::from_be_bytes(b) }
            };
            out[8..16].copy_from_slice(&scaled.to_le_bytes());
            out[16..24].copy_from_slice(&sector.to_le_bytes());
            self.record = Some((out, scaled));
            return Ok(());
        }
    }
}

/// fio's `merge_blktrace_iologs`: the queue events of `paths`, each file's times scaled by
/// its `scalars` % (default 100) and repeated `iters` times (default 1), merged in time
/// order into one blktrace file at `out` (written whole, then renamed into place).
pub fn merge(paths: &[String], scalars: &[u64], iters: &[u64], out: &std::path::Path) -> Result<(), String> {
    for (list, option) in [(scalars, "merge_blktrace_scalars"), (iters, "merge_blktrace_iters")] {
        if !list.is_empty() && list.len() != paths.len() {
            return Err(format!("{option} has {} values for {} traces; give one per trace", list.len(), paths.len()));
        }
    }
    let mut inputs = Vec::with_capacity(paths.len());
    for (k, path) in paths.iter().enumerate() {
        let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
        let mut input = MergeInput {
            path: path.clone(),
            input: BufReader::new(file),
            scalar: scalars.get(k).copied().unwrap_or(100),
            iters: iters.get(k).copied().unwrap_or(1).max(1),
            iter: 0,
            length: 0,
            last_raw_time: 0,
            record: None,
        };
        input.advance()?;
        inputs.push(input);
    }
    let tmp = out.with_extension("merging");
    let result = (|| -> Result<(), String> {
        let file = File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let mut w = std::io::BufWriter::new(file);
        while let Some(k) = (0..inputs.len())
            .filter(|&k| inputs[k].record.is_some())
            .min_by_key(|&k| inputs[k].record.map_or(u64::MAX, |r| r.1))
        {
            let (raw, _) = inputs[k].record.expect("chosen among those with a record");
            std::io::Write::write_all(&mut w, &raw).map_err(|e| format!("{}: {e}", tmp.display()))?;
            inputs[k].advance()?;
        }
        let file = w.into_inner().map_err(|e| format!("{}: {}", tmp.display(), e.error()))?;
        file.sync_all().map_err(|e| format!("{}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, out).map_err(|e| format!("{}: {e}", out.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Reads until `buf` is full or the input ends; the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::TraceReader;
    use super::*;

    /// One little-endian record.
    pub(crate) fn record(time_ns: u64, sector: u64, bytes: u32, action: u32) -> Vec<u8> {
        let mut r = Vec::with_capacity(RECORD_BYTES);
        r.extend_from_slice(&(MAGIC | VERSION).to_le_bytes());
        r.extend_from_slice(&0u32.to_le_bytes());
        r.extend_from_slice(&time_ns.to_le_bytes());
        r.extend_from_slice(&sector.to_le_bytes());
        r.extend_from_slice(&bytes.to_le_bytes());
        r.extend_from_slice(&action.to_le_bytes());
        r.extend_from_slice(&[0; 16]);
        r
    }

    pub(crate) const QUEUE_READ: u32 = TA_QUEUE | TC_READ | (1 << 20);
    pub(crate) const QUEUE_WRITE: u32 = TA_QUEUE | TC_WRITE | (1 << 20);
    pub(crate) const COMPLETE_READ: u32 = TA_COMPLETE | TC_READ | (1 << 23);

    fn entries(data: &[u8], options: ReplayOptions) -> (Result<Vec<TraceEntry>, String>, Option<u32>) {
        let path = std::env::temp_dir().join(format!("ssdtwin-blk-{}-{}", std::process::id(), data.len()));
        std::fs::write(&path, data).unwrap();
        let mut r = TraceReader::open(path.to_str().unwrap(), options).unwrap();
        let mut out = Vec::new();
        let mut err = None;
        while let Some(e) = r.next_entry() {
            match e {
                Ok(e) => out.push(e),
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        let depth = match &r {
            TraceReader::Blktrace(b) => Some(b.inferred_depth(&[1, 1, 0, 0])),
            TraceReader::Iolog(_) => None,
        };
        std::fs::remove_file(&path).unwrap();
        (err.map_or(Ok(out), Err), depth)
    }

    #[test]
    fn queue_events_become_entries_and_completions_set_the_depth() {
        let mut data = Vec::new();
        data.extend(record(1_000_000, 8, 4096, QUEUE_READ));
        data.extend(record(1_500_000, 16, 4096, QUEUE_READ));
        data.extend(record(1_600_000, 24, 8192, QUEUE_WRITE));
        data.extend(record(2_000_000, 8, 4096, COMPLETE_READ));
        let (e, depth) = entries(&data, ReplayOptions::default());
        let e = e.unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].op, e[0].offset, e[0].bytes, e[0].delay_us), (TraceOp::Read, 4096, 4096, 0));
        assert_eq!((e[1].delay_us, e[2].op, e[2].delay_us), (500, TraceOp::Write, 100));
        assert_eq!(depth, Some(2));
    }

    #[test]
    fn merged_traces_interleave_by_scaled_time_and_repeat() {
        let dir = std::env::temp_dir();
        let (a, b, out) = (dir.join("ssdtwin-m-a"), dir.join("ssdtwin-m-b"), dir.join("ssdtwin-m-out"));
        let mut data = record(1_000, 0, 4096, QUEUE_READ);
        data.extend(record(3_000, 8, 4096, QUEUE_READ));
        std::fs::write(&a, &data).unwrap();
        std::fs::write(&b, record(2_000, 16, 4096, QUEUE_WRITE)).unwrap();
        let paths = [a.to_str().unwrap().to_string(), b.to_str().unwrap().to_string()];
        // b at 175 % (its event at 3500 ns), a twice (its second pass 3000 ns later).
        merge(&paths, &[100, 175], &[2, 1], &out).unwrap();
        let (e, _) =
            entries(&std::fs::read(&out).unwrap(), ReplayOptions { no_stall: true, ..ReplayOptions::default() });
        let order: Vec<u64> = e.unwrap().iter().map(|e| e.offset / 512).collect();
        assert_eq!(order, vec![0, 8, 16, 0, 8]);
        assert!(
            merge(&paths, &[100], &[], &out)
                .unwrap_err()
                .starts_with("merge_blktrace_scalars has 1 values for 2 traces")
        );
        for p in [a, b, out] {
            std::fs::remove_file(p).unwrap();
        }
    }

    #[test]
    fn a_payload_that_overruns_the_file_is_a_cut_record() {
        // A second record whose header promises 100 bytes of payload, of which 40 are there.
        let mut data = record(1, 8, 4096, QUEUE_READ);
        let mut overrun = record(2, 8, 4096, QUEUE_WRITE);
        overrun[46..48].copy_from_slice(&100u16.to_le_bytes());
        data.extend(overrun);
        data.extend([0u8; 40]);
        let err = entries(&data, ReplayOptions::default()).0.unwrap_err();
        assert!(err.ends_with(": record 2: cut short in its payload (40 of the 100 bytes its header gives)"), "{err}");
        // The whole payload there: the record is taken and its payload skipped.
        data.extend([0u8; 60]);
        assert_eq!(entries(&data, ReplayOptions::default()).0.unwrap().len(), 2);
    }

    #[test]
    fn skipped_kinds_are_dropped_and_a_cut_record_is_named() {
        let mut data = record(1, 8, 4096, QUEUE_READ);
        data.extend(record(2, 8, 4096, QUEUE_WRITE));
        let skip = ReplayOptions { skip: [false, true, false, false], ..ReplayOptions::default() };
        assert_eq!(entries(&data, skip).0.unwrap().len(), 1);
        data.truncate(data.len() - 10);
        assert!(
            entries(&data, ReplayOptions::default())
                .0
                .unwrap_err()
                .ends_with(": record 2: cut short (a partial record at the end)")
        );
    }
}
