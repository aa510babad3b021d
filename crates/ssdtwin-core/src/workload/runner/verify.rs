//! fio's verification (`verify=`): a writing job logs each block it writes and reads the
//! blocks back, after each pass over its region (`do_verify`) or interleaved with its
//! writes (`verify_backlog`); a reading job checks the blocks it reads.
//!
//! Read first: fio's `backend.c` (`do_io`, `do_verify`, the loop in `thread_main`),
//! `iolog.c` (`log_io_piece`), `io_u.c` (`check_get_verify`) and `verify.c`
//! (`get_next_verify`, `populate_verify_io_u`, `verify_io_u`).
//!
//! The twin keeps no data, and nothing corrupts it, so every block matches: what is
//! modelled is what verification costs, the reads it issues and the checksums it computes.
//! The log keeps fio's order: with a random map the order blocks were written in
//! (`io_hist_list`), otherwise sorted by offset with a later write replacing any it
//! overlaps (`io_hist_tree`). It holds 16 bytes per block logged, where fio holds a
//! ~100-byte `io_piece`.

use super::super::{Direction, JobSpec, VerifyMethod};
use crate::engine::{SimDuration, SimTime};
use crate::os::HostConfig;
use std::collections::{BTreeMap, HashSet, VecDeque};

/// Per-core throughput of fio's checksums, MiB/s on the reference core (`speed_factor` 1.0).
/// Source: `fio --crctest` (fio 3.33) on an AMD EPYC core, 2026; `meta` checks a 40-byte
/// header per `verify_interval` with crc32c; `pattern`, and the buffer fill every verified
/// write does, run at memcpy speed (`fio --memcpytest`, 128 KiB copies: 28,244 MiB/s).
fn checksum_mib_per_s(method: VerifyMethod) -> f64 {
    use VerifyMethod::{
        Crc7, Crc16, Crc32, Crc32c, Crc64, Md5, Meta, Null, Pattern, Sha1, Sha3_224, Sha3_256, Sha3_384, Sha3_512,
        Sha256, Sha512, Xxhash,
    };
    match method {
        Md5 => 756.5,
        Crc64 => 491.0,
        Crc32 => 444.7,
        Crc32c | Meta => 10_726.1,
        Crc16 => 502.7,
        Crc7 => 578.0,
        Sha1 => 934.7,
        Sha256 => 367.3,
        Sha512 => 576.9,
        Sha3_224 => 110.0,
        Sha3_256 => 104.0,
        Sha3_384 => 80.5,
        Sha3_512 => 55.2,
        Xxhash => 1_952.1,
        Pattern => MEMCPY_MIB_PER_S,
        Null => f64::INFINITY,
    }
}

/// `fio --memcpytest`, 128 KiB copies, same core.
const MEMCPY_MIB_PER_S: f64 = 28_244.0;

/// The bytes of a `meta` block's header that its checksum covers.
const VERIFY_HEADER_BYTES: u64 = 40;

/// Which part of a pass a verifying clone is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Doing the job's own I/O (and backlog reads).
    Io,
    /// Reading back what the pass wrote.
    Verify,
}

/// The blocks written and not yet read back, in the order fio reads them.
enum Log {
    /// Oldest first (a random job with a random map: no block is written twice in a pass).
    Written(VecDeque<(u64, u64)>),
    /// By offset; a write replaces every logged block it overlaps.
    ByOffset(BTreeMap<u64, u64>),
}

impl Log {
    fn len(&self) -> usize {
        match self {
            Log::Written(q) => q.len(),
            Log::ByOffset(m) => m.len(),
        }
    }

    fn push(&mut self, offset: u64, bytes: u64) {
        match self {
            Log::Written(q) => q.push_back((offset, bytes)),
            Log::ByOffset(m) => {
                // Blocks that start inside the new one, and the one before it if it reaches in.
                let end = offset + bytes;
                let overlapping: Vec<u64> = m
                    .range(..end)
                    .rev()
                    .take_while(|&(&at, &len)| at + len > offset || at >= offset)
                    .filter(|&(&at, &len)| at + len > offset)
                    .map(|(&at, _)| at)
                    .collect();
                for at in overlapping {
                    m.remove(&at);
                }
                m.insert(offset, bytes);
            }
        }
    }

    fn first(&self) -> Option<(u64, u64)> {
        match self {
            Log::Written(q) => q.front().copied(),
            Log::ByOffset(m) => m.first_key_value().map(|(&at, &len)| (at, len)),
        }
    }

    fn pop_first(&mut self) {
        match self {
            Log::Written(q) => {
                q.pop_front();
            }
            Log::ByOffset(m) => {
                m.pop_first();
            }
        }
    }
}

/// A clone's verification.
// Each flag is one of fio's verify options or a step of its verify phase; `verify_ns` is
// that phase's time beside `io_ns`, as fio names the two.
#[allow(clippy::struct_excessive_bools, clippy::struct_field_names)]
pub(super) struct Verify {
    pub phase: Phase,
    log: Log,
    /// Whether this clone writes and logs (a job that only reads checks what it reads).
    logs_writes: bool,
    /// `verify_only`: writes are logged, not issued.
    pub dry_run: bool,
    /// `verify_backlog`, and the batch read back each time (0: no backlog).
    backlog: u64,
    batch: u64,
    batch_left: u64,
    /// Blocks logged since the last backlog batch began.
    logged: u64,
    /// Writes issued and not yet completed, by offset: not read back until they are.
    in_flight: HashSet<u64>,
    /// Reads of a read-only job are checked as they complete.
    pub checks_reads: bool,
    /// CPU time per MiB: making a block to write (fill and checksum), checking one read.
    write_ns_per_mib: u64,
    check_ns_per_mib: u64,
    /// Time measured in each phase, ns (fio's per-direction `update_runtime`).
    pub io_ns: u64,
    pub verify_ns: u64,
    phase_start: SimTime,
    /// Whether the page cache must be written back and dropped before reading back, and
    /// whether that was done this pass.
    pub sync_before: bool,
    pub synced: bool,
}

impl Verify {
    /// Verification for a clone of `spec` on `host`, if it verifies.
    pub(super) fn new(spec: &JobSpec, host: &HostConfig) -> Option<Self> {
        let method = spec.verify.method?;
        let writes = spec.rw.uses(Direction::Write);
        let logs_writes = writes && spec.verify.do_verify;
        let checks_reads = !writes && spec.rw.uses(Direction::Read);
        if !logs_writes && !checks_reads {
            return None;
        }
        let random_map = spec.rw.is_random() && !spec.norandommap && spec.blockalign.iter().all(Option::is_none);
        let log = if random_map { Log::Written(VecDeque::new()) } else { Log::ByOffset(BTreeMap::new()) };
        let ns_per_mib = |mib_per_s: f64| -> u64 {
            if host.is_none() || spec.verify.offloaded {
                0
            } else {
                (1e9 / mib_per_s / host.speed_factor).round() as u64
            }
        };
        let min_write_bs = spec.bs[Direction::Write.index()].min();
        // A `meta` check covers one header per verify_interval (fio's default: the block).
        let interval = if spec.verify.interval > 0 { spec.verify.interval } else { min_write_bs.max(1) };
        let check = match method {
            VerifyMethod::Meta => ns_per_mib(checksum_mib_per_s(method)) * VERIFY_HEADER_BYTES / interval,
            _ => ns_per_mib(checksum_mib_per_s(method)),
        };
        // A verified write's buffer is filled afresh (fio sets refill_buffers) and summed.
        let write = if logs_writes { ns_per_mib(MEMCPY_MIB_PER_S) + check } else { 0 };
        let dry_run = spec.verify.only && logs_writes;
        let backlog = if logs_writes && !dry_run { spec.verify.backlog } else { 0 };
        Some(Verify {
            phase: Phase::Io,
            log,
            logs_writes,
            dry_run,
            backlog,
            batch: if spec.verify.backlog_batch > 0 { spec.verify.backlog_batch } else { backlog },
            batch_left: 0,
            logged: 0,
            in_flight: HashSet::new(),
            checks_reads,
            write_ns_per_mib: write,
            check_ns_per_mib: check,
            io_ns: 0,
            verify_ns: 0,
            phase_start: SimTime::ZERO,
            sync_before: !spec.direct && logs_writes,
            synced: false,
        })
    }

    /// Whether the clone logs its writes to read them back.
    pub(super) fn logs_writes(&self) -> bool {
        self.logs_writes
    }

    /// Logs a write the clone is about to issue.
    pub(super) fn log_write(&mut self, offset: u64, bytes: u64) {
        if !self.logs_writes {
            return;
        }
        self.log.push(offset, bytes);
        self.logged += 1;
        if self.backlog > 0 && !self.dry_run {
            self.in_flight.insert(offset);
        }
    }

    /// A logged write completed: it may be read back.
    pub(super) fn write_completed(&mut self, offset: u64) {
        if self.backlog > 0 {
            self.in_flight.remove(&offset);
        }
    }

    /// The block to read back now instead of the job's next I/O, if any: in the verify
    /// phase the next logged block; in the I/O phase a block of the current backlog batch,
    /// a batch starting after every `verify_backlog` blocks logged unless the last I/O was
    /// a read (fio's `check_get_verify`). A block whose write is still in flight waits.
    pub(super) fn next_read_back(&mut self, last_was_read: bool) -> Option<(u64, u64)> {
        match self.phase {
            Phase::Verify => {
                let block = self.log.first()?;
                self.log.pop_first();
                Some(block)
            }
            Phase::Io if self.backlog > 0 && self.log.len() > 0 => {
                if self.batch_left == 0 && self.logged >= self.backlog && !last_was_read {
                    self.logged = 0;
                    self.batch_left = self.batch;
                }
                if self.batch_left == 0 {
                    return None;
                }
                let (offset, bytes) = self.log.first()?;
                if self.in_flight.contains(&offset) {
                    return None;
                }
                self.log.pop_first();
                self.batch_left -= 1;
                Some((offset, bytes))
            }
            Phase::Io => None,
        }
    }

    /// Whether the verify phase has nothing left to read back.
    #[inline]
    pub(super) fn verified_all(&self) -> bool {
        self.phase == Phase::Verify && self.log.len() == 0
    }

    /// CPU time to make a verified write of `bytes`.
    pub(super) fn write_cost(&self, bytes: u64) -> SimDuration {
        SimDuration((self.write_ns_per_mib * bytes) >> 20)
    }

    /// CPU time to check a block of `bytes` read back.
    pub(super) fn check_cost(&self, bytes: u64) -> SimDuration {
        SimDuration((self.check_ns_per_mib * bytes) >> 20)
    }

    /// The pass's I/O ended at `now` (its measured part from `from`): read back what it
    /// wrote. False when this clone logs no writes.
    pub(super) fn begin_verify(&mut self, from: SimTime, now: SimTime) -> bool {
        if !self.logs_writes {
            return false;
        }
        self.io_ns += now.since(self.phase_start.max(from)).as_ns();
        self.phase = Phase::Verify;
        self.phase_start = now;
        true
    }

    /// The read-back ended at `now`: the next pass starts.
    pub(super) fn end_verify(&mut self, from: SimTime, now: SimTime) {
        self.verify_ns += now.since(self.phase_start.max(from)).as_ns();
        self.phase = Phase::Io;
        self.phase_start = now;
        self.batch_left = 0;
        self.logged = 0;
        self.synced = false;
    }

    /// The clone stopped at `end`: the phase it was in ends there.
    pub(super) fn close(&mut self, from: SimTime, end: SimTime) {
        let spent = end.since(self.phase_start.max(from)).as_ns();
        match self.phase {
            Phase::Io => self.io_ns += spent,
            Phase::Verify => self.verify_ns += spent,
        }
    }
}
