//! Memory and speed of a ZFS pool holding a large file tree (run by `bench/zfs.py`): prints
//! one JSON object.
//!
//! A tree of FILES files (default 1,000,000; `lognormal:16K:2.0` sizes, 1000 to a directory)
//! is created on a shipped pool, then walked, read and scrubbed. Reported per pool:
//! `model_bytes_per_file` (what the model's tables hold: block pointers, the tree, dnode and
//! ZAP records, the ARC's index, the metaslabs' free segments), `rss_bytes_per_file` (growth
//! of this process's resident memory from the empty pool to the end, over the files: the
//! tables plus the allocator's slack and the drives' touched state), and the wall seconds of
//! each operation with the simulated seconds it covered.
//!
//! `cargo run --release --example zfs_bench [-- FILES [POOL…]]`; pools default to
//! `hdd-mirror` and `hdd-mirror-special`. The asserts fail the run if a 1,000,000-file tree
//! needs more than 200 bytes of tables per file.

use ssdtwin_core::os::load_host;
use ssdtwin_core::setup::pool_on_host;
use ssdtwin_core::zfs::{SizeDist, Tree, TreeOp, TreeSpec, build_pool, load_pool};
use std::time::Instant;

/// Resident memory of this process now, bytes (Linux `VmRSS`).
fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

// A benchmark's whole output is the JSON object it prints.
#[allow(clippy::print_stdout)]
fn main() {
    let mut args = std::env::args().skip(1);
    let files: u64 = args.next().map_or(1_000_000, |a| a.parse().expect("FILES is a number"));
    let mut pools: Vec<String> = args.collect();
    if pools.is_empty() {
        pools = vec!["hdd-mirror".into(), "hdd-mirror-special".into()];
    }
    let host = load_host("linux-6.1", &[]).unwrap();
    let mut out = Vec::new();
    for name in &pools {
        let before = rss_bytes();
        let mut pool = pool_on_host(build_pool(&load_pool(name).unwrap()).unwrap(), &host).unwrap();
        let t = Instant::now();
        let tree = Tree::generate(&TreeSpec::new(files, SizeDist::parse("lognormal:16K:2.0").unwrap())).unwrap();
        let tree_bytes = tree.memory_bytes();
        pool.add_tree("tank/data", tree).unwrap();
        let generate_s = t.elapsed().as_secs_f64();
        let mut ops = Vec::new();
        for op in [
            TreeOp::Create,
            TreeOp::Find,
            TreeOp::Stat,
            TreeOp::ReadSmall { max_bytes: 64 << 10 },
            TreeOp::ReadSeq { min_bytes: 1 << 20, max_total_bytes: 1 << 30 },
            TreeOp::ReadRandom { count: 1000, io_bytes: 4096, min_bytes: 1 << 20, seed: 1 },
            TreeOp::Scrub,
        ] {
            if op != TreeOp::Create {
                pool.drop_caches();
            }
            let t = Instant::now();
            let r = pool.run_op("tank/data", op, &mut |_, _| true).unwrap();
            ops.push(format!(
                "\"{}\": {{\"wall_s\": {:.3}, \"simulated_s\": {:.3}, \"ops\": {}}}",
                r.op,
                t.elapsed().as_secs_f64(),
                r.seconds,
                r.ops
            ));
        }
        let model = pool.memory_bytes() as f64 / files as f64;
        let rss = rss_bytes().saturating_sub(before) as f64 / files as f64;
        if files >= 1_000_000 {
            assert!(model <= 200.0, "{name}: {model} bytes of tables per file");
        }
        out.push(format!(
            "\"{name}\": {{\"files\": {files}, \"model_bytes_per_file\": {model:.1}, \"tree_bytes_per_file\": {:.1}, \
             \"rss_bytes_per_file\": {rss:.1}, \"generate_s\": {generate_s:.3}, {}}}",
            tree_bytes as f64 / files as f64,
            ops.join(", ")
        ));
        drop(pool);
    }
    println!("{{{}}}", out.join(", "));
}
