//! The sampled steady-state fill (`ftl/steady.rs`) against the timed path: a drive brought
//! to GC steady state by timed random writes and one filled by sampling superblock counts
//! must hold the same distribution of valid units per superblock and write, from there,
//! at the same speed and write amplification; the state it leaves is a consistent one.

use crate::common::{counter_row, job, run_one};
use ssdtwin_core::config::{DeviceConfig, apply_overrides, build, load_profile};
use ssdtwin_core::ftl::SbState;
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{JobSet, RunOptions, RwPattern, SizeSpec, run};

/// 300 superblocks of 384 units (2 channels × 2 dies × 2 planes, 16 KiB pages, 12 pages
/// per block), 28 % over-provisioning: WA about 2 at steady state, a few hundred GC
/// victims per pass, so counts are well mixed after two passes.
fn config(policy: &str) -> DeviceConfig {
    config_with(policy, 12)
}

/// [`config`] with `pages` pages per block.
fn config_with(policy: &str, pages: u32) -> DeviceConfig {
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    p.table["identity"].as_table_mut().unwrap().remove("capacity_bytes");
    p.table["namespace"].as_table_mut().unwrap().remove("lba_formats");
    let o: Vec<String> = [
        "nand.channels=2",
        "nand.dies_per_channel=2",
        "nand.planes=2",
        "nand.blocks_per_plane=300",
        &format!("nand.pages_per_block={pages}"),
        "controller.write_buffer_mib=1",
        "identity.mdts=0",
        "ftl.overprovisioning_pct=28",
        &format!("ftl.gc_policy={policy}"),
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    apply_overrides(&mut p, &o).unwrap();
    build(&p).unwrap()
}

/// Uniform random 4 KiB writes (i.i.d. offsets, as the fill's) of `units` units, QD32.
fn random_writes(dev: &mut Ssd, units: u64, seed: u64) -> (f64, f64) {
    let mut w = job("w", RwPattern::RandWrite, 4096, 32);
    w.norandommap = true;
    w.io_size = Some(SizeSpec::Bytes(units * 4096));
    let before = counter_row(dev);
    let set = JobSet { global_options: vec![], jobs: vec![w] };
    let opts = RunOptions { seed, log_dir: std::env::temp_dir(), ..RunOptions::default() };
    let r = run(&mut ssdtwin_core::os::Host::new(&mut *dev, ssdtwin_core::os::bare_host()), &set, &opts, &mut |_| true)
        .unwrap();
    let iops = r.jobs[0].dirs.iter().map(|d| d.total_ios).sum::<u64>() as f64 / (r.jobs[0].runtime_ns() as f64 / 1e9);
    (iops, counter_row(dev).write_amplification_since(&before).unwrap())
}

/// Valid share of every full superblock.
fn valid_shares(dev: &Ssd) -> Vec<f64> {
    let f = dev.ftl();
    let cap = f64::from(f.geometry().sb_units());
    (0..f.sbs.len()).filter(|&sb| f.sbs.state(sb) == SbState::Full).map(|sb| f64::from(f.sbs.valid(sb)) / cap).collect()
}

/// Share of values in each tenth of 0.5–1.0 (below 0.5 in the first).
fn histogram(shares: &[f64]) -> [f64; 10] {
    let mut h = [0.0; 10];
    for &u in shares {
        h[((u - 0.5) / 0.05).clamp(0.0, 9.0) as usize] += 1.0 / shares.len() as f64;
    }
    h
}

struct Outcome {
    shares: Vec<f64>,
    first_iops: f64,
    first_wa: f64,
}

/// Brings a drive to steady state with `precondition`, then writes a quarter of the span at
/// random: the valid shares before, the window's IOPS and WA.
fn outcome(cfg: &DeviceConfig, seed: u64, precondition: impl Fn(&mut Ssd)) -> Outcome {
    let mut dev = Ssd::new(cfg.clone());
    precondition(&mut dev);
    dev.ftl().check_invariants().unwrap();
    let shares = valid_shares(&dev);
    let (first_iops, first_wa) = random_writes(&mut dev, cfg.logical_units / 4, 1000 + seed);
    Outcome { shares, first_iops, first_wa }
}

fn timed(cfg: &DeviceConfig, seed: u64) -> Outcome {
    outcome(cfg, seed, |dev| {
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        random_writes(dev, 2 * cfg.logical_units, seed);
        dev.quiesce();
    })
}

fn sampled(cfg: &DeviceConfig, seed: u64) -> Outcome {
    outcome(cfg, seed, |dev| {
        let fill =
            FillPattern::Random { percent: 100.0, sequential_passes: 1, overwrite_passes: 2.0, seed, exact: false };
        dev.fill(fill).unwrap();
    })
}

fn compare(policy: &str) {
    let cfg = config(policy);
    let seeds = 1..=4u64;
    let (t, s): (Vec<Outcome>, Vec<Outcome>) = seeds.map(|seed| (timed(&cfg, seed), sampled(&cfg, seed))).unzip();
    let mean = |v: &[Outcome], f: fn(&Outcome) -> f64| v.iter().map(f).sum::<f64>() / v.len() as f64;
    let (t_iops, s_iops) = (mean(&t, |o| o.first_iops), mean(&s, |o| o.first_iops));
    let (t_wa, s_wa) = (mean(&t, |o| o.first_wa), mean(&s, |o| o.first_wa));
    let pooled = |v: &[Outcome]| v.iter().flat_map(|o| o.shares.iter().copied()).collect::<Vec<_>>();
    let (th, sh) = (histogram(&pooled(&t)), histogram(&pooled(&s)));
    assert!(t_wa > 1.5, "GC must be busy for the comparison to mean anything: WA {t_wa}");
    assert!((s_iops / t_iops - 1.0).abs() < 0.03, "{policy}: first-window IOPS {s_iops:.0} vs timed {t_iops:.0}");
    assert!((s_wa / t_wa - 1.0).abs() < 0.03, "{policy}: first-window WA {s_wa:.3} vs timed {t_wa:.3}");
    // Each tenth holds ~10 % of ~1,160 superblocks: its sampling error is under 1 %.
    for (k, (a, b)) in th.iter().zip(&sh).enumerate() {
        assert!((a - b).abs() < 0.03, "{policy}: share of superblocks in tenth {k}: sampled {b:.3} vs timed {a:.3}");
    }
}

#[test]
fn greedy_steady_state_matches_the_timed_path() {
    compare("greedy");
}

#[test]
fn cost_benefit_steady_state_matches_the_timed_path() {
    compare("cost-benefit");
}

#[test]
fn the_sampled_state_is_consistent_reads_back_and_survives_a_round_trip() {
    let cfg = config("greedy");
    let span = (cfg.logical_units as f64 * 0.9).round() as u64;
    let mut dev = Ssd::with_verify(cfg.clone(), true);
    let fill =
        FillPattern::Random { percent: 90.0, sequential_passes: 2, overwrite_passes: 2.0, seed: 5, exact: false };
    dev.fill(fill).unwrap();
    dev.ftl().check_invariants().unwrap();
    let (ftl, c) = (dev.ftl(), dev.counters());
    assert_eq!(ftl.mapped_units(), span);
    assert!((0..cfg.logical_units).all(|l| ftl.map.is_mapped(l) == (l < span)));
    // Four passes of host writes, GC's moves, every superblock erase counted and dated.
    assert_eq!(c.host_write_bytes, 4 * span * 4096);
    assert_eq!(c.gc_units_moved * 4096, c.nand_gc_read_bytes);
    let erased: u64 = (0..ftl.sbs.len()).map(|sb| u64::from(ftl.sbs.erase_count(sb))).sum();
    assert_eq!((erased, c.erases), (c.erases, c.gc_jobs));
    assert!(c.free_superblocks >= u64::from(cfg.gc.bg_threshold_sb), "GC leaves free space as a quiet drive has it");
    assert_eq!(c.nand_write_bytes, c.host_write_bytes + c.gc_units_moved * 4096 + c.nand_padding_bytes);
    // The span's units spread over the drive: the first tenth lies in nearly every full
    // superblock, and consecutive units seldom share a program unit.
    let geometry = ftl.geometry();
    let mut seen = vec![false; ftl.sbs.len() as usize];
    for l in 0..span / 10 {
        seen[geometry.sb_of(ssdtwin_core::nand::Ppa(ftl.map.lookup(l))) as usize] = true;
    }
    let full_superblocks = (0..ftl.sbs.len()).filter(|&sb| ftl.sbs.state(sb) == SbState::Full).count();
    assert!(seen.iter().filter(|&&s| s).count() as f64 >= 0.9 * full_superblocks as f64);
    let pu = |l: u64| geometry.pu_of(ssdtwin_core::nand::Ppa(ftl.map.lookup(l)));
    let same = (1..span).filter(|&l| pu(l) == pu(l - 1)).count();
    assert!((same as f64) < 0.05 * span as f64, "{same} of {span} consecutive units share a program unit");
    // Every unit reads back the version the fill gave it; a saved and restored copy is the
    // same drive and goes on alike.
    run_one(&mut dev, job("r", RwPattern::Read, 1 << 17, 8), None, None);
    assert_eq!(dev.counters().verify_errors, 0, "{:?}", dev.verifier().unwrap().first_error);
    let path = std::env::temp_dir().join(format!("ssdtwin-steady-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let mut back = Ssd::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(back.ftl().map == dev.ftl().map);
    assert_eq!(back.ftl().export_state(), dev.ftl().export_state());
    let original = random_writes(&mut dev, span / 8, 77);
    let restored = random_writes(&mut back, span / 8, 77);
    assert_eq!(original, restored);
    assert_eq!((dev.counters().verify_errors, back.counters().verify_errors), (0, 0));
    dev.quiesce();
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn the_same_seed_samples_the_same_drive_and_another_seed_another() {
    let cfg = config("greedy");
    let go = |seed| {
        let mut dev = Ssd::new(cfg.clone());
        let fill =
            FillPattern::Random { percent: 100.0, sequential_passes: 1, overwrite_passes: 1.0, seed, exact: false };
        dev.fill(fill).unwrap();
        dev
    };
    let (a, b, c) = (go(1), go(1), go(2));
    assert!(a.ftl().map == b.ftl().map);
    assert_eq!(a.ftl().export_state(), b.ftl().export_state());
    assert_ne!(a.ftl().export_state(), c.ftl().export_state());
}

#[test]
fn where_sampling_does_not_apply_the_fill_places_every_write() {
    // Data beyond the span (written before) or an SLC cache: the unit-by-unit path, the
    // same as asking for it.
    let cfg = config("greedy");
    let used = || {
        let mut dev = Ssd::new(cfg.clone());
        dev.fill(FillPattern::Sequential { percent: 60.0, command_bytes: 1 << 17 }).unwrap();
        dev
    };
    let fill =
        |exact| FillPattern::Random { percent: 30.0, sequential_passes: 1, overwrite_passes: 0.5, seed: 2, exact };
    let (mut a, mut b) = (used(), used());
    a.fill(fill(false)).unwrap();
    b.fill(fill(true)).unwrap();
    assert!(a.ftl().map == b.ftl().map);
    assert_eq!(a.ftl().export_state(), b.ftl().export_state());
    // Nor with no overwrites at all: a random fill of no passes is the sequential fill.
    let (mut a, mut b) = (Ssd::new(cfg.clone()), Ssd::new(cfg.clone()));
    a.fill(FillPattern::Random { percent: 50.0, sequential_passes: 1, overwrite_passes: 0.0, seed: 2, exact: false })
        .unwrap();
    b.fill(FillPattern::Sequential { percent: 50.0, command_bytes: 128 << 10 }).unwrap();
    assert!(a.ftl().map == b.ftl().map);
    assert_eq!(a.ftl().export_state(), b.ftl().export_state());
}

#[test]
fn a_cancelled_sampled_fill_leaves_an_empty_consistent_drive() {
    // 3.4 GiB: the fill reports progress every GiB, so the observer is asked mid-way.
    let cfg = config_with("greedy", 96);
    let mut dev = Ssd::with_verify(cfg.clone(), true);
    let fill =
        FillPattern::Random { percent: 100.0, sequential_passes: 1, overwrite_passes: 2.0, seed: 1, exact: false };
    let span = cfg.logical_units;
    let r = dev.fill_observed(fill, &mut |done, _| done < span + span / 2);
    assert_eq!(r, Err(ssdtwin_core::ssd::FillError::Cancelled));
    dev.ftl().check_invariants().unwrap();
    assert_eq!(dev.ftl().mapped_units(), 0);
    dev.fill(fill).unwrap();
    run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 8), None, Some(20));
    assert_eq!(dev.counters().verify_errors, 0);
}
