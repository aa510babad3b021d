//! Flexible Data Placement: what placement does to write amplification, what each handle
//! type promises about GC, and how the drive answers directives it cannot honour.

use super::common::small_config;
use ssdtwin_core::block::{BlockDevice, Command, Opcode, PlacementId, SubmitError};
use ssdtwin_core::engine::SimRng;
use ssdtwin_core::ftl::{FtlCounters, HandleId, Location};
use ssdtwin_core::ssd::{FdpEventKind, HandleUse, Ssd};

/// Superblocks of the small drive: 1.5 MiB, 384 map units each.
const SB_UNITS: u64 = 384;
/// Its superblocks in all.
const SUPERBLOCKS: u32 = 64;
/// Superblocks of user data in each of the two regions.
const REGION_SB: u64 = 18;

/// The small drive with FDP on `handles` handles of `handle_type`, exposing two regions of
/// `REGION_SB` superblocks each (the rest is spare: GC, the frontiers and over-provisioning).
fn fdp_drive(handles: u16, handle_type: &str) -> Ssd {
    let capacity = 2 * REGION_SB * SB_UNITS * 4096;
    let fdp = [
        format!("identity.capacity_bytes={capacity}"),
        format!("fdp.handles={handles}"),
        format!("fdp.handle_type=\"{handle_type}\""),
        "namespace.lba_formats=[{data_bytes = 4096}]".into(),
    ];
    let fdp: Vec<&str> = fdp.iter().map(String::as_str).collect();
    Ssd::new(small_config(SUPERBLOCKS, 0.0, &fdp))
}

/// Writes one 4 KiB unit at `lpn`, placed on `placement`, and waits for it.
fn write(ssd: &mut Ssd, lpn: u64, placement: Option<u16>) {
    let command = Command { placement: placement.map(PlacementId), ..Command::new(Opcode::Write, lpn, 1) };
    ssd.submit(ssd.now(), command, lpn).unwrap();
    while ssd.poll().is_none() {}
}

/// The media's units written per host unit, as the FDP statistics give them.
fn waf(ssd: &Ssd) -> f64 {
    let s = ssd.fdp_stats().expect("an FDP drive");
    s.media_bytes_written as f64 / s.host_bytes_written as f64
}

/// Two streams, each overwriting its own region sequentially, the second three writes for
/// each of the first's, until the first has made `passes` passes; placed on handles 0 and 1,
/// or (`separate` false) on handle 0 together.
fn two_sequential_streams(ssd: &mut Ssd, separate: bool, passes: u64) {
    let region = REGION_SB * SB_UNITS;
    for k in 0..passes * region {
        write(ssd, k % region, Some(0));
        for j in 0..3 {
            write(ssd, region + (3 * k + j) % region, Some(u16::from(separate)));
        }
    }
}

#[test]
fn separated_streams_that_rewrite_whole_reclaim_units_need_no_gc() {
    let mut ssd = fdp_drive(2, "initially-isolated");
    two_sequential_streams(&mut ssd, true, 2);
    let ftl = ssd.ftl();
    assert!(ftl.counters.superblock_erases > 2 * REGION_SB, "GC ran: the drive was overwritten over and over");
    assert_eq!(ftl.counters.gc_units_moved, 0, "every victim was a reclaim unit its stream had rewritten whole");
    assert!((waf(&ssd) - 1.0).abs() < 1e-12, "WAF {} is 1", waf(&ssd));
    let handles = ftl.placement().unwrap().handles();
    assert_eq!(handles[0].host_units, 2 * REGION_SB * SB_UNITS);
    assert_eq!(handles[1].host_units, 3 * handles[0].host_units);
    assert_eq!(handles[0].media_units(), handles[0].host_units, "each handle's own WAF is 1");
}

#[test]
fn the_same_streams_mixed_on_one_handle_make_gc_move_data() {
    let mut ssd = fdp_drive(2, "initially-isolated");
    two_sequential_streams(&mut ssd, false, 2);
    // Each reclaim unit holds a quarter of the slow stream's data beside the fast one's:
    // the fast stream empties its share three times as soon, and GC must move the rest.
    assert!(ssd.ftl().counters.gc_units_moved > 0, "mixed streams leave GC valid data to move");
    assert!(waf(&ssd) > 1.1, "WAF {} well above 1", waf(&ssd));
}

/// A hot stream (random overwrites of its region) beside a cold one (sequential
/// overwrites of its own), for `writes` writes each.
fn hot_and_cold(ssd: &mut Ssd, hot: u16, cold: u16, writes: u64) {
    let region = REGION_SB * SB_UNITS;
    let mut rng = SimRng::stream(7, 1);
    for k in 0..writes {
        write(ssd, rng.below(region), Some(hot));
        write(ssd, region + k % region, Some(cold));
    }
}

#[test]
fn separating_hot_from_cold_data_lowers_write_amplification() {
    let writes = 3 * REGION_SB * SB_UNITS;
    let mut mixed = fdp_drive(2, "initially-isolated");
    hot_and_cold(&mut mixed, 0, 0, writes);
    let mut separated = fdp_drive(2, "initially-isolated");
    hot_and_cold(&mut separated, 0, 1, writes);
    let (m, s) = (waf(&mixed), waf(&separated));
    assert!(s < m, "separated WAF {s:.3} below mixed {m:.3}");
    // The cold handle rewrites its reclaim units whole: GC never moves its data, all the
    // amplification is the hot handle's.
    let handles = separated.ftl().placement().unwrap().handles();
    assert_eq!(handles[1].gc_units, 0, "the cold handle's reclaim units are emptied by its own writes");
    assert!(handles[0].gc_units > 0, "the hot handle's are not");
}

/// The superblock holding `lpn`'s data, if it is on NAND.
fn superblock_of(ssd: &Ssd, lpn: u64) -> Option<u32> {
    match ssd.ftl().locate(lpn) {
        Location::Nand { ppa, .. } => Some(ssd.ftl().geometry().sb_of(ppa)),
        _ => None,
    }
}

/// Whether some superblock holds data of both regions.
fn regions_share_a_superblock(ssd: &Ssd) -> bool {
    let region = REGION_SB * SB_UNITS;
    let mut seen = vec![[false; 2]; SUPERBLOCKS as usize];
    for lpn in 0..2 * region {
        if let Some(sb) = superblock_of(ssd, lpn) {
            seen[sb as usize][usize::from(lpn >= region)] = true;
        }
    }
    seen.iter().any(|s| s[0] && s[1])
}

#[test]
fn persistent_isolation_keeps_handles_apart_through_gc_and_initial_isolation_does_not() {
    let writes = 3 * REGION_SB * SB_UNITS;
    let mut persistent = fdp_drive(2, "persistently-isolated");
    let mut initial = fdp_drive(2, "initially-isolated");
    let region = REGION_SB * SB_UNITS;
    for ssd in [&mut persistent, &mut initial] {
        let mut rng = SimRng::stream(11, 2);
        for _ in 0..writes {
            write(ssd, rng.below(region), Some(0));
            write(ssd, region + rng.below(region), Some(1));
        }
        assert!(ssd.ftl().counters.gc_units_moved > 0, "random overwrites make GC move data");
    }
    persistent.ftl().check_invariants().unwrap();
    assert!(!regions_share_a_superblock(&persistent), "persistently isolated handles never share a reclaim unit");
    let placement = persistent.ftl().placement().unwrap();
    for lpn in (0..2 * region).step_by(97) {
        if let Some(sb) = superblock_of(&persistent, lpn) {
            let handle = HandleId(u16::from(lpn >= region));
            assert_eq!(placement.owner(sb), Some(handle), "unit {lpn} sits in a reclaim unit of its handle");
        }
    }
    assert!(regions_share_a_superblock(&initial), "initially isolated data mixes once GC moves it");
    let p = initial.ftl().placement().unwrap();
    assert!(p.unowned_gc_units() > 0, "GC moved mixed data a second time");
}

#[test]
fn an_invalid_placement_identifier_writes_on_handle_zero_and_logs_an_event() {
    let mut ssd = fdp_drive(4, "initially-isolated");
    write(&mut ssd, 0, Some(9));
    write(&mut ssd, 1, Some(2));
    write(&mut ssd, 2, None);
    let events: Vec<_> = ssd.fdp_events().collect();
    assert_eq!(events.len(), 1);
    assert_eq!((events[0].kind, events[0].placement), (FdpEventKind::InvalidPlacementId, PlacementId(9)));
    let handles = ssd.ftl().placement().unwrap().handles();
    assert_eq!(handles.iter().map(|h| h.host_units).collect::<Vec<_>>(), [2, 0, 1, 0]);
    assert_eq!(
        ssd.handle_usage(),
        [HandleUse::ControllerSpecified, HandleUse::Unused, HandleUse::HostSpecified, HandleUse::Unused]
    );
    // Each handle's reclaim unit has room for what it has not been written yet.
    let status = ssd.handle_status();
    assert_eq!(status[2].available_lbas, SB_UNITS - 1);
    assert_eq!(status[1].available_lbas, SB_UNITS);
}

#[test]
fn a_drive_without_fdp_refuses_a_placement_directive() {
    let mut ssd = Ssd::new(small_config(SUPERBLOCKS, 20.0, &[]));
    let command = Command { placement: Some(PlacementId(1)), ..Command::new(Opcode::Write, 0, 8) };
    let e = ssd.submit(ssd.now(), command, 0).unwrap_err();
    assert!(matches!(e, SubmitError::NoPlacement { placement: 1 }), "{e}");
    assert!(ssd.fdp_stats().is_none());
}

#[test]
fn placement_survives_a_save_and_load() {
    let mut ssd = fdp_drive(2, "persistently-isolated");
    hot_and_cold(&mut ssd, 0, 1, REGION_SB * SB_UNITS * 2);
    ssd.quiesce();
    let dir = std::env::temp_dir().join(format!("ssdtwin-fdp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fdp.state");
    ssd.save(&path).unwrap();
    let loaded = Ssd::load(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let (a, b) = (ssd.ftl().placement().unwrap(), loaded.ftl().placement().unwrap());
    assert_eq!(a.handles(), b.handles());
    for sb in 0..SUPERBLOCKS {
        assert_eq!(a.owner(sb), b.owner(sb), "superblock {sb}");
    }
    let counters: &FtlCounters = &loaded.ftl().counters;
    assert_eq!(counters, &ssd.ftl().counters);
}
