//! Hand-built runs for the writers' tests, fio 3.33's reference outputs, and a comparison of
//! JSON shapes (keys, order and value types).

use super::{OutputOptions, WallClock};
use crate::block::CounterRow;
use crate::ssd::CounterSnapshot;
use crate::stats::DirLatency;
use crate::workload::{DirResult, DiskUtil, GroupResult, JobResult, JobSet, JobSpec, RunResult, RwPattern};
use serde_json::Value;

/// `tests/data/fio-3.33/` (recorded outputs of real fio 3.33).
const REFERENCE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/fio-3.33/");

/// A reference file's text.
pub(crate) fn reference_text(name: &str) -> String {
    let path = format!("{REFERENCE_DIR}{name}");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reference output {path}: {e}"))
}

/// A reference JSON file, parsed.
pub(crate) fn reference_json(name: &str) -> Value {
    serde_json::from_str(&reference_text(name)).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"))
}

/// `n` latencies spread between `lo` and `hi` ns, deterministic (a multiplicative hash of
/// the index picks a point; the first and last are `lo` and `hi`).
pub(crate) fn spread(n: usize, lo: u64, hi: u64) -> Vec<u64> {
    (0..n)
        .map(|i| match i {
            0 => lo,
            _ if i == n - 1 => hi,
            _ => lo + (i as u64).wrapping_mul(2_654_435_761) % (hi - lo),
        })
        .collect()
}

/// A direction whose I/Os had these (slat, clat) latencies, each `bs` bytes.
pub(crate) fn dir(lat: &[(u64, u64)], bs: u64, runtime_ns: u64, bw: &[f64], iops: &[f64]) -> DirResult {
    let mut latency = DirLatency::default();
    for &(slat, clat) in lat {
        latency.record(slat, clat);
    }
    DirResult {
        io_bytes: lat.len() as u64 * bs,
        total_ios: lat.len() as u64,
        runtime_ns,
        latency,
        bw_samples: bw.to_vec(),
        iops_samples: iops.to_vec(),
        prios: Vec::new(),
    }
}

/// A direction that did nothing.
pub(crate) fn idle() -> DirResult {
    DirResult::default()
}

/// One clone whose I/Os were all issued at depth bucket `depth_bucket` (0: 1, 3: 8–15 ...),
/// measured from `ramp_end_ns` to `end_ns`.
pub(crate) fn clone_result(
    job: usize,
    clone: u32,
    name: &str,
    groupid: u32,
    dirs: [DirResult; 3],
    depth_bucket: usize,
    (ramp_end_ns, end_ns): (u64, u64),
) -> JobResult {
    let mut iodepth_level = [0; 7];
    iodepth_level[depth_bucket] = dirs.iter().map(|d| d.total_ios).sum();
    JobResult {
        sync_lat: crate::stats::LatStats::default(),
        steadystate: None,
        error: None,
        latency_depth: None,
        zone_resets: 0,
        job,
        clone,
        pid: 4000 + clone,
        name: name.into(),
        groupid,
        dirs,
        iodepth_level,
        start_ns: 0,
        ramp_end_ns,
        end_ns,
        usr_ns: 0,
        sys_ns: 0,
        ctx: 0,
    }
}

/// Counters at the start and end of a group: 1 GiB written by the host, 1.5 GiB programmed.
pub(crate) fn group(groupid: u32, start_ns: u64, end_ns: u64) -> GroupResult {
    let counters_start = CounterSnapshot {
        time_ns: start_ns,
        host_write_bytes: 1 << 30,
        nand_write_bytes: 1 << 30,
        free_superblocks: 100,
        write_buffer_bytes: 4096,
        erases: 7,
        ..Default::default()
    };
    let counters_end = CounterSnapshot {
        time_ns: end_ns,
        host_write_bytes: 2 << 30,
        nand_write_bytes: (1 << 30) + (3 << 29),
        free_superblocks: 90,
        write_buffer_bytes: 8192,
        erases: 10,
        ..Default::default()
    };
    GroupResult { groupid, start_ns, end_ns, counters_start: row(&counters_start), counters_end: row(&counters_end) }
}

/// The row the device gives for `snapshot`.
pub(crate) fn row(snapshot: &CounterSnapshot) -> CounterRow {
    let mut r = CounterRow::at(snapshot.time_ns);
    snapshot.append_to("", &mut r);
    r
}

/// A run with these clones and one group per distinct groupid.
pub(crate) fn run(jobs: Vec<JobResult>, end_ns: u64) -> RunResult {
    let mut groupids: Vec<u32> = jobs.iter().map(|j| j.groupid).collect();
    groupids.dedup();
    let groups = groupids.into_iter().map(|g| group(g, 0, end_ns)).collect();
    RunResult {
        jobs,
        groups,
        disk: DiskUtil {
            name: "vda".into(),
            read_ios: 335_587,
            write_ios: 143_974,
            read_ticks_ms: 24_559,
            write_ticks_ms: 10_210,
            in_queue_ms: 34_768,
            util_pct: 91.108_247,
        },
        series: Vec::new(),
        windows: Vec::new(),
        start_ns: 0,
        end_ns,
        profile: "generic-tlc-1tb".into(),
        host: "none".into(),
    }
}

/// Options as written, in order, from a reference's `global options` or `job options`.
pub(crate) fn options_of(v: &Value) -> Vec<(String, String)> {
    v.as_object()
        .map(|o| o.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
        .unwrap_or_default()
}

/// Output options with the reference's wall clock and device.
pub(crate) fn opts(plus: bool) -> OutputOptions {
    OutputOptions {
        plus,
        wall: WallClock { unix_ms: 1_795_288_328_424, ctime: "Sat Nov 21 19:12:08 2026".into() },
        device_name: "vda".into(),
    }
}

/// `randrw-2jobs.fio` as the parser gives it, its options echoed from `reference` (the
/// `-group` or `-jsonplus` output, whose global options differ by `group_reporting=0`).
pub(crate) fn randrw_set(reference: &Value) -> JobSet {
    let job = &reference["jobs"][0];
    let mut spec = JobSpec::new("mix");
    spec.options = options_of(&job["job options"]);
    spec.rw = RwPattern::RandRw;
    spec.rwmix_read = 70;
    spec.numjobs = 2;
    spec.iodepth = 8;
    spec.ioengine = "libaio".into();
    spec.group_reporting = true;
    spec.time_based = true;
    spec.runtime_ns = Some(2_000_000_000);
    spec.ramp_time_ns = 1_000_000_000;
    spec.percentile_list = vec![50.0, 99.0, 99.9, 99.99];
    JobSet { global_options: options_of(&reference["global options"]), jobs: vec![spec] }
}

/// Two clones of the randrw job: 1 s ramp, 2000.4 ms measured, ~70 % reads, QD 8; the run
/// ends 1.1 ms after the clones (fio's `elapsed` is then 4 s, as in the reference).
pub(crate) fn randrw_result() -> RunResult {
    let clones = (0..2u32)
        .map(|clone| {
            let reads: Vec<(u64, u64)> =
                spread(700 + clone as usize, 6_000, 2_200_000).into_iter().map(|c| (1_500, c)).collect();
            let writes: Vec<(u64, u64)> = spread(300, 13_000, 2_300_000).into_iter().map(|c| (1_900, c)).collect();
            // ~700 reads and 300 writes of 4 KiB in 2 s: about 1400 and 600 KiB/s.
            let bw_r = [1_400.4, 1_380.0, 1_420.9, 1_395.0];
            let iops_r = [350.0, 345.0, 355.0, 348.0];
            let bw_w = [600.0, 590.0, 610.0, 605.0];
            let iops_w = [150.0, 147.0, 152.0, 151.0];
            let dirs = [
                dir(&reads, 4096, 2_000_400_000, &bw_r, &iops_r),
                dir(&writes, 4096, 2_000_400_000, &bw_w, &iops_w),
                idle(),
            ];
            clone_result(0, clone, "mix", 0, dirs, 3, (1_000_000_000, 3_000_400_000))
        })
        .collect();
    run(clones, 3_001_500_000)
}

/// `fio --name=t --filename=fiotest --size=64m --rw=randread --bs=4k --direct=1
/// --ioengine=psync --runtime=3`, options echoed from `reference`.
pub(crate) fn psync_set(reference: &Value) -> JobSet {
    let mut spec = JobSpec::new("t");
    spec.options = options_of(&reference["jobs"][0]["job options"]);
    spec.rw = RwPattern::RandRead;
    spec.runtime_ns = Some(3_000_000_000);
    spec.ioengine = "psync".into();
    JobSet { global_options: Vec::new(), jobs: vec![spec] }
}

/// One psync clone: reads only, QD 1, 3000.2 ms.
pub(crate) fn psync_result() -> RunResult {
    let reads: Vec<(u64, u64)> = spread(2_000, 12_492, 4_735_426).into_iter().map(|c| (300, c)).collect();
    let bw = [188_280.0, 216_000.0, 203_000.0, 205_000.0, 203_640.0];
    let iops = [47_070.0, 54_000.0, 50_750.0, 51_250.0, 50_910.0];
    let dirs = [dir(&reads, 4096, 3_000_200_000, &bw, &iops), idle(), idle()];
    run(vec![clone_result(0, 0, "t", 0, dirs, 0, (0, 3_000_200_000))], 3_000_200_000)
}

/// The JSON type of a value as fio distinguishes them.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Asserts that `ours` has exactly the keys of `theirs` at every level, in the same order,
/// with values of the same JSON types, ignoring ssdtwin's own `ssdtwin` key. `bins` keys are
/// latency values, so only their type is compared.
pub(crate) fn assert_same_shape(ours: &Value, theirs: &Value, path: &str) {
    assert_eq!(kind(ours), kind(theirs), "type of {path}");
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            if path.ends_with("/bins") {
                assert!(a.values().chain(b.values()).all(|v| kind(v) == "int"), "{path}: counts are ints");
                return;
            }
            let keys_a: Vec<&String> = a.keys().filter(|k| *k != "ssdtwin").collect();
            let keys_b: Vec<&String> = b.keys().collect();
            assert_eq!(keys_a, keys_b, "keys of {path}");
            for (key, value) in b {
                assert_same_shape(&a[key], value, &format!("{path}/{key}"));
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "length of {path}");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_same_shape(x, y, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}
