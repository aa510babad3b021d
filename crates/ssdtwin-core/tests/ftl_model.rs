//! Property tests: random sequences of writes, trims, reads, flushes, idle time and snapshot
//! round trips, on a device small enough that GC runs constantly, checked after every step
//! against a plain map from logical unit to the version last written:
//! every unit holds the version last written (or none if trimmed or never written), every
//! read returned it, the FTL's invariants hold (L2P/P2L inverse, valid counts match, no
//! free superblock holds data).

use crate::common::small_config;
use proptest::prelude::*;
use ssdtwin_core::block::{BlockDevice, Command, Opcode};
use ssdtwin_core::engine::{SimDuration, SimTime};
use ssdtwin_core::ftl::{Ftl, RelocationJob};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone, Debug)]
enum Op {
    Write(u64, u32),
    Trim(u64, u32),
    Read(u64, u32),
    Flush,
}

#[derive(Clone, Debug)]
enum Step {
    /// Commands submitted together, then run to completion, then `idle_us` of idle time.
    Batch(Vec<Op>, u64),
    /// Quiesce, save, load, continue on the loaded device.
    Snapshot,
}

/// The reference: version last written per unit (0 = unmapped), versions handed out in
/// submission order, as the device admits writes in order.
struct Reference {
    versions: Vec<u32>,
    next: u32,
}

impl Reference {
    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Write(lpn, len) => {
                for u in lpn..lpn + u64::from(len) {
                    self.versions[u as usize] = self.next;
                    self.next += 1;
                }
            }
            Op::Trim(lpn, len) => (lpn..lpn + u64::from(len)).for_each(|u| self.versions[u as usize] = 0),
            Op::Read(..) | Op::Flush => {}
        }
    }
}

const UNITS: u64 = 2150;

fn op() -> impl Strategy<Value = Op> {
    let range = (0..UNITS).prop_flat_map(|lpn| (Just(lpn), 1..=(UNITS - lpn).min(32) as u32));
    prop_oneof![
        6 => range.clone().prop_map(|(l, n)| Op::Write(l, n)),
        1 => range.clone().prop_map(|(l, n)| Op::Trim(l, n)),
        3 => range.prop_map(|(l, n)| Op::Read(l, n)),
        1 => Just(Op::Flush),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        20 => (prop::collection::vec(op(), 1..12), prop_oneof![Just(0u64), 0..20_000u64]).prop_map(|(ops, idle)| Step::Batch(ops, idle)),
        1 => Just(Step::Snapshot),
    ]
}

/// NVMe leaves the order of overlapping commands in flight together undefined, so a batch
/// keeps only the first of any writes and trims that overlap.
fn without_overlapping_updates(ops: Vec<Op>) -> Vec<Op> {
    let mut taken: Vec<(u64, u64)> = Vec::new();
    ops.into_iter()
        .filter(|op| match *op {
            Op::Write(l, n) | Op::Trim(l, n) => {
                let end = l + u64::from(n);
                let clash = taken.iter().any(|&(a, b)| l < b && a < end);
                taken.push((l, end));
                !clash
            }
            Op::Read(..) | Op::Flush => true,
        })
        .collect()
}

fn command(op: &Op) -> Command {
    // 4 KiB LBAs: one LBA per map unit.
    match *op {
        Op::Write(l, n) => Command::new(Opcode::Write, l, n),
        Op::Trim(l, n) => Command::new(Opcode::Trim, l, n),
        Op::Read(l, n) => Command::new(Opcode::Read, l, n),
        Op::Flush => Command::new(Opcode::Flush, 0, 0),
    }
}

fn check(dev: &Ssd, reference: &Reference) -> Result<(), TestCaseError> {
    if let Err(e) = dev.ftl().check_invariants() {
        return Err(TestCaseError::fail(e.to_string()));
    }
    for lpn in 0..UNITS {
        let found = dev.ftl().tag_of(lpn).unwrap();
        prop_assert_eq!(found, reference.versions[lpn as usize], "unit {}", lpn);
    }
    let v = dev.verifier().unwrap();
    prop_assert_eq!(v.errors, 0, "{:?}", v.first_error);
    Ok(())
}

fn device(extra: &[&str]) -> Ssd {
    // 4 KiB LBAs, so each LBA is one unit, and a namespace of exactly UNITS units.
    let capacity = format!("identity.capacity_bytes={}", UNITS * 4096);
    let mut o = vec![
        "nand.pages_per_block=3",
        "controller.write_buffer_mib=0.125",
        "namespace.lba_formats=[{data_bytes=4096}]",
        &capacity,
    ];
    o.extend_from_slice(extra);
    Ssd::with_verify(small_config(if extra.is_empty() { 32 } else { 48 }, 30.0, &o), true)
}

/// An SLC cache of 4 static superblocks (128 KiB each) and up to 8 dynamic ones, folding
/// above 1 MiB down to 0.5 MiB, after 1 ms idle and on reads: folding, GC and host work
/// all interleave.
const SLC: &[&str] = &[
    "slc_cache.static_gib=0.00048828125",
    "slc_cache.dynamic_max_gib=0.0009765625",
    "slc_cache.fold_high_gib=0.0009765625",
    "slc_cache.fold_low_gib=0.00048828125",
    "slc_cache.fold_idle_ms=1",
    "slc_cache.fold_on_read=true",
];

/// Runs `steps` on `dev` (after a full sequential fill if `prefill`), checking it against
/// the reference after every step and once quiet at the end.
fn run_case(mut dev: Ssd, prefill: bool, steps: Vec<Step>) -> Result<Ssd, TestCaseError> {
    // Unique per snapshot, so cases running at once never share a state file.
    static SAVES: AtomicU64 = AtomicU64::new(0);
    let mut reference = Reference { versions: vec![0; UNITS as usize], next: 1 };
    if prefill {
        // A full device makes every case churn GC; the fill writes versions 1..=UNITS in order.
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        reference.apply(&Op::Write(0, UNITS as u32));
    }
    for step in steps {
        match step {
            Step::Batch(ops, idle_us) => {
                let now = dev.now();
                for (i, op) in without_overlapping_updates(ops).iter().enumerate() {
                    dev.submit(now, command(op), i as u64).unwrap();
                    reference.apply(op);
                }
                while dev.in_flight() > 0 {
                    prop_assert!(dev.poll_at() != SimTime::NEVER, "commands stuck with no event pending");
                    dev.poll();
                }
                let until = dev.now() + SimDuration::from_us(idle_us);
                dev.advance_to(until);
            }
            Step::Snapshot => {
                dev.quiesce();
                let n = SAVES.fetch_add(1, Ordering::Relaxed);
                let path = std::env::temp_dir().join(format!("ssdtwin-prop-{}-{n}.state", std::process::id()));
                dev.save(&path).unwrap();
                dev = Ssd::load(&path).unwrap();
                std::fs::remove_file(&path).unwrap();
            }
        }
        check(&dev, &reference)?;
    }
    dev.quiesce();
    check(&dev, &reference)?;
    prop_assert!(dev.is_quiet());
    Ok(dev)
}

proptest! {
    // 64 cases by default; PROPTEST_CASES=N for a longer hunt.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]

    #[test]
    fn device_matches_the_reference_map(prefill in any::<bool>(), steps in prop::collection::vec(step(), 1..60)) {
        run_case(device(&[]), prefill, steps)?;
    }

    /// The same with an SLC cache: data stays readable while folding moves it, and once
    /// the drive has idled, no more than the low watermark and the open SLC superblocks
    /// hold data in SLC mode.
    #[test]
    fn slc_device_matches_the_reference_map(prefill in any::<bool>(), steps in prop::collection::vec(step(), 1..60)) {
        let mut dev = run_case(device(SLC), prefill, steps)?;
        let until = dev.now() + SimDuration::from_ms(50);
        dev.advance_to(until);
        dev.quiesce();
        let (low, slc_sb) = (128, 32);
        prop_assert!(dev.ftl().slc_valid_units() <= low + 2 * slc_sb, "{} units in SLC", dev.ftl().slc_valid_units());
        dev.ftl().check_invariants().map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    /// The FTL alone, without timing: GC after every write.
    #[test]
    fn untimed_ftl_matches_the_reference_map(ops in prop::collection::vec(op(), 1..400)) {
        let cfg = device(&[]).config().clone();
        let mut ftl = Ftl::new(cfg.geometry.clone(), UNITS, cfg.gc, cfg.endurance, true);
        let mut reference = vec![0u32; UNITS as usize];
        let (mut next, mut scratch, mut job) = (1u32, Vec::new(), RelocationJob::default());
        // Start full, so GC runs from the first writes.
        for u in 0..UNITS {
            ftl.write_untimed(u, next, &mut scratch);
            reference[u as usize] = next;
            next += 1;
        }
        for op in &ops {
            match *op {
                Op::Write(l, n) => for u in l..l + u64::from(n) {
                    ftl.write_untimed(u, next, &mut scratch);
                    ftl.gc_untimed(&mut job, &mut scratch);
                    reference[u as usize] = next;
                    next += 1;
                },
                Op::Trim(l, n) => for u in l..l + u64::from(n) {
                    ftl.trim(u);
                    reference[u as usize] = 0;
                },
                Op::Read(..) | Op::Flush => {}
            }
        }
        ftl.check_invariants().map_err(|e| TestCaseError::fail(e.to_string()))?;
        for u in 0..UNITS {
            prop_assert_eq!(ftl.tag_of(u).unwrap(), reference[u as usize]);
        }
    }
}
