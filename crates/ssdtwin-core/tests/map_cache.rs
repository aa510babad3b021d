//! The map cache at work on a device: translation-page loads and what they cost in NAND
//! traffic.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::nand::{CellMode, UNIT_BYTES};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::RwPattern;

#[test]
fn a_translation_page_load_reads_one_map_unit_whatever_the_segment_size() {
    // 16 KiB segments (4096 entries each) and SRAM for one of them: random reads over the
    // namespace miss on most commands. Each load moves one 4 KiB unit over the channel.
    let cfg =
        small_config(64, 20.0, &["map_cache.location=sram", "map_cache.segment_bytes=16384", "map_cache.sram_kib=16"]);
    let mut dev = Ssd::new(cfg);
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 4), Some(ns), Some(20));
    dev.quiesce();
    let c = dev.counters();
    assert!(c.map_loads > 10, "{c:?}");
    assert_eq!(c.nand_map_read_bytes, c.map_loads * UNIT_BYTES);
}

#[test]
fn a_write_merging_a_partial_unit_looks_up_its_old_location() {
    // 512 B LBAs, SRAM for one 4 KiB segment (1024 units), a filled namespace: a 512 B
    // write must find the old unit to merge it, so most random ones wait for a load, then
    // for the read of the unit. 4 KiB writes look nothing up.
    let overrides = [
        "map_cache.location=sram",
        "map_cache.sram_kib=4",
        "namespace.lba_formats=[{data_bytes=512}]",
        "controller.write_buffer_mib=1",
    ];
    let mut latency_us = Vec::new();
    for bs in [4096, 512] {
        let mut dev = Ssd::new(small_config(64, 20.0, &overrides));
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        let ns = dev.config().namespace.capacity_bytes;
        let r = run_one(&mut dev, job("w", RwPattern::RandWrite, bs, 1), Some(ns), Some(20));
        dev.quiesce();
        let c = dev.counters();
        let writes = r.jobs[0].dirs[1].total_ios;
        if bs == 4096 {
            assert_eq!((c.map_lookups, c.map_loads), (0, 0));
        } else {
            // One lookup per write (and one for the write in flight when the run ended).
            assert!((writes..=writes + 1).contains(&c.map_lookups), "{} lookups, {writes} writes", c.map_lookups);
            assert!(c.map_misses > writes * 9 / 10, "{c:?}");
            assert_eq!(c.map_loads, c.map_misses);
            assert_eq!(c.nand_map_read_bytes, c.map_loads * UNIT_BYTES);
        }
        latency_us.push(r.jobs[0].dirs[1].latency.clat.mean() / 1e3);
    }
    // A partial write that missed waits for a translation-page read, then for the read of
    // the old unit: at least both array times longer than a whole-unit write.
    let cfg = small_config(64, 20.0, &overrides);
    let t_read_us = |mode: CellMode| cfg.nand.cell[mode.index()].t_read.0 as f64 / 1e3;
    let arrays_us = t_read_us(cfg.map_cache.map_mode) + t_read_us(CellMode::Tlc);
    assert!(latency_us[1] > latency_us[0] + arrays_us, "{latency_us:?}, arrays {arrays_us} us");
}
