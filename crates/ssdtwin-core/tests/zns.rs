//! Zoned namespaces on the device: writes only at the write pointer, the zone state machine
//! and its limits through real commands, no GC however often zones are rewritten, what
//! finish and reset cost, appends, and a save and load.

use super::common::small_config;
use ssdtwin_core::block::{BlockDevice, Command, Completion, Opcode, SubmitError};
use ssdtwin_core::block::{ZoneAction, ZoneError, ZoneState};
use ssdtwin_core::ssd::Ssd;

/// Map units (4 KiB LBAs) in a zone of the small drive: one superblock.
const ZONE_CAP: u64 = 384;
/// The zone size: the next power of two.
const ZONE_SIZE: u64 = 512;
const ZONES: u64 = 20;

fn zns_drive(max_open: u32, max_active: u32) -> Ssd {
    let o = [
        format!("identity.capacity_bytes={}", ZONES * ZONE_CAP * 4096),
        "namespace.lba_formats=[{data_bytes = 4096}]".into(),
        format!("zns.max_open={max_open}"),
        format!("zns.max_active={max_active}"),
    ];
    let o: Vec<&str> = o.iter().map(String::as_str).collect();
    Ssd::new(small_config(64, 0.0, &o))
}

fn run(ssd: &mut Ssd, command: Command) -> Result<Completion, SubmitError> {
    ssd.submit(ssd.now(), command, 0)?;
    loop {
        if let Some(done) = ssd.poll() {
            return Ok(done);
        }
    }
}

fn write(ssd: &mut Ssd, slba: u64, blocks: u32) -> Result<Completion, SubmitError> {
    run(ssd, Command::new(Opcode::Write, slba, blocks))
}

fn send(ssd: &mut Ssd, zone: u64, action: ZoneAction) -> Result<Completion, SubmitError> {
    run(ssd, Command::new(Opcode::ZoneSend { action, all: false }, zone * ZONE_SIZE, 0))
}

fn state(ssd: &Ssd, zone: u64) -> ZoneState {
    ssd.zones().unwrap().zones()[zone as usize].state
}

#[test]
fn the_namespace_spans_every_zone_s_size_and_writes_go_at_the_write_pointer() {
    let mut ssd = zns_drive(4, 4);
    let g = ssd.geometry();
    assert_eq!(g.lbas, ZONES * ZONE_SIZE);
    assert_eq!((g.zones.unwrap().size_lbas, g.zones.unwrap().capacity_lbas), (ZONE_SIZE, ZONE_CAP));
    let e = write(&mut ssd, 8, 8).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::InvalidWrite { zone: 0, wp: 0, .. })), "{e}");
    write(&mut ssd, 0, 8).unwrap();
    write(&mut ssd, 8, 8).unwrap();
    assert_eq!(state(&ssd, 0), ZoneState::ImplicitlyOpened);
    let e = write(&mut ssd, 16, (ZONE_CAP - 8) as u32).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::Boundary { .. })), "past the zone's capacity: {e}");
    let e = run(&mut ssd, Command::new(Opcode::Trim, 0, 8)).unwrap_err();
    assert!(matches!(e, SubmitError::TrimOnZoned), "{e}");
    let e = run(&mut ssd, Command::new(Opcode::Read, ZONE_CAP - 4, 8)).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::Boundary { .. })), "a read past the capacity: {e}");
}

#[test]
fn the_limits_hold_through_commands() {
    let mut ssd = zns_drive(2, 3);
    send(&mut ssd, 0, ZoneAction::Open).unwrap();
    send(&mut ssd, 1, ZoneAction::Open).unwrap();
    let e = write(&mut ssd, 2 * ZONE_SIZE, 1).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::TooManyOpen { limit: 2 })), "{e}");
    send(&mut ssd, 1, ZoneAction::Close).unwrap();
    write(&mut ssd, 2 * ZONE_SIZE, 1).unwrap();
    let e = write(&mut ssd, 3 * ZONE_SIZE, 1).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::TooManyActive { limit: 3 })), "{e}");
    let e = send(&mut ssd, 5, ZoneAction::Close).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::InvalidTransition { zone: 5, .. })), "{e}");
    let e = run(&mut ssd, Command::new(Opcode::ZoneSend { action: ZoneAction::Reset, all: false }, 7, 0)).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::NotZoneStart { slba: 7 })), "{e}");
    let all = Command::new(Opcode::ZoneSend { action: ZoneAction::Reset, all: true }, 0, 0);
    run(&mut ssd, all).unwrap();
    assert!((0..ZONES).all(|z| state(&ssd, z) == ZoneState::Empty));
}

/// Fills `zones` zones in order, a zone's capacity each, 32 LBAs per write.
fn fill_zones(ssd: &mut Ssd, zones: std::ops::Range<u64>) {
    for zone in zones {
        for k in 0..ZONE_CAP / 32 {
            write(ssd, zone * ZONE_SIZE + k * 32, 32).unwrap();
        }
        assert_eq!(state(ssd, zone), ZoneState::Full);
    }
}

#[test]
fn rewriting_zones_after_resets_never_needs_gc() {
    let mut ssd = zns_drive(4, 4);
    for _pass in 0..4 {
        fill_zones(&mut ssd, 0..ZONES);
        for zone in 0..ZONES {
            send(&mut ssd, zone, ZoneAction::Reset).unwrap();
        }
    }
    ssd.quiesce();
    let c = ssd.ftl().counters.clone();
    assert_eq!(c.gc_units_moved, 0, "a reset zone's superblock holds nothing valid: no GC");
    assert_eq!(c.host_units_written, 4 * ZONES * ZONE_CAP);
    assert_eq!(c.padding_units, 0, "whole zones written: nothing to pad");
    // Every reset erased its zone's superblock.
    assert_eq!(c.superblock_erases, 4 * ZONES);
    ssd.ftl().check_invariants().unwrap();
}

#[test]
fn finish_pads_the_zone_and_waits_for_the_programs_and_reset_unmaps_it() {
    let mut ssd = zns_drive(4, 4);
    write(&mut ssd, 0, 16).unwrap();
    let before = ssd.ftl().counters.clone();
    let done = send(&mut ssd, 0, ZoneAction::Finish).unwrap();
    let after = ssd.ftl().counters.clone();
    assert_eq!(state(&ssd, 0), ZoneState::Full);
    // The rest of the superblock, whole program units of 16 units (2 planes x 2 x 4 KiB...).
    assert_eq!(after.padding_units - before.padding_units, ZONE_CAP - 16);
    assert!(
        !ssd.ftl().programs_pending(ssd.zones().unwrap().zones()[0].superblock.unwrap()),
        "finished: padded and programmed"
    );
    let took = done.completed.since(done.submitted);
    let t_prog = ssd.config().nand.cell[ssd.config().geometry.native.index()].t_prog;
    assert!(took >= t_prog, "a finish waits for its padding's programs ({took} < tPROG {t_prog})");
    let e = write(&mut ssd, 16, 1).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::Full { zone: 0 })), "{e}");
    send(&mut ssd, 0, ZoneAction::Reset).unwrap();
    assert_eq!(ssd.ftl().mapped_units(), 0, "reset unmaps the zone");
    write(&mut ssd, 0, 8).unwrap();
}

#[test]
fn appends_land_at_the_write_pointer_and_say_where() {
    let mut ssd = zns_drive(4, 4);
    let zone = 3 * ZONE_SIZE;
    let a = run(&mut ssd, Command::new(Opcode::ZoneAppend, zone, 8)).unwrap();
    let b = run(&mut ssd, Command::new(Opcode::ZoneAppend, zone, 4)).unwrap();
    assert_eq!((a.assigned_lba, b.assigned_lba), (zone, zone + 8));
    let e = run(&mut ssd, Command::new(Opcode::ZoneAppend, zone + 4, 4)).unwrap_err();
    assert!(matches!(e, SubmitError::Zone(ZoneError::InvalidWrite { .. })), "an append names a zone's start: {e}");
}

#[test]
fn zones_survive_a_save_and_load() {
    let mut ssd = zns_drive(4, 4);
    fill_zones(&mut ssd, 0..2);
    write(&mut ssd, 5 * ZONE_SIZE, 40).unwrap();
    send(&mut ssd, 5, ZoneAction::Close).unwrap();
    ssd.quiesce();
    let dir = std::env::temp_dir().join(format!("ssdtwin-zns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("zns.state");
    ssd.save(&path).unwrap();
    let mut loaded = Ssd::load(&path).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(loaded.zones().unwrap().zones(), ssd.zones().unwrap().zones());
    write(&mut loaded, 5 * ZONE_SIZE + 40, 8).unwrap();
    assert_eq!(state(&loaded, 5), ZoneState::ImplicitlyOpened);
    loaded.ftl().check_invariants().unwrap();
}

/// Runs fio job text on the small zoned drive under Linux 6.1; returns the run's jobs.
fn run_zbd(ssd: &mut Ssd, text: &str) -> ssdtwin_core::workload::RunResult {
    use ssdtwin_core::os::{Host, load_host};
    use ssdtwin_core::workload::fio::parse_job_text;
    use ssdtwin_core::workload::{RunOptions, run};
    let set = parse_job_text(text, "zbd.fio", std::path::Path::new(".")).unwrap();
    let host = load_host("linux-6.1", &[]).unwrap();
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    run(&mut Host::new(ssd, host), &set, &opts, &mut |_| true).unwrap()
}

#[test]
fn fio_zbd_jobs_of_every_shape_keep_to_the_zones() {
    // Each job's commands reach the drive in an order its zones accept (a refused command
    // would panic the run): sequential and random writes at depth, several jobs sharing
    // zones, resets of full zones and by threshold, reads below write pointers, trims as
    // resets, verification, and a mix.
    let shapes = [
        "rw=write\nbs=64k\niodepth=32\nioengine=io_uring_cmd",
        "rw=randwrite\nbs=16k\niodepth=32\nioengine=libaio\nnumjobs=3",
        "rw=randwrite\nbs=32k\niodepth=8\nioengine=io_uring\nmax_open_zones=2\njob_max_open_zones=1\nnumjobs=2",
        "rw=randwrite\nbs=128k\nioengine=psync\nzone_reset_threshold=0.4\nzone_reset_frequency=0.5",
        "rw=randrw\nbs=8k\niodepth=16\nioengine=libaio",
        "rw=write\nbs=4k\niodepth=4\nioengine=libaio\nverify=crc32c",
    ];
    for shape in shapes {
        let mut ssd = zns_drive(4, 4);
        let text =
            format!("[global]\nzonemode=zbd\ndirect=1\nsize=6z\nio_size={}\n[j]\n{shape}\n", 3 * 6 * ZONE_CAP * 4096);
        let r = run_zbd(&mut ssd, &text);
        let written: u64 = r.jobs.iter().map(|j| j.dirs[1].io_bytes).sum();
        assert!(written > 0, "{shape}: wrote nothing");
        ssd.quiesce();
        ssd.ftl().check_invariants().unwrap();
        assert_eq!(ssd.ftl().counters.gc_units_moved, 0, "{shape}: no GC on a zoned drive");
        let zones = ssd.zones().unwrap();
        assert!(zones.open_count() <= 4 && zones.active_count() <= 4, "{shape}: limits");
        // Writing three times the region's capacity must have reset its zones.
        if !shape.contains("randrw") && !shape.contains("verify") {
            assert!(r.jobs.iter().map(|j| j.zone_resets).sum::<u64>() > 0, "{shape}: no zone was reset");
        }
    }
    // A trim job resets whole zones.
    let mut ssd = zns_drive(4, 4);
    fill_zones(&mut ssd, 0..3);
    let trim = format!("[t]\nzonemode=zbd\nrw=trim\nbs={}\nsize=3z\nioengine=psync\n", ZONE_SIZE * 4096);
    let r = run_zbd(&mut ssd, &trim);
    assert_eq!(r.jobs[0].zone_resets, 3);
    ssd.quiesce();
    assert_eq!(ssd.ftl().mapped_units(), 0, "each trim reset its zone");
}
