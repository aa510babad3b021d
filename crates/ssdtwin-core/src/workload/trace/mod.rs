//! Traces a job replays (`read_iolog=`): fio's iolog versions 2 and 3 and blktrace binary
//! files, read as fio 3.33 reads them (`iolog.c` `read_iolog`, `blktrace.c`
//! `read_blktrace`), streamed so that a trace of any length takes constant memory.
//!
//! Every file a trace names is the namespace (as fio's `replay_redirect` to the drive would
//! make it): offsets are namespace bytes. A trace is read twice: once when the job is
//! parsed, to check every line and learn the job's directions, block sizes, bytes and (for
//! blktrace) queue depth, and again as the job runs.

mod blktrace;
mod iolog;
mod write;

pub use blktrace::merge as merge_blktraces;
pub use write::IologWriter;

use std::fs::File;
use std::io::{BufReader, Read};

/// What a trace entry does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceOp {
    /// `read`.
    Read,
    /// `write`.
    Write,
    /// `trim` (iolog), a discard (blktrace).
    Trim,
    /// `sync`/`datasync` (iolog), a flush (blktrace).
    Sync,
    /// iolog v2's `wait`: as fio 3.33 does it, no I/O before `delay_us` **ms** after the
    /// job started (fio compares the value with milliseconds since its start).
    Wait,
}

/// One entry to replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    /// What it does.
    pub op: TraceOp,
    /// Namespace bytes (after `replay_scale` and `replay_align`).
    pub offset: u64,
    /// Length (0 for a sync or a wait).
    pub bytes: u64,
    /// µs to leave after the previous I/O was issued (v3 and blktrace timestamps, scaled by
    /// `replay_time_scale`), or a `wait`'s value.
    pub delay_us: u64,
    /// Line (iolog) or record (blktrace) number, 1-based, for messages.
    pub at: u64,
}

/// fio's replay options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayOptions {
    /// `replay_no_stall`: issue as fast as the depth allows, ignoring timestamps.
    pub no_stall: bool,
    /// `replay_time_scale`: percent of the original rate (delays × 100 / it).
    pub time_scale_pct: u64,
    /// `replay_align`: offsets aligned down to it (0: as they are).
    pub align: u64,
    /// `replay_scale`: offsets divided by it (0 or 1: as they are).
    pub scale: u64,
    /// `replay_skip` (read, write, trim, sync): entries of these kinds are dropped (fio
    /// applies it to blktrace input).
    pub skip: [bool; 4],
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions { no_stall: false, time_scale_pct: 100, align: 0, scale: 0, skip: [false; 4] }
    }
}

impl ReplayOptions {
    /// fio's `delay_since_ttime`: the delay before an entry stamped `time` after one
    /// stamped `last` (same unit), scaled; 0 after a first stamp of 0, without stalls, or
    /// when time runs backwards.
    fn delay(&self, last: u64, time: u64) -> u64 {
        if last == 0 || self.no_stall || time < last {
            return 0;
        }
        (u128::from(time - last) * 100 / u128::from(self.time_scale_pct.max(1))) as u64
    }

    /// An entry's offset after `replay_scale` and `replay_align`.
    fn place(&self, offset: u64) -> u64 {
        let offset = if self.scale > 1 { offset / self.scale } else { offset };
        if self.align > 0 { offset - offset % self.align } else { offset }
    }
}

/// What a scan of a trace found: the job's shape.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceSummary {
    /// Entries per kind (read, write, trim, sync).
    pub ios: [u64; 4],
    /// Bytes per direction.
    pub bytes: [u64; 3],
    /// Largest entry per direction.
    pub max_bytes: [u64; 3],
    /// blktrace only: the queue depth fio infers from queue, merge and complete events.
    pub depth: Option<u32>,
    /// The end of the furthest entry, namespace bytes.
    pub max_end: u64,
}

/// A trace being read.
pub enum TraceReader {
    /// A text iolog.
    Iolog(iolog::IologReader),
    /// A blktrace binary file.
    Blktrace(blktrace::BlktraceReader),
}

impl TraceReader {
    /// Opens `path` (an iolog or a blktrace file, told apart by their first bytes).
    pub fn open(path: &str, options: ReplayOptions) -> Result<Self, String> {
        let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
        if !file.metadata().map_err(|e| format!("{path}: {e}"))?.is_file() {
            return Err(format!("{path}: not a regular file; give a trace file"));
        }
        let mut head = [0u8; 4];
        let mut probe = BufReader::new(file);
        let n = probe.read(&mut head).map_err(|e| format!("{path}: {e}"))?;
        let file = File::open(path).map_err(|e| format!("{path}: {e}"))?;
        if n == 4 && blktrace::is_magic(head) {
            return Ok(TraceReader::Blktrace(blktrace::BlktraceReader::new(path, file, options)));
        }
        Ok(TraceReader::Iolog(iolog::IologReader::new(path, file, options)?))
    }

    /// The next entry, or the reason the trace is malformed (file and line or record).
    pub fn next_entry(&mut self) -> Option<Result<TraceEntry, String>> {
        match self {
            TraceReader::Iolog(r) => r.next_entry(),
            TraceReader::Blktrace(r) => r.next_entry(),
        }
    }

    /// Reads the whole trace, checking every entry against a namespace of `capacity` bytes
    /// with `lba`-byte blocks.
    pub fn scan(path: &str, options: ReplayOptions, capacity: u64, lba: u64) -> Result<TraceSummary, String> {
        let mut reader = TraceReader::open(path, options)?;
        let mut s = TraceSummary::default();
        while let Some(entry) = reader.next_entry() {
            let e = entry?;
            let d = match e.op {
                TraceOp::Read => 0,
                TraceOp::Write => 1,
                TraceOp::Trim => 2,
                TraceOp::Sync => {
                    s.ios[3] += 1;
                    continue;
                }
                TraceOp::Wait => continue,
            };
            let end = e.offset.checked_add(e.bytes).filter(|&end| end <= capacity);
            let Some(end) = end else {
                return Err(format!(
                    "{path}:{}: {} bytes at {} end beyond the namespace ({capacity} bytes); scale offsets with replay_scale=",
                    e.at, e.bytes, e.offset
                ));
            };
            if e.offset % lba != 0 || e.bytes % lba != 0 || e.bytes == 0 {
                return Err(format!(
                    "{path}:{}: {} bytes at {} are not whole {lba}-byte blocks; align them with replay_align={lba}",
                    e.at, e.bytes, e.offset
                ));
            }
            s.ios[d] += 1;
            s.bytes[d] += e.bytes;
            s.max_bytes[d] = s.max_bytes[d].max(e.bytes);
            s.max_end = s.max_end.max(end);
        }
        if let TraceReader::Blktrace(r) = &reader {
            s.depth = Some(r.inferred_depth(&s.ios));
        }
        if s.ios.iter().all(|&n| n == 0) {
            return Err(format!("{path}: no I/O to replay"));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_scale_and_stop_as_fios() {
        let o = ReplayOptions::default();
        assert_eq!(o.delay(0, 500), 0);
        assert_eq!(o.delay(100, 500), 400);
        assert_eq!(o.delay(500, 100), 0);
        assert_eq!(ReplayOptions { time_scale_pct: 200, ..o }.delay(100, 500), 200);
        assert_eq!(ReplayOptions { no_stall: true, ..o }.delay(100, 500), 0);
    }

    #[test]
    fn offsets_are_scaled_then_aligned() {
        let o = ReplayOptions { scale: 4, align: 4096, ..ReplayOptions::default() };
        assert_eq!(o.place(4 * 10_000), 8192);
    }
}
