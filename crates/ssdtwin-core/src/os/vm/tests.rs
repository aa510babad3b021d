//! Unit tests of the VM's bookkeeping: the watermarks and the state a populated mapping
//! starts from. Mechanism tests with timing live in `tests/vm.rs`.

use super::*;
use crate::config::{build, load_profile};
use crate::os::load_host;
use crate::ssd::Ssd;

fn vm_config(host: &str, sets: &[&str]) -> VmConfig {
    load_host(host, &sets.iter().map(ToString::to_string).collect::<Vec<_>>()).unwrap().vm.unwrap()
}

// ---- watermarks ----

#[test]
fn watermarks_follow_setup_per_zone_wmarks() {
    // 3.x, 32 GiB: min_free_kbytes = sqrt(32 Mi KiB x 16) = 23170 KiB = 5792 pages; low and
    // high are a quarter and a half of min above it.
    let vm = VmState::new(vm_config("linux-3.6", &[]), 32 << 30, 8);
    assert_eq!((vm.wmark_min, vm.wmark_low, vm.wmark_high), (5792, 5792 + 1448, 5792 + 2896));
    // int_sqrt(10 x 32) = 17: inactive anon pages are kept above 1/18 of anon.
    assert_eq!(vm.inactive_anon_ratio, 17);
    // 4.6+ with watermark_scale_factor 10: the steps are 0.1 % of memory when larger.
    let modern = VmState::new(vm_config("linux-6.1", &[]), 64 << 30, 16);
    let step = (16u64 << 20) * 10 / 10_000;
    let min = ((64u64 << 20) * 16) as f64;
    let min = min.sqrt() as u64 / 4;
    assert_eq!((modern.wmark_min, modern.wmark_low, modern.wmark_high), (min, min + step, min + 2 * step));
}

// ---- a populated mapping ----

#[test]
fn populate_keeps_the_last_pages_and_gives_the_rest_slots_in_order() {
    let dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    let sets = ["cpu.dram_gib=0.0625", "page_cache.memory_gib=0.03", "vm.kernel_reserved_mib=0"];
    let mut host = Host::new(dev, load_host("linux-3.6", &sets.map(String::from)).unwrap());
    host.vm_swapon(1 << 30, 1 << 30);
    let (frames, (_, _, high)) = host.vm_frames();
    let pages = frames + 1000;
    let m = host.vm_map(pages, Backing::Anon);
    host.vm_populate(m);
    let vm = host.vm.as_ref().unwrap();
    let evicted = pages - (frames - high);
    // The first pages are out, in slot order from slot 1 (after the header).
    for p in 0..evicted {
        assert_eq!(vm.pages[p as usize], OUT | (p as u32 + 1), "page {p}");
    }
    // The rest are mapped, dirty (no slot yet), the oldest on the inactive list.
    let resident = frames - high;
    assert_eq!(host.vm_resident_pages(m), resident);
    assert_eq!(host.vm_free_frames(), high);
    let vm = host.vm.as_ref().unwrap();
    let inactive = vm.frames.len(frames::Lru::InactiveAnon);
    assert_eq!(inactive, resident / (1 + vm.inactive_anon_ratio));
    let oldest = vm.frames.owner[vm.frames.tail(frames::Lru::InactiveAnon) as usize];
    assert_eq!(u64::from(oldest), evicted, "the first resident page is the oldest");
    assert_eq!(vm.counters.swap_out_pages, evicted);
    host.vm_check();
}

// ---- MADV_WILLNEED on a file ----

/// `MADV_WILLNEED` over a mapped file twice the size of memory, populated (its first half
/// out): `force_page_cache_readahead` reads the range's first pages up to the era's cap.
#[test]
fn willneed_on_a_file_reads_the_range_up_to_the_eras_cap() {
    // Pages read: a number, or None for half the frames.
    let cases = [
        // Before 3.15, max_sane_readahead: half of free plus inactive file pages, which after
        // populate are all the frames (free down to the high watermark, the rest file pages).
        ("linux-3.6", None, None),
        // 3.15-4.9: MAX_READAHEAD, 2 MiB.
        ("linux-3.6", Some("vm.madvise_willneed_file_limit=\"2mib\""), Some(512)),
        // 4.10+: max(ra_pages, io_pages): 128 KiB read_ahead_kb against 1280 KiB max_sectors_kb.
        ("linux-6.1", None, Some(320)),
    ];
    for (name, set, pages) in cases {
        let dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
        let mut sets = vec!["cpu.dram_gib=0.0625", "page_cache.memory_gib=0.03", "vm.kernel_reserved_mib=0"];
        sets.extend(set);
        let sets: Vec<String> = sets.iter().map(ToString::to_string).collect();
        let mut host = Host::new(dev, load_host(name, &sets).unwrap());
        let (frames, _) = host.vm_frames();
        let expected = pages.unwrap_or(frames / 2);
        let m = host.vm_map(frames * 2, Backing::File { offset_bytes: 0, sparse: false });
        host.vm_populate(m);
        let now = host.device().now();
        let ctx = VmCtx { core: CoreId(0), tag: 0, resumed: false };
        host.vm_madvise(now, now, ctx, m, 0, frames * 2, Madvise::WillNeed);
        let vm = host.vm.as_ref().unwrap();
        assert_eq!(vm.counters.file_read_pages, expected, "{name} {set:?}");
        assert_eq!(vm.counters.file_readahead_pages, expected, "{name} {set:?}: all of it ahead of a fault");
        // The pages read are the range's first (they were out).
        let first = vm.mappings[0].base as usize;
        assert!((0..expected as usize).all(|p| vm.pages[first + p] & TAG == CACHED), "{name} {set:?}");
    }
}

// ---- MADV_WILLNEED on swapped pages ----

/// A machine of 64 MiB on `host` with a mapping of memory plus 4096 pages, populated.
fn populated_anon(host: &str) -> (Host<Ssd>, MappingId, u64) {
    let dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    let sets = ["cpu.dram_gib=0.0625", "page_cache.memory_gib=0.03", "vm.kernel_reserved_mib=0"];
    let mut host = Host::new(dev, load_host(host, &sets.map(String::from)).unwrap());
    host.vm_swapon(1 << 30, 1 << 30);
    let (frames, _) = host.vm_frames();
    let pages = frames + 4096;
    let m = host.vm_map(pages, Backing::Anon);
    host.vm_populate(m);
    (host, m, pages)
}

fn willneed(host: &mut Host<Ssd>, m: MappingId, lo: u64, hi: u64) {
    let now = host.device().now();
    let ctx = VmCtx { core: CoreId(0), tag: 0, resumed: false };
    host.vm_madvise(now, now, ctx, m, lo, hi, Madvise::WillNeed);
}

/// 3.9+: every swapped page of the range is read into the swap cache, in address order,
/// adjacent slots in one request; what fits above the min watermark needs no reclaim, and
/// a range larger than that reclaims for the rest. 3.6 reads nothing.
#[test]
fn willneed_reads_swapped_pages_reclaiming_when_it_must() {
    let (mut host, m, _) = populated_anon("linux-6.1");
    let (_, (min, _, high)) = host.vm_frames();
    let room = high - min;
    // Populate left free memory at the high watermark; half the room above min.
    willneed(&mut host, m, 0, room / 2);
    let vm = host.vm.as_ref().unwrap();
    assert_eq!(vm.counters.swap_in_pages, room / 2);
    assert_eq!(vm.counters.direct_reclaims, 0);
    let cached = (0..room / 2).filter(|&p| vm.swap.cached(vm.pages[p as usize] & VALUE).is_some()).count();
    assert_eq!(cached as u64, room / 2, "in the swap cache, still swapped in the page table");
    // Slots 1.. in page order: one request per max_sectors_kb (1280 KiB, 320 pages).
    let requests = (room / 2).div_ceil(320);
    assert_eq!(vm.counters.read_requests, requests);

    // The whole range: 4096 + high pages were out; reclaim frees frames for them.
    let (mut host, m, pages) = populated_anon("linux-6.1");
    willneed(&mut host, m, 0, pages);
    let vm = host.vm.as_ref().unwrap();
    assert!(vm.counters.direct_reclaims > 0);
    assert!(vm.counters.swap_in_pages > room, "{} pages read", vm.counters.swap_in_pages);

    let (mut old, m, pages) = populated_anon("linux-3.6");
    willneed(&mut old, m, 0, pages);
    assert_eq!(old.vm.as_ref().unwrap().counters.swap_in_pages, 0);
}
