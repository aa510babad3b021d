//! `[controller]` and `[map_cache]`, checked: firmware cores, the write buffer, and where the
//! L2P map lives.

use super::device::Identity;
use super::profile::{ControllerSection, MapCacheSection};
use crate::controller::ControllerConfig;
use crate::controller::map_cache::{DirtyPolicy, HmbValidity, MapCacheConfig, MapLocation, Replacement};
use crate::engine::SimDuration;
use crate::nand::{CellMode, Geometry, NandTiming, UNIT_BYTES};
use crate::profile_file::{Checker, ProfileError};

pub(super) fn build_map_cache(
    c: &Checker,
    s: &MapCacheSection,
    identity: &Identity,
    nand: &NandTiming,
    native: CellMode,
) -> Result<MapCacheConfig, ProfileError> {
    let location = c.choice(
        "map_cache.location",
        &s.location,
        &[("dram", MapLocation::Dram), ("sram", MapLocation::Sram), ("hmb", MapLocation::Hmb)],
    )?;
    if !s.segment_bytes.is_power_of_two() || !(512..=65536).contains(&s.segment_bytes) {
        return Err(c.bad("map_cache.segment_bytes", &s.segment_bytes, "a power of two from 512 to 65536"));
    }
    let replacement =
        c.choice("map_cache.replacement", &s.replacement, &[("lru", Replacement::Lru), ("clock", Replacement::Clock)])?;
    let dirty_policy = c.choice(
        "map_cache.dirty_policy",
        &s.dirty_policy,
        &[("clean-only", DirtyPolicy::CleanOnly), ("dirty-in-hmb", DirtyPolicy::DirtyInHmb)],
    )?;
    let hmb_validity = c.choice(
        "map_cache.hmb_validity",
        &s.hmb_validity,
        &[("write-through", HmbValidity::WriteThrough), ("journal-epoch", HmbValidity::JournalEpoch)],
    )?;
    let modes = [("slc", CellMode::Slc), ("mlc", CellMode::Mlc), ("tlc", CellMode::Tlc), ("qlc", CellMode::Qlc)];
    let map_mode = c.choice("map_cache.map_cell", &s.map_cell, &modes)?;
    if map_mode.bits() > native.bits() || nand.cell[map_mode.index()].t_read.as_ns() == 0 {
        return Err(c.bad(
            "map_cache.map_cell",
            &format!("\"{}\"", s.map_cell),
            &format!(
                "a mode with no more bits per cell than nand.cell ({}), with its timings in [nand.{}]",
                native.name(),
                s.map_cell
            ),
        ));
    }
    if location == MapLocation::Sram && s.sram_kib == 0 {
        return Err(c.bad("map_cache.sram_kib", &0, "an SRAM-only map cache needs at least 1 KiB"));
    }
    if location == MapLocation::Hmb && identity.hmb.hmpre == 0 {
        return Err(c.bad(
            "map_cache.location",
            &"\"hmb\"",
            "needs identity.hmpre > 0 (the controller must ask for an HMB)",
        ));
    }
    c.range("map_cache.max_map_loads", s.max_map_loads, 1, 1024)?;
    c.range("map_cache.journal_entries", s.journal_entries, 1, 1 << 20)?;
    c.range("map_cache.hmb_access_bytes", s.hmb_access_bytes, 0, 1 << 20)?;
    if !(0.0..=1.0).contains(&s.hmb_map_share) {
        return Err(c.bad("map_cache.hmb_map_share", &s.hmb_map_share, "allowed 0 to 1"));
    }
    let ns = |field: &str, v: u64| c.range(field, v, 0, 1_000_000_000).map(SimDuration);
    Ok(MapCacheConfig {
        location,
        segment_entries: s.segment_bytes / 4,
        sram_bytes: u64::from(s.sram_kib) * 1024,
        replacement,
        dirty_policy,
        max_map_loads: s.max_map_loads,
        map_mode,
        map_load_fw: ns("map_cache.map_load_fw_ns", s.map_load_fw_ns)?,
        hmb_lookup: ns("map_cache.hmb_lookup_ns", s.hmb_lookup_ns)?,
        hmb_direct_lookup: ns("map_cache.hmb_direct_lookup_ns", s.hmb_direct_lookup_ns)?,
        hmb_access_bytes: s.hmb_access_bytes,
        partial_cmd: ns("map_cache.partial_map_cmd_ns", s.partial_map_cmd_ns)?,
        journal_entries: s.journal_entries,
        hmb_map_share: s.hmb_map_share,
        hmb_validity,
        hmb_fill: ns("map_cache.hmb_fill_ns", s.hmb_fill_ns)?,
        update_sram_bytes: u64::from(s.update_sram_kib) * 1024,
        hmb: identity.hmb,
    })
}

pub(super) fn build_controller(
    c: &Checker,
    s: &ControllerSection,
    g: &Geometry,
) -> Result<ControllerConfig, ProfileError> {
    c.range("controller.cores", s.cores, 1, 64)?;
    let ns = |field: &str, v: u64| c.range(field, v, 0, 1_000_000_000).map(SimDuration);
    let min_mib = f64::from(g.pu_units()) * UNIT_BYTES as f64 / f64::from(1 << 20);
    if !s.write_buffer_mib.is_finite() || s.write_buffer_mib < min_mib || s.write_buffer_mib > 65536.0 {
        return Err(c.bad(
            "controller.write_buffer_mib",
            &s.write_buffer_mib,
            &format!("allowed {min_mib} (one program unit) to 65536"),
        ));
    }
    Ok(ControllerConfig {
        cores: s.cores,
        read_cmd: ns("controller.read_cmd_ns", s.read_cmd_ns)?,
        write_cmd: ns("controller.write_cmd_ns", s.write_cmd_ns)?,
        unit: ns("controller.unit_ns", s.unit_ns)?,
        trim_unit: ns("controller.trim_unit_ns", s.trim_unit_ns)?,
        buffer_units: (s.write_buffer_mib * f64::from(1 << 20) / UNIT_BYTES as f64) as u32,
        power_protected: s.power_protected,
        cmd_cv: {
            if !s.cmd_cv.is_finite() || !(0.0..=2.0).contains(&s.cmd_cv) {
                return Err(c.bad("controller.cmd_cv", &s.cmd_cv, "allowed 0 to 2"));
            }
            s.cmd_cv
        },
    })
}
