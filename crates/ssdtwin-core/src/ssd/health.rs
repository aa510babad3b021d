//! The SMART / Health Information log (NVMe log page 02h), every field from the model's state,
//! and the power cycles it counts.
//!
//! Read NVM Express Base Specification 1.4 § 5.14.1.2 (SMART / Health Information) before
//! editing; `docs/model.md` § "SMART health" gives each field's derivation.
//!
//! **Power cycles.** A drive built new has been powered on once. Saving its state is a
//! normal shutdown (the host flushes, then notifies: nothing is lost) and loading one powers
//! it on again: Power Cycles counts one more, the clock restarts while Power On Hours
//! continues from the saved total, and the drive comes back at ambient temperature.
//! [`Ssd::power_cycle`] cycles a running drive, cleanly or abruptly (power lost without a
//! shutdown notification: an Unsafe Shutdown).

use super::Ssd;
use crate::controller::thermal::Thermal;
use serde::Serialize;

/// Bytes in one Data Unit: a thousand 512-byte units ("reported in thousands of 512-byte
/// units ... rounded up").
pub const DATA_UNIT_BYTES: u64 = 512_000;

const NS_PER_MINUTE: u64 = 60_000_000_000;
const NS_PER_HOUR: u64 = 60 * NS_PER_MINUTE;

/// The SMART / Health Information log; names follow the specification's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HealthLog {
    /// Critical Warning: bit 0 available spare below its threshold, bit 1 temperature at or
    /// above the over-temperature threshold (WCTEMP), bit 2 reliability degraded (worn
    /// blocks kept in service past end of life).
    pub critical_warning: u8,
    /// Composite Temperature, kelvin.
    pub temperature_kelvin: u16,
    /// Available Spare, percent.
    pub available_spare_pct: u8,
    /// Available Spare Threshold, percent.
    pub available_spare_threshold_pct: u8,
    /// Percentage Used (up to 255).
    pub percentage_used: u8,
    /// Data Units Read (thousands of 512-byte units, rounded up).
    pub data_units_read: u64,
    /// Data Units Written.
    pub data_units_written: u64,
    /// Host Read Commands.
    pub host_read_commands: u64,
    /// Host Write Commands.
    pub host_write_commands: u64,
    /// Controller Busy Time, minutes.
    pub controller_busy_minutes: u64,
    /// Power Cycles.
    pub power_cycles: u64,
    /// Power On Hours.
    pub power_on_hours: u64,
    /// Unsafe Shutdowns.
    pub unsafe_shutdowns: u64,
    /// Media and Data Integrity Errors: uncorrectable errors reads met, at the rate the
    /// blocks' wear gives (`ftl::wear::bit_errors`).
    pub media_errors: u64,
    /// Number of Error Information Log Entries (no command fails).
    pub error_log_entries: u64,
    /// Warning Composite Temperature Time, minutes.
    pub warning_temperature_minutes: u32,
    /// Critical Composite Temperature Time, minutes.
    pub critical_temperature_minutes: u32,
    /// Thermal Management Temperature 1 Transition Count.
    pub tmt1_transitions: u32,
    /// Thermal Management Temperature 2 Transition Count.
    pub tmt2_transitions: u32,
    /// Total Time For Thermal Management Temperature 1, seconds.
    pub tmt1_seconds: u32,
    /// Total Time For Thermal Management Temperature 2, seconds.
    pub tmt2_seconds: u32,
}

/// How a running drive loses power.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shutdown {
    /// The host notified the controller first (CC.SHN): a clean power cycle.
    Normal,
    /// Power was lost without a notification: counted as an Unsafe Shutdown. The model
    /// finishes the work in flight first (as a drive with power-loss protection does), so no
    /// data is lost.
    Abrupt,
}

impl Ssd {
    /// The SMART / Health Information log now.
    pub fn health(&self) -> HealthLog {
        let c = &self.counters;
        let t = &self.thermal.totals;
        let e = &self.config.endurance;
        let warning = self.temperature_k() >= self.config.thermal.warning_k;
        let spare = self.available_spare_pct();
        let mut critical_warning = 0;
        if spare < e.spare_threshold_pct {
            critical_warning |= 0x01;
        }
        if warning {
            critical_warning |= 0x02;
        }
        if self.ftl.wear.end_of_life() {
            critical_warning |= 0x04;
        }
        let clamp32 = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        HealthLog {
            critical_warning,
            temperature_kelvin: self.temperature_k().round().clamp(0.0, f64::from(u16::MAX)) as u16,
            available_spare_pct: spare,
            available_spare_threshold_pct: e.spare_threshold_pct,
            percentage_used: (self.ftl.life_used_ppm() / 10_000).min(255) as u8,
            data_units_read: c.bytes_read.div_ceil(DATA_UNIT_BYTES),
            data_units_written: c.bytes_written.div_ceil(DATA_UNIT_BYTES),
            host_read_commands: c.read_cmds,
            host_write_commands: c.write_cmds,
            controller_busy_minutes: self.controller_busy_ns() / NS_PER_MINUTE,
            power_cycles: c.power_cycles,
            power_on_hours: (c.power_on_ns_before_restore + self.now.as_ns()) / NS_PER_HOUR,
            unsafe_shutdowns: c.unsafe_shutdowns,
            media_errors: self.media.errors(),
            error_log_entries: 0,
            warning_temperature_minutes: clamp32(t.warning_ns / NS_PER_MINUTE),
            critical_temperature_minutes: clamp32(t.critical_ns / NS_PER_MINUTE),
            tmt1_transitions: clamp32(t.tmt1_transitions),
            tmt2_transitions: clamp32(t.tmt2_transitions),
            tmt1_seconds: clamp32(t.tmt1_ns / 1_000_000_000),
            tmt2_seconds: clamp32(t.tmt2_ns / 1_000_000_000),
        }
    }

    /// Available Spare: the share of the blocks the drive can lose that it has not lost.
    /// It can lose its spare blocks and, by retiring superblocks, every superblock beyond
    /// the namespace's minimum; each failed block spends one of them.
    pub fn available_spare_pct(&self) -> u8 {
        let g = &self.config.geometry;
        let e = &self.config.endurance;
        let per_sb = u64::from(g.dies() * g.planes);
        let initial = u64::from(e.spare_blocks_per_plane) * per_sb
            + u64::from(g.superblocks().saturating_sub(e.min_superblocks)) * per_sb;
        let bad = self.ftl.wear.bad_blocks();
        if initial == 0 {
            return if bad == 0 { 100 } else { 0 };
        }
        (100 * initial.saturating_sub(bad) / initial) as u8
    }

    /// Time with a command outstanding so far, ns (the current busy stretch included).
    fn controller_busy_ns(&self) -> u64 {
        let current = if self.in_flight > 0 { self.now.since(self.busy_start).as_ns() } else { 0 };
        self.counters.controller_busy_ns + current
    }

    /// Cycles the power of a running drive: the host's commands and the drive's background
    /// work finish first, then the drive powers off and on. It comes back at ambient
    /// temperature (it cooled while off), in power state 0 with the host's APST table, its
    /// map cache cold; the clock goes on. Counts a Power Cycle, and with
    /// [`Shutdown::Abrupt`] an Unsafe Shutdown.
    pub fn power_cycle(&mut self, shutdown: Shutdown) {
        self.quiesce();
        self.counters.power_cycles += 1;
        if shutdown == Shutdown::Abrupt {
            self.counters.unsafe_shutdowns += 1;
        }
        let totals = self.thermal.totals;
        let link_ns = self.link_up.busy_ns() + self.link_down.busy_ns();
        self.thermal = Thermal::new(&self.config.thermal, self.now, self.nand.array_ns(), link_ns);
        self.thermal.totals = totals;
        self.idle_since = Some(self.now);
        self.idle_savings_j = 0.0;
        let mut wakes = std::mem::take(&mut self.wake_scratch);
        self.nand.set_die_cap(u32::MAX, self.now, &mut wakes);
        debug_assert!(wakes.is_empty(), "a quiet drive has no die waiting");
        self.wake_scratch = wakes;
        self.rebuild_map_cache();
    }
}
