//! Device profiles: loading, overriding and validating them into a [`DeviceConfig`].
//!
//! A profile is a TOML file (`profiles/NAME.toml` ships with the crate; users pass a path).
//! [`load_profile`] resolves a name or path, [`apply_overrides`] edits fields by dotted name
//! (`nand.channels=4`), and [`build`] checks every value and derives the geometry, timings
//! and capacities the device runs on. After `build` succeeds a run cannot fail on input.
//! The schema, with units, is in `docs/profiles.md`; reading the file, overrides and the
//! wording of errors are [`crate::profile_file`]'s, common to every kind of profile.
//!
//! `profile` is the file as written; [`DeviceConfig`] (`device`) what `build` makes of it,
//! one file per part: `identity`, `link`, `nand`, `controller` (with the map cache), `ftl`
//! (GC and the SLC cache), `namespace`, `endurance` and `thermal` (with power). `derived`
//! computes what a configuration implies; `shipped` embeds the shipped drives.
//!
//! ```
//! let profile = ssdtwin_core::config::load_profile("generic-tlc-1tb").unwrap();
//! let config = ssdtwin_core::config::build(&profile).unwrap();
//! assert_eq!(config.geometry.page_bytes, 16384);
//! ```

mod controller;
mod derived;
mod device;
mod endurance;
mod fdp;
mod ftl;
mod identity;
mod link;
mod namespace;
mod nand;
mod profile;
mod shipped;
#[cfg(test)]
mod tests;
mod thermal;
mod zns;

pub use crate::profile_file::{LoadedProfile, ProfileError, apply_overrides};
pub use derived::{Derived, model_memory_bytes};
pub use device::{
    DEFAULT_CCTEMP_KELVIN, DEFAULT_MAX_POWER_MW, DEFAULT_WCTEMP_KELVIN, DeviceConfig, Identity, RatedEndurance,
};
pub use namespace::max_namespace_bytes;
pub use profile::*;
pub use shipped::{SHIPPED, shipped_names, shipped_text};
pub use zns::{MAX_ACTIVE_ZONES, ZnsConfig};

use crate::ftl::Stream;
use crate::nand::{CellMode, UNIT_BYTES};
use crate::profile_file::{self, Checker, parse_error};
use controller::{build_controller, build_map_cache};
use endurance::build_endurance;
use fdp::build_fdp;
use ftl::{build_gc, build_slc};
use identity::build_identity;
use link::build_link;
use namespace::{build_namespace, namespace_limit};
use nand::build_nand;
use thermal::{build_power_model, build_power_states, build_thermal};
use zns::build_zns;

/// Resolves a shipped profile name or a path to a TOML file.
pub fn load_profile(name_or_path: &str) -> Result<LoadedProfile, ProfileError> {
    let not_found = || ProfileError::NotFound { name: name_or_path.to_string(), available: shipped_names().join(", ") };
    profile_file::load_from(name_or_path, SHIPPED, "", not_found)
}

/// `--set` overrides that switch off every source of latency variability `profile` can set
/// (read and program times by page type in each cell mode it times, die variation, read retries, firmware time): the
/// ideal drive, where every read of one kind takes the same time (docs/model.md, "Latency
/// variability"). As overrides, not a changed configuration, so a saved state says so too.
pub fn ideal_overrides(profile: &LoadedProfile) -> Vec<String> {
    let mut o: Vec<String> =
        ["nand.die_cv=0", "controller.cmd_cv=0", "endurance.read_retry_fresh=0", "endurance.read_retry_rated=0"]
            .map(String::from)
            .into();
    let nand = profile.table.get("nand").and_then(toml::Value::as_table);
    for mode in CellMode::ALL {
        if nand.is_some_and(|n| n.contains_key(mode.name())) {
            o.push(format!("nand.{}.t_read_spread_us=0", mode.name()));
            o.push(format!("nand.{}.t_prog_spread_us=0", mode.name()));
        }
    }
    o
}

/// Write frontiers beyond the four every drive has: one per FDP handle, or one per active
/// zone (each pair's second, for persistently isolated GC, stays unused on a zoned drive).
pub(crate) fn placement_handles(fdp: Option<&crate::ftl::FdpConfig>, zns: Option<&ZnsConfig>) -> u16 {
    fdp.map_or(0, |f| f.handles).max(zns.map_or(0, |z| z.max_active as u16))
}

/// Checks a loaded profile and derives the device configuration.
pub fn build(loaded: &LoadedProfile) -> Result<DeviceConfig, ProfileError> {
    let file = loaded.source.as_str();
    if loaded.table.contains_key("host") {
        return Err(ProfileError::Moved {
            file: file.to_string(),
            what: "[host]".into(),
            now: "[link] (pcie_*, command_fetch_ns, completion_post_ns, io_queues, queue_depth); submit and \
                  completion costs are the host's (profiles/hosts/, --host)"
                .into(),
        });
    }
    let p: Profile = match loaded.text() {
        Some(text) => toml::from_str(text),
        None => toml::Value::Table(loaded.table.clone()).try_into(),
    }
    .map_err(|e: toml::de::Error| parse_error(file, &e.to_string()))?;
    let c = Checker { file };

    let identity = build_identity(&c, &p.identity)?;
    let link = build_link(&c, &p.link)?;
    let (geometry, nand) = build_nand(&c, &p.nand)?;
    let gc = build_gc(&c, &p.ftl)?;
    let slc = build_slc(&c, p.slc_cache.as_ref(), &geometry, &nand)?;
    let fdp = build_fdp(&c, p.fdp.as_ref(), &slc)?;
    let zns = build_zns(&c, &p, &geometry, &slc, fdp.as_ref())?;
    let streams = Stream::count(placement_handles(fdp.as_ref(), zns.as_ref()));
    let controller = build_controller(&c, &p.controller, &geometry)?;
    let namespace = build_namespace(&c, &p, &geometry, &gc, &slc, streams)?;
    let logical_units = namespace.capacity_bytes / UNIT_BYTES;
    let host_interface = p
        .host_interface
        .as_ref()
        .map(|h| -> Result<crate::block::HostInterface, ProfileError> {
            if h.driver.is_empty() || !h.driver.is_ascii() {
                return Err(c.bad("host_interface.driver", &format!("\"{}\"", h.driver), "a driver name"));
            }
            let luns = c.range("host_interface.luns", h.luns, 1, 64)?;
            let per_gib = h.host_memory_mib_per_gib;
            if !per_gib.is_finite() || !(0.0..=1024.0).contains(&per_gib) {
                return Err(c.bad("host_interface.host_memory_mib_per_gib", &per_gib, "allowed 0 to 1024"));
            }
            let gib = namespace.capacity_bytes as f64 / f64::from(1u32 << 30);
            Ok(crate::block::HostInterface {
                driver: h.driver.clone(),
                luns,
                host_memory_bytes: (gib * per_gib * f64::from(1u32 << 20)) as u64,
            })
        })
        .transpose()?;
    let map_cache = build_map_cache(&c, &p.map_cache, &identity, &nand, geometry.native)?;
    let min_superblocks = logical_units.div_ceil(u64::from(geometry.sb_units())) as u32
        + namespace_limit(&geometry, &gc, &slc, streams).1;
    let (endurance, rated) = build_endurance(&c, &p, &geometry, &identity.serial, min_superblocks)?;
    let (thermal, hctm_range_kelvin) = build_thermal(&c, &p, &geometry, build_power_model(&c, &p.power)?)?;
    let power = build_power_states(&c, &p.identity)?;
    Ok(DeviceConfig {
        source: loaded.source.clone(),
        name: loaded.name.clone(),
        profile_toml: loaded.to_toml(),
        identity,
        geometry,
        nand,
        link,
        controller,
        gc,
        map_cache,
        slc,
        fdp,
        zns,
        namespace,
        logical_units,
        host_interface,
        endurance,
        rated,
        power,
        thermal,
        hctm_range_kelvin,
    })
}
