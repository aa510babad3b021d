//! Configurations that must agree: the bulk fill and the timed path, a saved and restored
//! device and the original, two runs with the same seed, and the bare host's shortcuts and
//! the general I/O loop.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::config::LoadedProfile;
use ssdtwin_core::os::{Host, HostConfig, bare_host, build_host};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{JobSet, RunOptions, RwPattern, run};

fn assert_same_state(a: &Ssd, b: &Ssd) {
    assert!(a.ftl().map == b.ftl().map, "maps differ");
    // The reverse maps may be stored differently (a bulk fill leaves its entries implicit)
    // but must name the same owner for every physical unit.
    a.ftl().check_invariants().unwrap();
    b.ftl().check_invariants().unwrap();
    let (ma, mb) = (&a.ftl().map, &b.ftl().map);
    for ppa in 0..ma.physical_units() {
        assert_eq!(ma.owner(ppa), mb.owner(ppa), "physical unit {ppa} is owned differently");
    }
    assert_eq!(a.ftl().export_state(), b.ftl().export_state(), "FTL state differs");
    // Every block's erases (SLC and native), spares and bad blocks.
    assert!(a.ftl().wear == b.ftl().wear, "per-block wear differs");
    let (ha, hb) = (a.host_counters(), b.host_counters());
    assert_eq!(
        (ha.bytes_written, ha.write_cmds, ha.units_programmed),
        (hb.bytes_written, hb.write_cmds, hb.units_programmed)
    );
    let (mut ca, mut cb) = (a.counters(), b.counters());
    // Timing-only counters differ between a timed and an untimed path, and a restored
    // drive starts cool.
    for c in [&mut ca, &mut cb] {
        (c.time_ns, c.write_stalls, c.suspensions, c.controller_busy_ns) = (0, 0, 0, 0);
        (c.temperature_mk, c.power_mw, c.energy_mj, c.power_state) = (0, 0, 0, 0);
    }
    assert_eq!(ca, cb);
}

#[test]
fn bulk_sequential_fill_equals_the_timed_path() {
    let cfg = small_config(40, 25.0, &[]);
    let ns = cfg.namespace.capacity_bytes;
    let mut timed = Ssd::with_verify(cfg.clone(), true);
    run_one(&mut timed, job("fill", RwPattern::Write, 1 << 17, 32), Some(ns), None);
    timed.quiesce();
    let mut bulk = Ssd::with_verify(cfg, true);
    bulk.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    assert_same_state(&timed, &bulk);
    assert_eq!(timed.ftl().tags(), bulk.ftl().tags());
}

#[test]
fn a_partial_fill_ending_mid_page_agrees_too() {
    let cfg = small_config(40, 25.0, &[]);
    // 37 % of the namespace in 4 KiB commands leaves the last program unit partly filled.
    let units = (cfg.logical_units as f64 * 0.37).round() as u64;
    let mut timed = Ssd::new(cfg.clone());
    run_one(&mut timed, job("fill", RwPattern::Write, 4096, 8), Some(units * 4096), None);
    timed.quiesce();
    let mut bulk = Ssd::new(cfg);
    bulk.fill(FillPattern::Sequential { percent: 37.0, command_bytes: 4096 }).unwrap();
    assert_same_state(&timed, &bulk);
    assert!(timed.counters().nand_padding_bytes > 0);
}

#[test]
fn an_overwrite_fill_continues_a_sequential_fill_as_a_random_fill_would() {
    // A random fill is a sequential pass then random overwrites; the same overwrites as a
    // fill of their own, after a sequential fill, leave the same drive, whether they are
    // placed one by one or sampled superblock by superblock.
    let cfg = small_config(40, 25.0, &[]);
    for exact in [true, false] {
        let mut random = Ssd::with_verify(cfg.clone(), true);
        let (overwrite_passes, seed) = (1.5, 9);
        random
            .fill(FillPattern::Random { percent: 100.0, sequential_passes: 1, overwrite_passes, seed, exact })
            .unwrap();
        let mut split = Ssd::with_verify(cfg.clone(), true);
        split.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        split.fill(FillPattern::Overwrite { percent: 100.0, overwrite_passes, seed, exact }).unwrap();
        assert_same_state(&random, &split);
        assert_eq!(random.ftl().tags(), split.ftl().tags());
        assert!(random.counters().gc_jobs > 0, "the overwrites made GC run (exact: {exact})");
        assert!(random.counters().block_erases > 0, "GC's erases wore blocks (exact: {exact})");
    }
}

#[test]
fn a_bulk_fill_over_written_data_agrees_too() {
    // Half the drive filled in bulk, a third of that rewritten at random, then the first
    // 30 % filled again: units in the bulk fill's superblocks (whose reverse entries are
    // implicit) and rewritten ones are overwritten. Too little is written for GC to start,
    // so the timed path must leave exactly what the bulk fill leaves.
    let cfg = small_config(40, 25.0, &[]);
    let ns = cfg.namespace.capacity_bytes;
    let prepare = || {
        let mut dev = Ssd::with_verify(cfg.clone(), true);
        dev.fill(FillPattern::Sequential { percent: 50.0, command_bytes: 1 << 17 }).unwrap();
        let mut w = job("w", RwPattern::RandWrite, 4096, 16);
        w.io_size = Some(ssdtwin_core::workload::SizeSpec::Bytes(ns / 6 / 4096 * 4096));
        run_one(&mut dev, w, Some(ns / 2 / 4096 * 4096), None);
        dev.quiesce();
        dev
    };
    let mut timed = prepare();
    let mut bulk = prepare();
    let units = (cfg.logical_units as f64 * 0.3).round() as u64;
    run_one(&mut timed, job("fill", RwPattern::Write, 1 << 17, 32), Some(units * 4096), None);
    timed.quiesce();
    bulk.fill(FillPattern::Sequential { percent: 30.0, command_bytes: 1 << 17 }).unwrap();
    assert_eq!(timed.counters().gc_jobs, 0, "the comparison needs a drive that does not collect");
    assert_same_state(&timed, &bulk);
    assert_eq!(timed.ftl().tags(), bulk.ftl().tags());
    assert_eq!(bulk.verifier().unwrap().errors, 0);
}

#[test]
fn on_a_worn_drive_the_bulk_fill_opens_the_superblocks_the_timed_path_opens() {
    // Random overwrites wear the superblocks unevenly, and a format frees them all with
    // their wear kept: each wear-levelling policy then picks, superblock by superblock,
    // where a sequential fill goes, and the bulk fill must pick the same ones.
    for levelling in ["fifo", "dynamic", "static"] {
        let cfg = small_config(40, 25.0, &[&format!("ftl.wear_levelling={levelling}"), "nand.pages_per_block=3"]);
        let prepare = || {
            let mut dev = Ssd::with_verify(cfg.clone(), true);
            dev.fill(FillPattern::Random {
                percent: 70.0,
                sequential_passes: 1,
                overwrite_passes: 2.0,
                seed: 4,
                exact: true,
            })
            .unwrap();
            dev.format(None).unwrap();
            dev
        };
        let (mut timed, mut bulk) = (prepare(), prepare());
        let f = timed.ftl();
        let erases: Vec<u32> = (0..f.sbs.len()).map(|sb| f.sbs.erase_count(sb)).collect();
        assert!(erases.iter().min() < erases.iter().max(), "{levelling}: the drive must be worn unevenly");
        let units = (cfg.logical_units as f64 * 0.6).round() as u64;
        run_one(&mut timed, job("fill", RwPattern::Write, 1 << 17, 32), Some(units * 4096), None);
        timed.quiesce();
        bulk.fill(FillPattern::Sequential { percent: 60.0, command_bytes: 1 << 17 }).unwrap();
        assert_eq!(timed.counters().gc_jobs, bulk.counters().gc_jobs, "{levelling}");
        assert_same_state(&timed, &bulk);
        assert_eq!(timed.ftl().tags(), bulk.ftl().tags());
    }
}

#[test]
fn snapshot_round_trip_restores_everything() {
    let cfg = small_config(48, 25.0, &["nand.pages_per_block=3"]);
    let logical = cfg.logical_units;
    let mut dev = Ssd::with_verify(cfg, true);
    dev.fill(FillPattern::Random { percent: 100.0, sequential_passes: 1, overwrite_passes: 1.5, seed: 9, exact: true })
        .unwrap();
    let mut w = job("w", RwPattern::RandWrite, 4096, 16);
    w.io_size = Some(ssdtwin_core::workload::SizeSpec::Bytes(logical / 2 * 4096));
    run_one(&mut dev, w, None, None);
    dev.quiesce();
    let path = std::env::temp_dir().join(format!("ssdtwin-snap-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let mut back = Ssd::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_same_state(&dev, &back);
    assert_eq!(dev.ftl().tags(), back.ftl().tags());
    // Both continue identically (the restored clock starts at zero: compare latencies).
    let r1 = run_one(&mut dev, job("r", RwPattern::RandRw, 4096, 8), None, Some(30));
    let r2 = run_one(&mut back, job("r", RwPattern::RandRw, 4096, 8), None, Some(30));
    assert_eq!(r1.jobs[0].dirs, r2.jobs[0].dirs);
    assert_eq!(back.counters().verify_errors, 0);
}

#[test]
fn loading_garbage_is_an_error_not_a_panic() {
    let path = std::env::temp_dir().join(format!("ssdtwin-garbage-{}.state", std::process::id()));
    std::fs::write(&path, b"definitely not a state file").unwrap();
    let e = Ssd::load(&path).err().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(e.to_string().contains("bad magic"), "{e}");
}

#[test]
fn same_seed_same_result_different_seed_different_result() {
    let go = |seed: u64| {
        let cfg = small_config(48, 25.0, &["nand.pages_per_block=3"]);
        let mut dev = Ssd::new(cfg);
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        let mut j = job("mix", RwPattern::RandRw, 4096, 16);
        j.runtime_ns = Some(200_000_000);
        j.time_based = true;
        j.numjobs = 2;
        let set = JobSet { global_options: vec![], jobs: vec![j] };
        let opts = RunOptions { seed, log_dir: std::env::temp_dir(), ..RunOptions::default() };
        let r = run(&mut Host::new(&mut dev, bare_host()), &set, &opts, &mut |_| true).unwrap();
        (r, dev.counters())
    };
    let (a, ca) = go(1);
    let (b, cb) = go(1);
    assert_eq!(a, b);
    assert_eq!(ca, cb);
    let (c, _) = go(2);
    assert_ne!(a.jobs[0].dirs, c.jobs[0].dirs);
}

/// A host with every cost 0: it takes the general path of the I/O loop (CPU bookings,
/// interrupts, wakeups, reaps), each step taking no time.
fn free_linux() -> HostConfig {
    let text = "[host]\ndescription = \"no costs\"\nos = \"linux\"\n[cpu]\ncores = 4\ndram_gib = 1.0\n\
                [engines.libaio]\nkind = \"async\"\n[engines.psync]\nkind = \"sync\"\n";
    build_host(&LoadedProfile::from_str(text, "free", "free").unwrap()).unwrap()
}

#[test]
fn the_bare_hosts_shortcuts_agree_with_the_general_loop_at_no_cost() {
    // The bare host reaps and replaces each completion on the spot and sends commands
    // without request records; a host whose every cost is 0 goes the long way. Every
    // fio figure and the device state must come out the same.
    let go = |host: HostConfig| {
        let cfg = small_config(48, 25.0, &[]);
        let mut dev = Ssd::new(cfg);
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        let mut mix = job("mix", RwPattern::RandRw, 4096, 16);
        mix.runtime_ns = Some(50_000_000);
        mix.time_based = true;
        mix.numjobs = 2;
        let mut sync = job("sync", RwPattern::Read, 1 << 16, 1);
        sync.ioengine = "psync".into();
        sync.number_ios = Some(500);
        sync.stonewall = true;
        let set = JobSet { global_options: vec![], jobs: vec![mix, sync] };
        let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
        let r = run(&mut Host::new(&mut dev, host), &set, &opts, &mut |_| true).unwrap();
        (r.jobs, r.disk, dev)
    };
    let (bare_jobs, bare_disk, bare_dev) = go(bare_host());
    let (mut free_jobs, free_disk, free_dev) = go(free_linux());
    // The bare host has no threads to put to sleep; a host does, however little it costs.
    assert!(bare_jobs.iter().all(|j| j.ctx == 0));
    assert!(free_jobs.iter().all(|j| j.ctx > 0));
    for j in &mut free_jobs {
        j.ctx = 0;
    }
    for (b, f) in bare_jobs.iter().zip(&free_jobs) {
        // Compared whole; the message names the job without printing its histograms.
        assert!(b == f, "job {} differs", b.name);
    }
    assert_eq!(bare_disk, free_disk);
    assert_same_state(&bare_dev, &free_dev);
}
