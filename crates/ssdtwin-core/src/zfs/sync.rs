//! Transaction groups: dirty data, the write throttle, and syncing a txg to the vdevs.
//!
//! * Dirty data (`dsl_pool.c`): changes join the open txg. A txg syncs when
//!   `zfs_txg_timeout` has passed since the last sync started (`txg_sync_thread`), when the
//!   open txg holds more than `zfs_dirty_data_sync_percent` of `zfs_dirty_data_max`
//!   (`dsl_pool_dirty_space` → `txg_kick`), or when someone waits for it (fsync of the
//!   whole txg, `txg_wait_synced`). One txg syncs at a time; the next keeps filling.
//! * Throttle (`dmu_tx_delay`): above `zfs_delay_min_dirty_percent` of the limit each
//!   transaction waits `zfs_delay_scale · (dirty − min) / (max − dirty)` (at most 100 ms),
//!   and wake-ups are serialised (`dp_last_wakeup`); at the limit writers block until
//!   writes complete and clean it. Dirty data is cleaned as each data write reaches its
//!   leaf, metadata's share when the txg is done.
//! * Sync (`spa_sync`): every dirty block is given its physical size, class and copies and
//!   written, data first, then indirect blocks, dnode blocks, the meta-dnode's indirect
//!   blocks, directories, the objset, and the MOS (its dataset records, its own dnode
//!   block and objset, and this txg's log space map, with three copies); then every leaf
//!   is flushed, the uberblock written to all four labels, and flushed again
//!   (`vdev_config_sync`). Blocks a txg replaces are freed when it is done.
//!
//! Left out: multiple sync passes, the deferred-free delay of two txgs, and quiescing as a
//! stage of its own (it is instantaneous here).

use super::class::Role;
use super::objects::{self, MetaBlock, Psize, ZapShape, ot};
use super::queue::IoClass;
use super::vdev::{Dva, LABEL_BYTES, LABEL_END_BYTES, LABEL_START_BYTES};
use super::{AllocClass, Batch, BatchKind, Event, IoOp, OpError, Owner, Pool, TxgRecord};
use crate::engine::{SimDuration, SimTime};

/// What one dataset dirtied in a txg.
#[derive(Clone, Debug, Default)]
pub(crate) struct DatasetDirty {
    pub any: bool,
    /// Tree data written: from (file, block) to (file, block), in creation order.
    pub tree: Option<((u32, u64), (u32, u64))>,
    /// Objects created, from and to (their dnodes are dirty).
    pub objects: Option<(u32, u32)>,
    /// Other dnode blocks dirtied (atime updates).
    pub dnode_blocks: Vec<u32>,
    /// Directories whose entries changed.
    pub dirs: Vec<u32>,
    /// fio records written.
    pub records: Vec<u64>,
}

/// Everything dirty in one txg.
#[derive(Clone, Debug, Default)]
pub(crate) struct DirtySet {
    pub datasets: Vec<DatasetDirty>,
    /// Dirty bytes counted against the limit for metadata (cleaned when the txg is done).
    pub metadata_bytes: u64,
    /// Blocks replaced: freed when the txg is done.
    pub frees: Vec<([Dva; 3], u64, Role)>,
    /// Intent-log blocks written for this txg: freed when it is done.
    pub log_blocks: Vec<([Dva; 3], u64)>,
    /// Space-map entries this txg appends (runs of allocations and frees).
    pub space_map_entries: u64,
}

impl DirtySet {
    fn is_empty(&self) -> bool {
        self.datasets.iter().all(|d| !d.any) && self.log_blocks.is_empty()
    }
}

/// Transaction-group state.
#[derive(Clone, Debug)]
pub(crate) struct Txg {
    /// The open txg.
    pub open: u64,
    /// The txg syncing, if any.
    pub syncing: Option<u64>,
    /// The last txg synced.
    pub synced: u64,
    /// Dirty bytes not yet written, all txgs.
    pub dirty: u64,
    /// Dirty bytes of the open txg.
    pub open_dirty: u64,
    pub last_start: SimTime,
    /// A sync was asked for while another ran.
    pub kick: bool,
    pub timer_generation: u32,
    pub timer_armed: bool,
    /// `dp_last_wakeup`.
    pub last_wakeup: SimTime,
    pub open_set: DirtySet,
    pub sync_set: DirtySet,
    /// When the syncing txg started, and what it wrote.
    pub sync_started: SimTime,
    pub sync_bytes: u64,
    /// Log space maps of recent txgs: each kept this many txgs, then freed.
    pub log_spacemaps: std::collections::VecDeque<([Dva; 3], u64)>,
}

/// Log space maps kept (`zfs_unflushed_max_*`: recent txgs' changes stay in the log until
/// their metaslabs are flushed) [U: a steady pool keeps tens to hundreds].
const LOG_SPACEMAPS_KEPT: usize = 32;

impl Txg {
    pub(crate) fn new() -> Self {
        Txg {
            open: 4,
            syncing: None,
            synced: 3,
            dirty: 0,
            open_dirty: 0,
            last_start: SimTime::ZERO,
            kick: false,
            timer_generation: 0,
            timer_armed: false,
            last_wakeup: SimTime::ZERO,
            open_set: DirtySet::default(),
            sync_set: DirtySet::default(),
            sync_started: SimTime::ZERO,
            sync_bytes: 0,
            log_spacemaps: std::collections::VecDeque::new(),
        }
    }

    /// The open txg's record of dataset `ds` (of `n`), marked dirty.
    pub(crate) fn mark_dataset(&mut self, ds: usize, n: usize) -> &mut DatasetDirty {
        if self.open_set.datasets.len() < n {
            self.open_set.datasets.resize(n, DatasetDirty::default());
        }
        let d = &mut self.open_set.datasets[ds];
        d.any = true;
        d
    }

    pub(crate) fn has_dirty(&self) -> bool {
        !self.open_set.is_empty()
    }
}

/// The MOS blocks rewritten every txg: its objset, its dnode block, the datasets' records.
pub(crate) fn mos_blocks() -> Vec<MetaBlock> {
    vec![MetaBlock::new(ot::OBJSET, 0), MetaBlock::new(ot::DNODE, 0), MetaBlock::new(ot::DSL_DATASET, 0)]
}

/// How a transaction may go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TxWait {
    /// Now.
    Go,
    /// After the delay, at this time.
    Until(SimTime),
    /// Not until dirty data falls below the limit.
    Blocked,
}

impl Pool {
    /// `dmu_tx_delay` for a transaction starting now.
    pub(crate) fn tx_assign(&mut self) -> TxWait {
        let t = &self.config.tunables;
        let dirty = self.txg.dirty;
        if dirty >= self.dirty_max {
            return TxWait::Blocked;
        }
        let min = self.dirty_max * t.zfs_delay_min_dirty_percent / 100;
        if dirty <= min {
            return TxWait::Go;
        }
        let tx = u128::from(t.zfs_delay_scale) * u128::from(dirty - min) / u128::from(self.dirty_max - dirty);
        let tx = SimDuration((tx as u64).min(DELAY_MAX_NS));
        let wakeup = (self.now + tx).max(self.txg.last_wakeup + tx);
        self.txg.last_wakeup = wakeup;
        TxWait::Until(wakeup)
    }

    /// Counts `bytes` of new dirty data in the open txg (`dsl_pool_dirty_space`); kicks a
    /// sync past the threshold and arms the timer.
    pub(crate) fn dirty_bytes(&mut self, bytes: u64, metadata: bool) {
        self.txg.dirty += bytes;
        self.txg.open_dirty += bytes;
        if metadata {
            self.txg.open_set.metadata_bytes += bytes;
        }
        let threshold = self.dirty_max * self.config.tunables.zfs_dirty_data_sync_percent / 100;
        if self.txg.open_dirty > threshold {
            if self.txg.syncing.is_none() {
                self.start_sync();
            } else {
                self.txg.kick = true;
            }
        } else if !self.txg.timer_armed && self.txg.syncing.is_none() {
            self.arm_timer();
        }
    }

    fn arm_timer(&mut self) {
        self.txg.timer_generation += 1;
        self.txg.timer_armed = true;
        let at = (self.txg.last_start + SimDuration::from_secs(self.config.tunables.zfs_txg_timeout)).max(self.now);
        self.events.push(at, Event::TxgTimer { generation: self.txg.timer_generation });
    }

    pub(crate) fn txg_timer(&mut self, generation: u32) {
        if generation != self.txg.timer_generation {
            return;
        }
        self.txg.timer_armed = false;
        if self.txg.syncing.is_none() && self.txg.has_dirty() {
            self.start_sync();
        }
    }

    /// Cleans `bytes` of dirty data (a data write reached its leaf); wakes blocked writers.
    pub(crate) fn undirty(&mut self, bytes: u64) {
        let was_blocked = self.txg.dirty >= self.dirty_max;
        self.txg.dirty = self.txg.dirty.saturating_sub(bytes);
        if was_blocked && self.txg.dirty < self.dirty_max {
            self.space_available();
        }
    }

    /// Marks dnode block `b` of dataset `ds` dirty in the open txg.
    pub(crate) fn dirty_dnode_block(&mut self, ds: usize, b: u32) {
        let open = self.txg.open;
        let n = self.datasets.len();
        if self.datasets[ds].dnode_dirty[b as usize] != open {
            self.datasets[ds].dnode_dirty[b as usize] = open;
            self.txg.mark_dataset(ds, n).dnode_blocks.push(b);
        }
    }

    /// Marks directory `d` of dataset `ds`'s tree dirty in the open txg.
    pub(crate) fn dirty_dir(&mut self, ds: usize, d: u32) {
        let open = self.txg.open;
        let n = self.datasets.len();
        let t = self.datasets[ds].tree.as_mut().expect("a tree exists when its directories change");
        if t.dir_dirty[d as usize] != open {
            t.dir_dirty[d as usize] = open;
            self.txg.mark_dataset(ds, n).dirs.push(d);
        }
    }

    /// Starts syncing the open txg.
    pub(crate) fn start_sync(&mut self) {
        debug_assert!(self.txg.syncing.is_none());
        let txg = self.txg.open;
        self.txg.open += 1;
        std::mem::swap(&mut self.txg.open_set, &mut self.txg.sync_set);
        let o = &mut self.txg.open_set;
        o.datasets.clear();
        o.metadata_bytes = 0;
        o.frees.clear();
        o.log_blocks.clear();
        o.space_map_entries = 0;
        self.txg.open_dirty = 0;
        self.txg.kick = false;
        self.txg.syncing = Some(txg);
        self.txg.last_start = self.now;
        self.txg.sync_started = self.now;
        self.txg.timer_generation += 1;
        self.txg.timer_armed = false;
        let batch = self.batches.insert(Batch { left: 0, kind: BatchKind::TxgWrites, id: txg });
        // Allocation failures (a full pool) are recorded: the next operation reports them.
        if let Err(e) = self.write_txg(txg, batch) {
            self.failure.get_or_insert(e);
        }
        self.finish_batch_if_empty(batch);
    }

    /// Completes a batch no I/O was queued for.
    pub(crate) fn finish_batch_if_empty(&mut self, b: u32) {
        if self.batches[b].left == 0 {
            let batch = self.batches[b];
            self.batches.free(b);
            self.batch_done(batch);
        }
    }

    /// Allocates and queues every write of txg `txg`.
    fn write_txg(&mut self, txg: u64, batch: u32) -> Result<(), OpError> {
        let datasets = std::mem::take(&mut self.txg.sync_set.datasets);
        let mut touched = 0;
        let mut result = Ok(());
        for (ds, dirty) in datasets.iter().enumerate() {
            if dirty.any {
                touched += 1;
                result = self.write_dataset(ds, dirty, txg, batch);
                if result.is_err() {
                    break;
                }
            }
        }
        self.txg.sync_set.datasets = datasets;
        if result.is_ok() && touched > 0 {
            result = self.write_mos(batch, touched);
        }
        for l in 0..self.leaves.len() {
            self.issue(l);
        }
        result
    }

    /// Writes a dataset's dirty blocks, data first.
    fn write_dataset(
        &mut self,
        ds: usize,
        dirty: &super::sync::DatasetDirty,
        txg: u64,
        batch: u32,
    ) -> Result<(), OpError> {
        let fanout = self.config.format.indirect_block_bytes / self.config.format.block_pointer_bytes;
        let mut levels = Vec::new();
        // Tree data, in creation order, and each touched file's indirect blocks.
        if let Some((from, to)) = dirty.tree
            && self.datasets[ds].tree.is_some()
        {
            let (mut f, mut b) = from;
            while (f, b) < to {
                let (blocks, end) = {
                    let t = self.datasets[ds].tree.as_ref().expect("checked");
                    let rs = self.datasets[ds].cfg.recordsize_bytes;
                    let (n, _) = objects::file_blocks(t.tree.file_bytes[f as usize], rs);
                    let end = if f == to.0 { to.1 } else { n };
                    (n, end)
                };
                for blk in b..end {
                    self.write_tree_block(ds, f as usize, blk, batch)?;
                }
                if blocks > 1 && end > b {
                    self.write_file_indirects(ds, f as usize, blocks, b, end, fanout, &mut levels, batch)?;
                }
                f += 1;
                b = 0;
            }
        }
        // fio records, then their indirect blocks.
        let mut records = dirty.records.clone();
        records.sort_unstable();
        for &r in &records {
            self.write_record(ds, r, txg, batch)?;
        }
        if !records.is_empty() {
            self.write_flat_indirects(ds, &records, fanout, batch)?;
        }
        // Dnode blocks: those of the objects created, and the others dirtied.
        let per = self.datasets[ds].dnodes_per_block(&self.config.format);
        let mut dnode_blocks: Vec<u32> = dirty.dnode_blocks.clone();
        if let Some((from, to)) = dirty.objects
            && to > from
        {
            dnode_blocks.extend(from / per..=(to - 1) / per);
        }
        dnode_blocks.sort_unstable();
        dnode_blocks.dedup();
        for &b in &dnode_blocks {
            self.write_dnode_block(ds, b, batch)?;
        }
        // The meta-dnode's indirect blocks over them.
        let total_blocks = self.datasets[ds].dnode_meta.len() as u64;
        objects::indirect_levels(total_blocks, fanout, &mut levels);
        let mut below: Vec<u64> = dnode_blocks.iter().map(|&b| u64::from(b)).collect();
        for level in 1..=levels.len() {
            let mut here: Vec<u64> = below.iter().map(|&i| i / fanout).collect();
            here.dedup();
            for &i in &here {
                let children = if level == 1 {
                    total_blocks.min((i + 1) * fanout) - i * fanout
                } else {
                    levels[level - 2].min((i + 1) * fanout) - i * fanout
                };
                let m = self.datasets[ds].mdn_indirect(level, i as usize);
                let raw = children * self.config.format.block_pointer_bytes_lz4();
                self.rewrite_meta(ds, m, self.config.format.indirect_block_bytes, raw, batch)?;
            }
            below = here;
        }
        // Directories.
        let dirs = dirty.dirs.clone();
        for &d in &dirs {
            self.write_zap(ds, d, batch)?;
        }
        // The objset.
        let os = self.datasets[ds].objset;
        let raw = 3 * self.config.format.dnode_lz4_bytes + 3 * self.config.format.block_pointer_lz4_bytes;
        self.rewrite_meta(ds, os, 4096, raw, batch)?;
        Ok(())
    }

    fn role_data(&self, ds: usize) -> Role {
        Role {
            metadata: false,
            indirect: false,
            small_blocks: self.datasets[ds].cfg.special_small_blocks_bytes,
            intent_log: false,
        }
    }

    fn write_tree_block(&mut self, ds: usize, f: usize, blk: u64, batch: u32) -> Result<(), OpError> {
        let d = &self.datasets[ds];
        let t = d.tree.as_ref().expect("a tree has data");
        let size = t.tree.file_bytes[f];
        let (_, lsize) = objects::file_blocks(size, d.cfg.recordsize_bytes);
        let content = (size - blk * lsize).min(lsize);
        let class = &t.tree.classes[t.tree.file_class[f] as usize];
        let (compress, compressed) = objects::compressed_data(&d.cfg, class, content);
        let psize = self.sizing.psize(lsize, compressed, compress, true);
        let copies = objects::copies(&d.cfg, ot::PLAIN_FILE, 0);
        let index = (t.data_base[f] + blk) as usize * t.copies;
        let dva = match psize {
            Psize::Bytes(p) => {
                let dva = self.allocate(self.role_data(ds), p, copies)?;
                self.queue_block_writes(&dva, p, batch, lsize);
                self.txg.sync_bytes += p;
                dva
            }
            Psize::Embedded => {
                self.undirty(lsize);
                [Dva::EMBEDDED; 3]
            }
            Psize::Hole => {
                self.undirty(lsize);
                [Dva::HOLE; 3]
            }
        };
        let t = self.datasets[ds].tree.as_mut().expect("checked");
        let copies_kept = t.copies;
        t.data[index..index + copies_kept].copy_from_slice(&dva[..copies_kept]);
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn write_file_indirects(
        &mut self,
        ds: usize,
        f: usize,
        blocks: u64,
        from: u64,
        to: u64,
        fanout: u64,
        levels: &mut Vec<u64>,
        batch: u32,
    ) -> Result<(), OpError> {
        objects::indirect_levels(blocks, fanout, levels);
        let base = self.datasets[ds].tree.as_ref().expect("a tree has data").ind_base[f];
        let mut offset = 0u64;
        let (mut lo, mut hi) = (from, to - 1);
        let mut below = blocks;
        for (l, &count) in levels.iter().enumerate() {
            lo /= fanout;
            hi /= fanout;
            for i in lo..=hi {
                let children = below.min((i + 1) * fanout) - i * fanout;
                let m = base + (offset + i) as u32;
                let raw = children * self.config.format.block_pointer_lz4_bytes;
                self.datasets[ds].meta[m as usize].level = (l + 1) as u8;
                self.rewrite_meta(ds, m, self.config.format.indirect_block_bytes, raw, batch)?;
            }
            offset += count;
            below = count;
        }
        Ok(())
    }

    fn write_record(&mut self, ds: usize, r: u64, txg: u64, batch: u32) -> Result<(), OpError> {
        let fanout = self.config.format.indirect_block_bytes / self.config.format.block_pointer_bytes;
        let rs = self.datasets[ds].cfg.recordsize_bytes;
        let rec = *self.datasets[ds].flat.record(r, fanout).expect("a dirty record exists");
        if rec.dirty_txg != txg {
            return Ok(());
        }
        if rec.logged {
            // Written in place by the intent log; the txg only points at it.
            self.datasets[ds].flat.record_mut(r, fanout).logged = false;
            self.undirty(rs);
            return Ok(());
        }
        let role = self.role_data(ds);
        if rec.dva[0].is_allocated() {
            self.txg.sync_set.frees.push((rec.dva, u64::from(rec.psize), role));
        }
        // fio's buffers are random: they do not compress.
        let psize = rs;
        let copies = objects::copies(&self.datasets[ds].cfg, ot::PLAIN_FILE, 0);
        let dva = self.allocate(role, psize, copies)?;
        self.queue_block_writes(&dva, psize, batch, rs);
        self.txg.sync_bytes += psize;
        let rec = self.datasets[ds].flat.record_mut(r, fanout);
        rec.dva = dva;
        rec.psize = psize as u32;
        Ok(())
    }

    fn write_flat_indirects(&mut self, ds: usize, records: &[u64], fanout: u64, batch: u32) -> Result<(), OpError> {
        let total = self.datasets[ds].flat.pages.len() as u64 * fanout;
        let mut levels = Vec::new();
        objects::indirect_levels(total.max(2), fanout, &mut levels);
        let mut below: Vec<u64> = records.to_vec();
        let mut below_count = total;
        for (l, &count) in levels.iter().enumerate() {
            let mut here: Vec<u64> = below.iter().map(|&i| i / fanout).collect();
            here.dedup();
            for &i in &here {
                let children = below_count.min((i + 1) * fanout) - i * fanout;
                let m = self.datasets[ds].flat_indirect(l + 1, i as usize);
                let raw = children * self.config.format.block_pointer_lz4_bytes;
                self.rewrite_meta(ds, m, self.config.format.indirect_block_bytes, raw, batch)?;
            }
            below = here;
            below_count = count;
        }
        Ok(())
    }

    fn write_dnode_block(&mut self, ds: usize, b: u32, batch: u32) -> Result<(), OpError> {
        let d = &self.datasets[ds];
        let m = d.dnode_meta[b as usize];
        let f = &self.config.format;
        let raw = u64::from(d.dnode_used[b as usize]) * f.dnode_lz4_bytes
            + u64::from(d.dnode_bps[b as usize]) * f.block_pointer_lz4_bytes;
        self.rewrite_meta(ds, m, f.dnode_block_bytes, raw, batch)
    }

    fn write_zap(&mut self, ds: usize, d: u32, batch: u32) -> Result<(), OpError> {
        let f = self.config.format.clone();
        let (base, entries, long) = {
            let t = self.datasets[ds].tree.as_ref().expect("a tree has directories");
            (t.zap_base[d as usize], u64::from(t.dir_entries[d as usize]), t.dir_long_names[d as usize])
        };
        let shape = ZapShape::of(entries, long, &f);
        for i in 0..shape.blocks() {
            let (lsize, raw) = objects::zap_block(shape, i, entries, &f);
            self.rewrite_meta(ds, base + i as u32, lsize, raw, batch)?;
        }
        // A microzap turned fat: its old block's slot now holds the header; blocks beyond
        // the new shape (none: shapes only grow) need no free.
        Ok(())
    }

    /// Writes a new version of metadata block `m` of dataset `ds` (`lsize` bytes, `raw`
    /// bytes after lz4), freeing the old one when the txg is done.
    pub(crate) fn rewrite_meta(&mut self, ds: usize, m: u32, lsize: u64, raw: u64, batch: u32) -> Result<(), OpError> {
        let old = self.datasets[ds].meta[m as usize];
        let role = Role { metadata: true, indirect: old.level > 0, small_blocks: 0, intent_log: false };
        if old.dva[0].is_allocated() {
            self.txg.sync_set.frees.push((old.dva, u64::from(old.psize), role));
        }
        let embeddable = old.level == 0 && old.ot == ot::DIRECTORY;
        let psize = self.sizing.psize(lsize, raw, true, embeddable);
        let copies = objects::copies(&self.datasets[ds].cfg, old.ot, old.level);
        let (dva, p) = match psize {
            Psize::Bytes(p) => {
                let dva = self.allocate(role, p, copies)?;
                self.queue_block_writes(&dva, p, batch, 0);
                (dva, p)
            }
            Psize::Embedded => ([Dva::EMBEDDED; 3], 0),
            Psize::Hole => ([Dva::HOLE; 3], 0),
        };
        let b = &mut self.datasets[ds].meta[m as usize];
        b.dva = dva;
        b.psize = p as u32;
        b.lsize = lsize as u32;
        // The new version is what the ARC holds.
        self.arc.insert(super::key(ds, super::Table::Meta, u64::from(m)), p.max(1));
        Ok(())
    }

    /// The MOS: dataset records, its dnode block and objset, and the txg's log space map,
    /// each with three copies (`spa_max_replication`).
    fn write_mos(&mut self, batch: u32, datasets: u64) -> Result<(), OpError> {
        let f = self.config.format.clone();
        let role = Role { metadata: true, indirect: false, small_blocks: 0, intent_log: false };
        let entries = self.txg.sync_set.space_map_entries.max(1);
        let sm_lsize = (entries * 16).next_power_of_two().clamp(4096, 128 << 10);
        let sm = match self.sizing.psize(sm_lsize, entries * 16, true, false) {
            Psize::Bytes(p) => p,
            _ => self.sizing.min_alloc,
        };
        let dva = self.allocate(role, sm, 3)?;
        self.queue_block_writes(&dva, sm, batch, 0);
        self.txg.log_spacemaps.push_back((dva, sm));
        if self.txg.log_spacemaps.len() > LOG_SPACEMAPS_KEPT {
            let (old, p) = self.txg.log_spacemaps.pop_front().expect("not empty");
            self.txg.sync_set.frees.push((old, p, role));
        }
        let sizes = [
            (4096, 3 * f.dnode_lz4_bytes + 3 * f.block_pointer_lz4_bytes),
            (f.dnode_block_bytes, 8 * f.dnode_lz4_bytes + 8 * f.block_pointer_lz4_bytes),
            (f.dnode_block_bytes, datasets * 2 * (f.dnode_lz4_bytes + f.block_pointer_lz4_bytes)),
        ];
        for (i, (lsize, raw)) in sizes.into_iter().enumerate() {
            let old = self.mos[i];
            if old.dva[0].is_allocated() {
                self.txg.sync_set.frees.push((old.dva, u64::from(old.psize), role));
            }
            let p = match self.sizing.psize(lsize, raw, true, false) {
                Psize::Bytes(p) => p,
                _ => self.sizing.min_alloc,
            };
            let dva = self.allocate(role, p, 3)?;
            self.queue_block_writes(&dva, p, batch, 0);
            self.mos[i].dva = dva;
            self.mos[i].psize = p as u32;
            self.mos[i].lsize = lsize as u32;
        }
        Ok(())
    }

    /// Queues the writes of every copy of a block: every mirror child, every RAID-Z column.
    /// The first write carries the data's dirty bytes, which it cleans when done.
    pub(crate) fn queue_block_writes(&mut self, dva: &[Dva; 3], psize: u64, batch: u32, undirty: u64) {
        let mut undirty = undirty;
        let mut cols = std::mem::take(&mut self.cols);
        for d in dva.iter().filter(|d| d.is_allocated()) {
            let top = d.vdev();
            let asize = self.tops[top].psize_to_asize(psize);
            self.tops[top].columns(d.offset(), asize, &mut cols);
            for c in &cols {
                let leaf = self.tops[top].leaves[c.child];
                if self.leaves[leaf].failed {
                    continue;
                }
                self.queue_io(
                    leaf,
                    IoOp::Write,
                    IoClass::AsyncWrite,
                    c.offset + LABEL_START_BYTES,
                    c.bytes,
                    Owner::Batch(batch),
                    undirty,
                );
                undirty = 0;
            }
        }
        self.txg.sync_set.space_map_entries += dva.iter().filter(|d| d.is_allocated()).count() as u64;
        self.cols = cols;
        if undirty > 0 {
            self.undirty(undirty);
        }
    }

    /// A txg phase finished: the next one, or the end of the txg.
    pub(crate) fn txg_phase_done(&mut self, kind: BatchKind, txg: u64) {
        let next = match kind {
            BatchKind::TxgWrites => BatchKind::TxgFlush,
            BatchKind::TxgFlush => BatchKind::TxgLabels,
            BatchKind::TxgLabels => BatchKind::TxgDone,
            _ => {
                self.txg_done(txg);
                return;
            }
        };
        let batch = self.batches.insert(Batch { left: 0, kind: next, id: txg });
        for leaf in 0..self.leaves.len() {
            if self.leaves[leaf].failed {
                continue;
            }
            if next == BatchKind::TxgLabels {
                // The uberblock goes to a slot of the ring in each of the four labels.
                let ashift = self.tops[self.leaves[leaf].top].ashift;
                let slot = (1u64 << ashift).max(1024);
                let ring = (128 << 10) / slot;
                let within = (128 << 10) + (txg % ring) * slot;
                let end = self.leaves[leaf].size_bytes;
                for label in [0, LABEL_BYTES, end - LABEL_END_BYTES, end - LABEL_END_BYTES + LABEL_BYTES] {
                    self.queue_io(leaf, IoOp::Write, IoClass::SyncWrite, label + within, slot, Owner::Batch(batch), 0);
                }
                self.issue(leaf);
            } else {
                self.queue_io(leaf, IoOp::Flush, IoClass::SyncWrite, 0, 0, Owner::Batch(batch), 0);
            }
        }
        self.finish_batch_if_empty(batch);
    }

    /// The txg is on stable storage: free what it replaced, clean its metadata's dirty
    /// bytes, wake who waited, and start the next if one is due.
    fn txg_done(&mut self, txg: u64) {
        let frees = std::mem::take(&mut self.txg.sync_set.frees);
        for (dva, psize, role) in &frees {
            self.free_block(dva, *psize, *role);
        }
        let log_role = Role { metadata: false, indirect: false, small_blocks: 0, intent_log: true };
        for (dva, psize) in std::mem::take(&mut self.txg.sync_set.log_blocks) {
            self.free_block(&dva, psize, log_role);
        }
        let md = std::mem::take(&mut self.txg.sync_set.metadata_bytes);
        self.undirty(md);
        self.txg.sync_set.datasets.clear();
        self.txg.sync_set.space_map_entries = 0;
        self.txg.syncing = None;
        self.txg.synced = txg;
        self.txg_log.push(TxgRecord {
            txg,
            start_ns: self.txg.sync_started.as_ns(),
            end_ns: self.now.as_ns(),
            written_bytes: self.txg.sync_bytes,
            usage: self.usage(),
        });
        self.txg.sync_bytes = 0;
        self.txg_synced(txg);
        let due = self.now >= self.txg.last_start + SimDuration::from_secs(self.config.tunables.zfs_txg_timeout);
        if self.txg.has_dirty() && (self.txg.kick || due || self.txg.dirty >= self.dirty_max) {
            self.start_sync();
        } else if self.txg.has_dirty() {
            self.arm_timer();
        }
    }

    /// Usage by class now.
    pub fn usage(&self) -> super::Usage {
        let mut u = self.usage;
        for c in AllocClass::ALL {
            u.class_mut(c).size_bytes = self.class_space(c);
        }
        u
    }
}

/// `zfs_delay_max_ns`: 100 ms.
const DELAY_MAX_NS: u64 = 100_000_000;

impl super::config::Format {
    /// lz4 bytes of one block pointer.
    pub(crate) fn block_pointer_bytes_lz4(&self) -> u64 {
        self.block_pointer_lz4_bytes
    }
}
