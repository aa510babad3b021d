//! How preconditioning and reads scale with capacity (run by `bench/scale.py`): one phase
//! on one drive size per process, so each figure has the process's memory to itself.
//! Prints one JSON object.
//!
//! ```text
//! cargo run --release --example scale -- PHASE CAPACITY_GIB [SECONDS]
//! ```
//!
//! The drive is the shipped `generic-tlc-1tb` (8 channels, 32 dies, TLC, map in DRAM) with
//! 15 blocks per plane for every 16 GiB of namespace, as `examples/speed.rs` cuts it for
//! 256 GiB (5.5 % spare). Phases:
//!
//! * `fill-seq`: a bulk sequential fill of the whole namespace (`fill_s`, `fill_s_per_tib`);
//! * `fill-steady`: a steady-state fill, the whole namespace written then overwritten at
//!   random twice over with GC (`fill_s`, `fill_s_per_tib`, and the fill's write
//!   amplification);
//! * `read`: the sequential fill, then 4 KiB random reads at QD128 for SECONDS of
//!   simulated time (default 4): `randread_ios_per_s`;
//! * `read-steady`: the same reads after the steady-state fill, whose map is written out
//!   in full (a sequential fill's is held in sequential chunks).
//!
//! With `NORANDOMMAP` set in the environment the reads run with fio's `norandommap`: what
//! the read path costs without the random map's memory and claims.
//!
//! Every phase reports the peak resident memory (`peak_rss_bytes`, `bytes_per_4k` over the
//! namespace's 4 KiB units).

use ssdtwin_core::config::{apply_overrides, build, load_profile};
use ssdtwin_core::os::{Host, bare_host};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{BlockSize, JobSet, JobSpec, RunOptions, RwPattern, run};
use std::time::Instant;

fn device(capacity_gib: u64) -> Ssd {
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    let blocks = (capacity_gib * 15).div_ceil(16);
    let o = [format!("nand.blocks_per_plane={blocks}"), format!("identity.capacity_bytes={}", capacity_gib << 30)];
    apply_overrides(&mut p, &o).unwrap();
    Ssd::new(build(&p).unwrap())
}

/// Peak resident set size of this process, bytes (Linux `VmHWM`).
fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

fn randread(seconds: u64) -> JobSet {
    let mut j = JobSpec::new("randread");
    j.rw = RwPattern::RandRead;
    j.bs = [BlockSize::Fixed(4096), BlockSize::Fixed(4096), BlockSize::Fixed(4096)];
    j.ioengine = "libaio".into();
    j.iodepth = 128;
    j.norandommap = std::env::var("NORANDOMMAP").is_ok();
    j.time_based = true;
    j.runtime_ns = Some(seconds * 1_000_000_000);
    JobSet { global_options: vec![], jobs: vec![j] }
}

// A benchmark's whole output is the JSON line it prints.
#[allow(clippy::print_stdout)]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: scale fill-seq|fill-steady|read|read-steady CAPACITY_GIB [SECONDS]";
    let phase = args.get(1).expect(usage).clone();
    let capacity_gib: u64 = args.get(2).and_then(|s| s.parse().ok()).expect(usage);
    let seconds: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4);
    let tib = capacity_gib as f64 / 1024.0;
    let mut out = serde_json::Map::new();
    out.insert("phase".into(), phase.clone().into());
    out.insert("capacity_gib".into(), capacity_gib.into());
    let t = Instant::now();
    let mut dev = device(capacity_gib);
    out.insert("build_s".into(), t.elapsed().as_secs_f64().into());
    let fill = match phase.as_str() {
        "fill-seq" | "read" => FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 },
        "fill-steady" | "read-steady" => {
            FillPattern::Random { percent: 100.0, sequential_passes: 1, overwrite_passes: 2.0, seed: 1, exact: false }
        }
        _ => panic!("{usage}"),
    };
    let t = Instant::now();
    dev.fill(fill).unwrap();
    let fill_s = t.elapsed().as_secs_f64();
    out.insert("fill_s".into(), fill_s.into());
    out.insert("fill_s_per_tib".into(), (fill_s / tib).into());
    let c = dev.counters();
    out.insert("fill_write_amplification".into(), (c.nand_write_bytes as f64 / c.host_write_bytes as f64).into());
    if phase.starts_with("read") {
        let t = Instant::now();
        let r = run(&mut Host::new(&mut dev, bare_host()), &randread(seconds), &RunOptions::default(), &mut |_| true)
            .unwrap();
        let wall = t.elapsed().as_secs_f64();
        let ios: u64 = r.jobs.iter().flat_map(|j| j.dirs.iter()).map(|d| d.total_ios).sum();
        out.insert("randread_ios".into(), ios.into());
        out.insert("randread_wall_s".into(), wall.into());
        out.insert("randread_ios_per_s".into(), (ios as f64 / wall).round().into());
    }
    let rss = peak_rss_bytes();
    out.insert("peak_rss_bytes".into(), rss.into());
    out.insert("bytes_per_4k".into(), ((rss as f64 / (capacity_gib << 18) as f64 * 100.0).round() / 100.0).into());
    println!("{}", serde_json::Value::Object(out));
}
