//! fio 3.33's JSON report (`--output-format=json` and `json+`), written from a
//! [`RunResult`] so that scripts and fio-plot read ssdtwin's runs as they read fio's.
//!
//! Read first: fio's `stat.c` (`__show_run_stats`, `show_thread_status_json`,
//! `add_ddir_status_json`, `add_ddir_lat_json`, `sum_thread_stats`), `json.c` (the printer)
//! and the fio HOWTO's output section. Real outputs of fio 3.33 are in `tests/data/fio-3.33/`; the tests
//! compare our key sets, key order and value types with them.
//!
//! [`fio_json`] builds a [`report::Report`] (clones merged under `group_reporting` as fio
//! merges them, group aggregates), turns it into a [`writer::Object`] tree with fio's keys in
//! fio's order, and prints it with fio's spacing and number formats. Writing never fails and
//! never panics; it allocates the output string and one merged histogram per report entry.
//!
//! Where a fio figure has no counterpart in a simulation it is printed as fio prints an idle
//! one: `majf`, `minf` are 0 (a job takes no page faults), `short_ios`/`drop_ios`/`error`/
//! `eta` are 0, the `sync` object counts the job's `fsync=`/`fdatasync=` calls,
//! `latency_target`/`latency_window` are 0 and `latency_percentile` 100. Each job entry
//! ends with an `"ssdtwin"` object that fio does not have: the device counters of the job's
//! reporting group, the write amplification and the profile name. `usr_cpu`, `sys_cpu` and
//! `ctx` are the host model's: the clone's thread time on its core as a share of its run time,
//! and the times it blocked or slept (all 0 on the bare host).
//!
//! ```
//! use ssdtwin_core::workload::fio::{fio_json, OutputOptions, WallClock};
//! use ssdtwin_core::workload::{JobSet, RunResult, DiskUtil};
//!
//! let result = RunResult { jobs: vec![], groups: vec![], disk: DiskUtil::default(), series: vec![], windows: vec![],
//!                          start_ns: 0, end_ns: 0, profile: "generic-tlc-1tb".into(), host: "none".into() };
//! let opts = OutputOptions { plus: false, device_name: "nvme0n1".into(),
//!     wall: WallClock { unix_ms: 1_795_288_122_955, ctime: "Sat Nov 21 19:08:42 2026".into() } };
//! let text = fio_json(&JobSet::default(), &result, &opts);
//! assert!(text.starts_with("{\n  \"fio version\" : \"fio-3.33\",\n  \"timestamp\" : 1795288122,\n"));
//! ```

pub(crate) mod report;
mod writer;

use crate::stats::{LAT_LABELS, LAT_MS_LABELS, LatStats, PlatHistogram};
use crate::workload::{Direction, DiskUtil, GroupResult, JobSet, JobSpec, PercentilesOf, RunResult, UnifiedRw};
use report::{DirReport, Entry, FIO_VERSION, Report};
use writer::{Object, Value};

/// Wall-clock time of the run, supplied by the caller (the model never reads a clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WallClock {
    /// Milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// `ctime()`-style local time without the newline, e.g. `Sat Nov 21 19:08:42 2026`.
    pub ctime: String,
}

/// How to write the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOptions {
    /// `json+`: add latency `bins`.
    pub plus: bool,
    /// When the run happened.
    pub wall: WallClock,
    /// Device name for `disk_util` and the normal report's `Disk stats`. When empty, the
    /// name in [`RunResult::disk`] is used, and `ssdtwin` if that is empty too.
    pub device_name: String,
}

impl OutputOptions {
    /// The device name to print.
    pub(crate) fn disk_name<'a>(&'a self, disk: &'a DiskUtil) -> &'a str {
        if !self.device_name.is_empty() {
            &self.device_name
        } else if !disk.name.is_empty() {
            &disk.name
        } else {
            "ssdtwin"
        }
    }
}

/// Renders fio 3.33's JSON (`json+` when `opts.plus`).
///
/// Top level: `fio version`, `timestamp`, `timestamp_ms`, `time`, `global options` (when the
/// job set has any), `jobs` (one entry per clone, or per group under `group_reporting`) and
/// `disk_util` (one synthetic entry for the simulated device; absent when every job uses an
/// engine fio runs without a disk, such as `nbd` or `null`).
pub fn fio_json(set: &JobSet, result: &RunResult, opts: &OutputOptions) -> String {
    let fallback = JobSpec::new("");
    let report = Report::new(set, result, &fallback);

    let mut root = Object::new();
    root.string("fio version", FIO_VERSION);
    root.int("timestamp", opts.wall.unix_ms / 1000);
    root.int("timestamp_ms", opts.wall.unix_ms);
    root.string("time", &opts.wall.ctime);
    if !set.global_options.is_empty() {
        root.object("global options", options_object(&set.global_options));
    }
    // fio prints the seconds since it started when the report is written, the same for
    // every job: here, the whole simulated run.
    let elapsed_s = report::elapsed_s(result.end_ns.saturating_sub(result.start_ns));
    let jobs = report.entries.iter().map(|e| Value::Object(job_object(e, &report, result, elapsed_s, opts.plus)));
    root.add("jobs", Value::Array(jobs.collect()));
    if report::has_disk(set) {
        root.add("disk_util", Value::Array(vec![Value::Object(disk_util_object(&result.disk, opts))]));
    }
    writer::print(&root)
}

/// `global options` / `job options`: the options as written, values as strings.
fn options_object(options: &[(String, String)]) -> Object {
    let mut o = Object::new();
    for (key, value) in options {
        o.string(key.as_str(), value);
    }
    o
}

/// One element of `jobs` (fio's `show_thread_status_json`).
fn job_object(e: &Entry<'_>, report: &Report<'_>, result: &RunResult, elapsed_s: u64, plus: bool) -> Object {
    let mut job = Object::new();
    job.string("jobname", e.name);
    job.int("groupid", e.groupid.into());
    job.int("error", e.error.map_or(0, |f| f.errno).into());
    job.int("eta", 0);
    job.int("elapsed", elapsed_s);
    // fio omits the object when the job section set no options of its own.
    if !e.spec.options.is_empty() {
        job.object("job options", options_object(&e.spec.options));
    }
    let percentiles = e.percentile_list();
    let read_agg = report.group(e.groupid).map_or(0, |g| g.agg[0]);
    if e.spec.unified_rw_reporting == UnifiedRw::Mixed {
        // Every direction summed into the first, under its own name (add_ddir_status_json).
        job.object("mixed", dir_object(&e.dirs[0], read_agg, &percentiles, e.spec.percentiles_of, plus));
    } else {
        for dir in Direction::ALL {
            let group_agg = report.group(e.groupid).map_or(0, |g| g.agg[dir.index()]);
            let d = &e.dirs[dir.index()];
            job.object(dir.name(), dir_object(d, group_agg, &percentiles, e.spec.percentiles_of, plus));
        }
    }
    // Under `mixed`, fio writes no direction but the first, sync included.
    if e.spec.unified_rw_reporting != UnifiedRw::Mixed {
        let mut sync = Object::new();
        sync.int("total_ios", e.sync_lat.n);
        sync.object("lat_ns", lat_object(&e.sync_lat, None, plus));
        job.object("sync", sync);
    }
    if e.spec.unified_rw_reporting == UnifiedRw::Both {
        // fio's add_mixed_ddir_status_json, after sync: the directions summed.
        let m = DirReport::mixed(&e.dirs);
        job.object("mixed", dir_object(&m, read_agg, &percentiles, e.spec.percentiles_of, plus));
    }

    job.int("job_runtime", e.job_runtime_ms);
    let (usr_cpu, sys_cpu) = e.cpu_pct();
    job.float("usr_cpu", usr_cpu);
    job.float("sys_cpu", sys_cpu);
    job.int("ctx", e.ctx);
    job.int("majf", 0);
    job.int("minf", 0);

    let total = e.total_ios();
    let depth_keys = ["1", "2", "4", "8", "16", "32", ">=64"];
    job.object("iodepth_level", pct_object(&depth_keys, &report::depth_pct(&e.iodepth_level)));
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    job.object("iodepth_submit", pct_object(&batch_keys, &report::batch_pct(total)));
    job.object("iodepth_complete", pct_object(&batch_keys, &report::batch_pct(total)));

    let buckets = e.lat_buckets();
    job.object("latency_ns", pct_object(&LAT_LABELS, &report::lat_pct(&buckets.ns, total)));
    job.object("latency_us", pct_object(&LAT_LABELS, &report::lat_pct(&buckets.us, total)));
    job.object("latency_ms", pct_object(&LAT_MS_LABELS, &report::lat_pct(&buckets.ms, total)));

    let (target_ns, window_ns, percentile) = e.latency_target();
    job.int("latency_depth", e.latency_depth());
    job.int("latency_target", target_ns);
    job.float("latency_percentile", percentile);
    job.int("latency_window", window_ns);
    if let (Some(ss), Some((bw_mean, iops_mean))) = (e.steadystate, e.steadystate_means()) {
        job.object("steadystate", steadystate_object(ss, bw_mean, iops_mean));
    }

    let group = result.groups.iter().find(|g| g.groupid == e.groupid);
    job.object("ssdtwin", ssdtwin_object(group, result, e.name));
    job
}

/// fio's `"steadystate"` object (`show_thread_status_json`): the window padded with zeros
/// to its length, oldest sample first.
fn steadystate_object(ss: &crate::workload::SteadyResult, bw_mean: u64, iops_mean: u64) -> Object {
    let mut o = Object::new();
    let samples = ss.spec.samples();
    o.string("ss", &ss.spec.label());
    o.int("duration", samples as u64);
    o.int("attained", u64::from(ss.attained));
    o.string("criterion", &format!("{:.6}{}", ss.criterion as f32, if ss.spec.percent { "%" } else { "" }));
    o.float("max_deviation", ss.max_deviation);
    o.float("slope", ss.slope);
    let padded = |v: &[u64]| {
        let mut values: Vec<Value> = v.iter().map(|&x| Value::Int(x)).collect();
        values.resize(samples, Value::Int(0));
        Value::Array(values)
    };
    let mut data = Object::new();
    data.int("bw_mean", bw_mean);
    data.int("iops_mean", iops_mean);
    data.add("iops", padded(&ss.iops));
    data.add("bw", padded(&ss.bw));
    o.object("data", data);
    o
}

/// Float values under fixed keys.
fn pct_object(keys: &[&str], values: &[f64]) -> Object {
    let mut o = Object::new();
    for (key, value) in keys.iter().zip(values) {
        o.float(*key, *value);
    }
    o
}

/// `read`, `write` or `trim` (fio's `add_ddir_status_json`).
fn dir_object(d: &DirReport, group_agg: u64, percentiles: &[f64], of: PercentilesOf, plus: bool) -> Object {
    let mut o = Object::new();
    o.int("io_bytes", d.io_bytes);
    o.int("io_kbytes", d.io_kbytes());
    o.int("bw_bytes", d.bw_bytes());
    o.int("bw", d.bw_kib());
    o.float("iops", d.iops());
    o.int("runtime", d.runtime_ms);
    o.int("total_ios", d.total_ios);
    o.int("short_ios", 0);
    o.int("drop_ios", 0);
    let l = &d.latency;
    let asked = |on: bool, hist| on.then_some((hist, percentiles));
    o.object("slat_ns", lat_object(&l.slat, asked(of.slat, &l.slat_hist), plus));
    o.object("clat_ns", lat_object(&l.clat, asked(of.clat, &l.clat_hist), plus));
    o.object("lat_ns", lat_object(&l.lat, asked(of.lat, &l.lat_hist), plus));
    let prios = d.prios_to_show();
    if !prios.is_empty() {
        let list = prios
            .iter()
            .map(|p| {
                let mut entry = Object::new();
                entry.int("prioclass", u64::from(p.priority.class));
                entry.int("prio", u64::from(p.priority.level));
                entry.object("clat_ns", lat_object(&p.clat, Some((&p.clat_hist, percentiles)), plus));
                Value::Object(entry)
            })
            .collect();
        o.add("prios", Value::Array(list));
    }

    o.int("bw_min", d.bw.min);
    o.int("bw_max", d.bw.max);
    o.float("bw_agg", d.bw_agg_pct(group_agg));
    o.float("bw_mean", d.bw.mean);
    o.float("bw_dev", d.bw.stddev());
    o.int("bw_samples", d.bw.n);
    o.int("iops_min", d.iops.min);
    o.int("iops_max", d.iops.max);
    o.float("iops_mean", d.iops.mean);
    o.float("iops_stddev", d.iops.stddev());
    o.int("iops_samples", d.iops.n);
    o
}

/// `slat_ns`, `clat_ns` or `lat_ns` (fio's `add_ddir_lat_json`). `percentiles` is given for
/// the latencies the job reports percentiles of (`clat_percentiles=1`, fio's default, and
/// `slat_percentiles`/`lat_percentiles`); the object then gets `percentile` when it has
/// samples, and `bins` too under `json+`.
fn lat_object(stats: &LatStats, percentiles: Option<(&PlatHistogram, &[f64])>, plus: bool) -> Object {
    let mut o = Object::new();
    let empty = stats.n == 0;
    o.int("min", if empty { 0 } else { stats.min });
    o.int("max", if empty { 0 } else { stats.max });
    o.float("mean", stats.mean());
    o.float("stddev", stats.stddev());
    o.int("N", stats.n);
    if let (Some((hist, list)), false) = (percentiles, empty) {
        let mut pct = Object::new();
        for (p, value) in list.iter().zip(hist.percentiles(list)) {
            pct.int(format!("{p:.6}"), value);
        }
        o.object("percentile", pct);
        if plus {
            let mut bins = Object::new();
            for (value, count) in hist.bins() {
                bins.int(value.to_string(), count);
            }
            o.object("bins", bins);
        }
    }
    o
}

/// ssdtwin's own per-job object: the device counters over the job's reporting group (running
/// totals as differences, `free_superblocks` and `write_buffer_bytes` as their end values;
/// `time_ns` is therefore the group's measured span), `write_amplification` (NAND bytes
/// programmed per host byte written over that span, `null` if the host wrote nothing) and
/// the profile and host names.
fn ssdtwin_object(group: Option<&GroupResult>, result: &RunResult, job: &str) -> Object {
    let mut o = Object::new();
    o.string("profile", &result.profile);
    o.string("host", &result.host);
    let Some(group) = group else {
        o.add("write_amplification", Value::Null);
        o.add("warnings", Value::Array(Vec::new()));
        return o;
    };
    for (key, value) in report::counter_deltas(group) {
        o.int(key, value);
    }
    match group.counters_end.write_amplification_since(&group.counters_start) {
        Some(waf) => o.float("write_amplification", waf),
        None => o.add("write_amplification", Value::Null),
    }
    let warnings = group.unmapped_read_warning(job).into_iter().map(Value::Str).collect();
    o.add("warnings", Value::Array(warnings));
    o
}

/// The one `disk_util` entry: the simulated device as the kernel's disk statistics would
/// show it. The model does not merge requests, so the merge counts are 0.
fn disk_util_object(disk: &DiskUtil, opts: &OutputOptions) -> Object {
    let mut o = Object::new();
    o.string("name", opts.disk_name(disk));
    o.int("read_ios", disk.read_ios);
    o.int("write_ios", disk.write_ios);
    o.int("read_merges", 0);
    o.int("write_merges", 0);
    o.int("read_ticks", disk.read_ticks_ms);
    o.int("write_ticks", disk.write_ticks_ms);
    o.int("in_queue", disk.in_queue_ms);
    o.float("util", disk.util_pct.clamp(0.0, 100.0));
    o
}

#[cfg(test)]
pub(crate) mod testutil;

#[cfg(test)]
mod tests {
    use super::testutil::*;
    use super::*;
    use crate::ssd::CounterSnapshot;
    use crate::workload::{DirResult, JobSpec};
    use serde_json::Value as Json;

    fn render(set: &JobSet, result: &RunResult, plus: bool) -> Json {
        let text = fio_json(set, result, &opts(plus));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("output is not JSON ({e}):\n{text}"))
    }

    // ---- shape: the same keys, order and value types as fio 3.33 ----

    #[test]
    fn group_reporting_matches_fio_shape() {
        let reference = reference_json("randrw-2jobs-group.json");
        let ours = render(&randrw_set(&reference), &randrw_result(), false);
        assert_same_shape(&ours, &reference, "");
        assert!(ours["jobs"][0]["read"]["clat_ns"].get("bins").is_none());
    }

    #[test]
    fn json_plus_matches_fio_shape() {
        let reference = reference_json("randrw-2jobs-jsonplus.json");
        let ours = render(&randrw_set(&reference), &randrw_result(), true);
        assert_same_shape(&ours, &reference, "");
        let job = &ours["jobs"][0];
        for dir in ["read", "write"] {
            let bins = job[dir]["clat_ns"]["bins"].as_object().expect("bins where fio has them");
            let total: u64 = bins.values().map(|v| v.as_u64().unwrap()).sum();
            assert_eq!(total, job[dir]["clat_ns"]["N"].as_u64().unwrap());
        }
        for key in ["slat_ns", "lat_ns"] {
            assert!(job["read"][key].get("bins").is_none(), "no bins without percentiles");
        }
    }

    #[test]
    fn psync_matches_fio_shape() {
        let reference = reference_json("randread-psync.json");
        let ours = render(&psync_set(&reference), &psync_result(), false);
        assert_same_shape(&ours, &reference, "");
        // Synchronous engines have no submission phase: fio reports slat N = 0.
        assert_eq!(ours["jobs"][0]["read"]["slat_ns"]["N"], 0);
        assert_eq!(ours["jobs"][0]["read"]["clat_ns"]["N"], 2000);
    }

    #[test]
    fn top_level_keys_follow_fio() {
        let reference = reference_json("randread-psync.json");
        let text = fio_json(&psync_set(&reference), &psync_result(), &opts(false));
        assert!(text.starts_with(
            "{\n  \"fio version\" : \"fio-3.33\",\n  \"timestamp\" : 1795288328,\n  \"timestamp_ms\" : 1795288328424,\n  \
             \"time\" : \"Sat Nov 21 19:12:08 2026\",\n  \"jobs\" : [\n    {\n      \"jobname\" : \"t\",\n"
        ));
        assert!(text.ends_with("\n  ]\n}\n"));
    }

    // ---- percentiles ----

    #[test]
    fn percentile_keys_are_fio_formatted_and_sorted() {
        let reference = reference_json("randrw-2jobs-group.json");
        let mut set = randrw_set(&reference);
        set.jobs[0].percentile_list = vec![99.99, 50.0, 99.9, 99.0];
        let ours = render(&set, &randrw_result(), false);
        for dir in ["read", "write"] {
            let keys =
                |v: &Json| v[dir]["clat_ns"]["percentile"].as_object().unwrap().keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(&ours["jobs"][0]), keys(&reference["jobs"][0]));
        }
        assert_eq!(
            keys_of(&ours["jobs"][0]["read"]["clat_ns"]["percentile"]),
            ["50.000000", "99.000000", "99.900000", "99.990000"]
        );
    }

    fn keys_of(v: &Json) -> Vec<String> {
        v.as_object().unwrap().keys().cloned().collect()
    }

    #[test]
    fn percentile_values_are_bucket_values() {
        let mut set = JobSet::default();
        let mut spec = JobSpec::new("p");
        spec.percentile_list = vec![50.0, 100.0];
        set.jobs.push(spec);
        let lat: Vec<(u64, u64)> = (1..=100u64).map(|v| (0, v * 1000)).collect();
        let dirs = [dir(&lat, 4096, 1_000_000_000, &[], &[]), DirResult::default(), DirResult::default()];
        let result = run(vec![clone_result(0, 0, "p", 0, dirs, 0, (0, 1_000_000_000))], 1_000_000_000);
        let ours = render(&set, &result, false);
        let pct = &ours["jobs"][0]["read"]["clat_ns"]["percentile"];
        // 50 000 ns and 100 000 ns fall in fio buckets [49 664, 50 176) and [99 328, 100 352),
        // reported by their mid-values.
        assert_eq!(pct["50.000000"], 49_920);
        assert_eq!(pct["100.000000"], 99_840);
    }

    #[test]
    fn each_latency_reports_percentiles_when_asked() {
        let mut set = JobSet::default();
        let mut spec = JobSpec::new("p");
        spec.percentile_list = vec![50.0, 100.0];
        spec.percentiles_of = PercentilesOf { slat: true, clat: false, lat: true };
        spec.ioengine = "libaio".into(); // an engine with a submission latency
        set.jobs.push(spec);
        // Every I/O: 1 us to submit, then 1..=100 us to complete.
        let lat: Vec<(u64, u64)> = (1..=100u64).map(|v| (1000, v * 1000)).collect();
        let dirs = [dir(&lat, 4096, 1_000_000_000, &[], &[]), DirResult::default(), DirResult::default()];
        let result = run(vec![clone_result(0, 0, "p", 0, dirs, 0, (0, 1_000_000_000))], 1_000_000_000);
        let read = &render(&set, &result, false)["jobs"][0]["read"];
        assert!(read["clat_ns"].get("percentile").is_none(), "clat_percentiles=0");
        assert_eq!(read["slat_ns"]["percentile"]["50.000000"], 1004, "1000 ns in bucket [1000, 1008)");
        // Total latency's own histogram: the median I/O took 51 us, the slowest 101 us.
        assert_eq!(read["lat_ns"]["percentile"]["50.000000"], 50_944);
        assert_eq!(read["lat_ns"]["percentile"]["100.000000"], 100_864);
    }

    // ---- derived numbers ----

    /// A direction with fio's totals and no latencies.
    fn totals(io_bytes: u64, total_ios: u64, runtime_ns: u64) -> DirResult {
        DirResult { io_bytes, total_ios, runtime_ns, ..Default::default() }
    }

    #[test]
    fn derived_numbers_follow_fio_formulas() {
        // The totals of fio's own runs and what fio derived from them.
        let cases = [
            // randrw-2jobs-group.json read and write (2001 ms), randread-psync.json (3001 ms).
            (
                907_161_600u64,
                221_465u64,
                2_000_400_000u64,
                885_900u64,
                453_354_122u64,
                442_728u64,
                "110677.161419",
                2001u64,
            ),
            (389_185_536, 95_011, 2_000_400_000, 380_064, 194_495_520, 189_937, "47481.759120", 2001),
            (608_829_440, 148_640, 3_000_200_000, 594_560, 202_875_521, 198_120, "49530.156614", 3001),
        ];
        for (io_bytes, ios, runtime_ns, kbytes, bw_bytes, bw, iops, runtime) in cases {
            let mut set = JobSet::default();
            set.jobs.push(JobSpec::new("d"));
            let dirs = [totals(io_bytes, ios, runtime_ns), DirResult::default(), DirResult::default()];
            let result = run(vec![clone_result(0, 0, "d", 0, dirs, 0, (0, runtime_ns))], runtime_ns);
            let text = fio_json(&set, &result, &opts(false));
            let ours: Json = serde_json::from_str(&text).unwrap();
            let read = &ours["jobs"][0]["read"];
            assert_eq!(read["io_kbytes"], kbytes);
            assert_eq!(read["bw_bytes"], bw_bytes);
            assert_eq!(read["bw"], bw);
            assert_eq!(read["runtime"], runtime);
            assert!(text.contains(&format!("\"iops\" : {iops},")), "iops {iops}");
        }
    }

    #[test]
    fn window_statistics_and_bw_agg() {
        let mut set = JobSet::default();
        set.jobs.push(JobSpec::new("w"));
        let lat = [(0u64, 10_000u64); 3];
        let read = dir(&lat, 4096, 1_000_000_000, &[100.9, 200.2, 300.7], &[25.0, 50.0, 75.0]);
        let dirs = [read, DirResult::default(), DirResult::default()];
        let result = run(vec![clone_result(0, 0, "w", 0, dirs, 0, (0, 1_000_000_000))], 1_000_000_000);
        let text = fio_json(&set, &result, &opts(false));
        for line in [
            "\"bw_min\" : 100,",
            "\"bw_max\" : 300,",
            "\"bw_mean\" : 200.000000,",
            "\"bw_dev\" : 100.000000,",
            "\"bw_samples\" : 3,",
            "\"iops_min\" : 25,",
            "\"iops_stddev\" : 25.000000,",
            // The group moved 12 KiB/s but the windows average 200 KiB/s: the share caps at 100.
            "\"bw_agg\" : 100.000000,",
        ] {
            assert!(text.contains(line), "{line}");
        }
        assert!(text.contains("\"bw_agg\" : 0.000000,"), "directions without samples print 0");
    }

    #[test]
    fn times_round_as_fio_rounds_them() {
        let reference = reference_json("randrw-2jobs-group.json");
        let ours = render(&randrw_set(&reference), &randrw_result(), false);
        let job = &ours["jobs"][0];
        // 2000.4 ms measured per clone: runtime rounds up, job_runtime truncates and sums.
        assert_eq!(job["read"]["runtime"], 2001);
        assert_eq!(job["job_runtime"], 4000);
        // The run took 3001.5 ms: elapsed is whole seconds rounded up.
        assert_eq!(job["elapsed"], 4);
    }

    #[test]
    fn depth_and_latency_distributions() {
        let mut set = JobSet::default();
        set.jobs.push(JobSpec::new("l"));
        // 3 reads: 800 ns, 15 µs, 2.5 ms; one write of 15 µs.
        let reads = dir(&[(0, 800), (0, 15_000), (0, 2_500_000)], 4096, 1_000_000_000, &[], &[]);
        let writes = dir(&[(0, 15_000)], 4096, 1_000_000_000, &[], &[]);
        let dirs = [reads, writes, DirResult::default()];
        let result = run(vec![clone_result(0, 0, "l", 0, dirs, 2, (0, 1_000_000_000))], 1_000_000_000);
        let job = &render(&set, &result, false)["jobs"][0];
        assert_eq!(job["latency_ns"]["1000"], 25.0);
        assert_eq!(job["latency_us"]["20"], 50.0);
        assert_eq!(job["latency_ms"]["4"], 25.0);
        assert_eq!(job["iodepth_level"]["4"], 100.0);
        assert_eq!(job["iodepth_submit"]["4"], 100.0);
        assert_eq!(job["iodepth_complete"]["0"], 0.0);
        assert_eq!(job["latency_depth"], 1);
        assert_eq!(job["usr_cpu"], 0.0);
    }

    // ---- group_reporting ----

    #[test]
    fn group_reporting_merges_clones_into_one_entry() {
        let reference = reference_json("randrw-2jobs-group.json");
        let result = randrw_result();
        let ours = render(&randrw_set(&reference), &result, false);
        let jobs = ours["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 1);
        let job = &jobs[0];
        assert_eq!(job["jobname"], "mix");
        assert_eq!(job["job_runtime"], 4000);
        let read = &job["read"];
        assert_eq!(read["total_ios"], 700 + 701);
        assert_eq!(read["io_bytes"], (700 + 701) * 4096);
        assert_eq!(read["clat_ns"]["N"], 700 + 701);
        assert_eq!(read["clat_ns"]["min"], 6_000);
        assert_eq!(read["runtime"], 2001);
        // Window statistics add up across clones: samples, minima, maxima, means.
        assert_eq!(read["bw_samples"], 8);
        assert_eq!(read["bw_min"], 2 * 1_380);
        assert_eq!(read["bw_max"], 2 * 1_420);
        assert_eq!(read["iops_mean"], 2.0 * (350.0 + 345.0 + 355.0 + 348.0) / 4.0);
        // The one entry carries the whole group's bandwidth.
        let agg = read["bw_agg"].as_f64().unwrap();
        assert!(agg > 99.0 && agg <= 100.0, "{agg}");
        assert_eq!(job["iodepth_level"]["8"], 100.0);
    }

    #[test]
    fn without_group_reporting_each_clone_is_an_entry() {
        let reference = reference_json("randrw-2jobs-group.json");
        let mut set = randrw_set(&reference);
        set.jobs[0].group_reporting = false;
        let ours = render(&set, &randrw_result(), false);
        let jobs = ours["jobs"].as_array().unwrap();
        assert_eq!(jobs.len(), 2);
        for (job, reads) in jobs.iter().zip([700, 701]) {
            assert_eq!(job["jobname"], "mix");
            assert_eq!(job["job_runtime"], 2000);
            assert_eq!(job["read"]["total_ios"], reads);
            assert_eq!(job["read"]["bw_samples"], 4);
            // Each clone carries about half of the group's bandwidth.
            let agg = job["read"]["bw_agg"].as_f64().unwrap();
            assert!(agg > 40.0 && agg < 60.0, "{agg}");
        }
    }

    #[test]
    fn jobs_merge_only_within_a_group() {
        let mut set = JobSet::default();
        for name in ["a", "b"] {
            let mut spec = JobSpec::new(name);
            spec.group_reporting = true;
            set.jobs.push(spec);
        }
        let lat = [(0u64, 10_000u64)];
        let mk = |job, groupid| {
            let dirs = [dir(&lat, 4096, 1_000_000_000, &[], &[]), DirResult::default(), DirResult::default()];
            clone_result(job, 0, ["a", "b"][job], groupid, dirs, 0, (0, 1_000_000_000))
        };
        let same = render(&set, &run(vec![mk(0, 0), mk(1, 0)], 1_000_000_000), false);
        assert_eq!(same["jobs"].as_array().unwrap().len(), 1);
        assert_eq!(same["jobs"][0]["jobname"], "a");
        let split = render(&set, &run(vec![mk(0, 0), mk(1, 1)], 1_000_000_000), false);
        assert_eq!(split["jobs"].as_array().unwrap().len(), 2);
        assert_eq!(split["jobs"][1]["groupid"], 1);
    }

    // ---- ssdtwin's own object and disk_util ----

    #[test]
    fn ssdtwin_object_reports_group_counters() {
        let reference = reference_json("randrw-2jobs-group.json");
        let ours = render(&randrw_set(&reference), &randrw_result(), false);
        let twin = &ours["jobs"][0]["ssdtwin"];
        assert_eq!(twin["profile"], "generic-tlc-1tb");
        assert_eq!(twin["host"], "none");
        assert_eq!(twin["host_write_bytes"], 1u64 << 30);
        assert_eq!(twin["nand_write_bytes"], 3u64 << 29);
        assert_eq!(twin["erases"], 3);
        assert_eq!(twin["time_ns"], 3_001_500_000u64);
        // Levels report their end value.
        assert_eq!(twin["free_superblocks"], 90);
        assert_eq!(twin["write_buffer_bytes"], 8192);
        assert_eq!(twin["write_amplification"], 1.5);
        // Every counter is there.
        let fields = serde_json::to_value(CounterSnapshot::default()).unwrap();
        for key in fields.as_object().unwrap().keys() {
            assert!(twin.get(key).is_some(), "{key}");
        }
        // The object is the job's last key.
        assert_eq!(ours["jobs"][0].as_object().unwrap().keys().next_back().unwrap(), "ssdtwin");
    }

    #[test]
    fn write_amplification_is_null_without_host_writes() {
        let reference = reference_json("randread-psync.json");
        let mut result = psync_result();
        let g = &mut result.groups[0];
        let start = g.counters_start.get("host_write_bytes").unwrap();
        g.counters_end.entries.iter_mut().find(|c| c.name == "host_write_bytes").unwrap().value = start;
        let ours = render(&psync_set(&reference), &result, false);
        assert!(ours["jobs"][0]["ssdtwin"]["write_amplification"].is_null());
    }

    #[test]
    fn disk_util_is_synthetic_or_absent_for_diskless_engines() {
        let reference = reference_json("randread-psync.json");
        let mut set = psync_set(&reference);
        let ours = render(&set, &psync_result(), false);
        assert_eq!(ours["disk_util"][0]["name"], "vda");
        assert_eq!(ours["disk_util"][0]["read_ios"], 335_587);
        assert_eq!(ours["disk_util"][0]["util"], 91.108_247);
        set.jobs[0].ioengine = "nbd".into();
        let ours = render(&set, &psync_result(), false);
        assert!(ours.get("disk_util").is_none());
        let nbd = reference_json("nbd-randread.json");
        assert!(nbd.get("disk_util").is_none(), "fio omits disk_util for nbd too");
    }

    #[test]
    fn results_from_another_job_set_do_not_panic() {
        let text = fio_json(&JobSet::default(), &randrw_result(), &opts(true));
        let ours: Json = serde_json::from_str(&text).unwrap();
        assert_eq!(ours["jobs"].as_array().unwrap().len(), 2);
        assert!(ours.get("disk_util").is_none());
    }
}
