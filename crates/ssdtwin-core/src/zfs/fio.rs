//! The pool as a [`BlockDevice`]: fio's files on a dataset, and the intent log.
//!
//! A job names its dataset by its mount point (`directory=/tank/data`, the dataset's
//! default mount point); the runner lays fio's files out in one byte space, and that space
//! is the dataset's: one object of `recordsize` records (every file's metadata, a few
//! blocks, is left out). Commands address it in 512-byte units.
//!
//! * Reads go through the ARC (OpenZFS before 2.3 treats `O_DIRECT` the same way): a
//!   record not cached is read after its indirect blocks; sequential reads start a prefetch
//!   stream (`dmu_zfetch`). Never-written records read as zeros without I/O.
//! * Writes dirty whole records (a partial write of an uncached record reads it first),
//!   pass the write throttle (`dmu_tx_delay`, or block at the limit), and complete; the txg
//!   writes them later. fio's buffers are random, so they do not compress. Reads and
//!   writes complete once their data is copied (`[zpl] copy_us_per_mib`).
//! * `direct=0` runs as `direct=1` (both through the ARC); a `sync=1` write completes after
//!   a flush, i.e. an intent-log commit (the jobs are rewritten so where a pool is put
//!   under fio: [`crate::setup`]).
//! * A flush (`fsync`) commits the intent log (`zil_commit`): writes below
//!   `zfs_immediate_write_sz` are copied into log blocks (`WR_COPIED`); larger ones are
//!   written in place at once and logged by pointer (`WR_INDIRECT`), except with a log
//!   vdev, or with a special class when the blocks go to normal (`zil_write_state`,
//!   `zil_special_is_slog`): then they are copied too. Log blocks go to a log vdev, else
//!   the special class, else normal (`zio_alloc_zil`); the leaves written
//!   are flushed, then the flush completes. Writes of the txg already syncing are not
//!   logged: the commit waits for that txg (`dmu_sync` returns `EALREADY`). One commit
//!   runs at a time; log blocks are freed once their txg is synced.

use super::class::Role;
use super::objects::{self, ot};
use super::queue::IoClass;
use super::sync::TxWait;
use super::vdev::{Dva, LABEL_START_BYTES};
use super::{Batch, BatchKind, Event, IoOp, OpError, Owner, Pool, Table, Waiter, key};
use crate::block::{BlockDevice, BlockGeometry, Command, Completion, CounterRow, Opcode, SubmitError};
use crate::engine::{SimDuration, SimTime, Slab};
use std::collections::VecDeque;

/// Bytes of a log record's header (`lr_write_t`).
const LOG_RECORD_BYTES: u64 = 192;
/// Largest log block (`zil_maxblocksize`).
const LOG_BLOCK_MAX_BYTES: u64 = 128 << 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Waiting for blocks to read (a read, or a partial write's old record).
    Blocks,
    /// Passed the throttle (or waiting for its delay).
    Assigned,
    /// Blocked until dirty data falls below the limit.
    Throttled,
    /// A flush waiting for its log commit.
    Commit,
    /// Copying data between the ARC and the caller's buffer.
    Copy,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Cmd {
    user: u64,
    command: Command,
    submitted: SimTime,
    pub(crate) pending: u32,
    phase: Phase,
}

/// A sequential read stream (`zstream_t`).
#[derive(Clone, Copy, Debug, Default)]
struct Stream {
    next: u64,
    distance: u64,
    used: SimTime,
}

/// fio's side of the pool.
#[derive(Clone, Debug, Default)]
pub(crate) struct FioState {
    pub(crate) cmds: Slab<Cmd>,
    live: u32,
    ready: VecDeque<Completion>,
    dataset: usize,
    throttled: VecDeque<u32>,
    streams: Vec<Stream>,
    /// Writes since the last commit: (record, bytes, txg).
    itx: Vec<(u64, u64, u64)>,
    /// Flushes waiting for the commit under way, and for the next one.
    committing: Vec<u32>,
    waiting_commit: Vec<u32>,
    commit_running: bool,
    /// The commit's writes are done but it waits for this txg, which was syncing writes it
    /// covers (`dmu_sync` finds them already being written: `EALREADY`).
    commit_wait_txg: Option<u64>,
    commit_flushed: bool,
    commit_leaves: Vec<usize>,
    commits: u64,
    log_bytes: u64,
}

/// zfetch streams kept per object (`zfetch_max_streams`).
const MAX_STREAMS: usize = 8;

impl Pool {
    /// Points fio at dataset `name` (`tank/data`, or its mount point `/tank/data`).
    pub fn set_fio_dataset(&mut self, name: &str) -> Result<(), OpError> {
        let ds = self.dataset_index(name.trim_start_matches('/'))?;
        self.fio.dataset = ds;
        Ok(())
    }

    /// Points fio at the dataset whose mount point (`/POOL/DATASET`, ZFS's default) holds
    /// every path in `paths` (jobs' `directory=`, or their `filename=` files); all must lie
    /// in one dataset.
    pub fn set_fio_dataset_for_paths(&mut self, paths: &[String]) -> Result<(), OpError> {
        let mounts: Vec<String> = self.dataset_names().iter().map(|n| format!("/{n}")).collect();
        let bad = |value: &str, why: &str| OpError::Parameter {
            field: "directory".into(),
            value: value.into(),
            allowed: format!("{why}: a job on a pool names its dataset's mount point ({})", mounts.join(", ")),
        };
        let mut chosen = None;
        for path in paths {
            let best = mounts
                .iter()
                .enumerate()
                .filter(|(_, m)| path == *m || path.starts_with(&format!("{m}/")))
                .max_by_key(|(_, m)| m.len())
                .map(|(i, _)| i)
                .ok_or_else(|| bad(path, "not below a dataset of this pool"))?;
            match chosen {
                Some(c) if c != best => return Err(bad(path, "the jobs of one run use one dataset")),
                _ => chosen = Some(best),
            }
        }
        self.fio.dataset = chosen.ok_or_else(|| bad("(none)", "no job names a directory or file"))?;
        Ok(())
    }

    /// CPU time of one read or write call on this pool (the ZPL's `io_call_us`, scaled to
    /// the machine's cores).
    pub fn file_call_cost(&self) -> SimDuration {
        self.zpl.io_call
    }

    fn record_bytes(&self) -> u64 {
        self.datasets[self.fio.dataset].cfg.recordsize_bytes
    }

    fn fanout(&self) -> u64 {
        self.config.format.indirect_block_bytes / self.config.format.block_pointer_bytes
    }

    /// Ensures record `r` of fio's object is in the ARC (after its indirect blocks);
    /// `true` if it is, or if it was never written (a hole).
    fn need_record(&mut self, r: u64, class: IoClass, who: Option<Waiter>) -> bool {
        let ds = self.fio.dataset;
        let fanout = self.fanout();
        let Some(rec) = self.datasets[ds].flat.record(r, fanout).copied() else { return true };
        if rec.dirty_txg != 0 && rec.dirty_txg > self.txg.synced {
            return true;
        }
        if !rec.dva[0].is_allocated() {
            return true;
        }
        let levels = self.datasets[ds].flat.levels.len();
        for level in (1..=levels).rev() {
            let idx = (r / fanout.pow(level as u32)) as usize;
            let Some(&m) = self.datasets[ds].flat.levels[level - 1].get(idx) else { continue };
            if m == u32::MAX {
                continue;
            }
            let b = self.datasets[ds].meta[m as usize];
            if !self.read_block(key(ds, Table::Meta, u64::from(m)), &b.dva, u64::from(b.psize), class, who) {
                return false;
            }
        }
        self.read_block(key(ds, Table::Flat, r), &rec.dva, u64::from(rec.psize), class, who)
    }

    /// Re-examines command `c`: issues what it still needs, or moves it on.
    fn cmd_progress(&mut self, c: u32) {
        let cmd = self.fio.cmds[c];
        if cmd.pending > 0 {
            return;
        }
        let rs = self.record_bytes();
        let (start, end) = (cmd.command.slba * 512, (cmd.command.slba + u64::from(cmd.command.blocks)) * 512);
        match (cmd.command.opcode, cmd.phase) {
            (Opcode::Read, _) => {
                let mut ready = true;
                for r in start / rs..=(end - 1) / rs {
                    ready &= self.need_record(r, IoClass::SyncRead, Some(Waiter::Cmd(c)));
                }
                if ready {
                    self.prefetch_stream(start / rs, (end - 1) / rs);
                    self.finish_after_copy(c, end - start);
                }
            }
            (Opcode::Write, Phase::Blocks) => {
                // Partial records must be read before they are changed.
                let mut ready = true;
                for r in [start / rs, (end - 1) / rs] {
                    if start > r * rs || end < (r + 1) * rs {
                        ready &= self.need_record(r, IoClass::SyncRead, Some(Waiter::Cmd(c)));
                    }
                }
                if ready {
                    self.assign_write(c);
                }
            }
            _ => {}
        }
    }

    /// Passes a write through the throttle.
    fn assign_write(&mut self, c: u32) {
        match self.tx_assign() {
            TxWait::Go => self.write_records(c),
            TxWait::Until(t) => {
                self.fio.cmds[c].phase = Phase::Assigned;
                self.events.push(t, Event::CmdDone { cmd: c });
            }
            TxWait::Blocked => {
                self.fio.cmds[c].phase = Phase::Throttled;
                self.fio.throttled.push_back(c);
            }
        }
    }

    /// Dirties the records of write `c` in the open txg, and completes it.
    fn write_records(&mut self, c: u32) {
        let cmd = self.fio.cmds[c];
        let rs = self.record_bytes();
        let ds = self.fio.dataset;
        let fanout = self.fanout();
        let (start, end) = (cmd.command.slba * 512, (cmd.command.slba + u64::from(cmd.command.blocks)) * 512);
        let open = self.txg.open;
        let n = self.datasets.len();
        for r in start / rs..=(end - 1) / rs {
            let rec = self.datasets[ds].flat.record_mut(r, fanout);
            if rec.logged {
                // Logged in place earlier in this txg and now changed again: that copy goes.
                let (dva, psize) = (rec.dva, u64::from(rec.psize));
                rec.logged = false;
                rec.dva = [Dva::HOLE; 3];
                let role = Role { metadata: false, indirect: false, small_blocks: 0, intent_log: false };
                self.txg.open_set.frees.push((dva, psize, role));
            }
            let rec = self.datasets[ds].flat.record_mut(r, fanout);
            let fresh = rec.dirty_txg != open;
            rec.dirty_txg = open;
            if fresh {
                self.txg.mark_dataset(ds, n).records.push(r);
                self.dirty_bytes(rs, false);
            }
            self.arc.insert(key(ds, Table::Flat, r), rs);
            let bytes = end.min((r + 1) * rs) - start.max(r * rs);
            self.fio.itx.push((r, bytes, open));
        }
        self.finish_after_copy(c, end - start);
    }

    /// Completes command `c` once its `bytes` are copied to or from the ARC (the ZPL's
    /// `copy_us_per_mib`).
    fn finish_after_copy(&mut self, c: u32, bytes: u64) {
        let t = SimDuration(((u128::from(self.zpl.copy_per_mib.as_ns()) * u128::from(bytes)) >> 20) as u64);
        if t.as_ns() == 0 {
            self.complete_cmd(c);
        } else {
            self.fio.cmds[c].phase = Phase::Copy;
            self.events.push(self.now + t, Event::CmdDone { cmd: c });
        }
    }

    fn complete_cmd(&mut self, c: u32) {
        let cmd = self.fio.cmds[c];
        self.fio.cmds.free(c);
        self.fio.ready.push_back(Completion {
            user: cmd.user,
            command: cmd.command,
            submitted: cmd.submitted,
            completed: self.now,
            assigned_lba: 0,
        });
    }

    /// A block command `c` waited for arrived.
    pub(crate) fn cmd_woken(&mut self, c: u32) {
        self.fio.cmds[c].pending -= 1;
        if self.fio.cmds[c].pending == 0 {
            self.cmd_progress(c);
        }
    }

    /// A write's throttle delay, or a copy, is over.
    pub(crate) fn cmd_done(&mut self, c: u32) {
        match self.fio.cmds[c].phase {
            Phase::Assigned => self.write_records(c),
            Phase::Copy => self.complete_cmd(c),
            _ => {}
        }
    }

    /// Dirty data fell below the limit: blocked writes try again, in order.
    pub(crate) fn fio_space_available(&mut self) {
        while self.txg.dirty < self.dirty_max
            && let Some(c) = self.fio.throttled.pop_front()
        {
            self.fio.cmds[c].phase = Phase::Blocks;
            self.assign_write(c);
        }
    }

    /// `dmu_zfetch` on fio's object: a read that continues a stream prefetches ahead of it.
    fn prefetch_stream(&mut self, first: u64, last: u64) {
        let t = &self.config.tunables;
        if t.zfs_prefetch_disable != 0 {
            return;
        }
        let (min, max) = (t.zfetch_min_distance, t.zfetch_max_distance);
        let rs = self.record_bytes();
        let now = self.now;
        let hit = self.fio.streams.iter().position(|s| s.next == first || (s.next > first && s.next <= last + 1));
        let Some(i) = hit else {
            let s = Stream { next: last + 1, distance: 0, used: now };
            if self.fio.streams.len() < MAX_STREAMS {
                self.fio.streams.push(s);
            } else {
                let lru = (0..MAX_STREAMS).min_by_key(|&i| self.fio.streams[i].used).expect("full");
                self.fio.streams[lru] = s;
            }
            return;
        };
        let s = &mut self.fio.streams[i];
        s.distance = if s.distance < min { (s.distance * 2).max(rs) } else { (s.distance + s.distance / 8).min(max) };
        s.next = last + 1;
        s.used = now;
        let s = *s;
        let ahead = (s.distance / rs).max(1);
        for r in s.next..s.next + ahead {
            self.need_record(r, IoClass::AsyncRead, None);
        }
    }

    // ---- the intent log ----

    /// A flush: commit the log, or complete at once if nothing is waiting to be logged.
    fn flush(&mut self, c: u32) {
        self.fio.cmds[c].phase = Phase::Commit;
        let synced = self.txg.synced;
        self.fio.itx.retain(|&(_, _, txg)| txg > synced);
        if self.fio.itx.is_empty() && !self.fio.commit_running {
            self.complete_cmd(c);
            return;
        }
        self.fio.waiting_commit.push(c);
        if !self.fio.commit_running {
            self.start_commit();
        }
    }

    fn start_commit(&mut self) {
        let synced = self.txg.synced;
        let syncing = self.txg.syncing;
        let mut itx: Vec<(u64, u64, u64)> =
            std::mem::take(&mut self.fio.itx).into_iter().filter(|x| x.2 > synced).collect();
        // Writes of the txg being synced are on their way: the commit waits for that txg.
        self.fio.commit_wait_txg = syncing.filter(|&t| itx.iter().any(|x| x.2 == t));
        self.fio.commit_flushed = false;
        itx.retain(|x| Some(x.2) != syncing);
        self.fio.committing = std::mem::take(&mut self.fio.waiting_commit);
        self.fio.commit_running = true;
        self.fio.commits += 1;
        let id = self.fio.commits;
        let batch = self.batches.insert(Batch { left: 0, kind: BatchKind::ZilWrites, id });
        let ds = self.fio.dataset;
        let rs = self.record_bytes();
        let fanout = self.fanout();
        let immediate = self.config.tunables.zfs_immediate_write_sz;
        // zil_write_state: with a log vdev nothing is written in place; with a special
        // class, only blocks that live there (zil_special_is_slog). The pool cannot tell an
        // O_SYNC write from one an fsync follows: it applies the fsync rule (no commit
        // planned, so the half-block condition does not apply).
        let in_place = if self.has_class(super::AllocClass::Log) {
            false
        } else if self.has_class(super::AllocClass::Special) {
            rs <= self.datasets[ds].cfg.special_small_blocks_bytes || self.config.tunables.zil_special_is_slog == 0
        } else {
            true
        };
        let mut log_record_bytes = 0u64;
        let mut leaves = Vec::new();
        let mut indirect: Vec<u64> = Vec::new();
        for &(r, bytes, _) in &itx {
            if in_place && bytes >= immediate {
                indirect.push(r);
                log_record_bytes += LOG_RECORD_BYTES;
            } else {
                log_record_bytes += LOG_RECORD_BYTES + bytes;
            }
        }
        indirect.sort_unstable();
        indirect.dedup();
        let role_data = Role {
            metadata: false,
            indirect: false,
            small_blocks: self.datasets[ds].cfg.special_small_blocks_bytes,
            intent_log: false,
        };
        let copies = objects::copies(&self.datasets[ds].cfg, ot::PLAIN_FILE, 0);
        for r in indirect {
            let rec = *self.datasets[ds].flat.record(r, fanout).expect("logged records exist");
            if rec.logged || rec.dirty_txg != self.txg.open {
                continue;
            }
            // dmu_sync: the record is written in its final place now.
            match self.allocate(role_data, rs, copies) {
                Ok(dva) => {
                    if rec.dva[0].is_allocated() {
                        self.txg.open_set.frees.push((rec.dva, u64::from(rec.psize), role_data));
                    }
                    self.queue_sync_writes(&dva, rs, batch, &mut leaves);
                    let m = self.datasets[ds].flat.record_mut(r, fanout);
                    m.dva = dva;
                    m.psize = rs as u32;
                    m.logged = true;
                }
                Err(e) => {
                    self.failure.get_or_insert(e);
                }
            }
        }
        let mut left = log_record_bytes;
        let log_role = Role { metadata: false, indirect: false, small_blocks: 0, intent_log: true };
        while left > 0 {
            let bytes = left.min(LOG_BLOCK_MAX_BYTES).div_ceil(4096) * 4096;
            left = left.saturating_sub(LOG_BLOCK_MAX_BYTES);
            match self.allocate(log_role, bytes, 1) {
                Ok(dva) => {
                    self.queue_sync_writes(&dva, bytes, batch, &mut leaves);
                    self.txg.open_set.log_blocks.push((dva, bytes));
                    self.fio.log_bytes += bytes;
                }
                Err(e) => {
                    self.failure.get_or_insert(e);
                }
            }
        }
        leaves.sort_unstable();
        leaves.dedup();
        self.fio.commit_leaves = leaves;
        for l in 0..self.leaves.len() {
            self.issue(l);
        }
        self.finish_batch_if_empty(batch);
    }

    fn queue_sync_writes(&mut self, dva: &[Dva; 3], psize: u64, batch: u32, leaves: &mut Vec<usize>) {
        let mut cols = std::mem::take(&mut self.cols);
        for d in dva.iter().filter(|d| d.is_allocated()) {
            let top = d.vdev();
            let asize = self.tops[top].psize_to_asize(psize);
            self.tops[top].columns(d.offset(), asize, &mut cols);
            for c in &cols {
                let leaf = self.tops[top].leaves[c.child];
                if !self.leaves[leaf].failed {
                    self.queue_io(
                        leaf,
                        IoOp::Write,
                        IoClass::SyncWrite,
                        c.offset + LABEL_START_BYTES,
                        c.bytes,
                        Owner::Batch(batch),
                        0,
                    );
                    leaves.push(leaf);
                }
            }
        }
        self.cols = cols;
    }

    /// A commit's writes, then its flushes, are done.
    pub(crate) fn zil_phase_done(&mut self, kind: BatchKind, id: u64) {
        if kind == BatchKind::ZilWrites {
            let batch = self.batches.insert(Batch { left: 0, kind: BatchKind::ZilFlush, id });
            for l in std::mem::take(&mut self.fio.commit_leaves) {
                self.queue_io(l, IoOp::Flush, IoClass::SyncWrite, 0, 0, Owner::Batch(batch), 0);
            }
            self.finish_batch_if_empty(batch);
            return;
        }
        if self.fio.commit_wait_txg.is_some_and(|t| self.txg.synced < t) {
            self.fio.commit_flushed = true;
            return;
        }
        self.finish_commit();
    }

    fn finish_commit(&mut self) {
        for c in std::mem::take(&mut self.fio.committing) {
            self.complete_cmd(c);
        }
        self.fio.commit_running = false;
        self.fio.commit_wait_txg = None;
        if !self.fio.waiting_commit.is_empty() {
            self.start_commit();
        }
    }

    /// Txg `txg` is on stable storage: a commit that waited for it completes.
    pub(crate) fn fio_txg_synced(&mut self, txg: u64) {
        if self.fio.commit_flushed && self.fio.commit_wait_txg.is_some_and(|t| t <= txg) {
            self.fio.commit_flushed = false;
            self.finish_commit();
        }
    }

    /// Bytes written to intent-log blocks so far.
    pub fn log_bytes_written(&self) -> u64 {
        self.fio.log_bytes
    }
}

impl BlockDevice for Pool {
    fn geometry(&self) -> BlockGeometry {
        // What a dataset can hold: the normal class less the slop space (spa_slop_shift 5).
        let space = self.class_space(super::AllocClass::Normal);
        BlockGeometry {
            lba_bytes: 512,
            lbas: (space - space / 32) / 512,
            max_transfer_bytes: 16 << 20,
            hardware_queues: 1,
            placement_handles: 0,
            zones: None,
        }
    }

    fn profile(&self) -> &str {
        &self.config.name
    }

    fn now(&self) -> SimTime {
        self.now
    }

    fn submit(&mut self, now: SimTime, command: Command, tag: u64) -> Result<(), SubmitError> {
        let g = self.geometry();
        if command.opcode.is_zoned() {
            return Err(SubmitError::NotZoned { opcode: command.opcode });
        }
        if !matches!(command.opcode, Opcode::Flush) {
            if command.blocks == 0 {
                return Err(SubmitError::Empty { opcode: command.opcode });
            }
            if command.slba.checked_add(u64::from(command.blocks)).is_none_or(|e| e > g.lbas) {
                return Err(SubmitError::OutOfRange { slba: command.slba, blocks: command.blocks, lbas: g.lbas });
            }
            if u64::from(command.blocks) * 512 > g.max_transfer_bytes && command.opcode != Opcode::Trim {
                return Err(SubmitError::TooLarge {
                    bytes: u64::from(command.blocks) * 512,
                    mdts_bytes: g.max_transfer_bytes,
                });
            }
        }
        self.now = self.now.max(now);
        let c = self.fio.cmds.insert(Cmd { user: tag, command, submitted: now, pending: 0, phase: Phase::Blocks });
        self.fio.live += 1;
        match command.opcode {
            Opcode::Read | Opcode::Write => self.cmd_progress(c),
            Opcode::Flush => self.flush(c),
            Opcode::Trim => self.complete_cmd(c),
            Opcode::ZoneAppend | Opcode::ZoneSend { .. } => unreachable!("refused above"),
        }
        Ok(())
    }

    fn poll_at(&self) -> SimTime {
        if self.fio.ready.is_empty() { self.next_time() } else { self.now }
    }

    fn poll(&mut self) -> Option<Completion> {
        if self.fio.ready.is_empty() {
            self.step();
        }
        let done = self.fio.ready.pop_front()?;
        // A command is in flight until its completion is handed back.
        self.fio.live -= 1;
        Some(done)
    }

    fn in_flight(&self) -> u32 {
        self.fio.live
    }

    /// Each leaf's drive draws from streams of its own: the run's seed mixed with its index.
    fn reseed(&mut self, seed: u64) {
        for (i, l) in self.leaves.iter_mut().enumerate() {
            l.device.reseed(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        }
    }

    fn counters(&self, prefix: &str, out: &mut CounterRow) {
        let u = self.usage();
        for (name, c) in [("normal", &u.normal), ("special", &u.special), ("log", &u.log)] {
            out.level(prefix, &format!("{name}_alloc_bytes"), c.allocated());
        }
        out.total(prefix, "spilled_bytes", u.spilled_bytes());
        out.level(prefix, "dirty_bytes", self.txg.dirty);
        out.total(prefix, "txgs_synced", self.txg_log.len() as u64);
        out.level(prefix, "arc_bytes", self.arc.size());
        out.total(prefix, "arc_hits", self.arc.stats.hits);
        out.total(prefix, "arc_misses", self.arc.stats.misses);
        out.total(prefix, "zil_bytes", self.fio.log_bytes);
        for l in &self.leaves {
            let p = if prefix.is_empty() { format!("vdev.{}", l.name) } else { format!("{prefix}.vdev.{}", l.name) };
            out.total(&p, "read_bytes", l.read_bytes);
            out.total(&p, "write_bytes", l.write_bytes);
            l.device.counters(&p, out);
        }
    }
}
