//! fio 3.33's human-readable report (`--output-format=normal`, fio's default), written from a
//! [`RunResult`].
//!
//! Read first: fio's `stat.c` (`show_thread_status_normal`, `show_ddir_status`,
//! `display_lat`, `show_clat_percentiles`, `show_lat`, `show_group_stats`,
//! `print_disk_util`), `init.c` (the job header lines) and `lib/num2str.c` ([`num2str()`]).
//! `tests/data/fio-3.33/randread-normal.txt` is a real report; the tests compare our
//! line structure with it.
//!
//! Layout, top to bottom: one header line per job (`name: (g=0): rw=..., bs=(R) ...,
//! ioengine=..., iodepth=N`, then `...` if it has clones), `fio-3.33`, `Starting N
//! process(es)`, a blank line; one block per report entry (per clone, or per group under
//! `group_reporting`: the same entries as the JSON, from [`Report`]); `Run status group N
//! (all jobs):` per group; `Disk stats (read/write):`. fio's progress line and its
//! synchronous-engine note (`note: both iodepth >= 1 ...`) are not part of the report and
//! are not written.
//!
//! Units follow fio's rules: a latency line switches from nsec to usec when its min > 2000 ns,
//! max > 99 999 ns and stdev > 1000 ns, and to msec on the same test a thousand times larger
//! (`nsec_to_usec`/`nsec_to_msec`); the percentile block switches on the smallest and largest
//! percentile values (min > 2000 ns and max > 99 999 ns for usec) and rounds values up into
//! the new unit; `bw` switches from KiB/s to MiB/s when the mean exceeds 1 GiB/s. `pid` is
//! the job's simulated process id (fio's parent's, drawn from the run's seed, plus the job's
//! thread number), and the `cpu` line the host model's CPU time and context switches.
//!
//! Writing never fails and never panics. The numbers are the JSON writer's: both read the
//! same [`Report`].
//!
//! ```
//! use ssdtwin_core::workload::fio::{fio_normal, OutputOptions, WallClock};
//! use ssdtwin_core::workload::{JobSet, JobSpec, RunResult, DiskUtil};
//!
//! let set = JobSet { global_options: vec![], jobs: vec![JobSpec::new("t")] };
//! let result = RunResult { jobs: vec![], groups: vec![], disk: DiskUtil::default(), series: vec![], windows: vec![],
//!                          start_ns: 0, end_ns: 0, profile: "generic-tlc-1tb".into(), host: "none".into() };
//! let opts = OutputOptions { plus: false, device_name: "nvme0n1".into(),
//!     wall: WallClock { unix_ms: 0, ctime: "Sat Nov 21 19:11:22 2026".into() } };
//! let text = fio_normal(&set, &result, &opts);
//! assert!(text.starts_with("t: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, \
//!                           (T) 4096B-4096B, ioengine=psync, iodepth=1\nfio-3.33\n"));
//! ```

mod num2str;

use super::OutputOptions;
use super::json::report::{self, DirReport, Entry, FIO_VERSION, GroupLine, GroupRun, Report};
use crate::stats::{LatStats, PlatHistogram};
use crate::workload::{BlockSize, Direction, JobSet, JobSpec, PercentilesOf, RunResult, UnifiedRw};
use num2str::{Unit, num2str};
use std::fmt::Write;

/// fio's default `sig_figs`: significant characters of shortened numbers.
/// fio's default `percentile_precision`: decimals of percentile labels.
const PERCENTILE_PRECISION: usize = 2;

/// Appends formatted text to a `String` (which cannot fail).
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {
        $out.write_fmt(format_args!($($arg)*)).expect("writing to a String cannot fail")
    };
}

/// Renders fio 3.33's normal output.
pub fn fio_normal(set: &JobSet, result: &RunResult, opts: &OutputOptions) -> String {
    let fallback = JobSpec::new("");
    let report = Report::new(set, result, &fallback);
    let mut out = String::with_capacity(4096);

    write_job_headers(&mut out, set, result);
    put!(out, "{FIO_VERSION}\n");
    let processes = result.jobs.len();
    put!(out, "Starting {processes} process{}\n", if processes > 1 { "es" } else { "" });
    out.push('\n');

    for entry in report.entries.iter().filter(|e| !e.is_idle()) {
        write_entry(&mut out, entry, &report, opts);
    }
    for group in &report.groups {
        write_group(&mut out, group);
    }
    if report::has_disk(set) {
        let disk = &result.disk;
        put!(
            out,
            "\nDisk stats (read/write):\n  {}: ios={}/{}, merge=0/0, ticks={}/{}, in_queue={}, util={:3.2}%\n",
            opts.disk_name(disk),
            disk.read_ios,
            disk.write_ios,
            disk.read_ticks_ms,
            disk.write_ticks_ms,
            disk.in_queue_ms,
            disk.util_pct.clamp(0.0, 100.0)
        );
    }
    out
}

/// The line fio prints as it adds each job (init.c `add_job`), and `...` for its clones.
fn write_job_headers(out: &mut String, set: &JobSet, result: &RunResult) {
    for (index, spec) in set.jobs.iter().enumerate() {
        let size = |b: u64| num2str(b, usize::from(spec.significant_figures), 1, true, Unit::Byte);
        let range = |bs: &BlockSize| format!("{}-{}", size(bs.min()), size(bs.max()));
        let groupid = result.jobs.iter().find(|j| j.job == index).map_or(0, |j| j.groupid);
        put!(
            out,
            "{}: (g={groupid}): rw={}, bs=(R) {}, (W) {}, (T) {}, ioengine={}, iodepth={}\n",
            spec.name,
            spec.rw.name(),
            range(&spec.bs[0]),
            range(&spec.bs[1]),
            range(&spec.bs[2]),
            spec.ioengine,
            spec.iodepth
        );
        if spec.numjobs > 1 {
            out.push_str("...\n");
        }
    }
}

/// One job block (fio's `show_thread_status_normal`).
fn write_entry(out: &mut String, e: &Entry<'_>, report: &Report<'_>, opts: &OutputOptions) {
    match e.error {
        None => {
            put!(
                out,
                "{}: (groupid={}, jobs={}): err= 0: pid={}: {}\n",
                e.name,
                e.groupid,
                e.members,
                e.pid,
                opts.wall.ctime
            );
        }
        // fio's verror names the source place of td_verror; the twin's is backend.c's call.
        Some(f) => put!(
            out,
            "{}: (groupid={}, jobs={}): err={:2} ({}): pid={}: {}\n",
            e.name,
            e.groupid,
            e.members,
            f.errno,
            f.verror(),
            e.pid,
            opts.wall.ctime
        ),
    }
    let percentiles = e.percentile_list();
    let sig_figs = usize::from(e.spec.significant_figures);
    let mixed = e.spec.unified_rw_reporting == UnifiedRw::Mixed;
    for dir in Direction::ALL {
        let d = &e.dirs[dir.index()];
        if d.io_bytes > 0 {
            let group_agg = report.group(e.groupid).map_or(0, |g| g.agg[dir.index()]);
            let label = if mixed { "mixed" } else { dir.name() };
            write_dir(out, label, dir, d, group_agg, &percentiles, e.spec.percentiles_of, sig_figs, e.zone_resets);
        }
    }
    if e.spec.unified_rw_reporting == UnifiedRw::Both {
        // fio's show_mixed_ddir_status: the directions summed, against the read aggregate.
        let group_agg = report.group(e.groupid).map_or(0, |g| g.agg[0]);
        let m = DirReport::mixed(&e.dirs);
        write_dir(out, "mixed", Direction::Read, &m, group_agg, &percentiles, e.spec.percentiles_of, sig_figs, 0);
    }

    let total = e.total_ios();
    let buckets = e.lat_buckets();
    write_lat_buckets(out, "nsec", &report::lat_pct(&buckets.ns, total));
    write_lat_buckets(out, "usec", &report::lat_pct(&buckets.us, total));
    write_lat_buckets(out, "msec", &report::lat_pct(&buckets.ms, total));

    let (usr_cpu, sys_cpu) = e.cpu_pct();
    put!(out, "  cpu          : usr={usr_cpu:.2}%, sys={sys_cpu:.2}%, ctx={}, majf=0, minf=0\n", e.ctx);
    let depth = report::depth_pct(&e.iodepth_level);
    put!(out, "  IO depths    : {}\n", pct_list(&["1", "2", "4", "8", "16", "32", ">=64"], &depth));
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    let batch = report::batch_pct(total);
    put!(out, "     submit    : {}\n", pct_list(&batch_keys, &batch));
    put!(out, "     complete  : {}\n", pct_list(&batch_keys, &batch));
    put!(
        out,
        "     issued rwts: total={},{},{},0 short=0,0,0,0 dropped=0,0,0,0\n",
        e.dirs[0].total_ios,
        e.dirs[1].total_ios,
        e.dirs[2].total_ios
    );
    let (target_ns, window_ns, percentile) = e.latency_target();
    put!(
        out,
        "     latency   : target={target_ns}, window={window_ns}, percentile={percentile:.2}%, depth={}\n",
        e.latency_depth()
    );
    if let (Some(ss), Some((bw_mean, iops_mean))) = (e.steadystate, e.steadystate_means()) {
        put!(
            out,
            "  steadystate  : attained={}, bw={} ({}), iops={}, {}{}={:.3}{}\n",
            if ss.attained { "yes" } else { "no" },
            num2str(bw_mean / 1024, sig_figs, 1024, true, Unit::BytePerSec),
            num2str(bw_mean / 1024, sig_figs, 1024, false, Unit::BytePerSec),
            num2str(iops_mean, sig_figs, 1, false, Unit::None),
            if ss.spec.bandwidth { "bw" } else { "iops" },
            if ss.spec.slope { " slope" } else { " mean dev" },
            ss.criterion,
            if ss.spec.percent { "%" } else { "" }
        );
    }
}

/// `1=0.1%, 2=0.1%, ...` with one decimal.
fn pct_list(keys: &[&str], values: &[f64]) -> String {
    let parts: Vec<String> = keys.iter().zip(values).map(|(k, v)| format!("{k}={v:3.1}%")).collect();
    parts.join(", ")
}

/// One direction (fio's `show_ddir_status`), labelled `label` (its name, or `mixed`).
#[allow(clippy::too_many_arguments)]
fn write_dir(
    out: &mut String,
    label: &str,
    dir: Direction,
    d: &DirReport,
    group_agg: u64,
    percentiles: &[f64],
    percentiles_of: PercentilesOf,
    sig_figs: usize,
    zone_resets: u64,
) {
    if d.runtime_ms == 0 {
        return;
    }
    let bw = d.bw_bytes();
    // fio 3.33 reports zone resets after every write line (0 on a conventional device).
    let post = if dir == Direction::Write && label == "write" {
        format!("; {zone_resets} zone resets")
    } else {
        String::new()
    };
    put!(
        out,
        "  {label}: IOPS={}, BW={} ({})({}/{}msec){post}\n",
        num2str(d.iops_int(), sig_figs, 1, false, Unit::None),
        num2str(bw, sig_figs, 1, true, Unit::BytePerSec),
        num2str(bw, sig_figs, 1, false, Unit::BytePerSec),
        num2str(d.io_bytes, sig_figs, 1, true, Unit::Byte),
        d.runtime_ms
    );
    write_lat(out, "slat", &d.latency.slat);
    write_lat(out, "clat", &d.latency.clat);
    write_lat(out, " lat", &d.latency.lat);
    let prios = d.prios_to_show();
    for p in &prios {
        write_lat(out, &format!("clat prio {}/{}", p.priority.class, p.priority.level), &p.clat);
    }
    // fio's order: slat, clat, lat; each where the job asks for it and it has samples.
    let (l, of) = (&d.latency, percentiles_of);
    if of.slat && l.slat.n > 0 {
        write_percentiles(out, "slat", &l.slat_hist, percentiles);
    }
    if of.clat && l.clat.n > 0 {
        write_percentiles(out, "clat", &l.clat_hist, percentiles);
    }
    if of.lat && l.lat.n > 0 {
        write_percentiles(out, "lat", &l.lat_hist, percentiles);
    }
    if of.clat && d.latency.clat.n > 0 {
        for p in &prios {
            let share = 100.0 * p.clat.n as f64 / d.latency.clat.n as f64;
            let name = format!("clat prio {}/{} ({share:.2}% of IOs)", p.priority.class, p.priority.level);
            write_percentiles(out, &name, &p.clat_hist, percentiles);
        }
    }

    if d.bw.n > 0 {
        let per = d.bw_agg_pct(group_agg);
        let (mut min, mut max, mut mean, mut dev) = (d.bw.min, d.bw.max, d.bw.mean, d.bw.stddev());
        let mut unit = "KiB";
        if mean > 1024.0 * 1024.0 {
            min /= 1024;
            max /= 1024;
            mean /= 1024.0;
            dev /= 1024.0;
            unit = "MiB";
        }
        put!(
            out,
            "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={per:3.2}%, avg={mean:5.2}, stdev={dev:5.2}, samples={}\n",
            d.bw.n
        );
    }
    if d.iops.n > 0 {
        put!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}\n",
            d.iops.min,
            d.iops.max,
            d.iops.mean,
            d.iops.stddev(),
            d.iops.n
        );
    }
}

/// `    clat (usec): min=20, max=2161, avg=102.00, stdev=74.32` (fio's `display_lat`).
fn write_lat(out: &mut String, name: &str, s: &LatStats) {
    if s.n == 0 {
        return;
    }
    let (mut min, mut max, mut mean, mut dev) = (s.min, s.max, s.mean(), s.stddev());
    let unit = if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        min /= 1_000_000;
        max /= 1_000_000;
        mean /= 1_000_000.0;
        dev /= 1_000_000.0;
        "msec"
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        min /= 1000;
        max /= 1000;
        mean /= 1000.0;
        dev /= 1000.0;
        "usec"
    } else {
        "nsec"
    };
    put!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={mean:5.2}, stdev={dev:5.2}\n",
        num2str(min, 6, 1, false, Unit::None),
        num2str(max, 6, 1, false, Unit::None)
    );
}

/// The percentile block (fio's `show_clat_percentiles`): the unit is chosen from the smallest
/// and largest reported values, values are rounded up into it, and entries are laid out as
/// many per line as fit in 80 columns.
fn write_percentiles(out: &mut String, name: &str, hist: &PlatHistogram, list: &[f64]) {
    if list.is_empty() {
        return;
    }
    let values = hist.percentiles(list);
    let minv = values.iter().copied().min().unwrap_or(0);
    let maxv = values.iter().copied().max().unwrap_or(0);
    let (scale_down, divisor, unit) = if minv > 2_000_000 && maxv > 99_999_999 {
        (2, 1_000_000, "msec")
    } else if minv > 2000 && maxv > 99_999 {
        (1, 1000, "usec")
    } else {
        (0, 1, "nsec")
    };
    put!(out, "    {name} percentiles ({unit}):\n     |");

    // fio: max(5, (int)(log10(maxv / divisor) + 1)), i.e. the digits of the largest value.
    let largest = maxv / divisor;
    let digits = if largest == 0 { 0 } else { largest.to_string().len() };
    let time_width = digits.max(5);
    let per_line = (80 - 7) / (PERCENTILE_PRECISION + 10 + time_width);
    let label_width = PERCENTILE_PRECISION + 3;

    for (j, (p, value)) in list.iter().zip(values).enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let is_last = j == list.len() - 1;
        let mut shown = value;
        for _ in 0..scale_down {
            shown = shown.div_ceil(1000);
        }
        put!(
            out,
            " {p:label_width$.PERCENTILE_PRECISION$}th=[{shown:time_width$}]{}",
            if is_last { '\n' } else { ',' }
        );
        if is_last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

/// `  lat (usec)   : 50=0.04%, 100=54.45%, ...`, five buckets per line, empty buckets
/// skipped (fio's `show_lat`).
fn write_lat_buckets(out: &mut String, unit: &str, pct: &[f64]) {
    let labels = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"];
    let shown: Vec<String> =
        labels.iter().zip(pct).filter(|(_, p)| **p > 0.0).map(|(label, p)| format!("{label}={p:3.2}%")).collect();
    for line in shown.chunks(5) {
        put!(out, "  lat ({unit})   : {}\n", line.join(", "));
    }
}

/// `Run status group N (all jobs):` and one line per direction that ran (fio's
/// `show_group_stats`).
fn write_group(out: &mut String, g: &GroupRun) {
    put!(out, "\nRun status group {} (all jobs):\n", g.groupid);
    // fio labels the first direction MIXED when every direction went into it.
    let labels = if g.unified == 1 { ["  MIXED", "  WRITE", "   TRIM"] } else { ["   READ", "  WRITE", "   TRIM"] };
    for (i, label) in labels.iter().enumerate() {
        if g.max_run[i] > 0 {
            write_group_line(out, label, &g.line(i), g.sig_figs);
        }
    }
    if g.unified == 2 {
        write_group_line(out, "  MIXED", &g.mixed(), g.sig_figs);
    }
}

/// `   READ: bw=… (…), …-… (…-…), io=… (…), run=…-…msec`.
fn write_group_line(out: &mut String, label: &str, l: &GroupLine, sig_figs: usize) {
    let rate = |v: u64, pow2: bool| num2str(v, sig_figs, 1, pow2, Unit::BytePerSec);
    let bytes = |v: u64, pow2: bool| num2str(v, sig_figs, 1, pow2, Unit::Byte);
    put!(
        out,
        "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec\n",
        rate(l.agg, true),
        rate(l.agg, false),
        rate(l.min_bw, true),
        rate(l.max_bw, true),
        rate(l.min_bw, false),
        rate(l.max_bw, false),
        bytes(l.iobytes, true),
        bytes(l.iobytes, false),
        l.min_run,
        l.max_run
    );
}

#[cfg(test)]
mod tests {
    use super::super::json::testutil::*;
    use super::*;
    use crate::workload::{DirResult, RwPattern};

    /// Clat values spread over `(count, lo_ns, hi_ns)` ranges, paired with slats of
    /// 855–1854 ns.
    fn weighted(ranges: &[(usize, u64, u64)]) -> Vec<(u64, u64)> {
        let clats = ranges.iter().flat_map(|&(n, lo, hi)| spread(n, lo, hi));
        clats.enumerate().map(|(i, clat)| (855 + i as u64 % 1000, clat)).collect()
    }

    /// The job behind fio-3.33/randread-normal.txt: `t`, randrw (or randread), libaio,
    /// iodepth 16, 1001 ms, 104047 reads and 44408 writes spread over the same latency
    /// buckets as fio's.
    fn reference_like(read_only: bool) -> (JobSet, RunResult) {
        let mut spec = JobSpec::new("t");
        spec.rw = if read_only { RwPattern::RandRead } else { RwPattern::RandRw };
        spec.iodepth = 16;
        spec.ioengine = "libaio".into();
        let set = JobSet { global_options: Vec::new(), jobs: vec![spec] };
        let reads = weighted(&[
            (40, 21_000, 49_000),
            (56_000, 50_000, 99_000),
            (46_000, 100_000, 249_000),
            (420, 250_000, 499_000),
            (450, 500_000, 749_000),
            (290, 750_000, 999_000),
            (110, 1_000_000, 1_999_000),
            (737, 2_000_000, 3_999_000),
        ]);
        let writes = weighted(&[
            (20, 31_000, 49_000),
            (20_000, 50_000, 99_000),
            (23_000, 100_000, 249_000),
            (300, 250_000, 499_000),
            (300, 500_000, 749_000),
            (200, 750_000, 999_000),
            (80, 1_000_000, 1_999_000),
            (508, 2_000_000, 3_999_000),
        ]);
        let write =
            if read_only { DirResult::default() } else { dir(&writes, 4096, 1_000_500_000, &[177_976.0], &[44_494.0]) };
        let dirs = [dir(&reads, 4096, 1_000_500_000, &[414_712.0], &[103_678.0]), write, DirResult::default()];
        (set, run(vec![clone_result(0, 0, "t", 0, dirs, 4, (0, 1_000_500_000))], 1_000_500_000))
    }

    /// A line with every number replaced by `N` and the spaces after the indentation
    /// removed, so that lines with different figures but the same layout compare equal.
    fn shape(line: &str) -> String {
        let body = line.trim_start();
        let mut out = " ".repeat(line.len() - body.len());
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_ascii_digit() {
                while chars.peek().is_some_and(|d| d.is_ascii_digit() || *d == '.') {
                    chars.next();
                }
                out.push('N');
            } else if !c.is_whitespace() {
                out.push(c);
            }
        }
        out
    }

    fn assert_same_lines(ours: &str, theirs: &str) {
        let ours: Vec<String> = ours.lines().map(shape).collect();
        let theirs: Vec<String> = theirs.lines().map(shape).collect();
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "line {}", i + 1);
        }
        assert_eq!(ours.len(), theirs.len(), "line count");
    }

    // ---- structure against fio's own report ----

    #[test]
    fn randrw_report_has_fio_line_structure() {
        let (set, result) = reference_like(false);
        let ours = fio_normal(&set, &result, &opts(false));
        assert_same_lines(&ours, &reference_text("randread-normal.txt"));
    }

    #[test]
    fn read_only_report_has_fio_line_structure() {
        let (set, result) = reference_like(true);
        let ours = fio_normal(&set, &result, &opts(false));
        // fio's report without its write block and WRITE line, for a randread job.
        let reference = reference_text("randread-normal.txt").replace("rw=randrw", "rw=randread");
        let mut in_write = false;
        let expected: Vec<&str> = reference
            .lines()
            .filter(|line| {
                if line.starts_with("  write:") {
                    in_write = true;
                } else if line.starts_with("  lat (") {
                    in_write = false;
                }
                !in_write && !line.starts_with("  WRITE:")
            })
            .collect();
        assert_same_lines(&ours, &expected.join("\n"));
        assert!(!ours.contains("zone resets"));
    }

    #[test]
    fn percentile_blocks_follow_the_switches_in_fios_order() {
        let (mut set, result) = reference_like(true);
        set.jobs[0].percentiles_of = PercentilesOf { slat: true, clat: false, lat: true };
        let ours = fio_normal(&set, &result, &opts(false));
        let blocks: Vec<&str> = ours.lines().filter(|l| l.contains(" percentiles (")).map(str::trim).collect();
        assert_eq!(blocks, ["slat percentiles (nsec):", "lat percentiles (usec):"], "{ours}");
    }

    #[test]
    fn reference_figures_are_reproduced() {
        let (set, result) = reference_like(false);
        let ours = fio_normal(&set, &result, &opts(false));
        for line in [
            "t: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=16\n\
             fio-3.33\nStarting 1 process\n\nt: (groupid=0, jobs=1): err= 0: pid=4000: Sat Nov 21 19:12:08 2026\n",
            "  read: IOPS=104k, BW=406MiB/s (426MB/s)(406MiB/1001msec)\n",
            "  write: IOPS=44.4k, BW=173MiB/s (182MB/s)(173MiB/1001msec); 0 zone resets\n",
            "   bw (  KiB/s): min=414712, max=414712, per=99.74%, avg=414712.00, stdev= 0.00, samples=1\n",
            "   iops        : min=103678, max=103678, avg=103678.00, stdev= 0.00, samples=1\n",
            "   bw (  KiB/s): min=177976, max=177976, per=100.00%, avg=177976.00, stdev= 0.00, samples=1\n",
            "     issued rwts: total=104047,44408,0,0 short=0,0,0,0 dropped=0,0,0,0\n",
            "     latency   : target=0, window=0, percentile=100.00%, depth=16\n",
            "   READ: bw=406MiB/s (426MB/s), 406MiB/s-406MiB/s (426MB/s-426MB/s), io=406MiB (426MB), run=1001-1001msec\n",
            "  WRITE: bw=173MiB/s (182MB/s), 173MiB/s-173MiB/s (182MB/s-182MB/s), io=173MiB (182MB), run=1001-1001msec\n",
            "\nDisk stats (read/write):\n  vda: ios=335587/143974, merge=0/0, ticks=24559/10210, in_queue=34768, util=91.11%\n",
        ] {
            assert!(ours.contains(line), "missing {line:?} in\n{ours}");
        }
    }

    // ---- units and layout ----

    #[test]
    fn latency_units_switch_as_fio_does() {
        let mut out = String::new();
        let stats = |values: &[u64]| {
            let mut s = LatStats::default();
            for &v in values {
                s.record(v);
            }
            s
        };
        write_lat(&mut out, "clat", &stats(&[855, 72_544, 1_200]));
        write_lat(&mut out, "clat", &stats(&[20_500, 2_161_000, 90_000]));
        write_lat(&mut out, "clat", &stats(&[3_000_000, 150_000_000, 9_000_000]));
        // min above 2000 ns but a tight spread: fio stays in nsec.
        write_lat(&mut out, "clat", &stats(&[100_000, 100_100]));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "    clat (nsec): min=855, max=72544, avg=24866.33, stdev=41290.43");
        assert!(lines[1].starts_with("    clat (usec): min=20, max=2161, avg="), "{}", lines[1]);
        assert!(lines[2].starts_with("    clat (msec): min=3, max=150, avg=54.00,"), "{}", lines[2]);
        assert!(lines[3].starts_with("    clat (nsec): min=100000, max=100100, avg=100050.00,"), "{}", lines[3]);
    }

    #[test]
    fn percentile_block_layout() {
        let mut hist = PlatHistogram::default();
        for v in 1..=1000u64 {
            hist.record(v * 3_000);
        }
        let mut out = String::new();
        write_percentiles(&mut out, "clat", &hist, &crate::workload::DEFAULT_PERCENTILES);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "    clat percentiles (usec):");
        assert_eq!(lines.len(), 6, "17 values, 4 per line:\n{out}");
        assert!(lines[1].starts_with("     |  1.00th=[   31],  5.00th=[  151], 10.00th=[  302],"), "{}", lines[1]);
        assert!(lines[5].starts_with("     | 99.99th=[ 2999]"), "{}", lines[5]);
        // Below 2 µs at the low end fio keeps nanoseconds, and widens the brackets.
        let mut hist = PlatHistogram::default();
        for v in [1_000u64, 5_000_000] {
            hist.record(v);
        }
        let mut out = String::new();
        write_percentiles(&mut out, "clat", &hist, &[50.0, 100.0]);
        assert_eq!(out, "    clat percentiles (nsec):\n     | 50.00th=[   1004], 100.00th=[5013504]\n");
    }

    #[test]
    fn bandwidth_above_one_gib_per_second_prints_in_mib() {
        let (set, mut result) = reference_like(true);
        result.jobs[0].dirs[0].bw_samples = vec![3_145_728.0, 3_145_728.0];
        let ours = fio_normal(&set, &result, &opts(false));
        assert!(
            ours.contains("   bw (  MiB/s): min= 3072, max= 3072, per=100.00%, avg=3072.00, stdev= 0.00, samples=2\n")
        );
    }

    #[test]
    fn latency_bucket_lines_hold_five_buckets() {
        let mut out = String::new();
        write_lat_buckets(&mut out, "usec", &[0.0, 0.0, 0.0, 0.0, 0.04, 54.45, 44.29, 0.4, 0.43, 0.28]);
        write_lat_buckets(&mut out, "nsec", &[0.0; 10]);
        assert_eq!(
            out,
            "  lat (usec)   : 50=0.04%, 100=54.45%, 250=44.29%, 500=0.40%, 750=0.43%\n  lat (usec)   : 1000=0.28%\n"
        );
    }

    // ---- jobs, clones and groups ----

    #[test]
    fn group_reporting_prints_one_block_per_group() {
        let reference = reference_json("randrw-2jobs-group.json");
        let ours = fio_normal(&randrw_set(&reference), &randrw_result(), &opts(false));
        assert!(ours.starts_with(
            "mix: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, \
                                  ioengine=libaio, iodepth=8\n...\nfio-3.33\nStarting 2 processes\n\n"
        ));
        assert_eq!(ours.matches("(groupid=0, jobs=2)").count(), 1);
        assert_eq!(ours.matches("Run status group").count(), 1);
    }

    #[test]
    fn separate_groups_get_separate_status() {
        let mut set = JobSet::default();
        for name in ["a", "b"] {
            set.jobs.push(JobSpec::new(name));
        }
        let lat = [(0u64, 10_000u64); 4];
        let mk = |job: usize| {
            let dirs = [dir(&lat, 4096, 1_000_000_000, &[], &[]), DirResult::default(), DirResult::default()];
            clone_result(job, 0, ["a", "b"][job], job as u32, dirs, 0, (0, 1_000_000_000))
        };
        let ours = fio_normal(&set, &run(vec![mk(0), mk(1)], 2_000_000_000), &opts(false));
        assert!(ours.contains("a: (g=0): rw=read,"));
        assert!(ours.contains("b: (g=1): rw=read,"));
        assert!(ours.contains("ioengine=psync, iodepth=1\n"));
        assert!(ours.contains("\nRun status group 0 (all jobs):\n   READ: bw=16.0KiB/s (16.4kB/s)"));
        assert!(ours.contains("\nRun status group 1 (all jobs):\n   READ:"));
        // psync: no slat line, as fio.
        assert!(!ours.contains("slat"));
        // Job blocks follow each other without a blank line.
        assert!(ours.contains("depth=1\nb: (groupid=1, jobs=1)"));
    }
}
