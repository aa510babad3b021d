//! Latencies of lone commands on the bare twin (no host), computed by hand from the shipped
//! generic profile: SQE fetch 0.7 us, firmware 1.5 us per read (2.0 per write) plus
//! 0.15 us per 4 KiB unit, TLC tR 50 us, channel 1600 MB/s plus 0.1 us per transfer, ECC
//! 2 us, PCIe 4.0 x4 with 256-byte payloads (7.15 GB/s), completion post 0.4 us. The host
//! adds nothing, so submission latency is 0 and clat is the drive's own latency.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::config::{build, load_profile};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::RwPattern;

fn filled_generic() -> Ssd {
    let mut dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    dev.fill(FillPattern::Sequential { percent: 2.0, command_bytes: 1 << 17 }).unwrap();
    dev
}

fn link_ns(bytes: f64) -> f64 {
    let link = 16e9 * 128.0 / 130.0 / 8.0 * 4.0 * 256.0 / 282.0;
    bytes / link * 1e9
}

#[test]
fn qd1_read_clat_is_the_sum_of_its_stages() {
    let mut dev = filled_generic();
    let r = run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 1), Some(1 << 30), Some(200));
    let d = &r.jobs[0].dirs[0];
    let channel = 100.0 + 4096.0 / 1600e6 * 1e9;
    let expected = 700.0 + 1500.0 + 150.0 + 50_000.0 + channel + 2000.0 + link_ns(4096.0) + 400.0;
    // Every stage is idle at QD1, so each read takes exactly the sum (to a nanosecond of rounding).
    assert!((d.latency.clat.mean() - expected).abs() < 3.0, "clat {} expected {expected}", d.latency.clat.mean());
    assert!(d.latency.clat.max - d.latency.clat.min <= 2);
    assert_eq!(d.latency.slat.max, 0);
}

#[test]
fn qd1_write_is_acknowledged_from_the_buffer() {
    let mut dev = filled_generic();
    let r = run_one(&mut dev, job("w", RwPattern::RandWrite, 4096, 1), Some(1 << 30), Some(50));
    let d = &r.jobs[0].dirs[1];
    let expected = 700.0 + 2000.0 + 150.0 + link_ns(4096.0) + 400.0;
    assert!((d.latency.clat.mean() - expected).abs() < 3.0, "clat {} expected {expected}", d.latency.clat.mean());
}

#[test]
fn reads_of_unwritten_lbas_never_touch_nand() {
    let mut dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    let r = run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 1), Some(1 << 30), Some(20));
    let d = &r.jobs[0].dirs[0];
    let expected = 700.0 + 1500.0 + 150.0 + link_ns(4096.0) + 400.0;
    assert!((d.latency.clat.mean() - expected).abs() < 3.0);
    let c = dev.counters();
    assert_eq!(c.nand_host_read_bytes, 0);
    assert!(c.unmapped_units_read >= d.total_ios);
}

#[test]
fn sequential_reads_are_capped_by_the_link() {
    let mut dev = filled_generic();
    let r = run_one(&mut dev, job("s", RwPattern::Read, 1 << 17, 32), Some(8 << 30), Some(200));
    let d = &r.jobs[0].dirs[0];
    let mbps = d.io_bytes as f64 / (d.runtime_ns as f64 / 1e9);
    let link = 1e18 / link_ns(1e9);
    assert!(mbps <= link * 1.001 && mbps > link * 0.97, "{mbps} vs link {link}");
}

#[test]
fn random_writes_are_capped_by_program_bandwidth() {
    // 32 dies x 2 planes x 16 KiB per 600 us tPROG (plus the 20.6 us channel transfer in).
    let mut dev = filled_generic();
    // The ramp fills the 32 MiB write buffer, so the measured rate is the drain rate.
    let mut j = job("w", RwPattern::RandWrite, 4096, 32);
    j.ramp_time_ns = 200_000_000;
    let r = run_one(&mut dev, j, Some(1 << 30), Some(300));
    let d = &r.jobs[0].dirs[1];
    let bps = d.io_bytes as f64 / (d.runtime_ns as f64 / 1e9);
    let per_die = 32768.0 / (600e-6 + 100e-9 + 32768.0 / 1600e6);
    let cap = 32.0 * per_die;
    assert!(bps <= cap * 1.02 && bps > cap * 0.9, "{bps} vs {cap}");
}

#[test]
fn a_partial_unit_write_first_reads_the_unit() {
    // 512 B LBAs (format 0), so a 512 B write covers an eighth of a 4 KiB map unit: the
    // controller reads the unit (tR, channel, ECC) before it takes the write into its buffer.
    // The fastest such write meets idle dies; others wait for a program to suspend.
    let mut dev = filled_generic();
    let r = run_one(&mut dev, job("w", RwPattern::RandWrite, 512, 1), Some(1 << 30), Some(20));
    let d = &r.jobs[0].dirs[1];
    let channel = 100.0 + 4096.0 / 1600e6 * 1e9;
    let expected = 700.0 + 2000.0 + 150.0 + 50_000.0 + channel + 2000.0 + link_ns(512.0) + 400.0;
    assert!((d.latency.clat.min as f64 - expected).abs() < 3.0, "clat {:?} expected {expected}", d.latency.clat);
    let c = dev.counters();
    // The run ends with one command in flight; it was counted when it arrived.
    assert!((d.total_ios..=d.total_ios + 1).contains(&c.partial_units_written));
    assert_eq!(c.nand_rmw_read_bytes, c.partial_units_written * 4096);
}

#[test]
fn whole_unit_and_unmapped_writes_read_nothing() {
    let mut dev = filled_generic();
    run_one(&mut dev, job("w", RwPattern::RandWrite, 4096, 4), Some(1 << 30), Some(10));
    assert_eq!((dev.counters().partial_units_written, dev.counters().nand_rmw_read_bytes), (0, 0));
    // Past the filled 2 %, partial writes merge with zeros: counted, but no NAND read.
    let mut fresh = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    let r = run_one(&mut fresh, job("w", RwPattern::Write, 512, 1), Some(1 << 20), None);
    let c = fresh.counters();
    // Sequential 512 B writes: each lands in a unit that the previous write left in the buffer
    // or that was never written.
    assert_eq!(c.partial_units_written, r.jobs[0].dirs[1].total_ios);
    assert_eq!(c.nand_rmw_read_bytes, 0);
}

#[test]
fn metadata_crosses_the_link_with_its_data() {
    // 512 B LBAs without and with 8 B of metadata. A 4 KiB write (8 LBAs) is acknowledged
    // once its data is in; with metadata, 64 bytes more cross the link.
    let formats = "namespace.lba_formats=[{data_bytes=512}, {data_bytes=512, metadata_bytes=8}]";
    let mut qd1 = Vec::new();
    for lbaf in [0, 1] {
        let mut dev = Ssd::new(small_config(64, 25.0, &[formats]));
        dev.format(Some(lbaf)).unwrap();
        let r = run_one(&mut dev, job("w", RwPattern::RandWrite, 4096, 1), Some(1 << 20), Some(1));
        qd1.push(r.jobs[0].dirs[1].latency.clat.min as f64);
    }
    let extra = link_ns(4096.0 + 64.0) - link_ns(4096.0);
    assert!((qd1[1] - qd1[0] - extra).abs() < 2.0, "{qd1:?}, expected {extra} ns more");
}
