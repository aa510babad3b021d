//! End to end against fio 3.33: the reference job files and command lines are parsed, run
//! on a simulated drive, and rendered; the JSON must have exactly the keys, key order and
//! value types of the real fio outputs, with identical percentile keys, and the logs must
//! be named and laid out as fio's.

use super::json::testutil::{assert_same_shape, reference_json};
use super::{OutputOptions, WallClock, fio_json, parse_command_line, parse_job_file};
use crate::config::{build, load_profile};
use crate::os::{Host, bare_host};
use crate::ssd::{FillPattern, Ssd};
use crate::workload::{JobSet, RunOptions, RunResult, run};
use serde_json::Value;
use std::path::PathBuf;

const REFERENCE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/fio-3.33/");

fn simulate(set: &JobSet, log_dir: &std::path::Path) -> RunResult {
    let mut dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
    dev.fill(FillPattern::Sequential { percent: 1.0, command_bytes: 1 << 17 }).unwrap();
    let opts = RunOptions { log_dir: log_dir.to_path_buf(), ..RunOptions::default() };
    run(&mut Host::new(&mut dev, bare_host()), set, &opts, &mut |_| true).unwrap()
}

fn render(set: &JobSet, result: &RunResult, plus: bool) -> Value {
    let opts = OutputOptions {
        plus,
        wall: WallClock { unix_ms: 1_795_288_328_424, ctime: "Sat Nov 21 19:12:08 2026".into() },
        device_name: "nvme0n1".into(),
    };
    serde_json::from_str(&fio_json(set, result, &opts)).expect("our JSON parses")
}

fn percentile_keys(v: &Value, dir: &str) -> Vec<String> {
    v["jobs"][0][dir]["clat_ns"]["percentile"].as_object().unwrap().keys().cloned().collect()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssdtwin-compat-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn randrw_job_file_matches_fio_json_and_json_plus() {
    let set = parse_job_file(&PathBuf::from(REFERENCE_DIR).join("randrw-2jobs.fio")).unwrap();
    let logs = temp_dir("randrw");
    let result = simulate(&set, &logs);
    let ours = render(&set, &result, false);
    let theirs = reference_json("randrw-2jobs-group.json");
    assert_same_shape(&ours, &theirs, "");
    for dir in ["read", "write"] {
        assert_eq!(percentile_keys(&ours, dir), percentile_keys(&theirs, dir));
    }
    assert_eq!(ours["global options"], theirs["global options"]);
    assert_eq!(ours["jobs"][0]["job options"], theirs["jobs"][0]["job options"]);
    // A real simulation: the mix ran for 2 s after a 1 s ramp and both directions moved data.
    assert_eq!(ours["jobs"][0]["read"]["runtime"], 2000);
    let reads = ours["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    let writes = ours["jobs"][0]["write"]["total_ios"].as_u64().unwrap();
    let share = reads as f64 / (reads + writes) as f64;
    assert!((share - 0.7).abs() < 0.01, "rwmixread=70 gave {share}");
    // The json+ reference was made with `--group_reporting=0` before the job file (the
    // file's own [global] still turns it back on).
    let args = vec!["--group_reporting=0".to_string(), format!("{REFERENCE_DIR}randrw-2jobs.fio")];
    let plus_set = parse_command_line(&args).unwrap();
    let plus_dir = temp_dir("randrw-plus");
    let plus = render(&plus_set, &simulate(&plus_set, &plus_dir), true);
    assert_same_shape(&plus, &reference_json("randrw-2jobs-jsonplus.json"), "");
    std::fs::remove_dir_all(&plus_dir).unwrap();

    // Logs: one file per clone and kind, fio's names, 500 ms windows, 6 columns.
    for kind in ["lat_clat", "lat_slat", "lat_lat", "bw_bw", "iops_iops"] {
        for n in [1, 2] {
            let path = logs.join(format!("{kind}.{n}.log"));
            let ours = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let theirs = std::fs::read_to_string(format!("{REFERENCE_DIR}logs/{kind}.{n}.log")).unwrap();
            // fio stamps windows by wall clock (499, 999, 1500, ...) and flushes one extra
            // line at exit; compare the set of 500 ms windows each log covers.
            let windows = |t: &str| {
                let mut w: Vec<u64> =
                    t.lines().map(|l| (l.split(", ").next().unwrap().parse::<u64>().unwrap() + 250) / 500).collect();
                w.dedup();
                w
            };
            assert_eq!(windows(&ours), windows(&theirs), "{kind}.{n} windows");
            for line in ours.lines() {
                let cols: Vec<&str> = line.split(", ").collect();
                assert_eq!(cols.len(), 6, "{line}");
                assert!(cols.iter().all(|c| c.parse::<u64>().is_ok()), "{line}");
                assert!(cols[2] == "0" || cols[2] == "1", "ddir of {line}");
                assert_eq!(&cols[3..], &["0", "0", "0"], "{line}");
            }
        }
    }
    std::fs::remove_dir_all(&logs).unwrap();
}

#[test]
fn randread_command_line_matches_fio_json() {
    let args: Vec<String> =
        "--name=t --filename=fiotest --size=64m --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=3"
            .split(' ')
            .map(String::from)
            .collect();
    let set = parse_command_line(&args).unwrap();
    let dir = temp_dir("psync");
    let result = simulate(&set, &dir);
    let ours = render(&set, &result, false);
    let theirs = reference_json("randread-psync.json");
    assert_same_shape(&ours, &theirs, "");
    assert_eq!(percentile_keys(&ours, "read"), percentile_keys(&theirs, "read"));
    assert_eq!(ours["jobs"][0]["job options"], theirs["jobs"][0]["job options"]);
    // psync is synchronous: one I/O in flight, no submission latency, as fio reports it.
    assert_eq!(ours["jobs"][0]["iodepth_level"]["1"], 100.0);
    assert_eq!(ours["jobs"][0]["read"]["slat_ns"]["N"], 0);
    // 64 MiB in 4 KiB reads before 3 s at ~60 us each: the size ends the job.
    assert_eq!(ours["jobs"][0]["read"]["io_bytes"], 64 << 20);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn percentiles_from_real_fio_bins_are_real_fios_percentiles() {
    // fio 3.33's json+ gives each direction's histogram (`bins`: bucket value -> count) and
    // the percentiles it read from it: counted into our histogram, the same buckets must give
    // the same values, for every job and direction.
    let theirs = reference_json("randrw-2jobs-jsonplus.json");
    let mut checked = 0;
    for job in theirs["jobs"].as_array().unwrap() {
        for dir in ["read", "write"] {
            let clat = &job[dir]["clat_ns"];
            let mut hist = crate::stats::PlatHistogram::default();
            for (value, count) in clat["bins"].as_object().unwrap() {
                let value: u64 = value.parse().unwrap();
                for _ in 0..count.as_u64().unwrap() {
                    hist.record(value);
                }
            }
            assert_eq!(hist.total(), clat["N"].as_u64().unwrap(), "every I/O is in a bin");
            let listed = clat["percentile"].as_object().unwrap();
            let list: Vec<f64> = listed.keys().map(|k| k.parse().unwrap()).collect();
            let fios: Vec<u64> = listed.values().map(|v| v.as_u64().unwrap()).collect();
            assert_eq!(hist.percentiles(&list), fios, "{dir} of {}", job["jobname"]);
            checked += 1;
        }
    }
    assert!(checked >= 2);
}
