//! What a run produces: per-clone statistics in fio's terms, per-group device counters, and
//! a time series of device counters.

use crate::block::CounterRow;
use crate::stats::DirLatency;

/// One direction of one job clone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DirResult {
    /// Bytes transferred after the ramp.
    pub io_bytes: u64,
    /// I/Os completed after the ramp.
    pub total_ios: u64,
    /// Time this direction was measured (after the ramp), ns; 0 if it issued nothing.
    pub runtime_ns: u64,
    /// Latency summaries and histogram.
    pub latency: DirLatency,
    /// Bandwidth per averaging window (fio's `bwavgtime`, 500 ms), KiB/s.
    pub bw_samples: Vec<f64>,
    /// IOPS per averaging window (`iopsavgtime`, 500 ms).
    pub iops_samples: Vec<f64>,
    /// Completion latency per I/O priority, when `cmdprio_percentage`/`cmdprio_bssplit`
    /// give this direction's commands priorities (the job's own priority first).
    pub prios: Vec<PrioLatency>,
}

/// Completion latencies of the commands of one I/O priority (fio's `clat_prio_stat`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrioLatency {
    /// The priority.
    pub priority: super::IoPriority,
    /// Summary.
    pub clat: crate::stats::LatStats,
    /// Histogram.
    pub clat_hist: crate::stats::PlatHistogram,
}

impl PrioLatency {
    /// An empty record for `priority`.
    pub fn new(priority: super::IoPriority) -> Self {
        PrioLatency { priority, ..Default::default() }
    }

    /// Records one completion latency, ns.
    pub fn record(&mut self, clat_ns: u64) {
        self.clat.record(clat_ns);
        self.clat_hist.record(clat_ns);
    }

    /// Adds another record of the same priority.
    pub fn merge(&mut self, o: &PrioLatency) {
        self.clat.merge(&o.clat);
        self.clat_hist.merge(&o.clat_hist);
    }
}

/// One clone of one job (`numjobs` makes several).
#[derive(Clone, Debug, PartialEq)]
pub struct JobResult {
    /// Index of the job in its [`JobSet`](super::JobSet).
    pub job: usize,
    /// Clone number, 0-based.
    pub clone: u32,
    /// Its process id, as fio's normal output shows it (see `runner::clone::process_id`).
    pub pid: u32,
    /// Job name.
    pub name: String,
    /// Reporting group.
    pub groupid: u32,
    /// Per direction, in fio's order.
    pub dirs: [DirResult; 3],
    /// I/Os issued at each in-flight depth: buckets 1, 2–3, 4–7, 8–15, 16–31, 32–63, ≥64.
    pub iodepth_level: [u64; 7],
    /// When the clone started issuing (after `startdelay`), ns since the run started.
    pub start_ns: u64,
    /// When its ramp ended and statistics started.
    pub ramp_end_ns: u64,
    /// When its last I/O completed.
    pub end_ns: u64,
    /// CPU time of its thread in user space over the measured span, ns (fio's `usr_cpu`).
    pub usr_ns: u64,
    /// CPU time in the kernel on its behalf (system calls, its completions' interrupt
    /// handlers, polling), ns (fio's `sys_cpu`).
    pub sys_ns: u64,
    /// Context switches (each time the thread blocked or slept; fio's `ctx`).
    pub ctx: u64,
    /// Latency of its periodic fsync/fdatasync calls (`fsync=`, `fdatasync=`), ns (fio's
    /// `sync`; the one at the end of `end_fsync` is not counted, as in fio).
    pub sync_lat: crate::stats::LatStats,
    /// Steady-state detection (`ss_dur` given): for a group under `group_reporting`, on
    /// its last clone only, as fio keeps it.
    pub steadystate: Option<SteadyResult>,
    /// The error that ended the clone, if one did (a missed `rate_min`, a latency over
    /// `max_latency`, a latency target missed at depth 1).
    pub error: Option<JobFailure>,
    /// `latency_target=`: the queue depth fio's search settled on (`None` without a target).
    pub latency_depth: Option<u32>,
    /// `zonemode=zbd`: zones the job reset before writing them again.
    pub zone_resets: u64,
}

/// What fio's steady-state detection saw (its JSON `"steadystate"` object).
#[derive(Clone, Debug, PartialEq)]
pub struct SteadyResult {
    /// The criterion, window and sampling period judged by.
    pub spec: super::SteadyStateSpec,
    /// The job stopped because it was steady.
    pub attained: bool,
    /// The last criterion judged.
    pub criterion: f64,
    /// The last largest deviation from the mean (deviation criteria).
    pub max_deviation: f64,
    /// The last slope (slope criteria).
    pub slope: f64,
    /// The latest window's IOPS samples, oldest first.
    pub iops: Vec<u64>,
    /// The latest window's bandwidth samples, bytes/s, oldest first.
    pub bw: Vec<u64>,
}

impl JobResult {
    /// fio's `job_runtime`: measured span after the ramp, ns.
    pub fn runtime_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.ramp_end_ns)
    }
}

/// Device activity while one reporting group ran.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupResult {
    /// Group id.
    pub groupid: u32,
    /// First clone start, ns since the run started.
    pub start_ns: u64,
    /// Last clone end.
    pub end_ns: u64,
    /// Device counters when the group started measuring (after ramps).
    pub counters_start: CounterRow,
    /// Device counters when it ended.
    pub counters_end: CounterRow,
}

/// Above this share of never-written data in what a group read, its results describe
/// reads of zeros at memory speed, not the drive's media: the run says so.
pub const UNMAPPED_READ_WARNING_SHARE: f64 = 0.5;

impl GroupResult {
    /// A one-line warning if most of what this group read was never written, naming
    /// `job` (the group's first job) and what to do about it.
    pub fn unmapped_read_warning(&self, job: &str) -> Option<String> {
        let share = self.counters_end.unmapped_read_share_since(&self.counters_start)?;
        (share > UNMAPPED_READ_WARNING_SHARE).then(|| {
            format!(
                "job '{job}': {:.0}% of the bytes read were never written, so they were read as zeros without \
                 touching NAND; fill the drive first (--fill seq:100) or write the region in an earlier job",
                share * 100.0
            )
        })
    }
}

/// fio's `disk_util` entry, from the device's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiskUtil {
    /// Device name.
    pub name: String,
    /// Read fio I/Os completed inside their clone's measured window (after the ramp, by the
    /// deadline); an I/O split at MDTS counts once.
    pub read_ios: u64,
    /// Write fio I/Os completed inside the measured window, as `read_ios`.
    pub write_ios: u64,
    /// Time the block layer's read requests spent from submission to completion, summed in
    /// ns and then shown in ms (the kernel's `nsecs[READ] / NSEC_PER_MSEC`).
    pub read_ticks_ms: u64,
    /// The same for writes.
    pub write_ticks_ms: u64,
    /// The same over every request (trims and flushes included): the kernel's
    /// `time_in_queue`.
    pub in_queue_ms: u64,
    /// Share of the run with at least one fio I/O in flight, percent.
    pub util_pct: f64,
}

/// Why a clone ended with an error, as fio records it (`td_verror`): the errno, the
/// function that set it, and the message fio logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobFailure {
    /// fio's `error` (an errno: 5 is EIO).
    pub errno: u32,
    /// Where fio raised it (`check_min_rate`).
    pub func: &'static str,
    /// What fio logs on stderr.
    pub message: String,
}

impl JobFailure {
    /// fio's `verror` text: `file:backend.c:1131, func=check_min_rate, error=Input/output error`.
    pub fn verror(&self) -> String {
        let what = if self.errno == 5 { "Input/output error" } else { "Unknown error" };
        format!("file:backend.c:1131, func={}, error={what}", self.func)
    }
}

/// Everything a run produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RunResult {
    /// Per clone, in job then clone order.
    pub jobs: Vec<JobResult>,
    /// Per reporting group, in order.
    pub groups: Vec<GroupResult>,
    /// Disk statistics.
    pub disk: DiskUtil,
    /// Device counters sampled every `series_window_ns` (first sample at the run's start).
    pub series: Vec<CounterRow>,
    /// What the jobs completed in each window of `series`, one row per series row (the
    /// first, at the run's start, is empty).
    pub windows: Vec<WindowRow>,
    /// Simulated time when the run started (device clock), ns.
    pub start_ns: u64,
    /// Simulated time when it ended.
    pub end_ns: u64,
    /// Profile name, for the report.
    pub profile: String,
    /// The host profile the jobs ran on (`none`: the drive alone), for the report.
    pub host: String,
}

/// One direction's completions in one window of the series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowDir {
    /// I/Os completed.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// Mean total latency (submission to completion), ns; 0 without I/Os.
    pub mean_lat_ns: f64,
    /// Median total latency, ns (fio's histogram buckets, as its percentiles).
    pub p50_lat_ns: u64,
    /// 99th percentile, ns.
    pub p99_lat_ns: u64,
    /// 99.9th percentile, ns.
    pub p999_lat_ns: u64,
    /// Largest, ns.
    pub max_lat_ns: u64,
}

/// The completions of the window that ends at `time_ns` (since the previous row).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WindowRow {
    /// End of the window, ns since the run started.
    pub time_ns: u64,
    /// Per direction, in [`Direction::ALL`](super::Direction::ALL) order.
    pub dirs: [WindowDir; 3],
}
