//! Shared helpers: small devices and jobs built in code.

#![allow(dead_code)]

use ssdtwin_core::block::{BlockDevice, CounterRow};
use ssdtwin_core::config::{DeviceConfig, apply_overrides, build, ideal_overrides, load_profile};
use ssdtwin_core::os::{Host, bare_host};
use ssdtwin_core::ssd::Ssd;
use ssdtwin_core::workload::{BlockSize, JobSet, JobSpec, RunOptions, RunResult, RwPattern, SizeSpec, run};

/// The generic profile shrunk so GC runs after a few thousand writes: 2 channels x 2 dies x
/// 2 planes, 16 KiB pages, 12 pages per TLC block (superblocks of 1.5 MiB), `blocks`
/// superblocks, `op_pct` over-provisioning (unless `extra` sets `identity.capacity_bytes`),
/// 1 MiB write buffer, no latency variability (`config::ideal_overrides`), plus `extra`
/// overrides.
pub fn small_config(blocks: u32, op_pct: f64, extra: &[&str]) -> DeviceConfig {
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    p.table["identity"].as_table_mut().unwrap().remove("capacity_bytes");
    p.table["namespace"].as_table_mut().unwrap().remove("lba_formats");
    let capacity_given = extra.iter().any(|e| e.starts_with("identity.capacity_bytes"));
    let mut o: Vec<String> = vec![
        "nand.channels=2".into(),
        "nand.dies_per_channel=2".into(),
        "nand.planes=2".into(),
        format!("nand.blocks_per_plane={blocks}"),
        "nand.pages_per_block=12".into(),
        "controller.write_buffer_mib=1".into(),
        "ftl.gc_bg_threshold_sb=4".into(),
        "ftl.gc_fg_threshold_sb=2".into(),
        "identity.mdts=0".into(),
    ];
    if !capacity_given {
        o.push(format!("ftl.overprovisioning_pct={op_pct}"));
    }
    o.extend(ideal_overrides(&p));
    o.extend(extra.iter().map(ToString::to_string));
    apply_overrides(&mut p, &o).unwrap();
    build(&p).unwrap()
}

/// The shipped generic drive, ideal.
pub fn generic_ideal() -> DeviceConfig {
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    let ideal = ideal_overrides(&p);
    apply_overrides(&mut p, &ideal).unwrap();
    build(&p).unwrap()
}

/// A job with the given pattern, block size and depth.
pub fn job(name: &str, rw: RwPattern, bs: u64, iodepth: u32) -> JobSpec {
    let mut j = JobSpec::new(name);
    j.rw = rw;
    j.bs = [BlockSize::Fixed(bs), BlockSize::Fixed(bs), BlockSize::Fixed(bs)];
    j.iodepth = iodepth;
    j.ioengine = "libaio".into();
    j
}

/// Runs one job on `dev` over `size` bytes (None: whole namespace), time-based if
/// `runtime_ms` is given.
pub fn run_one(dev: &mut Ssd, mut j: JobSpec, size: Option<u64>, runtime_ms: Option<u64>) -> RunResult {
    j.size = size.map(SizeSpec::Bytes);
    if let Some(ms) = runtime_ms {
        j.runtime_ns = Some(ms * 1_000_000);
        j.time_based = true;
    }
    let set = JobSet { global_options: vec![], jobs: vec![j] };
    let opts = RunOptions { log_dir: std::env::temp_dir(), ..RunOptions::default() };
    run(&mut Host::new(dev, bare_host()), &set, &opts, &mut |_| true).unwrap()
}

/// Every counter of `dev` now, as a run reports them.
pub fn counter_row(dev: &Ssd) -> CounterRow {
    let mut row = CounterRow::at(dev.now().as_ns());
    BlockDevice::counters(dev, "", &mut row);
    row
}
