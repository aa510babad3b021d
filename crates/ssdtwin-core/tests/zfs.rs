//! ZFS pools (R5): placement by physical block size after compression, the special class's
//! metadata reserve and spill, metadata copies, txg batching and the write throttle, loss
//! of a special vdev, the intent log, and zdb's accounting against the allocators'. Every
//! expectation comes from OpenZFS's rules and the pool file's values, never from a run.

use ssdtwin_core::block::BlockDevice;
use ssdtwin_core::os::{Host, HostConfig, load_host};
use ssdtwin_core::setup::{fio_on_pool, pool_on_host};
use ssdtwin_core::workload::fio::parse_job_text;
use ssdtwin_core::workload::{RunOptions, run};
use ssdtwin_core::zfs::{
    AllocClass, FileClass, OpError, Pool, SizeDist, Tree, TreeOp, TreeSpec, apply_pool_overrides, build_pool,
    load_pool, ot,
};

fn host() -> HostConfig {
    load_host("linux-6.1", &[]).unwrap()
}

/// The shipped HDD mirror with an SSD special mirror, after `overrides`.
fn pool(name: &str, overrides: &[&str]) -> Pool {
    let mut p = load_pool(name).unwrap();
    apply_pool_overrides(&mut p, &overrides.iter().map(ToString::to_string).collect::<Vec<_>>()).unwrap();
    pool_on_host(build_pool(&p).unwrap(), &host()).unwrap()
}

/// Incompressible `.bin` files and `.txt` files lz4 shrinks 8:1.
fn classes() -> Vec<FileClass> {
    vec![FileClass::parse("media:0.5:1.0").unwrap(), FileClass::parse("text=txt:0.5:8.0").unwrap()]
}

fn create(pool: &mut Pool, scan: &str) {
    pool.add_tree("tank/data", Tree::from_scan(scan, "scan", classes()).unwrap()).unwrap();
    pool.run_op("tank/data", TreeOp::Create, &mut |_, _| true).unwrap();
}

// A test's scan text: one string per line reads plainest.
#[allow(clippy::format_collect)]
fn files(n: usize, bytes: u64, ext: &str, dir: &str) -> String {
    (0..n).map(|i| format!("{bytes} {dir}/f{i}.{ext}\n")).collect()
}

#[test]
fn data_blocks_are_placed_by_their_physical_size_after_compression() {
    // special_small_blocks 32K, recordsize 128K, lz4. A 128 KiB incompressible record stays
    // 128 KiB (normal); a text record compresses to 16 KiB (special).
    let mut p = pool("hdd-mirror-special", &[]);
    let scan = files(100, 131_072, "bin", "a") + &files(100, 131_072, "txt", "b");
    create(&mut p, &scan);
    let u = p.usage();
    assert_eq!(u.normal.data_bytes, 100 * 131_072);
    assert_eq!(u.special.data_bytes, 100 * 16_384);
    assert_eq!(u.small_blocks_redirected_bytes, 0);
}

#[test]
fn the_tail_block_of_a_large_file_lands_on_special_when_compression_squeezes_it() {
    // 129 KiB incompressible: two 128 KiB records; the tail holds 1 KiB, which lz4 keeps at
    // 1 KiB and the pool's 4 KiB allocation unit rounds to 4 KiB: at most 32K, special.
    let mut p = pool("hdd-mirror-special", &[]);
    create(&mut p, "132096 a/big.bin\n");
    let u = p.usage();
    assert_eq!((u.normal.data_bytes, u.special.data_bytes), (131_072, 4096));
    // Without compression the tail is a whole record: both go to normal.
    let mut p = pool("hdd-mirror-special", &["datasets.data.compression=off"]);
    create(&mut p, "132096 a/big.bin\n");
    let u = p.usage();
    assert_eq!((u.normal.data_bytes, u.special.data_bytes), (2 * 131_072, 0));
    // A small file is one block of its size rounded to 512 bytes (20,480): it does not
    // compress by an eighth, so it is stored whole, at most 32K: special.
    let mut p = pool("hdd-mirror-special", &[]);
    create(&mut p, "20000 a/small.bin\n");
    assert_eq!(p.usage().special.data_bytes, 20_480);
}

#[test]
fn small_blocks_stop_at_the_metadata_reserve_and_metadata_spills_when_special_is_full() {
    // A 128 MiB special partition; every data block (4 KiB files) qualifies as small. Small
    // txgs (a 16 MiB dirty limit) let the log show the special class fill.
    let mut p = pool(
        "hdd-mirror-special",
        &[
            "vdevs.1.partition_bytes=\"128M\"",
            "datasets.data.special_small_blocks_bytes=\"64K\"",
            "tunables.zfs_dirty_data_max=16777216",
        ],
    );
    let mut spec = TreeSpec::new(100_000, SizeDist::Fixed(4096));
    spec.classes = vec![FileClass::parse("media:1:1.0").unwrap()];
    p.add_tree("tank/data", Tree::generate(&spec).unwrap()).unwrap();
    p.run_op("tank/data", TreeOp::Create, &mut |_, _| true).unwrap();
    let size = p.usage().special.size_bytes;
    let log = p.txg_log();
    // Small data blocks go to special only while it is below 75 %: the data there never
    // passes that line by more than the one block that crossed it.
    let first_redirect = log.iter().position(|t| t.usage.small_blocks_redirected_bytes > 0).expect("a redirect");
    let at_redirect = &log[first_redirect].usage;
    let end = &log.last().unwrap().usage;
    assert!(end.special.data_bytes <= size * 3 / 4 + 4096, "{} of {size}", end.special.data_bytes);
    assert!(at_redirect.special.allocated() >= size * 3 / 4, "redirects begin at the 75 % line");
    assert_eq!(end.special.data_bytes, at_redirect.special.data_bytes, "no small block joins special after it");
    // Metadata goes on filling the reserve, to the end, then spills to the normal class.
    assert!(end.special.metadata_bytes > at_redirect.special.metadata_bytes);
    assert!(end.metadata_spilled_bytes > 0, "metadata spilled once special was full");
    assert!(end.normal.metadata_bytes > 0, "spilled metadata lives on the disks");
    assert!(end.special.allocated() <= size);
    // It spills a little short of 100 %: a txg's rewrites need room before the blocks they
    // replace are freed at its end (zio_dva_allocate's comment on deferred frees).
    let first_spill = log.iter().find(|t| t.usage.metadata_spilled_bytes > 0).expect("a spill");
    assert!(first_spill.usage.special.allocated() > size * 90 / 100, "special filled up before spilling");
}

#[test]
fn metadata_has_one_copy_more_than_data_and_the_mos_three() {
    let mut p = pool("hdd-mirror-special", &["datasets.data.special_small_blocks_bytes=0"]);
    create(&mut p, &files(3000, 300_000, "bin", "a"));
    let s = p.block_stats();
    let row = |t: u8, level: u8| *s.types.iter().find(|r| r.ot == t && r.level == Some(level)).unwrap();
    // Every block here is compressed metadata of at most 4 KiB, or a whole record: each
    // copy takes psize, so asize / psize is the copy count.
    let dnodes = row(ot::DNODE, 0);
    // The MOS's own dnode block (4 KiB) has a third copy.
    assert_eq!(dnodes.asize, 2 * dnodes.psize + 4096, "redundant_metadata=all: dnode blocks twice");
    let l1 = row(ot::PLAIN_FILE, 1);
    assert_eq!(l1.asize, 2 * l1.psize, "indirect blocks of files twice");
    let data = row(ot::PLAIN_FILE, 0);
    assert_eq!(data.asize, data.psize, "data once");
    // One special vdev: the second copy shares it (zdb's "Dittoed blocks on same vdev").
    assert!(s.ditto_same_vdev >= dnodes.count + l1.count);
    let space_maps = row(ot::SPACE_MAP, 0);
    assert_eq!(space_maps.asize, 3 * space_maps.psize, "the MOS keeps three copies");
    let mut p = pool("hdd-mirror-special", &["datasets.data.redundant_metadata=none", "datasets.data.copies=2"]);
    create(&mut p, &files(100, 300_000, "bin", "a"));
    let s = p.block_stats();
    let row = |t: u8, level: u8| *s.types.iter().find(|r| r.ot == t && r.level == Some(level)).unwrap();
    assert_eq!(row(ot::PLAIN_FILE, 0).asize, 2 * row(ot::PLAIN_FILE, 0).psize, "copies=2 doubles data");
    assert_eq!(row(ot::PLAIN_FILE, 1).asize, 2 * row(ot::PLAIN_FILE, 1).psize, "…and indirect blocks keep copies");
}

#[test]
fn every_allocated_byte_is_a_block_zdb_finds() {
    let mut p = pool("hdd-mirror-special", &[]);
    let mut spec = TreeSpec::new(5000, SizeDist::parse("lognormal:16K:2.0").unwrap());
    spec.files_per_dir = 300;
    p.add_tree("tank/data", Tree::generate(&spec).unwrap()).unwrap();
    for op in [TreeOp::Create, TreeOp::ReadSmall { max_bytes: 1 << 20 }, TreeOp::Scrub] {
        p.run_op("tank/data", op, &mut |_, _| true).unwrap();
    }
    p.sync_all().unwrap();
    let s = p.block_stats();
    let u = p.usage();
    let allocated: u64 = AllocClass::ALL.iter().map(|&c| u.class(c).allocated()).sum();
    assert_eq!(s.total.asize, allocated, "no leaks: the block sum matches the space maps");
    let rows = p.list_rows();
    assert_eq!(rows[0].alloc, allocated, "zpool list's ALLOC counts normal, special and dedup");
}

#[test]
fn txgs_sync_on_the_timer_and_on_the_dirty_threshold() {
    // Slow creates (20 ms each) of 4 KiB files: far below the dirty threshold, so a txg
    // syncs every zfs_txg_timeout = 5 s.
    let mut p = pool("hdd-mirror", &["zpl.create_us=20000"]);
    let before = p.txg_log().len();
    create(&mut p, &files(1000, 4096, "bin", "a"));
    let starts: Vec<f64> = p.txg_log()[before..].iter().map(|t| t.start_ns as f64 / 1e9).collect();
    // 1000 files and their directory at 20 ms a create: 20 s of work, so syncs at 5, 10,
    // 15 and 20 s, and the final one the copy waits for.
    assert!((4..=6).contains(&starts.len()), "{starts:?}");
    for w in starts.windows(2).take(starts.len() - 2) {
        assert!((w[1] - w[0] - 5.0).abs() < 0.1, "txgs 5 s apart: {starts:?}");
    }
    // Fast 1 MiB files, 3 GiB in all, on a 64 GiB host: zfs_dirty_data_max is 4 GiB and a
    // txg syncs as soon as 20 % of it (819 MiB) is dirty. The copy runs at memory speed, so
    // while that txg syncs the next one takes everything else (under the 60 % delay line).
    let mut p = pool("hdd-mirror", &[]);
    let before = p.txg_log().len();
    create(&mut p, &files(3072, 1 << 20, "bin", "a"));
    let txgs = &p.txg_log()[before..];
    let threshold = p.dirty_data_max() / 5;
    assert_eq!(txgs.len(), 2, "{txgs:?}");
    let first = txgs[0].written_bytes;
    // Creates count their dnode and entry (576 bytes) against the threshold too.
    assert!(first > threshold * 99 / 100 && first <= threshold + 131_072, "the first txg holds the threshold: {first}");
    assert_eq!(txgs[0].written_bytes + txgs[1].written_bytes, 3 << 30);
    assert!(txgs[1].start_ns >= txgs[0].end_ns, "one txg syncs at a time");
}

#[test]
fn the_write_throttle_holds_a_copy_to_the_disks_pace() {
    // 6 GiB onto a mirror whose disks write ~270 MB/s at the outer edge: more than the
    // 4 GiB dirty limit, so the copy cannot finish much faster than the disks.
    let mut p = pool("hdd-mirror", &[]);
    p.add_tree("tank/data", Tree::generate(&TreeSpec::new(6144, SizeDist::Fixed(1 << 20))).unwrap()).unwrap();
    let r = p.run_op("tank/data", TreeOp::Create, &mut |_, _| true).unwrap();
    let rate = r.bytes_written as f64 / r.seconds / 1e6;
    assert!(rate < 275.0 && rate > 150.0, "{rate} MB/s");
}

#[test]
fn losing_the_special_vdev_loses_the_pool() {
    let mut p = pool("hdd-mirror-special", &[]);
    create(&mut p, &files(100, 8192, "bin", "a"));
    p.fail_device("nvme0n1").unwrap();
    assert!(p.check_usable().is_ok(), "a mirror survives one failed side");
    assert_eq!(p.list_rows()[0].health, "DEGRADED");
    p.fail_device("nvme1n1").unwrap();
    let e = p.check_usable().unwrap_err();
    assert!(matches!(e, OpError::Lost { .. }));
    let text = e.to_string();
    assert!(
        text.starts_with("pool 'tank' is lost: special vdev mirror-1 has no copy left (nvme0n1, nvme1n1)"),
        "{text}"
    );
    assert!(p.run_op("tank/data", TreeOp::Find, &mut |_, _| true).is_err());
    assert_eq!(p.list_rows()[0].health, "UNAVAIL");
    assert!(matches!(p.fail_device("sdz"), Err(OpError::NoDevice { .. })));
}

#[test]
fn a_log_vdev_can_be_lost_without_the_pool() {
    let text = "[pool]\nname='tank'\n[[vdevs]]\nclass='normal'\nlayout='mirror'\ndrives=['exos-x18-16tb','exos-x18-16tb']\n\
                [[vdevs]]\nclass='log'\nlayout='disk'\ndrives=['generic-tlc-1tb']\npartition_bytes='8G'\n";
    let config = build_pool(&ssdtwin_core::zfs::LoadedPool::from_str(text, "t.toml").unwrap()).unwrap();
    let mut p = pool_on_host(config, &host()).unwrap();
    p.fail_device("nvme0n1").unwrap();
    assert!(p.check_usable().is_ok());
}

/// fio's 4 KiB synchronous writes (fsync after each) on dataset tank/data: mean latency of
/// write plus sync, ns.
fn sync_write_latency(p: &mut Pool) -> f64 {
    let job =
        "[w]\ndirectory=/tank/data\nrw=randwrite\nbs=4k\nsize=64m\nfsync=1\nioengine=psync\nruntime=2\ntime_based\n";
    let j = &run_fio(p, job).jobs[0];
    assert!(j.sync_lat.n > 10, "fsyncs ran: {}", j.sync_lat.n);
    j.sync_lat.mean()
}

fn run_fio(p: &mut Pool, job: &str) -> ssdtwin_core::workload::RunResult {
    let mut set = parse_job_text(job, "job", std::path::Path::new(".")).unwrap();
    p.set_fio_dataset("/tank/data").unwrap();
    let mut opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    let h = fio_on_pool(p, &host(), &mut set, &mut opts);
    run(&mut Host::new(p, h), &set, &opts, &mut |_| true).unwrap()
}

#[test]
fn o_sync_writes_return_after_the_intent_log_commit_and_buffered_jobs_run_through_the_arc() {
    // zfs_write commits the intent log before an O_SYNC write returns: its latency is a
    // write plus an fsync's, where without sync=1 it is a copy into the ARC.
    let job = |extra: &str| {
        format!(
            "[w]\ndirectory=/tank/data\nrw=randwrite\nbs=4k\nsize=64m\nioengine=psync\nruntime=1\ntime_based\n{extra}"
        )
    };
    let mut p = pool("hdd-mirror-special", &[]);
    let fsync = sync_write_latency(&mut p);
    let mut p = pool("hdd-mirror-special", &[]);
    let r = run_fio(&mut p, &job("sync=1\ndirect=0\n"));
    let osync = r.jobs[0].dirs[1].latency.lat.mean();
    let mut p = pool("hdd-mirror-special", &[]);
    let r = run_fio(&mut p, &job("direct=0\n"));
    let buffered = r.jobs[0].dirs[1].latency.lat.mean();
    assert!(p.log_bytes_written() == 0, "no commit without sync");
    assert!(osync > 0.5 * fsync && osync < 3.0 * fsync, "O_SYNC write {osync} ns, fsync {fsync} ns");
    assert!(buffered * 5.0 < osync, "a write into the ARC {buffered} ns, O_SYNC {osync} ns");
}

#[test]
fn the_intent_log_goes_to_the_special_vdev_and_sync_writes_get_faster() {
    // zio_alloc_zil: without a log vdev, log blocks go to special. PR #5182 saw sync write
    // latency fall with a special vdev; here the fsync costs an SSD write and flush instead
    // of a disk seek, rotation and cache flush.
    let mut hdd = pool("hdd-mirror", &[]);
    let mut fast = pool("hdd-mirror-special", &[]);
    let (slow, quick) = (sync_write_latency(&mut hdd), sync_write_latency(&mut fast));
    assert!(fast.log_bytes_written() > 0);
    assert!(slow > 10.0 * quick, "fsync {slow} ns on disks, {quick} ns with special");
    assert!(slow > 1e6, "a disk commit needs milliseconds: {slow}");
}

#[test]
fn pools_refuse_hosts_without_memory() {
    let config = build_pool(&load_pool("hdd-mirror").unwrap()).unwrap();
    let e = pool_on_host(config, &load_host("none", &[]).unwrap()).err().unwrap().to_string();
    assert!(e.starts_with("--host = none: a host with at least 1 GiB of DRAM"), "{e}");
}

#[test]
fn a_pool_is_deterministic() {
    let run = || {
        let mut p = pool("hdd-mirror-special", &[]);
        let mut spec = TreeSpec::new(2000, SizeDist::parse("lognormal:8K:2.0").unwrap());
        spec.seed = 9;
        p.add_tree("tank/data", Tree::generate(&spec).unwrap()).unwrap();
        let ops =
            [TreeOp::Create, TreeOp::Stat, TreeOp::ReadRandom { count: 50, io_bytes: 4096, min_bytes: 1, seed: 3 }];
        let times: Vec<f64> =
            ops.iter().map(|&op| p.run_op("tank/data", op, &mut |_, _| true).unwrap().seconds).collect();
        (times, p.usage(), p.now())
    };
    assert_eq!(run(), run());
}

#[test]
fn the_pool_geometry_is_the_normal_class_less_slop() {
    let p = pool("hdd-mirror", &[]);
    let g = p.geometry();
    let normal = p.usage().normal.size_bytes;
    assert_eq!(g.lbas * 512, (normal - normal / 32) / 512 * 512);
}
