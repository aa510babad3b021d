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
