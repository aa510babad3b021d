//! The SMART / Health log against the model's counters: data units, commands, wear,
//! spare, temperature times, busy time, power-on hours, and the power cycles that saving,
//! loading and power loss count.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::block::BlockDevice;
use ssdtwin_core::engine::SimDuration;
use ssdtwin_core::ssd::{DATA_UNIT_BYTES, FillPattern, Shutdown, Ssd};
use ssdtwin_core::workload::{RwPattern, SizeSpec};

#[test]
fn a_new_drive_reports_an_unused_drive() {
    let dev = Ssd::new(small_config(48, 25.0, &[]));
    let h = dev.health();
    assert_eq!((h.critical_warning, h.temperature_kelvin, h.available_spare_pct, h.percentage_used), (0, 298, 100, 0));
    assert_eq!((h.available_spare_threshold_pct, h.power_cycles, h.power_on_hours, h.unsafe_shutdowns), (10, 1, 0, 0));
    assert_eq!((h.data_units_read, h.host_write_commands, h.media_errors, h.warning_temperature_minutes), (0, 0, 0, 0));
}

#[test]
fn host_fields_follow_the_counters() {
    let mut dev = Ssd::new(small_config(48, 25.0, &["endurance.tlc_pe_cycles=20"]));
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    let mut w = job("w", RwPattern::RandWrite, 4096, 16);
    w.norandommap = true;
    w.io_size = Some(SizeSpec::Bytes(3 * ns));
    run_one(&mut dev, w, Some(ns), None);
    run_one(&mut dev, job("r", RwPattern::RandRead, 8192, 4), Some(ns), Some(50));
    dev.quiesce();
    let c = dev.counters();
    let h = dev.health();
    let host = dev.host_counters();
    // Thousands of 512-byte units, rounded up.
    assert_eq!(h.data_units_written, c.host_write_bytes.div_ceil(DATA_UNIT_BYTES));
    assert_eq!(h.data_units_read, c.host_read_bytes.div_ceil(DATA_UNIT_BYTES));
    assert!(h.data_units_written * DATA_UNIT_BYTES >= c.host_write_bytes);
    assert!((h.data_units_written - 1) * DATA_UNIT_BYTES < c.host_write_bytes);
    assert_eq!((h.host_read_commands, h.host_write_commands), (c.host_read_cmds, c.host_write_cmds));
    // Percentage Used is the mean life used, rounded down: with TLC rated for 20 cycles,
    // each erase of every superblock is 5 %.
    assert_eq!(u64::from(h.percentage_used), c.life_used_ppm / 10_000);
    let mean_erases = c.erases as f64 / 48.0;
    assert!((f64::from(h.percentage_used) - (mean_erases / 20.0 * 100.0).floor()).abs() <= 1.0, "{h:?}");
    assert!(h.percentage_used > 10);
    assert_eq!(h.controller_busy_minutes, host.controller_busy_ns / 60_000_000_000);
    assert!(host.controller_busy_ns > 0 && host.controller_busy_ns <= c.time_ns);
    // Two more hours of idle: Power On Hours counts simulated time.
    let before = dev.health().power_on_hours;
    dev.advance_to(dev.now() + SimDuration::from_secs(7200));
    assert_eq!(dev.health().power_on_hours, before + 2);
    assert_eq!(dev.health().power_on_hours, dev.now().as_ns() / 3_600_000_000_000);
}

#[test]
fn worn_out_blocks_spend_the_spare_and_raise_the_warnings() {
    let mut dev = Ssd::new(small_config(
        48,
        25.0,
        &["nand.pages_per_block=3", "endurance.tlc_pe_cycles=12", "endurance.spare_blocks_per_plane=1"],
    ));
    let e = dev.config().endurance;
    let g = dev.config().geometry.clone();
    let per_sb = u64::from(g.dies() * g.planes);
    let spare_blocks = per_sb + u64::from(g.superblocks() - e.min_superblocks) * per_sb;
    let mut seen_warning = false;
    for seed in 0..20 {
        dev.fill(FillPattern::Random {
            percent: 60.0,
            sequential_passes: 1,
            overwrite_passes: 2.0,
            seed,
            exact: false,
        })
        .unwrap();
        let (h, bad) = (dev.health(), dev.counters().bad_blocks);
        // Available Spare: the blocks the drive can still lose, of those it could at first.
        assert_eq!(u64::from(h.available_spare_pct), 100 * spare_blocks.saturating_sub(bad) / spare_blocks);
        assert_eq!(h.critical_warning & 0x01 != 0, h.available_spare_pct < 10, "{h:?}");
        assert_eq!(h.critical_warning & 0x04 != 0, dev.ftl().wear.end_of_life());
        seen_warning |= h.critical_warning & 0x05 == 0x05;
    }
    assert!(seen_warning, "the drive must wear out: {:?}", dev.health());
    assert!(dev.health().percentage_used > 100);
}

#[test]
fn temperature_times_and_the_temperature_warning_come_from_the_thermal_model() {
    let mut dev = Ssd::new(small_config(
        640,
        25.0,
        &[
            "thermal.heat_capacity_j_per_k=0.05",
            "thermal.still_air_k_per_w=20.0",
            "thermal.sensor_period_ms=10.0",
            "power.die_program_w=1.0",
            "power.idle_w=0.3",
            "identity.wctemp_kelvin=313",
            "identity.cctemp_kelvin=363",
        ],
    ));
    let mut w = job("w", RwPattern::Write, 1 << 17, 8);
    w.time_based = true;
    w.runtime_ns = Some(90_000_000_000);
    w.size = Some(SizeSpec::Bytes(900 << 20));
    // 90 s of writes: hot from the first second, throttled at the 40 °C WCTEMP.
    run_one(&mut dev, w, None, None);
    let h = dev.health();
    let t = dev.thermal().totals;
    assert!(t.warning_ns > 60_000_000_000, "{t:?}");
    assert_eq!(u64::from(h.warning_temperature_minutes), t.warning_ns / 60_000_000_000);
    assert_eq!(h.critical_temperature_minutes, 0);
    assert_eq!(h.temperature_kelvin, dev.temperature_k().round() as u16);
    assert_eq!(h.critical_warning & 0x02 != 0, dev.temperature_k() >= 313.0);
    // Idle (0.3 W: 31 °C at rest), it cools below the threshold and the warning clears.
    dev.advance_to(dev.now() + SimDuration::from_secs(20));
    let h = dev.health();
    assert!(h.temperature_kelvin < 313 && h.critical_warning & 0x02 == 0, "{h:?}");
}

#[test]
fn saving_loading_and_power_loss_count_power_cycles() {
    let mut dev = Ssd::new(small_config(48, 25.0, &[]));
    dev.fill(FillPattern::Sequential { percent: 50.0, command_bytes: 1 << 17 }).unwrap();
    dev.advance_to(dev.now() + SimDuration::from_secs(3 * 3600));
    let path = std::env::temp_dir().join(format!("ssdtwin-health-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let mut back = Ssd::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    // Saving shut the drive down, loading powered it on: a second power cycle; the hours go
    // on though the clock restarted.
    let h = back.health();
    assert_eq!((h.power_cycles, h.unsafe_shutdowns, h.power_on_hours), (2, 0, 3));
    assert_eq!(back.now().as_ns(), 0);
    back.advance_to(back.now() + SimDuration::from_secs(3600));
    assert_eq!(back.health().power_on_hours, 4);
    back.power_cycle(Shutdown::Normal);
    back.power_cycle(Shutdown::Abrupt);
    let h = back.health();
    assert_eq!((h.power_cycles, h.unsafe_shutdowns), (4, 1));
    // The data is all there after the abrupt loss: the model finishes work in flight first.
    let r = run_one(&mut back, job("r", RwPattern::Read, 1 << 17, 4), Some(8 << 20), None);
    assert_eq!(r.jobs[0].dirs[0].io_bytes, 8 << 20);
    assert_eq!(back.counters().unmapped_units_read, 0);
}

/// Expected uncorrectable errors of reading once every unit `dev` holds: each superblock's
/// valid units, times the bits in a unit, times the profile's law at the superblock's wear,
/// `uber_per_bit × 10^((life − 1) / tenfold)`, at most one error per unit. (Every block here
/// serves its own superblock: no spares, so no block carries other wear.)
fn expected_errors_of_one_read(dev: &Ssd) -> f64 {
    let law = dev.config().endurance.bit_errors;
    let bits = 4096.0 * 8.0;
    (0..dev.config().geometry.superblocks())
        .map(|sb| {
            let life = dev.ftl().superblock_life_used(sb);
            let uber = (law.uber_per_bit * 10f64.powf((life - 1.0) / law.tenfold_life)).min(1.0 / bits);
            f64::from(dev.ftl().sbs.valid(sb)) * bits * uber
        })
        .sum()
}

#[test]
fn reads_of_worn_blocks_meet_media_errors_at_the_rate_their_wear_gives() {
    let mut dev = Ssd::new(small_config(
        48,
        25.0,
        &["endurance.tlc_pe_cycles=6", "endurance.uber_per_bit=4e-6", "endurance.uber_tenfold_pct=50"],
    ));
    dev.fill(FillPattern::Random {
        percent: 100.0,
        sequential_passes: 1,
        overwrite_passes: 2.0,
        seed: 5,
        exact: false,
    })
    .unwrap();
    dev.quiesce();
    assert_eq!(dev.health().media_errors, 0, "filling reads nothing");
    // Half the rated cycles: beyond that, blocks of this tiny drive start to fail early
    // (their endurance spreads around the rating) and take the room a fill needs with them.
    assert!(dev.ftl().life_used() > 0.5, "worn half-way to the rating: {}", dev.ftl().life_used());
    let expected = expected_errors_of_one_read(&dev);
    assert!(expected > 100.0, "a test that can see the law: {expected}");
    let mut twin = dev.clone();
    let ns = dev.config().namespace.capacity_bytes;
    run_one(&mut dev, job("r", RwPattern::Read, 1 << 17, 4), Some(ns), None);
    dev.quiesce();
    let h = dev.health();
    // A Poisson count: within four standard deviations of the expectation.
    let spread = 4.0 * expected.sqrt() + 1.0;
    assert!((h.media_errors as f64 - expected).abs() <= spread, "{} errors, {expected:.1} expected", h.media_errors);
    assert_eq!(dev.counters().media_errors, h.media_errors);
    // The same drive reading the same data counts the same errors.
    run_one(&mut twin, job("r", RwPattern::Read, 1 << 17, 4), Some(ns), None);
    assert_eq!(twin.health().media_errors, h.media_errors);
    // The count survives a save and load, and goes on from there.
    let path = std::env::temp_dir().join(format!("ssdtwin-media-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let back = Ssd::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back.health().media_errors, h.media_errors);
}

#[test]
fn a_fresh_drive_meets_no_media_errors() {
    // JESD218's client rate at the rating, and the default growth: an unworn block reads
    // ten orders of magnitude better, so 1 TB read expects nothing.
    let mut dev = Ssd::new(small_config(48, 25.0, &["endurance.uber_per_bit=1e-15"]));
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    let per_read = expected_errors_of_one_read(&dev);
    let reads = (1e12 / ns as f64).ceil();
    assert!(per_read * reads < 1e-6, "{per_read} per read of the namespace");
    let mut r = job("r", RwPattern::RandRead, 1 << 17, 16);
    r.io_size = Some(SizeSpec::Bytes(4 << 30));
    run_one(&mut dev, r, Some(ns), None);
    let c = dev.counters();
    assert!(c.nand_host_read_bytes >= 4 << 30, "{c:?}");
    assert_eq!((dev.health().media_errors, c.media_errors), (0, 0));
}
