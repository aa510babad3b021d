//! `[page_cache]`, checked: Linux's page cache, readahead and writeback.

use super::file::PageCacheSection;
use crate::engine::SimDuration;
use crate::profile_file::{Checker, ProfileError};

/// Checks `[page_cache]`; `cost` checks a CPU cost and scales it by the CPU's speed, as for every
/// other cost of the host.
pub(super) fn build_page_cache(
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
