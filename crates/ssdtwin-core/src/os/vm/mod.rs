//! Virtual memory over the block target: anonymous memory with swap, file mappings with
//! read-around, `madvise`, `msync`, reclaim (kswapd and direct), and the kernel's swap locks.
//!
//! Read first: `mm/memory.c` (`handle_mm_fault`, `do_anonymous_page`, `do_swap_page`,
//! `do_read_fault`, `do_fault_around`), `mm/filemap.c` (`filemap_fault`,
//! `filemap_map_pages`), `mm/swap_state.c`, `mm/swapfile.c`, `mm/vmscan.c` (`kswapd`,
//! `balance_pgdat`, `shrink_inactive_list`, `shrink_page_list`, `page_check_references`),
//! `mm/page_alloc.c` (`__setup_per_zone_wmarks`, `__alloc_pages_slowpath`) and
//! `mm/madvise.c`; `docs/model.md` § "Virtual memory" lists what is simplified.
//!
//! The pieces:
//!
//! * [`frames`]: DRAM as page frames on four LRU lists;
//! * [`swap`]: swap areas, their slot allocators and the swap cache index;
//! * [`locks`]: the swap path's spinlocks, which concurrently faulting threads contend for;
//! * [`readahead`]: swap-in windows and mmap read-around;
//! * `fault` (page faults), `reclaim` (allocation, kswapd, direct reclaim, writeback ends)
//!   and `advice` (`madvise`, `msync`, the flusher for dirty file pages), all methods of
//!   [`Host`], which owns the VM beside its block target and CPU.
//!
//! Every virtual page of every mapping has a number in one global page space and a state
//! word: untouched (or a hole of a sparse file), mapped in a frame, cached in a frame but
//! not mapped (a file page read ahead), or out (an anonymous page's swap slot, a file page
//! on the target). A workload touches pages one at a time ([`Host::vm_touch`]); a touch
//! returns when the thread may go on, its CPU work (faults, locks, reclaim it did itself)
//! already counted, or makes the thread wait for a read, a free frame or the dirty
//! throttle, after which [`Host::poll`](super::Host::poll) hands back its tag.
//!
//! Call protocol: [`Host::vm_swapon`] and [`Host::vm_map`] set the VM up (before any touch);
//! [`Host::vm_populate`] fills a mapping at once (untimed, as after a sequential first-touch
//! fill); then touches, `madvise` and `msync` run in simulated time. Memory: 18 bytes per
//! frame of DRAM and 4 bytes per virtual page, plus 5 per swap slot, all allocated zeroed
//! and touched lazily.

mod advice;
mod fault;
pub mod frames;
pub mod locks;
mod mmap_io;
pub mod readahead;
mod reclaim;
pub mod swap;

pub use locks::{LockId, LockTotals};
pub use mmap_io::MmapIo;
pub use readahead::SwapReadahead;
pub use swap::SwapAllocator;

use super::page_cache::dirty::{DirtyLimits, WriteBandwidth};
use super::page_cache::readahead::Readahead;
use super::{CoreId, Host};
use crate::block::{BlockDevice, Command, CounterRow, Opcode};
use crate::engine::{SimDuration, SimTime, Slab};
use frames::Frames;
use locks::Locks;
use readahead::SwapRaState;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use swap::Swap;

/// Which locks serialize the swap path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockScope {
    /// One lock for every swap area (3.6's `swap_lock`; one swap-cache `address_space`).
    Global,
    /// One per swap area (3.9's `swap_info_struct.lock`; one `address_space` per area).
    PerDevice,
}

/// The VM's settings, from the host profile's `[vm]`; CPU costs already scaled to the host.
// Each flag is one kernel era's switch, named as the kernel names it.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Debug, PartialEq)]
pub struct VmConfig {
    /// Page size, bytes.
    pub page_bytes: u64,
    /// DRAM the kernel and the rest of the system keep, bytes.
    pub kernel_reserved_bytes: u64,
    /// Upper clamp of `min_free_kbytes` as `init_per_zone_wmark_min` computes it, KiB.
    pub min_free_kbytes_max: u64,
    /// `vm.watermark_scale_factor` (0 before 4.6: low and high are ¼ and ½ of min above it).
    pub watermark_scale_factor: u32,
    /// `vm.swappiness`.
    pub swappiness: u32,
    /// `vm.page-cluster`.
    pub page_cluster: u32,
    /// Swap-in readahead.
    pub swap_readahead: SwapReadahead,
    /// Swap slot allocation and free.
    pub swap_lock: LockScope,
    /// The swap cache's tree lock.
    pub swap_cache_lock: LockScope,
    /// How slots are found.
    pub swap_allocator: SwapAllocator,
    /// `fault_around_bytes` (0: no fault-around, as before 3.15).
    pub fault_around_bytes: u64,
    /// `MADV_WILLNEED` prefetches swapped-out anonymous pages (3.9+).
    pub willneed_swap: bool,
    /// How much of a file range `MADV_WILLNEED` reads.
    pub willneed_file_limit: WillneedLimit,
    /// Reclaim ignores the referenced bits of `MADV_SEQUENTIAL` mappings (3.x
    /// `page_referenced_one`; 6.3+ `vma_has_recency`).
    pub sequential_ignores_references: bool,
    /// Reclaim ignores the referenced bits of `MADV_RANDOM` mappings too (6.3+).
    pub random_ignores_references: bool,
    /// A new anonymous page starts on the active list (before 5.9's workingset change).
    pub new_anon_active: bool,
    /// mmap readahead window (`ra_pages`), bytes.
    pub read_ahead_bytes: u64,
    /// A synchronous window no larger than its request is all asynchronous, its marker on
    /// the faulting page (so `MADV_SEQUENTIAL` faults once a window); later kernels mark
    /// half of it.
    pub whole_window_async: bool,
    /// `vm.dirty_background_ratio`, percent.
    pub dirty_background_ratio: u32,
    /// `vm.dirty_ratio`, percent.
    pub dirty_ratio: u32,
    /// Writeback requests of dirty file pages in flight.
    pub writeback_depth: u32,
    /// Largest swap or file request the VM sends, bytes (the block layer's merge limit).
    pub max_request_bytes: u64,
    /// Exception entry and exit plus the page-table walk of any fault.
    pub fault: SimDuration,
    /// Zeroing a new anonymous page (`clear_page`) and its allocation.
    pub zero_page: SimDuration,
    /// `do_swap_page` beyond the walk: swap-cache lookup, rmap, PTE.
    pub swapin_fault: SimDuration,
    /// `filemap_fault` beyond the walk: page-cache lookup, page lock, the file system.
    pub file_fault: SimDuration,
    /// Mapping one already cached page by fault-around (`filemap_map_pages`).
    pub map_page: SimDuration,
    /// Reclaim per page scanned: isolation, `page_referenced` (rmap walk), putback.
    pub scan_page: SimDuration,
    /// Reclaim per page unmapped: `try_to_unmap` and its TLB flush.
    pub unmap_page: SimDuration,
    /// One acquisition of a swap-area lock (critical section).
    pub swap_lock_hold: SimDuration,
    /// One swap-cache tree insertion or deletion under its lock.
    pub swap_cache_hold: SimDuration,
    /// Moving a lock's cache line to another core.
    pub lock_transfer: SimDuration,
    /// The slot allocator's scan of the swap map, per KiB examined.
    pub swap_map_scan_per_kib: SimDuration,
}

/// How many pages `MADV_WILLNEED` on a file range reads (`force_page_cache_readahead`'s
/// cap; it reads the first pages of the range up to it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WillneedLimit {
    /// Before 3.15, `max_sane_readahead`: half of the free and inactive file pages.
    HalfFreeAndInactive,
    /// 3.15 to 4.9, `MAX_READAHEAD`: 2 MiB.
    TwoMib,
    /// 4.10+: the larger of the readahead window (`ra_pages`) and the largest request
    /// (`io_pages`).
    Window,
}

/// `madvise` advice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Madvise {
    /// `MADV_NORMAL`: clears `MADV_SEQUENTIAL` / `MADV_RANDOM`.
    Normal,
    /// `MADV_SEQUENTIAL`.
    Sequential,
    /// `MADV_RANDOM`.
    Random,
    /// `MADV_WILLNEED`: start reading the range.
    WillNeed,
    /// `MADV_DONTNEED`: drop the range from the page table (anonymous pages are freed).
    DontNeed,
}

/// The access hint a mapping carries (`VM_SEQ_READ`, `VM_RAND_READ`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hint {
    Normal,
    Sequential,
    Random,
}

/// A mapping, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MappingId(pub u32);

/// What backs a mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backing {
    /// Anonymous memory (`malloc`, `valloc`): zero-filled on first touch, swapped out.
    Anon,
    /// A shared mapping of a file whose page 0 is at `offset_bytes` on the target;
    /// `sparse`: not written yet (its pages are holes until touched).
    File {
        /// Where the file starts on the target, bytes.
        offset_bytes: u64,
        /// The file has no data yet.
        sparse: bool,
    },
}

/// The thread a VM operation runs for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmCtx {
    /// The core it runs on.
    pub core: CoreId,
    /// Comes back from [`Host::poll`](super::Host::poll) when a wait ends.
    pub tag: u64,
    /// The thread is retrying a touch after a wait (the fault's entry was paid already).
    pub resumed: bool,
}

/// How a touch went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// The page is mapped; the thread's CPU work ended at this time.
    Ready(SimTime),
    /// The thread waits (for a read, a frame or the dirty throttle) after CPU work up to
    /// this time; its tag comes back from [`Host::poll`](super::Host::poll).
    Wait(SimTime),
}

/// The VM's counters, cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VmCounters {
    /// Faults that needed a read (`pgmajfault`).
    pub major_faults: u64,
    /// Faults that needed none.
    pub minor_faults: u64,
    /// Pages read from swap (`pswpin`).
    pub swap_in_pages: u64,
    /// Of those, pages read ahead of a fault.
    pub swap_readahead_pages: u64,
    /// Faults that found a page swap readahead brought in.
    pub swap_readahead_hits: u64,
    /// Pages written to swap (`pswpout`).
    pub swap_out_pages: u64,
    /// File pages read for faults and readahead.
    pub file_read_pages: u64,
    /// Of those, pages read ahead of a fault.
    pub file_readahead_pages: u64,
    /// Dirty file pages written back.
    pub file_writeback_pages: u64,
    /// Pages reclaim scanned.
    pub scanned_pages: u64,
    /// Pages reclaim freed.
    pub reclaimed_pages: u64,
    /// Times kswapd was woken.
    pub kswapd_wakeups: u64,
    /// Reclaim batches run by faulting threads.
    pub direct_reclaims: u64,
    /// Time threads waited for a free frame, ns.
    pub alloc_stall_ns: u64,
    /// Swap-map bytes the slot allocator examined.
    pub swap_map_scanned_bytes: u64,
    /// Time writers slept in the dirty throttle, ns.
    pub dirty_throttle_ns: u64,
    /// Read requests sent.
    pub read_requests: u64,
    /// Write requests sent.
    pub write_requests: u64,
}

/// Page states: the tag in the top two bits, a frame or slot below.
const TAG: u32 = 3 << 30;
const VALUE: u32 = (1 << 30) - 1;
/// Untouched anonymous page, or a hole of a sparse file.
const UNTOUCHED: u32 = 0;
const MAPPED: u32 = 1 << 30;
/// A file page in the page cache, not mapped.
const CACHED: u32 = 2 << 30;
/// An anonymous page's swap slot; a file page on the target.
const OUT: u32 = 3 << 30;

struct Mapping {
    base: u32,
    pages: u32,
    /// Where a file mapping's page 0 is on the target, bytes.
    file: Option<u64>,
    hint: Hint,
    ra: Readahead,
    mmap_miss: u32,
    swap_ra: SwapRaState,
}

/// What a VM request to the target carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IoKind {
    /// A read of swap slots `first..first + n`.
    SwapRead,
    /// A read of file pages (global numbers) `first..first + n`.
    FileRead,
    /// Reclaim's write of swap slots.
    SwapWrite,
    /// Writeback of file pages.
    FileWrite,
    /// An msync's device cache flush.
    Flush,
}

#[derive(Clone, Copy, Debug)]
struct VmIo {
    kind: IoKind,
    first: u32,
    n: u32,
    /// First thread waiting for it (an index into `waits`), or `NO_WAIT`.
    waiters: u32,
    /// The msync this write belongs to, or `NO_WAIT`.
    sync: u32,
}

const NO_WAIT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct WaitNode {
    tag: u64,
    next: u32,
}

#[derive(Clone, Copy, Debug)]
struct SyncWait {
    tag: u64,
    writes_left: u32,
}

/// VM events in the host's queue.
#[derive(Clone, Copy, Debug)]
pub(super) enum VmEvent {
    /// kswapd's next reclaim batch.
    Kswapd,
    /// A waiting thread may go on.
    Wake { tag: u64 },
}

/// The VM's state. See the module documentation.
pub(super) struct VmState {
    cfg: VmConfig,
    frames: Frames,
    pages: Vec<u32>,
    mappings: Vec<Mapping>,
    swap: Swap,
    locks: Locks,
    /// Lock ids: the global swap lock, then one per area; the global swap-cache lock, then
    /// one per area.
    areas_max: u16,
    wmark_min: u64,
    wmark_low: u64,
    wmark_high: u64,
    inactive_anon_ratio: u64,
    swap_ra: SwapRaState,
    ios: Slab<VmIo>,
    /// In-flight reads by first slot (swap) and first page (file); file writes by first page.
    swap_reads: BTreeMap<u32, u32>,
    file_reads: BTreeMap<u32, u32>,
    file_writes: BTreeMap<u32, u32>,
    waits: Slab<WaitNode>,
    syncs: Slab<SyncWait>,
    /// Threads waiting for a free frame, and since when.
    frame_waiters: VecDeque<(u64, SimTime)>,
    kswapd_core: CoreId,
    kswapd_running: bool,
    /// kswapd found nothing it could free: it sleeps until a write ends.
    kswapd_stalled: bool,
    /// Frames under reclaim's writes, freed when they end.
    reclaim_pending: u64,
    /// Deterministic share of scans between anonymous and file lists (Bresenham).
    scan_balance: u64,
    /// Dirty file pages not under writeback, in page order.
    dirty: BTreeSet<u32>,
    file_writeback: u64,
    writeback_in_flight: u32,
    writeback_cursor: u32,
    /// Reclaim met dirty file pages: the flusher writes regardless of the threshold.
    reclaim_wants_writeback: bool,
    bandwidth: WriteBandwidth,
    written_bytes: u64,
    /// Dirtied file pages per core since the last throttle check (`bdp_ratelimits`).
    dirtied: Vec<u32>,
    /// fio mmap-engine calls in progress.
    mmap_calls: Slab<mmap_io::MmapCall>,
    /// Counters.
    counters: VmCounters,
}

/// `SWAP_CLUSTER_MAX`: pages reclaim takes per batch.
pub const SWAP_CLUSTER_MAX: u64 = 32;

impl VmState {
    /// A VM with `memory_bytes` of frames (what the kernel and drivers leave).
    fn new(cfg: VmConfig, memory_bytes: u64, cores: u32) -> Self {
        let page = cfg.page_bytes;
        let usable = memory_bytes / page;
        let frames = u32::try_from(usable).unwrap_or(u32::MAX >> 2);
        // init_per_zone_wmark_min: min_free_kbytes = sqrt(lowmem_kbytes * 16), clamped.
        let lowmem_kb = u64::from(frames) * page / 1024;
        let min_free_kb = ((lowmem_kb * 16) as f64).sqrt() as u64;
        let min_free_kb = min_free_kb.clamp(128, cfg.min_free_kbytes_max);
        let min = min_free_kb * 1024 / page;
        // __setup_per_zone_wmarks.
        let step = if cfg.watermark_scale_factor == 0 {
            min / 4
        } else {
            (min / 4).max(u64::from(frames) * u64::from(cfg.watermark_scale_factor) / 10_000)
        };
        let (low, high) =
            if cfg.watermark_scale_factor == 0 { (min + min / 4, min + min / 2) } else { (min + step, min + 2 * step) };
        // calculate_zone_inactive_ratio: int_sqrt(10 * GB) for zones of a GiB or more.
        let gb = (u64::from(frames) * page) >> 30;
        let ratio = if gb == 0 { 1 } else { ((10 * gb) as f64).sqrt() as u64 };
        let swap = Swap::new(cfg.swap_allocator);
        let limits_cores = cores as usize;
        VmState {
            frames: Frames::new(frames),
            pages: Vec::new(),
            mappings: Vec::new(),
            swap,
            locks: Locks::new(2, cfg.lock_transfer),
            areas_max: 0,
            wmark_min: min,
            wmark_low: low,
            wmark_high: high,
            inactive_anon_ratio: ratio.max(1),
            swap_ra: SwapRaState::default(),
            ios: Slab::default(),
            swap_reads: BTreeMap::new(),
            file_reads: BTreeMap::new(),
            file_writes: BTreeMap::new(),
            waits: Slab::default(),
            syncs: Slab::default(),
            frame_waiters: VecDeque::new(),
            kswapd_core: CoreId(cores - 1),
            kswapd_running: false,
            kswapd_stalled: false,
            reclaim_pending: 0,
            scan_balance: 0,
            dirty: BTreeSet::new(),
            file_writeback: 0,
            writeback_in_flight: 0,
            writeback_cursor: 0,
            reclaim_wants_writeback: false,
            bandwidth: WriteBandwidth::default(),
            written_bytes: 0,
            dirtied: vec![0; limits_cores],
            mmap_calls: Slab::default(),
            counters: VmCounters::default(),
            cfg,
        }
    }

    /// The swap lock of the area holding `slot`.
    #[inline]
    fn swap_lock(&self, slot: u32) -> LockId {
        match self.cfg.swap_lock {
            LockScope::Global => LockId(0),
            LockScope::PerDevice => LockId(1 + self.swap.area_of(slot) as u16),
        }
    }

    /// The swap cache's lock for `slot`.
    #[inline]
    fn cache_lock(&self, slot: u32) -> LockId {
        let base = 1 + self.areas_max;
        match self.cfg.swap_cache_lock {
            LockScope::Global => LockId(base),
            LockScope::PerDevice => LockId(base + 1 + self.swap.area_of(slot) as u16),
        }
    }

    /// The mapping holding global page `g`.
    #[inline]
    fn mapping_of(&self, g: u32) -> usize {
        self.mappings.partition_point(|m| m.base <= g) - 1
    }

    /// `ra_pages`.
    fn ra_pages(&self) -> u64 {
        (self.cfg.read_ahead_bytes / self.cfg.page_bytes).max(1)
    }

    /// Largest request, pages.
    fn request_pages(&self) -> u64 {
        (self.cfg.max_request_bytes / self.cfg.page_bytes).max(1)
    }

    /// Whether slot `next` joins the run of `len` slots from `first` in one request (the
    /// plug): the next slot up, in the same swap area, within the request size.
    fn extends_run(&self, first: u32, len: u32, next: u32) -> bool {
        next == first + len
            && u64::from(len) < self.request_pages()
            && self.swap.area_of(next) == self.swap.area_of(first)
    }

    /// How many slots from the start of `slots` go in one request ([`Self::extends_run`]).
    fn slot_run(&self, slots: &[u32]) -> u32 {
        let mut len = 1;
        while (len as usize) < slots.len() && self.extends_run(slots[0], len, slots[len as usize]) {
            len += 1;
        }
        len
    }

    /// Pages `MADV_WILLNEED` reads of a file range of `pages`.
    fn willneed_file_pages(&self, pages: u64) -> u64 {
        let cap = match self.cfg.willneed_file_limit {
            WillneedLimit::HalfFreeAndInactive => {
                u64::midpoint(self.frames.free_count(), self.frames.len(frames::Lru::InactiveFile))
            }
            WillneedLimit::TwoMib => (2 << 20) / self.cfg.page_bytes,
            WillneedLimit::Window => (self.cfg.read_ahead_bytes / self.cfg.page_bytes).max(self.request_pages()),
        };
        pages.min(cap)
    }

    /// Pages of file memory (the file LRU lists), for the dirty limits.
    fn file_pages(&self) -> u64 {
        self.frames.len(frames::Lru::InactiveFile) + self.frames.len(frames::Lru::ActiveFile)
    }

    /// The dirty limits now: `global_dirtyable_memory` is free plus file pages.
    fn dirty_limits(&self) -> DirtyLimits {
        let dirtyable = self.frames.free_count() + self.file_pages();
        DirtyLimits::new(dirtyable, self.cfg.dirty_background_ratio, self.cfg.dirty_ratio)
    }

    /// Checks the VM's bookkeeping (tests).
    fn check(&self) {
        self.frames.check();
        let mut mapped_or_cached = 0u64;
        for (g, &st) in self.pages.iter().enumerate() {
            match st & TAG {
                MAPPED | CACHED => {
                    let f = st & VALUE;
                    assert_eq!(self.frames.owner[f as usize], g as u32, "page {g}'s frame {f} belongs to it");
                    assert_eq!(self.frames.has(f, frames::MAPPED), st & TAG == MAPPED);
                    mapped_or_cached += 1;
                }
                OUT if self.mappings[self.mapping_of(g as u32)].file.is_none() => {
                    assert!(self.swap.in_use(st & VALUE), "page {g}'s slot is in use");
                }
                _ => {}
            }
        }
        let swap_cached: u64 = self.swap.areas.iter().map(|a| a.cache.iter().filter(|&&c| c != 0).count() as u64).sum();
        let used = self.frames.total() - self.frames.free_count();
        // Every frame in use holds a mapped/cached page, or a swap-cache page not mapped.
        assert!(
            used <= mapped_or_cached + swap_cached,
            "{used} frames in use, {mapped_or_cached} pages + {swap_cached} swap cache"
        );
    }
}

impl<D: BlockDevice> Host<D> {
    /// Whether this host models virtual memory (its profile has `[vm]`).
    pub fn has_vm(&self) -> bool {
        self.config.vm.is_some()
    }

    /// Whether virtual memory is in use: a mapping or a swap area made it, and kswapd may
    /// book work on a core of its own.
    pub fn vm_in_use(&self) -> bool {
        self.vm.is_some()
    }

    /// The VM, made on first use (its frame table is as large as the machine's DRAM).
    fn vm(&mut self) -> &mut VmState {
        if self.vm.is_none() {
            let cfg = self.config.vm.clone().expect("the caller checks has_vm");
            let pages = self
                .vm_memory_bytes
                .unwrap_or_else(|| self.config.dram_bytes.saturating_sub(cfg.kernel_reserved_bytes));
            let memory = pages.saturating_sub(self.driver_memory_bytes);
            self.vm = Some(Box::new(VmState::new(cfg, memory, self.config.cores)));
        }
        self.vm.as_mut().expect("made above")
    }

    /// Host DRAM the target's drivers keep for themselves, bytes.
    pub fn driver_memory_bytes(&self) -> u64 {
        self.driver_memory_bytes
    }

    /// Sets the memory the kernel leaves for pages (DRAM less its own reserve), bytes,
    /// instead of the profile's; the drivers' memory still comes off it. Call before the
    /// VM is first used (later calls change nothing).
    pub fn set_vm_memory(&mut self, bytes: u64) {
        if self.vm.is_none() {
            self.vm_memory_bytes = Some(bytes);
        }
    }

    /// Frames of DRAM the VM manages (DRAM less the kernel's reserve and the drivers'
    /// memory), and its watermarks `(min, low, high)`, in pages.
    pub fn vm_frames(&mut self) -> (u64, (u64, u64, u64)) {
        let vm = self.vm();
        (vm.frames.total(), (vm.wmark_min, vm.wmark_low, vm.wmark_high))
    }

    /// `swapon` of `bytes` at `offset_bytes` on the target, after the areas given before
    /// (all of one priority, used in turn).
    pub fn vm_swapon(&mut self, offset_bytes: u64, bytes: u64) {
        let cores = self.config.cores;
        let vm = self.vm();
        let slots = u32::try_from(bytes / vm.cfg.page_bytes).unwrap_or(VALUE).min(VALUE);
        vm.swap.add_area(slots, offset_bytes, cores);
        let areas = vm.swap.areas.len() as u16;
        vm.areas_max = areas;
        // Global + per-area swap locks, then the same for the swap cache.
        vm.locks = Locks::new(2 * (1 + usize::from(areas)), vm.cfg.lock_transfer);
    }

    /// Maps `pages` pages backed by `backing`; returns the mapping.
    pub fn vm_map(&mut self, pages: u64, backing: Backing) -> MappingId {
        let vm = self.vm();
        let base = vm.pages.len() as u32;
        let n = u32::try_from(pages).expect("mappings hold fewer than 2^32 pages");
        let whole = vm.cfg.whole_window_async;
        let (file, initial) = match backing {
            Backing::Anon => (None, UNTOUCHED),
            Backing::File { offset_bytes, sparse } => (Some(offset_bytes), if sparse { UNTOUCHED } else { OUT }),
        };
        vm.pages.resize(vm.pages.len() + n as usize, initial);
        vm.mappings.push(Mapping {
            base,
            pages: n,
            file,
            hint: Hint::Normal,
            ra: if whole { Readahead::whole_async() } else { Readahead::default() },
            mmap_miss: 0,
            swap_ra: SwapRaState::default(),
        });
        MappingId(vm.mappings.len() as u32 - 1)
    }

    /// Pages of mapping `m`.
    pub fn vm_mapping_pages(&mut self, m: MappingId) -> u64 {
        u64::from(self.vm().mappings[m.0 as usize].pages)
    }

    /// The VM's counters.
    pub fn vm_counters(&self) -> VmCounters {
        self.vm.as_ref().map(|v| v.counters).unwrap_or_default()
    }

    /// The swap locks' totals.
    pub fn vm_lock_totals(&self) -> LockTotals {
        self.vm.as_ref().map(|v| v.locks.totals()).unwrap_or_default()
    }

    /// Pages of mapping `m` resident (mapped or cached) now.
    pub fn vm_resident_pages(&self, m: MappingId) -> u64 {
        let Some(vm) = self.vm.as_ref() else { return 0 };
        let mp = &vm.mappings[m.0 as usize];
        let range = mp.base as usize..(mp.base + mp.pages) as usize;
        vm.pages[range].iter().filter(|&&s| matches!(s & TAG, MAPPED | CACHED)).count() as u64
    }

    /// Free frames now.
    pub fn vm_free_frames(&self) -> u64 {
        self.vm.as_ref().map_or(0, |v| v.frames.free_count())
    }

    /// Checks the VM's bookkeeping: lists, page states, swap slots (tests).
    pub fn vm_check(&self) {
        if let Some(vm) = self.vm.as_ref() {
            vm.check();
        }
    }

    /// The VM's counters under `prefix`.
    pub(super) fn vm_counters_into(&self, prefix: &str, out: &mut CounterRow) {
        let Some(vm) = self.vm.as_ref() else { return };
        let c = &vm.counters;
        let page = vm.cfg.page_bytes;
        out.total(prefix, "major_faults", c.major_faults);
        out.total(prefix, "minor_faults", c.minor_faults);
        out.total(prefix, "swap_in_bytes", c.swap_in_pages * page);
        out.total(prefix, "swap_readahead_bytes", c.swap_readahead_pages * page);
        out.total(prefix, "swap_readahead_hits", c.swap_readahead_hits);
        out.total(prefix, "swap_out_bytes", c.swap_out_pages * page);
        out.total(prefix, "mmap_read_bytes", c.file_read_pages * page);
        out.total(prefix, "mmap_readahead_bytes", c.file_readahead_pages * page);
        out.total(prefix, "mmap_writeback_bytes", c.file_writeback_pages * page);
        out.total(prefix, "reclaim_scanned_pages", c.scanned_pages);
        out.total(prefix, "reclaimed_pages", c.reclaimed_pages);
        out.total(prefix, "kswapd_wakeups", c.kswapd_wakeups);
        out.total(prefix, "direct_reclaims", c.direct_reclaims);
        out.total(prefix, "alloc_stall_ns", c.alloc_stall_ns);
        out.total(prefix, "swap_map_scanned_bytes", c.swap_map_scanned_bytes);
        out.total(prefix, "vm_dirty_throttle_ns", c.dirty_throttle_ns);
        let l = vm.locks.totals();
        out.total(prefix, "swap_lock_acquisitions", l.acquisitions);
        out.total(prefix, "swap_lock_spin_ns", l.spin_ns);
        out.total(prefix, "swap_lock_held_ns", l.held_ns);
        out.level(prefix, "free_bytes", vm.frames.free_count() * page);
        out.level(prefix, "swap_used_bytes", vm.swap.used_slots() * page);
    }

    /// Fills mapping `m` at once, in the state a single thread's sequential first-touch
    /// write of every page leaves (untimed; the target's writes take simulated time, as a
    /// file layout's do): the last pages touched are resident, as many as fit above the
    /// high watermark, the anonymous ones dirty (no slot), the file ones clean (written
    /// back); the earlier ones were reclaimed in touch order — anonymous pages to swap slots
    /// the allocator hands out on kswapd's CPU, file pages to the file — and the target
    /// holds their data. Resident anonymous pages sit on the LRU as kswapd leaves them (the
    /// oldest on the inactive list up to `inactive_is_low`'s ratio), file pages on the
    /// inactive list in touch order.
    pub fn vm_populate(&mut self, m: MappingId) {
        let page_bytes = self.vm().cfg.page_bytes;
        let vm = self.vm.as_mut().expect("made by vm()");
        let mp = &vm.mappings[m.0 as usize];
        let (base, n, file) = (mp.base, mp.pages, mp.file);
        let room = vm.frames.free_count().saturating_sub(vm.wmark_high).min(u64::from(n)) as u32;
        let evicted = n - room;
        let kcore = vm.kswapd_core.0 as usize;
        let mut writes: Vec<(u64, u64)> = Vec::new();
        let push_run = |writes: &mut Vec<(u64, u64)>, at: u64, bytes: u64| match writes.last_mut() {
            Some((o, b)) if *o + *b == at => *b += bytes,
            _ => writes.push((at, bytes)),
        };
        for i in 0..evicted {
            let g = base + i;
            match file {
                None => {
                    let a = vm.swap.alloc(kcore).expect("swap has room for the mapping");
                    vm.counters.swap_map_scanned_bytes += a.scanned;
                    vm.counters.swap_out_pages += 1;
                    vm.pages[g as usize] = OUT | a.slot;
                    push_run(&mut writes, vm.swap.offset_bytes(a.slot, page_bytes), page_bytes);
                }
                Some(_) => vm.pages[g as usize] = OUT,
            }
        }
        if let Some(offset) = file {
            writes.push((offset, u64::from(n) * page_bytes));
        }
        let anon = file.is_none();
        let inactive = if anon { u64::from(room) / (1 + vm.inactive_anon_ratio) } else { u64::from(room) };
        for i in 0..room {
            let g = base + evicted + i;
            let flags = frames::MAPPED | if anon { frames::ANON | frames::DIRTY } else { 0 };
            let f = vm.frames.alloc(g, flags).expect("room was counted");
            let active = u64::from(i) >= inactive;
            vm.frames.push_head(frames::Lru::of(anon, active), f);
            vm.pages[g as usize] = MAPPED | f;
        }
        self.write_untimed(&writes);
    }

    /// Writes `(offset, bytes)` runs straight to the target, a few large commands in
    /// flight, and waits for them: untimed preparation (simulated time passes).
    fn write_untimed(&mut self, runs: &[(u64, u64)]) {
        const CHUNK: u64 = 1 << 20;
        const DEPTH: u32 = 32;
        let geometry = self.device.geometry();
        let lba = geometry.lba_bytes;
        let chunk = CHUNK.min(geometry.max_transfer_bytes).max(lba) / lba * lba;
        let mut pieces = runs.iter().flat_map(|&(start, bytes)| {
            (start..start + bytes).step_by(chunk as usize).map(move |at| (at, chunk.min(start + bytes - at)))
        });
        let mut next = pieces.next();
        loop {
            while self.device.in_flight() < DEPTH
                && let Some((at, bytes)) = next
            {
                let command = Command::new(Opcode::Write, at / lba, (bytes / lba) as u32);
                let now = self.device.now();
                self.device.submit(now, command, 0).expect("VM writes stay within the target");
                next = pieces.next();
            }
            if self.device.in_flight() == 0 {
                return;
            }
            self.device.poll();
        }
    }

    /// A VM event at `at`; returns the thread it wakes, if any.
    pub(super) fn vm_event(&mut self, at: SimTime, event: VmEvent) -> Option<super::IoDone> {
        match event {
            VmEvent::Kswapd => {
                self.kswapd_batch(at);
                None
            }
            VmEvent::Wake { tag } => {
                self.in_flight -= 1;
                if tag & mmap_io::MMAP_CALL != 0 {
                    self.mmap_step(at, (tag & 0xFFFF_FFFF) as u32, true);
                    return None;
                }
                Some(super::IoDone { tag, device_done: at, visible: at })
            }
        }
    }

    /// Makes the thread with `tag` go on at `at` (through the host's queue).
    fn vm_wake(&mut self, at: SimTime, tag: u64) {
        self.events.push(at, super::Event::Vm(VmEvent::Wake { tag }));
    }
}

#[cfg(test)]
mod tests;
