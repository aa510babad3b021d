//! The CPU costs of named sections, checked and scaled by the CPU's speed: I/O engines
//! (`[engines.NAME]`), file systems (`[fs.NAME]`) and block drivers (`[drivers.NAME]`).

use super::file::{DriverSection, EngineSection, FsSection};
use super::host::{DriverCosts, EngineCosts, EngineKind, FsCosts};
use crate::engine::SimDuration;
use crate::profile_file::{Checker, ProfileError};
use std::collections::BTreeMap;

/// Checks the `[engines.NAME]` tables; `cost` checks and scales a CPU cost.
pub(super) fn build_engines(
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

/// Checks `[fs.*]`; `cost` scales a CPU cost by the CPU's speed.
pub(super) fn build_file_systems(
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

/// Checks `[drivers.*]`; `cost` scales a CPU cost by the CPU's speed.
pub(super) fn build_drivers(
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
