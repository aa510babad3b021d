//! Operations on a dataset's file tree, as one thread of a program runs them: copying the
//! tree in, walking it (`find`, `ls -lR`), reading small files, streaming large ones,
//! reading at random inside them, and scrubbing the pool.
//!
//! The thread spends the ZPL's CPU time per call (`[zpl]`, divided by the host's core
//! speed) and waits for every block it needs that the ARC does not hold, in the order the
//! DMU needs them (a dnode's block after the meta-dnode's indirect blocks, a data block
//! after its file's indirect blocks). What it does per operation:
//!
//! * **create** (a single-threaded copy, `cp -r`): per directory and file, a create call
//!   (a new dnode, an entry in the parent directory's ZAP), then one write call per block
//!   through the write throttle, then close; at the end it waits for the last txg
//!   (`sync`). Operations: files.
//! * **find**: per directory, look it up (its dnode) and read it (its ZAP blocks, one
//!   call per entry). Operations: entries.
//! * **stat** (`ls -lR`, `stat` of everything): as find, and `stat` of every entry (its
//!   dnode). Reading a directory prefetches its entries' dnodes (`zfs_readdir`).
//!   Operations: entries.
//! * **read-small**: open, read and close every file up to a size; with `atime=on` the
//!   read dirties the dnode (with `relatime`, the first read after a change only).
//!   Operations: files.
//! * **read-seq**: stream the large files front to back with prefetch (`dmu_zfetch`: the
//!   distance doubles up to `zfetch_min_distance`, then grows by an eighth per hit up to
//!   `zfetch_max_distance`). Operations: MiB.
//! * **read-random**: reads of a given size at random places in the large files, one at a
//!   time. Operations: reads.
//! * **scrub**: every copy of every metadata block, then every data block sorted by its
//!   place on its vdev (sorted scrub), every mirror child and RAID-Z column, bypassing the
//!   ARC, at most a window of reads in flight. Operations: blocks.

use super::objects::{self, ZapShape, file_blocks};
use super::queue::IoClass;
use super::sync::TxWait;
use super::tree::NO_DIR;
use super::vdev::{Dva, LABEL_START_BYTES};
use super::{Event, IoOp, OpError, Owner, Pool, Table, Waiter, key};
use crate::engine::{SimDuration, SimRng, SimTime};

/// An operation on a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeOp {
    /// Copy the tree in.
    Create,
    /// `find`: read every directory.
    Find,
    /// `ls -lR`: read every directory and `stat` every entry.
    Stat,
    /// Read every file of at most `max_bytes`.
    ReadSmall {
        /// Largest file read.
        max_bytes: u64,
    },
    /// Stream files of at least `min_bytes`, `max_total_bytes` in all.
    ReadSeq {
        /// Smallest file read.
        min_bytes: u64,
        /// Stop after this many bytes.
        max_total_bytes: u64,
    },
    /// `count` reads of `io_bytes` at random places in files of at least `min_bytes`.
    ReadRandom {
        /// Reads.
        count: u64,
        /// Bytes per read.
        io_bytes: u64,
        /// Smallest file read.
        min_bytes: u64,
        /// Seed of the places.
        seed: u64,
    },
    /// Read every block of the pool.
    Scrub,
}

impl TreeOp {
    /// The name tables and the CLI use.
    pub fn name(&self) -> &'static str {
        match self {
            TreeOp::Create => "create",
            TreeOp::Find => "find",
            TreeOp::Stat => "stat",
            TreeOp::ReadSmall { .. } => "read-small",
            TreeOp::ReadSeq { .. } => "read-seq",
            TreeOp::ReadRandom { .. } => "read-random",
            TreeOp::Scrub => "scrub",
        }
    }
    fn unit(&self) -> &'static str {
        match self {
            TreeOp::Create | TreeOp::ReadSmall { .. } => "files",
            TreeOp::Find | TreeOp::Stat => "entries",
            TreeOp::ReadSeq { .. } => "MiB",
            TreeOp::ReadRandom { .. } => "reads",
            TreeOp::Scrub => "blocks",
        }
    }
}

/// What an operation did.
#[derive(Clone, Debug, PartialEq)]
pub struct OpResult {
    /// The operation's name.
    pub op: String,
    /// Simulated time it took, seconds.
    pub seconds: f64,
    /// Operations done (see [`OpResult::op_unit`]).
    pub ops: u64,
    /// What an operation is: files, entries, MiB, reads or blocks.
    pub op_unit: String,
    /// Bytes the program read.
    pub bytes_read: u64,
    /// Bytes the program wrote.
    pub bytes_written: u64,
    /// Bytes the leaves read and wrote during the operation, per class (normal, special,
    /// dedup, log).
    pub leaf_read_bytes: [u64; 4],
    /// Read commands the leaves of each class received during the operation (aggregated
    /// I/Os count once).
    pub leaf_reads: [u64; 4],
    /// See above.
    pub leaf_write_bytes: [u64; 4],
    /// ARC hits and misses during the operation.
    pub arc_hits: u64,
    /// See above.
    pub arc_misses: u64,
}

impl OpResult {
    /// Operations per second of simulated time.
    pub fn ops_per_s(&self) -> f64 {
        if self.seconds > 0.0 { self.ops as f64 / self.seconds } else { 0.0 }
    }
}

#[derive(Clone, Debug)]
enum State {
    Create { dir: u32, file: u32, block: u64, dir_made: bool, file_made: bool },
    Walk { dir: u32, looked_up: bool, listed: bool, entry: u32 },
    ReadSmall { file: u32, opened: bool },
    ReadSeq { file: u32, block: u64, opened: bool, total: u64, distance: u64 },
    ReadRandom { left: u64, pick: Option<(u32, u64)> },
    Scrub { meta: usize, data: usize },
    Sync,
}

/// The thread running an operation.
#[derive(Clone, Debug)]
pub(crate) struct Worker {
    ds: usize,
    op: TreeOp,
    state: State,
    /// Block reads it waits for.
    pub(crate) pending: u32,
    /// Waiting for dirty data to fall below the limit.
    pub(crate) blocked: bool,
    /// Waiting for this txg to sync.
    pub(crate) sync_wait: Option<u64>,
    /// The transaction of the current step has passed the throttle.
    assigned: bool,
    clock: SimTime,
    started: SimTime,
    done: bool,
    ops: u64,
    bytes_read: u64,
    bytes_written: u64,
    rng: SimRng,
    /// Large files and the cumulative bytes before each (read-random).
    large: Vec<(u64, u32)>,
    /// Scrub: every block's copies to read, metadata first, data sorted by place.
    scrub_meta: Vec<([Dva; 3], u64)>,
    scrub_data: Vec<(Dva, u64)>,
    scrub_inflight: u32,
}

/// What a step did.
enum Step {
    /// Did its work: CPU time passes.
    Busy(SimDuration),
    /// Waits (for blocks, the throttle, a txg).
    Wait,
    /// Sleeps until then (the write throttle's delay).
    Sleep(SimTime),
    Done,
}

/// Scrub reads in flight per leaf (`zfs_scan_vdev_limit` keeps about this much queued).
const SCRUB_WINDOW_PER_LEAF: u32 = 32;

impl Pool {
    /// Gives dataset `dataset` the tree `tree` (nothing is created until
    /// [`TreeOp::Create`] runs).
    pub fn add_tree(&mut self, dataset: &str, tree: super::Tree) -> Result<(), OpError> {
        let ds = self.dataset_index(dataset)?;
        if self.datasets[ds].tree.is_some() {
            return Err(OpError::Tree { dataset: dataset.into(), problem: "already has a file tree".into() });
        }
        let f = &self.config.format;
        let d = &self.datasets[ds];
        let fanout = f.indirect_block_bytes / f.block_pointer_bytes;
        let copies = objects::copies(&d.cfg, objects::ot::PLAIN_FILE, 0);
        let mut data_base = Vec::with_capacity(tree.files());
        let mut ind_base = Vec::with_capacity(tree.files());
        let (mut blocks, mut meta) = (0u64, d.meta.len() as u64);
        let mut levels = Vec::new();
        for &size in &tree.file_bytes {
            data_base.push(blocks);
            ind_base.push(meta as u32);
            let (n, _) = file_blocks(size, d.cfg.recordsize_bytes);
            blocks += n;
            objects::indirect_levels(n, fanout, &mut levels);
            meta += levels.iter().sum::<u64>();
        }
        let mut zap_base = Vec::with_capacity(tree.dirs());
        let dir_long_names: Vec<bool> = (0..tree.dirs())
            .map(|dir| {
                let files =
                    tree.dir_first_file[dir] as usize..(tree.dir_first_file[dir] + tree.dir_files[dir]) as usize;
                tree.file_name_len[files].iter().any(|&n| u64::from(n) > f.microzap_name_max_bytes)
                    || tree
                        .children(dir as u32)
                        .any(|c| u64::from(tree.dir_name_len[c as usize]) > f.microzap_name_max_bytes)
            })
            .collect();
        for (dir, &long) in dir_long_names.iter().enumerate() {
            zap_base.push(meta as u32);
            let entries = u64::from(tree.dir_files[dir]) + tree.children(dir as u32).count() as u64;
            meta += ZapShape::of(entries, long, f).blocks();
        }
        if meta >= u64::from(u32::MAX) || blocks.saturating_mul(copies as u64) > (isize::MAX as u64) / 8 {
            return Err(OpError::Tree {
                dataset: dataset.into(),
                problem: "more blocks than the model indexes".into(),
            });
        }
        let d = &mut self.datasets[ds];
        let first_meta = d.meta.len() as u32;
        let plain = super::objects::MetaBlock::new(objects::ot::PLAIN_FILE, 1);
        let dir_block = super::objects::MetaBlock::new(objects::ot::DIRECTORY, 0);
        let zap_from = zap_base.first().copied().unwrap_or(meta as u32);
        d.meta.resize(zap_from as usize, plain);
        d.meta.resize(meta as usize, dir_block);
        debug_assert!(first_meta <= zap_from);
        let files = tree.files();
        let dirs = tree.dirs();
        d.tree = Some(Box::new(super::objects::TreeState {
            file_object: vec![0; files],
            dir_object: vec![0; dirs],
            data_base,
            ind_base,
            zap_base,
            dir_entries: vec![0; dirs],
            dir_long_names,
            dir_dirty: vec![0; dirs],
            data: vec![Dva::HOLE; (blocks as usize) * copies],
            copies,
            created_dirs: 0,
            created_files: 0,
            written_blocks: 0,
            atime_fresh: vec![true; files],
            tree,
        }));
        Ok(())
    }

    /// Runs `op` on dataset `dataset`'s tree to its end; `observe(done, total)` is called
    /// every few thousand events and may return false to stop (an `Err` then).
    // The checks of an operation's parameters, then its setup and loop.
    #[allow(clippy::too_many_lines)]
    pub fn run_op(
        &mut self,
        dataset: &str,
        op: TreeOp,
        observe: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<OpResult, OpError> {
        self.check_usable()?;
        let ds = self.dataset_index(dataset)?;
        let Some(t) = self.datasets[ds].tree.as_ref() else {
            return Err(OpError::Tree { dataset: dataset.into(), problem: "has no file tree: add one first".into() });
        };
        let created = t.created_files as usize == t.tree.files() && t.created_dirs as usize == t.tree.dirs();
        match (op, created) {
            (TreeOp::Create, true) => {
                return Err(OpError::Tree { dataset: dataset.into(), problem: "its tree is already created".into() });
            }
            (TreeOp::Create, false) => {}
            (_, false) => {
                return Err(OpError::Tree { dataset: dataset.into(), problem: "create its tree first".into() });
            }
            _ => {}
        }
        if let TreeOp::ReadRandom { io_bytes, .. } = op
            && !(512..=16 << 20).contains(&io_bytes)
        {
            return Err(OpError::Parameter {
                field: "--random-bytes".into(),
                value: io_bytes.to_string(),
                allowed: "512 to 16M".into(),
            });
        }
        // Let anything in flight finish first, so the operation's time is its own.
        self.sync_all()?;
        let before_leaves = self.class_leaf_bytes();
        let arc_before = self.arc.stats;
        let seed = match op {
            TreeOp::ReadRandom { seed, .. } => seed,
            _ => 0,
        };
        let state = match op {
            TreeOp::Create => State::Create { dir: 0, file: 0, block: 0, dir_made: false, file_made: false },
            TreeOp::Find | TreeOp::Stat => State::Walk { dir: 0, looked_up: false, listed: false, entry: 0 },
            TreeOp::ReadSmall { .. } => State::ReadSmall { file: 0, opened: false },
            TreeOp::ReadSeq { .. } => State::ReadSeq { file: 0, block: 0, opened: false, total: 0, distance: 0 },
            TreeOp::ReadRandom { count, .. } => State::ReadRandom { left: count, pick: None },
            TreeOp::Scrub => State::Scrub { meta: 0, data: 0 },
        };
        let mut w = Worker {
            ds,
            op,
            state,
            pending: 0,
            blocked: false,
            sync_wait: None,
            assigned: false,
            clock: self.now,
            started: self.now,
            done: false,
            ops: 0,
            bytes_read: 0,
            bytes_written: 0,
            rng: SimRng::stream(seed, 0x7261_6e64),
            large: Vec::new(),
            scrub_meta: Vec::new(),
            scrub_data: Vec::new(),
            scrub_inflight: 0,
        };
        match op {
            TreeOp::ReadRandom { min_bytes, .. } => {
                let t = &self.datasets[ds].tree.as_ref().expect("checked").tree;
                let mut total = 0;
                for (f, &size) in t.file_bytes.iter().enumerate() {
                    if size >= min_bytes.max(1) {
                        w.large.push((total, f as u32));
                        total += size;
                    }
                }
                w.large.push((total, u32::MAX));
            }
            TreeOp::Scrub => self.plan_scrub(ds, &mut w),
            _ => {}
        }
        self.worker = Some(Box::new(w));
        self.worker_generation += 1;
        let g = self.worker_generation;
        self.events.push(self.now, Event::Worker { generation: g });
        let total = self.op_total(ds, op);
        let mut steps = 0u64;
        loop {
            if let Some(e) = self.failure.take() {
                self.worker = None;
                return Err(e);
            }
            if self.worker.as_ref().is_some_and(|w| w.done) {
                break;
            }
            if self.next_time() == SimTime::NEVER {
                self.worker = None;
                return Err(OpError::Stalled { time_ns: self.now.as_ns() });
            }
            self.step();
            steps += 1;
            if steps % 8192 == 0 {
                let done = self.worker.as_ref().map_or(0, |w| w.ops);
                if !observe(done, total) {
                    self.worker = None;
                    return Err(OpError::Parameter {
                        field: "operation".into(),
                        value: op.name().into(),
                        allowed: "interrupted".into(),
                    });
                }
            }
        }
        let w = self.worker.take().expect("the loop ends with the worker done");
        let after = self.class_leaf_bytes();
        let mut result = OpResult {
            op: op.name().into(),
            seconds: w.clock.since(w.started).as_secs_f64(),
            ops: w.ops,
            op_unit: op.unit().into(),
            bytes_read: w.bytes_read,
            bytes_written: w.bytes_written,
            leaf_read_bytes: [0; 4],
            leaf_reads: [0; 4],
            leaf_write_bytes: [0; 4],
            arc_hits: self.arc.stats.hits - arc_before.hits,
            arc_misses: self.arc.stats.misses - arc_before.misses,
        };
        for c in 0..4 {
            result.leaf_read_bytes[c] = after[c].0 - before_leaves[c].0;
            result.leaf_reads[c] = after[c].2 - before_leaves[c].2;
            result.leaf_write_bytes[c] = after[c].1 - before_leaves[c].1;
        }
        if let TreeOp::ReadSeq { .. } = op {
            result.ops = w.bytes_read >> 20;
        }
        Ok(result)
    }

    /// Bytes read, bytes written and read commands of the leaves of each class so far.
    fn class_leaf_bytes(&self) -> [(u64, u64, u64); 4] {
        let mut out = [(0, 0, 0); 4];
        for l in &self.leaves {
            let c = self.tops[l.top].class.index();
            out[c].0 += l.read_bytes;
            out[c].1 += l.write_bytes;
            out[c].2 += l.reads;
        }
        out
    }

    fn op_total(&self, ds: usize, op: TreeOp) -> u64 {
        let t = &self.datasets[ds].tree.as_ref().expect("checked").tree;
        match op {
            TreeOp::Create | TreeOp::ReadSmall { .. } => t.files() as u64,
            TreeOp::Find | TreeOp::Stat => (t.files() + t.dirs()) as u64,
            TreeOp::ReadSeq { max_total_bytes, .. } => max_total_bytes >> 20,
            TreeOp::ReadRandom { count, .. } => count,
            TreeOp::Scrub => self.worker.as_ref().map_or(0, |w| (w.scrub_meta.len() + w.scrub_data.len()) as u64),
        }
    }

    /// Runs the worker from its clock for as long as no other event comes first.
    pub(crate) fn run_worker(&mut self) {
        loop {
            let Some(w) = self.worker.as_ref() else { return };
            if w.done || w.pending > 0 || w.blocked || w.sync_wait.is_some() {
                return;
            }
            let clock = w.clock.max(self.now);
            if clock > self.next_time() {
                // Something else happens first: come back then.
                self.worker_generation += 1;
                let g = self.worker_generation;
                self.events.push(clock, Event::Worker { generation: g });
                return;
            }
            self.now = clock;
            match self.worker_step() {
                Step::Busy(d) => {
                    let w = self.worker.as_mut().expect("running");
                    w.assigned = false;
                    w.clock = self.now + d;
                }
                Step::Sleep(until) => self.worker.as_mut().expect("running").clock = until,
                Step::Wait => return,
                Step::Done => {
                    let w = self.worker.as_mut().expect("running");
                    w.clock = self.now;
                    w.done = true;
                    return;
                }
            }
        }
    }

    /// A block the worker waited for arrived.
    pub(crate) fn worker_woken(&mut self) {
        let Some(w) = self.worker.as_mut() else { return };
        w.pending -= 1;
        if w.pending == 0 {
            w.clock = w.clock.max(self.now);
            self.schedule_worker();
        }
    }

    fn schedule_worker(&mut self) {
        let Some(w) = self.worker.as_ref() else { return };
        if w.pending > 0 || w.blocked || w.sync_wait.is_some() || w.done {
            return;
        }
        self.worker_generation += 1;
        let g = self.worker_generation;
        let at = w.clock.max(self.now);
        self.events.push(at, Event::Worker { generation: g });
    }

    /// Dirty data fell below the limit: a blocked writer goes on.
    pub(crate) fn space_available(&mut self) {
        if let Some(w) = self.worker.as_mut()
            && w.blocked
        {
            w.blocked = false;
            w.clock = w.clock.max(self.now);
            self.schedule_worker();
        }
        self.fio_space_available();
    }

    /// Txg `txg` is synced: wake whoever waited for it.
    pub(crate) fn txg_synced(&mut self, txg: u64) {
        self.fio_txg_synced(txg);
        if let Some(w) = self.worker.as_mut()
            && w.sync_wait.is_some_and(|t| t <= txg)
        {
            w.sync_wait = None;
            w.clock = w.clock.max(self.now);
            self.schedule_worker();
        }
    }

    /// A scrub read completed.
    pub(crate) fn scrub_io_done(&mut self) {
        let window = SCRUB_WINDOW_PER_LEAF * self.leaves.len() as u32;
        let Some(w) = self.worker.as_mut() else { return };
        w.scrub_inflight -= 1;
        if w.scrub_inflight == window / 2 || w.scrub_inflight == 0 {
            w.clock = w.clock.max(self.now);
            self.schedule_worker();
        }
    }

    // ---- blocks the worker needs ----

    /// Ensures metadata block `m` of dataset `ds` is in the ARC.
    fn need_meta(&mut self, ds: usize, m: u32, class: IoClass, wait: bool) -> bool {
        let b = self.datasets[ds].meta[m as usize];
        let who = wait.then_some(Waiter::Worker);
        self.read_block(key(ds, Table::Meta, u64::from(m)), &b.dva, u64::from(b.psize), class, who)
    }

    /// Ensures the dnode of `object` is in the ARC, with the meta-dnode's indirect blocks
    /// above its block.
    fn need_dnode(&mut self, ds: usize, object: u32, class: IoClass, wait: bool) -> bool {
        let f = &self.config.format;
        let fanout = f.indirect_block_bytes / f.block_pointer_bytes;
        let d = &self.datasets[ds];
        let b = u64::from(object / d.dnodes_per_block(f));
        for level in (1..=d.mdn_levels.len()).rev() {
            let idx = (b / fanout.pow(level as u32)) as usize;
            let Some(&m) = self.datasets[ds].mdn_levels[level - 1].get(idx) else { continue };
            if m != u32::MAX && !self.need_meta(ds, m, class, wait) {
                return false;
            }
        }
        let m = self.datasets[ds].dnode_meta[b as usize];
        self.need_meta(ds, m, class, wait)
    }

    /// Ensures block `blk` of file `f` is in the ARC, with the file's indirect blocks.
    fn need_file_block(&mut self, ds: usize, f: usize, blk: u64, class: IoClass, wait: bool) -> bool {
        let fmt = &self.config.format;
        let fanout = fmt.indirect_block_bytes / fmt.block_pointer_bytes;
        let (n, base, data_index, copies, size) = {
            let d = &self.datasets[ds];
            let t = d.tree.as_ref().expect("a tree");
            let (n, _) = file_blocks(t.tree.file_bytes[f], d.cfg.recordsize_bytes);
            (n, t.ind_base[f], t.data_base[f] + blk, t.copies, t.tree.file_bytes[f])
        };
        if n > 1 {
            let mut levels = Vec::new();
            objects::indirect_levels(n, fanout, &mut levels);
            let offsets: Vec<u64> = levels
                .iter()
                .scan(0, |acc, &c| {
                    let o = *acc;
                    *acc += c;
                    Some(o)
                })
                .collect();
            for l in (0..levels.len()).rev() {
                let idx = blk / fanout.pow(l as u32 + 1);
                let m = base + (offsets[l] + idx) as u32;
                if !self.need_meta(ds, m, class, wait) {
                    return false;
                }
            }
        }
        let t = self.datasets[ds].tree.as_ref().expect("a tree");
        let mut dva = [Dva::HOLE; 3];
        let start = data_index as usize * copies;
        dva[..copies].copy_from_slice(&t.data[start..start + copies]);
        let (_, lsize) = file_blocks(size, self.datasets[ds].cfg.recordsize_bytes);
        let psize = if dva[0].is_allocated() { self.data_psize(ds, f, blk, lsize) } else { 0 };
        let who = wait.then_some(Waiter::Worker);
        self.read_block(key(ds, Table::TreeData, data_index), &dva, psize, class, who)
    }

    /// The physical size of a tree data block (it follows from its contents).
    pub(crate) fn data_psize(&self, ds: usize, f: usize, blk: u64, lsize: u64) -> u64 {
        let d = &self.datasets[ds];
        let t = d.tree.as_ref().expect("a tree");
        let content = (t.tree.file_bytes[f] - blk * lsize).min(lsize);
        let class = &t.tree.classes[t.tree.file_class[f] as usize];
        let (compress, compressed) = objects::compressed_data(&d.cfg, class, content);
        match self.sizing.psize(lsize, compressed, compress, true) {
            objects::Psize::Bytes(p) => p,
            _ => 0,
        }
    }

    /// Passes the write throttle once per transaction.
    fn pass_throttle(&mut self) -> Option<Step> {
        if self.worker.as_ref().is_some_and(|w| w.assigned) {
            return None;
        }
        match self.tx_assign() {
            TxWait::Go => {
                self.worker.as_mut().expect("running").assigned = true;
                None
            }
            TxWait::Until(t) => {
                self.worker.as_mut().expect("running").assigned = true;
                Some(Step::Sleep(t))
            }
            TxWait::Blocked => {
                self.worker.as_mut().expect("running").blocked = true;
                Some(Step::Wait)
            }
        }
    }

    fn copy_time(&self, bytes: u64) -> SimDuration {
        SimDuration(((u128::from(self.zpl.copy_per_mib.as_ns()) * u128::from(bytes)) >> 20) as u64)
    }

    // ---- the operations ----

    fn worker_step(&mut self) -> Step {
        let w = self.worker.as_ref().expect("running");
        let ds = w.ds;
        let state = w.state.clone();
        match state {
            State::Create { dir, file, block, dir_made, file_made } => {
                self.step_create(ds, dir, file, block, dir_made, file_made)
            }
            State::Walk { dir, looked_up, listed, entry } => self.step_walk(ds, dir, looked_up, listed, entry),
            State::ReadSmall { file, opened } => self.step_read_small(ds, file, opened),
            State::ReadSeq { file, block, opened, total, distance } => {
                self.step_read_seq(ds, file, block, opened, total, distance)
            }
            State::ReadRandom { left, pick } => self.step_read_random(ds, left, pick),
            State::Scrub { meta, data } => self.step_scrub(meta, data),
            State::Sync => {
                if self.txg.has_dirty() || self.txg.syncing.is_some() {
                    let target = if self.txg.has_dirty() { self.txg.open } else { self.txg.open - 1 };
                    if self.txg.syncing.is_none() {
                        self.start_sync();
                    } else {
                        self.txg.kick = true;
                    }
                    if self.txg.synced < target {
                        self.worker.as_mut().expect("running").sync_wait = Some(target);
                        return Step::Wait;
                    }
                }
                Step::Done
            }
        }
    }

    fn set_state(&mut self, s: State) {
        self.worker.as_mut().expect("running").state = s;
    }

    #[allow(clippy::too_many_lines)]
    fn step_create(&mut self, ds: usize, dir: u32, file: u32, block: u64, dir_made: bool, file_made: bool) -> Step {
        let per = self.datasets[ds].dnodes_per_block(&self.config.format);
        let n = self.datasets.len();
        let (dirs, first, count, parent) = {
            let t = &self.datasets[ds].tree.as_ref().expect("a tree").tree;
            if dir as usize == t.dirs() {
                self.set_state(State::Sync);
                return Step::Busy(SimDuration::ZERO);
            }
            (t.dirs(), t.dir_first_file[dir as usize], t.dir_files[dir as usize], t.dir_parent[dir as usize])
        };
        let _ = dirs;
        let metadata_bytes = self.datasets[ds].cfg.dnode_bytes + self.config.format.microzap_entry_bytes;
        if !dir_made {
            if let Some(s) = self.pass_throttle() {
                return s;
            }
            let obj = self.new_object(ds, true, per);
            let t = self.datasets[ds].tree.as_mut().expect("a tree");
            t.dir_object[dir as usize] = obj;
            t.created_dirs += 1;
            if parent != NO_DIR {
                t.dir_entries[parent as usize] += 1;
                self.dirty_dir(ds, parent);
            }
            self.dirty_dir(ds, dir);
            self.txg.mark_dataset(ds, n);
            self.dirty_bytes(metadata_bytes, true);
            self.set_state(State::Create { dir, file: first, block: 0, dir_made: true, file_made: false });
            return Step::Busy(self.zpl.create);
        }
        if file == first + count {
            self.set_state(State::Create { dir: dir + 1, file: 0, block: 0, dir_made: false, file_made: false });
            return Step::Busy(SimDuration::ZERO);
        }
        let (size, rs) = {
            let t = self.datasets[ds].tree.as_ref().expect("a tree");
            (t.tree.file_bytes[file as usize], self.datasets[ds].cfg.recordsize_bytes)
        };
        let (blocks, lsize) = file_blocks(size, rs);
        if !file_made {
            if let Some(s) = self.pass_throttle() {
                return s;
            }
            let obj = self.new_object(ds, size > 0, per);
            let t = self.datasets[ds].tree.as_mut().expect("a tree");
            t.file_object[file as usize] = obj;
            t.dir_entries[dir as usize] += 1;
            self.dirty_dir(ds, dir);
            self.dirty_bytes(metadata_bytes, true);
            self.set_state(State::Create { dir, file, block: 0, dir_made: true, file_made: true });
            return Step::Busy(self.zpl.create);
        }
        if block < blocks {
            if let Some(s) = self.pass_throttle() {
                return s;
            }
            let d = self.txg.mark_dataset(ds, n);
            let from = d.tree.map_or((file, block), |(from, _)| from);
            d.tree = Some((from, (file, block + 1)));
            self.dirty_bytes(lsize, false);
            let content = (size - block * lsize).min(lsize);
            let w = self.worker.as_mut().expect("running");
            w.bytes_written += content;
            self.set_state(State::Create { dir, file, block: block + 1, dir_made: true, file_made: true });
            return Step::Busy(self.zpl.io_call + self.copy_time(content));
        }
        let t = self.datasets[ds].tree.as_mut().expect("a tree");
        t.created_files += 1;
        t.written_blocks += blocks;
        self.worker.as_mut().expect("running").ops += 1;
        self.set_state(State::Create { dir, file: file + 1, block: 0, dir_made: true, file_made: false });
        Step::Busy(self.zpl.open_close)
    }

    /// Allocates the next object number (its dnode joins the open txg).
    fn new_object(&mut self, ds: usize, has_bp: bool, per: u32) -> u32 {
        let n = self.datasets.len();
        let d = &mut self.datasets[ds];
        let obj = d.next_object;
        d.next_object += 1;
        d.use_dnode(obj, has_bp, per);
        let dirty = self.txg.mark_dataset(ds, n);
        let from = dirty.objects.map_or(obj, |(f, _)| f);
        dirty.objects = Some((from, obj + 1));
        obj
    }

    fn step_walk(&mut self, ds: usize, dir: u32, looked_up: bool, listed: bool, entry: u32) -> Step {
        let stat = self.worker.as_ref().expect("running").op == TreeOp::Stat;
        let (dirs, object, first, count, entries, base, long) = {
            let t = self.datasets[ds].tree.as_ref().expect("a tree");
            if dir as usize == t.tree.dirs() {
                return Step::Done;
            }
            let d = dir as usize;
            (
                t.tree.dirs(),
                t.dir_object[d],
                t.tree.dir_first_file[d],
                t.tree.dir_files[d],
                t.dir_entries[d],
                t.zap_base[d],
                t.dir_long_names[d],
            )
        };
        let _ = dirs;
        if !looked_up {
            if !self.need_dnode(ds, object, IoClass::SyncRead, true) {
                return Step::Wait;
            }
            self.set_state(State::Walk { dir, looked_up: true, listed: false, entry: 0 });
            return Step::Busy(self.zpl.lookup);
        }
        if !listed {
            let shape = ZapShape::of(u64::from(entries), long, &self.config.format);
            let mut ready = true;
            for i in 0..shape.blocks() as u32 {
                ready &= self.need_meta(ds, base + i, IoClass::SyncRead, true);
            }
            if !ready {
                return Step::Wait;
            }
            if stat {
                // zfs_readdir prefetches the dnodes of the entries it returns.
                let subdirs: Vec<u32> = {
                    let t = self.datasets[ds].tree.as_ref().expect("a tree");
                    t.tree.children(dir).map(|c| t.dir_object[c as usize]).collect()
                };
                let per = self.datasets[ds].dnodes_per_block(&self.config.format);
                let t = self.datasets[ds].tree.as_ref().expect("a tree");
                let objects: Vec<u32> = if count > 0 {
                    let lo = t.file_object[first as usize] / per;
                    let hi = t.file_object[(first + count - 1) as usize] / per;
                    (lo..=hi).map(|b| b * per).collect()
                } else {
                    Vec::new()
                };
                for o in objects.into_iter().chain(subdirs) {
                    self.need_dnode(ds, o, IoClass::SyncRead, false);
                }
            }
            let w = self.worker.as_mut().expect("running");
            if !stat {
                w.ops += u64::from(entries);
            }
            self.set_state(State::Walk { dir, looked_up: true, listed: true, entry: 0 });
            return Step::Busy(self.zpl.readdir_entry.times(u64::from(entries)));
        }
        if stat && entry < count {
            let object = self.datasets[ds].tree.as_ref().expect("a tree").file_object[(first + entry) as usize];
            if !self.need_dnode(ds, object, IoClass::SyncRead, true) {
                return Step::Wait;
            }
            self.worker.as_mut().expect("running").ops += 1;
            self.set_state(State::Walk { dir, looked_up: true, listed: true, entry: entry + 1 });
            return Step::Busy(self.zpl.stat);
        }
        if stat {
            // The subdirectories are stat'ed by their own lookup.
            let subdirs = self.datasets[ds].tree.as_ref().expect("a tree").tree.children(dir).count() as u64;
            self.worker.as_mut().expect("running").ops += subdirs;
        }
        self.set_state(State::Walk { dir: dir + 1, looked_up: false, listed: false, entry: 0 });
        Step::Busy(SimDuration::ZERO)
    }

    fn step_read_small(&mut self, ds: usize, file: u32, opened: bool) -> Step {
        let TreeOp::ReadSmall { max_bytes } = self.worker.as_ref().expect("running").op else { unreachable!() };
        let (size, object, rs) = {
            let d = &self.datasets[ds];
            let t = d.tree.as_ref().expect("a tree");
            if file as usize == t.tree.files() {
                return Step::Done;
            }
            (t.tree.file_bytes[file as usize], t.file_object[file as usize], d.cfg.recordsize_bytes)
        };
        if size > max_bytes {
            self.set_state(State::ReadSmall { file: file + 1, opened: false });
            return Step::Busy(SimDuration::ZERO);
        }
        if !opened {
            if !self.need_dnode(ds, object, IoClass::SyncRead, true) {
                return Step::Wait;
            }
            self.set_state(State::ReadSmall { file, opened: true });
            return Step::Busy(self.zpl.lookup + self.zpl.open_close);
        }
        let (blocks, _) = file_blocks(size, rs);
        let mut ready = true;
        for b in 0..blocks {
            ready &= self.need_file_block(ds, file as usize, b, IoClass::SyncRead, true);
        }
        if !ready {
            return Step::Wait;
        }
        self.touch_atime(ds, file as usize, object);
        let w = self.worker.as_mut().expect("running");
        w.ops += 1;
        w.bytes_read += size;
        self.set_state(State::ReadSmall { file: file + 1, opened: false });
        Step::Busy(self.zpl.io_call.times(blocks.max(1)) + self.copy_time(size))
    }

    /// `atime=on`: a read updates the access time, dirtying the dnode (with `relatime`, only
    /// the first read after a change).
    fn touch_atime(&mut self, ds: usize, f: usize, object: u32) {
        let cfg = &self.datasets[ds].cfg;
        if !cfg.atime {
            return;
        }
        let relatime = cfg.relatime;
        let t = self.datasets[ds].tree.as_mut().expect("a tree");
        if relatime && !t.atime_fresh[f] {
            return;
        }
        t.atime_fresh[f] = false;
        let per = self.datasets[ds].dnodes_per_block(&self.config.format);
        self.dirty_dnode_block(ds, object / per);
        let bytes = self.datasets[ds].cfg.dnode_bytes;
        self.dirty_bytes(bytes, true);
    }

    fn step_read_seq(&mut self, ds: usize, file: u32, block: u64, opened: bool, total: u64, distance: u64) -> Step {
        let TreeOp::ReadSeq { min_bytes, max_total_bytes } = self.worker.as_ref().expect("running").op else {
            unreachable!()
        };
        let (size, object, rs, files) = {
            let d = &self.datasets[ds];
            let t = d.tree.as_ref().expect("a tree");
            if file as usize == t.tree.files() || total >= max_total_bytes {
                return Step::Done;
            }
            (t.tree.file_bytes[file as usize], t.file_object[file as usize], d.cfg.recordsize_bytes, t.tree.files())
        };
        let _ = files;
        if size < min_bytes.max(1) {
            self.set_state(State::ReadSeq { file: file + 1, block: 0, opened: false, total, distance: 0 });
            return Step::Busy(SimDuration::ZERO);
        }
        if !opened {
            if !self.need_dnode(ds, object, IoClass::SyncRead, true) {
                return Step::Wait;
            }
            self.set_state(State::ReadSeq { file, block: 0, opened: true, total, distance: 0 });
            return Step::Busy(self.zpl.lookup + self.zpl.open_close);
        }
        let (blocks, lsize) = file_blocks(size, rs);
        if block == blocks {
            self.touch_atime(ds, file as usize, object);
            self.set_state(State::ReadSeq { file: file + 1, block: 0, opened: false, total, distance: 0 });
            return Step::Busy(SimDuration::ZERO);
        }
        // dmu_zfetch: the prefetch distance grows with every sequential hit.
        let t = &self.config.tunables;
        let distance = if distance == 0 {
            lsize
        } else if distance < t.zfetch_min_distance {
            distance * 2
        } else {
            (distance + distance / 8).min(t.zfetch_max_distance)
        };
        if t.zfs_prefetch_disable == 0 {
            let ahead = (distance / lsize).max(1);
            for b in block + 1..(block + 1 + ahead).min(blocks) {
                self.need_file_block(ds, file as usize, b, IoClass::AsyncRead, false);
            }
        }
        if !self.need_file_block(ds, file as usize, block, IoClass::SyncRead, true) {
            return Step::Wait;
        }
        let content = (size - block * lsize).min(lsize);
        self.worker.as_mut().expect("running").bytes_read += content;
        self.set_state(State::ReadSeq { file, block: block + 1, opened: true, total: total + content, distance });
        Step::Busy(self.zpl.io_call + self.copy_time(content))
    }

    fn step_read_random(&mut self, ds: usize, left: u64, pick: Option<(u32, u64)>) -> Step {
        if left == 0 {
            return Step::Done;
        }
        let TreeOp::ReadRandom { io_bytes, .. } = self.worker.as_ref().expect("running").op else { unreachable!() };
        let (f, offset) = if let Some(p) = pick {
            p
        } else {
            let w = self.worker.as_mut().expect("running");
            let total = w.large.last().map_or(0, |l| l.0);
            if total == 0 {
                return Step::Done;
            }
            let at = w.rng.below(total);
            let i = w.large.partition_point(|&(start, _)| start <= at) - 1;
            let (start, f) = w.large[i];
            let within = (at - start) / io_bytes * io_bytes;
            self.set_state(State::ReadRandom { left, pick: Some((f, within)) });
            (f, within)
        };
        let rs = self.datasets[ds].cfg.recordsize_bytes;
        let (object, size) = {
            let t = self.datasets[ds].tree.as_ref().expect("a tree");
            (t.file_object[f as usize], t.tree.file_bytes[f as usize])
        };
        if !self.need_dnode(ds, object, IoClass::SyncRead, true) {
            return Step::Wait;
        }
        let (_, lsize) = file_blocks(size, rs);
        let end = (offset + io_bytes).min(size);
        let mut ready = true;
        for b in offset / lsize..=(end.max(offset + 1) - 1) / lsize {
            ready &= self.need_file_block(ds, f as usize, b, IoClass::SyncRead, true);
        }
        if !ready {
            return Step::Wait;
        }
        let w = self.worker.as_mut().expect("running");
        w.ops += 1;
        w.bytes_read += end - offset;
        self.set_state(State::ReadRandom { left: left - 1, pick: None });
        Step::Busy(self.zpl.io_call + self.copy_time(end - offset))
    }

    /// Lists what a scrub reads: metadata in table order, then data blocks by place.
    fn plan_scrub(&self, ds: usize, w: &mut Worker) {
        for d in &self.datasets {
            for b in &d.meta {
                if b.dva[0].is_allocated() {
                    w.scrub_meta.push((b.dva, u64::from(b.psize)));
                }
            }
        }
        for b in &self.mos {
            if b.dva[0].is_allocated() {
                w.scrub_meta.push((b.dva, u64::from(b.psize)));
            }
        }
        let _ = ds;
        let fanout = self.config.format.indirect_block_bytes / self.config.format.block_pointer_bytes;
        for (i, d) in self.datasets.iter().enumerate() {
            if let Some(t) = &d.tree {
                let rs = d.cfg.recordsize_bytes;
                for f in 0..t.tree.files() {
                    let (n, lsize) = file_blocks(t.tree.file_bytes[f], rs);
                    for b in 0..n {
                        let at = (t.data_base[f] + b) as usize * t.copies;
                        for &dva in &t.data[at..at + t.copies] {
                            if dva.is_allocated() {
                                w.scrub_data.push((dva, self.data_psize(i, f, b, lsize)));
                            }
                        }
                    }
                }
            }
            for page in d.flat.pages.iter().flatten() {
                for r in page.iter().filter(|r| r.dva[0].is_allocated()) {
                    for &dva in r.dva.iter().filter(|x| x.is_allocated()) {
                        w.scrub_data.push((dva, u64::from(r.psize)));
                    }
                }
            }
        }
        let _ = fanout;
        w.scrub_data.sort_unstable_by_key(|&(d, _)| (d.vdev(), d.offset()));
    }

    fn step_scrub(&mut self, meta: usize, data: usize) -> Step {
        let window = SCRUB_WINDOW_PER_LEAF * self.leaves.len() as u32;
        let (metas, datas) = {
            let w = self.worker.as_ref().expect("running");
            (w.scrub_meta.len(), w.scrub_data.len())
        };
        let (mut meta, mut data) = (meta, data);
        while self.worker.as_ref().expect("running").scrub_inflight < window {
            if meta < metas {
                let (dva, psize) = self.worker.as_ref().expect("running").scrub_meta[meta];
                for d in dva.iter().filter(|d| d.is_allocated()) {
                    self.scrub_read(*d, psize);
                }
                meta += 1;
            } else if data < datas {
                let (dva, psize) = self.worker.as_ref().expect("running").scrub_data[data];
                self.scrub_read(dva, psize);
                data += 1;
            } else {
                break;
            }
            self.worker.as_mut().expect("running").ops += 1;
        }
        self.set_state(State::Scrub { meta, data });
        let inflight = self.worker.as_ref().expect("running").scrub_inflight;
        if meta == metas && data == datas && inflight == 0 {
            return Step::Done;
        }
        Step::Wait
    }

    /// Reads one copy on every child that holds part of it (all mirror sides, every
    /// RAID-Z column, parity included).
    fn scrub_read(&mut self, d: Dva, psize: u64) {
        let top = d.vdev();
        let asize = self.tops[top].psize_to_asize(psize);
        let mut cols = std::mem::take(&mut self.cols);
        self.tops[top].columns(d.offset(), asize, &mut cols);
        for c in &cols {
            let leaf = self.tops[top].leaves[c.child];
            if self.leaves[leaf].failed {
                continue;
            }
            self.queue_io(leaf, IoOp::Read, IoClass::Scrub, c.offset + LABEL_START_BYTES, c.bytes, Owner::Scrub, 0);
            self.worker.as_mut().expect("running").scrub_inflight += 1;
            self.issue(leaf);
        }
        self.cols = cols;
    }
}
