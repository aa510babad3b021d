//! The map cache at work on a device: translation-page loads and what they cost in NAND
//! traffic.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::device::{Device, FillPattern};
use ssdtwin_core::nand::UNIT_BYTES;
use ssdtwin_core::workload::RwPattern;

#[test]
fn a_translation_page_load_reads_one_map_unit_whatever_the_segment_size() {
    // 16 KiB segments (4096 entries each) and SRAM for one of them: random reads over the
    // namespace miss on most commands. Each load moves one 4 KiB unit over the channel.
    let cfg =
        small_config(64, 20.0, &["map_cache.location=sram", "map_cache.segment_bytes=16384", "map_cache.sram_kib=16"]);
    let mut dev = Device::new(cfg);
    dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
    let ns = dev.config().namespace.capacity_bytes;
    run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 4), Some(ns), Some(20));
    dev.quiesce();
    let c = dev.counters();
    assert!(c.map_loads > 10, "{c:?}");
    assert_eq!(c.nand_map_read_bytes, c.map_loads * UNIT_BYTES);
}
