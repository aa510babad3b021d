//! GC under random writes: steady state, write amplification against the analytic bound,
//! back-pressure, and TRIM.

use crate::common::{counter_row, job, run_one, small_config};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{RwPattern, SizeSpec};

/// Victim utilisation `u` of FIFO cleaning under uniform random writes solves
/// `u = exp(-alpha (1 - u))`, where alpha is physical over logical space (Desnoyers,
/// "Analytic models of SSD write performance", TOS 2014); WA = 1 / (1 - u). Greedy victim
/// selection never does worse than FIFO.
fn fifo_wa(alpha: f64) -> f64 {
    let mut u: f64 = 0.5;
    for _ in 0..200 {
        u = (-alpha * (1.0 - u)).exp();
    }
    1.0 / (1.0 - u)
}

fn steady_state_wa(policy: &str) -> (f64, f64, Ssd) {
    let cfg = small_config(64, 25.0, &["nand.pages_per_block=3", &format!("ftl.gc_policy={policy}")]);
    let logical = cfg.logical_units as f64;
    // Space GC can use: everything but the free superblocks GC keeps in reserve and the two
    // open frontiers.
    let sb_units = cfg.geometry.sb_units() as f64;
    let usable = (cfg.geometry.superblocks() as f64 - f64::from(cfg.gc.bg_threshold_sb) - 2.0) * sb_units;
    let mut dev = Ssd::with_verify(cfg, true);
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    // Two device-fulls of random writes reach steady state; measure the next two.
    // i.i.d. offsets, as the analytic model assumes (fio's random map would write each
    // block exactly once per pass, which lowers WA well below it).
    let mut warm = job("warm", RwPattern::RandWrite, 4096, 32);
    warm.norandommap = true;
    warm.io_size = Some(SizeSpec::Bytes(2 * logical as u64 * 4096));
    run_one(&mut dev, warm, Some(ns), None);
    let before = counter_row(&dev);
    let mut measure = job("measure", RwPattern::RandWrite, 4096, 32);
    measure.norandommap = true;
    measure.io_size = Some(SizeSpec::Bytes(2 * logical as u64 * 4096));
    run_one(&mut dev, measure, Some(ns), None);
    dev.quiesce();
    let wa = counter_row(&dev).write_amplification_since(&before).unwrap();
    (wa, fifo_wa(usable / logical), dev)
}

#[test]
fn greedy_write_amplification_is_within_the_fifo_bound() {
    let (wa, bound, dev) = steady_state_wa("greedy");
    assert!(wa > 1.2, "GC must run: WA {wa}");
    assert!(wa <= bound * 1.05, "greedy WA {wa} above the FIFO bound {bound}");
    // Greedy is known to be within ~20 % of FIFO at this spare factor (Desnoyers, fig. 6).
    assert!(wa >= bound * 0.75, "greedy WA {wa} implausibly far below FIFO {bound}");
    dev.ftl().check_invariants().unwrap();
    assert_eq!(dev.counters().verify_errors, 0);
}

#[test]
fn cost_benefit_runs_to_steady_state_with_a_sane_write_amplification() {
    let (wa, bound, dev) = steady_state_wa("cost-benefit");
    assert!(wa > 1.2 && wa <= bound * 1.1, "cost-benefit WA {wa}, FIFO bound {bound}");
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn host_writes_wait_for_gc_and_reads_still_return_the_last_version() {
    let cfg = small_config(64, 25.0, &["nand.pages_per_block=3"]);
    let logical = cfg.logical_units;
    let mut dev = Ssd::with_verify(cfg, true);
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    let mut mix = job("mix", RwPattern::RandRw, 4096, 64);
    mix.io_size = Some(SizeSpec::Bytes(3 * logical * 4096));
    run_one(&mut dev, mix, Some(ns), None);
    let c = dev.counters();
    assert!(c.gc_jobs > 10, "{c:?}");
    assert!(c.write_stalls > 0, "a 1 MiB buffer must fill under GC: {c:?}");
    assert_eq!(c.verify_errors, 0, "{:?}", dev.verifier().unwrap().first_error);
    dev.quiesce();
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn trimmed_space_lowers_write_amplification() {
    let run = |trim_half: bool| {
        let cfg = small_config(64, 25.0, &["nand.pages_per_block=3"]);
        let logical = cfg.logical_units;
        let mut dev = Ssd::new(cfg);
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        let ns = dev.config().namespace.capacity_bytes;
        if trim_half {
            let mut t = job("trim", RwPattern::Trim, 1 << 20, 1);
            t.offset = SizeSpec::Bytes(ns / 2);
            run_one(&mut dev, t, Some(ns / 2), None);
        }
        let before = counter_row(&dev);
        let mut w = job("w", RwPattern::RandWrite, 4096, 32);
        w.norandommap = true;
        w.io_size = Some(SizeSpec::Bytes(2 * logical * 4096));
        run_one(&mut dev, w, Some(ns / 2), None);
        dev.quiesce();
        dev.ftl().check_invariants().unwrap();
        counter_row(&dev).write_amplification_since(&before).unwrap()
    };
    let (full, half) = (run(false), run(true));
    assert!(half < full * 0.8, "trimmed {half} vs untrimmed {full}");
}
