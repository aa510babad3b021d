//! A ZFS pool: vdevs over disks and SSD twins, allocation classes, transaction groups, the
//! ARC, and file trees or fio's files on its datasets.
//!
//! Read first: OpenZFS's `spa_misc.c` (`spa_preferred_class`), `zio.c` (`zio_dva_allocate`,
//! `zio_write_compress`, `zio_alloc_zil`), `metaslab.c`, `dmu.c` (`dmu_write_policy`),
//! `dmu_tx.c` (`dmu_tx_delay`), `dsl_pool.c`, `txg.c`, `arc.c`, `vdev_queue.c`,
//! `vdev_mirror.c`, `dmu_zfetch.c`, `zfs_vnops.c`; then `docs/model.md` § "ZFS pools",
//! which lists every simplification.
//!
//! ```text
//!  tree operations (worker.rs)      fio through BlockDevice (fio.rs)
//!          │  dirty data, reads              │
//!          ▼                                 ▼
//!   txg (sync.rs): open → syncing; write throttle; at sync every dirty block gets a
//!   physical size (objects.rs), a class (class.rs) and DVAs (vdev.rs, metaslab.rs)
//!          │ writes                    reads: ARC (arc.rs) → zio → mirror child / RAID-Z
//!          ▼                                 ▼ columns
//!   per-leaf queues (queue.rs): classes, elevator, aggregation → AnyDevice (disk or SSD)
//! ```
//!
//! [`Pool`] owns all of it and is itself a [`BlockDevice`]: a dataset's files are its
//! address space (see `fio.rs`). Contract as `BlockDevice`'s; in addition a pool that has
//! lost a top-level vdev runs nothing ([`Pool::check_usable`]). Of the machine it runs on a
//! pool knows only its [`Machine`] (RAM and core speed), and it is handed its drives built;
//! building them, and putting a host and fio above the pool, is [`crate::setup`]'s business.
//!
//! ```
//! use ssdtwin_core::setup::pool_drives;
//! use ssdtwin_core::zfs::{Machine, Pool, SizeDist, Tree, TreeOp, TreeSpec, build_pool, load_pool};
//!
//! let config = build_pool(&load_pool("hdd-mirror-special").unwrap()).unwrap();
//! let drives = pool_drives(&config);
//! let mut pool = Pool::new(config, Machine { ram_bytes: 64 << 30, speed_factor: 1.0 }, drives).unwrap();
//! let tree = Tree::generate(&TreeSpec::new(2000, SizeDist::Fixed(8192))).unwrap();
//! pool.add_tree("tank/data", tree).unwrap();
//! let created = pool.run_op("tank/data", TreeOp::Create, &mut |_, _| true).unwrap();
//! assert_eq!(created.ops, 2000);
//! // 8 KiB files are small blocks: with special_small_blocks=32K they go to the SSDs.
//! let u = pool.usage();
//! assert!(u.special.data_bytes > 0 && u.special.metadata_bytes > 0);
//! ```

mod arc;
mod class;
mod config;
mod error;
mod fio;
mod metaslab;
mod objects;
pub mod plan;
mod queue;
mod stats;
mod sync;
mod tree;
mod vdev;
mod worker;

pub use arc::ArcStats;
pub use class::{ClassUsage, Usage};
pub use config::{
    AllocClass, Compression, DatasetConfig, DriveConfig, Format, LeafConfig, LoadedPool, PoolConfig, PoolError,
    RedundantMetadata, SHIPPED_POOLS, Tunables, VdevConfig, VdevLayout, ZplCosts, apply_pool_overrides, build_pool,
    load_pool, parse_size, shipped_pool_names,
};
pub use error::OpError;
pub use objects::ot;
pub use stats::{BlockStats, ListRow, RowKind, TxgRecord, TypeStats};
pub use tree::{FileClass, MAX_TREE_FILES, SizeDist, Tree, TreeSpec};
pub use vdev::Dva;
pub use worker::{OpResult, TreeOp};

use crate::block::{AnyDevice, BlockDevice, Command, Completion, Opcode};
use crate::engine::{EventQueue, SimDuration, SimRng, SimTime, Slab};
use arc::{Arc, KeyMap};
use objects::{DatasetState, MetaBlock, Sizing};
use queue::{IoClass, LeafQueue, Limits};
use vdev::{Column, LABEL_START_BYTES, TopVdev};

/// No index.
const NONE: u32 = u32::MAX;

/// Tables a block key can point into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Table {
    /// Data blocks of a dataset's tree.
    TreeData = 0,
    /// A dataset's metadata table.
    Meta = 1,
    /// Records of a dataset's fio object.
    Flat = 2,
}

/// The ARC key of block `index` of `table` in dataset `ds`.
pub(crate) fn key(ds: usize, table: Table, index: u64) -> u64 {
    (ds as u64) << 56 | (table as u64) << 52 | index
}

/// A leaf vdev: a drive and the queue in front of it.
#[derive(Clone)]
pub(crate) struct Leaf {
    pub(crate) name: String,
    pub(crate) device: AnyDevice,
    pub(crate) queue: LeafQueue,
    pub(crate) lba_bytes: u64,
    pub(crate) max_transfer_bytes: u64,
    pub(crate) size_bytes: u64,
    pub(crate) top: usize,
    pub(crate) rotational: bool,
    pub(crate) failed: bool,
    pub(crate) read_bytes: u64,
    /// Read commands sent to the device (after aggregation).
    pub(crate) reads: u64,
    pub(crate) write_bytes: u64,
}

/// What a leaf I/O does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IoOp {
    Read,
    Write,
    Flush,
}

/// Who waits for a leaf I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// A block read.
    Zio(u32),
    /// A group of writes or flushes (a txg phase, an intent-log commit).
    Batch(u32),
    /// The worker's scrub reads (no caching).
    Scrub,
}

/// One I/O to one leaf; aggregated I/Os are chained through `next`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LeafIo {
    pub(crate) op: IoOp,
    pub(crate) class: IoClass,
    /// Byte offset on the leaf device.
    pub(crate) offset: u64,
    pub(crate) bytes: u64,
    pub(crate) owner: Owner,
    /// Dirty bytes this write cleans when it completes.
    pub(crate) undirty: u64,
    pub(crate) next: u32,
    /// Device commands still outstanding for the aggregate this I/O heads.
    pub(crate) parts: u32,
}

/// A block read: the leaf I/Os it waits for and who waits for it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zio {
    pub(crate) key: u64,
    pub(crate) arc_bytes: u64,
    pub(crate) left: u32,
    pub(crate) waiters: u32,
}

/// Who is woken when a block arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waiter {
    Worker,
    Cmd(u32),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitNode {
    pub(crate) who: Waiter,
    pub(crate) next: u32,
}

/// Kinds of batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BatchKind {
    /// A txg's data and metadata writes.
    TxgWrites,
    /// The flush before the uberblock.
    TxgFlush,
    /// The uberblock written to every label.
    TxgLabels,
    /// The flush after it: the txg is on stable storage.
    TxgDone,
    /// An intent-log commit's writes, then its flush.
    ZilWrites,
    ZilFlush,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Batch {
    pub(crate) left: u32,
    pub(crate) kind: BatchKind,
    /// The txg, or the commit.
    pub(crate) id: u64,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Event {
    /// The txg timer (`zfs_txg_timeout` after the last sync started).
    TxgTimer { generation: u32 },
    /// The worker's CPU work or sleep ends.
    Worker { generation: u32 },
    /// A fio command completes.
    CmdDone { cmd: u32 },
}

/// A pool. See the module documentation.
#[derive(Clone)]
pub struct Pool {
    pub(crate) config: Box<PoolConfig>,
    pub(crate) now: SimTime,
    pub(crate) leaves: Vec<Leaf>,
    pub(crate) tops: Vec<TopVdev>,
    pub(crate) class_tops: [Vec<usize>; 4],
    pub(crate) rotor: [usize; 4],
    pub(crate) rotor_bytes: [u64; 4],
    pub(crate) usage: Usage,
    pub(crate) sizing: Sizing,
    pub(crate) limits: Limits,
    pub(crate) dirty_max: u64,
    /// CPU costs of file-system calls on this host.
    pub(crate) zpl: config::ZplNs,
    pub(crate) arc: Arc,
    pub(crate) inflight: KeyMap<u32>,
    pub(crate) zios: Slab<Zio>,
    pub(crate) waits: Slab<WaitNode>,
    pub(crate) ios: Slab<LeafIo>,
    pub(crate) batches: Slab<Batch>,
    pub(crate) events: EventQueue<Event>,
    pub(crate) datasets: Vec<DatasetState>,
    pub(crate) mos: Vec<MetaBlock>,
    pub(crate) txg: sync::Txg,
    pub(crate) worker: Option<Box<worker::Worker>>,
    pub(crate) worker_generation: u32,
    pub(crate) fio: fio::FioState,
    pub(crate) rng: SimRng,
    pub(crate) cols: Vec<Column>,
    pub(crate) txg_log: Vec<TxgRecord>,
    pub(crate) events_processed: u64,
    /// A failure found while syncing (a full pool): the running operation reports it.
    pub(crate) failure: Option<OpError>,
}

/// What a pool takes from the machine it runs on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Machine {
    /// Memory, bytes: it sizes the ARC (`arc_c_max`) and the dirty-data limit
    /// (`zfs_dirty_data_max`) when the pool file leaves them at 0. At least 1 GiB.
    pub ram_bytes: u64,
    /// Core speed relative to the reference core (the ZPL's costs are divided by it).
    pub speed_factor: f64,
}

impl Pool {
    /// A new, empty pool on `machine` (whose RAM sizes the ARC and the dirty-data limit, and
    /// whose core speed scales file-system call costs) over `drives`: one per leaf vdev, in
    /// the order of `config`'s vdevs and their leaves, each built from its leaf's
    /// [`DriveConfig`] ([`crate::setup::pool_drives`] builds them).
    // The pool's parts built in order, each from the ones before.
    #[allow(clippy::too_many_lines)]
    pub fn new(config: PoolConfig, machine: Machine, drives: Vec<AnyDevice>) -> Result<Pool, OpError> {
        if machine.ram_bytes < 1 << 30 {
            return Err(OpError::Parameter {
                field: "ram_bytes".into(),
                value: machine.ram_bytes.to_string(),
                allowed: "at least 1 GiB: a pool's ARC and dirty-data limit come from it".into(),
            });
        }
        if !(machine.speed_factor.is_finite() && machine.speed_factor > 0.0) {
            return Err(OpError::Parameter {
                field: "speed_factor".into(),
                value: machine.speed_factor.to_string(),
                allowed: "a positive number".into(),
            });
        }
        let leaf_count: usize = config.vdevs.iter().map(|v| v.leaves.len()).sum();
        if drives.len() != leaf_count {
            return Err(OpError::Parameter {
                field: "drives".into(),
                value: drives.len().to_string(),
                allowed: format!("one per leaf vdev: {leaf_count}"),
            });
        }
        let mut drives = drives.into_iter();
        let t = &config.tunables;
        let ram = machine.ram_bytes;
        let dirty_max = if t.zfs_dirty_data_max > 0 {
            t.zfs_dirty_data_max
        } else {
            let cap = t.zfs_dirty_data_max_max.min(ram * t.zfs_dirty_data_max_max_percent / 100);
            (ram * t.zfs_dirty_data_max_percent / 100).min(cap)
        };
        let arc_bytes = if t.zfs_arc_max > 0 { t.zfs_arc_max } else { arc::default_arc_max(ram) };
        let mut leaves = Vec::new();
        let mut tops = Vec::new();
        let mut class_tops: [Vec<usize>; 4] = Default::default();
        let mut counts = [0usize; 5];
        for v in &config.vdevs {
            let top = tops.len();
            let mut ids = Vec::new();
            for l in &v.leaves {
                let device = drives.next().expect("one drive per leaf, counted above");
                let g = device.geometry();
                ids.push(leaves.len());
                leaves.push(Leaf {
                    name: l.name.clone(),
                    rotational: device.rotational(),
                    device,
                    queue: LeafQueue::default(),
                    lba_bytes: g.lba_bytes,
                    max_transfer_bytes: g.max_transfer_bytes.min(16 << 20),
                    size_bytes: l.size_bytes,
                    top,
                    failed: false,
                    read_bytes: 0,
                    reads: 0,
                    write_bytes: 0,
                });
            }
            let kind = match v.layout {
                VdevLayout::Disk => 0,
                VdevLayout::Mirror => 1,
                VdevLayout::Raidz(p) => 1 + usize::from(p),
            };
            let name = match v.layout {
                VdevLayout::Disk => v.leaves[0].name.clone(),
                VdevLayout::Mirror => format!("mirror-{top}"),
                VdevLayout::Raidz(p) => format!("raidz{p}-{top}"),
            };
            counts[kind] += 1;
            let smallest = v.leaves.iter().map(|l| l.size_bytes).min().unwrap_or(0);
            let rotational = v.leaves.iter().any(|l| l.drive.rotational());
            tops.push(TopVdev::new(name, v.class, v.layout, v.ashift, ids, smallest, rotational));
            class_tops[v.class.index()].push(top);
        }
        // spa_min_alloc and spa_gcd_alloc over the vdevs that hold blocks of any class.
        let allocs: Vec<u64> = tops.iter().map(TopVdev::min_alloc).collect();
        let min_alloc = allocs.iter().copied().min().unwrap_or(512);
        let gcd_alloc = allocs.iter().copied().fold(0, gcd);
        let datasets = config.datasets.iter().map(|d| DatasetState::new(d.clone(), &config.format)).collect();
        let limits = Limits {
            min: [
                t.zfs_vdev_sync_read_min_active,
                t.zfs_vdev_sync_write_min_active,
                t.zfs_vdev_async_read_min_active,
                t.zfs_vdev_async_write_min_active,
                t.zfs_vdev_scrub_min_active,
            ],
            max: [
                t.zfs_vdev_sync_read_max_active,
                t.zfs_vdev_sync_write_max_active,
                t.zfs_vdev_async_read_max_active,
                t.zfs_vdev_async_write_max_active,
                t.zfs_vdev_scrub_max_active,
            ],
            total: t.zfs_vdev_max_active,
        };
        let scale = |d: SimDuration| SimDuration((d.as_ns() as f64 / machine.speed_factor).round() as u64);
        let z = &config.zpl;
        let zpl = config::ZplNs {
            create: scale(z.create),
            lookup: scale(z.lookup),
            stat: scale(z.stat),
            readdir_entry: scale(z.readdir_entry),
            open_close: scale(z.open_close),
            io_call: scale(z.io_call),
            copy_per_mib: scale(z.copy_per_mib),
        };
        let mut pool = Pool {
            now: SimTime::ZERO,
            leaves,
            tops,
            class_tops,
            rotor: [0; 4],
            rotor_bytes: [0; 4],
            usage: Usage::default(),
            sizing: Sizing { min_alloc, gcd_alloc, embedded_max: config.format.embedded_max_bytes },
            limits,
            dirty_max,
            zpl,
            arc: Arc::new(arc_bytes),
            inflight: KeyMap::default(),
            zios: Slab::default(),
            waits: Slab::default(),
            ios: Slab::default(),
            batches: Slab::default(),
            events: EventQueue::with_capacity(64),
            datasets,
            mos: Vec::new(),
            txg: sync::Txg::new(),
            worker: None,
            worker_generation: 0,
            fio: fio::FioState::default(),
            rng: SimRng::stream(0x5eed, 0x706f_6f6c),
            cols: Vec::with_capacity(16),
            txg_log: Vec::new(),
            events_processed: 0,
            failure: None,
            config: Box::new(config),
        };
        pool.mos = sync::mos_blocks();
        // zpool create writes the first txg: every dataset's dnodes and root.
        for ds in 0..pool.datasets.len() {
            pool.txg.mark_dataset(ds, pool.datasets.len());
            for b in 0..pool.datasets[ds].dnode_meta.len() as u32 {
                pool.dirty_dnode_block(ds, b);
            }
        }
        pool.sync_all()?;
        Ok(pool)
    }

    /// The pool's description.
    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// Simulated time now.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// The dataset called `name` (`tank/data`, `data`, or the pool's name for the root).
    pub fn dataset_index(&self, name: &str) -> Result<usize, OpError> {
        self.config.dataset(name).ok_or_else(|| OpError::NoDataset {
            pool: self.config.name.clone(),
            name: name.into(),
            available: self.dataset_names().join(", "),
        })
    }

    /// Full names of the datasets (`tank`, `tank/data`).
    pub fn dataset_names(&self) -> Vec<String> {
        self.config
            .datasets
            .iter()
            .map(
                |d| {
                    if d.name.is_empty() {
                        self.config.name.clone()
                    } else {
                        format!("{}/{}", self.config.name, d.name)
                    }
                },
            )
            .collect()
    }

    /// The dirty-data limit (`zfs_dirty_data_max`), bytes.
    pub fn dirty_data_max(&self) -> u64 {
        self.dirty_max
    }

    /// The ARC's target size, bytes.
    pub fn arc_max(&self) -> u64 {
        self.arc.target()
    }

    /// ARC hit and miss counts so far.
    pub fn arc_stats(&self) -> ArcStats {
        self.arc.stats
    }

    /// Empties the ARC, as an export and import does: the next reads go to the vdevs.
    pub fn drop_caches(&mut self) {
        self.arc.clear();
    }

    /// Memory the model's tables hold for the pool's contents (block tables, trees, the
    /// ARC's index, allocator segments), bytes; the leaf devices' own state is not counted.
    pub fn memory_bytes(&self) -> usize {
        self.datasets.iter().map(DatasetState::memory_bytes).sum::<usize>()
            + self.arc.blocks() * 48
            + self.tops.iter().map(|t| t.metaslabs.len() * 600).sum::<usize>()
    }

    /// Marks device `name` failed. A mirror goes on with its other children and a RAID-Z
    /// with its parity; a top-level vdev with no copy left loses the pool, whatever its
    /// class: losing a special vdev loses the pool.
    pub fn fail_device(&mut self, name: &str) -> Result<(), OpError> {
        let Some(l) = self.leaves.iter().position(|l| l.name == name) else {
            return Err(OpError::NoDevice {
                pool: self.config.name.clone(),
                name: name.into(),
                available: self.leaves.iter().map(|l| l.name.as_str()).collect::<Vec<_>>().join(", "),
            });
        };
        self.leaves[l].failed = true;
        Ok(())
    }

    /// `Err(Lost)` if a top-level vdev has lost more children than its redundancy covers.
    pub fn check_usable(&self) -> Result<(), OpError> {
        for top in &self.tops {
            let failed: Vec<&str> =
                top.leaves.iter().filter(|&&l| self.leaves[l].failed).map(|&l| self.leaves[l].name.as_str()).collect();
            let tolerated = match top.layout {
                VdevLayout::Disk => 0,
                VdevLayout::Mirror => top.leaves.len() - 1,
                VdevLayout::Raidz(p) => usize::from(p),
            };
            if failed.len() > tolerated && top.class != AllocClass::Log {
                return Err(OpError::Lost {
                    pool: self.config.name.clone(),
                    vdev: top.name.clone(),
                    class: top.class.name().trim_end_matches('s').to_string(),
                    failed: failed.join(", "),
                });
            }
        }
        Ok(())
    }

    /// Runs every event until nothing is pending (all dirty data synced, every I/O done).
    pub fn sync_all(&mut self) -> Result<(), OpError> {
        if self.txg.has_dirty() && self.txg.syncing.is_none() {
            self.start_sync();
        }
        while self.txg.syncing.is_some() || self.in_flight_internal() > 0 {
            if self.poll_at() == SimTime::NEVER {
                return Err(OpError::Stalled { time_ns: self.now.as_ns() });
            }
            self.step();
            if self.txg.syncing.is_none() && self.txg.has_dirty() {
                self.start_sync();
            }
        }
        Ok(())
    }

    fn in_flight_internal(&self) -> u32 {
        self.leaves.iter().map(|l| l.device.in_flight()).sum::<u32>()
    }

    /// When the pool next needs [`Pool::step`].
    pub(crate) fn next_time(&self) -> SimTime {
        let leaves = self.leaves.iter().map(|l| l.device.poll_at()).min().unwrap_or(SimTime::NEVER);
        leaves.min(self.events.peek_time())
    }

    /// Processes the next event: a leaf's, or the pool's own.
    pub(crate) fn step(&mut self) {
        self.events_processed += 1;
        let (leaf, t_leaf) = self
            .leaves
            .iter()
            .enumerate()
            .map(|(i, l)| (i, l.device.poll_at()))
            .min_by_key(|&(i, t)| (t, i))
            .unwrap_or((0, SimTime::NEVER));
        if t_leaf != SimTime::NEVER && t_leaf <= self.events.peek_time() {
            self.now = self.now.max(t_leaf);
            if let Some(done) = self.leaves[leaf].device.poll() {
                self.leaf_done(leaf, done);
            }
            return;
        }
        let Some((at, event)) = self.events.pop() else { return };
        self.now = self.now.max(at);
        match event {
            Event::TxgTimer { generation } => self.txg_timer(generation),
            Event::Worker { generation } => {
                if generation == self.worker_generation {
                    self.run_worker();
                }
            }
            Event::CmdDone { cmd } => self.cmd_done(cmd),
        }
    }

    // ---- leaf I/O ----

    /// Queues an I/O at byte `offset` of leaf `leaf` (not yet issued: call
    /// [`Pool::issue`]). Vdev offsets start [`LABEL_START_BYTES`] into the leaf.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn queue_io(
        &mut self,
        leaf: usize,
        op: IoOp,
        class: IoClass,
        offset: u64,
        bytes: u64,
        owner: Owner,
        undirty: u64,
    ) {
        let id = self.ios.insert(LeafIo { op, class, offset, bytes, owner, undirty, next: NONE, parts: 0 });
        match owner {
            Owner::Zio(z) => self.zios[z].left += 1,
            Owner::Batch(b) => self.batches[b].left += 1,
            Owner::Scrub => {}
        }
        if op == IoOp::Flush {
            let now = self.now;
            self.ios[id].parts = 1;
            let command = Command::new(Opcode::Flush, 0, 0);
            self.leaves[leaf].device.submit(now, command, u64::from(id)).expect("a flush is always accepted");
            return;
        }
        self.leaves[leaf].queue.push(class, offset, id);
    }

    /// Issues what leaf `leaf`'s scheduler allows.
    pub(crate) fn issue(&mut self, leaf: usize) {
        let aw_max = queue::async_write_max(
            self.txg.dirty,
            self.dirty_max,
            self.config.tunables.zfs_vdev_async_write_active_min_dirty_percent,
            self.config.tunables.zfs_vdev_async_write_active_max_dirty_percent,
            self.limits.min[IoClass::AsyncWrite as usize],
            self.limits.max[IoClass::AsyncWrite as usize],
        );
        let rotational = self.leaves[leaf].rotational;
        let t = &self.config.tunables;
        let limit = if rotational { t.zfs_vdev_aggregation_limit } else { t.zfs_vdev_aggregation_limit_non_rotating }
            .min(self.leaves[leaf].max_transfer_bytes);
        let read_gap = t.zfs_vdev_read_gap_limit;
        while let Some(class) = self.leaves[leaf].queue.class_to_issue(&self.limits, aw_max) {
            let head = self.leaves[leaf].queue.take(class).expect("the class has an I/O queued");
            let start = self.ios[head].offset;
            let mut end = start + self.ios[head].bytes;
            let mut last = head;
            let gap = if self.ios[head].op == IoOp::Read { read_gap } else { 0 };
            while let Some((o, id)) = self.leaves[leaf].queue.take_neighbour(class, end, gap) {
                let e = o + self.ios[id].bytes;
                if e.max(end) - start > limit {
                    self.leaves[leaf].queue.put_back(class, o, id);
                    break;
                }
                self.ios[last].next = id;
                last = id;
                end = end.max(e);
            }
            self.submit_span(leaf, head, start, end);
            let q = &mut self.leaves[leaf].queue;
            q.active[class as usize] += 1;
            q.last_offset = end;
        }
    }

    /// Sends `start..end` of leaf `leaf` as device commands no larger than it takes.
    fn submit_span(&mut self, leaf: usize, head: u32, start: u64, end: u64) {
        let l = &mut self.leaves[leaf];
        let opcode = if self.ios[head].op == IoOp::Read { Opcode::Read } else { Opcode::Write };
        let (lba, max) = (l.lba_bytes, l.max_transfer_bytes);
        let mut at = start;
        let mut parts = 0;
        while at < end {
            let len = max.min(end - at);
            let command = Command::new(opcode, at / lba, (len / lba) as u32);
            l.device.submit(self.now, command, u64::from(head)).expect("pool I/O lies within its leaf's partition");
            parts += 1;
            at += len;
        }
        if opcode == Opcode::Read {
            l.read_bytes += end - start;
            l.reads += u64::from(parts);
        } else {
            l.write_bytes += end - start;
        }
        self.ios[head].parts = parts;
    }

    /// A device command of leaf `leaf` completed.
    fn leaf_done(&mut self, leaf: usize, done: Completion) {
        let head = done.user as u32;
        self.ios[head].parts -= 1;
        if self.ios[head].parts > 0 {
            return;
        }
        if self.ios[head].op != IoOp::Flush {
            let class = self.ios[head].class;
            self.leaves[leaf].queue.active[class as usize] -= 1;
        }
        let mut id = head;
        while id != NONE {
            let io = self.ios[id];
            self.ios.free(id);
            self.io_done(&io);
            id = io.next;
        }
        self.issue(leaf);
    }

    fn io_done(&mut self, io: &LeafIo) {
        if io.undirty > 0 {
            self.undirty(io.undirty);
        }
        match io.owner {
            Owner::Zio(z) => {
                self.zios[z].left -= 1;
                if self.zios[z].left == 0 {
                    self.zio_done(z);
                }
            }
            Owner::Batch(b) => {
                self.batches[b].left -= 1;
                if self.batches[b].left == 0 {
                    let batch = self.batches[b];
                    self.batches.free(b);
                    self.batch_done(batch);
                }
            }
            Owner::Scrub => self.scrub_io_done(),
        }
    }

    fn batch_done(&mut self, batch: Batch) {
        match batch.kind {
            BatchKind::TxgWrites | BatchKind::TxgFlush | BatchKind::TxgLabels | BatchKind::TxgDone => {
                self.txg_phase_done(batch.kind, batch.id);
            }
            BatchKind::ZilWrites | BatchKind::ZilFlush => self.zil_phase_done(batch.kind, batch.id),
        }
    }

    // ---- block reads ----

    /// Makes sure block `key` (at `dva`, `psize` bytes) is in the ARC: `true` if it is,
    /// else a read is under way and `who` (if any) is woken when it arrives.
    pub(crate) fn read_block(
        &mut self,
        key: u64,
        dva: &[Dva; 3],
        psize: u64,
        class: IoClass,
        who: Option<Waiter>,
    ) -> bool {
        if !dva[0].is_allocated() {
            // A hole or embedded data: nothing to read.
            return true;
        }
        let cached = if who.is_some() { self.arc.lookup(key) } else { self.arc.contains(key) };
        if cached {
            return true;
        }
        if let Some(&z) = self.inflight.get(&key) {
            if let Some(w) = who {
                self.add_waiter(z, w);
            }
            return false;
        }
        let z = self.zios.insert(Zio { key, arc_bytes: psize, left: 0, waiters: NONE });
        self.inflight.insert(key, z);
        if let Some(w) = who {
            self.add_waiter(z, w);
        }
        let d = self.choose_dva(dva);
        self.read_dva(d, psize, class, Owner::Zio(z));
        if self.zios[z].left == 0 {
            // Every copy is on failed devices (the pool is lost; callers check first).
            self.zio_done(z);
            return true;
        }
        false
    }

    /// One copy of a block: the copies' vdevs weigh equally (`vdev_mirror_dva_select`).
    fn choose_dva(&mut self, dva: &[Dva; 3]) -> Dva {
        let n = dva.iter().filter(|d| d.is_allocated()).count();
        if n <= 1 {
            return dva[0];
        }
        let live: Vec<Dva> = dva.iter().copied().filter(|d| d.is_allocated()).collect();
        let healthy: Vec<Dva> = live.iter().copied().filter(|d| self.top_readable(d.vdev())).collect();
        let from = if healthy.is_empty() { &live } else { &healthy };
        from[self.rng.below(from.len() as u64) as usize]
    }

    fn top_readable(&self, top: usize) -> bool {
        self.tops[top].leaves.iter().any(|&l| !self.leaves[l].failed)
    }

    /// Queues the reads of one copy: one mirror child by load, or RAID-Z's data columns
    /// (all surviving columns when one is failed), and issues them.
    pub(crate) fn read_dva(&mut self, d: Dva, psize: u64, class: IoClass, owner: Owner) {
        let top = d.vdev();
        let asize = self.tops[top].psize_to_asize(psize);
        let mut cols = std::mem::take(&mut self.cols);
        self.tops[top].columns(d.offset(), asize, &mut cols);
        let leaves = self.tops[top].leaves.clone();
        match self.tops[top].layout {
            VdevLayout::Disk | VdevLayout::Mirror => {
                if let Some(c) = self.mirror_child(top, d.offset()) {
                    self.queue_io(leaves[c], IoOp::Read, class, d.offset() + LABEL_START_BYTES, asize, owner, 0);
                    self.issue(leaves[c]);
                }
            }
            VdevLayout::Raidz(_) => {
                let degraded = cols.iter().any(|c| self.leaves[leaves[c.child]].failed);
                for c in &cols {
                    let leaf = leaves[c.child];
                    if self.leaves[leaf].failed || (c.parity && !degraded) {
                        continue;
                    }
                    self.queue_io(leaf, IoOp::Read, class, c.offset + LABEL_START_BYTES, c.bytes, owner, 0);
                    self.issue(leaf);
                }
            }
        }
        self.cols = cols;
    }

    /// `vdev_mirror_child_select`: the child with the least load (queue length, plus a seek
    /// penalty unless the I/O follows the last one), ties broken by the offset.
    fn mirror_child(&self, top: usize, offset: u64) -> Option<usize> {
        let t = &self.config.tunables;
        let at = offset + LABEL_START_BYTES;
        let mut best: Vec<usize> = Vec::new();
        let mut lowest = u32::MAX;
        for (c, &leaf) in self.tops[top].leaves.iter().enumerate() {
            let l = &self.leaves[leaf];
            if l.failed {
                continue;
            }
            let last = l.queue.last_offset;
            let load = l.queue.length()
                + if last == at {
                    0
                } else if !l.rotational {
                    t.zfs_vdev_mirror_non_rotating_seek_inc
                } else if last.abs_diff(at) < t.zfs_vdev_mirror_rotating_seek_offset {
                    t.zfs_vdev_mirror_rotating_seek_inc / 2
                } else {
                    t.zfs_vdev_mirror_rotating_seek_inc
                };
            if load < lowest {
                lowest = load;
                best.clear();
            }
            if load == lowest {
                best.push(c);
            }
        }
        (!best.is_empty()).then(|| best[((offset >> 21) % best.len() as u64) as usize])
    }

    fn add_waiter(&mut self, z: u32, who: Waiter) {
        let head = self.zios[z].waiters;
        let n = self.waits.insert(WaitNode { who, next: head });
        self.zios[z].waiters = n;
        match who {
            Waiter::Worker => {
                if let Some(w) = self.worker.as_mut() {
                    w.pending += 1;
                }
            }
            Waiter::Cmd(c) => self.fio.cmds[c].pending += 1,
        }
    }

    fn zio_done(&mut self, z: u32) {
        let zio = self.zios[z];
        self.zios.free(z);
        self.inflight.remove(&zio.key);
        self.arc.insert(zio.key, zio.arc_bytes);
        let mut n = zio.waiters;
        while n != NONE {
            let node = self.waits[n];
            self.waits.free(n);
            match node.who {
                Waiter::Worker => self.worker_woken(),
                Waiter::Cmd(c) => self.cmd_woken(c),
            }
            n = node.next;
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
