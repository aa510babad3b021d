//! Temperature and thermal throttling: a lumped thermal model of the drive heated by the
//! power of what it does, and the firmware's throttling thresholds.
//!
//! Read NVMe Base Specification 1.4 § 8.4.5 (Host Controlled Thermal Management), § 5.14.1.2
//! (Composite Temperature, Warning and Critical Composite Temperature Time) and § 5.15.2.2
//! (WCTEMP, CCTEMP); `docs/model.md` § "Thermal model and power states" lists what is
//! simplified.
//!
//! **Power.** The drive draws `idle_w` in its operational state (less in a
//! non-operational APST state: its maximum power), plus, while they run, `die_read_w`,
//! `die_program_w` or `die_erase_w` per die and `link_w` per link direction transferring.
//! Energy is taken from the dies' and link's busy times, so nothing is counted per I/O.
//!
//! **Heat.** One thermal mass `C` (J/K) with resistance `R` (K/W) to ambient air at `T_a`:
//! `C dT/dt = P − (T − T_a) / R`. Airflow lowers `R` as forced convection does:
//! `R = R_still / (1 + sqrt(v / v_2))`, `v_2` the airflow at which the conductance doubles.
//! Over each sensor period the power is taken as constant (its mean), so the temperature
//! moves exactly: `T(t) = T_ss + (T₀ − T_ss) e^(−t/RC)`, `T_ss = T_a + P R`, and the time
//! spent above each threshold in the period follows from the same curve.
//!
//! **Throttling.** Two independent ladders, each with hysteresis (a level is left only once
//! the temperature is `hysteresis` below its threshold):
//!
//! ```text
//!   host-controlled (HCTM):  none ─T ≥ TMT1─▶ light ─T ≥ TMT2─▶ heavy
//!   the drive's own:         none ─T ≥ WCTEMP─▶ heavy ─T ≥ CCTEMP─▶ critical
//! ```
//!
//! Each level is a power budget (`throttle_*_w`); the firmware keeps within it by letting
//! no more dies run at once than `(budget − idle − link) / die_program_w` (at least one):
//! the NAND array is what a drive's power goes to, and the cap bounds it whatever the mix.

use crate::engine::{SimDuration, SimTime};

/// Power drawn by each kind of activity, W.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerModel {
    /// The whole drive idle in its operational power state (controller, DRAM, NAND standby).
    pub idle_w: f64,
    /// One die reading (array), on top of idle.
    pub die_read_w: f64,
    /// One die programming.
    pub die_program_w: f64,
    /// One die erasing.
    pub die_erase_w: f64,
    /// One link direction transferring data.
    pub link_w: f64,
}

impl PowerModel {
    /// Energy, joules, of array time by activity (reads, programs, erases, ns) and link
    /// busy time (ns, both directions together).
    pub fn active_energy_j(&self, array_ns: [u64; 3], link_ns: u64) -> f64 {
        let w = [self.die_read_w, self.die_program_w, self.die_erase_w];
        (array_ns.iter().zip(w).map(|(&ns, w)| ns as f64 * w).sum::<f64>() + link_ns as f64 * self.link_w) * 1e-9
    }
}

/// A throttling level (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Throttle {
    /// No throttling.
    None,
    /// HCTM light throttling (TMT1).
    Light,
    /// HCTM heavy throttling (TMT2) or the drive's own above WCTEMP.
    Heavy,
    /// The drive's own above CCTEMP.
    Critical,
}

/// Validated thermal parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ThermalConfig {
    /// Power per activity.
    pub power: PowerModel,
    /// Ambient air, kelvin.
    pub ambient_k: f64,
    /// Heat capacity, J/K.
    pub heat_capacity_j_per_k: f64,
    /// Thermal resistance to ambient with the configured airflow, K/W.
    pub resistance_k_per_w: f64,
    /// Warning Composite Temperature Threshold (WCTEMP), kelvin.
    pub warning_k: f64,
    /// Critical Composite Temperature Threshold (CCTEMP), kelvin.
    pub critical_k: f64,
    /// HCTM thresholds the host set (TMT1, TMT2), kelvin; `None`: disabled.
    pub tmt1_k: Option<f64>,
    /// See `tmt1_k`.
    pub tmt2_k: Option<f64>,
    /// How far below a threshold the temperature must fall to leave its level, K.
    pub hysteresis_k: f64,
    /// How often the firmware reads its sensor and updates throttling.
    pub sensor_period: SimDuration,
    /// Most dies running at once at each level ([`Throttle`] order; `u32::MAX`: no cap).
    pub die_caps: [u32; 4],
}

/// Thermal history since the drive was built, kept across saves.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ThermalTotals {
    /// Time at or above WCTEMP, ns.
    pub warning_ns: u64,
    /// Time at or above CCTEMP, ns.
    pub critical_ns: u64,
    /// Time in HCTM light throttling (TMT1), ns.
    pub tmt1_ns: u64,
    /// Time in HCTM heavy throttling (TMT2), ns.
    pub tmt2_ns: u64,
    /// Entries into HCTM light throttling.
    pub tmt1_transitions: u64,
    /// Entries into HCTM heavy throttling.
    pub tmt2_transitions: u64,
    /// Time throttled at any level, ns.
    pub throttled_ns: u64,
    /// Energy drawn, joules.
    pub energy_j: f64,
    /// Highest temperature reached, kelvin.
    pub max_temperature_k: f64,
}

/// The thermal state: temperature, throttling levels, and what the last update saw.
#[derive(Clone, Debug, PartialEq)]
pub struct Thermal {
    /// Composite temperature, kelvin.
    pub temperature_k: f64,
    /// HCTM level (none, light or heavy).
    pub hctm: Throttle,
    /// The drive's own level (none, heavy or critical).
    pub own: Throttle,
    /// Histories.
    pub totals: ThermalTotals,
    last: SimTime,
    next: SimTime,
    last_array_ns: [u64; 3],
    last_link_ns: u64,
    /// Energy of the last period, joules, and its length: the mean power of the last period.
    last_power_w: f64,
}

impl Thermal {
    /// A drive at ambient temperature at `now`, with the dies' and link's busy times so far.
    pub fn new(cfg: &ThermalConfig, now: SimTime, array_ns: [u64; 3], link_ns: u64) -> Self {
        Thermal {
            temperature_k: cfg.ambient_k,
            hctm: Throttle::None,
            own: Throttle::None,
            totals: ThermalTotals { max_temperature_k: cfg.ambient_k, ..ThermalTotals::default() },
            last: now,
            next: now + cfg.sensor_period,
            last_array_ns: array_ns,
            last_link_ns: link_ns,
            last_power_w: cfg.power.idle_w,
        }
    }

    /// When the firmware next reads its sensor.
    #[inline]
    pub fn next_update(&self) -> SimTime {
        self.next
    }

    /// When it last did.
    pub fn last_update(&self) -> SimTime {
        self.last
    }

    /// The effective level: the higher of the two ladders.
    pub fn level(&self) -> Throttle {
        self.hctm.max(self.own)
    }

    /// Mean power over the last sensor period, W.
    pub fn power_w(&self) -> f64 {
        self.last_power_w
    }

    /// Brings the temperature to `now`: the energy since the last update (`idle_energy_j`
    /// for the base draw, the rest from the busy times given, totals since the drive was
    /// built) heats the drive as the module doc says; the levels follow. Returns the new
    /// die cap if it changed.
    pub fn update(
        &mut self,
        cfg: &ThermalConfig,
        now: SimTime,
        array_ns: [u64; 3],
        link_ns: u64,
        idle_energy_j: f64,
    ) -> Option<u32> {
        self.next = now + cfg.sensor_period;
        if now <= self.last {
            return None;
        }
        let dt = now.since(self.last);
        let busy = [
            array_ns[0] - self.last_array_ns[0],
            array_ns[1] - self.last_array_ns[1],
            array_ns[2] - self.last_array_ns[2],
        ];
        let energy = idle_energy_j + cfg.power.active_energy_j(busy, link_ns - self.last_link_ns);
        let secs = dt.as_secs_f64();
        let power = energy / secs;
        let tau = cfg.resistance_k_per_w * cfg.heat_capacity_j_per_k;
        let t_ss = cfg.ambient_k + power * cfg.resistance_k_per_w;
        let t0 = self.temperature_k;
        let t1 = t_ss + (t0 - t_ss) * (-secs / tau).exp();
        let above = |theta: f64| -> u64 { (time_above(t0, t1, t_ss, tau, secs, theta) * 1e9).round() as u64 };
        let level_before = self.level();
        let t = &mut self.totals;
        t.warning_ns += above(cfg.warning_k);
        t.critical_ns += above(cfg.critical_k);
        match self.hctm {
            Throttle::Light => t.tmt1_ns += dt.as_ns(),
            Throttle::Heavy => t.tmt2_ns += dt.as_ns(),
            Throttle::None | Throttle::Critical => {}
        }
        if level_before != Throttle::None {
            t.throttled_ns += dt.as_ns();
        }
        t.energy_j += energy;
        t.max_temperature_k = t.max_temperature_k.max(t0.max(t1));
        self.temperature_k = t1;
        self.last = now;
        self.last_array_ns = array_ns;
        self.last_link_ns = link_ns;
        self.last_power_w = power;
        self.settle(cfg);
        (self.level() != level_before).then(|| cfg.die_caps[self.level() as usize])
    }

    /// Moves each ladder to the level the temperature calls for, with hysteresis.
    fn settle(&mut self, cfg: &ThermalConfig) {
        let t = self.temperature_k;
        let hctm_for = |t: f64| match (cfg.tmt1_k, cfg.tmt2_k) {
            (_, Some(k2)) if t >= k2 => Throttle::Heavy,
            (Some(k1), _) if t >= k1 => Throttle::Light,
            _ => Throttle::None,
        };
        let own_for = |t: f64| {
            if t >= cfg.critical_k {
                Throttle::Critical
            } else if t >= cfg.warning_k {
                Throttle::Heavy
            } else {
                Throttle::None
            }
        };
        let h = cfg.hysteresis_k;
        let hctm = hctm_for(t);
        // Up at once; down only to what the temperature plus the hysteresis still calls for.
        let hctm = if hctm >= self.hctm { hctm } else { self.hctm.min(hctm_for(t + h)) };
        if hctm > self.hctm {
            match hctm {
                Throttle::Light => self.totals.tmt1_transitions += 1,
                Throttle::Heavy => self.totals.tmt2_transitions += 1,
                Throttle::None | Throttle::Critical => {}
            }
        }
        self.hctm = hctm;
        let own = own_for(t);
        self.own = if own >= self.own { own } else { self.own.min(own_for(t + h)) };
    }

    /// The temperature at `now` if the drive drew `power_w` since the last update (for
    /// reports between updates; the state does not change).
    pub fn temperature_at(&self, cfg: &ThermalConfig, now: SimTime, power_w: f64) -> f64 {
        if now <= self.last {
            return self.temperature_k;
        }
        let secs = now.since(self.last).as_secs_f64();
        let t_ss = cfg.ambient_k + power_w * cfg.resistance_k_per_w;
        t_ss + (self.temperature_k - t_ss) * (-secs / (cfg.resistance_k_per_w * cfg.heat_capacity_j_per_k)).exp()
    }
}

/// Seconds of a period of `secs` during which `T(t) = t_ss + (t0 − t_ss) e^(−t/τ)` (from `t0`
/// to `t1`) is at or above `theta`.
fn time_above(t0: f64, t1: f64, t_ss: f64, tau: f64, secs: f64, theta: f64) -> f64 {
    match (t0 >= theta, t1 >= theta) {
        (true, true) => secs,
        (false, false) => 0.0,
        // Crossing: e^(−t*/τ) = (θ − t_ss) / (t0 − t_ss).
        (up, _) => {
            let crossing = (tau * ((t0 - t_ss) / (theta - t_ss)).ln()).clamp(0.0, secs);
            if up { crossing } else { secs - crossing }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ThermalConfig {
        ThermalConfig {
            power: PowerModel { idle_w: 2.0, die_read_w: 0.1, die_program_w: 0.2, die_erase_w: 0.15, link_w: 0.5 },
            ambient_k: 298.15,
            heat_capacity_j_per_k: 10.0,
            resistance_k_per_w: 10.0,
            warning_k: 343.0,
            critical_k: 358.0,
            tmt1_k: Some(333.0),
            tmt2_k: Some(338.0),
            hysteresis_k: 2.0,
            sensor_period: SimDuration::from_ms(100),
            die_caps: [u32::MAX, 16, 8, 2],
        }
    }

    #[test]
    fn a_constant_load_settles_at_ambient_plus_power_times_resistance() {
        let c = cfg();
        let mut th = Thermal::new(&c, SimTime::ZERO, [0; 3], 0);
        // 6 W for 5000 s (50 time constants): T = 298.15 + 6 × 10 = 358.15 K.
        let now = SimTime::ZERO + SimDuration::from_secs(5000);
        th.update(&c, now, [0; 3], 0, 6.0 * 5000.0);
        assert!((th.temperature_k - 358.15).abs() < 1e-6, "{}", th.temperature_k);
        // One time constant from ambient at the same power: 1 − 1/e of the rise.
        let mut th = Thermal::new(&c, SimTime::ZERO, [0; 3], 0);
        th.update(&c, SimTime::ZERO + SimDuration::from_secs(100), [0; 3], 0, 600.0);
        let expected = 298.15 + 60.0 * (1.0 - (-1.0f64).exp());
        assert!((th.temperature_k - expected).abs() < 1e-9);
    }

    #[test]
    fn busy_dies_and_link_turn_into_energy() {
        let c = cfg();
        // 1 s of reads, 2 s of programs and 1 s of erases over the dies, 1 s of link.
        let e = c.power.active_energy_j([1_000_000_000, 2_000_000_000, 1_000_000_000], 1_000_000_000);
        assert!((e - (0.1 + 0.4 + 0.15 + 0.5)).abs() < 1e-12);
    }

    #[test]
    fn time_above_a_threshold_follows_the_exponential() {
        // From 298.15 K towards 358.15 K with τ = 100 s, T(t) = 358.15 − 60 e^(−t/100):
        // 343 K is crossed at t* = 100 ln(60 / 15.15); 358 K only after 599 s.
        let c = cfg();
        let mut th = Thermal::new(&c, SimTime::ZERO, [0; 3], 0);
        th.update(&c, SimTime::ZERO + SimDuration::from_secs(500), [0; 3], 0, 6.0 * 500.0);
        let expected = 500.0 - 100.0 * (60.0f64 / (358.15 - 343.0)).ln();
        assert!((th.totals.warning_ns as f64 / 1e9 - expected).abs() < 1e-6, "{}", th.totals.warning_ns);
        assert_eq!(th.totals.critical_ns, 0);
        // Cooling at idle (2 W: 318.15 K) from there, 343 K is left after 100 ln(40.0 / 24.85) s.
        let t0 = th.temperature_k;
        th.update(&c, SimTime::ZERO + SimDuration::from_secs(1500), [0; 3], 0, 2.0 * 1000.0);
        let back = 100.0 * ((t0 - 318.15) / (343.0 - 318.15)).ln();
        assert!((th.totals.warning_ns as f64 / 1e9 - expected - back).abs() < 1e-6);
    }

    #[test]
    fn levels_rise_at_their_thresholds_and_fall_with_hysteresis() {
        let c = cfg();
        let mut th = Thermal::new(&c, SimTime::ZERO, [0; 3], 0);
        let set = |th: &mut Thermal, k: f64| {
            th.temperature_k = k;
            th.settle(&c);
            (th.hctm, th.own, th.level())
        };
        assert_eq!(set(&mut th, 332.9), (Throttle::None, Throttle::None, Throttle::None));
        assert_eq!(set(&mut th, 333.0), (Throttle::Light, Throttle::None, Throttle::Light));
        assert_eq!(set(&mut th, 338.5), (Throttle::Heavy, Throttle::None, Throttle::Heavy));
        // 337 K is below TMT2 but within the hysteresis: still heavy.
        assert_eq!(set(&mut th, 337.0), (Throttle::Heavy, Throttle::None, Throttle::Heavy));
        assert_eq!(set(&mut th, 335.9), (Throttle::Light, Throttle::None, Throttle::Light));
        assert_eq!(set(&mut th, 358.0), (Throttle::Heavy, Throttle::Critical, Throttle::Critical));
        assert_eq!(set(&mut th, 300.0), (Throttle::None, Throttle::None, Throttle::None));
        assert_eq!((th.totals.tmt1_transitions, th.totals.tmt2_transitions), (1, 2));
    }
}
