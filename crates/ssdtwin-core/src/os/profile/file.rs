//! The host profile file as written: TOML sections mirroring `docs/profiles.md`. These
//! structs only describe the file; [`super::build_host`] checks every value. Unknown fields
//! are errors, so a typo never falls back to a default.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A host profile file as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostProfile {
    /// What the machine is.
    pub host: HostSection,
    /// Its CPU and memory.
    pub cpu: CpuSection,
    /// Kernel-wide costs and policies.
    #[serde(default)]
    pub kernel: KernelSection,
    /// The block layer and the NVMe driver.
    #[serde(default)]
    pub block: BlockSection,
    /// fio's own user-space work per I/O.
    #[serde(default)]
    pub fio: FioSection,
    /// I/O engines the OS offers, by fio's name.
    #[serde(default)]
    pub engines: BTreeMap<String, EngineSection>,
    /// File systems, by name.
    #[serde(default)]
    pub fs: BTreeMap<String, FsSection>,
    /// The page cache for buffered I/O (`direct=0`); absent, the host has none and
    /// buffered jobs are refused.
    #[serde(default)]
    pub page_cache: Option<PageCacheSection>,
    /// Virtual memory (swap, mmap, reclaim); absent, memory workloads and fio's mmap engine
    /// are refused.
    #[serde(default)]
    pub vm: Option<VmSection>,
    /// DRAM bandwidth and compute rates for workloads that run on memory.
    #[serde(default)]
    pub memory: Option<MemorySection>,
    /// Block drivers other than the default NVMe path, by the name a drive profile's
    /// `[host_interface] driver` gives: their costs replace `[block]`'s for that device.
    #[serde(default)]
    pub drivers: BTreeMap<String, DriverSection>,
}

/// `[vm]`: the kernel's virtual-memory policies, with the sysctl and source names, and its
/// CPU costs on the reference core (ns).
// Each flag is one kernel era's switch, named as the kernel names it.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VmSection {
    /// Page size, bytes.
    #[serde(default = "default_page_bytes")]
    pub page_bytes: u64,
    /// DRAM the kernel and the rest of the system keep, MiB.
    pub kernel_reserved_mib: u64,
    /// Upper clamp of `min_free_kbytes` in `init_per_zone_wmark_min`, KiB.
    pub min_free_kbytes_max: u64,
    /// `vm.watermark_scale_factor` (0: the pre-4.6 watermarks, min + ¼ and min + ½ min).
    #[serde(default)]
    pub watermark_scale_factor: u32,
    /// `vm.swappiness`.
    pub swappiness: u32,
    /// `vm.page-cluster` (log2 of the swap readahead window), 0 to 6.
    pub page_cluster: u32,
    /// `cluster-fixed` (3.6), `cluster-adaptive` (3.15+) or `vma` (4.14+).
    pub swap_readahead: String,
    /// `global` (3.6's `swap_lock`) or `per-device` (3.9's per-area lock).
    pub swap_lock: String,
    /// `global` (one swap-cache `address_space`) or `per-device` (one per area, 3.9+).
    pub swap_cache_lock: String,
    /// `scan` (3.6 `scan_swap_map`), `clusters` (3.12) or `per-cpu-clusters` (3.14).
    pub swap_allocator: String,
    /// `fault_around_bytes` in KiB (0: none, as before 3.15).
    #[serde(default)]
    pub fault_around_kb: u64,
    /// `MADV_WILLNEED` prefetches swapped-out pages (3.9+).
    #[serde(default)]
    pub madvise_willneed_swap: bool,
    /// What `MADV_WILLNEED` reads of a file range: `half-free-and-inactive` (before 3.15),
    /// `2mib` (3.15 to 4.9) or `window` (4.10+).
    #[serde(default = "default_willneed_file_limit")]
    pub madvise_willneed_file_limit: String,
    /// Reclaim ignores accessed bits in `MADV_SEQUENTIAL` mappings.
    pub sequential_ignores_references: bool,
    /// Reclaim ignores accessed bits in `MADV_RANDOM` mappings (6.3+).
    #[serde(default)]
    pub random_ignores_references: bool,
    /// New anonymous pages start on the active list (before 5.9).
    pub new_anon_active: bool,
    /// The backing device's `read_ahead_kb` (mmap's `ra_pages`).
    pub read_ahead_kb: u64,
    /// A synchronous readahead window no larger than its request is all asynchronous
    /// (`ra->async_size = ra->size`), not half of it.
    pub whole_window_async: bool,
    /// `vm.dirty_background_ratio`, percent.
    pub dirty_background_ratio: u32,
    /// `vm.dirty_ratio`, percent.
    pub dirty_ratio: u32,
    /// Writeback requests of dirty file pages in flight.
    pub writeback_depth: u32,
    /// Exception entry and exit plus the page-table walk of a fault.
    pub fault_ns: u64,
    /// Allocating and zeroing a new anonymous page.
    pub zero_page_ns: u64,
    /// `do_swap_page` beyond the walk.
    pub swapin_fault_ns: u64,
    /// `filemap_fault` (and `page_mkwrite`) beyond the walk.
    pub file_fault_ns: u64,
    /// Mapping one cached page by fault-around.
    #[serde(default)]
    pub map_page_ns: u64,
    /// Reclaim per page scanned.
    pub scan_page_ns: u64,
    /// Reclaim per page unmapped (`try_to_unmap`, TLB flush).
    pub unmap_page_ns: u64,
    /// One swap-lock critical section.
    pub swap_lock_hold_ns: u64,
    /// One swap-cache insertion or deletion under its lock.
    pub swap_cache_hold_ns: u64,
    /// Moving a lock's cache line to another core.
    pub lock_transfer_ns: u64,
    /// The slot allocator's swap-map scan, per KiB examined.
    pub swap_map_scan_ns_per_kib: u64,
}

/// `[memory]`: what the machine's DRAM and cores sustain on workloads that run on memory.
/// These are the machine's own rates, not scaled by `cpu.speed_factor`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MemorySection {
    /// One core streaming through DRAM, bytes counted as STREAM counts them, MB/s (10⁶ B).
    pub core_bandwidth_mbps: f64,
    /// Every core together (the memory controllers' limit), MB/s.
    pub socket_bandwidth_mbps: f64,
    /// One core's sustained double-precision rate on stencil code, MFLOPS.
    pub core_mflops: f64,
}

/// `[drivers.NAME]`: a block driver's costs on the reference core, ns.
// Units are in field names (STYLE.md), so every one ends in `_ns`.
#[allow(clippy::struct_field_names)]
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DriverSection {
    /// One request from bio to device.
    pub submit_ns: u64,
    /// One request's completion.
    pub complete_ns: u64,
    /// Per 4 KiB unit of a request (a host-side FTL's map lookup and update).
    #[serde(default)]
    pub unit_ns: u64,
}

/// `[page_cache]`: Linux's page cache, readahead and writeback, with the kernel's sysctl
/// names; CPU costs on the reference core.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PageCacheSection {
    /// Page size, bytes.
    #[serde(default = "default_page_bytes")]
    pub page_bytes: u64,
    /// Memory file pages may use, GiB: DRAM less the kernel and the applications' anonymous
    /// memory (free plus file pages, what `global_dirtyable_memory` counts).
    pub memory_gib: f64,
    /// `read_ahead_kb` of the block device.
    pub read_ahead_kb: u64,
    /// `vm.dirty_background_ratio`, percent.
    pub dirty_background_ratio: u32,
    /// `vm.dirty_ratio`, percent.
    pub dirty_ratio: u32,
    /// `vm.dirty_writeback_centisecs`.
    pub dirty_writeback_centisecs: u64,
    /// `vm.dirty_expire_centisecs`.
    pub dirty_expire_centisecs: u64,
    /// Background writeback requests in flight (blk-wbt's background limit).
    pub writeback_background_depth: u32,
    /// Writeback requests in flight for fsync and `O_SYNC` writes (blk-wbt's normal limit).
    pub writeback_sync_depth: u32,
    /// Copy to or from user memory, ns per KiB.
    pub copy_ns_per_kib: u64,
    /// Per page a read finds or adds (lookup, LRU marking), ns.
    pub read_page_ns: u64,
    /// Per page written (`write_begin`/`write_end`, dirty accounting), ns.
    pub write_page_ns: u64,
}

pub(super) fn default_willneed_file_limit() -> String {
    "window".into()
}

pub(super) fn default_page_bytes() -> u64 {
    4096
}

/// `[host]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostSection {
    /// One line describing the machine and kernel.
    pub description: String,
    /// Operating system family: `linux`, `freebsd`, `windows`, or `none` (no host).
    pub os: String,
    /// Kernel release, e.g. `6.1` (informational; era switches are explicit fields).
    #[serde(default)]
    pub kernel: String,
    /// The file system files named by jobs live on (a key of `[fs]`).
    #[serde(default)]
    pub default_fs: Option<String>,
    /// Sources of the costs, one per entry.
    #[serde(default)]
    pub sources: Vec<String>,
}

/// `[cpu]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CpuSection {
    /// CPU model, for reports.
    #[serde(default)]
    pub model: String,
    /// Cores threads can run on (SMT siblings not counted).
    pub cores: u32,
    /// Speed of one core relative to the reference core the costs are written for.
    #[serde(default = "one")]
    pub speed_factor: f64,
    /// DRAM, GiB (page cache, ARC and virtual memory budgets come from it).
    pub dram_gib: f64,
    /// NUMA nodes (sockets); the cores are split evenly between them, in order.
    #[serde(default = "one_node")]
    pub numa_nodes: u32,
}

pub(super) fn one_node() -> u32 {
    1
}

pub(super) fn one() -> f64 {
    1.0
}

pub(super) fn yes() -> bool {
    true
}

/// `[kernel]`: costs on the reference core, ns, and policies.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct KernelSection {
    /// System call entry and exit (with the era's mitigations).
    #[serde(default)]
    pub syscall_ns: u64,
    /// Interrupt entry and exit, once per interrupt (completions arriving while one is
    /// handled share it).
    #[serde(default)]
    pub irq_ns: u64,
    /// A blocked thread woken and switched back in (one context switch each way).
    #[serde(default)]
    pub wakeup_ns: u64,
    /// How much one I/O call's CPU work differs from the next (coefficient of variation of a
    /// log-normal factor on fio's preparation or accounting, the system call and the block
    /// layer: caches, branch history, lock and tag contention).
    #[serde(default)]
    pub call_cv: f64,
    /// Chance that an I/O call is held up by other work on its core (an interrupt, a
    /// softirq, the timer tick), for `preempt_us` on average.
    #[serde(default)]
    pub call_preempt_chance: f64,
    /// How much one wakeup differs from the next (coefficient of variation of a log-normal
    /// factor on `wakeup_ns`: the idle state the core left, caches, the scheduler's path).
    #[serde(default)]
    pub wakeup_cv: f64,
    /// Chance that a woken thread finds its core busy (another task, a softirq, the timer
    /// tick) and waits for it to be done.
    #[serde(default)]
    pub preempt_chance: f64,
    /// The mean of a wait for a busy core, a woken thread's or a call's, µs (exponentially
    /// distributed).
    #[serde(default)]
    pub preempt_us: f64,
    /// How late a sleep's high-resolution timer may fire, µs (Linux `timer_slack_ns`, 50 µs
    /// for a normal thread): a quiet core has no other expiry to batch it with, so a sleep
    /// ends this late.
    #[serde(default)]
    pub timer_slack_us: f64,
    /// The timer tick sleeps end on, µs (0: high-resolution timers; Windows' `Sleep` ends
    /// on the system timer's period).
    #[serde(default)]
    pub timer_tick_us: f64,
    /// Cap on the Host Memory Buffer the NVMe driver grants, MiB (`None`: what the drive
    /// prefers). Linux: `max_host_mem_size_mb`, default 128.
    #[serde(default)]
    pub nvme_hmb_cap_mib: Option<u32>,
    /// NVMe interrupt coalescing the driver sets (Feature 08h), aggregation time, µs: a
    /// multiple of 100 up to 25 500; 0 (the reset value, and Linux's) is off.
    #[serde(default)]
    pub nvme_int_coalesce_time_us: u32,
    /// Aggregation threshold as the feature takes it: entries per interrupt less one (0–255;
    /// 0 is off).
    #[serde(default)]
    pub nvme_int_coalesce_thr: u32,
    /// How the NVMe driver programs Autonomous Power State Transitions: "off", "heuristic"
    /// (Linux before 2021: 50 × each state's latency) or "timeouts" (later Linux: the
    /// `apst_primary_*` and `apst_secondary_*` parameters below).
    #[serde(default = "default_apst")]
    pub nvme_apst: String,
    /// States whose exit latency exceeds this are not used, µs (Linux
    /// `default_ps_max_latency_us`, 100000; 0 turns APST off).
    #[serde(default = "default_ps_max_latency")]
    pub nvme_ps_max_latency_us: u64,
    /// Idle time before the primary state, ms (`apst_primary_timeout_ms`, 100).
    #[serde(default = "default_primary_timeout")]
    pub nvme_apst_primary_timeout_ms: u64,
    /// A primary state's entry + exit latency is at most this, µs
    /// (`apst_primary_latency_tol_us`, 15000).
    #[serde(default = "default_primary_tolerance")]
    pub nvme_apst_primary_latency_tol_us: u64,
    /// Idle time before the secondary state, ms (`apst_secondary_timeout_ms`, 2000; 0: none).
    #[serde(default = "default_secondary_timeout")]
    pub nvme_apst_secondary_timeout_ms: u64,
    /// A secondary state's entry + exit latency is at most this, µs
    /// (`apst_secondary_latency_tol_us`, 100000).
    #[serde(default = "default_secondary_tolerance")]
    pub nvme_apst_secondary_latency_tol_us: u64,
}

impl Default for KernelSection {
    fn default() -> Self {
        toml::from_str("").expect("every kernel field has a default")
    }
}

pub(super) fn default_apst() -> String {
    "off".into()
}
pub(super) fn default_ps_max_latency() -> u64 {
    100_000
}
pub(super) fn default_primary_timeout() -> u64 {
    100
}
pub(super) fn default_primary_tolerance() -> u64 {
    15_000
}
pub(super) fn default_secondary_timeout() -> u64 {
    2000
}
pub(super) fn default_secondary_tolerance() -> u64 {
    100_000
}

/// `[block]`: the block layer and the NVMe driver, costs on the reference core, ns.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSection {
    /// One request from bio to doorbell (blk-mq, `nvme_queue_rq`).
    #[serde(default)]
    pub submit_ns: u64,
    /// One request's completion in interrupt context (`nvme_handle_cqe`,
    /// `blk_mq_complete_request`, bio end).
    #[serde(default)]
    pub complete_ns: u64,
    /// Largest request the block layer sends, KiB (`max_sectors_kb`; the device's MDTS
    /// caps it further).
    #[serde(default = "default_max_sectors_kb")]
    pub max_sectors_kb: u64,
}

impl Default for BlockSection {
    fn default() -> Self {
        BlockSection { submit_ns: 0, complete_ns: 0, max_sectors_kb: default_max_sectors_kb() }
    }
}

pub(super) fn default_max_sectors_kb() -> u64 {
    1280
}

/// `[fio]`: fio's user-space work, on the reference core, ns.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FioSection {
    /// Per I/O before submission (`get_io_u`, offset and size, buffer).
    #[serde(default)]
    pub prep_ns: u64,
    /// Per I/O after completion (latency accounting).
    #[serde(default)]
    pub complete_ns: u64,
}

/// `[engines.NAME]`: one I/O engine's costs on the reference core, ns.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSection {
    /// How the engine waits: `sync` (each I/O blocks its thread), `async` (a queue of
    /// I/Os, submitted and reaped in batches), or `kernel-callback` (a kernel thread whose
    /// completion handler issues the next command: FreeBSD's `nvmecontrol perftest -i intr`).
    pub kind: String,
    /// Whether I/O goes through the block layer (its `submit_ns` and `complete_ns`
    /// apply); false for engines that call the driver directly.
    #[serde(default = "yes")]
    pub block_layer: bool,
    /// Whether the engine runs in a user-space program whose own work per I/O is fio's
    /// (`[fio]`); false for kernel threads.
    #[serde(default = "yes")]
    pub user_space: bool,
    /// Per submit call (system call and engine set-up).
    #[serde(default)]
    pub submit_call_ns: u64,
    /// Per I/O in a submit call, on top of the block layer's `submit_ns`.
    #[serde(default)]
    pub submit_io_ns: u64,
    /// Per reap call (`io_getevents`, `GetQueuedCompletionStatusEx`; 0 where completions
    /// are read from a shared ring).
    #[serde(default)]
    pub reap_call_ns: u64,
    /// Per completion reaped.
    #[serde(default)]
    pub reap_io_ns: u64,
    /// Per completion in interrupt context, on top of the block layer's `complete_ns`.
    #[serde(default)]
    pub complete_io_ns: u64,
    /// Per dispatch, an extra non-blocking reap call (`DiskSpd`'s lookaside with `-L`).
    #[serde(default)]
    pub lookaside_call_ns: u64,
    /// With `hipri`: per completion found by polling, instead of the interrupt path.
    /// Absent: the engine cannot poll.
    #[serde(default)]
    pub poll_io_ns: Option<u64>,
    /// With `fixedbufs`: saved per I/O (no page pinning).
    #[serde(default)]
    pub fixedbufs_saving_ns: u64,
    /// With `registerfiles`: saved per I/O (no file-table lookup).
    #[serde(default)]
    pub registerfiles_saving_ns: u64,
}

/// `[fs.NAME]`: a file system's costs on the reference core, ns.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FsSection {
    /// Per direct (`O_DIRECT`) I/O on a file, on top of the raw device path.
    #[serde(default)]
    pub direct_io_ns: u64,
    /// Per buffered read or write call on a file, on top of the page-cache work.
    #[serde(default)]
    pub buffered_io_ns: u64,
}
