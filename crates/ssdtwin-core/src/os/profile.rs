//! Host profiles: a machine and its operating system, as a TOML file
//! (`profiles/hosts/NAME.toml`), checked into a [`HostConfig`].
//!
//! A host profile gives the CPU (cores, a speed factor, DRAM), the kernel's per-operation
//! CPU costs (system call, interrupt, wakeup, block-layer submit and complete), the cost of
//! each I/O engine the OS offers, file-system costs, and kernel policies (HMB cap, readahead,
//! dirty-page thresholds). Costs are written for a reference core (`speed_factor = 1.0`, see
//! `docs/profiles.md`) and divided by the profile's speed factor when built, so one
//! `--set cpu.speed_factor=…` moves every cost together. Every value carries its source in
//! the shipped files' comments. The `none` profile has no costs at all: the bare twin.

use crate::engine::SimDuration;
use crate::nvme::ApstPolicy;
use crate::profile_file::{self, Checker, LoadedProfile, ProfileError, apply_overrides, parse_error};
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

fn default_willneed_file_limit() -> String {
    "window".into()
}

fn default_page_bytes() -> u64 {
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

fn one_node() -> u32 {
    1
}

fn one() -> f64 {
    1.0
}

fn yes() -> bool {
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
    /// Cap on the Host Memory Buffer the NVMe driver grants, MiB (`None`: what the drive
    /// prefers). Linux: `max_host_mem_size_mb`, default 128.
    #[serde(default)]
    pub nvme_hmb_cap_mib: Option<u32>,
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

fn default_apst() -> String {
    "off".into()
}
fn default_ps_max_latency() -> u64 {
    100_000
}
fn default_primary_timeout() -> u64 {
    100
}
fn default_primary_tolerance() -> u64 {
    15_000
}
fn default_secondary_timeout() -> u64 {
    2000
}
fn default_secondary_tolerance() -> u64 {
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

fn default_max_sectors_kb() -> u64 {
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

/// How an engine's thread waits for its I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// One I/O at a time; the thread blocks in the system call.
    Sync,
    /// A queue of I/Os submitted and reaped in batches.
    Async,
    /// Kernel threads whose completion handler issues the next command itself.
    KernelCallback,
}

/// One engine, built: costs already divided by the speed factor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCosts {
    /// fio's name.
    pub name: String,
    /// How it waits.
    pub kind: EngineKind,
    /// Goes through the block layer.
    pub block_layer: bool,
    /// Runs in a user-space program (fio's own costs apply).
    pub user_space: bool,
    /// Per submit call.
    pub submit_call: SimDuration,
    /// Per I/O submitted (engine part).
    pub submit_io: SimDuration,
    /// Per reap call.
    pub reap_call: SimDuration,
    /// Per I/O reaped.
    pub reap_io: SimDuration,
    /// Per completion in interrupt context (engine part).
    pub complete_io: SimDuration,
    /// Per dispatch lookaside reap call.
    pub lookaside_call: SimDuration,
    /// Per completion found by polling, if the engine can poll.
    pub poll_io: Option<SimDuration>,
    /// Saved per I/O with `fixedbufs`.
    pub fixedbufs_saving: SimDuration,
    /// Saved per I/O with `registerfiles`.
    pub registerfiles_saving: SimDuration,
}

/// A file system, built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsCosts {
    /// Name.
    pub name: String,
    /// Per direct I/O.
    pub direct_io: SimDuration,
    /// Per buffered call.
    pub buffered_io: SimDuration,
}

/// A validated host.
#[derive(Clone, Debug, PartialEq)]
pub struct HostConfig {
    /// Profile name (`none` for the bare twin).
    pub name: String,
    /// Where it came from.
    pub source: String,
    /// The resolved profile as TOML.
    pub profile_toml: String,
    /// Description.
    pub description: String,
    /// OS family.
    pub os: String,
    /// Cores.
    pub cores: u32,
    /// Speed of a core relative to the reference core; every cost is already divided by it.
    pub speed_factor: f64,
    /// NUMA nodes; node `n` has cores `n·cores/nodes` to `(n+1)·cores/nodes − 1`.
    pub numa_nodes: u32,
    /// DRAM, bytes.
    pub dram_bytes: u64,
    /// System call entry and exit.
    pub syscall: SimDuration,
    /// Interrupt entry and exit.
    pub irq: SimDuration,
    /// Wakeup of a blocked thread.
    pub wakeup: SimDuration,
    /// HMB cap, bytes (`None`: no cap).
    pub nvme_hmb_cap_bytes: Option<u64>,
    /// How the NVMe driver builds the APST table.
    pub nvme_apst: HostApst,
    /// Block-layer submit per request.
    pub block_submit: SimDuration,
    /// Block-layer completion per request.
    pub block_complete: SimDuration,
    /// Largest request the block layer sends, bytes.
    pub max_request_bytes: u64,
    /// fio per I/O before submission.
    pub fio_prep: SimDuration,
    /// fio per I/O after completion.
    pub fio_complete: SimDuration,
    /// Engines by name, in name order.
    pub engines: Vec<EngineCosts>,
    /// File systems by name, in name order.
    pub file_systems: Vec<FsCosts>,
    /// The file system job files live on.
    pub default_fs: Option<String>,
    /// The page cache, if the host models one.
    pub page_cache: Option<crate::os::PageCacheConfig>,
    /// Virtual memory, if the host models it.
    pub vm: Option<crate::os::vm::VmConfig>,
    /// DRAM and compute rates, if given.
    pub memory: Option<MemoryConfig>,
    /// Block-layer submission per 4 KiB unit of a request (a host-side FTL's driver; zero
    /// for the default path).
    pub block_unit: SimDuration,
    /// Drivers by name, in name order.
    pub drivers: Vec<DriverCosts>,
}

/// `[memory]`, built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryConfig {
    /// One core streaming through DRAM, bytes per second.
    pub core_bytes_per_sec: f64,
    /// Every core together, bytes per second.
    pub socket_bytes_per_sec: f64,
    /// One core's sustained flops per second on stencil code.
    pub core_flops_per_sec: f64,
}

/// A block driver, built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverCosts {
    /// Name.
    pub name: String,
    /// Per request submitted.
    pub submit: SimDuration,
    /// Per request completed.
    pub complete: SimDuration,
    /// Per 4 KiB unit of a request.
    pub unit: SimDuration,
}

impl HostConfig {
    /// True for the bare twin: no host software at all.
    pub fn is_none(&self) -> bool {
        self.os == "none"
    }

    /// The engine fio calls `name`, if this host offers it.
    pub fn engine(&self, name: &str) -> Option<&EngineCosts> {
        self.engines.iter().find(|e| e.name == name)
    }

    /// The cores of NUMA node `node`.
    pub fn node_cores(&self, node: u32) -> std::ops::Range<u32> {
        let per = |n: u32| (u64::from(n) * u64::from(self.cores) / u64::from(self.numa_nodes)) as u32;
        per(node)..per(node + 1)
    }

    /// Names of the engines this host offers.
    pub fn engine_names(&self) -> Vec<&str> {
        self.engines.iter().map(|e| e.name.as_str()).collect()
    }

    /// The driver `name`, if this host's profile gives its costs.
    pub fn driver(&self, name: &str) -> Option<&DriverCosts> {
        self.drivers.iter().find(|d| d.name == name)
    }

    /// The file system `name`, if this host has it.
    pub fn fs(&self, name: &str) -> Option<&FsCosts> {
        self.file_systems.iter().find(|f| f.name == name)
    }
}

/// Host profiles shipped with ssdtwin, embedded at build time from `profiles/hosts/`.
pub const SHIPPED_HOSTS: &[(&str, &str)] = &[
    ("none", include_str!("../../../../profiles/hosts/none.toml")),
    ("linux-4.15", include_str!("../../../../profiles/hosts/linux-4.15.toml")),
    ("linux-6.1", include_str!("../../../../profiles/hosts/linux-6.1.toml")),
    ("freebsd-11", include_str!("../../../../profiles/hosts/freebsd-11.toml")),
    ("windows-10", include_str!("../../../../profiles/hosts/windows-10.toml")),
    ("linux-3.6", include_str!("../../../../profiles/hosts/linux-3.6.toml")),
    ("linux-3.6-fastswap", include_str!("../../../../profiles/hosts/linux-3.6-fastswap.toml")),
];

/// Names of the shipped host profiles.
pub fn shipped_host_names() -> Vec<&'static str> {
    profile_file::shipped::names(SHIPPED_HOSTS)
}

/// Loads and checks a shipped host profile by name, or a TOML file by path, after
/// `section.field=value` overrides.
pub fn load_host(name_or_path: &str, overrides: &[String]) -> Result<HostConfig, ProfileError> {
    let not_found =
        || ProfileError::HostNotFound { name: name_or_path.to_string(), available: shipped_host_names().join(", ") };
    let mut loaded = profile_file::load_from(name_or_path, SHIPPED_HOSTS, "hosts/", not_found)?;
    apply_overrides(&mut loaded, overrides)?;
    build_host(&loaded)
}

/// Checks a loaded host profile.
pub fn build_host(loaded: &LoadedProfile) -> Result<HostConfig, ProfileError> {
    let file = loaded.source.as_str();
    let p: HostProfile = toml::Value::Table(loaded.table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| parse_error(file, &e.to_string()))?;
    let c = Checker { file };
    let os = c.choice(
        "host.os",
        &p.host.os,
        &[("linux", "linux"), ("freebsd", "freebsd"), ("windows", "windows"), ("none", "none")],
    )?;
    let cores = c.range("cpu.cores", p.cpu.cores, 1, 4096)?;
    let numa_nodes = c.range("cpu.numa_nodes", p.cpu.numa_nodes, 1, cores)?;
    let speed = p.cpu.speed_factor;
    if !speed.is_finite() || !(0.01..=100.0).contains(&speed) {
        return Err(c.bad("cpu.speed_factor", &speed, "allowed 0.01 to 100"));
    }
    let dram = p.cpu.dram_gib;
    if !dram.is_finite() || !(0.0..=65536.0).contains(&dram) {
        return Err(c.bad("cpu.dram_gib", &dram, "allowed 0 to 65536 GiB"));
    }
    let cost = |field: &str, ns: u64| -> Result<SimDuration, ProfileError> {
        c.range(field, ns, 0, 1_000_000_000)?;
        Ok(SimDuration((ns as f64 / speed).round() as u64))
    };
    let engines = build_engines(&c, &p.engines, &cost)?;
    let file_systems = build_file_systems(&p.fs, &cost)?;
    if let Some(fs) = &p.host.default_fs {
        if !p.fs.contains_key(fs) {
            let names: Vec<&str> = p.fs.keys().map(String::as_str).collect();
            return Err(c.bad(
                "host.default_fs",
                &format!("\"{fs}\""),
                &format!("one of the [fs] tables: {}", names.join(", ")),
            ));
        }
    }
    if os == "none" && (!engines.is_empty() || !file_systems.is_empty()) {
        return Err(c.bad("host.os", &"\"none\"", "a host with os = \"none\" has no [engines] or [fs]"));
    }
    let max_sectors_kb = c.range("block.max_sectors_kb", p.block.max_sectors_kb, 4, 1 << 22)?;
    let page_cache = p.page_cache.as_ref().map(|pc| build_page_cache(&c, pc, &cost, dram)).transpose()?;
    let (vm, memory, drivers) = build_memory_parts(&c, &p, &cost, dram, max_sectors_kb * 1024)?;
    Ok(HostConfig {
        name: loaded.name.clone(),
        source: loaded.source.clone(),
        profile_toml: loaded.to_toml(),
        description: p.host.description.clone(),
        os: os.to_string(),
        cores,
        speed_factor: speed,
        numa_nodes,
        dram_bytes: (dram * (1u64 << 30) as f64) as u64,
        syscall: cost("kernel.syscall_ns", p.kernel.syscall_ns)?,
        irq: cost("kernel.irq_ns", p.kernel.irq_ns)?,
        wakeup: cost("kernel.wakeup_ns", p.kernel.wakeup_ns)?,
        nvme_hmb_cap_bytes: p.kernel.nvme_hmb_cap_mib.map(|m| u64::from(m) << 20),
        nvme_apst: build_apst(&c, &p.kernel)?,
        block_submit: cost("block.submit_ns", p.block.submit_ns)?,
        block_complete: cost("block.complete_ns", p.block.complete_ns)?,
        max_request_bytes: max_sectors_kb * 1024,
        fio_prep: cost("fio.prep_ns", p.fio.prep_ns)?,
        fio_complete: cost("fio.complete_ns", p.fio.complete_ns)?,
        engines,
        file_systems,
        default_fs: p.host.default_fs.clone(),
        page_cache,
        vm,
        memory,
        // Set by the host for a target whose driver has a per-unit cost.
        block_unit: SimDuration::ZERO,
        drivers,
    })
}

/// Checks `[fs.*]`; `cost` scales a CPU cost by the CPU's speed.
fn build_file_systems(
    fs: &BTreeMap<String, FsSection>,
    cost: &dyn Fn(&str, u64) -> Result<SimDuration, ProfileError>,
) -> Result<Vec<FsCosts>, ProfileError> {
    fs.iter()
        .map(|(name, f)| {
            let field = |x: &str| format!("fs.{name}.{x}");
            Ok(FsCosts {
                name: name.clone(),
                direct_io: cost(&field("direct_io_ns"), f.direct_io_ns)?,
                buffered_io: cost(&field("buffered_io_ns"), f.buffered_io_ns)?,
            })
        })
        .collect()
}

/// `[vm]`, `[memory]` and `[drivers.*]`, checked.
type MemoryParts = (Option<crate::os::vm::VmConfig>, Option<MemoryConfig>, Vec<DriverCosts>);

/// Checks `[vm]`, `[memory]` and `[drivers.*]`.
fn build_memory_parts(
    c: &Checker<'_>,
    p: &HostProfile,
    cost: &dyn Fn(&str, u64) -> Result<SimDuration, ProfileError>,
    dram_gib: f64,
    max_request_bytes: u64,
) -> Result<MemoryParts, ProfileError> {
    let vm = p.vm.as_ref().map(|v| build_vm(c, v, cost, dram_gib, max_request_bytes)).transpose()?;
    let memory = p.memory.as_ref().map(|m| build_memory(c, m)).transpose()?;
    Ok((vm, memory, build_drivers(&p.drivers, cost)?))
}

/// Checks `[drivers.*]`; `cost` scales a CPU cost by the CPU's speed.
fn build_drivers(
    drivers: &BTreeMap<String, DriverSection>,
    cost: &dyn Fn(&str, u64) -> Result<SimDuration, ProfileError>,
) -> Result<Vec<DriverCosts>, ProfileError> {
    drivers
        .iter()
        .map(|(name, d)| {
            let field = |x: &str| format!("drivers.{name}.{x}");
            Ok(DriverCosts {
                name: name.clone(),
                submit: cost(&field("submit_ns"), d.submit_ns)?,
                complete: cost(&field("complete_ns"), d.complete_ns)?,
                unit: cost(&field("unit_ns"), d.unit_ns)?,
            })
        })
        .collect()
}

/// Checks `[vm]`; `cost` scales a CPU cost by the CPU's speed.
fn build_vm(
    c: &Checker<'_>,
    v: &VmSection,
    cost: &dyn Fn(&str, u64) -> Result<SimDuration, ProfileError>,
    dram_gib: f64,
    max_request_bytes: u64,
) -> Result<crate::os::vm::VmConfig, ProfileError> {
    use crate::os::vm::{LockScope, SwapAllocator, SwapReadahead, VmConfig, WillneedLimit};
    let page = c.range("vm.page_bytes", v.page_bytes, 4096, 65536)?;
    if !page.is_power_of_two() {
        return Err(c.bad("vm.page_bytes", &page, "a power of two from 4096 to 65536"));
    }
    let memory_mib = (dram_gib * 1024.0) as u64;
    let reserved = c.range("vm.kernel_reserved_mib", v.kernel_reserved_mib, 0, memory_mib.saturating_sub(64))?;
    let scope = |field: &str, value: &str| {
        c.choice(field, value, &[("global", LockScope::Global), ("per-device", LockScope::PerDevice)])
    };
    let scaled = |field: &str, ns: u64| -> Result<SimDuration, ProfileError> { cost(field, ns) };
    let dirty_background_ratio = c.range("vm.dirty_background_ratio", v.dirty_background_ratio, 0, 100)?;
    Ok(VmConfig {
        page_bytes: page,
        kernel_reserved_bytes: reserved << 20,
        min_free_kbytes_max: c.range("vm.min_free_kbytes_max", v.min_free_kbytes_max, 128, 1 << 22)?,
        watermark_scale_factor: c.range("vm.watermark_scale_factor", v.watermark_scale_factor, 0, 1000)?,
        swappiness: c.range("vm.swappiness", v.swappiness, 0, 200)?,
        page_cluster: c.range("vm.page_cluster", v.page_cluster, 0, 6)?,
        swap_readahead: c.choice(
            "vm.swap_readahead",
            &v.swap_readahead,
            &[
                ("cluster-fixed", SwapReadahead::ClusterFixed),
                ("cluster-adaptive", SwapReadahead::ClusterAdaptive),
                ("vma", SwapReadahead::Vma),
            ],
        )?,
        swap_lock: scope("vm.swap_lock", &v.swap_lock)?,
        swap_cache_lock: scope("vm.swap_cache_lock", &v.swap_cache_lock)?,
        swap_allocator: c.choice(
            "vm.swap_allocator",
            &v.swap_allocator,
            &[
                ("scan", SwapAllocator::Scan),
                ("clusters", SwapAllocator::Clusters),
                ("per-cpu-clusters", SwapAllocator::PerCpuClusters),
            ],
        )?,
        fault_around_bytes: c.range("vm.fault_around_kb", v.fault_around_kb, 0, 2048)? * 1024,
        willneed_swap: v.madvise_willneed_swap,
        willneed_file_limit: c.choice(
            "vm.madvise_willneed_file_limit",
            &v.madvise_willneed_file_limit,
            &[
                ("half-free-and-inactive", WillneedLimit::HalfFreeAndInactive),
                ("2mib", WillneedLimit::TwoMib),
                ("window", WillneedLimit::Window),
            ],
        )?,
        sequential_ignores_references: v.sequential_ignores_references,
        random_ignores_references: v.random_ignores_references,
        new_anon_active: v.new_anon_active,
        read_ahead_bytes: c.range("vm.read_ahead_kb", v.read_ahead_kb, 0, 1 << 20)? * 1024,
        whole_window_async: v.whole_window_async,
        dirty_background_ratio,
        dirty_ratio: c.range("vm.dirty_ratio", v.dirty_ratio, 1, 100)?,
        writeback_depth: c.range("vm.writeback_depth", v.writeback_depth, 1, 4096)?,
        max_request_bytes,
        fault: scaled("vm.fault_ns", v.fault_ns)?,
        zero_page: scaled("vm.zero_page_ns", v.zero_page_ns)?,
        swapin_fault: scaled("vm.swapin_fault_ns", v.swapin_fault_ns)?,
        file_fault: scaled("vm.file_fault_ns", v.file_fault_ns)?,
        map_page: scaled("vm.map_page_ns", v.map_page_ns)?,
        scan_page: scaled("vm.scan_page_ns", v.scan_page_ns)?,
        unmap_page: scaled("vm.unmap_page_ns", v.unmap_page_ns)?,
        swap_lock_hold: scaled("vm.swap_lock_hold_ns", v.swap_lock_hold_ns)?,
        swap_cache_hold: scaled("vm.swap_cache_hold_ns", v.swap_cache_hold_ns)?,
        lock_transfer: scaled("vm.lock_transfer_ns", v.lock_transfer_ns)?,
        swap_map_scan_per_kib: scaled("vm.swap_map_scan_ns_per_kib", v.swap_map_scan_ns_per_kib)?,
    })
}

/// Checks `[memory]`.
fn build_memory(c: &Checker<'_>, m: &MemorySection) -> Result<MemoryConfig, ProfileError> {
    let rate = |field: &str, v: f64| -> Result<f64, ProfileError> {
        if !v.is_finite() || !(1.0..=1e9).contains(&v) {
            return Err(c.bad(field, &v, "allowed 1 to 1e9"));
        }
        Ok(v)
    };
    Ok(MemoryConfig {
        core_bytes_per_sec: rate("memory.core_bandwidth_mbps", m.core_bandwidth_mbps)? * 1e6,
        socket_bytes_per_sec: rate("memory.socket_bandwidth_mbps", m.socket_bandwidth_mbps)? * 1e6,
        core_flops_per_sec: rate("memory.core_mflops", m.core_mflops)? * 1e6,
    })
}

/// Checks the `[engines.NAME]` tables; `cost` checks and scales a CPU cost.
fn build_engines(
    c: &Checker<'_>,
    sections: &BTreeMap<String, EngineSection>,
    cost: &dyn Fn(&str, u64) -> Result<SimDuration, ProfileError>,
) -> Result<Vec<EngineCosts>, ProfileError> {
    let mut engines = Vec::new();
    for (name, e) in sections {
        let field = |f: &str| format!("engines.{name}.{f}");
        let kind = c.choice(
            &field("kind"),
            &e.kind,
            &[
                ("sync", EngineKind::Sync),
                ("async", EngineKind::Async),
                ("kernel-callback", EngineKind::KernelCallback),
            ],
        )?;
        engines.push(EngineCosts {
            name: name.clone(),
            kind,
            block_layer: e.block_layer,
            user_space: e.user_space,
            submit_call: cost(&field("submit_call_ns"), e.submit_call_ns)?,
            submit_io: cost(&field("submit_io_ns"), e.submit_io_ns)?,
            reap_call: cost(&field("reap_call_ns"), e.reap_call_ns)?,
            reap_io: cost(&field("reap_io_ns"), e.reap_io_ns)?,
            complete_io: cost(&field("complete_io_ns"), e.complete_io_ns)?,
            lookaside_call: cost(&field("lookaside_call_ns"), e.lookaside_call_ns)?,
            poll_io: e.poll_io_ns.map(|ns| cost(&field("poll_io_ns"), ns)).transpose()?,
            fixedbufs_saving: cost(&field("fixedbufs_saving_ns"), e.fixedbufs_saving_ns)?,
            registerfiles_saving: cost(&field("registerfiles_saving_ns"), e.registerfiles_saving_ns)?,
        });
    }
    Ok(engines)
}

/// Checks `[page_cache]`; `cost` checks a CPU cost and scales it by the CPU's speed, as for every
/// other cost of the host.
fn build_page_cache(
    c: &Checker<'_>,
    pc: &PageCacheSection,
    cost: &dyn Fn(&str, u64) -> Result<SimDuration, ProfileError>,
    dram_gib: f64,
) -> Result<crate::os::PageCacheConfig, ProfileError> {
    let page = c.range("page_cache.page_bytes", pc.page_bytes, 4096, 65536)?;
    if !page.is_power_of_two() {
        return Err(c.bad("page_cache.page_bytes", &page, "a power of two from 4096 to 65536"));
    }
    let memory = pc.memory_gib;
    if !memory.is_finite() || memory <= 0.0 || memory > dram_gib {
        return Err(c.bad("page_cache.memory_gib", &memory, &format!("above 0 and at most cpu.dram_gib ({dram_gib})")));
    }
    let ra_kb = c.range("page_cache.read_ahead_kb", pc.read_ahead_kb, 0, 1 << 20)?;
    let background = c.range("page_cache.dirty_background_ratio", pc.dirty_background_ratio, 0, 100)?;
    let ratio = c.range("page_cache.dirty_ratio", pc.dirty_ratio, 1, 100)?;
    let centisecs = |field: &str, v: u64| -> Result<SimDuration, ProfileError> {
        Ok(SimDuration(c.range(field, v, 1, 8_640_000)? * 10_000_000))
    };
    Ok(crate::os::PageCacheConfig {
        page_bytes: page,
        memory_bytes: (memory * (1u64 << 30) as f64) as u64 / page * page,
        read_ahead_bytes: ra_kb * 1024,
        dirty_background_ratio: background,
        dirty_ratio: ratio,
        writeback_interval: centisecs("page_cache.dirty_writeback_centisecs", pc.dirty_writeback_centisecs)?,
        dirty_expire: centisecs("page_cache.dirty_expire_centisecs", pc.dirty_expire_centisecs)?,
        writeback_background_depth: c.range(
            "page_cache.writeback_background_depth",
            pc.writeback_background_depth,
            1,
            4096,
        )?,
        writeback_sync_depth: c.range("page_cache.writeback_sync_depth", pc.writeback_sync_depth, 1, 4096)?,
        copy_per_kib: cost("page_cache.copy_ns_per_kib", pc.copy_ns_per_kib)?,
        read_page: cost("page_cache.read_page_ns", pc.read_page_ns)?,
        write_page: cost("page_cache.write_page_ns", pc.write_page_ns)?,
    })
}

/// How a host's NVMe driver sets up APST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostApst {
    /// Its rules for the table.
    pub policy: ApstPolicy,
    /// States with a longer exit latency are not used (`default_ps_max_latency_us`).
    pub max_exit_latency: SimDuration,
}

fn build_apst(c: &Checker, k: &KernelSection) -> Result<HostApst, ProfileError> {
    let ms = |field: &str, v: u64| c.range(field, v, 0, 1 << 24).map(SimDuration::from_ms);
    let us = |field: &str, v: u64| c.range(field, v, 0, 1 << 40).map(SimDuration::from_us);
    let timeouts = ApstPolicy::Timeouts {
        primary_timeout: ms("kernel.nvme_apst_primary_timeout_ms", k.nvme_apst_primary_timeout_ms)?,
        primary_tolerance: us("kernel.nvme_apst_primary_latency_tol_us", k.nvme_apst_primary_latency_tol_us)?,
        secondary_timeout: ms("kernel.nvme_apst_secondary_timeout_ms", k.nvme_apst_secondary_timeout_ms)?,
        secondary_tolerance: us("kernel.nvme_apst_secondary_latency_tol_us", k.nvme_apst_secondary_latency_tol_us)?,
    };
    let policy = c.choice(
        "kernel.nvme_apst",
        &k.nvme_apst,
        &[("off", ApstPolicy::Off), ("heuristic", ApstPolicy::Heuristic), ("timeouts", timeouts)],
    )?;
    let max = c.range("kernel.nvme_ps_max_latency_us", k.nvme_ps_max_latency_us, 0, 1 << 40)?;
    let policy = if max == 0 { ApstPolicy::Off } else { policy };
    Ok(HostApst { policy, max_exit_latency: SimDuration::from_us(max) })
}
