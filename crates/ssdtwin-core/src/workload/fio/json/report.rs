//! What fio reports, before it is formatted: clones merged into report entries and per-group
//! run statistics, computed as fio 3.33's `__show_run_stats` (stat.c) computes them.
//!
//! * [`Entry`] is fio's `struct thread_stat` after `sum_thread_stats`: one per clone, or one
//!   per run of consecutive `group_reporting` clones of the same group.
//! * [`GroupRun`] is fio's `struct group_run_stats`: per direction, the span of runtimes and
//!   bandwidths over a group's entries and its aggregate bandwidth (`bw_agg`, `Run status`).
//! * [`Report`] holds both; the JSON writer and the normal writer read the same numbers.
//!
//! Every derived number follows fio's integer arithmetic (see each function). The model uses
//! no host CPU, so fio's CPU and page-fault figures are zero, and it submits and reaps one
//! I/O per call, so fio's submit/complete batch histograms put every I/O in the `4` (1–4)
//! bucket.

use crate::stats::{DirLatency, LatBuckets};
use crate::workload::{DirResult, GroupResult, JobSet, JobSpec, PrioLatency, RunResult, UnifiedRw, is_sync_engine};
use std::collections::BTreeSet;

/// The version ssdtwin impersonates, as fio prints it.
pub(crate) const FIO_VERSION: &str = "fio-3.33";

/// fio's `FIO_IO_U_LIST_MAX_LEN`: at most this many percentiles are reported.
const PERCENTILE_LIST_MAX: usize = 20;

/// fio's per-direction `runtime`, ms. `update_runtime` (backend.c) takes the elapsed time in
/// whole µs and rounds it up to whole ms, so 2000.4 ms of measurement prints as 2001.
pub(crate) fn runtime_ms(ns: u64) -> u64 {
    (ns / 1_000).div_ceil(1_000)
}

/// fio's `mtime_since`: whole ms, truncated (used for `job_runtime`).
pub(crate) fn mtime_ms(ns: u64) -> u64 {
    ns / 1_000_000
}

/// fio's `elapsed`, s: `(mtime_since_genesis() + 999) / 1000` (eta.c), rounded up.
pub(crate) fn elapsed_s(ns: u64) -> u64 {
    mtime_ms(ns).div_ceil(1_000)
}

/// Engines fio flags `FIO_DISKLESSIO`: jobs using them have no block device, so fio prints no
/// `disk_util` (JSON) or `Disk stats` (normal output) unless another job has one.
fn is_diskless_engine(engine: &str) -> bool {
    matches!(engine, "null" | "nbd" | "cpuio" | "net" | "netsplice" | "rdma" | "rbd" | "http")
}

/// True if fio would report disk statistics for this job set.
pub(crate) fn has_disk(set: &JobSet) -> bool {
    set.jobs.iter().any(|j| !is_diskless_engine(&j.ioengine))
}

/// fio's `stat_calc_dist` of its depth counts: percentages of the I/Os issued (fio's
/// `total_io_u`, which counts the same submissions; I/Os still in flight at the deadline are
/// issued but not completed), with any non-zero share below 0.1 % shown as 0.1 % (which is
/// why fio's depth percentages can sum past 100).
pub(crate) fn depth_pct(counts: &[u64]) -> Vec<f64> {
    let total: u64 = counts.iter().sum();
    counts
        .iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let pct = c as f64 / total as f64 * 100.0;
            if pct < 0.1 && c > 0 { 0.1 } else { pct }
        })
        .collect()
}

/// fio's `stat_calc_lat`: latency-bucket counts as percentages of all I/Os (read + write +
/// trim), with any non-zero share below 0.01 % shown as 0.01 %.
pub(crate) fn lat_pct(counts: &[u64], total: u64) -> Vec<f64> {
    counts
        .iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let pct = c as f64 / total as f64 * 100.0;
            if pct < 0.01 && c > 0 { 0.01 } else { pct }
        })
        .collect()
}

/// fio's submit and complete batch histograms (`iodepth_submit`, `iodepth_complete`; buckets
/// 0, 1–4, 5–8, 9–16, 17–32, 33–64, >64 I/Os per call). ssdtwin submits and reaps one I/O per
/// call, so every call is in the 1–4 bucket.
pub(crate) fn batch_pct(total_ios: u64) -> [f64; 7] {
    let mut pct = [0.0; 7];
    if total_ios > 0 {
        pct[1] = 100.0;
    }
    pct
}

/// fio's `struct io_stat` over windowed bandwidth (KiB/s) or IOPS samples: min, max, mean,
/// the sum of squared deviations, and the sample count.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SampleStats {
    /// Smallest sample (after group summing: the sum of the clones' minima).
    pub(crate) min: u64,
    /// Largest sample (after group summing: the sum of the maxima).
    pub(crate) max: u64,
    /// Mean sample.
    pub(crate) mean: f64,
    /// Sum of squared deviations from the mean (fio's `S`).
    pub(crate) sum_sq_dev: f64,
    /// Number of samples (windows).
    pub(crate) n: u64,
}

impl SampleStats {
    /// Statistics of one clone's window samples. fio computes each window's rate with integer
    /// division (`add_bw_samples`, `add_iops_samples`), so samples are truncated to integers
    /// first; negative or non-finite samples count as 0.
    pub(crate) fn of(samples: &[f64]) -> Self {
        if samples.is_empty() {
            return SampleStats::default();
        }
        let values: Vec<u64> = samples.iter().map(|&s| if s.is_finite() && s > 0.0 { s as u64 } else { 0 }).collect();
        let n = values.len() as u64;
        let sum: u128 = values.iter().map(|&v| u128::from(v)).sum();
        let mean = sum as f64 / n as f64;
        let sum_sq_dev = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum();
        SampleStats {
            min: values.iter().copied().min().unwrap_or(0),
            max: values.iter().copied().max().unwrap_or(0),
            mean,
            sum_sq_dev,
            n,
        }
    }

    /// fio's `sum_stat(dst, src, pure_sum = true)`, used for bandwidth and IOPS under
    /// `group_reporting`: the clones run side by side, so their rates add. Minima, maxima,
    /// means, squared deviations and sample counts are each summed (not window by window:
    /// fio sums the per-clone statistics).
    pub(crate) fn add(&mut self, other: &SampleStats) {
        if other.n == 0 {
            return;
        }
        if self.n == 0 {
            *self = *other;
            return;
        }
        self.min += other.min;
        self.max += other.max;
        self.mean += other.mean;
        self.sum_sq_dev += other.sum_sq_dev;
        self.n += other.n;
    }

    /// Sample standard deviation, as fio's `calc_lat` (0 with fewer than two samples).
    pub(crate) fn stddev(&self) -> f64 {
        if self.n > 1 { (self.sum_sq_dev / (self.n - 1) as f64).sqrt() } else { 0.0 }
    }
}

/// One direction of one report entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DirReport {
    /// Bytes transferred (summed over the entry's clones).
    pub(crate) io_bytes: u64,
    /// I/Os completed (summed).
    pub(crate) total_ios: u64,
    /// Measured time, ms (the longest of the clones', as fio's `sum_thread_stats`).
    pub(crate) runtime_ms: u64,
    /// Latencies, merged.
    pub(crate) latency: DirLatency,
    /// Bandwidth window statistics, KiB/s.
    pub(crate) bw: SampleStats,
    /// IOPS window statistics.
    pub(crate) iops: SampleStats,
    /// Completion latencies per I/O priority, merged by priority in order of appearance.
    pub(crate) prios: Vec<PrioLatency>,
}

impl DirReport {
    /// The per-priority statistics fio prints: only when two or more priorities have
    /// samples (stat.c `get_nr_prios_with_samples`), and only those that have.
    pub(crate) fn prios_to_show(&self) -> Vec<&PrioLatency> {
        let with_samples: Vec<&PrioLatency> = self.prios.iter().filter(|p| p.clat.n > 0).collect();
        if with_samples.len() >= 2 { with_samples } else { Vec::new() }
    }

    /// Adds one clone. `with_slat` is false for synchronous engines: fio samples submission
    /// latency only when the engine queues asynchronously, so `psync` reports `slat` N = 0.
    fn add_clone(&mut self, dir: &DirResult, with_slat: bool) {
        self.io_bytes += dir.io_bytes;
        self.total_ios += dir.total_ios;
        // fio sets a direction's runtime only if it moved data (backend.c `update_runtime`).
        let runtime = if dir.io_bytes > 0 { runtime_ms(dir.runtime_ns) } else { 0 };
        self.runtime_ms = self.runtime_ms.max(runtime);
        if with_slat {
            self.latency.merge(&dir.latency);
        } else {
            let slat = std::mem::take(&mut self.latency.slat);
            self.latency.merge(&dir.latency);
            self.latency.slat = slat;
        }
        self.bw.add(&SampleStats::of(&dir.bw_samples));
        self.iops.add(&SampleStats::of(&dir.iops_samples));
        self.merge_prios(&dir.prios);
    }

    /// Merges per-priority latencies by priority, new ones in order of appearance.
    fn merge_prios(&mut self, prios: &[PrioLatency]) {
        for p in prios {
            match self.prios.iter_mut().find(|q| q.priority == p.priority) {
                Some(q) => q.merge(p),
                None => self.prios.push(p.clone()),
            }
        }
    }

    /// Folds in another direction of the same entry, as fio's `sum_thread_stats` sums every
    /// direction into one under `unified_rw_reporting=mixed`: bytes and I/Os add, the longest
    /// runtime stands, latencies merge, and bandwidth and IOPS samples add (`sum_stat` with
    /// `pure_sum`).
    fn add_direction(&mut self, other: &DirReport) {
        self.io_bytes += other.io_bytes;
        self.total_ios += other.total_ios;
        self.runtime_ms = self.runtime_ms.max(other.runtime_ms);
        self.latency.merge(&other.latency);
        self.bw.add(&other.bw);
        self.iops.add(&other.iops);
        self.merge_prios(&other.prios);
    }

    /// Every direction summed into one (fio's `gen_mixed_ddir_stats_from_ts`).
    pub(crate) fn mixed(dirs: &[DirReport; 3]) -> DirReport {
        let mut m = DirReport::default();
        for d in dirs {
            m.add_direction(d);
        }
        m
    }

    /// `bw_bytes`: `1000 * io_bytes / runtime_ms`, integer, B/s.
    pub(crate) fn bw_bytes(&self) -> u64 {
        if self.runtime_ms == 0 {
            return 0;
        }
        (u128::from(self.io_bytes) * 1000 / u128::from(self.runtime_ms)) as u64
    }

    /// `bw`: `bw_bytes / 1024`, integer, KiB/s.
    pub(crate) fn bw_kib(&self) -> u64 {
        self.bw_bytes() / 1024
    }

    /// `iops` in the JSON: `1000.0 * total_ios / runtime_ms`.
    pub(crate) fn iops(&self) -> f64 {
        if self.runtime_ms == 0 {
            return 0.0;
        }
        1000.0 * self.total_ios as f64 / self.runtime_ms as f64
    }

    /// IOPS in the normal output: the same ratio in integer arithmetic.
    pub(crate) fn iops_int(&self) -> u64 {
        if self.runtime_ms == 0 {
            return 0;
        }
        (u128::from(self.total_ios) * 1000 / u128::from(self.runtime_ms)) as u64
    }

    /// `io_kbytes`: `io_bytes >> 10`.
    pub(crate) fn io_kbytes(&self) -> u64 {
        self.io_bytes >> 10
    }

    /// `bw_agg` / `per=`: this entry's mean window bandwidth as a share of the group's
    /// aggregate, capped at 100 % (fio's `convert_agg_kbytes_percent`, which takes the mean
    /// as an `int`). 0 when there are no bandwidth samples, as in fio's JSON.
    pub(crate) fn bw_agg_pct(&self, group_agg_bytes: u64) -> f64 {
        if self.bw.n == 0 {
            return 0.0;
        }
        if group_agg_bytes <= 1024 {
            return 100.0;
        }
        let mean = self.bw.mean.min(f64::from(i32::MAX)) as i32;
        (f64::from(mean) * 100.0 / (group_agg_bytes as f64 / 1024.0)).min(100.0)
    }
}

/// One element of fio's `"jobs"` array (one job block in the normal output).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry<'a> {
    /// `jobname`: the first member's name.
    pub(crate) name: &'a str,
    /// The last member's job: fio takes `job options`, the percentile list and
    /// `latency_depth` from the last clone it folds in (`opt_lists[j] = &td->opt_list`).
    /// Clones of one job share their job, so this only matters when different jobs merge.
    pub(crate) spec: &'a JobSpec,
    /// Reporting group.
    pub(crate) groupid: u32,
    /// Clones folded in (`jobs=` in the normal output).
    pub(crate) members: u32,
    /// Per direction, in fio's order.
    pub(crate) dirs: [DirReport; 3],
    /// `job_runtime`: each clone's measured span in whole ms, summed.
    pub(crate) job_runtime_ms: u64,
    /// I/Os issued at each depth bucket, summed.
    pub(crate) iodepth_level: [u64; 7],
    /// The last member's `latency_depth`.
    pub(crate) latency_depth: u64,
    /// Thread CPU time in user space, summed, ns.
    pub(crate) usr_ns: u64,
    /// Thread CPU time in the kernel, summed, ns.
    pub(crate) sys_ns: u64,
    /// Context switches, summed.
    pub(crate) ctx: u64,
    /// The first member's process id (fio shows a group's first).
    pub(crate) pid: u32,
    /// fsync/fdatasync latencies, merged.
    pub(crate) sync_lat: crate::stats::LatStats,
    /// Measured spans, summed, ns (the denominator of the CPU shares).
    pub(crate) runtime_ns: u64,
    /// Steady-state detection, from the last clone that has it (fio keeps a group's on
    /// its last clone).
    pub(crate) steadystate: Option<&'a crate::workload::SteadyResult>,
    /// The first member's error (fio's `sum_thread_stats` keeps the first).
    pub(crate) error: Option<&'a crate::workload::JobFailure>,
    /// `zonemode=zbd`: zone resets, summed.
    pub(crate) zone_resets: u64,
}

impl Entry<'_> {
    /// fio's `steadystate_bw_mean` and `steadystate_iops_mean`: a window's sums over its
    /// full length (samples not yet taken count as 0), in integers.
    pub(crate) fn steadystate_means(&self) -> Option<(u64, u64)> {
        let ss = self.steadystate?;
        let n = ss.spec.samples().max(1) as u64;
        Some((ss.bw.iter().sum::<u64>() / n, ss.iops.iter().sum::<u64>() / n))
    }

    /// fio's `usr_cpu` and `sys_cpu`: CPU time as a share of the run time, percent
    /// (`show_thread_status_json`: `usr_time * 100 / total_run_time`).
    pub(crate) fn cpu_pct(&self) -> (f64, f64) {
        if self.runtime_ns == 0 {
            return (0.0, 0.0);
        }
        let share = |ns: u64| ns as f64 * 100.0 / self.runtime_ns as f64;
        (share(self.usr_ns), share(self.sys_ns))
    }

    /// I/Os over all directions: fio's denominator for the depth and latency-bucket shares.
    pub(crate) fn total_ios(&self) -> u64 {
        self.dirs.iter().map(|d| d.total_ios).sum()
    }

    /// True if there is nothing to print (fio skips such entries in the normal output).
    pub(crate) fn is_idle(&self) -> bool {
        self.dirs.iter().all(|d| d.io_bytes == 0 && d.total_ios == 0)
    }

    /// Completion-latency buckets over all directions (fio keeps one set per job).
    pub(crate) fn lat_buckets(&self) -> LatBuckets {
        let mut buckets = LatBuckets::default();
        for d in &self.dirs {
            buckets.merge(&d.latency.buckets);
        }
        buckets
    }

    /// The percentile list as fio uses it: cut at the first 0 or at 20 values, then sorted
    /// ascending (`calc_clat_percentiles` sorts it in place, so the JSON keys come out sorted).
    pub(crate) fn percentile_list(&self) -> Vec<f64> {
        let mut list: Vec<f64> =
            self.spec.percentile_list.iter().copied().take_while(|&p| p != 0.0).take(PERCENTILE_LIST_MAX).collect();
        list.sort_by(f64::total_cmp);
        list
    }

    /// `latency_depth`: fio's `latency_qd`: the depth a latency target settled on, else
    /// the configured `iodepth` (fio keeps the value as written even when a synchronous
    /// engine caps the depth at 1).
    pub(crate) fn latency_depth(&self) -> u64 {
        self.latency_depth
    }

    /// `latency_target` (ns), `latency_window` (ns) and `latency_percentile` as fio prints
    /// them: 0, 0 and 100 without a target.
    pub(crate) fn latency_target(&self) -> (u64, u64, f64) {
        match self.spec.latency_target {
            Some(t) => (t.target_ns, t.window_ns, t.percentile),
            None => (0, 0, 100.0),
        }
    }
}

/// fio's default `significant_figures`.
const SIG_FIGS_DEFAULT: usize = 4;

/// fio's `struct group_run_stats`, per direction (index = fio's `ddir`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GroupRun {
    /// Group id.
    pub(crate) groupid: u32,
    /// Shortest entry runtime, ms.
    pub(crate) min_run: [u64; 3],
    /// Longest entry runtime, ms (0: the direction did nothing in this group).
    pub(crate) max_run: [u64; 3],
    /// Lowest entry bandwidth, B/s.
    pub(crate) min_bw: [u64; 3],
    /// Highest entry bandwidth, B/s.
    pub(crate) max_bw: [u64; 3],
    /// Bytes over all entries.
    pub(crate) iobytes: [u64; 3],
    /// Aggregate bandwidth, B/s: `iobytes * 1000 / max_run`.
    pub(crate) agg: [u64; 3],
    /// Significant figures of its normal report: its last entry's (fio's `rs->sig_figs`).
    pub(crate) sig_figs: usize,
    /// fio's `rs->unified_rw_rep`: its entries' settings OR-ed (`mixed` 1, `both` 2).
    pub(crate) unified: u8,
}

impl GroupRun {
    fn new(groupid: u32) -> Self {
        GroupRun {
            groupid,
            min_run: [u64::MAX; 3],
            max_run: [0; 3],
            min_bw: [u64::MAX; 3],
            max_bw: [0; 3],
            iobytes: [0; 3],
            agg: [0; 3],
            sig_figs: SIG_FIGS_DEFAULT,
            unified: 0,
        }
    }

    /// Folds in one entry, as the loop over `threadstats` in `__show_run_stats`.
    fn add(&mut self, entry: &Entry<'_>) {
        self.sig_figs = usize::from(entry.spec.significant_figures);
        self.unified |= match entry.spec.unified_rw_reporting {
            UnifiedRw::None => 0,
            UnifiedRw::Mixed => 1,
            UnifiedRw::Both => 2,
        };
        for (i, d) in entry.dirs.iter().enumerate() {
            if d.runtime_ms == 0 {
                continue;
            }
            self.min_run[i] = self.min_run[i].min(d.runtime_ms);
            self.max_run[i] = self.max_run[i].max(d.runtime_ms);
            let bw = d.bw_bytes();
            self.min_bw[i] = self.min_bw[i].min(bw);
            self.max_bw[i] = self.max_bw[i].max(bw);
            self.iobytes[i] += d.io_bytes;
        }
    }

    /// Direction `i`'s run-status line.
    pub(crate) fn line(&self, i: usize) -> GroupLine {
        GroupLine {
            agg: self.agg[i],
            min_bw: self.min_bw[i],
            max_bw: self.max_bw[i],
            iobytes: self.iobytes[i],
            min_run: self.min_run[i],
            max_run: self.max_run[i],
        }
    }

    /// fio's `show_mixed_group_stats` sums (under `both`): bytes and aggregate bandwidth
    /// added over the directions that ran, the extremes of their bandwidths and runtimes.
    pub(crate) fn mixed(&self) -> GroupLine {
        let mut m = GroupLine { agg: 0, min_bw: u64::MAX, max_bw: 0, iobytes: 0, min_run: u64::MAX, max_run: 0 };
        for line in (0..3).filter(|&i| self.max_run[i] > 0).map(|i| self.line(i)) {
            m.iobytes += line.iobytes;
            m.agg += line.agg;
            m.min_bw = m.min_bw.min(line.min_bw);
            m.max_bw = m.max_bw.max(line.max_bw);
            m.min_run = m.min_run.min(line.min_run);
            m.max_run = m.max_run.max(line.max_run);
        }
        m
    }

    fn finish(&mut self) {
        for i in 0..3 {
            if self.max_run[i] > 0 {
                self.agg[i] = (u128::from(self.iobytes[i]) * 1000 / u128::from(self.max_run[i])) as u64;
            }
        }
    }
}

/// One line of fio's run status: aggregate, lowest and highest bandwidth (B/s), bytes, and
/// the shortest and longest runtime (ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GroupLine {
    pub(crate) agg: u64,
    pub(crate) min_bw: u64,
    pub(crate) max_bw: u64,
    pub(crate) iobytes: u64,
    pub(crate) min_run: u64,
    pub(crate) max_run: u64,
}

/// Report entries and group statistics for one run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Report<'a> {
    /// Entries in fio's order (job, then clone).
    pub(crate) entries: Vec<Entry<'a>>,
    /// Groups in ascending id.
    pub(crate) groups: Vec<GroupRun>,
}

impl<'a> Report<'a> {
    /// Folds the clones of `result` into entries. `fallback` stands in for the job of a clone
    /// whose index is not in `set` (a result paired with the wrong job set), so that writing
    /// a report never panics.
    pub(crate) fn new(set: &'a JobSet, result: &'a RunResult, fallback: &'a JobSpec) -> Self {
        let mut entries: Vec<Entry<'a>> = Vec::new();
        let mut last_groupid = None;
        for clone in &result.jobs {
            let spec = set.jobs.get(clone.job).unwrap_or(fallback);
            // fio's loop in `__show_run_stats`: a clone starts a new entry unless it has
            // group_reporting and belongs to the same group as the clone before it (whether or
            // not that one had group_reporting).
            let merge = spec.group_reporting && last_groupid == Some(clone.groupid);
            last_groupid = Some(clone.groupid);
            let entry = match entries.last_mut() {
                Some(entry) if merge => entry,
                _ => {
                    entries.push(Entry {
                        name: &clone.name,
                        spec,
                        groupid: clone.groupid,
                        members: 0,
                        dirs: Default::default(),
                        job_runtime_ms: 0,
                        iodepth_level: [0; 7],
                        usr_ns: 0,
                        sys_ns: 0,
                        ctx: 0,
                        pid: clone.pid,
                        sync_lat: crate::stats::LatStats::default(),
                        runtime_ns: 0,
                        steadystate: None,
                        error: None,
                        latency_depth: 0,
                        zone_resets: 0,
                    });
                    entries.last_mut().expect("an entry was just pushed")
                }
            };
            entry.spec = spec;
            entry.members += 1;
            entry.latency_depth = u64::from(clone.latency_depth.unwrap_or(spec.iodepth));
            let with_slat = !is_sync_engine(&spec.ioengine);
            for (report, dir) in entry.dirs.iter_mut().zip(&clone.dirs) {
                report.add_clone(dir, with_slat);
            }
            if spec.unified_rw_reporting == UnifiedRw::Mixed {
                // fio sums every direction of every clone into the first.
                let all = std::mem::take(&mut entry.dirs);
                entry.dirs[0] = DirReport::mixed(&all);
            }
            entry.job_runtime_ms += mtime_ms(clone.runtime_ns());
            entry.runtime_ns += clone.runtime_ns();
            entry.usr_ns += clone.usr_ns;
            entry.sys_ns += clone.sys_ns;
            entry.ctx += clone.ctx;
            entry.zone_resets += clone.zone_resets;
            entry.sync_lat.merge(&clone.sync_lat);
            if clone.steadystate.is_some() {
                entry.steadystate = clone.steadystate.as_ref();
            }
            if entry.error.is_none() {
                entry.error = clone.error.as_ref();
            }
            for (sum, count) in entry.iodepth_level.iter_mut().zip(clone.iodepth_level) {
                *sum += count;
            }
        }

        let ids: BTreeSet<u32> =
            entries.iter().map(|e| e.groupid).chain(result.groups.iter().map(|g| g.groupid)).collect();
        let groups = ids
            .into_iter()
            .map(|id| {
                let mut group = GroupRun::new(id);
                entries.iter().filter(|e| e.groupid == id).for_each(|e| group.add(e));
                group.finish();
                group
            })
            .collect();
        Report { entries, groups }
    }

    /// The statistics of group `groupid`.
    pub(crate) fn group(&self, groupid: u32) -> Option<&GroupRun> {
        self.groups.iter().find(|g| g.groupid == groupid)
    }
}

/// The device counters over a group's span: `time_ns` (the span) first, then each counter,
/// the difference for running totals and the end value for levels.
pub(crate) fn counter_deltas(group: &GroupResult) -> Vec<(String, u64)> {
    let span = group.counters_end.time_ns.saturating_sub(group.counters_start.time_ns);
    std::iter::once(("time_ns".to_string(), span))
        .chain(group.counters_end.delta_since(&group.counters_start))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_time_rounding() {
        assert_eq!(runtime_ms(2_000_400_000), 2001);
        assert_eq!(runtime_ms(2_000_000_999), 2000); // below 1 µs over: fio sees whole µs
        assert_eq!(runtime_ms(2_000_001_000), 2001);
        assert_eq!(mtime_ms(2_000_999_999), 2000);
        assert_eq!(elapsed_s(3_001_000_000), 4);
        assert_eq!(elapsed_s(3_000_999_999), 3);
    }

    #[test]
    fn percentages_floor_small_shares_like_fio() {
        assert_eq!(depth_pct(&[1, 9999, 0]), vec![0.1, 99.99, 0.0]);
        assert_eq!(lat_pct(&[1, 0], 1_000_000), vec![0.01, 0.0]);
        assert_eq!(depth_pct(&[0, 0]), vec![0.0, 0.0]);
    }

    #[test]
    fn window_samples_truncate_and_sum_like_fio() {
        let a = SampleStats::of(&[100.9, 200.2, 300.7]);
        assert_eq!((a.min, a.max, a.n), (100, 300, 3));
        assert!((a.mean - 200.0).abs() < 1e-12);
        assert!((a.stddev() - 100.0).abs() < 1e-12);
        let b = SampleStats::of(&[50.0, 70.0]);
        let mut sum = a;
        sum.add(&b);
        assert_eq!((sum.min, sum.max, sum.n), (150, 370, 5));
        assert!((sum.mean - 260.0).abs() < 1e-12);
        // sqrt((20000 + 200) / (5 - 1))
        assert!((sum.stddev() - (20_200.0f64 / 4.0).sqrt()).abs() < 1e-9);
        let mut empty = SampleStats::default();
        empty.add(&SampleStats::default());
        assert_eq!(empty.n, 0);
    }

    #[test]
    fn bw_agg_takes_the_mean_as_an_int_and_caps_at_100() {
        let d = DirReport { bw: SampleStats { mean: 414_712.9, n: 1, ..Default::default() }, ..Default::default() };
        // fio-3.33/randread-normal.txt: 104047 reads of 4 KiB in 1001 ms, per=99.74%.
        let agg = 104_047u64 * 4096 * 1000 / 1001;
        assert_eq!(format!("{:.2}", d.bw_agg_pct(agg)), "99.74");
        assert_eq!(format!("{:.2}", d.bw_agg_pct(agg / 2)), "100.00");
        assert_eq!(format!("{:.2}", DirReport::default().bw_agg_pct(agg)), "0.00");
    }
}
