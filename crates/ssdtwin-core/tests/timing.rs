//! Latencies of lone commands on the bare twin (no host), each the sum of the stages it
//! passes through, with every stage time read from the built `DeviceConfig` (for the shipped
//! generic profile: SQE fetch 0.7 us, firmware 1.5 us per read (2.0 per write) plus 0.15 us
//! per 4 KiB unit, TLC tR 50 us, channel 1600 MB/s plus 0.1 us per transfer, ECC 2 us,
//! PCIe 4.0 x4 with 256-byte payloads (7.15 GB/s), completion post 0.4 us). The host adds
//! nothing, so submission latency is 0 and clat is the drive's own latency.

use crate::common::{job, run_one, small_config};
use ssdtwin_core::config::DeviceConfig;
use ssdtwin_core::nand::UNIT_BYTES;
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::RwPattern;

fn generic() -> DeviceConfig {
    crate::common::generic_ideal()
}

fn filled_generic() -> Ssd {
    let mut dev = Ssd::new(generic());
    dev.fill(FillPattern::Sequential { percent: 2.0, command_bytes: 1 << 17 }).unwrap();
    dev
}

/// The stage times of a configuration in nanoseconds, as the model charges them.
struct Stages {
    /// SQE fetch after the doorbell.
    fetch_ns: f64,
    /// Firmware time per read command and per write command.
    read_cmd_ns: f64,
    write_cmd_ns: f64,
    /// Firmware time per 4 KiB map unit.
    unit_ns: f64,
    /// Native-mode tR and tPROG.
    t_read_ns: f64,
    t_prog_ns: f64,
    /// Command cycles per channel transfer, and the channel's rate.
    channel_cmd_ns: f64,
    channel_bytes_per_sec: f64,
    ecc_ns: f64,
    link_bytes_per_sec: f64,
    /// CQE write and interrupt.
    post_ns: f64,
    dies: f64,
    /// Bytes one program writes on a die: a page on every plane.
    program_unit_bytes: f64,
}

impl Stages {
    fn of(c: &DeviceConfig) -> Self {
        let ns = |d: ssdtwin_core::engine::SimDuration| d.as_ns() as f64;
        let native = &c.nand.cell[c.geometry.native.index()];
        Self {
            fetch_ns: ns(c.link.command_fetch),
            read_cmd_ns: ns(c.controller.read_cmd),
            write_cmd_ns: ns(c.controller.write_cmd),
            unit_ns: ns(c.controller.unit),
            t_read_ns: ns(native.t_read),
            t_prog_ns: ns(native.t_prog),
            channel_cmd_ns: ns(c.nand.channel_cmd),
            channel_bytes_per_sec: c.nand.channel_bytes_per_sec as f64,
            ecc_ns: ns(c.nand.ecc_decode),
            link_bytes_per_sec: c.link.bytes_per_sec as f64,
            post_ns: ns(c.link.completion_post),
            dies: f64::from(c.geometry.dies()),
            program_unit_bytes: f64::from(c.geometry.page_bytes * c.geometry.planes),
        }
    }

    fn link_ns(&self, bytes: f64) -> f64 {
        bytes / self.link_bytes_per_sec * 1e9
    }

    fn channel_ns(&self, bytes: f64) -> f64 {
        self.channel_cmd_ns + bytes / self.channel_bytes_per_sec * 1e9
    }

    /// A 4 KiB unit read from NAND: tR, the transfer out and the ECC decode.
    fn nand_unit_read_ns(&self) -> f64 {
        self.t_read_ns + self.channel_ns(UNIT_BYTES as f64) + self.ecc_ns
    }
}

#[test]
fn qd1_read_clat_is_the_sum_of_its_stages() {
    let mut dev = filled_generic();
    let r = run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 1), Some(1 << 30), Some(200));
    let d = &r.jobs[0].dirs[0];
    let s = Stages::of(&generic());
    let expected = s.fetch_ns + s.read_cmd_ns + s.unit_ns + s.nand_unit_read_ns() + s.link_ns(4096.0) + s.post_ns;
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
    let s = Stages::of(&generic());
    let expected = s.fetch_ns + s.write_cmd_ns + s.unit_ns + s.link_ns(4096.0) + s.post_ns;
    assert!((d.latency.clat.mean() - expected).abs() < 3.0, "clat {} expected {expected}", d.latency.clat.mean());
}

#[test]
fn reads_of_unwritten_lbas_never_touch_nand() {
    let mut dev = Ssd::new(generic());
    let r = run_one(&mut dev, job("r", RwPattern::RandRead, 4096, 1), Some(1 << 30), Some(20));
    let d = &r.jobs[0].dirs[0];
    let s = Stages::of(&generic());
    let expected = s.fetch_ns + s.read_cmd_ns + s.unit_ns + s.link_ns(4096.0) + s.post_ns;
    assert!((d.latency.clat.mean() - expected).abs() < 3.0);
    let c = dev.counters();
    assert_eq!(c.nand_host_read_bytes, 0);
    assert!(c.unmapped_units_read >= d.total_ios);
    assert_eq!(c.unmapped_read_bytes, c.host_read_bytes, "every byte read was never written");
}

#[test]
fn a_read_smaller_than_a_unit_counts_only_its_own_unwritten_bytes() {
    // A 512-byte read of an unwritten 4 KiB unit read 512 bytes of zeros, not 4096 (the
    // never-written share of an iolog replay of small reads came to 188 %).
    let mut dev = Ssd::new(generic());
    let r = run_one(&mut dev, job("r", RwPattern::RandRead, 512, 1), Some(1 << 30), Some(5));
    let c = dev.counters();
    assert!(r.jobs[0].dirs[0].total_ios > 10);
    assert_eq!(c.unmapped_read_bytes, c.host_read_bytes);
    assert_eq!(c.unmapped_units_read * 512, c.unmapped_read_bytes);
}

#[test]
fn sequential_reads_are_capped_by_the_link() {
    let mut dev = filled_generic();
    let r = run_one(&mut dev, job("s", RwPattern::Read, 1 << 17, 32), Some(8 << 30), Some(200));
    let d = &r.jobs[0].dirs[0];
    let mbps = d.io_bytes as f64 / (d.runtime_ns as f64 / 1e9);
    let link = Stages::of(&generic()).link_bytes_per_sec;
    assert!(mbps <= link * 1.001 && mbps > link * 0.97, "{mbps} vs link {link}");
}

/// Random 4 KiB writes at QD32 on the generic drive with `overrides`, bytes per second
/// once the write buffer is full (the drain rate).
fn random_write_rate(overrides: &[&str]) -> f64 {
    let mut p = ssdtwin_core::config::load_profile("generic-tlc-1tb").unwrap();
    let mut o = ssdtwin_core::config::ideal_overrides(&p);
    o.extend(overrides.iter().map(ToString::to_string));
    ssdtwin_core::config::apply_overrides(&mut p, &o).unwrap();
    let mut dev = Ssd::new(ssdtwin_core::config::build(&p).unwrap());
    dev.fill(FillPattern::Sequential { percent: 2.0, command_bytes: 1 << 17 }).unwrap();
    // The ramp fills the 32 MiB write buffer, so the measured rate is the drain rate.
    let mut j = job("w", RwPattern::RandWrite, 4096, 32);
    j.ramp_time_ns = 200_000_000;
    let r = run_one(&mut dev, j, Some(1 << 30), Some(300));
    let d = &r.jobs[0].dirs[1];
    d.io_bytes as f64 / (d.runtime_ns as f64 / 1e9)
}

#[test]
fn random_writes_are_capped_by_program_bandwidth() {
    // Every die programs a page on each plane per tPROG, after the channel transfer in
    // (generic: 32 dies x 2 planes x 16 KiB per 600 us, plus 20.6 us).
    let bps = random_write_rate(&[]);
    let s = Stages::of(&generic());
    let per_die = s.program_unit_bytes / ((s.t_prog_ns + s.channel_ns(s.program_unit_bytes)) / 1e9);
    let cap = s.dies * per_die;
    assert!(bps <= cap * 1.02 && bps > cap * 0.9, "{bps} vs {cap}");
    // Programs by page type (lower 300 us faster, upper 300 us slower than tPROG) keep the
    // mean tPROG, and with it the rate; without one-shot programming the rate would be the
    // slowest page type's.
    let spread = random_write_rate(&["nand.tlc.t_prog_spread_us=300"]);
    assert!((spread / bps - 1.0).abs() < 0.02, "{spread} vs {bps}");
    let slow = random_write_rate(&["nand.tlc.t_prog_us=900"]);
    assert!(spread > slow * 1.2, "{spread} vs every page at the upper page's time {slow}");
}

#[test]
fn a_partial_unit_write_first_reads_the_unit() {
    // 512 B LBAs (format 0), so a 512 B write covers an eighth of a 4 KiB map unit: the
    // controller reads the unit (tR, channel, ECC) before it takes the write into its buffer.
    // The fastest such write meets idle dies; others wait for a program to suspend.
    let mut dev = filled_generic();
    let r = run_one(&mut dev, job("w", RwPattern::RandWrite, 512, 1), Some(1 << 30), Some(20));
    let d = &r.jobs[0].dirs[1];
    let s = Stages::of(&generic());
    let expected = s.fetch_ns + s.write_cmd_ns + s.unit_ns + s.nand_unit_read_ns() + s.link_ns(512.0) + s.post_ns;
    assert!((d.latency.clat.min as f64 - expected).abs() < 3.0, "clat {:?} expected {expected}", d.latency.clat);
    let c = dev.counters();
    // The run ends with one command in flight; it was counted when it arrived.
    assert!((d.total_ios..=d.total_ios + 1).contains(&c.partial_units_written));
    assert_eq!(c.nand_rmw_read_bytes, c.partial_units_written * UNIT_BYTES);
}

#[test]
fn whole_unit_and_unmapped_writes_read_nothing() {
    let mut dev = filled_generic();
    run_one(&mut dev, job("w", RwPattern::RandWrite, 4096, 4), Some(1 << 30), Some(10));
    assert_eq!((dev.counters().partial_units_written, dev.counters().nand_rmw_read_bytes), (0, 0));
    // Past the filled 2 %, partial writes merge with zeros: counted, but no NAND read.
    let mut fresh = Ssd::new(generic());
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
    let config = small_config(64, 25.0, &[formats]);
    for lbaf in [0, 1] {
        let mut dev = Ssd::new(config.clone());
        dev.format(Some(lbaf)).unwrap();
        let r = run_one(&mut dev, job("w", RwPattern::RandWrite, 4096, 1), Some(1 << 20), Some(1));
        qd1.push(r.jobs[0].dirs[1].latency.clat.min as f64);
    }
    let s = Stages::of(&config);
    let extra = s.link_ns(4096.0 + 64.0) - s.link_ns(4096.0);
    assert!((qd1[1] - qd1[0] - extra).abs() < 2.0, "{qd1:?}, expected {extra} ns more");
}
