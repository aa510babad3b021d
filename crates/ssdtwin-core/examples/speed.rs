//! Speed and memory benchmark (run by `bench/speed.py`): prints one JSON object.
//!
//! * `randread_ios_per_s`: simulated 4 KiB random reads per wall-clock second, 128 in
//!   flight, over a sequentially filled 256 GiB DRAM-mapped TLC device;
//! * `randwrite_gc_ios_per_s`: the same for 4 KiB random writes on a device filled to 90 %
//!   and brought to GC steady state;
//! * `randread_host_ios_per_s`: the same reads through the `linux-6.1` host stack (16 jobs
//!   of 8, one per core, so the drive and not the CPU stays the limit): what a host's CPU
//!   cores, interrupts and fio's engine loop cost the simulation;
//! * `randread_spread_ios_per_s`: those 16 jobs of 8 on the bare twin (`none`), the same
//!   workload without the host stack, so that `host_stack_speed_share` (the host figure over
//!   this one) is what the host stack alone costs;
//! * `bytes_per_4k`: peak resident memory over the simulated capacity in 4 KiB units.
//!
//! `cargo run --release --example speed [-- SECONDS]` (simulated seconds per phase,
//! default 4). `SPEED_PHASE=read` runs the read phases (the bare job of 128, then the 16
//! jobs of 8 bare and through the host), `write` the write phase; `host` and `spread` run
//! one of the 16-job phases only, for profiling.

use ssdtwin_core::config::{apply_overrides, build, ideal_overrides, load_profile};
use ssdtwin_core::os::{Host, HostConfig, bare_host, load_host};
use ssdtwin_core::ssd::{FillPattern, Ssd};
use ssdtwin_core::workload::{BlockSize, JobSet, JobSpec, RunOptions, RwPattern, SizeSpec, run};
use std::time::Instant;

const CAPACITY_BYTES: u64 = 256 << 30;

fn device() -> Ssd {
    let mut p = load_profile("generic-tlc-1tb").unwrap();
    // The generic drive cut to 240 blocks per plane: 270 GiB raw for a 256 GiB namespace.
    let mut o = vec!["nand.blocks_per_plane=240".to_string(), format!("identity.capacity_bytes={CAPACITY_BYTES}")];
    // SPEED_VARIABILITY=off: the ideal drive, to measure what latency variability costs.
    if std::env::var("SPEED_VARIABILITY").is_ok_and(|v| v == "off") {
        o.extend(ideal_overrides(&p));
    }
    // SPEED_SET=a.b=1,c.d=2: more overrides, e.g. one source of variability off.
    if let Ok(set) = std::env::var("SPEED_SET") {
        o.extend(set.split(',').filter(|s| !s.is_empty()).map(String::from));
    }
    apply_overrides(&mut p, &o).unwrap();
    Ssd::new(build(&p).unwrap())
}

fn job(rw: RwPattern, seconds: u64, size: Option<u64>) -> JobSet {
    let mut j = JobSpec::new("speed");
    j.rw = rw;
    j.bs = [BlockSize::Fixed(4096), BlockSize::Fixed(4096), BlockSize::Fixed(4096)];
    j.ioengine = "libaio".into();
    j.iodepth = 128;
    j.time_based = true;
    j.runtime_ns = Some(seconds * 1_000_000_000);
    j.size = size.map(SizeSpec::Bytes);
    JobSet { global_options: vec![], jobs: vec![j] }
}

/// Runs `set` on `host` and returns (simulated I/Os, wall seconds).
fn timed_on(dev: &mut Ssd, host: HostConfig, set: &JobSet) -> (u64, f64) {
    let t = Instant::now();
    let r = run(&mut Host::new(dev, host), set, &RunOptions::default(), &mut |_| true).unwrap();
    let wall = t.elapsed().as_secs_f64();
    (r.jobs.iter().flat_map(|j| j.dirs.iter()).map(|d| d.total_ios).sum(), wall)
}

/// Runs `set` on the bare twin.
fn timed(dev: &mut Ssd, set: &JobSet) -> (u64, f64) {
    timed_on(dev, bare_host(), set)
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

// A benchmark's whole output is the JSON line it prints.
#[allow(clippy::print_stdout)]
fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(4);
    let phase = std::env::var("SPEED_PHASE").unwrap_or_default();
    let mut out = serde_json::Map::new();

    if phase.is_empty() || phase == "read" || phase == "host" || phase == "spread" {
        let mut dev = device();
        let t = Instant::now();
        dev.fill(FillPattern::Sequential { percent: 100.0, command_bytes: 1 << 17 }).unwrap();
        out.insert("sequential_fill_s".into(), t.elapsed().as_secs_f64().into());
        if phase.is_empty() || phase == "read" {
            let (reads, wall) = timed(&mut dev, &job(RwPattern::RandRead, seconds, None));
            out.insert("randread_ios_per_s".into(), (reads as f64 / wall).round().into());
            out.insert("randread_ios".into(), reads.into());
            out.insert("randread_wall_s".into(), wall.into());
        }
        let mut spread = job(RwPattern::RandRead, seconds, None);
        spread.jobs[0].numjobs = 16;
        spread.jobs[0].iodepth = 8;
        // Sixteen random maps of the whole drive would dominate the memory figure.
        spread.jobs[0].norandommap = true;
        let mut rates = [None, None];
        if phase != "host" {
            let (reads, wall) = timed(&mut dev, &spread);
            rates[0] = Some(reads as f64 / wall);
            out.insert("randread_spread_ios_per_s".into(), (reads as f64 / wall).round().into());
            out.insert("randread_spread_ios".into(), reads.into());
        }
        if phase != "spread" {
            let linux = load_host("linux-6.1", &[]).unwrap();
            let (reads, wall) = timed_on(&mut dev, linux, &spread);
            rates[1] = Some(reads as f64 / wall);
            out.insert("randread_host_ios_per_s".into(), (reads as f64 / wall).round().into());
            out.insert("randread_host_ios".into(), reads.into());
        }
        if let [Some(bare), Some(host)] = rates {
            out.insert("host_stack_speed_share".into(), ((host / bare * 1000.0).round() / 1000.0).into());
        }
    }
    if phase.is_empty() || phase == "write" {
        let mut dev = device();
        let t = Instant::now();
        dev.fill(FillPattern::Random {
            percent: 90.0,
            sequential_passes: 1,
            overwrite_passes: 1.0,
            seed: 1,
            exact: true,
        })
        .unwrap();
        out.insert("random_precondition_s".into(), t.elapsed().as_secs_f64().into());
        let region = CAPACITY_BYTES / 10 * 9 / 4096 * 4096;
        let before = dev.counters();
        let (writes, wall) = timed(&mut dev, &job(RwPattern::RandWrite, seconds, Some(region)));
        let after = dev.counters();
        out.insert("randwrite_gc_ios_per_s".into(), (writes as f64 / wall).round().into());
        out.insert("randwrite_ios".into(), writes.into());
        out.insert("randwrite_wall_s".into(), wall.into());
        out.insert("randwrite_gc_jobs".into(), (after.gc_jobs - before.gc_jobs).into());
        let nand = after.nand_write_bytes - before.nand_write_bytes;
        let host = after.host_write_bytes - before.host_write_bytes;
        out.insert("randwrite_write_amplification".into(), (nand as f64 / host.max(1) as f64).into());
    }
    let rss = peak_rss_bytes();
    out.insert("bytes_per_4k".into(), ((rss as f64 / (CAPACITY_BYTES / 4096) as f64 * 100.0).round() / 100.0).into());
    out.insert("peak_rss_bytes".into(), rss.into());
    out.insert("capacity_bytes".into(), CAPACITY_BYTES.into());
    out.insert("simulated_seconds_per_phase".into(), seconds.into());
    let out = serde_json::Value::Object(out);
    println!("{out}");
}
