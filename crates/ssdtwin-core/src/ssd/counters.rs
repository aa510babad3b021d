//! Device counters: what the host asked for and what the NAND did, so write amplification,
//! GC activity and where reads were served from can be read off any run.

use crate::block::CounterRow;
use serde::{Deserialize, Serialize};

/// Counters a device keeps beside the FTL's. All are monotonic; a run reports differences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HostCounters {
    /// Read commands completed or in flight.
    pub read_cmds: u64,
    /// Write commands.
    pub write_cmds: u64,
    /// Deallocate (TRIM) commands.
    pub trim_cmds: u64,
    /// Flush commands.
    pub flush_cmds: u64,
    /// Bytes the host read.
    pub bytes_read: u64,
    /// Bytes the host wrote.
    pub bytes_written: u64,
    /// Bytes the host deallocated.
    pub bytes_trimmed: u64,
    /// Map units read that were unmapped (served as zeros without NAND).
    pub unmapped_units_read: u64,
    /// The bytes of host reads in those units (a read smaller than a unit reads part of it).
    #[serde(default)]
    pub unmapped_bytes_read: u64,
    /// Map units read from controller memory (written, not yet programmed).
    pub buffered_units_read: u64,
    /// Map units of host reads served from NAND.
    pub nand_units_read: u64,
    /// Write commands that had to wait for buffer space or free blocks.
    pub write_stalls: u64,
    /// Map units read from NAND to merge a partial write (read-modify-write).
    pub rmw_units_read: u64,
    /// Extra sensing steps host reads took after failing hard-decision decoding.
    pub read_retries: u64,
    /// Map units written only in part (each costs a whole unit's program).
    pub partial_units_written: u64,
    /// Host units whose programs have finished (flush accounting).
    pub units_programmed: u64,
    /// Program/erase suspensions before the device was last restored (the dies count the
    /// rest).
    pub suspensions_before_restore: u64,
    /// Time with a command outstanding, ns (NVMe's Controller Busy Time).
    pub controller_busy_ns: u64,
    /// Autonomous power state transitions made while idle.
    pub apst_transitions: u64,
    /// Commands that had to wake the drive from a non-operational state.
    pub apst_wakeups: u64,
    /// Times the drive was powered on (a new drive: once; every load of a saved state, and
    /// every power cycle, once more).
    pub power_cycles: u64,
    /// Power losses without a shutdown notification.
    pub unsafe_shutdowns: u64,
    /// Powered-on time before the drive was last restored, ns (the clock counts the rest).
    pub power_on_ns_before_restore: u64,
}

impl HostCounters {
    /// Why these counters cannot have come from any run, if they cannot: every command
    /// moves at least one LBA of `lba_bytes`, the reads' units are at least the commands',
    /// and a read's never-written bytes are among its bytes. A crafted or damaged state is
    /// refused with it (its checksum holds).
    pub fn impossibility(&self, lba_bytes: u64) -> Option<String> {
        let at_least = |what: &str, bytes: u64, cmds: u64| {
            (bytes < cmds.saturating_mul(lba_bytes))
                .then(|| format!("{bytes} bytes {what} by {cmds} commands of at least {lba_bytes} bytes each"))
        };
        at_least("read", self.bytes_read, self.read_cmds)
            .or_else(|| at_least("written", self.bytes_written, self.write_cmds))
            .or_else(|| at_least("deallocated", self.bytes_trimmed, self.trim_cmds))
            .or_else(|| {
                (self.unmapped_bytes_read > self.bytes_read).then(|| {
                    format!("{} never-written bytes read of {} bytes read", self.unmapped_bytes_read, self.bytes_read)
                })
            })
            .or_else(|| {
                let units = self.unmapped_units_read + self.buffered_units_read + self.nand_units_read;
                (units < self.read_cmds).then(|| format!("{units} units read by {} read commands", self.read_cmds))
            })
            .or_else(|| {
                (self.unsafe_shutdowns > self.power_cycles).then(|| {
                    format!("{} unsafe shutdowns in {} power cycles", self.unsafe_shutdowns, self.power_cycles)
                })
            })
    }
}

/// A flat, named view of every counter, for JSON output and time series.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterSnapshot {
    /// Simulated time of the snapshot, ns.
    pub time_ns: u64,
    /// Host read bytes.
    pub host_read_bytes: u64,
    /// Host written bytes.
    pub host_write_bytes: u64,
    /// Host deallocated bytes.
    pub host_trim_bytes: u64,
    /// Host read commands.
    pub host_read_cmds: u64,
    /// Host write commands.
    pub host_write_cmds: u64,
    /// Flush commands.
    pub host_flush_cmds: u64,
    /// Bytes read from NAND for the host.
    pub nand_host_read_bytes: u64,
    /// Bytes read from NAND by relocation: GC and folding together.
    pub nand_gc_read_bytes: u64,
    /// Bytes programmed to NAND (all modes, padding and map pages included).
    pub nand_write_bytes: u64,
    /// Bytes programmed in SLC mode.
    pub nand_slc_write_bytes: u64,
    /// Bytes programmed in the native mode.
    pub nand_native_write_bytes: u64,
    /// Padding bytes programmed to close partial pages.
    pub nand_padding_bytes: u64,
    /// Map units moved by GC (folding is counted in `folded_bytes`).
    pub gc_units_moved: u64,
    /// GC jobs started.
    pub gc_jobs: u64,
    /// Superblock erases.
    pub erases: u64,
    /// Free superblocks now.
    pub free_superblocks: u64,
    /// Units read as zeros (unmapped).
    pub unmapped_units_read: u64,
    /// Bytes read as zeros (unmapped): no NAND read, served at the speed of memory.
    pub unmapped_read_bytes: u64,
    /// Units read from the write buffer.
    pub buffered_units_read: u64,
    /// Write commands that waited for buffer space or free blocks.
    pub write_stalls: u64,
    /// Program or erase suspensions by reads.
    pub suspensions: u64,
    /// Write buffer occupancy now, bytes.
    pub write_buffer_bytes: u64,
    /// Verify mismatches (verify mode only).
    pub verify_errors: u64,
    /// Map segment lookups by reads and by writes merging a partial unit (0 with the map
    /// in DRAM).
    pub map_lookups: u64,
    /// Lookups served from controller SRAM.
    pub map_sram_hits: u64,
    /// Lookups served from the Host Memory Buffer.
    pub map_hmb_hits: u64,
    /// Map updates written through to segments cached in the Host Memory Buffer.
    pub map_hmb_updates: u64,
    /// Segments copied down into the Host Memory Buffer.
    pub map_hmb_fills: u64,
    /// HMB copies dropped at the end of their journal epoch.
    pub map_hmb_invalidations: u64,
    /// Lookups that had to load a translation page.
    pub map_misses: u64,
    /// Translation pages loaded from flash.
    pub map_loads: u64,
    /// Bytes moved from NAND by translation-page loads: one 4 KiB map unit per load, counted
    /// when the load is requested (as `map_loads` is).
    pub nand_map_read_bytes: u64,
    /// Bytes of map journal pages and written-back segments programmed.
    pub nand_map_write_bytes: u64,
    /// Map updates that would be lost on a sudden power loss now.
    pub map_updates_at_risk: u64,
    /// The most map updates at risk at any time so far.
    pub map_updates_at_risk_peak: u64,
    /// Host bytes written into the SLC cache.
    pub host_slc_write_bytes: u64,
    /// Bytes cached in SLC now.
    pub slc_cached_bytes: u64,
    /// Superblocks in SLC mode now.
    pub slc_superblocks: u64,
    /// Bytes folded from SLC to the native mode.
    pub folded_bytes: u64,
    /// Fold jobs (one SLC superblock each).
    pub fold_jobs: u64,
    /// Bytes read from NAND to merge partial writes (read-modify-write).
    pub nand_rmw_read_bytes: u64,
    /// Read-retry steps: extra senses at shifted read levels after a read failed
    /// hard-decision decoding (`endurance.read_retry_*`).
    pub nand_read_retries: u64,
    /// Map units written only in part.
    pub partial_units_written: u64,
    /// Superblock erases of superblocks written in SLC mode (part of `erases`).
    pub slc_erases: u64,
    /// Block erases: one per block of every plane of every die a superblock erase covers.
    pub block_erases: u64,
    /// Blocks that wore out (failed an erase at the end of their endurance).
    pub bad_blocks: u64,
    /// Spare blocks left to replace worn ones, now.
    pub spare_blocks: u64,
    /// Superblocks retired for good, now.
    pub retired_superblocks: u64,
    /// The most P/E cycles (erases, any mode) of any block, now.
    pub block_pe_cycles_max: u64,
    /// Mean life used over the superblocks, parts per million of the rated life, now
    /// (NVMe's Percentage Used is this / 10,000, rounded down).
    pub life_used_ppm: u64,
    /// The rated life the units programmed so far will use once erased, parts per billion
    /// (`life_used_ppm` follows it, erase by erase).
    pub life_programmed_ppb: u64,
    /// Static wear-levelling jobs (part of `gc_jobs`).
    pub wl_jobs: u64,
    /// Bytes moved by static wear levelling (part of GC's moves).
    pub wl_moved_bytes: u64,
    /// Composite temperature now, millikelvin.
    pub temperature_mk: u64,
    /// Mean power over the last sensor period, milliwatts, now.
    pub power_mw: u64,
    /// Energy drawn, millijoules.
    pub energy_mj: u64,
    /// Thermal throttling level now: 0 none, 1 light, 2 heavy, 3 critical.
    pub throttle_level: u64,
    /// Time throttled at any level, ns.
    pub throttled_ns: u64,
    /// Time at or above the warning composite temperature (WCTEMP), ns.
    pub warning_temp_ns: u64,
    /// Time at or above the critical composite temperature (CCTEMP), ns.
    pub critical_temp_ns: u64,
    /// Time in HCTM light throttling (TMT1), ns.
    pub tmt1_ns: u64,
    /// Time in HCTM heavy throttling (TMT2), ns.
    pub tmt2_ns: u64,
    /// Entries into HCTM light throttling.
    pub tmt1_transitions: u64,
    /// Entries into HCTM heavy throttling.
    pub tmt2_transitions: u64,
    /// Power state now (0 while commands run; APST's while idle).
    pub power_state: u64,
    /// Autonomous power state transitions.
    pub apst_transitions: u64,
    /// Commands that woke the drive from a non-operational state.
    pub apst_wakeups: u64,
    /// Time with a command outstanding, ns.
    pub controller_busy_ns: u64,
    /// Uncorrectable errors host reads met (SMART's Media and Data Integrity Errors).
    pub media_errors: u64,
}

/// Counters that are levels at an instant, not running totals: over a span they are
/// reported as their value at its end, not as a difference.
pub const LEVEL_COUNTERS: [&str; 14] = [
    "free_superblocks",
    "write_buffer_bytes",
    "map_updates_at_risk",
    "map_updates_at_risk_peak",
    "slc_cached_bytes",
    "slc_superblocks",
    "spare_blocks",
    "retired_superblocks",
    "block_pe_cycles_max",
    "life_used_ppm",
    "temperature_mk",
    "power_mw",
    "throttle_level",
    "power_state",
];

impl CounterSnapshot {
    /// Appends every counter but `time_ns` to `out` under `prefix`, in declaration order,
    /// [`LEVEL_COUNTERS`] as levels.
    pub fn append_to(&self, prefix: &str, out: &mut CounterRow) {
        let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(self) else {
            unreachable!("a struct of integers serialises to an object")
        };
        for (name, value) in fields {
            let value = value.as_u64().expect("every counter is an unsigned integer");
            if name == "time_ns" {
                continue;
            }
            if LEVEL_COUNTERS.contains(&name.as_str()) {
                out.level(prefix, &name, value);
            } else {
                out.total(prefix, &name, value);
            }
        }
    }
}
