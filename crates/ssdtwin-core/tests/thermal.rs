//! Temperature, throttling and power states: the lumped model against its closed form, the
//! drive's own and the host's (HCTM) thresholds cutting the dies that may run, and APST's
//! exit latency on the first command after idle.

use crate::common::{job, small_config};
use ssdtwin_core::block::{BlockDevice, Command, CounterRow, Opcode};
use ssdtwin_core::config::DeviceConfig;
use ssdtwin_core::engine::{SimDuration, SimTime};
use ssdtwin_core::nvme::{ApstPolicy, apst_table};
use ssdtwin_core::os::{Host, bare_host};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{JobSet, RunOptions, RunResult, RwPattern, SizeSpec, run};

/// A small drive that heats up fast: τ = R·C = 20 K/W × 0.05 J/K = 1 s; 0.5 W idle (35 °C
/// at rest), 1 W per programming die (four dies: ~115 °C if nothing stopped it). Heavy and
/// critical throttling allow 1.6 W (one die), light 2.6 W (two dies). 640 superblocks
/// (960 MiB) take three seconds of writes without GC, whose erases would share the dies.
fn hot_drive(extra: &[&str]) -> DeviceConfig {
    let mut o = vec![
        "thermal.heat_capacity_j_per_k=0.05",
        "thermal.still_air_k_per_w=20.0",
        "thermal.sensor_period_ms=10.0",
        "power.idle_w=0.5",
        "power.die_program_w=1.0",
        "power.die_read_w=0.2",
        "power.die_erase_w=0.5",
        "power.link_w=0.05",
        "thermal.throttle_light_w=2.6",
        "thermal.throttle_heavy_w=1.6",
        "thermal.throttle_critical_w=1.6",
    ];
    o.extend_from_slice(extra);
    small_config(640, 25.0, &o)
}

/// Sequential 128 KiB writes for `ms`, the device counters sampled every 20 ms.
fn write_for(dev: &mut Ssd, ms: u64) -> RunResult {
    let mut j = job("w", RwPattern::Write, 1 << 17, 8);
    j.time_based = true;
    j.runtime_ns = Some(ms * 1_000_000);
    let set = JobSet { global_options: vec![], jobs: vec![j] };
    let opts = RunOptions { series_window_ns: 20_000_000, log_dir: std::env::temp_dir(), ..RunOptions::default() };
    run(&mut Host::new(dev, bare_host()), &set, &opts, &mut |_| true).unwrap()
}

fn level(row: &CounterRow, name: &str) -> u64 {
    row.get(name).unwrap_or_else(|| panic!("no counter {name}"))
}

/// Host bytes written in each series window, with the throttling level at both its ends.
fn windows(r: &RunResult) -> Vec<(u64, u64, u64)> {
    r.series
        .windows(2)
        .map(|w| {
            let bytes = level(&w[1], "host_write_bytes") - level(&w[0], "host_write_bytes");
            (bytes, level(&w[0], "throttle_level"), level(&w[1], "throttle_level"))
        })
        .collect()
}

#[test]
fn a_cool_idle_drive_settles_at_ambient_plus_idle_power_times_resistance() {
    let mut dev = Ssd::new(hot_drive(&[]));
    dev.advance_to(SimTime::ZERO + SimDuration::from_secs(3));
    let c = dev.counters();
    // 0.5 W × 20 K/W over 3 τ: 298.15 + 10 (1 − e⁻³) K.
    let expected = 298.15 + 10.0 * (1.0 - (-3.0f64).exp());
    assert!((c.temperature_mk as f64 / 1000.0 - expected).abs() < 0.001, "{}", c.temperature_mk);
    assert_eq!((c.energy_mj, c.power_mw), (1500, 500));
    assert_eq!((c.throttle_level, c.warning_temp_ns), (0, 0));
}

#[test]
fn the_drive_throttles_to_one_die_above_its_warning_temperature() {
    let mut dev = Ssd::new(hot_drive(&[]));
    let cfg = dev.config().thermal.clone();
    assert_eq!(cfg.die_caps, [u32::MAX, 2, 1, 1]);
    let r = write_for(&mut dev, 3000);
    let c = dev.counters();
    assert!(c.warning_temp_ns > 0, "the drive must reach WCTEMP (max {} K)", dev.thermal().totals.max_temperature_k);
    // Throttling holds the temperature: with one die running the drive settles near
    // 25 °C + 1.55 W × 20 K/W = 56 °C, so it never reaches CCTEMP (85 °C).
    assert_eq!(c.critical_temp_ns, 0);
    assert!(dev.thermal().totals.max_temperature_k < 343.0 + 5.0, "{}", dev.thermal().totals.max_temperature_k);
    // Throttled from the first reading at or above WCTEMP until it cooled 2 K below it: at
    // least as long as it was above, never more than the time it ran.
    assert!(c.throttled_ns >= c.warning_temp_ns && c.throttled_ns < 3_000_000_000);
    // A window throttled from end to end writes what one die of four programs.
    let w = windows(&r);
    let free: Vec<u64> = w.iter().skip(1).filter(|x| x.1 == 0 && x.2 == 0).map(|x| x.0).collect();
    let held: Vec<u64> = w.iter().filter(|x| x.1 == 2 && x.2 == 2).map(|x| x.0).collect();
    assert!(!free.is_empty() && !held.is_empty(), "{w:?}");
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len() as f64;
    let ratio = mean(&held) / mean(&free);
    assert!((0.24..0.26).contains(&ratio), "throttled {ratio} of the free rate, one die of four: {w:?}");
}

#[test]
fn host_controlled_thresholds_throttle_lightly_then_heavily() {
    // HCTM: light (two dies: the drive would settle near 70 °C) from 50 °C, heavy (one die:
    // near 55 °C) from 63 °C; the drive's own thresholds raised out of the way (90 °C,
    // 95 °C). Each ladder's entries and time are counted.
    let cfg = hot_drive(&[
        "identity.wctemp_kelvin=363",
        "identity.cctemp_kelvin=368",
        "thermal.hctm_min_kelvin=273",
        "thermal.hctm_max_kelvin=358",
        "thermal.hctm_tmt1_kelvin=323",
        "thermal.hctm_tmt2_kelvin=336",
    ]);
    let mut dev = Ssd::new(cfg);
    let r = write_for(&mut dev, 3000);
    let c = dev.counters();
    assert!(c.tmt1_transitions >= 1 && c.tmt1_ns > 0, "{c:?}");
    assert!(c.tmt2_transitions >= 1 && c.tmt2_ns > 0, "{c:?}");
    // One die holds the drive below 63 °C + the rise of one sensor period: its own WCTEMP
    // is never reached.
    assert_eq!(c.warning_temp_ns, 0);
    let w = windows(&r);
    let rate = |lvl: u64| {
        let v: Vec<u64> = w.iter().skip(1).filter(|x| x.1 == lvl && x.2 == lvl).map(|x| x.0).collect();
        v.iter().sum::<u64>() as f64 / v.len().max(1) as f64
    };
    // Light throttling writes with two dies of four, heavy with one.
    let (free, light, heavy) = (rate(0), rate(1), rate(2));
    assert!(light > 0.0 && heavy > 0.0, "{w:?}");
    assert!((0.48..0.52).contains(&(light / free)), "light {light} of {free}");
    assert!((0.22..0.27).contains(&(heavy / free)), "heavy {heavy} of {free}");
}

/// A drive with two non-operational states (PS1: 2 ms in, 2 ms out; PS2: 6 ms in, 8 ms
/// out), filled so reads touch NAND, with Linux 4.x's APST table: PS1 after 200 ms idle,
/// PS2 700 ms after that.
fn sleepy_drive() -> Ssd {
    let cfg = small_config(
        48,
        25.0,
        &[
            "identity.power_states=[{max_power_mw=5000}, {max_power_mw=45, non_operational=true, entry_latency_us=2000, \
           exit_latency_us=2000}, {max_power_mw=4, non_operational=true, entry_latency_us=6000, exit_latency_us=8000}]",
        ],
    );
    let mut dev = Ssd::new(cfg);
    dev.fill(FillPattern::Sequential { percent: 50.0, command_bytes: 1 << 17 }).unwrap();
    let table = apst_table(&dev.power_states().states, ApstPolicy::Heuristic, SimDuration::from_us(100_000));
    dev.set_apst(table).unwrap();
    dev
}

/// Latency of one 4 KiB read submitted at `at` on a quiet drive.
fn read_latency(dev: &mut Ssd, at: SimTime) -> u64 {
    dev.advance_to(at);
    dev.submit(at, Command::new(Opcode::Read, 8, 8), 1).unwrap();
    let c = loop {
        if let Some(c) = dev.poll() {
            break c;
        }
    };
    c.completed.since(c.submitted).as_ns()
}

#[test]
fn the_first_command_after_idle_pays_the_exit_latency() {
    let mut dev = sleepy_drive();
    // The states, from the table: PS1 at 200 ms of idle, PS2 at 900 ms.
    assert_eq!(dev.power_states().apst[0].map(|e| (e.idle.as_ns(), e.target)), Some((200_000_000, 1)));
    let t = dev.now();
    let awake = read_latency(&mut dev, t + SimDuration::from_ms(10));
    // Idle 50 ms: still in PS0, no extra latency.
    let t = dev.now();
    assert_eq!(read_latency(&mut dev, t + SimDuration::from_ms(50)), awake);
    assert_eq!(dev.counters().apst_wakeups, 0);
    // Idle 500 ms: in PS1 (entered at 200 ms) since long: its 2 ms exit latency.
    let t = dev.now();
    assert_eq!(dev.power_state(), 0);
    dev.advance_to(t + SimDuration::from_ms(499));
    assert_eq!(dev.power_state(), 1);
    assert_eq!(read_latency(&mut dev, t + SimDuration::from_ms(500)), awake + 2_000_000);
    // The next command finds the drive awake.
    let t = dev.now();
    assert_eq!(read_latency(&mut dev, t), awake);
    // Idle 5 s: PS2, 8 ms out.
    let t = dev.now();
    assert_eq!(read_latency(&mut dev, t + SimDuration::from_secs(5)), awake + 8_000_000);
    let c = dev.counters();
    assert_eq!((c.apst_wakeups, c.apst_transitions), (2, 3));
}

#[test]
fn apst_states_draw_their_own_power() {
    let mut dev = sleepy_drive();
    let e0 = dev.counters().energy_mj;
    let t = dev.now();
    // 10 s idle: 200 ms at idle power (1.5 W by default), 700 ms at 45 mW, 9.1 s at 4 mW.
    dev.advance_to(t + SimDuration::from_secs(10));
    let joules = (dev.counters().energy_mj - e0) as f64 / 1000.0;
    let expected = 0.2 * 1.5 + 0.7 * 0.045 + 9.1 * 0.004;
    assert!((joules - expected).abs() < 0.002, "{joules} J, expected {expected}");
}

#[test]
fn thermal_history_survives_a_save_and_the_drive_comes_back_cool() {
    let mut dev = Ssd::new(hot_drive(&[]));
    write_for(&mut dev, 2000);
    dev.quiesce();
    let before = dev.counters();
    assert!(before.warning_temp_ns > 0 && before.temperature_mk > 330_000);
    let path = std::env::temp_dir().join(format!("ssdtwin-thermal-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let back = Ssd::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    let after = back.counters();
    assert_eq!(
        (after.warning_temp_ns, after.throttled_ns, after.energy_mj, after.controller_busy_ns),
        (before.warning_temp_ns, before.throttled_ns, before.energy_mj, before.controller_busy_ns)
    );
    assert_eq!((after.temperature_mk, after.throttle_level), (298_150, 0));
}

#[test]
fn throttling_costs_nothing_to_the_data() {
    let mut dev = Ssd::with_verify(hot_drive(&["identity.capacity_bytes=25165824"]), true);
    let mut j = job("w", RwPattern::RandWrite, 4096, 32);
    j.time_based = true;
    j.runtime_ns = Some(2_000_000_000);
    j.size = Some(SizeSpec::Bytes(24 << 20));
    let set = JobSet { global_options: vec![], jobs: vec![j] };
    run(&mut Host::new(&mut dev, bare_host()), &set, &RunOptions::default(), &mut |_| true).unwrap();
    dev.quiesce();
    assert!(dev.counters().throttled_ns > 0);
    let mut r = job("r", RwPattern::Read, 1 << 17, 8);
    r.size = Some(SizeSpec::Bytes(24 << 20));
    let set = JobSet { global_options: vec![], jobs: vec![r] };
    run(&mut Host::new(&mut dev, bare_host()), &set, &RunOptions::default(), &mut |_| true).unwrap();
    assert_eq!(dev.counters().verify_errors, 0);
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn hosts_program_apst_as_their_drivers_do() {
    use ssdtwin_core::os::{configure_apst, load_host};
    let dev = sleepy_drive();
    let states = dev.power_states();
    let entry = |host: &str| {
        let table = configure_apst(states, &load_host(host, &[]).unwrap());
        table.first().copied().flatten().map(|e| (e.idle.as_ns() / 1_000_000, e.target))
    };
    // Linux 6.1: the deepest state within 15 ms of total latency (PS2: 14 ms) after 100 ms.
    assert_eq!(entry("linux-6.1"), Some((100, 2)));
    // Linux 4.15: the next state after 50 × its latency (PS1: 4 ms → 200 ms).
    assert_eq!(entry("linux-4.15"), Some((200, 1)));
    // FreeBSD 11 and the bare twin program nothing.
    assert_eq!(entry("freebsd-11"), None);
    assert_eq!(entry("none"), None);
    // A drive without non-operational states gets no table from any host.
    let plain = Ssd::new(small_config(48, 25.0, &[]));
    assert!(configure_apst(plain.power_states(), &load_host("linux-6.1", &[]).unwrap()).is_empty());
}
