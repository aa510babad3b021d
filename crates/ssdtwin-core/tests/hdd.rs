//! The hard-disk model against its profile's datasheet figures: single-track, average and
//! full-stroke seeks, rotational latency, the sustained rate at each edge, and what NCQ,
//! the write cache and read-modify-write do. Expectations come from the profile (the
//! shipped Exos X18: 7200 rpm, seeks 0.23 / 7.4 / 15.7 ms, 270 → 135 MB/s, 0.1 ms command
//! overhead), never from a run.

use crate::common::job;
use ssdtwin_core::block::{BlockDevice, Command, Opcode};
use ssdtwin_core::config::apply_overrides;
use ssdtwin_core::engine::{SimRng, SimTime};
use ssdtwin_core::hdd::{Hdd, HddCounters, build_hdd, load_hdd};
use ssdtwin_core::os::{Host, bare_host};
use ssdtwin_core::workload::{JobSet, RunOptions, RwPattern, SizeSpec, run};

fn exos(overrides: &[&str]) -> Hdd {
    let mut p = load_hdd("exos-x18-16tb").unwrap();
    apply_overrides(&mut p, &overrides.iter().map(ToString::to_string).collect::<Vec<_>>()).unwrap();
    Hdd::new(build_hdd(&p).unwrap())
}

/// Submits `commands` one at a time (QD1), returning each one's latency in ns.
fn qd1(disk: &mut Hdd, commands: &[Command]) -> Vec<u64> {
    commands
        .iter()
        .map(|&c| {
            let now = disk.now();
            disk.submit(now, c, 0).unwrap();
            loop {
                if let Some(done) = disk.poll() {
                    break done.completed.since(done.submitted).as_ns();
                }
            }
        })
        .collect()
}

fn read_at(lba: u64) -> Command {
    Command::new(Opcode::Read, lba, 8)
}

fn delta(after: HddCounters, before: HddCounters) -> (u64, u64, u64) {
    (after.seek_ns - before.seek_ns, after.rotation_ns - before.rotation_ns, after.seeks - before.seeks)
}

#[test]
fn single_track_and_full_stroke_seeks_are_the_datasheet_figures() {
    let mut disk = exos(&[]);
    let layout = disk.config().layout.clone();
    let last = layout.cylinders() - 1;
    qd1(&mut disk, &[read_at(layout.lba_at(1000, 0).unwrap())]);
    let before = disk.totals();
    qd1(&mut disk, &[read_at(layout.lba_at(1001, 0).unwrap())]);
    let (seek, _, seeks) = delta(disk.totals(), before);
    assert_eq!(seeks, 1);
    assert_eq!(seek, 230_000, "single-track seek 0.23 ms");
    qd1(&mut disk, &[read_at(layout.lba_at(0, 0).unwrap())]);
    let before = disk.totals();
    qd1(&mut disk, &[read_at(layout.lba_at(last, 0).unwrap())]);
    let (seek, _, _) = delta(disk.totals(), before);
    assert_eq!(seek, 15_700_000, "full-stroke seek 15.7 ms");
}

#[test]
fn random_reads_average_the_datasheet_seek_and_half_a_revolution() {
    // The datasheet average is over all pairs of cylinders: draw cylinders, not blocks.
    let mut disk = exos(&[]);
    let layout = disk.config().layout.clone();
    let mut rng = SimRng::stream(7, 7);
    let n = 3000;
    let commands: Vec<Command> =
        (0..n).map(|_| read_at(layout.lba_at(rng.below(u64::from(layout.cylinders())) as u32, 0).unwrap())).collect();
    let before = disk.totals();
    let latencies = qd1(&mut disk, &commands);
    let (seek, rotation, seeks) = delta(disk.totals(), before);
    let mean_seek = seek as f64 / seeks as f64;
    // Sampling error of 3000 seeks whose spread is ~3 ms: ~0.06 ms.
    assert!((mean_seek / 7.4e6 - 1.0).abs() < 0.025, "mean seek {mean_seek} ns against 7.4 ms");
    let half_turn = 60e9 / 7200.0 / 2.0;
    let mean_rotation = rotation as f64 / f64::from(n);
    assert!((mean_rotation / half_turn - 1.0).abs() < 0.05, "mean rotational wait {mean_rotation} ns");
    // Each read: overhead 0.1 ms, its seek and wait, and 4 KiB passing under the head.
    let mean = latencies.iter().sum::<u64>() as f64 / f64::from(n);
    let transfer = 4096.0 / (layout.lbas_per_track_range().1 as f64 * 512.0) * 60e9 / 7200.0;
    let expected = 100_000.0 + mean_seek + mean_rotation;
    assert!(mean >= expected && mean <= expected + transfer + 1.0, "latency {mean} against {expected}");
}

#[test]
fn sequential_reads_sustain_the_zone_rate_at_each_edge() {
    for (start_fraction, mbps) in [(0.0, 270.0), (0.999, 135.0)] {
        let mut disk = exos(&[]);
        let lbas = disk.geometry().lbas;
        let start = ((lbas as f64 * start_fraction) as u64).min(lbas - 400_000) / 8 * 8;
        let commands: Vec<Command> = (0..1000).map(|i| Command::new(Opcode::Read, start + i * 256, 256)).collect();
        qd1(&mut disk, &commands[..1]);
        let t0 = disk.now();
        qd1(&mut disk, &commands[1..]);
        let rate = 999.0 * 131_072.0 / disk.now().since(t0).as_secs_f64() / 1e6;
        // Read-ahead keeps the head streaming between commands; the interface (600 MB/s)
        // and the command overhead overlap with it.
        assert!((rate / mbps - 1.0).abs() < 0.03, "{rate} MB/s at {start_fraction} against {mbps}");
    }
}

#[test]
fn ncq_reordering_raises_random_read_iops_about_twofold() {
    let iops = |depth: u32| {
        let mut disk = exos(&[]);
        let mut j = job("r", RwPattern::RandRead, 4096, depth);
        j.runtime_ns = Some(3_000_000_000);
        j.time_based = true;
        j.size = Some(SizeSpec::Bytes(disk.geometry().capacity_bytes()));
        let set = JobSet { global_options: vec![], jobs: vec![j] };
        let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
        let r = run(&mut Host::new(&mut disk, bare_host()), &set, &opts, &mut |_| true).unwrap();
        r.jobs[0].dirs[0].iops()
    };
    let (one, thirty_two) = (iops(1), iops(32));
    // QD1 over the whole LBA range: 1 / (0.1 + ~6.6 + 4.17 ms) ≈ 90 IOPS; host-facts §6.2-6.3
    // gives 75-85 at QD1 and about twice that at QD16-32.
    assert!((80.0..110.0).contains(&one), "QD1 {one} IOPS");
    assert!(thirty_two / one > 1.6 && thirty_two / one < 3.5, "QD32 {thirty_two} against QD1 {one}");
}

#[test]
fn cached_writes_complete_at_interface_speed_and_a_flush_waits_for_the_media() {
    let mut disk = exos(&[]);
    let lat = qd1(&mut disk, &[Command::new(Opcode::Write, 1 << 30, 256)]);
    // Overhead 0.1 ms + 128 KiB at 600 MB/s.
    assert_eq!(lat[0], 100_000 + (131_072u64 * 1_000_000_000).div_ceil(600_000_000));
    let flush = qd1(&mut disk, &[Command::new(Opcode::Flush, 0, 0)]);
    assert!(flush[0] > 1_000_000, "the flush waits for the destage's seek and rotation: {}", flush[0]);
    assert_eq!(disk.totals().media_write_bytes, 131_072);
    let off = &mut exos(&["cache.write_cache=false"]);
    let lat = qd1(off, &[Command::new(Opcode::Write, 1 << 30, 256)]);
    assert!(lat[0] > 1_000_000, "write-through waits for the media: {}", lat[0]);
}

#[test]
fn a_write_smaller_than_a_physical_sector_costs_a_revolution_more() {
    let run = |blocks: u32| {
        let mut disk = exos(&["cache.write_cache=false"]);
        let before = disk.now();
        qd1(&mut disk, &[Command::new(Opcode::Write, 0, blocks)]);
        let c = disk.totals();
        (disk.now().since(before).as_ns(), c.rmw_writes)
    };
    let ((aligned, rmw_a), (short, rmw_s)) = (run(8), run(1));
    assert_eq!((rmw_a, rmw_s), (0, 1));
    let turn = 60_000_000_000 / 7200 + 1;
    assert!(short - aligned >= turn - 100_000, "{short} vs {aligned}");
}

#[test]
fn the_disk_refuses_commands_beyond_its_end_and_completes_everything_it_accepts() {
    let mut disk = exos(&[]);
    let lbas = disk.geometry().lbas;
    assert!(disk.submit(SimTime::ZERO, Command::new(Opcode::Read, lbas - 4, 8), 0).is_err());
    let mut rng = SimRng::stream(1, 2);
    for i in 0..100 {
        let opcode = if i % 3 == 0 { Opcode::Write } else { Opcode::Read };
        let c = Command::new(opcode, rng.below(lbas - 64) / 8 * 8, 8);
        disk.submit(SimTime::ZERO, c, i).unwrap();
    }
    let mut seen = 0;
    while disk.in_flight() > 0 {
        assert_ne!(disk.poll_at(), SimTime::NEVER, "accepted commands always complete");
        seen += u32::from(disk.poll().is_some());
    }
    assert_eq!(seen, 100);
}

#[test]
fn a_flush_covers_the_writes_before_it_not_those_after() {
    // Writes keep arriving behind a flush (a txg's data behind an intent-log commit): the
    // flush waits for the 4 writes before it, not for the 100 behind it. SPTF may destage a
    // few of the later ones first, so it ends well before a flush issued after all of them.
    let flush_time = |before: u64, after: u64| {
        let mut disk = exos(&[]);
        let mut rng = SimRng::stream(3, 3);
        let mut write = || Command::new(Opcode::Write, rng.below(1 << 34) / 8 * 8, 256);
        for i in 0..before {
            disk.submit(SimTime::ZERO, write(), i).unwrap();
        }
        disk.submit(SimTime::ZERO, Command::new(Opcode::Flush, 0, 0), 999).unwrap();
        for i in 0..after {
            disk.submit(SimTime::ZERO, write(), 1000 + i).unwrap();
        }
        let mut flushed = None;
        while disk.in_flight() > 0 {
            if let Some(c) = disk.poll().filter(|c| c.user == 999) {
                flushed = Some(c.completed.as_ns());
            }
        }
        flushed.expect("the flush completed")
    };
    let (early, all) = (flush_time(4, 100), flush_time(104, 0));
    assert!(early * 4 < all, "a flush after 4 writes took {early} ns, after all 104 {all} ns");
}
