//! Hard-disk profiles: the TOML file as written (`profiles/hdd/NAME.toml`) and its checked,
//! derived form [`HddConfig`].
//!
//! A disk profile has `[identity]`, `[interface]`, `[mechanics]` and `[cache]`; the
//! `[mechanics]` section is what tells a disk profile from a drive (SSD) profile. Every
//! field carries its unit; `docs/profiles.md` § "Hard-disk profiles" is the schema.

use super::layout::Layout;
use super::seek::SeekCurve;
use crate::engine::SimDuration;
use crate::profile_file::{self, Checker, LoadedProfile, ProfileError, parse_error};
use serde::Deserialize;

/// Disk profiles shipped with ssdtwin, embedded at build time from `profiles/hdd/`.
pub const SHIPPED_HDDS: &[(&str, &str)] = &[
    ("exos-x18-16tb", include_str!("../../../../profiles/hdd/exos-x18-16tb.toml")),
    ("travelstar-5k320", include_str!("../../../../profiles/hdd/travelstar-5k320.toml")),
];

/// Names of the shipped disk profiles.
pub fn shipped_hdd_names() -> Vec<&'static str> {
    profile_file::shipped::names(SHIPPED_HDDS)
}

/// Whether a parsed profile describes a disk (it has `[mechanics]`) rather than an SSD.
pub fn is_hdd_profile(table: &toml::Table) -> bool {
    table.contains_key("mechanics")
}

/// Resolves a shipped disk name or a path to a disk profile file.
pub fn load_hdd(name_or_path: &str) -> Result<LoadedProfile, ProfileError> {
    let not_found =
        || ProfileError::NotFound { name: name_or_path.to_string(), available: shipped_hdd_names().join(", ") };
    profile_file::load_from(name_or_path, SHIPPED_HDDS, "", not_found)
}

/// A whole disk profile.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HddProfile {
    identity: IdentitySection,
    interface: InterfaceSection,
    mechanics: MechanicsSection,
    cache: CacheSection,
}

/// `[identity]`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentitySection {
    model: String,
    capacity_bytes: u64,
    #[serde(default)]
    sources: Vec<String>,
}

/// `[interface]`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InterfaceSection {
    interface_mbps: f64,
    queue_depth: u32,
    logical_sector_bytes: u64,
    physical_sector_bytes: u64,
    max_transfer_kib: u64,
    command_overhead_us: f64,
}

/// `[mechanics]`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MechanicsSection {
    rpm: u32,
    heads: u32,
    zones: u32,
    outer_sustained_mbps: f64,
    inner_sustained_mbps: f64,
    seek_track_to_track_ms: f64,
    seek_average_ms: f64,
    seek_full_stroke_ms: f64,
    short_seek_fraction: f64,
    write_settle_us: f64,
    head_switch_ms: f64,
}

/// `[cache]`
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CacheSection {
    read_ahead_kib: u64,
    read_segments: u32,
    write_cache: bool,
    write_cache_mib: u64,
}

/// A validated disk: everything the model needs, in model units.
#[derive(Clone, Debug)]
pub struct HddConfig {
    /// Where the profile came from.
    pub source: String,
    /// Profile name.
    pub name: String,
    /// The resolved profile TOML.
    pub profile_toml: String,
    /// Model string.
    pub model: String,
    /// Where the profile's numbers come from (reported, never used by the model).
    pub sources: Vec<String>,
    /// Bytes per logical block (what the host addresses).
    pub lba_bytes: u64,
    /// Bytes per physical sector: writes of less (or unaligned) are read-modify-write.
    pub physical_sector_bytes: u64,
    /// Logical blocks.
    pub lbas: u64,
    /// Interface rate, bytes per second (cache hits move at this rate).
    pub interface_bytes_per_sec: u64,
    /// Commands the drive queues and reorders (NCQ).
    pub queue_depth: u32,
    /// Largest command, bytes.
    pub max_transfer_bytes: u64,
    /// Controller time per command.
    pub command_overhead: SimDuration,
    /// One revolution.
    pub revolution: SimDuration,
    /// Extra settling of a seek before a write.
    pub write_settle: SimDuration,
    /// Switching to another head on the same cylinder.
    pub head_switch: SimDuration,
    /// The seek curve.
    pub seek: SeekCurve,
    /// Zones, cylinders and tracks.
    pub layout: Layout,
    /// Read-ahead after a read, logical blocks.
    pub read_ahead_lbas: u64,
    /// Read segments kept.
    pub read_segments: u32,
    /// Write-back caching: writes complete once in the buffer.
    pub write_cache: bool,
    /// Buffer space for writes not yet on the media, bytes.
    pub write_cache_bytes: u64,
}

/// Checks a loaded disk profile and derives its geometry and seek curve.
pub fn build_hdd(loaded: &LoadedProfile) -> Result<HddConfig, ProfileError> {
    let file = loaded.source.as_str();
    let profile: HddProfile = toml::Value::Table(loaded.table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| parse_error(file, &e.to_string()))?;
    let c = Checker { file };
    let model = &profile.identity.model;
    if model.is_empty() || model.len() > 40 || !model.is_ascii() {
        return Err(c.bad("identity.model", &format!("\"{model}\""), "1 to 40 ASCII characters"));
    }
    let iface = &profile.interface;
    let lba_bytes = iface.logical_sector_bytes;
    if lba_bytes != 512 && lba_bytes != 4096 {
        return Err(c.bad("interface.logical_sector_bytes", &lba_bytes, "allowed 512 or 4096"));
    }
    let physical = iface.physical_sector_bytes;
    if physical < lba_bytes || !physical.is_power_of_two() || physical > 65536 {
        return Err(c.bad(
            "interface.physical_sector_bytes",
            &physical,
            "a power of two from logical_sector_bytes to 65536",
        ));
    }
    let capacity = profile.identity.capacity_bytes;
    if capacity == 0 || capacity % physical != 0 || capacity > 1 << 50 {
        return Err(c.bad(
            "identity.capacity_bytes",
            &capacity,
            "a positive multiple of physical_sector_bytes, at most 2^50 (1 PiB)",
        ));
    }
    finite_range(&c, "interface.interface_mbps", iface.interface_mbps, 1.0, 100_000.0)?;
    c.range("interface.queue_depth", iface.queue_depth, 1, 256)?;
    c.range("interface.max_transfer_kib", iface.max_transfer_kib, 4, 1 << 20)?;
    let command_overhead = c.us("interface.command_overhead_us", iface.command_overhead_us)?;

    let mech = &profile.mechanics;
    c.range("mechanics.rpm", mech.rpm, 1000, 20_000)?;
    c.range("mechanics.heads", mech.heads, 1, 64)?;
    c.range("mechanics.zones", mech.zones, 1, 1000)?;
    finite_range(&c, "mechanics.outer_sustained_mbps", mech.outer_sustained_mbps, 1.0, 10_000.0)?;
    finite_range(&c, "mechanics.inner_sustained_mbps", mech.inner_sustained_mbps, 1.0, mech.outer_sustained_mbps)?;
    finite_range(&c, "mechanics.short_seek_fraction", mech.short_seek_fraction, 0.01, 1.0)?;
    let ms = |field: &str, v: f64| c.us(field, v * 1000.0);
    let t1 = ms("mechanics.seek_track_to_track_ms", mech.seek_track_to_track_ms)?;
    let t_avg = ms("mechanics.seek_average_ms", mech.seek_average_ms)?;
    let t_max = ms("mechanics.seek_full_stroke_ms", mech.seek_full_stroke_ms)?;
    let head_switch = ms("mechanics.head_switch_ms", mech.head_switch_ms)?;
    let write_settle = c.us("mechanics.write_settle_us", mech.write_settle_us)?;
    if t1.as_ns() == 0 || !(t1 < t_avg && t_avg < t_max) {
        return Err(c.bad(
            "mechanics.seek_average_ms",
            &mech.seek_average_ms,
            "seek times must rise: 0 < seek_track_to_track_ms < seek_average_ms < seek_full_stroke_ms",
        ));
    }
    let revolution = SimDuration((60_000_000_000_u64).div_ceil(u64::from(mech.rpm)));
    // A sequential transfer crosses to the next track after the switch time: each track
    // starts that much later in angle (track skew), so the sustained rate is one track per
    // revolution plus one switch.
    let skew = head_switch.max(t1);
    let layout = Layout::new(super::layout::LayoutSpec {
        capacity_bytes: capacity,
        lba_bytes,
        physical_sector_bytes: physical,
        heads: mech.heads,
        zones: mech.zones,
        outer_bytes_per_sec: mech.outer_sustained_mbps * 1e6,
        inner_bytes_per_sec: mech.inner_sustained_mbps * 1e6,
        revolution,
        skew,
    })
    .map_err(|why| c.bad("mechanics.zones", &mech.zones, &why))?;
    let seek = SeekCurve::fit(t1, t_avg, t_max, mech.short_seek_fraction, layout.cylinders())
        .map_err(|why| c.bad("mechanics.seek_average_ms", &mech.seek_average_ms, &why))?;

    let cache = &profile.cache;
    c.range("cache.read_segments", cache.read_segments, 1, 1024)?;
    c.range("cache.read_ahead_kib", cache.read_ahead_kib, 0, 1 << 20)?;
    c.range("cache.write_cache_mib", cache.write_cache_mib, 0, 1 << 16)?;
    if cache.write_cache && cache.write_cache_mib == 0 {
        return Err(c.bad("cache.write_cache_mib", &0, "at least 1 when write_cache = true"));
    }
    Ok(HddConfig {
        source: loaded.source.clone(),
        name: loaded.name.clone(),
        profile_toml: loaded.to_toml(),
        model: model.clone(),
        sources: profile.identity.sources.clone(),
        lba_bytes,
        physical_sector_bytes: physical,
        lbas: capacity / lba_bytes,
        interface_bytes_per_sec: (iface.interface_mbps * 1e6) as u64,
        queue_depth: iface.queue_depth,
        max_transfer_bytes: iface.max_transfer_kib * 1024,
        command_overhead,
        revolution,
        write_settle,
        head_switch,
        seek,
        layout,
        read_ahead_lbas: cache.read_ahead_kib * 1024 / lba_bytes,
        read_segments: cache.read_segments,
        write_cache: cache.write_cache,
        write_cache_bytes: cache.write_cache_mib << 20,
    })
}

/// A finite float within `[lo, hi]`.
fn finite_range(c: &Checker, field: &str, v: f64, lo: f64, hi: f64) -> Result<f64, ProfileError> {
    if !v.is_finite() || v < lo || v > hi {
        return Err(c.bad(field, &v, &format!("allowed {lo} to {hi}")));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile_file::apply_overrides;

    fn with(overrides: &[&str]) -> Result<HddConfig, ProfileError> {
        let mut p = load_hdd("exos-x18-16tb").unwrap();
        apply_overrides(&mut p, &overrides.iter().map(ToString::to_string).collect::<Vec<_>>()).unwrap();
        build_hdd(&p)
    }

    #[test]
    fn shipped_disks_build_with_their_capacity() {
        for name in shipped_hdd_names() {
            let p = load_hdd(name).unwrap();
            assert!(is_hdd_profile(&p.table));
            let c = build_hdd(&p).unwrap();
            assert_eq!(c.lbas * c.lba_bytes, p.table["identity"]["capacity_bytes"].as_integer().unwrap() as u64);
        }
    }

    #[test]
    fn seek_times_that_do_not_rise_are_refused_naming_the_field() {
        let e = with(&["mechanics.seek_average_ms=20.0"]).unwrap_err().to_string();
        assert!(e.starts_with("shipped:exos-x18-16tb: mechanics.seek_average_ms = 20:"), "{e}");
    }

    #[test]
    fn unknown_fields_and_bad_sector_sizes_are_refused() {
        let e = with(&["mechanics.rpms=7200"]).unwrap_err().to_string();
        assert!(e.contains("unknown field `rpms`"), "{e}");
        let e = with(&["interface.logical_sector_bytes=1024"]).unwrap_err().to_string();
        assert!(e.contains("interface.logical_sector_bytes = 1024: allowed 512 or 4096"), "{e}");
    }

    #[test]
    fn an_unknown_disk_lists_the_shipped_ones() {
        let e = load_hdd("no-such-disk").unwrap_err().to_string();
        assert!(e.contains("exos-x18-16tb") && e.contains("travelstar-5k320"), "{e}");
    }
}
