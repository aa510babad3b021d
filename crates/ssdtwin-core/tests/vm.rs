//! Virtual memory over the twin: major faults, swap-in readahead windows, mmap read-around
//! and `mmap_miss`, `madvise`, and the swap locks under concurrent faults. Each expectation
//! comes from the kernel's rules and the host profile's parameters (host-facts.md §3), on a
//! machine cut down to 64 MiB of DRAM so a run takes a fraction of a second.

use ssdtwin_core::config::{build, load_profile};
use ssdtwin_core::os::{Host, Md, MdLayout, load_host};
use ssdtwin_core::ssd::Ssd;
use ssdtwin_core::workload::memory::{Advice, Alloc, Bench, MemoryResult, MemorySpec, run_memory};

const DRAM_MIB: u64 = 64;
const PAGE: u64 = 4096;
/// Swap at 64 GiB on the target, well clear of the mmap file at 0.
const SWAP_AT: u64 = 64 << 30;

fn drive() -> Ssd {
    Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap())
}

/// `name` cut down to `DRAM_MIB` with no kernel reserve, plus `sets`.
fn host_config(name: &str, sets: &[&str]) -> ssdtwin_core::os::HostConfig {
    let mut all = vec![
        format!("cpu.dram_gib={}", DRAM_MIB as f64 / 1024.0),
        format!("page_cache.memory_gib={}", DRAM_MIB as f64 / 1024.0 / 2.0),
        "vm.kernel_reserved_mib=0".to_string(),
    ];
    all.extend(sets.iter().map(ToString::to_string));
    load_host(name, &all).unwrap()
}

fn memcpy(mib: u64, unit: u64, alloc: Alloc, advice: Advice, sequential: bool, threads: u32) -> MemorySpec {
    MemorySpec {
        bench: Bench::Memcpy { bytes: mib << 20, unit_bytes: unit },
        alloc,
        advice,
        sequential,
        threads,
        seed: 3,
        swap_areas: vec![(SWAP_AT, 16 << 30)],
        file_offset_bytes: 0,
    }
}

fn run(host: &str, sets: &[&str], spec: &MemorySpec) -> (MemoryResult, u64) {
    let mut h = Host::new(drive(), host_config(host, sets));
    let (frames, _) = h.vm_frames();
    let r = run_memory(&mut h, spec, &mut |_| true).unwrap();
    h.vm_check();
    (r, frames)
}

// ---- major faults of a sequential sweep ----

/// With no swap readahead (`page-cluster` 0) a sequential sweep over memory larger than
/// DRAM faults in every page: LRU evicts each page before the sweep comes back to it.
/// Memory that fits takes none.
#[test]
fn a_sweep_over_memory_larger_than_dram_by_x_percent_faults_every_page() {
    for x in [10, 25, 50] {
        let mib = DRAM_MIB * (100 + x) / 100;
        let spec = memcpy(mib, 1 << 20, Alloc::Malloc, Advice::None, true, 1);
        let (r, _) = run("linux-3.6", &["vm.page_cluster=0"], &spec);
        assert_eq!(r.counter("host.major_faults"), (mib << 20) / PAGE, "{x} % over DRAM");
        assert_eq!(r.counter("host.swap_in_bytes"), mib << 20);
    }
    let spec = memcpy(DRAM_MIB * 9 / 10, 1 << 20, Alloc::Malloc, Advice::None, true, 1);
    let (r, _) = run("linux-3.6", &["vm.page_cluster=0"], &spec);
    assert_eq!(r.counter("host.major_faults"), 0, "it fits: no fault at all");
}

/// 3.6's `swapin_readahead` reads the aligned block of 2^page-cluster slots on each major
/// fault; a sequential fill put the pages in slot order, so one fault in 8 is major.
#[test]
fn cluster_readahead_makes_one_fault_in_a_page_cluster_major() {
    let mib = DRAM_MIB * 5 / 4;
    let pages = (mib << 20) / PAGE;
    let (r, _) = run("linux-3.6", &[], &memcpy(mib, 1 << 20, Alloc::Malloc, Advice::None, true, 1));
    let majors = r.counter("host.major_faults");
    // Slot 0 is the swap header, so the blocks are shifted by one: at most one extra.
    assert!(majors == pages / 8 || majors == pages / 8 + 1, "{majors} major faults for {pages} pages");
    assert_eq!(r.counter("host.swap_in_bytes"), mib << 20);
}

// ---- the adaptive swap-in window ----

/// 3.15+'s `swapin_nr_pages`: random faults find no readahead hits and the window halves
/// down to one page, so swap-ins converge to single-page reads.
#[test]
fn random_swap_ins_converge_to_single_page_reads() {
    // Page-sized units in a random order over four times DRAM.
    let spec = memcpy(DRAM_MIB * 4, PAGE, Alloc::Malloc, Advice::None, false, 1);
    let (r, _) = run("linux-3.6", &["vm.swap_readahead=\"cluster-adaptive\""], &spec);
    let majors = r.counter("host.major_faults") as f64;
    let read = (r.counter("host.swap_in_bytes") / PAGE) as f64;
    // A readahead page is hit with probability about DRAM / region (1/4); each hit grows
    // the next window to 4 again, which then halves back.
    assert!(read / majors < 1.5, "{read} pages read in {majors} major faults");
    // The same sweep with 3.6's fixed block reads eight pages a fault.
    let (fixed, _) = run("linux-3.6", &[], &spec);
    let per_fault = (fixed.counter("host.swap_in_bytes") / PAGE) as f64 / fixed.counter("host.major_faults") as f64;
    assert!(per_fault > 7.0, "{per_fault}");
}

/// Sequential faults hit every page read ahead, so the window grows to 2^page-cluster and
/// stays there.
#[test]
fn sequential_swap_ins_grow_the_window_to_page_cluster() {
    let mib = DRAM_MIB * 5 / 4;
    for (policy, cluster) in [("cluster-adaptive", 3), ("cluster-adaptive", 2), ("vma", 3)] {
        let ra = format!("vm.swap_readahead=\"{policy}\"");
        let pc = format!("vm.page_cluster={cluster}");
        let (r, _) = run("linux-3.6", &[&ra, &pc], &memcpy(mib, 1 << 20, Alloc::Malloc, Advice::None, true, 1));
        let read = (r.counter("host.swap_in_bytes") / PAGE) as f64;
        let per_fault = read / r.counter("host.major_faults") as f64;
        let window = f64::from(1u32 << cluster);
        assert!(per_fault > window * 0.95 && per_fault <= window, "{policy}, page-cluster {cluster}: {per_fault}");
    }
}

// ---- mmap read-around ----

/// `do_sync_mmap_readahead`: `MADV_RANDOM` reads exactly the faulting page; without advice
/// a sequential sweep reads 128 KiB windows and streams ahead, one major fault in all.
#[test]
fn madv_random_disables_read_around() {
    let mib = DRAM_MIB * 5 / 4;
    let pages = (mib << 20) / PAGE;
    let (random, _) = run("linux-3.6", &[], &memcpy(mib, 1 << 20, Alloc::Mmap, Advice::Random, true, 1));
    assert_eq!(random.counter("host.major_faults"), pages, "every page is a major fault");
    assert_eq!(random.counter("host.mmap_readahead_bytes"), 0);
    assert_eq!(random.counter("host.mmap_read_bytes"), mib << 20);
    let (normal, _) = run("linux-3.6", &[], &memcpy(mib, 1 << 20, Alloc::Mmap, Advice::None, true, 1));
    assert!(normal.counter("host.major_faults") <= 2, "read-around, then async readahead streams");
    assert!(normal.seconds * 4.0 < random.seconds, "{} vs {} s", normal.seconds, random.seconds);
}

/// `mmap_miss` counts major faults (less cache hits); above `MMAP_LOTSAMISS` (100) the
/// file gets no read-around. Random page faults over sixteen times DRAM rarely hit, so
/// read-around stops after about 101 windows of `ra_pages` (32).
#[test]
fn mmap_miss_above_100_stops_read_around() {
    let spec = memcpy(DRAM_MIB * 16, PAGE, Alloc::Mmap, Advice::None, false, 1);
    let (r, _) = run("linux-3.6", &[], &spec);
    let windows = (r.counter("host.mmap_readahead_bytes") / PAGE) as f64 / 31.0;
    assert!((101.0..=115.0).contains(&windows), "{windows} read-around windows");
    let majors = r.counter("host.major_faults");
    assert!(majors > ((DRAM_MIB * 16) << 20) / PAGE * 9 / 10, "{majors}: almost every fault is major");
}

/// `MADV_SEQUENTIAL` reads `ra_pages` forward from each miss (`page_cache_sync_ra` with a
/// request of `ra_pages`). 3.x marks the whole window asynchronous, which puts its marker
/// on the faulting page itself: nothing touches it again, so every window is a major
/// fault. Later kernels mark half, and the marker starts async readahead that streams.
#[test]
fn madv_sequential_reads_windows_forward() {
    let mib = DRAM_MIB * 5 / 4;
    let pages = (mib << 20) / PAGE;
    let spec = memcpy(mib, 1 << 20, Alloc::Mmap, Advice::Sequential, true, 1);
    let (old, _) = run("linux-3.6", &[], &spec);
    assert_eq!(old.counter("host.mmap_read_bytes"), mib << 20, "each page read once");
    assert_eq!(old.counter("host.major_faults"), pages / 32, "one per 128 KiB window");
    let (new, _) = run("linux-3.6", &["vm.whole_window_async=false"], &spec);
    assert_eq!(new.counter("host.major_faults"), 1);
    assert!(new.seconds < old.seconds);
}

// ---- MADV_WILLNEED on swapped pages ----

/// 3.9+ `madvise_willneed` on anonymous memory reads swapped pages back before the sweep,
/// so the sweep finds some of them without a major fault; 3.6 ignores the advice. (How
/// many it reads, and when it reclaims for them: the VM's unit tests.)
#[test]
fn madv_willneed_prefetches_swapped_pages_from_3_9_on() {
    let mib = DRAM_MIB * 5 / 4;
    let sets = ["vm.page_cluster=0"];
    let majors = |host: &str, advice| {
        let (r, _) = run(host, &sets, &memcpy(mib, 1 << 20, Alloc::Malloc, advice, true, 1));
        r.counter("host.major_faults")
    };
    assert!(majors("linux-6.1", Advice::WillNeed) < majors("linux-6.1", Advice::None));
    assert_eq!(majors("linux-3.6", Advice::WillNeed), majors("linux-3.6", Advice::None), "3.6 has no swap WILLNEED");
}

// ---- kswapd and direct reclaim ----

/// kswapd wakes at the low watermark and reclaims on its own core until the high one; a
/// thread that finds free memory at min reclaims a batch itself (`__alloc_pages_slowpath`).
/// On 64 MiB the low-min gap is min/4 = 64 pages, and mmap read-around allocates 32-page
/// windows at once: one sweeping thread reaches min. `watermark_scale_factor` 1000 widens
/// the gap to 10 % of memory: kswapd stays ahead of the same thread, each wake reclaiming
/// at least high - low pages. Eight threads swapping anonymous pages out outrun the one
/// kswapd even then (each page costs an unmap and a swap-slot allocation).
#[test]
fn kswapd_reclaims_ahead_of_one_thread_and_eight_threads_reclaim_directly() {
    let mib = DRAM_MIB * 2;
    let sweep = |wsf: u32, alloc, threads| {
        let set = format!("vm.watermark_scale_factor={wsf}");
        let (r, _) = run("linux-6.1", &[&set], &memcpy(mib, 1 << 20, alloc, Advice::None, true, threads));
        let (_, (min, low, high)) = Host::new(drive(), host_config("linux-6.1", &[&set])).vm_frames();
        (r, (min, low, high))
    };
    let (narrow, (min, low, _)) = sweep(10, Alloc::Mmap, 1);
    assert_eq!(low - min, min / 4);
    assert!(narrow.counter("host.direct_reclaims") > 0, "32-page windows cross a {}-page gap", low - min);

    let (wide, (min, low, high)) = sweep(1000, Alloc::Mmap, 1);
    assert!(low - min >= DRAM_MIB * 256 / 10, "10 % of memory");
    assert_eq!(wide.counter("host.direct_reclaims"), 0, "kswapd keeps one thread above min");
    let reclaimed = wide.counter("host.reclaimed_pages");
    assert!(reclaimed >= (mib - DRAM_MIB) * 256, "{reclaimed} pages reclaimed");
    let wakeups = wide.counter("host.kswapd_wakeups");
    assert!(wakeups >= 1 && wakeups <= reclaimed / (high - low) + 1, "{wakeups} wakeups for {reclaimed} pages");

    let (eight, _) = sweep(1000, Alloc::Malloc, 8);
    assert!(eight.counter("host.direct_reclaims") > 0, "eight swapping threads outrun kswapd");
}

// ---- the swap locks ----

/// 3.6's global `swap_lock` serializes eight faulting threads: with a critical section
/// long enough to dominate, eight threads sweep no faster than the lock allows, while
/// per-area locks over two swap devices of equal priority (the fine-grained path) let
/// twice as many sections run at once.
#[test]
fn concurrent_faults_serialize_on_the_global_swap_lock_and_not_on_the_fine_grained_path() {
    let slow_lock = ["vm.swap_lock_hold_ns=20000", "vm.swap_cache_hold_ns=20000", "vm.page_cluster=0"];
    let mut spec = memcpy(DRAM_MIB * 2, 1 << 20, Alloc::Malloc, Advice::None, true, 8);
    let capacity = drive().geometry_bytes();
    spec.swap_areas = vec![(0, capacity), (capacity, capacity)];
    let run_on = |host: &str| {
        let mut h = Host::new(Md::new(vec![drive(), drive()], MdLayout::Linear), host_config(host, &slow_lock));
        let r = run_memory(&mut h, &spec, &mut |_| true).unwrap();
        h.vm_check();
        r
    };
    let global = run_on("linux-3.6");
    let split = run_on("linux-3.6-fastswap");
    // The global locks are held nearly all the time; every thread spins for them.
    let busy = global.counter("host.swap_lock_held_ns") as f64 / 2.0 / (global.seconds * 1e9);
    assert!(busy > 0.8, "the global locks are busy {busy:.2} of the run");
    // Two areas' locks share the waiting (get_swap_page still takes the list lock).
    assert!(global.counter("host.swap_lock_spin_ns") > 2 * split.counter("host.swap_lock_spin_ns"));
    let speedup = global.seconds / split.seconds;
    assert!(speedup > 1.6, "per-device locks over two devices: {speedup:.2}x");
}

trait Capacity {
    fn geometry_bytes(&self) -> u64;
}

impl Capacity for Ssd {
    fn geometry_bytes(&self) -> u64 {
        use ssdtwin_core::block::BlockDevice;
        self.geometry().capacity_bytes()
    }
}

// ---- fio's mmap engine ----

fn fio_on(host: &str, args: &str) -> ssdtwin_core::workload::RunResult {
    let set =
        ssdtwin_core::workload::fio::parse_command_line(&args.split_whitespace().map(String::from).collect::<Vec<_>>())
            .unwrap();
    let opts = ssdtwin_core::workload::RunOptions { log_dir: std::env::temp_dir(), ..Default::default() };
    let mut h = Host::new(drive(), host_config(host, &[]));
    let r = ssdtwin_core::workload::run(&mut h, &set, &opts, &mut |_| true).unwrap();
    h.vm_check();
    r
}

fn group_delta(r: &ssdtwin_core::workload::RunResult, name: &str) -> u64 {
    let g = &r.groups[0];
    g.counters_end.get(name).unwrap() - g.counters_start.get(name).unwrap_or(0)
}

/// fio's `fio_mmapio_queue` with `direct=1`: after each write's `memcpy`, `msync(MS_SYNC)`
/// of its range writes its dirty pages and flushes the device, then `MADV_DONTNEED`.
#[test]
fn the_mmap_engine_with_direct_syncs_every_write() {
    let r = fio_on("linux-3.6", "--name=w --filename=f --size=8m --bs=64k --rw=write --ioengine=mmap --direct=1");
    let writes = r.jobs[0].dirs[1].total_ios;
    assert_eq!(writes, 128);
    assert_eq!(group_delta(&r, "host_flush_cmds"), writes, "one flush per msync");
    assert_eq!(group_delta(&r, "host.mmap_writeback_bytes"), 8 << 20, "every page written back once");
}

/// Without `direct`, reads copy from the mapping: the file is read once, by read-around
/// and the readahead it starts (fio's `fadvise_hint=1` gives `MADV_SEQUENTIAL`).
#[test]
fn the_mmap_engine_reads_through_the_page_cache() {
    let r = fio_on("linux-3.6", "--name=r --filename=f --size=16m --bs=1m --rw=read --ioengine=mmap --direct=0");
    assert_eq!(r.jobs[0].dirs[0].io_bytes, 16 << 20);
    assert_eq!(group_delta(&r, "host.mmap_read_bytes"), 16 << 20);
    assert_eq!(group_delta(&r, "host_flush_cmds"), 0);
}

// ---- dirty pages ----

/// STREAM writes one array per kernel. Over a file mapping larger than memory, every
/// written page that leaves memory is written back first (reclaim leaves dirty file pages
/// to the flusher, `wakeup_flusher_threads`); over anonymous memory it goes to swap.
#[test]
fn written_pages_leave_memory_only_after_their_write_back() {
    // Three arrays of 8 MiB pages' worth each: 1.5 times DRAM in all.
    let elements = (DRAM_MIB << 20) / 2 / 8;
    let bench = Bench::Stream { elements, ntimes: 1 };
    let footprint = bench.footprint_bytes(PAGE);
    let spec = |alloc| MemorySpec {
        bench,
        alloc,
        advice: Advice::None,
        sequential: true,
        threads: 1,
        seed: 1,
        swap_areas: vec![(SWAP_AT, 16 << 30)],
        file_offset_bytes: 0,
    };
    let (file, frames) = run("linux-3.6", &[], &spec(Alloc::Mmap));
    // Each kernel writes a whole array (a third of the footprint): four arrays in all.
    let written = 4 * footprint / 3;
    let memory = frames * PAGE;
    let out = file.counter("host.mmap_writeback_bytes");
    assert!(out + memory >= written, "{out} bytes written back, {written} dirtied, {memory} of memory");
    assert_eq!(file.counter("host.swap_out_bytes"), 0);
    let (anon, _) = run("linux-3.6", &[], &spec(Alloc::Malloc));
    assert!(anon.counter("host.swap_out_bytes") + memory >= written);
    assert_eq!(anon.counter("host.mmap_writeback_bytes"), 0);
}
