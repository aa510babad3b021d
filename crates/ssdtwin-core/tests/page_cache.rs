//! Buffered I/O (`direct=0`) through the host's page cache: hits, readahead, the dirty
//! throttle and fsync. Expectations come from the host profile's parameters and the
//! kernel's rules (`mm/readahead.c`, `mm/page-writeback.c`), not from a run.

use ssdtwin_core::block::CounterRow;
use ssdtwin_core::os::{Host, HostConfig, ideal_host_overrides, load_host};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::fio::parse_command_line;
use ssdtwin_core::workload::{JobSet, RunOptions, RunResult, run};

fn filled_generic() -> Ssd {
    let mut dev = Ssd::new(crate::common::generic_ideal());
    dev.fill(FillPattern::Sequential { percent: 1.0, command_bytes: 1 << 17 }).unwrap();
    dev
}

fn host(sets: &[&str]) -> HostConfig {
    load_host("linux-6.1", &sets.iter().map(ToString::to_string).collect::<Vec<_>>()).unwrap()
}

fn jobs(args: &str) -> JobSet {
    parse_command_line(&args.split_whitespace().map(String::from).collect::<Vec<_>>()).unwrap()
}

fn run_on(dev: &mut Ssd, h: HostConfig, set: &JobSet) -> RunResult {
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    run(&mut Host::new(dev, h), set, &opts, &mut |_| true).unwrap()
}

/// Counter `name` of the host over group `g`.
fn delta(r: &RunResult, g: usize, name: &str) -> u64 {
    let (a, b): (&CounterRow, &CounterRow) = (&r.groups[g].counters_start, &r.groups[g].counters_end);
    b.get(name).unwrap() - a.get(name).unwrap()
}

#[test]
fn buffered_rereads_of_a_small_file_hit_the_page_cache() {
    let set = jobs(
        "--name=load --filename=data --rw=read --bs=128k --size=8m --direct=0 \
         --name=reread --filename=data --stonewall --rw=randread --bs=4k --size=8m --direct=0 --invalidate=0 \
         --runtime=20ms --time_based",
    );
    // The ideal host: each call costs its mean, so the rate is their sum's inverse.
    let ideal = ideal_host_overrides();
    let h = host(&ideal.iter().map(String::as_str).collect::<Vec<_>>());
    let r = run_on(&mut filled_generic(), h.clone(), &set);
    let reread = &r.jobs[1].dirs[0];
    assert_eq!(delta(&r, 1, "host.page_cache_miss_bytes"), 0, "every page was read in by the first job");
    // Calls that end after the deadline are not counted, their pages are.
    let hits = delta(&r, 1, "host.page_cache_hit_bytes");
    assert!(hits >= reread.io_bytes && hits <= reread.io_bytes + 4096, "{hits} vs {}", reread.io_bytes);
    assert_eq!(delta(&r, 1, "host_read_bytes"), 0, "no read reaches the drive");
    // Each call is CPU work only: fio's, the pread call, the file system's read_iter, one
    // page's lookup and copy.
    let pc = h.page_cache.as_ref().unwrap();
    let e = h.engine("psync").unwrap();
    let fs = h.fs(h.default_fs.as_deref().unwrap()).unwrap();
    let per_call = h.fio_prep + h.fio_complete + e.submit_call + e.submit_io + fs.buffered_io + e.reap_call + e.reap_io;
    let per_call_ns = per_call.as_ns() + pc.copy_per_kib.as_ns() * 4 + pc.read_page.as_ns();
    let expected = 1e9 / per_call_ns as f64;
    assert!((reread.iops() / expected - 1.0).abs() < 0.01, "{} IOPS, expected {expected}", reread.iops());
    // The first job read each page from the drive once.
    assert_eq!(delta(&r, 0, "host.page_cache_read_bytes"), 8 << 20);
}

#[test]
fn an_invalidated_file_is_read_from_the_drive_again() {
    let set = jobs(
        "--name=load --filename=data --rw=read --bs=128k --size=8m --direct=0 \
         --name=again --filename=data --stonewall --rw=read --bs=128k --size=8m --direct=0",
    );
    let r = run_on(&mut filled_generic(), host(&[]), &set);
    assert_eq!(delta(&r, 1, "host.page_cache_hit_bytes"), 0, "fio's default invalidate=1 drops the cache");
    assert_eq!(delta(&r, 1, "host.page_cache_read_bytes"), 8 << 20);
}

/// Device reads a sequential reader of `req` pages makes over a file of `file` pages with
/// `max`-page windows: the init window, then each window ramped (`get_next_ra_size`)
/// until the file ends.
fn sequential_windows(req: u64, file: u64, max: u64) -> u64 {
    let mut size = (req.next_power_of_two()
        * if req <= max / 32 {
            4
        } else if req <= max / 4 {
            2
        } else {
            1
        })
    .min(max)
    .max(req);
    let (mut start, mut n) = (0, 1);
    while start + size < file {
        start += size;
        size = if size < max / 16 {
            4 * size
        } else if size <= max / 2 {
            2 * size
        } else {
            max
        };
        n += 1;
    }
    n
}

#[test]
fn sequential_buffered_reads_issue_readahead_sized_device_reads() {
    let h = host(&[]);
    let max = h.page_cache.as_ref().unwrap().read_ahead_bytes / 4096;
    let set = jobs("--name=seq --filename=data --rw=read --bs=4k --size=16m --direct=0");
    let r = run_on(&mut filled_generic(), h, &set);
    // 16 KiB, 32 KiB, 64 KiB, then 128 KiB windows to the end of the file.
    let windows = sequential_windows(1, 4096, max);
    assert_eq!(windows, 4 + (4096 - 60_u64).div_ceil(32));
    assert_eq!(r.disk.read_ios, windows);
    assert_eq!(delta(&r, 0, "host_read_bytes"), 16 << 20, "each page read once");
    // The reader copies a window faster than the drive reads the next one, so it waits
    // at most once per window, on its first page.
    let misses = delta(&r, 0, "host.page_cache_miss_bytes") / 4096;
    assert!((1..=windows).contains(&misses), "{misses} pages waited for");
}

#[test]
fn random_buffered_reads_are_not_amplified() {
    let set = jobs("--name=rnd --rw=randread --bs=4k --size=4g --direct=0 --runtime=20ms --time_based");
    let r = run_on(&mut filled_generic(), host(&[]), &set);
    let ios = r.jobs[0].dirs[0].total_ios;
    let device_bytes = delta(&r, 0, "host_read_bytes");
    // One 4 KiB device read per call; the first read at offset 0 may open a window.
    assert!(device_bytes >= ios * 4096 && device_bytes <= ios * 4096 + 16 * 4096, "{device_bytes} for {ios} reads");
}

#[test]
fn dirty_data_beyond_the_threshold_throttles_the_writer() {
    // 256 MiB of page cache: background writeback above 25.6 MiB, writers throttled above
    // freerun (38.4 MiB) and held at 51.2 MiB.
    let h = host(&["page_cache.memory_gib=0.25"]);
    let small = jobs("--name=w --rw=write --bs=1m --size=32m --direct=0");
    let r = run_on(&mut filled_generic(), h.clone(), &small);
    let free_bw = r.jobs[0].dirs[1].bw_kib_per_sec();
    assert_eq!(delta(&r, 0, "host.dirty_throttle_ns"), 0, "32 MiB stays below freerun");

    let big = jobs("--name=w --rw=write --bs=1m --size=2g --direct=0");
    let r = run_on(&mut filled_generic(), h, &big);
    let throttled_bw = r.jobs[0].dirs[1].bw_kib_per_sec();
    assert!(delta(&r, 0, "host.dirty_throttle_ns") > 0);
    assert!(
        r.groups[0].counters_end.get("host.dirty_bytes").unwrap()
            + r.groups[0].counters_end.get("host.under_writeback_bytes").unwrap()
            <= (256 << 20) / 5 + (1 << 20)
    );
    // Held to what writeback achieves: the drive's rate at the writeback depth.
    let direct = jobs("--name=d --rw=write --bs=1280k --iodepth=4 --ioengine=libaio --size=2g");
    let d = run_on(&mut filled_generic(), host(&[]), &direct);
    let drive_bw = d.jobs[0].dirs[1].bw_kib_per_sec();
    assert!(throttled_bw < free_bw / 2, "throttled {throttled_bw} KiB/s vs free {free_bw}");
    let ratio = throttled_bw as f64 / drive_bw as f64;
    assert!((0.8..1.2).contains(&ratio), "buffered {throttled_bw} KiB/s vs the drive's {drive_bw}");
}

#[test]
fn fsync_writes_back_and_flushes_before_it_returns() {
    let set = jobs("--name=w --rw=randwrite --bs=4k --size=64m --direct=0 --fsync=1 --number_ios=200");
    let r = run_on(&mut filled_generic(), host(&[]), &set);
    let job = &r.jobs[0];
    // fio's loop: a sync after every write but the last (the job ends first).
    assert_eq!((job.dirs[1].total_ios, job.sync_lat.n), (200, 199), "one fsync per write");
    assert_eq!(r.disk.write_ios, 199, "each fsync writes its one dirty page");
    assert_eq!(delta(&r, 0, "host_flush_cmds"), 199);
    assert_eq!(r.groups[0].counters_end.get("host.dirty_bytes"), Some(4096), "the last write stays in memory");
    // An fsync waits for the drive's write and flush: longer than the call's own CPU work.
    assert!(job.sync_lat.mean() > 10_000.0, "{} ns", job.sync_lat.mean());
}

#[test]
fn end_fsync_leaves_nothing_dirty_and_direct_fsync_flushes() {
    let set = jobs("--name=w --rw=write --bs=64k --size=16m --direct=0 --end_fsync=1");
    let r = run_on(&mut filled_generic(), host(&[]), &set);
    assert_eq!(r.groups[0].counters_end.get("host.dirty_bytes"), Some(0));
    assert_eq!(delta(&r, 0, "host_write_bytes"), 16 << 20);
    assert_eq!(r.jobs[0].sync_lat.n, 0, "fio does not count the end sync");
    let set = jobs("--name=d --rw=write --bs=4k --size=1m --fsync=16");
    let r = run_on(&mut filled_generic(), host(&[]), &set);
    assert_eq!((delta(&r, 0, "host_flush_cmds"), r.jobs[0].sync_lat.n), (15, 15), "after writes 16, 32, … 240");
}

#[test]
fn buffered_io_needs_a_host_with_a_page_cache() {
    let set = jobs("--name=b --rw=read --direct=0 --size=1m");
    let mut dev = filled_generic();
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    let err = run(&mut Host::new(&mut dev, load_host("windows-10", &[]).unwrap()), &set, &opts, &mut |_| true)
        .unwrap_err()
        .to_string();
    assert!(err.contains("direct=0 (buffered I/O) needs a host with a page cache; host windows-10 has none"), "{err}");
}
