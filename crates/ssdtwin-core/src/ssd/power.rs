//! The device's power and temperature: APST transitions while the host is idle, the energy
//! of the drive's work, and throttling when it gets hot.
//!
//! Nothing here runs per event. The firmware reads its sensor when the event loop passes
//! the next sensor time (`poll`), when a command arrives after that time, and when time is
//! advanced with no event (`advance_to`); each reading turns the energy since the last one
//! into temperature (`controller::thermal`) and may change the cap on dies running at once.
//! A command that finds the host idle asks the power states where idling led
//! (`nvme::power`): it waits for the exit latency of a non-operational state before the
//! controller fetches it. See `docs/model.md` § "Thermal model and power states".

use super::{DeviceError, Ssd};
use crate::engine::{SimDuration, SimTime};
use crate::nvme::ApstEntry;

impl Ssd {
    /// Programs the APST table a host's driver built (`os::configure_apst`); an empty
    /// table turns APST off. The drive starts counting idle time now.
    pub fn set_apst(&mut self, table: Vec<Option<ApstEntry>>) -> Result<(), DeviceError> {
        let n = self.power.states.len();
        if !table.is_empty() && table.len() != n {
            return Err(DeviceError::ApstTableLength { entries: table.len(), states: n });
        }
        if let Some(e) = table.iter().flatten().find(|e| usize::from(e.target) >= n) {
            return Err(DeviceError::NoSuchPowerState { target: e.target, states: n });
        }
        self.update_thermal(self.now);
        self.power.apst = table;
        if self.in_flight == 0 {
            self.idle_since = Some(self.now);
        }
        Ok(())
    }

    /// The power states and the APST table in effect.
    pub fn power_states(&self) -> &crate::nvme::PowerStates {
        &self.power
    }

    /// The power state at `now`: 0 while busy, else where APST has taken the idle drive.
    pub fn power_state(&self) -> u8 {
        match self.idle_since {
            Some(t0) if self.power.apst_enabled() => self.power.state_at(t0, self.now).state,
            _ => 0,
        }
    }

    /// A command arrives at `at`: if the host was idle, the drive leaves whatever state APST
    /// took it to; returns how long that takes. The energy APST saved while idle is kept
    /// for the next sensor reading.
    #[inline]
    pub(super) fn wake(&mut self, at: SimTime) -> SimDuration {
        let Some(t0) = self.idle_since.take() else { return SimDuration::ZERO };
        if !self.power.apst_enabled() {
            return SimDuration::ZERO;
        }
        self.note_idle_savings(t0, at);
        let (latency, state) = self.power.wake_latency(t0, at);
        self.counters.apst_transitions += u64::from(state.transitions);
        if latency > SimDuration::ZERO {
            self.counters.apst_wakeups += 1;
        }
        latency
    }

    /// Adds the energy the drive did not draw while idle in non-operational states since
    /// the later of `idle_since` and the last sensor reading, up to `to`.
    fn note_idle_savings(&mut self, idle_since: SimTime, to: SimTime) {
        let from = idle_since.max(self.thermal.last_update());
        if to > from {
            let idle_w = self.config.thermal.power.idle_w;
            let full = idle_w * to.since(from).as_secs_f64();
            self.idle_savings_j += full - self.power.idle_energy_j(idle_since, from, to, idle_w);
        }
    }

    /// Reads the sensor at `now`: the energy since the last reading heats the drive, and the
    /// die cap follows the throttling level.
    pub(super) fn update_thermal(&mut self, now: SimTime) {
        let last = self.thermal.last_update();
        if now <= last {
            return;
        }
        if let Some(t0) = self.idle_since
            && self.power.apst_enabled()
        {
            self.note_idle_savings(t0, now);
        }
        let idle_w = self.config.thermal.power.idle_w;
        let idle_j = idle_w * now.since(last).as_secs_f64() - std::mem::take(&mut self.idle_savings_j);
        let link_ns = self.link_up.busy_ns() + self.link_down.busy_ns();
        let cap = self.thermal.update(&self.config.thermal, now, self.nand.array_ns(), link_ns, idle_j.max(0.0));
        if let Some(cap) = cap {
            let mut wakes = std::mem::take(&mut self.wake_scratch);
            self.nand.set_die_cap(cap, now, &mut wakes);
            for &w in &wakes {
                self.schedule_die(w);
            }
            wakes.clear();
            self.wake_scratch = wakes;
        }
    }

    /// Composite temperature now, kelvin (between readings, extrapolated at the last
    /// period's mean power).
    pub fn temperature_k(&self) -> f64 {
        self.thermal.temperature_at(&self.config.thermal, self.now, self.thermal.power_w())
    }

    /// The thermal state (temperature at the last reading, throttling levels, histories).
    pub fn thermal(&self) -> &crate::controller::thermal::Thermal {
        &self.thermal
    }
}
