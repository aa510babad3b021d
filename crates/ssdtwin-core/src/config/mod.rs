//! Device profiles: loading, overriding and validating them into a [`DeviceConfig`].
//!
//! A profile is a TOML file (`profiles/NAME.toml` ships with the crate; users pass a path).
//! [`load_profile`] resolves a name or path, [`apply_overrides`] edits fields by dotted name
//! (`nand.channels=4`), and [`build`] checks every value and derives the geometry, timings
//! and capacities the device runs on. After `build` succeeds a run cannot fail on input.
//! The schema, with units, is in `docs/profiles.md`.
//!
//! ```
//! let profile = ssdtwin_core::config::load_profile("generic-tlc-1tb").unwrap();
//! let config = ssdtwin_core::config::build(&profile).unwrap();
//! assert_eq!(config.geometry.page_bytes, 16384);
//! ```

mod derived;
mod profile;
mod shipped;

pub use crate::profile_file::{LoadedProfile, ProfileError, apply_overrides};
pub use derived::{Derived, model_memory_bytes};
pub use profile::*;
pub use shipped::{SHIPPED, shipped_names, shipped_text};

use crate::controller::ControllerConfig;
use crate::controller::map_cache::{DirtyPolicy, MapCacheConfig, MapLocation, Replacement};
use crate::controller::thermal::{PowerModel, ThermalConfig};
use crate::engine::SimDuration;
use crate::ftl::{
    BitErrorLaw, Endurance, GcConfig, MAX_UBER_PER_BIT, SlcCacheConfig, Stream, VictimPolicy, WearLevelling, WhenFull,
};
use crate::nand::{CellMode, CellTiming, DieScheduler, Geometry, NandTiming, SuspendPolicy, SuspendTiming, UNIT_BYTES};
use crate::nvme::{HmbRequest, LbaFormat, LinkConfig, Namespace, PowerState, PowerStates};
use crate::profile_file::{self, Checker, parse_error};

/// Resolves a shipped profile name or a path to a TOML file.
pub fn load_profile(name_or_path: &str) -> Result<LoadedProfile, ProfileError> {
    let not_found = || ProfileError::NotFound { name: name_or_path.to_string(), available: shipped_names().join(", ") };
    profile_file::load_from(name_or_path, SHIPPED, "", not_found)
}

/// Identity strings and NVMe identify values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Model number.
    pub model: String,
    /// Serial number.
    pub serial: String,
    /// Firmware revision.
    pub firmware: String,
    /// PCI vendor ID.
    pub pci_vendor_id: u16,
    /// PCI subsystem vendor ID.
    pub pci_subsystem_vendor_id: u16,
    /// IEEE OUI.
    pub ieee_oui: u32,
    /// NVMe version as encoded in `ver` (major << 16 | minor << 8 | tertiary).
    pub nvme_version: u32,
    /// MDTS.
    pub mdts: u8,
    /// HMB request (hmpre, hmmin, hmminds, hmmaxd).
    pub hmb: HmbRequest,
    /// Warning composite temperature threshold, kelvin, if the profile gives one.
    pub wctemp_kelvin: Option<u16>,
    /// Critical composite temperature threshold, kelvin, if the profile gives one.
    pub cctemp_kelvin: Option<u16>,
    /// Power state descriptors as the profile gives them, state 0 first (empty: none
    /// given; [`DeviceConfig::power`] holds the states the model uses).
    pub power_states: Vec<PowerStateSection>,
}

/// A validated device description. Everything the device needs, in model units.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// Where the profile came from.
    pub source: String,
    /// Profile name.
    pub name: String,
    /// The resolved profile TOML (stored in snapshots).
    pub profile_toml: String,
    /// Identity.
    pub identity: Identity,
    /// NAND geometry.
    pub geometry: Geometry,
    /// NAND timing.
    pub nand: NandTiming,
    /// PCIe link and host costs.
    pub link: LinkConfig,
    /// Firmware and write buffer.
    pub controller: ControllerConfig,
    /// GC.
    pub gc: GcConfig,
    /// Map cache.
    pub map_cache: MapCacheConfig,
    /// SLC cache and folding.
    pub slc: SlcCacheConfig,
    /// Namespace formats and size.
    pub namespace: Namespace,
    /// Logical 4 KiB map units exposed.
    pub logical_units: u64,
    /// How the host sees the device, if not as one NVMe namespace on the in-box driver.
    pub host_interface: Option<crate::block::HostInterface>,
    /// Rated P/E cycles, spares, block wear-out and wear levelling.
    pub endurance: Endurance,
    /// What the datasheet rates the drive for (reported; the model wears by P/E cycles).
    pub rated: RatedEndurance,
    /// Power states (APST off until a host programs it).
    pub power: PowerStates,
    /// Power per activity, the thermal model and throttling.
    pub thermal: ThermalConfig,
    /// Whether the controller supports Host Controlled Thermal Management, and the range it
    /// accepts (MNTMT, MXTMT), kelvin.
    pub hctm_range_kelvin: Option<(u16, u16)>,
}

/// Warning Composite Temperature Threshold when the profile gives none, kelvin (70 °C, a
/// common consumer-drive value).
pub const DEFAULT_WCTEMP_KELVIN: u16 = 343;
/// Critical Composite Temperature Threshold when the profile gives none, kelvin (85 °C).
pub const DEFAULT_CCTEMP_KELVIN: u16 = 358;
/// The power state of a profile that lists none: one operational state of 6 W, between the
/// 3.5 W of DRAM-less PCIe 3.0 x2 drives and the 8–9 W of PCIe 4.0 x4 ones.
pub const DEFAULT_MAX_POWER_MW: u32 = 6000;

/// A drive's rated endurance as its datasheet states it, for projections to compare with.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RatedEndurance {
    /// Terabytes (10^12 bytes) the host may write (random-write rating), if given.
    pub tb_written: Option<f64>,
    /// The sequential-write rating, if given.
    pub tb_written_sequential: Option<f64>,
    /// Drive writes per day over the warranty, if given.
    pub dwpd: Option<f64>,
    /// Warranty, years, if given.
    pub warranty_years: Option<f64>,
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
    let controller = build_controller(&c, &p.controller, &geometry)?;
    let namespace = build_namespace(&c, &p, &geometry, &gc, &slc)?;
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
    let min_superblocks =
        logical_units.div_ceil(u64::from(geometry.sb_units())) as u32 + namespace_limit(&geometry, &gc, &slc).1;
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

fn build_power_model(c: &Checker, s: &PowerSection) -> Result<PowerModel, ProfileError> {
    let watts = |field: &str, v: f64, max: f64| -> Result<f64, ProfileError> {
        if !v.is_finite() || !(0.0..=max).contains(&v) {
            return Err(c.bad(field, &v, &format!("allowed 0 to {max} W")));
        }
        Ok(v)
    };
    Ok(PowerModel {
        idle_w: watts("power.idle_w", s.idle_w, 1000.0)?,
        die_read_w: watts("power.die_read_w", s.die_read_w, 100.0)?,
        die_program_w: watts("power.die_program_w", s.die_program_w, 100.0)?,
        die_erase_w: watts("power.die_erase_w", s.die_erase_w, 100.0)?,
        link_w: watts("power.link_w", s.link_w, 100.0)?,
    })
}

/// The power states the model uses: the profile's, or one operational state.
fn build_power_states(c: &Checker, id: &IdentitySection) -> Result<PowerStates, ProfileError> {
    let states = if id.power_states.is_empty() {
        let max_power_w = f64::from(DEFAULT_MAX_POWER_MW) / 1000.0;
        vec![PowerState { max_power_w, non_operational: false, entry: SimDuration::ZERO, exit: SimDuration::ZERO }]
    } else {
        id.power_states
            .iter()
            .map(|ps| PowerState {
                max_power_w: f64::from(ps.max_power_mw) / 1000.0,
                non_operational: ps.non_operational,
                entry: SimDuration::from_us(u64::from(ps.entry_latency_us)),
                exit: SimDuration::from_us(u64::from(ps.exit_latency_us)),
            })
            .collect()
    };
    if states[0].non_operational {
        return Err(c.bad("identity.power_states[0].non_operational", &true, "false: state 0 is where I/O runs"));
    }
    Ok(PowerStates { states, apst: Vec::new() })
}

/// The thermal configuration and the HCTM range.
fn build_thermal(
    c: &Checker,
    profile: &Profile,
    geometry: &Geometry,
    power: PowerModel,
) -> Result<(ThermalConfig, Option<(u16, u16)>), ProfileError> {
    let t = &profile.thermal;
    let positive = |field: &str, v: f64, max: f64, unit: &str| -> Result<f64, ProfileError> {
        if !v.is_finite() || v <= 0.0 || v > max {
            return Err(c.bad(field, &v, &format!("greater than 0, at most {max} {unit}")));
        }
        Ok(v)
    };
    if !t.ambient_c.is_finite() || !(-60.0..=150.0).contains(&t.ambient_c) {
        return Err(c.bad("thermal.ambient_c", &t.ambient_c, "allowed -60 to 150 °C"));
    }
    if !t.airflow_m_per_s.is_finite() || !(0.0..=100.0).contains(&t.airflow_m_per_s) {
        return Err(c.bad("thermal.airflow_m_per_s", &t.airflow_m_per_s, "allowed 0 to 100 m/s"));
    }
    let capacity = positive("thermal.heat_capacity_j_per_k", t.heat_capacity_j_per_k, 1e6, "J/K")?;
    let still_air = positive("thermal.still_air_k_per_w", t.still_air_k_per_w, 1e4, "K/W")?;
    let doubling = positive("thermal.airflow_doubling_m_per_s", t.airflow_doubling_m_per_s, 100.0, "m/s")?;
    if !t.hysteresis_k.is_finite() || !(0.0..=50.0).contains(&t.hysteresis_k) {
        return Err(c.bad("thermal.hysteresis_k", &t.hysteresis_k, "allowed 0 to 50 K"));
    }
    let period = positive("thermal.sensor_period_ms", t.sensor_period_ms, 60_000.0, "ms")?;
    let id = &profile.identity;
    let warning = id.wctemp_kelvin.unwrap_or(DEFAULT_WCTEMP_KELVIN);
    let critical = id.cctemp_kelvin.unwrap_or(DEFAULT_CCTEMP_KELVIN);
    if warning > critical {
        let field = if id.wctemp_kelvin.is_some() { "identity.wctemp_kelvin" } else { "identity.cctemp_kelvin" };
        let value = if id.wctemp_kelvin.is_some() { warning } else { critical };
        return Err(c.bad(
            field,
            &value,
            &format!("the warning threshold ({warning}) may not exceed the critical one ({critical})"),
        ));
    }
    let hctm_range = match (t.hctm_min_kelvin, t.hctm_max_kelvin) {
        (Some(lo), Some(hi)) if lo <= hi && lo > 0 => Some((lo, hi)),
        (None, None) => None,
        (lo, hi) => {
            return Err(c.bad(
                "thermal.hctm_min_kelvin",
                &format!("{lo:?}/{hi:?}"),
                "give hctm_min_kelvin and hctm_max_kelvin together, 0 < min <= max",
            ));
        }
    };
    let tmt = |field: &str, k: u16| -> Result<Option<f64>, ProfileError> {
        if k == 0 {
            return Ok(None);
        }
        match hctm_range {
            Some((lo, hi)) if (lo..=hi).contains(&k) => Ok(Some(f64::from(k))),
            Some((lo, hi)) => Err(c.bad(field, &k, &format!("0 (off) or {lo} to {hi} kelvin (MNTMT to MXTMT)"))),
            None => Err(c.bad(
                field,
                &k,
                "0: the controller has no HCTM (give thermal.hctm_min_kelvin and hctm_max_kelvin)",
            )),
        }
    };
    let tmt1 = tmt("thermal.hctm_tmt1_kelvin", t.hctm_tmt1_kelvin)?;
    let tmt2 = tmt("thermal.hctm_tmt2_kelvin", t.hctm_tmt2_kelvin)?;
    if let (Some(k1), Some(k2)) = (tmt1, tmt2)
        && k1 >= k2
    {
        return Err(c.bad("thermal.hctm_tmt1_kelvin", &k1, &format!("below hctm_tmt2_kelvin ({k2})")));
    }
    // The most the drive draws: every die programming and both link directions busy.
    let dies = geometry.dies();
    let most_w = power.idle_w + f64::from(dies) * power.die_program_w + 2.0 * power.link_w;
    let budget = |field: &str, v: Option<f64>, share: f64| -> Result<f64, ProfileError> {
        v.map_or(Ok(most_w * share), |w| positive(field, w, 1000.0, "W"))
    };
    let light = budget("thermal.throttle_light_w", t.throttle_light_w, 0.75)?;
    let heavy = budget("thermal.throttle_heavy_w", t.throttle_heavy_w, 0.5)?;
    let critical_w = budget("thermal.throttle_critical_w", t.throttle_critical_w, 0.25)?;
    let cap = |w: f64| {
        let n = ((w - power.idle_w - 2.0 * power.link_w) / power.die_program_w.max(1e-9)).floor();
        if n >= f64::from(dies) { u32::MAX } else { n.max(1.0) as u32 }
    };
    let thermal = ThermalConfig {
        power,
        ambient_k: t.ambient_c + 273.15,
        heat_capacity_j_per_k: capacity,
        resistance_k_per_w: still_air / (1.0 + (t.airflow_m_per_s / doubling).sqrt()),
        warning_k: f64::from(warning),
        critical_k: f64::from(critical),
        tmt1_k: tmt1,
        tmt2_k: tmt2,
        hysteresis_k: t.hysteresis_k,
        sensor_period: SimDuration((period * 1e6).round() as u64),
        die_caps: [u32::MAX, cap(light), cap(heavy), cap(critical_w)],
    };
    Ok((thermal, hctm_range))
}

/// Typical rated P/E cycles of `mode` on NAND built for `native` when the profile gives
/// none [INF]: 3D TLC 3,000 and QLC 1,000 (the upper ends of the 1,000–3,000 and 100–1,000
/// cited by Tom's Hardware, "YMTC: our 3D QLC NAND matches endurance of 3D TLC NAND", 2024),
/// MLC 3,000 (consumer planar MLC, TweakTown 2014: "3000 to 10,000"), native SLC 100,000; a
/// multi-bit die's SLC mode ten times its native rating.
fn default_pe_cycles(mode: CellMode, native: CellMode) -> u32 {
    match (mode, native) {
        (CellMode::Slc, CellMode::Slc) => 100_000,
        (CellMode::Slc, other) => 10 * default_pe_cycles(other, other),
        (CellMode::Mlc | CellMode::Tlc, _) => 3_000,
        (CellMode::Qlc, _) => 1_000,
    }
}

/// UBER at the rated endurance when a profile gives none: JEDEC JESD218's requirement of a
/// client drive, 1 error per 10^15 bits read.
const DEFAULT_UBER_PER_BIT: f64 = 1e-15;

/// Wear past the rating, percent of it, over which the UBER grows tenfold when a profile
/// gives none [INF]: the UBER grows as the raw bit error rate to the power `t + 1` for an ECC
/// correcting `t` bits (Mielke et al., IRPS 2008), so with 25 nm MLC's 24-bit BCH a tenfold
/// rise over 10 % of the rating is the raw rate rising 10 % over it, a modest slope beside
/// the cycle dependency Cai et al. (DATE 2012) measure.
const DEFAULT_UBER_TENFOLD_PCT: f64 = 10.0;

fn build_endurance(
    c: &Checker,
    profile: &Profile,
    geometry: &Geometry,
    serial: &str,
    min_superblocks: u32,
) -> Result<(Endurance, RatedEndurance), ProfileError> {
    let s = &profile.endurance;
    let native = geometry.native;
    let given = [s.slc_pe_cycles, s.mlc_pe_cycles, s.tlc_pe_cycles, s.qlc_pe_cycles];
    let mut rated_pe_cycles = [0; 4];
    for mode in CellMode::ALL {
        let cycles = given[mode.index()].unwrap_or_else(|| default_pe_cycles(mode, native));
        let field = format!("endurance.{}_pe_cycles", mode.name());
        rated_pe_cycles[mode.index()] = c.range(&field, cycles, 1, 10_000_000)?;
    }
    c.range("endurance.spare_blocks_per_plane", s.spare_blocks_per_plane, 0, 1 << 20)?;
    let spread = s.block_spread_pct.unwrap_or(10.0);
    if !spread.is_finite() || !(0.0..=100.0).contains(&spread) {
        return Err(c.bad("endurance.block_spread_pct", &spread, "allowed 0 to 100"));
    }
    let spare_threshold_pct =
        c.range("endurance.available_spare_threshold_pct", s.available_spare_threshold_pct.unwrap_or(10), 0, 100)?;
    let positive = |field: &str, v: Option<f64>| -> Result<Option<f64>, ProfileError> {
        match v {
            Some(x) if !x.is_finite() || x <= 0.0 || x > 1e9 => Err(c.bad(field, &x, "a positive number up to 1e9")),
            other => Ok(other),
        }
    };
    let rated = RatedEndurance {
        tb_written: positive("endurance.rated_tb_written", s.rated_tb_written)?,
        tb_written_sequential: positive("endurance.rated_tb_written_sequential", s.rated_tb_written_sequential)?,
        dwpd: positive("endurance.rated_dwpd", s.rated_dwpd)?,
        warranty_years: positive("endurance.warranty_years", s.warranty_years)?,
    };
    let uber_per_bit = s.uber_per_bit.unwrap_or(DEFAULT_UBER_PER_BIT);
    if !uber_per_bit.is_finite() || !(0.0..=MAX_UBER_PER_BIT).contains(&uber_per_bit) {
        let allowed = format!("allowed 0 to {MAX_UBER_PER_BIT:.3e} (one error per 4 KiB read)");
        return Err(c.bad("endurance.uber_per_bit", &uber_per_bit, &allowed));
    }
    let tenfold_pct = s.uber_tenfold_pct.unwrap_or(DEFAULT_UBER_TENFOLD_PCT);
    if !tenfold_pct.is_finite() || tenfold_pct <= 0.0 || tenfold_pct > 1000.0 {
        return Err(c.bad("endurance.uber_tenfold_pct", &tenfold_pct, "allowed above 0 up to 1000"));
    }
    let bit_errors = BitErrorLaw { uber_per_bit, tenfold_life: tenfold_pct / 100.0 };
    let levelling = c.choice(
        "ftl.wear_levelling",
        &profile.ftl.wear_levelling,
        &[("fifo", WearLevelling::Fifo), ("dynamic", WearLevelling::Dynamic), ("static", WearLevelling::Static)],
    )?;
    let static_spread_cycles =
        c.range("ftl.static_wl_spread_cycles", profile.ftl.static_wl_spread_cycles, 1, 10_000_000)?;
    // FNV-1a of the serial number: drives of one model wear out differently, each the same
    // way every run.
    let seed = serial.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let endurance = Endurance {
        rated_pe_cycles,
        spare_blocks_per_plane: s.spare_blocks_per_plane,
        block_spread: spread / 100.0,
        seed,
        levelling,
        static_spread_cycles,
        spare_threshold_pct,
        min_superblocks,
        bit_errors,
    };
    Ok((endurance, rated))
}

fn build_identity(c: &Checker, s: &IdentitySection) -> Result<Identity, ProfileError> {
    let text = |field: &str, v: &str, max: usize| -> Result<String, ProfileError> {
        if v.is_empty() || v.len() > max || !v.is_ascii() {
            return Err(c.bad(field, &format!("\"{v}\""), &format!("1 to {max} ASCII characters")));
        }
        Ok(v.to_string())
    };
    let version = parse_nvme_version(&s.nvme_version).ok_or_else(|| {
        c.bad(
            "identity.nvme_version",
            &format!("\"{}\"", s.nvme_version),
            "\"major.minor[.tertiary]\" with major 1 or 2, minor and tertiary 0 to 9",
        )
    })?;
    if s.hmmin > s.hmpre {
        return Err(c.bad("identity.hmmin", &s.hmmin, &format!("at most identity.hmpre ({})", s.hmpre)));
    }
    if s.ieee_oui > 0xFF_FFFF {
        return Err(c.bad("identity.ieee_oui", &s.ieee_oui, "a 24-bit value"));
    }
    c.range("identity.mdts", s.mdts, 0, 15)?;
    if let (Some(w), Some(k)) = (s.wctemp_kelvin, s.cctemp_kelvin)
        && w > k
    {
        return Err(c.bad("identity.wctemp_kelvin", &w, &format!("at most identity.cctemp_kelvin ({k})")));
    }
    if s.power_states.len() > 32 {
        return Err(c.bad("identity.power_states", &s.power_states.len(), "at most 32 entries"));
    }
    for (i, ps) in s.power_states.iter().enumerate() {
        let mw = ps.max_power_mw;
        if mw > 655_350 || (mw > 6553 && mw % 10 != 0) {
            let field = format!("identity.power_states[{i}].max_power_mw");
            return Err(c.bad(&field, &mw, "up to 6553, or a multiple of 10 up to 655350"));
        }
    }
    Ok(Identity {
        model: text("identity.model", &s.model, 40)?,
        serial: text("identity.serial", &s.serial, 20)?,
        firmware: text("identity.firmware", &s.firmware, 8)?,
        pci_vendor_id: s.pci_vendor_id,
        pci_subsystem_vendor_id: s.pci_subsystem_vendor_id,
        ieee_oui: s.ieee_oui,
        nvme_version: version,
        mdts: s.mdts,
        hmb: HmbRequest { hmpre: s.hmpre, hmmin: s.hmmin, hmminds: s.hmminds, hmmaxd: s.hmmaxd },
        wctemp_kelvin: s.wctemp_kelvin,
        cctemp_kelvin: s.cctemp_kelvin,
        power_states: s.power_states.clone(),
    })
}

fn parse_nvme_version(v: &str) -> Option<u32> {
    let parts: Vec<u32> = v.split('.').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let (major, minor, ter) = match parts.as_slice() {
        [a, b] => (*a, *b, 0),
        [a, b, t] => (*a, *b, *t),
        _ => return None,
    };
    ((1..=2).contains(&major) && minor <= 9 && ter <= 9).then_some(major << 16 | minor << 8 | ter)
}

fn build_link(c: &Checker, s: &LinkSection) -> Result<LinkConfig, ProfileError> {
    let gen_ = c.range("link.pcie_gen", s.pcie_gen, 1, 6)?;
    if ![1, 2, 4, 8, 16].contains(&s.pcie_lanes) {
        return Err(c.bad("link.pcie_lanes", &s.pcie_lanes, "allowed 1, 2, 4, 8, 16"));
    }
    if !s.max_payload_bytes.is_power_of_two() || !(128..=4096).contains(&s.max_payload_bytes) {
        return Err(c.bad("link.max_payload_bytes", &s.max_payload_bytes, "a power of two from 128 to 4096"));
    }
    c.range("link.tlp_overhead_bytes", s.tlp_overhead_bytes, 0, 128)?;
    c.range("link.io_queues", s.io_queues, 1, 65535)?;
    c.range("link.queue_depth", s.queue_depth, 2, 65536)?;
    let ns = |field: &str, v: u64| c.range(field, v, 0, 1_000_000_000).map(SimDuration);
    Ok(LinkConfig::new(
        gen_,
        s.pcie_lanes,
        s.max_payload_bytes,
        s.tlp_overhead_bytes,
        ns("link.command_fetch_ns", s.command_fetch_ns)?,
        ns("link.completion_post_ns", s.completion_post_ns)?,
        s.io_queues,
        s.queue_depth,
    ))
}

/// The array's geometry, if its addresses fit in the map's and the program units' widths.
fn nand_geometry(c: &Checker, s: &NandSection, native: CellMode) -> Result<Geometry, ProfileError> {
    // Addresses inside a superblock are numbered in 32 bits.
    let sb_units = [s.channels, s.dies_per_channel, s.planes, s.page_bytes / 4096]
        .into_iter()
        .fold(u64::from(s.pages_per_block), |units, n| units * u64::from(n));
    if sb_units > u64::from(u32::MAX) {
        return Err(c.bad(
            "nand.pages_per_block",
            &s.pages_per_block,
            &format!(
                "a superblock (a block of every plane of every die) must hold at most 2^32 - 1 map units \
                 of 4 KiB; this geometry has {sb_units}"
            ),
        ));
    }
    let geometry = Geometry::new(
        s.channels,
        s.dies_per_channel,
        s.planes,
        s.blocks_per_plane,
        s.pages_per_block,
        s.page_bytes,
        native,
    );
    // The map addresses 2^34 - 1 units of 4 KiB (64 TiB of raw NAND, ftl::PageMap); program
    // units are numbered in 32 bits.
    if geometry.total_units() > crate::ftl::MAX_PHYSICAL_UNITS || geometry.total_pus() > u64::from(u32::MAX) {
        return Err(c.bad(
            "nand.blocks_per_plane",
            &s.blocks_per_plane,
            &format!(
                "the array must hold at most 2^34 - 1 map units of 4 KiB (64 TiB) and 2^32 - 1 program units; \
                 this geometry has {} and {}",
                geometry.total_units(),
                geometry.total_pus()
            ),
        ));
    }
    Ok(geometry)
}

fn build_nand(c: &Checker, s: &NandSection) -> Result<(Geometry, NandTiming), ProfileError> {
    let modes = [("slc", CellMode::Slc), ("mlc", CellMode::Mlc), ("tlc", CellMode::Tlc), ("qlc", CellMode::Qlc)];
    let native = c.choice("nand.cell", &s.cell, &modes)?;
    c.range("nand.channels", s.channels, 1, 64)?;
    c.range("nand.dies_per_channel", s.dies_per_channel, 1, 64)?;
    c.range("nand.planes", s.planes, 1, 16)?;
    c.range("nand.pages_per_block", s.pages_per_block, 1, 65536)?;
    if s.pages_per_block % native.bits() != 0 {
        return Err(c.bad(
            "nand.pages_per_block",
            &s.pages_per_block,
            &format!(
                "a multiple of {} (the bits per cell of {}), so a block can be used in SLC mode",
                native.bits(),
                native.name()
            ),
        ));
    }
    if s.page_bytes == 0 || s.page_bytes % 4096 != 0 || s.page_bytes > 65536 {
        return Err(c.bad("nand.page_bytes", &s.page_bytes, "a multiple of 4096 from 4096 to 65536"));
    }
    c.range("nand.blocks_per_plane", s.blocks_per_plane, 8, 1 << 20)?;
    c.range("nand.channel_mts", s.channel_mts, 1, 100_000)?;
    let geometry = nand_geometry(c, s, native)?;
    let tables = [s.slc, s.mlc, s.tlc, s.qlc];
    if tables[native.index()].is_none() {
        return Err(ProfileError::Missing {
            file: c.file.to_string(),
            field: format!("nand.{}", native.name()),
            why: "timings of the native cell mode".into(),
        });
    }
    let mut cell = [CellTiming { t_read: SimDuration::ZERO, t_prog: SimDuration::ZERO, t_erase: SimDuration::ZERO }; 4];
    for mode in CellMode::ALL {
        if let Some(t) = tables[mode.index()] {
            let f = |n: &str| format!("nand.{}.{n}", mode.name());
            cell[mode.index()] = CellTiming {
                t_read: c.positive_us(&f("t_read_us"), t.t_read_us)?,
                t_prog: c.positive_us(&f("t_prog_us"), t.t_prog_us)?,
                t_erase: c.positive_us(&f("t_erase_us"), t.t_erase_us)?,
            };
        }
    }
    let scheduler = c.choice(
        "nand.scheduler",
        &s.scheduler,
        &[("read-priority", DieScheduler::ReadPriority), ("fifo", DieScheduler::Fifo)],
    )?;
    let policy = c.choice(
        "nand.suspend",
        &s.suspend,
        &[
            ("none", SuspendPolicy::None),
            ("program", SuspendPolicy::Program),
            ("program-erase", SuspendPolicy::ProgramErase),
        ],
    )?;
    if policy != SuspendPolicy::None && scheduler == DieScheduler::Fifo {
        return Err(c.bad(
            "nand.suspend",
            &format!("\"{}\"", s.suspend),
            "suspend needs scheduler = \"read-priority\" (a FIFO die never lets a read overtake)",
        ));
    }
    let timing = NandTiming {
        cell,
        channel_bytes_per_sec: u64::from(s.channel_mts) * 1_000_000,
        channel_cmd: SimDuration(c.range("nand.channel_cmd_ns", s.channel_cmd_ns, 0, 1_000_000)?),
        ecc_decode: SimDuration(c.range("nand.ecc_decode_ns", s.ecc_decode_ns, 0, 1_000_000)?),
        scheduler,
        suspend: SuspendTiming {
            policy,
            t_suspend: c.us("nand.suspend_us", s.suspend_us)?,
            t_resume: c.us("nand.resume_us", s.resume_us)?,
            max_per_op: s.max_suspends,
        },
    };
    Ok((geometry, timing))
}

fn build_map_cache(
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
        hmb: identity.hmb,
    })
}

fn build_slc(
    c: &Checker,
    s: Option<&SlcCacheSection>,
    g: &Geometry,
    nand: &NandTiming,
) -> Result<SlcCacheConfig, ProfileError> {
    let Some(s) = s else { return Ok(SlcCacheConfig::NONE) };
    let gib = |field: &str, v: f64| -> Result<f64, ProfileError> {
        if !v.is_finite() || !(0.0..=1e6).contains(&v) {
            return Err(c.bad(field, &v, "allowed 0 to 1e6 GiB"));
        }
        Ok(v * f64::from(1 << 30))
    };
    if g.native == CellMode::Slc {
        return Err(c.bad("slc_cache", &"set", "an SLC cache needs a multi-bit native cell mode (nand.cell)"));
    }
    if nand.cell[CellMode::Slc.index()].t_read.as_ns() == 0 {
        return Err(ProfileError::Missing {
            file: c.file.to_string(),
            field: "nand.slc".into(),
            why: "timings of SLC mode, used by the SLC cache".into(),
        });
    }
    let slc_sb_bytes = f64::from(g.sb_units_in(CellMode::Slc)) * UNIT_BYTES as f64;
    let static_sb = (gib("slc_cache.static_gib", s.static_gib)? / slc_sb_bytes).ceil() as u32;
    let dynamic_max_sb = (gib("slc_cache.dynamic_max_gib", s.dynamic_max_gib)? / slc_sb_bytes).ceil() as u32;
    if static_sb >= g.superblocks() / 2 {
        return Err(c.bad(
            "slc_cache.static_gib",
            &s.static_gib,
            &format!(
                "less than half the drive in SLC mode ({} superblocks of {:.3} GiB)",
                g.superblocks() / 2,
                slc_sb_bytes / f64::from(1 << 30)
            ),
        ));
    }
    if !(0.0..=100.0).contains(&s.dynamic_min_free_pct) {
        return Err(c.bad("slc_cache.dynamic_min_free_pct", &s.dynamic_min_free_pct, "allowed 0 to 100"));
    }
    let when_full =
        c.choice("slc_cache.when_full", &s.when_full, &[("direct", WhenFull::Direct), ("fold", WhenFull::Fold)])?;
    let fold_in_background =
        c.choice("slc_cache.fold_priority", &s.fold_priority, &[("background", true), ("host", false)])?;
    let units = |bytes: f64| (bytes / UNIT_BYTES as f64) as u64;
    let fold_low_units = units(gib("slc_cache.fold_low_gib", s.fold_low_gib)?);
    let fold_high_units = match s.fold_high_gib {
        Some(h) => units(gib("slc_cache.fold_high_gib", h)?),
        None => u64::MAX,
    };
    if fold_high_units <= fold_low_units {
        return Err(c.bad(
            "slc_cache.fold_high_gib",
            &s.fold_high_gib.unwrap_or(0.0),
            &format!("must exceed fold_low_gib ({})", s.fold_low_gib),
        ));
    }
    let fold_urgent_units = match s.fold_urgent_gib {
        Some(u) => units(gib("slc_cache.fold_urgent_gib", u)?),
        None => u64::MAX,
    };
    let fold_idle = match s.fold_idle_ms {
        Some(ms) if ms.is_finite() && (0.0..=1e9).contains(&ms) => Some(SimDuration((ms * 1e6) as u64)),
        Some(ms) => return Err(c.bad("slc_cache.fold_idle_ms", &ms, "allowed 0 to 1e9 ms")),
        None => None,
    };
    Ok(SlcCacheConfig {
        static_sb,
        dynamic_max_sb,
        dynamic_min_free_sb: (f64::from(g.superblocks()) * s.dynamic_min_free_pct / 100.0).ceil() as u32,
        when_full,
        fold_high_units,
        fold_low_units,
        fold_idle,
        fold_on_read: s.fold_on_read,
        fold_in_background,
        fold_urgent_units,
    })
}

fn build_gc(c: &Checker, s: &FtlSection) -> Result<GcConfig, ProfileError> {
    let policy = c.choice(
        "ftl.gc_policy",
        &s.gc_policy,
        &[("greedy", VictimPolicy::Greedy), ("cost-benefit", VictimPolicy::CostBenefit)],
    )?;
    c.range("ftl.gc_fg_threshold_sb", s.gc_fg_threshold_sb, 2, 1 << 20)?;
    if s.gc_bg_threshold_sb <= s.gc_fg_threshold_sb {
        return Err(c.bad(
            "ftl.gc_bg_threshold_sb",
            &s.gc_bg_threshold_sb,
            &format!("must exceed ftl.gc_fg_threshold_sb ({})", s.gc_fg_threshold_sb),
        ));
    }
    Ok(GcConfig { policy, bg_threshold_sb: s.gc_bg_threshold_sb, fg_threshold_sb: s.gc_fg_threshold_sb })
}

fn build_controller(c: &Checker, s: &ControllerSection, g: &Geometry) -> Result<ControllerConfig, ProfileError> {
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
    })
}

/// The largest namespace a geometry can hold, and the superblocks kept back for it: GC's
/// reserve, every open frontier, the static SLC cache and the native room to fold it.
fn namespace_limit(g: &Geometry, gc: &GcConfig, slc: &SlcCacheConfig) -> (u64, u32) {
    let static_fold_sb = slc.static_sb.div_ceil(g.native.bits());
    let reserve_sb = gc.bg_threshold_sb + Stream::COUNT as u32 + 1 + slc.static_sb + static_fold_sb;
    let max_units = u64::from(g.superblocks().saturating_sub(reserve_sb)) * u64::from(g.sb_units());
    (max_units * UNIT_BYTES, reserve_sb)
}

/// The largest namespace, in bytes, that `loaded`'s geometry, GC reserve and SLC cache
/// allow (whatever capacity the profile asks for).
pub fn max_namespace_bytes(loaded: &LoadedProfile) -> Result<u64, ProfileError> {
    let file = loaded.source.as_str();
    let p: Profile = toml::Value::Table(loaded.table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| parse_error(file, &e.to_string()))?;
    let c = Checker { file };
    let (geometry, nand) = build_nand(&c, &p.nand)?;
    let gc = build_gc(&c, &p.ftl)?;
    let slc = build_slc(&c, p.slc_cache.as_ref(), &geometry, &nand)?;
    Ok(namespace_limit(&geometry, &gc, &slc).0)
}

fn build_namespace(
    c: &Checker,
    p: &Profile,
    g: &Geometry,
    gc: &GcConfig,
    slc: &SlcCacheConfig,
) -> Result<Namespace, ProfileError> {
    let n = &p.namespace;
    if n.lba_formats.is_empty() || n.lba_formats.len() > 16 {
        return Err(c.bad("namespace.lba_formats", &n.lba_formats.len(), "1 to 16 formats"));
    }
    let mut formats = Vec::with_capacity(n.lba_formats.len());
    for (i, f) in n.lba_formats.iter().enumerate() {
        let field = |name: &str| format!("namespace.lba_formats[{i}].{name}");
        if !f.data_bytes.is_power_of_two() || !(512..=65536).contains(&f.data_bytes) {
            return Err(c.bad(&field("data_bytes"), &f.data_bytes, "a power of two from 512 to 65536"));
        }
        c.range(&field("metadata_bytes"), f.metadata_bytes, 0, 65535)?;
        c.range(&field("relative_performance"), f.relative_performance, 0, 3)?;
        formats.push(LbaFormat {
            data_bytes: f.data_bytes,
            metadata_bytes: f.metadata_bytes,
            relative_performance: f.relative_performance,
        });
    }
    if n.current_format >= formats.len() {
        return Err(c.bad(
            "namespace.current_format",
            &n.current_format,
            &format!("allowed 0 to {}", formats.len() - 1),
        ));
    }
    let (max_bytes, reserve_sb) = namespace_limit(g, gc, slc);
    let capacity_bytes = match (p.identity.capacity_bytes, p.ftl.overprovisioning_pct) {
        (Some(_), Some(_)) => {
            return Err(c.bad(
                "ftl.overprovisioning_pct",
                &"set",
                "give identity.capacity_bytes or ftl.overprovisioning_pct, not both",
            ));
        }
        (None, None) => {
            return Err(ProfileError::Missing {
                file: c.file.to_string(),
                field: "identity.capacity_bytes".into(),
                why: "or ftl.overprovisioning_pct, to size the namespace".into(),
            });
        }
        (Some(bytes), None) => bytes,
        (None, Some(op)) => {
            if !op.is_finite() || !(0.0..100.0).contains(&op) {
                return Err(c.bad("ftl.overprovisioning_pct", &op, "allowed 0 to less than 100"));
            }
            let bytes = (g.raw_bytes() as f64 * (1.0 - op / 100.0)) as u64;
            bytes / UNIT_BYTES * UNIT_BYTES
        }
    };
    if capacity_bytes == 0 || capacity_bytes % UNIT_BYTES != 0 {
        return Err(c.bad("identity.capacity_bytes", &capacity_bytes, "a positive multiple of 4096"));
    }
    if let Some(f) = formats.iter().find(|f| capacity_bytes % u64::from(f.data_bytes) != 0) {
        return Err(c.bad(
            "identity.capacity_bytes",
            &capacity_bytes,
            &format!("a multiple of every LBA data size ({})", f.data_bytes),
        ));
    }
    if capacity_bytes > max_bytes {
        let field =
            if p.identity.capacity_bytes.is_some() { "identity.capacity_bytes" } else { "ftl.overprovisioning_pct" };
        let value = p.ftl.overprovisioning_pct.map_or_else(|| capacity_bytes.to_string(), |op| op.to_string());
        return Err(c.bad(
            field,
            &value,
            &format!(
                "the namespace may hold at most {max_bytes} bytes: raw {} bytes less {reserve_sb} superblocks for GC reserve, open frontiers and the static SLC cache",
                g.raw_bytes()
            ),
        ));
    }
    Ok(Namespace { formats, current: n.current_format, capacity_bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped_with(overrides: &[&str]) -> Result<DeviceConfig, ProfileError> {
        let mut p = load_profile("generic-tlc-1tb").unwrap();
        apply_overrides(&mut p, &overrides.iter().map(ToString::to_string).collect::<Vec<_>>())?;
        build(&p)
    }

    #[test]
    fn every_shipped_profile_builds() {
        for name in shipped_names() {
            let p = load_profile(name).unwrap();
            build(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn reported_only_identity_fields_are_optional() {
        let c = shipped_with(&[]).unwrap();
        assert_eq!((c.identity.wctemp_kelvin, c.identity.cctemp_kelvin), (None, None));
        assert!(c.identity.power_states.is_empty());
        let c = shipped_with(&[
            "identity.wctemp_kelvin=343",
            "identity.cctemp_kelvin=358",
            "identity.power_states=[{max_power_mw=8000}, {max_power_mw=5, non_operational=true, exit_latency_us=1200}]",
        ])
        .unwrap();
        assert_eq!((c.identity.wctemp_kelvin, c.identity.cctemp_kelvin), (Some(343), Some(358)));
        let ps = &c.identity.power_states;
        assert_eq!(
            ps[1],
            PowerStateSection { max_power_mw: 5, non_operational: true, entry_latency_us: 0, exit_latency_us: 1200 }
        );
    }

    #[test]
    fn warning_temperature_above_critical_is_refused() {
        let e = shipped_with(&["identity.wctemp_kelvin=360", "identity.cctemp_kelvin=358"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shipped:generic-tlc-1tb: identity.wctemp_kelvin = 360: at most identity.cctemp_kelvin (358)"
        );
    }

    #[test]
    fn power_beyond_the_identify_field_is_refused() {
        assert!(shipped_with(&["identity.power_states=[{max_power_mw=6553}, {max_power_mw=655350}]"]).is_ok());
        let e = shipped_with(&["identity.power_states=[{max_power_mw=8001}]"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shipped:generic-tlc-1tb: identity.power_states[0].max_power_mw = 8001: \
             up to 6553, or a multiple of 10 up to 655350"
        );
    }

    #[test]
    fn nvme_versions_up_to_2_9_9_are_accepted() {
        for (text, ver) in [("1.0", 0x1_00_00), ("2.1", 0x2_01_00), ("2.9.9", 0x2_09_09)] {
            let c = shipped_with(&[&format!("identity.nvme_version=\"{text}\"")]).unwrap();
            assert_eq!(c.identity.nvme_version, ver, "{text}");
        }
        for text in ["3.0", "0.9", "1.10", "2.0.10", "1"] {
            let e = shipped_with(&[&format!("identity.nvme_version=\"{text}\"")]).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "shipped:generic-tlc-1tb: identity.nvme_version = \"{text}\": \
                     \"major.minor[.tertiary]\" with major 1 or 2, minor and tertiary 0 to 9"
                )
            );
        }
    }

    #[test]
    fn map_cell_may_be_any_mode_up_to_the_native_one() {
        let tables = "nand.mlc={t_read_us=40.0, t_prog_us=400.0, t_erase_us=3000.0}";
        let c = shipped_with(&[tables, "map_cache.map_cell=mlc"]).unwrap();
        assert_eq!(c.map_cache.map_mode, CellMode::Mlc);
        let c = shipped_with(&["map_cache.map_cell=tlc"]).unwrap();
        assert_eq!(c.map_cache.map_mode, CellMode::Tlc);
        let allowed = "a mode with no more bits per cell than nand.cell (tlc)";
        let e = shipped_with(&["map_cache.map_cell=qlc"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("shipped:generic-tlc-1tb: map_cache.map_cell = \"qlc\": {allowed}, with its timings in [nand.qlc]")
        );
        // MLC has no more bits than TLC, but the profile gives no MLC timings.
        let e = shipped_with(&["map_cache.map_cell=mlc"]).unwrap_err();
        assert!(e.to_string().ends_with(&format!("{allowed}, with its timings in [nand.mlc]")), "{e}");
    }

    #[test]
    fn urgent_fold_watermark_is_gib_of_cached_data() {
        let p = load_profile("wd-black-256").unwrap();
        let with = |v: &str| {
            let mut p = p.clone();
            apply_overrides(&mut p, &[format!("slc_cache.fold_urgent_gib={v}")])?;
            build(&p)
        };
        assert_eq!(with("1.0").unwrap().slc.fold_urgent_units, (1 << 30) / 4096);
        let e = with("-1.0").unwrap_err();
        assert_eq!(e.to_string(), "shipped:wd-black-256: slc_cache.fold_urgent_gib = -1: allowed 0 to 1e6 GiB");
    }

    #[test]
    fn endurance_defaults_follow_the_cell_mode() {
        let c = shipped_with(&[]).unwrap();
        let e = &c.endurance;
        assert_eq!(e.rated_pe_cycles[CellMode::Tlc.index()], 3_000);
        // The SLC mode of a TLC die: ten times the TLC rating.
        assert_eq!(e.rated_pe_cycles[CellMode::Slc.index()], 30_000);
        assert_eq!((e.levelling, e.spare_blocks_per_plane, e.spare_threshold_pct), (WearLevelling::Dynamic, 0, 10));
        assert!((e.block_spread - 0.1).abs() < 1e-12);
        // The drive needs its namespace's superblocks and the reserve beyond them.
        let ns_sb = c.logical_units.div_ceil(u64::from(c.geometry.sb_units())) as u32;
        assert!(e.min_superblocks > ns_sb && e.min_superblocks <= c.geometry.superblocks(), "{}", e.min_superblocks);
        let c = shipped_with(&["endurance.qlc_pe_cycles=600", "ftl.wear_levelling=static"]).unwrap();
        assert_eq!(
            (c.endurance.rated_pe_cycles[CellMode::Qlc.index()], c.endurance.levelling),
            (600, WearLevelling::Static)
        );
    }

    #[test]
    fn a_superblock_too_large_to_address_is_refused() {
        let o = [
            "nand.cell=slc",
            "nand.pages_per_block=65536",
            "nand.channels=64",
            "nand.dies_per_channel=64",
            "nand.planes=16",
            "nand.page_bytes=65536",
        ];
        let e = shipped_with(&o).unwrap_err().to_string();
        assert!(e.contains("nand.pages_per_block") && e.contains("68719476736"), "{e}");
    }

    #[test]
    fn bad_endurance_values_name_the_field() {
        let e = shipped_with(&["endurance.tlc_pe_cycles=0"]).unwrap_err();
        assert_eq!(e.to_string(), "shipped:generic-tlc-1tb: endurance.tlc_pe_cycles = 0: allowed 1 to 10000000");
        let e = shipped_with(&["endurance.rated_tb_written=-1.0"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shipped:generic-tlc-1tb: endurance.rated_tb_written = -1: a positive number up to 1e9"
        );
        let e = shipped_with(&["ftl.wear_levelling=round-robin"]).unwrap_err();
        assert!(e.to_string().ends_with("ftl.wear_levelling = \"round-robin\": allowed fifo, dynamic, static"), "{e}");
        let e = shipped_with(&["endurance.block_spread_pct=120"]).unwrap_err();
        assert!(e.to_string().ends_with("endurance.block_spread_pct = 120: allowed 0 to 100"), "{e}");
        let e = shipped_with(&["endurance.uber_per_bit=0.001"]).unwrap_err();
        assert!(
            e.to_string().ends_with("endurance.uber_per_bit = 0.001: allowed 0 to 3.052e-5 (one error per 4 KiB read)"),
            "{e}"
        );
        let e = shipped_with(&["endurance.uber_tenfold_pct=0"]).unwrap_err();
        assert!(e.to_string().ends_with("endurance.uber_tenfold_pct = 0: allowed above 0 up to 1000"), "{e}");
    }

    #[test]
    fn the_bit_error_law_defaults_to_a_client_drive_and_takes_the_profile_s() {
        let law = shipped_with(&[]).unwrap().endurance.bit_errors;
        assert_eq!((law.uber_per_bit, law.tenfold_life), (1e-15, 0.1));
        let law = shipped_with(&["endurance.uber_per_bit=1e-16", "endurance.uber_tenfold_pct=25"])
            .unwrap()
            .endurance
            .bit_errors;
        assert_eq!((law.uber_per_bit, law.tenfold_life), (1e-16, 0.25));
    }

    #[test]
    fn thermal_defaults_and_throttle_budgets_become_die_caps() {
        let c = shipped_with(&["power.die_program_w=0.1"]).unwrap();
        let t = &c.thermal;
        assert_eq!((t.warning_k, t.critical_k), (343.0, 358.0));
        assert!((t.ambient_k - 298.15).abs() < 1e-9 && (t.resistance_k_per_w - 12.0).abs() < 1e-12);
        assert_eq!(c.hctm_range_kelvin, None);
        // 32 dies at 0.1 W each, 1.5 W idle, 0.5 W per link direction: at most 5.7 W.
        // Light: 4.275 W leaves (4.275 − 2.5) / 0.1 = 17 dies; heavy 2.85 W: 3; critical
        // 1.425 W: less than idle, so one.
        assert_eq!(t.die_caps, [u32::MAX, 17, 3, 1]);
        // Airflow of four times the doubling speed triples the conductance.
        let c = shipped_with(&["thermal.airflow_m_per_s=2.0"]).unwrap();
        assert!((c.thermal.resistance_k_per_w - 4.0).abs() < 1e-12);
        assert_eq!(c.power.states.len(), 1);
        assert!((c.power.states[0].max_power_w - 6.0).abs() < 1e-12);
    }

    #[test]
    fn host_thresholds_need_hctm_and_order() {
        let e = shipped_with(&["thermal.hctm_tmt1_kelvin=330"]).unwrap_err();
        assert!(e.to_string().ends_with("thermal.hctm_tmt1_kelvin = 330: 0: the controller has no HCTM (give thermal.hctm_min_kelvin and hctm_max_kelvin)"), "{e}");
        let range = ["thermal.hctm_min_kelvin=273", "thermal.hctm_max_kelvin=358"];
        let e = shipped_with(&[range[0], range[1], "thermal.hctm_tmt1_kelvin=400"]).unwrap_err();
        assert!(
            e.to_string().ends_with("thermal.hctm_tmt1_kelvin = 400: 0 (off) or 273 to 358 kelvin (MNTMT to MXTMT)"),
            "{e}"
        );
        let e = shipped_with(&[range[0], range[1], "thermal.hctm_tmt1_kelvin=340", "thermal.hctm_tmt2_kelvin=330"])
            .unwrap_err();
        assert!(e.to_string().ends_with("thermal.hctm_tmt1_kelvin = 340: below hctm_tmt2_kelvin (330)"), "{e}");
        let c = shipped_with(&[range[0], range[1], "thermal.hctm_tmt1_kelvin=330"]).unwrap();
        assert_eq!((c.thermal.tmt1_k, c.thermal.tmt2_k, c.hctm_range_kelvin), (Some(330.0), None, Some((273, 358))));
        let e = shipped_with(&["identity.power_states=[{max_power_mw=5, non_operational=true}]"]).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("identity.power_states[0].non_operational = true: false: state 0 is where I/O runs"),
            "{e}"
        );
        let e = shipped_with(&["thermal.heat_capacity_j_per_k=0"]).unwrap_err();
        assert!(
            e.to_string().ends_with("thermal.heat_capacity_j_per_k = 0: greater than 0, at most 1000000 J/K"),
            "{e}"
        );
    }

    #[test]
    fn zero_dies_is_refused() {
        let e = shipped_with(&["nand.dies_per_channel=0"]).unwrap_err();
        assert_eq!(e.to_string(), "shipped:generic-tlc-1tb: nand.dies_per_channel = 0: allowed 1 to 64");
    }

    #[test]
    fn page_size_must_be_a_multiple_of_4k() {
        let e = shipped_with(&["nand.page_bytes=6000"]).unwrap_err();
        assert!(e.to_string().contains("nand.page_bytes = 6000: a multiple of 4096"), "{e}");
    }

    #[test]
    fn overprovisioning_of_100_percent_is_refused() {
        let e = shipped_with(&["identity.capacity_bytes=0", "ftl.overprovisioning_pct=100"]).unwrap_err();
        // capacity_bytes=0 is still "set": remove it by building a table without it.
        assert!(e.to_string().contains("ftl.overprovisioning_pct"), "{e}");
        let mut p = load_profile("generic-tlc-1tb").unwrap();
        p.table["identity"].as_table_mut().unwrap().remove("capacity_bytes");
        apply_overrides(&mut p, &["ftl.overprovisioning_pct=100".into()]).unwrap();
        let e = build(&p).unwrap_err();
        assert_eq!(
            e.to_string(),
            "shipped:generic-tlc-1tb: ftl.overprovisioning_pct = 100: allowed 0 to less than 100"
        );
    }

    #[test]
    fn unknown_fields_and_bad_types_name_the_place() {
        let e = shipped_with(&["nand.chanels=4"]).unwrap_err();
        assert!(
            e.to_string().starts_with("shipped:generic-tlc-1tb: [nand]: unknown field `chanels`, expected one of"),
            "{e}"
        );
        let text = load_profile("generic-tlc-1tb").unwrap().to_toml().replace("channels = 8", "chanels = 8");
        let e = build(&LoadedProfile::from_str(&text, "my.toml", "my").unwrap()).unwrap_err();
        assert!(e.to_string().starts_with("my.toml: line "), "{e}");
        assert!(e.to_string().contains("unknown field `chanels`"), "{e}");
        let e = shipped_with(&["nand.channels=\"eight\""]).unwrap_err();
        assert!(e.to_string().contains("channels"), "{e}");
        assert!(!e.to_string().contains('\n'));
    }

    #[test]
    fn unknown_choice_lists_what_is_allowed() {
        let e = shipped_with(&["ftl.gc_policy=lru"]).unwrap_err();
        assert!(e.to_string().ends_with("ftl.gc_policy = \"lru\": allowed greedy, cost-benefit"), "{e}");
    }

    #[test]
    fn capacity_beyond_the_nand_is_refused() {
        let e = shipped_with(&["identity.capacity_bytes=2000398934016"]).unwrap_err();
        assert!(e.to_string().contains("may hold at most"), "{e}");
    }

    #[test]
    fn drives_beyond_two_to_the_32_units_build_up_to_64_tib_of_nand() {
        // The generic drive with 32 times the blocks: 32 TiB of NAND behind 30.72 TB.
        let c = shipped_with(&["nand.blocks_per_plane=29120", "identity.capacity_bytes=30720000000000"]).unwrap();
        assert_eq!(c.logical_units, 30_720_000_000_000 / 4096);
        assert!(c.geometry.total_units() > 1 << 32);
        // 4 B per logical unit and its 2 high bits, 4 B per physical unit: ~62 GiB.
        let l = c.logical_units;
        let expected = 4 * l + l.div_ceil(4) + 4 * c.geometry.total_units();
        let estimate = model_memory_bytes(&c, false);
        assert!(estimate >= expected && estimate < expected + (8 << 20), "{estimate} vs {expected}");
        let e = shipped_with(&["nand.blocks_per_plane=65536"]).unwrap_err();
        assert!(e.to_string().contains("at most 2^34 - 1 map units of 4 KiB (64 TiB)"), "{e}");
    }

    #[test]
    fn unknown_profile_lists_shipped_ones() {
        let e = load_profile("no-such-drive").unwrap_err();
        assert!(e.to_string().contains("generic-tlc-1tb"), "{e}");
    }
}
