//! NVMe power states and Autonomous Power State Transitions (APST).
//!
//! Read NVMe Base Specification 1.4 § 8.4 (power management), § 5.21.1.12 (Autonomous Power
//! State Transition) and § 5.15.2.2 (power state descriptors), and Linux's
//! `nvme_configure_apst` (`drivers/nvme/host/core.c`); `docs/model.md` § "Thermal model and
//! power states" lists what is simplified.
//!
//! A controller describes its power states in Identify Controller: state 0 first, each with
//! its maximum power, whether it is *operational* (processes I/O) and, for a
//! non-operational one, its entry and exit latencies. With APST enabled, the host gives the
//! controller a table: for each state, an idle time (ITPT) and a deeper state (ITPS); after
//! that long with no command outstanding the controller moves there on its own. The first
//! command after that waits for the exit latency (and for the rest of the entry, if the
//! state was still being entered).
//!
//! ```text
//!          idle ITPT(0)          idle ITPT(3)
//!   PS0 ────────────────▶ PS3 ────────────────▶ PS4
//!    ▲                     │ command:             │ command:
//!    └─────────────────────┴ exit latency ────────┘ exit latency
//! ```
//!
//! The device never keeps a timer for this: the state at any moment follows from when the
//! host went idle ([`PowerStates::state_at`]), so idle time costs no event.

use crate::engine::{SimDuration, SimTime};

/// One power state, as the model uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerState {
    /// Maximum power, W: for a non-operational state, what the drive draws in it.
    pub max_power_w: f64,
    /// No I/O is processed in this state.
    pub non_operational: bool,
    /// Entry latency (ENLAT).
    pub entry: SimDuration,
    /// Exit latency (EXLAT).
    pub exit: SimDuration,
}

/// One APST table entry: after `idle` in this state, go to state `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApstEntry {
    /// Idle Time Prior to Transition (ITPT).
    pub idle: SimDuration,
    /// Idle Transition Power State (ITPS).
    pub target: u8,
}

/// The drive's power states and the APST table the host programmed (empty: APST off).
#[derive(Clone, Debug, PartialEq)]
pub struct PowerStates {
    /// State 0 first.
    pub states: Vec<PowerState>,
    /// Per state, where APST takes it (`None`: nowhere). Empty when APST is disabled.
    pub apst: Vec<Option<ApstEntry>>,
}

/// Where the drive is after some idle time: the state, when it began entering it, and the
/// transitions made to get there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleState {
    /// Power state.
    pub state: u8,
    /// When it began entering that state.
    pub since: SimTime,
    /// Autonomous transitions made since the host went idle.
    pub transitions: u32,
}

impl PowerStates {
    /// True if the controller supports APST (it has a non-operational state to go to).
    pub fn apst_supported(&self) -> bool {
        self.states.iter().any(|s| s.non_operational)
    }

    /// True if the host enabled APST with at least one transition.
    pub fn apst_enabled(&self) -> bool {
        self.apst.iter().any(Option::is_some)
    }

    /// The state at `now` of a drive that has been idle since `idle_since`, starting from
    /// state 0 (the operational state I/O runs in).
    pub fn state_at(&self, idle_since: SimTime, now: SimTime) -> IdleState {
        let mut s = IdleState { state: 0, since: idle_since, transitions: 0 };
        // Each transition goes to another state; a table can name at most every state once.
        for _ in 0..self.states.len() {
            let Some(Some(e)) = self.apst.get(s.state as usize) else { break };
            let at = s.since + e.idle;
            if at > now {
                break;
            }
            s = IdleState { state: e.target, since: at, transitions: s.transitions + 1 };
        }
        s
    }

    /// How long a command arriving at `now` waits before the controller can process it,
    /// after being idle since `idle_since`: the exit latency of a non-operational state,
    /// plus whatever of its entry is not finished.
    pub fn wake_latency(&self, idle_since: SimTime, now: SimTime) -> (SimDuration, IdleState) {
        let s = self.state_at(idle_since, now);
        let ps = &self.states[s.state as usize];
        if !ps.non_operational {
            return (SimDuration::ZERO, s);
        }
        let entering = (s.since + ps.entry).since(now.min(s.since + ps.entry));
        (ps.exit + entering, s)
    }

    /// Energy, joules, of the idle drive over `[from, to)` when it went idle at
    /// `idle_since` (at or before `from`): the operational state draws `idle_w`, a
    /// non-operational one its maximum power.
    pub fn idle_energy_j(&self, idle_since: SimTime, from: SimTime, to: SimTime, idle_w: f64) -> f64 {
        let mut energy = 0.0;
        let mut s = IdleState { state: 0, since: idle_since, transitions: 0 };
        // A table sends each state deeper, so at most one step per state.
        for _ in 0..=self.states.len() {
            let next = self.apst.get(s.state as usize).copied().flatten();
            let end = next.map_or(SimTime::NEVER, |e| s.since + e.idle);
            let (a, b) = (from.max(s.since), to.min(end));
            if b > a {
                let ps = &self.states[s.state as usize];
                let w = if ps.non_operational { ps.max_power_w } else { idle_w };
                energy += w * b.since(a).as_secs_f64();
            }
            match next {
                Some(e) if end < to => s = IdleState { state: e.target, since: end, transitions: s.transitions + 1 },
                _ => break,
            }
        }
        energy
    }
}

/// How a host's NVMe driver builds the APST table (the host profile's `kernel.nvme_apst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApstPolicy {
    /// APST stays off (the controller's default).
    Off,
    /// Linux before 5.10's rule: from each state, go to the next deeper usable
    /// non-operational state after 50 × (its entry + exit latency).
    Heuristic,
    /// Linux since 5.10 (`apst_primary_*`, `apst_secondary_*`): the deepest state whose
    /// entry + exit latency is within the primary tolerance after the primary timeout, and
    /// the deepest within the secondary tolerance after the secondary timeout.
    Timeouts {
        /// `apst_primary_timeout_ms`.
        primary_timeout: SimDuration,
        /// `apst_primary_latency_tol_us`.
        primary_tolerance: SimDuration,
        /// `apst_secondary_timeout_ms`.
        secondary_timeout: SimDuration,
        /// `apst_secondary_latency_tol_us`.
        secondary_tolerance: SimDuration,
    },
}

/// The APST table a Linux-style driver programs for `states`, given its policy and its
/// `ps_max_latency_us` (states whose exit latency exceeds it are never used), as
/// `nvme_configure_apst` builds it: walking from the deepest state up, each state's entry
/// is the last usable non-operational state found below it.
pub fn apst_table(states: &[PowerState], policy: ApstPolicy, max_exit: SimDuration) -> Vec<Option<ApstEntry>> {
    if policy == ApstPolicy::Off || !states.iter().any(|s| s.non_operational) {
        return Vec::new();
    }
    let mut table = vec![None; states.len()];
    let mut target: Option<ApstEntry> = None;
    // 1 primary, 2 secondary: a state qualifies only for a tier not used yet (deepest first).
    let mut last_tier = u32::MAX;
    for (i, s) in states.iter().enumerate().rev() {
        table[i] = target;
        if !s.non_operational || s.exit > max_exit {
            continue;
        }
        let total = s.entry + s.exit;
        let idle = match policy {
            ApstPolicy::Off => unreachable!("returned above"),
            ApstPolicy::Heuristic => {
                // transition_ms = (total_us + 19) / 20, at most 2^24 - 1 ms.
                let ms = (total.as_ns() / 1000).div_ceil(20);
                SimDuration::from_ms(ms.min((1 << 24) - 1))
            }
            ApstPolicy::Timeouts { primary_timeout, primary_tolerance, secondary_timeout, secondary_tolerance } => {
                if total <= primary_tolerance {
                    if last_tier == 1 {
                        continue;
                    }
                    last_tier = 1;
                    primary_timeout
                } else if secondary_timeout > SimDuration::ZERO && total <= secondary_tolerance {
                    if last_tier <= 2 {
                        continue;
                    }
                    last_tier = 2;
                    secondary_timeout
                } else {
                    continue;
                }
            }
        };
        target = Some(ApstEntry { idle, target: i as u8 });
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A consumer drive's states: three operational, then PS3 (enlat 2 ms, exlat 2 ms) and
    /// PS4 (enlat 6 ms, exlat 8 ms) non-operational.
    fn consumer() -> Vec<PowerState> {
        let op = |w| PowerState {
            max_power_w: w,
            non_operational: false,
            entry: SimDuration::ZERO,
            exit: SimDuration::ZERO,
        };
        let nop = |w, en, ex| PowerState {
            max_power_w: w,
            non_operational: true,
            entry: SimDuration::from_us(en),
            exit: SimDuration::from_us(ex),
        };
        vec![op(9.0), op(4.6), op(3.8), nop(0.045, 2000, 2000), nop(0.004, 6000, 8000)]
    }

    fn linux_6() -> ApstPolicy {
        ApstPolicy::Timeouts {
            primary_timeout: SimDuration::from_ms(100),
            primary_tolerance: SimDuration::from_us(15_000),
            secondary_timeout: SimDuration::from_ms(2000),
            secondary_tolerance: SimDuration::from_us(100_000),
        }
    }

    #[test]
    fn linux_timeouts_take_the_deepest_state_of_each_tolerance() {
        let to = |ms, target| Some(ApstEntry { idle: SimDuration::from_ms(ms), target });
        let table = apst_table(&consumer(), linux_6(), SimDuration::from_us(100_000));
        // PS4 (14 ms in all) is within the primary tolerance and is the deepest: it takes
        // the primary timeout, and PS3 then qualifies for no tier.
        assert_eq!(table, vec![to(100, 4), to(100, 4), to(100, 4), to(100, 4), None]);
        // With a 20 ms exit, PS4 is secondary: PS0 goes to PS3 after 100 ms, PS3 to PS4
        // after 2 s more.
        let mut states = consumer();
        states[4].exit = SimDuration::from_ms(20);
        let table = apst_table(&states, linux_6(), SimDuration::from_us(100_000));
        assert_eq!(table, vec![to(100, 3), to(100, 3), to(100, 3), to(2000, 4), None]);
    }

    #[test]
    fn the_heuristic_waits_fifty_times_each_states_latency() {
        let table = apst_table(&consumer(), ApstPolicy::Heuristic, SimDuration::from_us(100_000));
        let to = |ms, target| Some(ApstEntry { idle: SimDuration::from_ms(ms), target });
        // PS3: (4000 + 19) / 20 = 200 ms; PS4: (14000 + 19) / 20 = 700 ms.
        assert_eq!(table, vec![to(200, 3), to(200, 3), to(200, 3), to(700, 4), None]);
        // A latency limit below PS4's exit latency leaves PS4 out.
        let table = apst_table(&consumer(), ApstPolicy::Heuristic, SimDuration::from_us(5000));
        assert_eq!(table[3], None);
    }

    #[test]
    fn waking_costs_the_exit_latency_of_where_idling_led() {
        let p = PowerStates {
            states: consumer(),
            apst: apst_table(&consumer(), ApstPolicy::Heuristic, SimDuration::from_us(100_000)),
        };
        let t0 = SimTime::ZERO;
        let at = |ms: u64| SimTime(ms * 1_000_000);
        assert_eq!(p.wake_latency(t0, at(199)).0, SimDuration::ZERO);
        // 201 ms: PS3 entered at 200 ms, still entering (2 ms): 1 ms of entry, then 2 ms exit.
        assert_eq!(p.wake_latency(t0, at(201)).0, SimDuration::from_ms(3));
        assert_eq!(
            p.wake_latency(t0, at(500)),
            (SimDuration::from_ms(2), IdleState { state: 3, since: at(200), transitions: 1 })
        );
        // PS4 entered at 900 ms: at 900 ms its whole entry (6 ms) is still ahead.
        assert_eq!(p.wake_latency(t0, at(900)).0, SimDuration::from_ms(14));
        assert_eq!(p.wake_latency(t0, at(1000)).0, SimDuration::from_ms(8));
        assert_eq!(p.state_at(t0, at(1000)).transitions, 2);
    }

    #[test]
    fn idle_energy_follows_the_states() {
        let p = PowerStates {
            states: consumer(),
            apst: apst_table(&consumer(), ApstPolicy::Heuristic, SimDuration::from_us(100_000)),
        };
        let at = |ms: u64| SimTime(ms * 1_000_000);
        // 200 ms at 1.5 W, 700 ms at 45 mW, 100 ms at 4 mW.
        let e = p.idle_energy_j(at(0), at(0), at(1000), 1.5);
        assert!((e - (0.2 * 1.5 + 0.7 * 0.045 + 0.1 * 0.004)).abs() < 1e-12, "{e}");
        // Without APST the drive idles in PS0 throughout.
        let off = PowerStates { states: consumer(), apst: Vec::new() };
        assert!((off.idle_energy_j(at(0), at(250), at(1250), 1.5) - 1.5).abs() < 1e-12);
    }
}
