//! Wear: the P/E cycles of every block against the NAND's programs and erases, SLC-mode
//! cycles at their own rating, wear levelling, and blocks wearing out into spares and
//! retirement.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::block::BlockDevice;
use ssdtwin_core::config::DeviceConfig;
use ssdtwin_core::ftl::{BlockRole, SbState};
use ssdtwin_core::nand::CellMode;
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{RwPattern, SizeSpec};

/// Random 4 KiB writes, i.i.d. offsets, `passes` times `span_bytes` over the first
/// `span_bytes`.
fn random_writes(dev: &mut Ssd, span_bytes: u64, passes: u64) {
    let mut w = job("w", RwPattern::RandWrite, 4096, 32);
    w.norandommap = true;
    w.io_size = Some(SizeSpec::Bytes(passes * span_bytes));
    run_one(dev, w, Some(span_bytes), None);
    dev.quiesce();
}

/// Units the FTL programmed in `mode`, accounted superblock by superblock: every erase of a
/// superblock in `mode` followed a complete fill in that mode, and the superblocks holding
/// data now were filled (Full) or are being filled (Open, as far as their frontier got).
fn programmed_by_superblocks(dev: &Ssd, mode: CellMode) -> u64 {
    let f = dev.ftl();
    let g = &dev.config().geometry;
    let capacity = u64::from(g.sb_units_in(mode));
    let native = g.native;
    let mut units = 0;
    for sb in 0..f.sbs.len() {
        let erases = match mode {
            CellMode::Slc => f.sbs.slc_erase_count(sb),
            _ if mode == native => f.sbs.erase_count(sb) - f.sbs.slc_erase_count(sb),
            _ => 0,
        };
        units += u64::from(erases) * capacity;
        if f.sbs.state(sb) == SbState::Full && f.sbs.mode(sb) == mode {
            units += capacity;
        }
    }
    for stream in f.streams() {
        let fr = f.frontier(stream);
        if let Some(sb) = fr.superblock()
            && f.sbs.mode(sb) == mode
        {
            units += u64::from(fr.placed());
        }
    }
    units
}

/// Checks the accounting of erases and programs of a quiet device whose blocks have not
/// worn out.
fn assert_wear_accounts(dev: &Ssd) {
    let f = dev.ftl();
    let c = dev.counters();
    let g = &dev.config().geometry;
    let e = &dev.config().endurance;
    let n = f.sbs.len();
    assert_eq!((0..n).map(|sb| u64::from(f.sbs.erase_count(sb))).sum::<u64>(), c.erases);
    assert_eq!((0..n).map(|sb| u64::from(f.sbs.slc_erase_count(sb))).sum::<u64>(), c.slc_erases);
    assert_eq!(c.block_erases, c.erases * u64::from(g.dies() * g.planes));
    // Every block carries its superblock's erases, in the same modes; spares none.
    for b in f.wear.blocks(e, g.native) {
        match b.superblock {
            Some(sb) => assert_eq!(
                (b.slc_erases, b.native_erases),
                (f.sbs.slc_erase_count(sb), f.sbs.erase_count(sb) - f.sbs.slc_erase_count(sb)),
                "block {} of die {} plane {}",
                b.block,
                b.die,
                b.plane
            ),
            None => assert_eq!((b.role, b.slc_erases + b.native_erases), (BlockRole::Spare, 0)),
        }
    }
    for mode in [CellMode::Slc, g.native] {
        assert_eq!(
            f.counters.units_programmed[mode.index()],
            programmed_by_superblocks(dev, mode),
            "{mode:?} programs against superblock fills"
        );
    }
    // Life used: each superblock's native cycles over the native rating plus its SLC cycles
    // over the SLC rating, averaged.
    let rated = |m: CellMode| f64::from(e.rated_pe_cycles[m.index()]);
    let life: f64 = (0..n)
        .map(|sb| {
            let slc = f64::from(f.sbs.slc_erase_count(sb));
            slc / rated(CellMode::Slc) + (f64::from(f.sbs.erase_count(sb)) - slc) / rated(g.native)
        })
        .sum::<f64>()
        / f64::from(n);
    assert!((c.life_used_ppm as f64 - life * 1e6).abs() <= 1.0, "{} ppm vs {life}", c.life_used_ppm);
    assert_eq!(c.block_pe_cycles_max, (0..n).map(|sb| u64::from(f.sbs.erase_count(sb))).max().unwrap());
    // The life the programs will use leads the life used by exactly what is programmed and
    // not erased yet.
    let held: f64 = [CellMode::Slc, g.native]
        .iter()
        .map(|&m| {
            let capacity = f64::from(g.sb_units_in(m));
            let erased: f64 = (0..n)
                .map(|sb| {
                    let slc = f64::from(f.sbs.slc_erase_count(sb));
                    if m == CellMode::Slc { slc } else { f64::from(f.sbs.erase_count(sb)) - slc }
                })
                .sum();
            (f.counters.units_programmed[m.index()] as f64 - erased * capacity) / (capacity * f64::from(n) * rated(m))
        })
        .sum();
    let expected_ppb = (life + held) * 1e9;
    assert!((c.life_programmed_ppb as f64 - expected_ppb).abs() <= 2.0, "{} vs {expected_ppb}", c.life_programmed_ppb);
}

#[test]
fn every_erase_and_program_is_counted_on_its_blocks() {
    let mut dev = Ssd::new(small_config(40, 25.0, &["endurance.spare_blocks_per_plane=2"]));
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    random_writes(&mut dev, ns, 3);
    let c = dev.counters();
    assert!(c.erases > 3 * 40, "GC must cycle every superblock a few times: {} erases", c.erases);
    assert_eq!((c.bad_blocks, c.spare_blocks), (0, 2 * 8));
    assert_wear_accounts(&dev);
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn a_sampled_steady_state_fill_counts_its_erases_on_the_blocks() {
    // The sampled fill (`Ftl::steady_fill`) erases each GC victim die by die as any erase
    // does: its blocks carry the P/E cycles, and the programs match the superblock fills.
    for levelling in ["dynamic", "static"] {
        let mut dev = Ssd::new(small_config(
            40,
            25.0,
            &["endurance.spare_blocks_per_plane=2", &format!("ftl.wear_levelling={levelling}")],
        ));
        dev.fill(FillPattern::Random {
            percent: 100.0,
            sequential_passes: 1,
            overwrite_passes: 3.0,
            seed: 8,
            exact: false,
        })
        .unwrap();
        let c = dev.counters();
        assert!(c.erases > 3 * 40 / 2, "{levelling}: GC must cycle the superblocks: {} erases", c.erases);
        assert_eq!(c.erases, c.gc_jobs, "{levelling}: every victim erased once");
        assert_wear_accounts(&dev);
        dev.ftl().check_invariants().unwrap();
    }
}

#[test]
fn slc_mode_cycles_wear_at_the_slc_rating() {
    // A static SLC cache of six superblocks, folded when idle: the cache's superblocks are
    // erased in SLC mode, each cycle costing 1 / slc_pe_cycles of a block's life.
    let cfg = small_config(
        48,
        45.0,
        &[
            "slc_cache.static_gib=0.003",
            "slc_cache.fold_idle_ms=1",
            "endurance.slc_pe_cycles=40000",
            "endurance.tlc_pe_cycles=2000",
        ],
    );
    let mut dev = Ssd::new(cfg);
    let ns = dev.config().namespace.capacity_bytes;
    for _ in 0..4 {
        random_writes(&mut dev, ns / 2, 1);
        dev.advance_to(dev.now() + ssdtwin_core::engine::SimDuration::from_ms(50));
        dev.quiesce();
    }
    let c = dev.counters();
    assert!(c.slc_erases > 0 && c.slc_erases < c.erases, "{} of {} erases in SLC mode", c.slc_erases, c.erases);
    assert_wear_accounts(&dev);
}

fn wear_spread(levelling: &str) -> (u32, Ssd) {
    let cfg: DeviceConfig = small_config(
        40,
        25.0,
        &[&format!("ftl.wear_levelling={levelling}"), "ftl.static_wl_spread_cycles=2", "nand.pages_per_block=3"],
    );
    let mut dev = Ssd::new(cfg);
    // The whole namespace written once (cold), then a tenth of it rewritten over and over.
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    random_writes(&mut dev, ns / 10 / 4096 * 4096, 60);
    let f = dev.ftl();
    let in_service = (0..f.sbs.len()).filter(|&sb| f.sbs.state(sb) != SbState::Retired);
    (in_service.map(|sb| f.sbs.erase_count(sb)).min().unwrap(), dev)
}

#[test]
fn static_wear_levelling_moves_cold_data_off_young_blocks() {
    let (least_dynamic, dynamic) = wear_spread("dynamic");
    let (least_static, levelled) = wear_spread("static");
    // Dynamic levelling never touches superblocks pinned by cold data.
    assert_eq!(least_dynamic, 0);
    assert_eq!(dynamic.counters().wl_jobs, 0);
    // Static levelling moved it, so every superblock has cycled.
    let c = levelled.counters();
    assert!(c.wl_jobs > 0 && c.wl_moved_bytes > 0, "{} jobs", c.wl_jobs);
    assert!(least_static > 0, "the least-erased superblock still has {least_static} erases");
    // Moving cold data costs writes: more NAND writes for the same host writes.
    assert!(c.nand_write_bytes > dynamic.counters().nand_write_bytes);
    assert_wear_accounts(&levelled);
    levelled.ftl().check_invariants().unwrap();
}

#[test]
fn worn_blocks_fail_into_spares_then_retire_their_superblocks() {
    // Blocks rated for 12 cycles (±20 %), one spare per plane: a few random passes wear
    // them out.
    let cfg = small_config(
        48,
        25.0,
        &[
            "nand.pages_per_block=3",
            "endurance.tlc_pe_cycles=12",
            "endurance.block_spread_pct=20",
            "endurance.spare_blocks_per_plane=1",
        ],
    );
    let planes = u64::from(cfg.geometry.dies() * cfg.geometry.planes);
    // Both ways of filling: every overwrite placed, and overwrites sampled superblock by
    // superblock (their erases go through the same steps).
    for exact in [true, false] {
        worn_out(cfg.clone(), planes, exact);
    }
}

fn worn_out(cfg: DeviceConfig, planes: u64, exact: bool) {
    let mut dev = Ssd::with_verify(cfg, true);
    let mut bad = 0;
    for round in 0..12 {
        dev.fill(FillPattern::Random {
            percent: 60.0,
            sequential_passes: 1,
            overwrite_passes: 2.0,
            seed: round,
            exact,
        })
        .unwrap();
        let c = dev.counters();
        assert!(c.bad_blocks >= bad, "blocks do not heal");
        bad = c.bad_blocks;
        dev.ftl().check_invariants().unwrap();
    }
    let c = dev.counters();
    let f = dev.ftl();
    let e = &dev.config().endurance;
    let blocks = f.wear.blocks(e, dev.config().geometry.native);
    assert!(
        c.bad_blocks > planes,
        "exact {exact}: more blocks failed ({}) than there were spares ({planes})",
        c.bad_blocks
    );
    assert!(c.retired_superblocks > 0, "exact {exact}");
    // A block fails at the erase that takes it to its endurance, not before.
    for b in &blocks {
        match b.role {
            BlockRole::Bad => assert!(b.life_used >= b.endurance, "{b:?}"),
            BlockRole::InService | BlockRole::Spare => assert!(b.life_used < b.endurance, "{b:?}"),
        }
    }
    assert_eq!(blocks.iter().filter(|b| b.role == BlockRole::Bad).count() as u64, c.bad_blocks);
    assert_eq!(blocks.iter().filter(|b| b.role == BlockRole::Spare).count() as u64, c.spare_blocks);
    // Every block is in exactly one place: serving its superblock's slot, spare, or bad.
    let g = &dev.config().geometry;
    let in_service = (0..f.sbs.len()).filter(|&sb| f.sbs.state(sb) != SbState::Retired).count() as u64;
    let serving = blocks.iter().filter(|b| b.role == BlockRole::InService).count() as u64;
    assert_eq!(serving + f.wear.worn_in_service(), in_service * u64::from(g.dies() * g.planes));
    // A retired superblock's good blocks became spares of their planes; its slots are empty.
    for sb in (0..f.sbs.len()).filter(|&sb| f.sbs.state(sb) == SbState::Retired) {
        assert!(blocks.iter().all(|b| b.superblock != Some(sb)));
    }
    assert!(c.life_used_ppm > 1_000_000, "exact {exact}: past the rated life: {} ppm", c.life_used_ppm);
    // Data survived every failure and retirement.
    let ns = dev.config().namespace.capacity_bytes;
    let mut r = job("r", RwPattern::Read, 1 << 17, 8);
    r.size = Some(SizeSpec::Bytes(ns / 10 * 6 / 4096 * 4096));
    run_one(&mut dev, r, None, None);
    assert_eq!(dev.counters().verify_errors, 0);
}

#[test]
fn wear_survives_a_save_and_load() {
    let cfg = small_config(
        48,
        25.0,
        &["nand.pages_per_block=3", "endurance.tlc_pe_cycles=12", "endurance.spare_blocks_per_plane=1"],
    );
    let mut dev = Ssd::new(cfg);
    for seed in 0..10 {
        dev.fill(FillPattern::Random { percent: 60.0, sequential_passes: 1, overwrite_passes: 2.0, seed, exact: true })
            .unwrap();
    }
    assert!(dev.counters().bad_blocks > 0);
    let path = std::env::temp_dir().join(format!("ssdtwin-wear-{}.state", std::process::id()));
    dev.save(&path).unwrap();
    let back = Ssd::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back.ftl().wear, dev.ftl().wear);
    let (a, b) = (dev.counters(), back.counters());
    assert_eq!(
        (a.bad_blocks, a.spare_blocks, a.retired_superblocks, a.life_used_ppm, a.block_pe_cycles_max),
        (b.bad_blocks, b.spare_blocks, b.retired_superblocks, b.life_used_ppm, b.block_pe_cycles_max)
    );
}
