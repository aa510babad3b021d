//! The SLC cache and folding on a small drive: read timing per cell mode, the cache filling
//! and running out, folding on its triggers, writes that wait for space, and bulk fills.
//!
//! The drive is the shared small TLC drive (superblocks of 1.5 MiB native, 0.5 MiB in SLC
//! mode) with an SLC cache of 4 static superblocks (2 MiB) unless a test says otherwise.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::block::BlockDevice;
use ssdtwin_core::config::DeviceConfig;
use ssdtwin_core::engine::SimDuration;
use ssdtwin_core::nand::CellMode;
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::RwPattern;

const MIB: u64 = 1 << 20;
/// 2 MiB in GiB: four SLC superblocks.
const CACHE_GIB: &str = "0.001953125";

fn slc_config(extra: &[&str]) -> DeviceConfig {
    let static_gib = format!("slc_cache.static_gib={CACHE_GIB}");
    let mut o = vec!["namespace.lba_formats=[{data_bytes=4096}]", &static_gib];
    o.extend_from_slice(extra);
    small_config(64, 25.0, &o)
}

fn idle(dev: &mut Ssd, ms: u64) {
    let until = dev.now() + SimDuration::from_ms(ms);
    dev.advance_to(until);
}

/// The fastest of 20 ms of QD1 random 4 KiB reads over `span`: a read that met idle dies.
fn fastest_read_us(dev: &mut Ssd, span: u64) -> f64 {
    let r = run_one(dev, job("r", RwPattern::RandRead, 4096, 1), Some(span), Some(20));
    r.jobs[0].dirs[0].latency.clat.min as f64 / 1e3
}

#[test]
// The two reads are named for the cell mode they read from.
#[allow(clippy::similar_names)]
fn reads_take_the_tr_of_their_blocks_mode() {
    // Fold after 10 ms idle: data written, then read at once, is in SLC; after idling, TLC.
    // Folding takes full SLC superblocks: write two and a half, read the first two.
    let mut dev = Ssd::new(slc_config(&["slc_cache.fold_idle_ms=10"]));
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 4), Some(5 * MIB / 4), None);
    // Long enough for the buffer to drain to NAND, too short to start folding.
    idle(&mut dev, 5);
    assert_eq!(dev.ftl().slc_resident_fraction(0..256), 1.0);
    let in_slc = fastest_read_us(&mut dev, MIB);
    idle(&mut dev, 50);
    assert_eq!(dev.ftl().slc_resident_fraction(0..256), 0.0, "folded once idle");
    let in_tlc = fastest_read_us(&mut dev, MIB);
    // The generic profile: SLC tR 25 us, TLC tR 50 us; every other stage is the same.
    let cell = &dev.config().nand.cell;
    let step = (cell[CellMode::Tlc.index()].t_read.0 as f64 - cell[CellMode::Slc.index()].t_read.0 as f64) / 1e3;
    assert!((in_tlc - in_slc - step).abs() < 0.01, "SLC {in_slc} us, TLC {in_tlc} us, tR step {step} us");
}

#[test]
fn writes_fill_the_cache_then_go_native() {
    let mut dev = Ssd::new(slc_config(&[]));
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 8), Some(8 * MIB), None);
    dev.quiesce();
    let c = dev.counters();
    // No watermark, idle or read trigger: the cache fills (its 2 MiB) and stays full.
    assert_eq!(c.host_slc_write_bytes, 2 * MIB);
    assert_eq!(c.slc_cached_bytes, 2 * MIB);
    assert_eq!(c.nand_native_write_bytes, 6 * MIB);
    assert_eq!(c.folded_bytes, 0);
    // SLC pages hold a third of what the same blocks hold in TLC.
    assert_eq!(c.nand_slc_write_bytes, 2 * MIB);
    assert_eq!(c.slc_superblocks, 4);
}

#[test]
fn fold_then_write_waits_for_folding_and_passes_everything_through_slc() {
    let mut dev = Ssd::new(slc_config(&["slc_cache.when_full=\"fold\""]));
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 8), Some(8 * MIB), None);
    dev.quiesce();
    let c = dev.counters();
    assert_eq!(c.host_slc_write_bytes, 8 * MIB);
    assert!(c.folded_bytes >= 6 * MIB, "folded {}", c.folded_bytes);
    assert_eq!(c.folded_bytes + c.slc_cached_bytes, 8 * MIB);
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn the_high_watermark_folds_down_to_the_low_one() {
    // 1.5 MiB high, 0.5 MiB low; folding a superblock moves 0.5 MiB.
    let mut dev =
        Ssd::new(slc_config(&["slc_cache.fold_high_gib=0.00146484375", "slc_cache.fold_low_gib=0.00048828125"]));
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 1), Some(3 * MIB / 2), None);
    dev.quiesce();
    idle(&mut dev, 100);
    let c = dev.counters();
    assert_eq!(c.slc_cached_bytes, MIB / 2);
    assert_eq!(c.folded_bytes, MIB);
    // The oldest data went first.
    assert_eq!(dev.ftl().slc_resident_fraction(0..256), 0.0);
    assert_eq!(dev.ftl().slc_resident_fraction(256..384), 1.0);
}

#[test]
fn a_host_read_starts_folding_when_the_profile_says_so() {
    for on_read in [false, true] {
        let mut dev = Ssd::new(slc_config(&[&format!("slc_cache.fold_on_read={on_read}")]));
        run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 4), Some(MIB), None);
        dev.quiesce();
        run_one(&mut dev, job("r", RwPattern::Read, 128 << 10, 1), Some(MIB), Some(5));
        dev.quiesce();
        assert_eq!(dev.counters().folded_bytes > 0, on_read);
    }
}

#[test]
fn a_format_ends_the_folding_session_a_read_started() {
    // A read opens a session over half a superblock of cached data; the filling superblock
    // is never folded, so the session waits. After a format nothing is cached: writes that
    // fill the cache then must stay in it, as on a drive that never read.
    let mut dev = Ssd::new(slc_config(&["slc_cache.fold_on_read=true"]));
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 4), Some(MIB / 4), None);
    dev.quiesce();
    run_one(&mut dev, job("r", RwPattern::Read, 4096, 1), Some(MIB / 4), Some(1));
    dev.quiesce();
    dev.format(None).unwrap();
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 4), Some(2 * MIB), None);
    idle(&mut dev, 100);
    let c = dev.counters();
    assert_eq!((c.folded_bytes, c.slc_cached_bytes), (0, 2 * MIB));
}

#[test]
fn reads_never_suspend_an_urgent_fold() {
    // The cache is full (2 MiB); host reads start folding. Urgent below 2 MiB cached, the
    // fold programs queue with host programs and are never suspended: a read meeting one
    // waits out its whole tPROG. Without the watermark, reads suspend them. (Only programs
    // are suspendable here, so the victims' erases do not count.)
    let mut slowest = Vec::new();
    for urgent in [None, Some("slc_cache.fold_urgent_gib=0.0")] {
        let mut extra = vec!["slc_cache.fold_on_read=true", "nand.suspend=\"program\""];
        extra.extend(urgent);
        let mut dev = Ssd::new(slc_config(&extra));
        run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 4), Some(2 * MIB), None);
        dev.quiesce();
        let before = dev.counters().suspensions;
        let r = run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 1), Some(2 * MIB), Some(20));
        let c = dev.counters();
        assert!(c.folded_bytes > 0, "reads started folding");
        slowest.push((c.suspensions - before, r.jobs[0].dirs[0].latency.clat.max as f64 / 1e3));
    }
    let t_prog_us = dev_t_prog_us();
    let (suspended, _) = slowest[0];
    let (urgent_suspended, urgent_max_us) = slowest[1];
    assert!(suspended > 0, "background folds are suspended by reads");
    assert_eq!(urgent_suspended, 0, "urgent folds never are");
    assert!(urgent_max_us > t_prog_us, "a read waited out a program: {urgent_max_us} us, tPROG {t_prog_us} us");
}

fn dev_t_prog_us() -> f64 {
    let cfg = slc_config(&[]);
    cfg.nand.cell[CellMode::Tlc.index()].t_prog.0 as f64 / 1e3
}

#[test]
fn writes_short_of_space_make_room_whatever_the_watermarks() {
    // A dynamic cache that may take most of the drive, watermarks it never reaches and no
    // idle trigger: writing the whole namespace twice must move data out of the cache to
    // make room, by folding or by GC collecting SLC superblocks (with host programs staged
    // a few per die, GC's programs reach the dies soon and it often gets there first).
    let cfg = slc_config(&["slc_cache.dynamic_max_gib=0.0625", "slc_cache.fold_high_gib=0.06"]);
    let capacity = cfg.logical_units * 4096;
    let mut dev = Ssd::new(cfg);
    let mut w = job("w", RwPattern::Write, 128 << 10, 8);
    w.loops = 2;
    let r = run_one(&mut dev, w, Some(capacity), None);
    assert_eq!(r.jobs[0].dirs[1].io_bytes, 2 * capacity);
    dev.quiesce();
    let c = dev.counters();
    assert!(c.folded_bytes + c.gc_units_moved > 0, "nothing left the cache");
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn a_bulk_fill_folds_when_the_cache_crowds_out_native_space() {
    for when_full in ["direct", "fold"] {
        let cfg = slc_config(&["slc_cache.dynamic_max_gib=0.0625", &format!("slc_cache.when_full=\"{when_full}\"")]);
        let units = cfg.logical_units;
        let mut dev = Ssd::with_verify(cfg, true);
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 128 << 10 }).unwrap();
        dev.ftl().check_invariants().unwrap();
        // Every unit holds the version the fill wrote, and the full SLC superblocks are folded.
        for lpn in 0..units {
            assert_eq!(dev.ftl().tag_of(lpn), Some(lpn as u32 + 1), "{when_full}: unit {lpn}");
        }
        let c = dev.counters();
        assert!(c.slc_cached_bytes <= MIB / 2, "{when_full}: only the open SLC superblock keeps data: {c:?}");
    }
}

#[test]
fn gc_collects_a_full_slc_superblock_when_nothing_else_gains() {
    // Data in SLC packs three to one into TLC: collecting a fully valid SLC superblock frees
    // space where collecting a fully valid TLC one would not.
    let mut dev = Ssd::new(slc_config(&["slc_cache.dynamic_max_gib=0.0625", "slc_cache.fold_high_gib=0.06"]));
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 128 << 10 }).unwrap();
    let before = dev.counters();
    let capacity = dev.config().logical_units * 4096;
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 8), Some(capacity), None);
    dev.quiesce();
    let c = dev.counters();
    assert!(c.gc_jobs + c.fold_jobs > before.gc_jobs + before.fold_jobs);
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn rewriting_a_region_smaller_than_the_cache_stays_in_the_cache() {
    // Overwriting 1 MiB eight times leaves whole SLC superblocks with nothing valid: they are
    // erased and reused, so every write lands in SLC and the cache never runs out.
    let mut dev = Ssd::new(slc_config(&[]));
    let mut j = job("w", RwPattern::Write, 128 << 10, 8);
    j.loops = 8;
    run_one(&mut dev, j, Some(MIB), None);
    dev.quiesce();
    let c = dev.counters();
    assert_eq!(c.host_slc_write_bytes, 8 * MIB);
    assert_eq!(c.nand_native_write_bytes, 0);
    assert_eq!(c.slc_cached_bytes, MIB);
    // 8 MiB through four 0.5 MiB superblocks: at least 12 were emptied and erased.
    assert!(c.erases >= 12, "erases {}", c.erases);
    assert!(c.slc_superblocks <= 4, "{c:?}");
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn trimmed_slc_data_gives_its_superblocks_back() {
    let mut dev = Ssd::new(slc_config(&[]));
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 8), Some(2 * MIB), None);
    dev.quiesce();
    assert_eq!(dev.counters().slc_superblocks, 4);
    run_one(&mut dev, job("t", RwPattern::Trim, 128 << 10, 8), Some(2 * MIB), None);
    dev.quiesce();
    let c = dev.counters();
    assert_eq!(c.slc_cached_bytes, 0);
    // The full superblocks are erased; the open one waits for more writes.
    assert!(c.slc_superblocks <= 1, "{c:?}");
    assert!(c.erases >= 3, "{c:?}");
    dev.ftl().check_invariants().unwrap();
}

#[test]
fn a_steady_write_stream_does_not_hold_off_the_erase_of_stale_slc_blocks() {
    // At QD32 the dies always have programs queued; erases queue with them, so rewriting
    // the same region for 200 ms keeps writing to SLC at the cache's rate.
    let mut dev = Ssd::new(slc_config(&[]));
    let r = run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 32), Some(MIB), Some(200));
    dev.quiesce();
    let c = dev.counters();
    let written = r.jobs[0].dirs[1].io_bytes;
    assert!(written > 16 * MIB, "wrote {written}");
    assert_eq!(c.nand_native_write_bytes, 0, "{c:?}");
}

#[test]
fn an_slc_superblock_trimmed_while_open_is_erased_once_the_next_one_opens() {
    // Fill one 0.5 MiB SLC superblock exactly and trim its data while it is still the open
    // one: it holds nothing to fold. When the next write opens another superblock, the
    // first is erased and back in the free pool, instead of holding cache space until GC or
    // folding get to it.
    let mut dev = Ssd::new(slc_config(&[]));
    run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 4), Some(MIB / 2), None);
    run_one(&mut dev, job("t", RwPattern::Trim, 128 << 10, 4), Some(MIB / 2), None);
    dev.quiesce();
    let before = dev.counters();
    assert_eq!((before.slc_superblocks, before.slc_cached_bytes, before.erases), (1, 0, 0), "{before:?}");
    let mut j = job("w2", RwPattern::Write, 128 << 10, 1);
    j.offset = ssdtwin_core::workload::SizeSpec::Bytes(MIB);
    run_one(&mut dev, j, Some(MIB / 4), None);
    dev.quiesce();
    let c = dev.counters();
    assert_eq!(c.erases, 1, "{c:?}");
    assert_eq!(c.slc_superblocks, 1, "{c:?}");
    dev.ftl().check_invariants().unwrap();
}

/// 1 MiB (two SLC superblocks) in GiB.
const ONE_MIB_GIB: &str = "0.0009765625";

#[test]
fn an_idle_session_folds_down_to_its_own_watermark() {
    // Fill the 2 MiB cache, then idle: a session folds down to `fold_low_gib` (1 MiB), unless
    // `fold_idle_low_gib` gives the idle timer's sessions their own: empty, but for the SLC
    // superblock still open for writes (folding takes closed ones).
    let cached_after_idle = |extra: &[&str]| {
        let low = format!("slc_cache.fold_low_gib={ONE_MIB_GIB}");
        let mut o = vec!["slc_cache.fold_idle_ms=10", low.as_str()];
        o.extend_from_slice(extra);
        let mut dev = Ssd::new(slc_config(&o));
        run_one(&mut dev, job("w", RwPattern::Write, 128 << 10, 4), Some(2 * MIB), None);
        idle(&mut dev, 200);
        dev.counters().slc_cached_bytes
    };
    assert_eq!(cached_after_idle(&[]), MIB);
    assert_eq!(cached_after_idle(&["slc_cache.fold_idle_low_gib=0"]), MIB / 2);
}
