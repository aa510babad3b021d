//! `[vm]` and `[memory]`, checked: the kernel's virtual-memory policies and costs, and the
//! machine's DRAM and compute rates.

use super::costs::build_drivers;
use super::file::{HostProfile, MemorySection, VmSection};
use super::host::{DriverCosts, MemoryConfig};
use crate::engine::SimDuration;
use crate::profile_file::{Checker, ProfileError};

/// `[vm]`, `[memory]` and `[drivers.*]`, checked.
pub(super) type MemoryParts = (Option<crate::os::vm::VmConfig>, Option<MemoryConfig>, Vec<DriverCosts>);

/// Checks `[vm]`, `[memory]` and `[drivers.*]`.
pub(super) fn build_memory_parts(
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

/// Checks `[vm]`; `cost` scales a CPU cost by the CPU's speed.
pub(super) fn build_vm(
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
pub(super) fn build_memory(c: &Checker<'_>, m: &MemorySection) -> Result<MemoryConfig, ProfileError> {
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
