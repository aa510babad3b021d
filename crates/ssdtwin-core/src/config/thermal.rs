//! `[power]`, `[thermal]` and the identity's power states, checked: what each activity draws,
//! the lumped thermal model and the throttling budgets it enforces.

use super::device::{DEFAULT_CCTEMP_KELVIN, DEFAULT_MAX_POWER_MW, DEFAULT_WCTEMP_KELVIN};
use super::profile::{IdentitySection, PowerSection, Profile};
use crate::controller::thermal::{PowerModel, ThermalConfig};
use crate::engine::SimDuration;
use crate::nand::Geometry;
use crate::nvme::{PowerState, PowerStates};
use crate::profile_file::{Checker, ProfileError};

pub(super) fn build_power_model(c: &Checker, s: &PowerSection) -> Result<PowerModel, ProfileError> {
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
pub(super) fn build_power_states(c: &Checker, id: &IdentitySection) -> Result<PowerStates, ProfileError> {
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
pub(super) fn build_thermal(
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
