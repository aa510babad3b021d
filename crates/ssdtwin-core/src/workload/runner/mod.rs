//! The runner: executes a [`JobSet`] on a [`Host`] over any [`BlockDevice`] with fio's
//! semantics.
//!
//! Jobs are split into *phases* at every `stonewall`: the jobs of a phase (and their
//! `numjobs` clones) run concurrently, and the next phase starts when the last clone of the
//! previous one has finished. Reporting groups start at every `stonewall` or `new_group`.
//!
//! Each clone is one fio thread on a host core (`cpus_allowed`, `cpus_allowed_policy`),
//! running fio's I/O loop with its engine's costs (see [`thread`]): a closed loop that keeps
//! up to `iodepth` I/Os in flight (one for synchronous engines), stalls for `thinktime`,
//! and issues no faster than `rate`/`rate_iops`. It stops issuing when its byte budget
//! (`io_size` or `size`, times `loops`), `number_ios` or `runtime` is reached; with
//! `time_based` only `runtime` ends it. Statistics count completions after `ramp_time`;
//! with a runtime, completions after the deadline are not counted and the clone's measured
//! time ends at the deadline. On the bare host (`none`) nothing costs time, so each I/O
//! reaches the drive the moment it is issued and completes the moment the drive posts it.
//!
//! The loop alternates between the host's next event and the runner's (thread timers,
//! start, ramp end, deadline), host first on ties, so a run is deterministic.

// The runner names a clone's index i, the clone c, its thread t, its engine e and a count n.
#![allow(clippy::many_single_char_names)]

mod clone;
mod control;
mod flow;
mod latency;
mod priority;
mod rate_min;
mod replay;
mod steady;
mod thread;
mod verify;
mod window;

pub(crate) use thread::EngineRun;

use super::files::{self, FileTable, Layout, PlacedFile};
use super::logs::JobLogs;
use super::{
    DirResult, Direction, DiskUtil, ExitWhat, FadviseHint, GroupResult, JobError, JobFailure, JobResult, JobSet,
    JobSpec, RunResult, SizeSpec, WindowRow,
};
use crate::block::{BlockDevice, Command, CounterRow, Opcode};
use crate::engine::{EventQueue, SimDuration, SimTime, Slab};
use crate::os::vm::{Backing, Madvise, VmCtx};
use crate::os::{CoreId, Host, HostConfig};
use clone::{CloneSetup, JobClone};
use latency::Verdict;
use std::path::PathBuf;
use steady::SteadyTracker;
use thiserror::Error;
use thread::{Step, ThreadState};
use window::IoWindows;

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Seed for every random stream (jobs with `randseed` use theirs).
    pub seed: u64,
    /// Period of the device-counter time series, ns.
    pub series_window_ns: u64,
    /// Averaging window of fio's bandwidth and IOPS samples (`bwavgtime`), ns.
    pub sample_window_ns: u64,
    /// Directory for fio log files.
    pub log_dir: PathBuf,
    /// Device name reported in `disk_util`.
    pub device_name: String,
    /// The target is a file system that keeps its own cache (a ZFS pool), where syncs
    /// matter: a `sync=1` write completes only after a device flush that follows it (ZFS
    /// commits its intent log for `O_SYNC`), and a file layout ends with a flush (fio's
    /// `create_fsync`, on by default). Off for drives, whose commands carry no FUA: there
    /// direct `sync=1` and `create_fsync` have no effect.
    pub fs_syncs: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: crate::defaults::DEFAULT_RUN_SEED,
            series_window_ns: crate::defaults::DEFAULT_SERIES_WINDOW_NS,
            sample_window_ns: 500_000_000,
            log_dir: PathBuf::from("."),
            device_name: "nvme0n1".to_string(),
            fs_syncs: false,
        }
    }
}

/// Progress, reported to the observer about every 65 536 events.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    /// Simulated time since the run started, ns.
    pub elapsed_ns: u64,
    /// Expected simulated duration if every clone has a runtime, ns.
    pub expected_ns: Option<u64>,
    /// Bytes completed so far.
    pub bytes_done: u64,
    /// Bytes the clones will move in all, if every clone has a byte budget.
    pub bytes_expected: Option<u64>,
}

/// A run could not complete.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunError {
    /// A job is invalid for this device.
    #[error(transparent)]
    Job(#[from] JobError),
    /// A log file could not be written.
    #[error("cannot write log file {path}: {reason}")]
    LogFile {
        /// File.
        path: String,
        /// OS error.
        reason: String,
        /// Its kind (missing directory, permission, ...).
        kind: std::io::ErrorKind,
    },
    /// The observer asked to stop.
    #[error("interrupted")]
    Cancelled,
    /// The counter series would outgrow memory: its window is too short for the run.
    #[error(
        "the counter series reached {rows} rows of {window_ns} ns: use a longer series window for a run this long (at most {rows} rows are kept)"
    )]
    SeriesTooLong {
        /// The most rows a run keeps.
        rows: usize,
        /// The series window asked for.
        window_ns: u64,
    },
    /// Commands are outstanding but nothing in the model will ever complete them. This is a
    /// bug in the model, never the job's fault.
    #[error(
        "internal error: the simulation stalled at {time_ns} ns with {in_flight} commands outstanding; please report it with the profile and job"
    )]
    Stalled {
        /// Simulated time.
        time_ns: u64,
        /// Commands in flight.
        in_flight: u32,
    },
}

impl From<super::logs::LogError> for RunError {
    fn from(e: super::logs::LogError) -> Self {
        RunError::LogFile { path: e.path, reason: e.reason, kind: e.kind }
    }
}

/// The most series rows a run keeps (each holds every counter of the device and host, about
/// a hundred numbers, ~1 KB): 10⁵ rows, 100 ms windows over almost three hours.
const MAX_SERIES_ROWS: usize = 100_000;

#[derive(Clone, Copy, Debug)]
enum Timer {
    Start(u32),
    /// A thread's CPU work or sleep ends (ignored if the thread's generation moved on).
    Resume {
        clone: u32,
        generation: u32,
    },
    RampEnd(u32),
    Deadline(u32),
    /// A steady-state sample of tracker `n` is due.
    Steady(u32),
}

impl Timer {
    /// Clone `clone`'s thread timer of `generation`, and its rank among timers of the same
    /// time (`EventQueue::push_ranked`): by clone, so that threads resuming at the same time
    /// go in the same order however their timers were set (a thread's wakeup may be booked
    /// ahead of its time, see `Runner::on_posted`).
    fn resume(clone: usize, generation: u32) -> (u64, Timer) {
        let rank = ((clone as u64) << 32) | u64::from(generation);
        (rank, Timer::Resume { clone: clone as u32, generation })
    }
}

/// A fio I/O from its preparation to its reaping (its clone is in its tag, `io_tag`).
#[derive(Clone, Copy, Debug)]
struct InFlightIo {
    dir: Direction,
    offset: u64,
    bytes: u64,
    /// When fio started preparing it.
    start: SimTime,
    /// When it was issued.
    issue: SimTime,
    /// A sync call rather than data.
    sync: SyncCall,
    /// A read of a block written earlier, to verify it.
    read_back: bool,
    /// Its priority's index in the clone's list (0: the job's own).
    prio: u8,
}

/// The tag I/O `id` of clone `clone` carries through the host: the clone above the id, so
/// that a completion names its clone without a look-up (and, below 2^48, the host sends it
/// without a request record).
fn io_tag(clone: usize, id: u32) -> u64 {
    ((clone as u64) << 32) | u64::from(id)
}

/// The clone and the I/O id a tag from [`io_tag`] names.
fn io_of_tag(tag: u64) -> (usize, u32) {
    ((tag >> 32) as usize, tag as u32)
}

/// Whether an I/O is an fsync call, and which kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SyncCall {
    /// A read, write or trim.
    No,
    /// `fsync=` / `fdatasync=`: counted in fio's `sync` statistics.
    Periodic,
    /// `end_fsync`: part of the job's time, in no statistics.
    End,
    /// A data write under `sync=1` whose data is on the device; the flush that follows it
    /// is in flight (see `RunOptions::fs_syncs`). Completes as a write.
    Flushing,
}

struct Group {
    clones_left: usize,
    start: Option<SimTime>,
    counters_start: Option<CounterRow>,
    result: Option<GroupResult>,
}

struct Runner {
    timers: EventQueue<Timer>,
    ios: Slab<InFlightIo>,
    clones: Vec<JobClone>,
    groups: Vec<Group>,
    steady: Vec<SteadyTracker>,
    series: Vec<CounterRow>,
    windows: Vec<WindowRow>,
    io_windows: IoWindows,
    next_sample: SimTime,
    series_window: SimDuration,
    sample_window: SimDuration,
    run_start: SimTime,
    bytes_done: u64,
    steps: u64,
    /// Clones not yet finished.
    unfinished: usize,
    /// Per job: clones not yet finished, and the clones waiting for them (`wait_for`).
    job_clones_left: Vec<u32>,
    waiters: Vec<Vec<u32>>,
    /// Some job has `exitall` (fio then applies it to every job that finishes).
    exitall: bool,
    /// `exit_what=all` fired: clones created from now on end as soon as they start.
    terminate_all: bool,
    /// Per job: `runtime`, ns.
    runtimes: Vec<Option<u64>>,
    /// `flow=`: the flows clones share.
    flows: flow::Flows,
}

/// Runs `set` on `host`; `observe` is called with progress now and then and may return
/// false to stop the run ([`RunError::Cancelled`]).
// The run's setup, then its event loop: read top to bottom.
#[allow(clippy::too_many_lines)]
pub fn run<D: BlockDevice>(
    host: &mut Host<D>,
    set: &JobSet,
    opts: &RunOptions,
    observe: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunResult, RunError> {
    validate(host, set)?;
    let engines = set
        .jobs
        .iter()
        .map(|job| EngineRun::resolve(job, host.config(), files::on_files(job)))
        .collect::<Result<Vec<_>, JobError>>()?;
    drain(host);
    let run_start = host.device().now();
    let disk_start = host.disk();
    let groupids = group_ids(set);
    check_steady_state_groups(set, &groupids)?;
    let mut runner = Runner {
        timers: EventQueue::with_capacity(256),
        ios: Slab::default(),
        clones: Vec::new(),
        groups: Vec::new(),
        steady: Vec::new(),
        series: Vec::new(),
        windows: Vec::new(),
        io_windows: IoWindows::default(),
        next_sample: run_start,
        series_window: SimDuration(opts.series_window_ns.max(1)),
        sample_window: SimDuration(opts.sample_window_ns.max(1)),
        run_start,
        bytes_done: 0,
        steps: 0,
        unfinished: 0,
        job_clones_left: vec![0; set.jobs.len()],
        waiters: vec![Vec::new(); set.jobs.len()],
        exitall: set.jobs.iter().any(|j| j.exitall),
        terminate_all: false,
        runtimes: set.jobs.iter().map(|j| j.runtime_ns).collect(),
        flows: flow::Flows::default(),
    };
    let ns_bytes = host.device().geometry().capacity_bytes();
    let mut file_table = FileTable::new(ns_bytes);
    let mut next_stream = 0u32;
    let mut thread_number = 0u32;
    let mut phase_start_job = 0;
    while phase_start_job < set.jobs.len() {
        let phase_end_job =
            (phase_start_job + 1..set.jobs.len()).find(|&j| set.jobs[j].stonewall).unwrap_or(set.jobs.len());
        // fio's threads make (lay out) their files before the job's clock starts.
        let mut placed = Vec::new();
        let mut layout = Vec::new();
        for spec in &set.jobs[phase_start_job..phase_end_job] {
            for k in 0..spec.numjobs {
                placed.push(place_clone(spec, k, ns_bytes, &mut file_table, &mut layout)?);
            }
        }
        lay_out(host, &layout, opts.fs_syncs)?;
        let mut placed = placed.into_iter();
        let first_clone = runner.clones.len();
        let now = host.device().now();
        for j in phase_start_job..phase_end_job {
            let spec = &set.jobs[j];
            let g = groupids[j] as usize;
            while runner.groups.len() <= g {
                runner.groups.push(Group { clones_left: 0, start: None, counters_start: None, result: None });
            }
            for k in 0..spec.numjobs {
                thread_number += 1;
                let core = pick_core(spec, k, thread_number, host.config());
                let mut thread = ThreadState::new(engines[j].clone(), spec, core, host.irq_core(core));
                thread.flush_sync_writes = opts.fs_syncs && spec.sync_writes && thread.engine.buffered.is_none();
                let logs = JobLogs::open(spec, thread_number, &opts.log_dir, !super::is_sync_engine(&spec.ioengine))?;
                let files = placed.next().expect("one placement per clone");
                let stream_base = next_stream;
                next_stream += files.len() as u32;
                let replay = match &spec.replay {
                    Some(r) => {
                        let path = &r.paths[k as usize % r.paths.len()];
                        let start = now + SimDuration(spec.startdelay_ns);
                        let cursor = replay::ReplayCursor::open(path, r.options, start)
                            .map_err(|problem| JobError::Invalid { job: spec.name.clone(), problem })?;
                        Some(cursor)
                    }
                    None => None,
                };
                let iolog = match &spec.write_iolog {
                    // Clone k > 0 writes its own log beside the first (`PATH.k`).
                    Some(path) => {
                        let path = if k == 0 { path.clone() } else { format!("{path}.{k}") };
                        let file = spec.filename.clone().unwrap_or_else(|| format!("/dev/{}", opts.device_name));
                        let w = super::trace::IologWriter::create(std::path::Path::new(&path), &file, true).map_err(
                            |e| RunError::LogFile { path: path.clone(), reason: e.to_string(), kind: e.kind() },
                        )?;
                        Some(w)
                    }
                    None => None,
                };
                let mut clone = JobClone::new(CloneSetup {
                    spec,
                    job: j,
                    clone: k,
                    group: g,
                    thread_number,
                    seed: opts.seed,
                    namespace_bytes: ns_bytes,
                    files,
                    stream_base,
                    sample_window: runner.sample_window,
                    now,
                    logs,
                    thread,
                    host: host.config(),
                    replay,
                    iolog,
                });
                if let Some(l) = clone.control.as_ref().and_then(|c| c.latency.as_ref()) {
                    clone.thread.depth_cap = l.depth();
                    clone.result.latency_depth = l.reported_depth();
                }
                clone.thread.plain_loop = clone.plain_loop();
                runner.groups[g].clones_left += 1;
                runner.job_clones_left[j] += 1;
                runner.unfinished += 1;
                runner.clones.push(clone);
            }
        }
        for i in first_clone..runner.clones.len() {
            if runner.terminate_all {
                runner.clones[i].end_at_start();
            }
            // A clone waiting for a job of this phase starts when that job's last clone ends.
            let spec = &set.jobs[runner.clones[i].result.job];
            let waitee = spec.wait_for.as_ref().and_then(|name| set.jobs.iter().position(|s| &s.name == name));
            match waitee {
                Some(w) if w >= phase_start_job && runner.job_clones_left[w] > 0 => runner.waiters[w].push(i as u32),
                _ => {
                    let start = runner.clones[i].start;
                    runner.timers.push(start, Timer::Start(i as u32));
                }
            }
        }
        runner.track_steady_state(set, first_clone);
        runner.mark_sees_ahead(host, first_clone);
        if let Err(e) = runner.run_phase(host, observe) {
            drain(host);
            // A run that did not finish leaves no log that looks like a finished one.
            for logs in runner.clones.iter_mut().filter_map(|c| c.logs.take()) {
                logs.discard();
            }
            return Err(e);
        }
        for spec in set.jobs[phase_start_job..phase_end_job].iter().filter(|s| s.files.unlink) {
            for k in 0..spec.numjobs {
                file_table.unlink(spec, k);
            }
        }
        phase_start_job = phase_end_job;
    }
    let end = runner.last_event(host);
    runner.sample_series_until(host, end, true);
    Ok(runner.finish(host, end, &disk_start, opts))
}

/// The advice fio's mmap engine gives its mapping (`fio_madvise_file`).
pub(super) fn mmap_hint(hint: FadviseHint, random: bool) -> Option<Madvise> {
    match hint {
        FadviseHint::Off => None,
        FadviseHint::Workload if random => Some(Madvise::Random),
        FadviseHint::Workload | FadviseHint::Sequential => Some(Madvise::Sequential),
        FadviseHint::Random => Some(Madvise::Random),
    }
}

/// fio's rule (`td_steadystate_init`): the jobs of one reporting group share one
/// steady-state criterion.
fn check_steady_state_groups(set: &JobSet, groupids: &[u32]) -> Result<(), JobError> {
    for (j, job) in set.jobs.iter().enumerate() {
        let first = groupids.iter().position(|&g| g == groupids[j]).expect("its own group");
        if job.steadystate != set.jobs[first].steadystate {
            return Err(JobError::Invalid {
                job: job.name.clone(),
                problem: format!(
                    "steadystate options must be the same for every job of a reporting group (job '{}' has others)",
                    set.jobs[first].name
                ),
            });
        }
    }
    Ok(())
}

/// The files clone `k` of `spec` works on (opened in `table`, with what to lay out added to
/// `layout`), or its region of the device.
fn place_clone(
    spec: &JobSpec,
    k: u32,
    ns_bytes: u64,
    table: &mut FileTable,
    layout: &mut Vec<Layout>,
) -> Result<Vec<PlacedFile>, JobError> {
    if files::on_files(spec) {
        let (placed, new) =
            table.open(spec, k).map_err(|problem| JobError::Invalid { job: spec.name.clone(), problem })?;
        layout.extend(new);
        return Ok(placed);
    }
    // On the device the whole namespace is the file: readahead may run past the region.
    let start = spec.offset.resolve(ns_bytes) + spec.offset_increment.resolve(ns_bytes) * u64::from(k);
    // Without size=, fio's region runs from each clone's own start to the device's end.
    let bytes = spec.size.map_or(ns_bytes - start, |size| size.resolve(ns_bytes));
    Ok(vec![PlacedFile { extent: (0, ns_bytes), region: (start, start + bytes) }])
}

/// Writes `ranges` in order, as fio lays out its files before a job: writes of up to
/// [`LAYOUT_CHUNK_BYTES`] (the block layer's limit if smaller), [`LAYOUT_QUEUE_DEPTH`] in
/// flight, as writeback of one large buffered write keeps the device busy. Simulated time
/// passes; nothing is measured. With `flush`, a flush follows (fio's `create_fsync`).
fn lay_out<D: BlockDevice>(host: &mut Host<D>, ranges: &[Layout], flush: bool) -> Result<(), RunError> {
    let geometry = host.device().geometry();
    let chunk = LAYOUT_CHUNK_BYTES.min(geometry.max_transfer_bytes).max(geometry.lba_bytes);
    let mut pieces = ranges
        .iter()
        .flat_map(|&(start, end)| (start..end).step_by(chunk as usize).map(move |at| (at, chunk.min(end - at))));
    let device = host.device_mut();
    let mut next = pieces.next();
    let mut flush = flush && !ranges.is_empty();
    loop {
        while device.in_flight() < LAYOUT_QUEUE_DEPTH
            && let Some((at, bytes)) = next
        {
            let command = Command {
                opcode: Opcode::Write,
                slba: at / geometry.lba_bytes,
                blocks: (bytes / geometry.lba_bytes) as u32,
            };
            let now = device.now();
            device
                .submit(now, command, 0)
                .map_err(|e| RunError::Job(JobError::Invalid { job: "file layout".into(), problem: e.to_string() }))?;
            next = pieces.next();
        }
        if device.in_flight() == 0 && next.is_none() && flush {
            // create_fsync: the file's writes are made stable before the job starts.
            flush = false;
            let now = device.now();
            let command = Command { opcode: Opcode::Flush, slba: 0, blocks: 0 };
            device
                .submit(now, command, 0)
                .map_err(|e| RunError::Job(JobError::Invalid { job: "file layout".into(), problem: e.to_string() }))?;
        }
        if device.in_flight() == 0 {
            return Ok(());
        }
        if device.poll_at() == SimTime::NEVER {
            return Err(RunError::Stalled { time_ns: device.now().as_ns(), in_flight: device.in_flight() });
        }
        device.poll();
    }
}

/// Largest write of a file layout, bytes.
const LAYOUT_CHUNK_BYTES: u64 = 1 << 20;
/// Layout writes in flight.
const LAYOUT_QUEUE_DEPTH: u32 = 32;

/// The core clone `k` of `spec` runs on: with `cpus_allowed_policy=split` the k-th CPU of
/// its set; otherwise the threads spread over the set in start order, as the scheduler
/// balances runnable threads over idle CPUs.
fn pick_core(spec: &JobSpec, k: u32, thread_number: u32, host: &HostConfig) -> CoreId {
    let all: Vec<u32>;
    let allowed = match (&spec.numa_cpu_nodes, &spec.cpus_allowed) {
        (Some(nodes), _) if !nodes.is_empty() => {
            all = nodes.iter().flat_map(|&n| host.node_cores(n)).collect();
            all.as_slice()
        }
        (None, Some(set)) if !set.is_empty() => set.as_slice(),
        _ => {
            all = (0..host.cores).collect();
            all.as_slice()
        }
    };
    let index = if spec.cpus_split { k } else { thread_number - 1 };
    CoreId(allowed[index as usize % allowed.len()])
}

/// Runs the host and its target until nothing is in flight, discarding completions:
/// commands left over from an interrupted run belong to nobody.
fn drain<D: BlockDevice>(host: &mut Host<D>) {
    while host.in_flight() > 0 && host.poll_at() != SimTime::NEVER {
        host.poll();
    }
    let device = host.device_mut();
    while device.in_flight() > 0 && device.poll_at() != SimTime::NEVER {
        device.poll();
    }
}

/// The target's counters, then the host's (none for the bare twin), taken at `time_ns`
/// since the run started.
fn counter_row<D: BlockDevice>(host: &Host<D>, time_ns: u64) -> CounterRow {
    let mut row = CounterRow::at(time_ns);
    host.device().counters("", &mut row);
    host.counters("host", &mut row);
    row
}

/// Group id of every job: a new group at each `stonewall` or `new_group` after the first.
fn group_ids(set: &JobSet) -> Vec<u32> {
    let mut g = 0;
    set.jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            if i > 0 && (j.stonewall || j.new_group) {
                g += 1;
            }
            g
        })
        .collect()
}

/// Checks every job against the target before anything runs.
// One check after another, each with its own message.
#[allow(clippy::too_many_lines)]
fn validate<D: BlockDevice>(host: &Host<D>, set: &JobSet) -> Result<(), JobError> {
    let device = host.device();
    let (cores, host_name) = (host.config().cores, &host.config().name);
    if set.jobs.is_empty() {
        return Err(JobError::NoJobs { place: "job set".into() });
    }
    let geometry = device.geometry();
    let lba = geometry.lba_bytes;
    let ns_bytes = geometry.capacity_bytes();
    let invalid = |job: &JobSpec, problem: String| JobError::Invalid { job: job.name.clone(), problem };
    for job in &set.jobs {
        for dir in Direction::ALL.into_iter().filter(|&d| job.rw.uses(d)) {
            let bs = &job.bs[dir.index()];
            for b in [bs.min(), bs.max()] {
                if b == 0 || b % lba != 0 {
                    return Err(invalid(
                        job,
                        format!(
                            "{} block size {b} is not a multiple of the {lba}-byte LBA size of the current format",
                            dir.name()
                        ),
                    ));
                }
            }
        }
        if let Some(a) = job.blockalign.iter().flatten().find(|&&a| a % lba != 0) {
            return Err(invalid(job, format!("blockalign={a} is not a multiple of the {lba}-byte LBA size")));
        }
        if job.time_based && job.runtime_ns.is_none() {
            return Err(invalid(job, "time_based needs a runtime".into()));
        }
        if let Some(cpu) = job.cpus_allowed.iter().flatten().find(|&&c| c >= cores) {
            return Err(invalid(
                job,
                format!("cpus_allowed names CPU {cpu}; host {host_name} has CPUs 0 to {}", cores - 1),
            ));
        }
        if let Some(r) = &job.replay {
            // The traces were read when the job was parsed; now their offsets meet the drive.
            for path in &r.paths {
                super::trace::TraceReader::scan(path, r.options, ns_bytes, lba).map_err(|p| invalid(job, p))?;
            }
        }
        let cmd = &job.priority.cmd_options;
        if let Some(option) = cmd.first()
            && !matches!(job.ioengine.as_str(), "libaio" | "io_uring")
        {
            return Err(invalid(
                job,
                format!("{option} is an option of the libaio and io_uring engines, not of ioengine={}", job.ioengine),
            ));
        }
        if cmd.contains(&"cmdprio_percentage") && cmd.contains(&"cmdprio_bssplit") {
            return Err(invalid(job, "cmdprio_percentage and cmdprio_bssplit are mutually exclusive".into()));
        }
        let nodes = host.config().numa_nodes;
        let named = job.numa_cpu_nodes.iter().flatten().chain(&job.numa_mem_nodes);
        if let Some(node) = named.copied().find(|&n| n >= nodes) {
            return Err(invalid(
                job,
                match nodes {
                    1 => format!(
                        "NUMA node {node} does not exist: host {host_name} has one node, 0 (a host with more: --host-set cpu.numa_nodes=N)"
                    ),
                    _ => format!("NUMA node {node} does not exist: host {host_name} has nodes 0 to {}", nodes - 1),
                },
            ));
        }
        if files::on_files(job) {
            // Offsets are in the files, whose sizes are known when they are opened; files
            // start on LBA boundaries, so a direct job's byte offsets must be LBA multiples
            // (fio's direct read at offset 1000 fails with EINVAL). Through the page cache any
            // offset is fine.
            let misaligned = [job.offset, job.offset_increment].into_iter().find_map(|o| match o {
                SizeSpec::Bytes(b) if b % lba != 0 => Some(b),
                _ => None,
            });
            if let (Some(b), true) = (misaligned, job.direct) {
                return Err(invalid(
                    job,
                    format!(
                        "offset {b} is not a multiple of the {lba}-byte LBA size, which direct I/O needs (direct=0 allows it)"
                    ),
                ));
            }
            continue;
        }
        let offset = job.offset.resolve(ns_bytes);
        let inc = job.offset_increment.resolve(ns_bytes);
        if offset % lba != 0 || inc % lba != 0 {
            return Err(invalid(
                job,
                format!("offset {offset} and offset_increment {inc} must be multiples of the {lba}-byte LBA size"),
            ));
        }
        let last_start = offset + inc * u64::from(job.numjobs - 1);
        if last_start >= ns_bytes {
            return Err(invalid(
                job,
                format!(
                    "clone {} would start at byte {last_start}, beyond the namespace ({ns_bytes} bytes)",
                    job.numjobs - 1
                ),
            ));
        }
        // Without size=, each clone's region runs to the end (the last clone's is smallest).
        let region = job.size.map_or(ns_bytes - last_start, |s| s.resolve(ns_bytes));
        if last_start + region > ns_bytes {
            return Err(invalid(
                job,
                format!(
                    "region of clone {} ends at byte {}, beyond the namespace ({ns_bytes} bytes); reduce size or offset",
                    job.numjobs - 1,
                    last_start + region
                ),
            ));
        }
        let max_bs =
            Direction::ALL.iter().filter(|&&d| job.rw.uses(d)).map(|d| job.bs[d.index()].max()).max().unwrap_or(4096);
        if region < max_bs {
            return Err(invalid(job, format!("region of {region} bytes is smaller than the block size {max_bs}")));
        }
    }
    Ok(())
}

impl Runner {
    fn run_phase<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        observe: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<(), RunError> {
        loop {
            let t_host = host.poll_at();
            let t_run = self.timers.peek_time();
            let t = t_host.min(t_run);
            if t == SimTime::NEVER {
                if self.unfinished > 0 {
                    return Err(RunError::Stalled {
                        time_ns: host.device().now().as_ns(),
                        in_flight: host.device().in_flight(),
                    });
                }
                break;
            }
            if t >= self.next_sample {
                self.sample_series_until(host, t, false);
                if self.series.len() > MAX_SERIES_ROWS {
                    return Err(RunError::SeriesTooLong {
                        rows: MAX_SERIES_ROWS,
                        window_ns: self.series_window.as_ns(),
                    });
                }
            }
            if t_host <= t_run {
                if let Some(done) = host.poll_early() {
                    let (i, id) = io_of_tag(done.tag);
                    if done.visible > t {
                        // Posted now, seen when its interrupt handler ends.
                        self.on_posted(host, done);
                    } else {
                        if done.visible > done.device_done {
                            // Handed back by `on_posted`: its handler has ended.
                            self.clones[i].thread.handlers_pending -= 1;
                        }
                        // The next completion's thread is warmed while this one is handled.
                        if let Some(next) = host.next_visible()
                            && let Some(c) = self.clones.get(io_of_tag(next).0)
                        {
                            crate::engine::prefetch_ref(&c.thread.step);
                            crate::engine::prefetch_ref(&c.thread.in_device);
                        }
                        self.on_visible(host, i, id, done.visible);
                        self.drive(host, i, done.visible);
                        self.check_finished(host, i, done.visible)?;
                    }
                }
            } else {
                let (now, timer) = self.timers.pop().expect("peeked a timer");
                self.on_timer(host, now, timer)?;
            }
            self.steps += 1;
            if self.steps.trailing_zeros() >= 16 && !observe(&self.progress(host)) {
                return Err(RunError::Cancelled);
            }
            if self.unfinished == 0 {
                // Background work (GC) may go on; the next phase or whoever drives the
                // target next finishes it.
                break;
            }
        }
        Ok(())
    }

    /// The time of the last event processed, by the runner or the target.
    fn last_event<D: BlockDevice>(&self, host: &Host<D>) -> SimTime {
        let clones_end = self.clones.iter().map(|c| SimTime(self.run_start.as_ns() + c.result.end_ns)).max();
        host.device().now().max(clones_end.unwrap_or(self.run_start))
    }

    fn progress<D: BlockDevice>(&self, host: &Host<D>) -> Progress {
        let deadlines: Option<Vec<SimTime>> =
            self.clones.iter().map(|c| (c.deadline != SimTime::NEVER).then_some(c.deadline)).collect();
        let budgets: Option<u64> = self.clones.iter().map(|c| c.budget_bytes).sum();
        Progress {
            elapsed_ns: host.device().now().since(self.run_start).as_ns(),
            expected_ns: deadlines.and_then(|d| d.into_iter().max()).map(|t| t.since(self.run_start).as_ns()),
            bytes_done: self.bytes_done,
            bytes_expected: budgets,
        }
    }

    fn sample_series_until<D: BlockDevice>(&mut self, host: &Host<D>, t: SimTime, include_end: bool) {
        while self.next_sample <= t && self.series.len() <= MAX_SERIES_ROWS {
            let time_ns = self.next_sample.since(self.run_start).as_ns();
            self.series.push(counter_row(host, time_ns));
            self.windows.push(self.io_windows.take(time_ns));
            self.next_sample += self.series_window;
        }
        let end_ns = t.since(self.run_start).as_ns();
        if include_end && self.series.last().is_none_or(|s| s.time_ns < end_ns) {
            self.series.push(counter_row(host, end_ns));
            self.windows.push(self.io_windows.take(end_ns));
        }
    }

    fn on_timer<D: BlockDevice>(&mut self, host: &mut Host<D>, now: SimTime, timer: Timer) -> Result<(), RunError> {
        let i = match timer {
            Timer::Start(i) => {
                let c = &mut self.clones[i as usize];
                c.started = true;
                c.result.start_ns = now.since(self.run_start).as_ns();
                c.result.ramp_end_ns = c.ramp_end.since(self.run_start).as_ns();
                c.thread.last_think = now;
                if let Some(control) = c.control.as_deref_mut()
                    && let Some(spec) = control.flow_spec
                {
                    control.flow = Some(self.flows.join(&spec));
                }
                if c.thread.engine.mmap {
                    // fio's mmap engine maps each file whole, then advises the mapping.
                    let hint = c.thread.mmap_hint;
                    let extents: Vec<(u64, u64)> = c.file_extents().collect();
                    for (start, end) in extents {
                        let page = host.config().vm.as_ref().expect("the engine checked").page_bytes;
                        let backing = Backing::File { offset_bytes: start, sparse: false };
                        let m = host.vm_map((end - start).div_ceil(page), backing);
                        if let Some(advice) = hint {
                            let ctx = VmCtx { core: c.thread.core, tag: 0, resumed: false };
                            host.vm_madvise(now, now, ctx, m, 0, (end - start).div_ceil(page), advice);
                        }
                        c.thread.mmaps.push((start, end, m));
                    }
                }
                if c.thread.engine.buffered.is_some() {
                    // fio opens the file: it reads it in (`pre_read`) or drops what the
                    // cache holds of it (`invalidate`, the default).
                    for (start, end) in c.file_regions() {
                        if c.thread.pre_read {
                            host.pre_read(start, end);
                        } else if c.thread.invalidate {
                            host.invalidate(start, end);
                        }
                    }
                }
                let g = c.group;
                let (ramp_end, deadline) = (c.ramp_end, c.deadline);
                self.groups[g].start.get_or_insert(now);
                if ramp_end == now {
                    // No ramp: the group's counters start before its first command.
                    self.snapshot_group_start(host, g, now);
                } else {
                    self.timers.push(ramp_end, Timer::RampEnd(i));
                }
                if deadline != SimTime::NEVER {
                    self.timers.push(deadline, Timer::Deadline(i));
                }
                let c = &mut self.clones[i as usize];
                // A replaying clone takes its I/O from its trace, never decided ahead.
                if !c.replaying() {
                    let first = c.decide();
                    c.ahead.push_back(first);
                }
                self.drive(host, i as usize, now);
                i
            }
            Timer::Resume { clone, generation } => {
                self.resume(host, clone as usize, generation, now);
                clone
            }
            Timer::RampEnd(i) => {
                let g = self.clones[i as usize].group;
                self.snapshot_group_start(host, g, now);
                return Ok(());
            }
            Timer::Deadline(i) => {
                if now < self.clones[i as usize].deadline {
                    // The deadline moved later (a latency target's final run restarted it).
                    return Ok(());
                }
                self.clones[i as usize].stopped = true;
                self.interrupt_sleep(host, i as usize, now);
                i
            }
            Timer::Steady(n) => {
                self.sample_steady_state(n as usize, now);
                return Ok(());
            }
        };
        self.check_finished(host, i as usize, now)
    }

    /// Records the counters a group's statistics start from (its first ramp end).
    fn snapshot_group_start<D: BlockDevice>(&mut self, host: &Host<D>, g: usize, now: SimTime) {
        if self.groups[g].counters_start.is_none() {
            let s = counter_row(host, now.since(self.run_start).as_ns());
            self.groups[g].counters_start = Some(s);
        }
    }

    /// Records the completion of I/O `id` of clone `i`, seen by fio at `at`.
    #[inline]
    fn complete(&mut self, i: usize, id: u32, at: SimTime) {
        let InFlightIo { dir, offset, bytes, start, issue, sync, prio, .. } = self.ios[id];
        self.ios.free(id);
        let sample_window = self.sample_window;
        let c = &mut self.clones[i];
        if dir == Direction::Write
            && let Some(v) = c.verify_mut()
        {
            v.write_completed(offset);
        }
        if matches!(sync, SyncCall::Periodic | SyncCall::End) {
            if sync == SyncCall::Periodic && at >= c.ramp_end && at <= c.deadline {
                c.result.sync_lat.record(at.since(start).as_ns());
            }
            return;
        }
        if !c.thread.think_on_issue {
            c.thread.think_counter += 1;
        }
        c.done_ios += 1;
        c.done_bytes += bytes;
        self.io_windows.record(dir, bytes, at.since(start).as_ns());
        if at < c.ramp_end || at > c.deadline {
            return;
        }
        let clat = at.since(issue).as_ns();
        let slat = issue.since(start).as_ns();
        let stats = &mut c.result.dirs[dir.index()];
        stats.io_bytes += bytes;
        stats.total_ios += 1;
        if c.sync_engine {
            stats.latency.record_without_slat(slat + clat, clat);
        } else {
            stats.latency.record(slat, clat);
        }
        if let Some(p) = stats.prios.get_mut(usize::from(prio)) {
            p.record(clat);
        }
        c.close_sample_windows(at, sample_window);
        let window = &mut c.windows[dir.index()];
        window.bytes += bytes;
        window.ios += 1;
        if let Some(check) = c.rate_check.as_mut()
            && c.result.error.is_none()
            && let Some(failure) = check.on_completion(dir.index(), bytes, at, c.start, &c.result.name)
        {
            // fio's do_io: the job ends with EIO, and under exitall ends others too.
            c.result.error = Some(failure);
            if at < c.deadline {
                c.deadline = at;
                self.timers.push(at, Timer::Deadline(i as u32));
            }
            if self.exitall {
                let (group, what) = (self.clones[i].group, self.clones[i].exit_what);
                self.terminate_others(i, group, what, at);
            }
        }
        if self.clones[i].control.as_ref().is_some_and(|c| c.latency.is_some()) {
            self.check_latency(i, dir, at.since(start).as_ns(), at);
        }
        let c = &mut self.clones[i];
        let since = at.since(c.ramp_end).as_ns();
        // The log is borrowed only after the clone has given the offset and priority.
        #[allow(clippy::unnecessary_unwrap)]
        if c.logs.is_some() {
            // fio logs the offset in the file (on a device, the device is the file).
            let in_file = offset - c.file_at(offset).1.0;
            let logged_slat = if c.sync_engine { 0 } else { slat };
            let priority = c.priority().map_or(c.own_priority, |p| p.priority(dir, prio));
            // A log file that cannot be written ends the run when the clone finishes.
            let logs = c.logs.as_mut().expect("checked above");
            logs.record(since, dir, logged_slat, clat, bytes, in_file, priority).ok();
        }
        self.bytes_done += bytes;
    }

    /// Clone `i`'s measured I/O in `dir` completed at `at` after `total_ns`: its latency
    /// limits fail the job or move its depth.
    #[cold]
    fn check_latency(&mut self, i: usize, dir: Direction, total_ns: u64, at: SimTime) {
        let c = &mut self.clones[i];
        let control = c.control.as_deref_mut().and_then(|c| c.latency.as_mut()).expect("checked by the caller");
        match control.on_completion(dir.index(), total_ns, at, c.done_ios, &c.result.name) {
            Ok(Verdict::Continue) => {}
            Ok(Verdict::Quiesce) => c.thread.quiesce = true,
            Ok(Verdict::FinalRun) => {
                c.thread.quiesce = true;
                let runtime = self.runtimes[c.result.job];
                c.restart_measurement(at, runtime, self.sample_window);
                if c.deadline != SimTime::NEVER {
                    self.timers.push(c.deadline, Timer::Deadline(i as u32));
                }
            }
            Ok(Verdict::Done) => {
                if at < c.deadline {
                    c.deadline = at;
                    self.timers.push(at, Timer::Deadline(i as u32));
                }
            }
            Err(failure) => {
                if c.result.error.is_none() {
                    c.result.error = Some(failure);
                    if at < c.deadline {
                        c.deadline = at;
                        self.timers.push(at, Timer::Deadline(i as u32));
                    }
                }
            }
        }
        let c = &mut self.clones[i];
        let latency = c.control.as_deref().and_then(|c| c.latency.as_ref());
        c.thread.depth_cap = latency.map_or(u32::MAX, latency::LatencyControl::depth);
        c.result.latency_depth = latency.and_then(latency::LatencyControl::reported_depth);
    }

    /// Wakes `clones` waiting for their flow's count to move.
    fn wake(&mut self, clones: &[u32], now: SimTime) {
        for &j in clones {
            let t = &self.clones[j as usize].thread;
            if matches!(t.step, Step::Sleeping) {
                let (rank, timer) = Timer::resume(j as usize, t.generation);
                self.timers.push_ranked(now, rank, timer);
            }
        }
    }

    /// Starts steady-state detection for the clones from `first_clone` on whose jobs ask
    /// for it: one tracker per reporting group under `group_reporting`, else per clone.
    fn track_steady_state(&mut self, set: &JobSet, first_clone: usize) {
        // (reporting group under group_reporting, clones)
        let mut by_group: Vec<(Option<usize>, Vec<u32>)> = Vec::new();
        for i in first_clone..self.clones.len() {
            let spec = &set.jobs[self.clones[i].result.job];
            if spec.steadystate.dur_ns == 0 {
                continue;
            }
            let group = spec.group_reporting.then_some(self.clones[i].group);
            match by_group.iter_mut().find(|(g, _)| group.is_some() && *g == group) {
                Some((_, clones)) => clones.push(i as u32),
                None => by_group.push((group, vec![i as u32])),
            }
        }
        for (_, clones) in by_group {
            let first = &self.clones[clones[0] as usize];
            let spec = set.jobs[first.result.job].steadystate;
            let tracker = SteadyTracker::new(spec, clones, first.start);
            let last = *tracker.clones.last().expect("a tracker has clones") as usize;
            self.clones[last].result.steadystate = Some(tracker.result.clone());
            self.timers.push(tracker.next_check, Timer::Steady(self.steady.len() as u32));
            self.steady.push(tracker);
        }
    }

    /// Marks the clones of the phase from `first_clone` that see their completions ahead
    /// ([`ThreadState::sees_ahead`]): each with a plain loop whose wakeup costs CPU time,
    /// alone on its core, in a phase with no mmap clone, while virtual memory is not in use
    /// (kswapd books work on a core of its own choosing), and in a run without `exitall` or
    /// steady-state tracking (which stop clones at times of their own).
    ///
    /// Why a wakeup booked ahead is the same: the thread's work is the only task work on
    /// its core, so it starts when its handler ends; handlers that arrive before then on
    /// that core queue behind that one and take their time from the booking (`Cpu::irq`,
    /// `Cpu::settle`), so the work ends when it would have started after them and run; and
    /// nothing else the thread's wakeup reads changes meanwhile (its earlier completions
    /// are counted in `handlers_pending`, its deadline is checked against the work's end).
    fn mark_sees_ahead<D: BlockDevice>(&mut self, host: &Host<D>, first_clone: usize) {
        let phase = &mut self.clones[first_clone..];
        if self.exitall || !self.steady.is_empty() || host.vm_in_use() || phase.iter().any(|c| c.thread.engine.mmap) {
            return;
        }
        let mut on_core = vec![0u32; host.config().cores as usize];
        for c in phase.iter() {
            on_core[c.thread.core.0 as usize] += 1;
        }
        for c in phase {
            // Work that costs nothing would take effect when booked, ahead of its time.
            let w = c.thread.wakeup_work;
            let costs = w.user + w.sys > SimDuration::ZERO;
            c.thread.sees_ahead = c.thread.plain_loop && costs && on_core[c.thread.core.0 as usize] == 1;
        }
    }

    /// Takes tracker `n`'s sample; stops its clones when they are steady (fio's
    /// `fio_mark_td_terminate`: the measured time ends now).
    fn sample_steady_state(&mut self, n: usize, now: SimTime) {
        let t = &mut self.steady[n];
        if t.clones.iter().all(|&i| self.clones[i as usize].finished) {
            return;
        }
        let totals: Vec<(u64, u64)> =
            t.clones.iter().map(|&i| (self.clones[i as usize].done_ios, self.clones[i as usize].done_bytes)).collect();
        let steady = t.check(now, &totals);
        let last = *t.clones.last().expect("a tracker has clones") as usize;
        self.clones[last].result.steadystate = Some(t.result.clone());
        if !steady {
            self.timers.push(t.next_check, Timer::Steady(n as u32));
            return;
        }
        for i in t.clones.clone() {
            let c = &mut self.clones[i as usize];
            if !c.finished && now < c.deadline {
                c.deadline = now;
                self.timers.push(now, Timer::Deadline(i));
            }
        }
    }

    /// fio's `exitall`: clone `i` (of reporting group `g`) finished, so end the clones
    /// `exit_what` names, as fio's `fio_terminate_threads` does: running ones stop issuing
    /// now (their I/O in flight completes), ones not started yet end as they start.
    fn terminate_others(&mut self, i: usize, g: usize, exit_what: ExitWhat, now: SimTime) {
        if exit_what == ExitWhat::All {
            self.terminate_all = true;
        }
        for j in 0..self.clones.len() {
            let c = &mut self.clones[j];
            let chosen = match exit_what {
                ExitWhat::Group => c.group == g,
                ExitWhat::Stonewall => c.started,
                ExitWhat::All => true,
            };
            if j == i || c.finished || !chosen {
                continue;
            }
            if !c.started {
                c.end_at_start();
            } else if now < c.deadline {
                c.deadline = now;
                self.timers.push(now, Timer::Deadline(j as u32));
            }
        }
    }

    /// Finishes clone `i`'s bookkeeping once its thread is done.
    #[inline]
    fn check_finished<D: BlockDevice>(&mut self, host: &Host<D>, i: usize, now: SimTime) -> Result<(), RunError> {
        let c = &self.clones[i];
        if !matches!(c.thread.step, Step::Done) || c.finished || !c.started {
            return Ok(());
        }
        self.finish_clone(host, i, now)
    }

    #[cold]
    fn finish_clone<D: BlockDevice>(&mut self, host: &Host<D>, i: usize, now: SimTime) -> Result<(), RunError> {
        let c = &mut self.clones[i];
        c.finished = true;
        self.unfinished -= 1;
        let end = now.min(c.deadline);
        c.close_sample_windows(end, self.sample_window);
        c.result.end_ns = end.since(self.run_start).as_ns();
        let measured = end.since(c.ramp_end).as_ns();
        let replaying = c.replaying();
        for dir in Direction::ALL {
            // A trace may hold trims beside reads and writes.
            if c.rw.uses(dir) || (replaying && c.result.dirs[dir.index()].io_bytes > 0) {
                c.result.dirs[dir.index()].runtime_ns = measured;
            }
        }
        if let Some(message) = c.control.as_deref_mut().and_then(|x| x.replay.as_mut()).and_then(|r| r.error.take()) {
            c.result.error = Some(JobFailure { errno: 5, func: "read_iolog", message });
        }
        if let Some(log) = c.control.as_deref_mut().and_then(|x| x.iolog.take()) {
            let path = log.path().display().to_string();
            log.finish().map_err(|e| RunError::LogFile { path, reason: e.to_string(), kind: e.kind() })?;
        }
        if let Some(v) = c.control.as_deref_mut().and_then(|c| c.verify.as_mut()).filter(|v| v.logs_writes()) {
            // fio's update_runtime: each direction's time is that of the phases it ran in.
            v.close(c.ramp_end, end);
            for dir in Direction::ALL {
                let d = &mut c.result.dirs[dir.index()];
                d.runtime_ns = match dir {
                    Direction::Read if c.rw.uses(dir) => v.io_ns + v.verify_ns,
                    Direction::Read => v.verify_ns,
                    _ if c.rw.uses(dir) => v.io_ns,
                    _ => 0,
                };
            }
        }
        if let Some(logs) = c.logs.as_mut() {
            logs.finish(measured)?;
        }
        let (g, job, exit_what) = (c.group, c.result.job, c.exit_what);
        if let Some(member) = c.control.as_deref_mut().and_then(|c| c.flow.take()) {
            let woken = self.flows.leave(&member);
            self.wake(&woken, now);
        }
        self.job_clones_left[job] -= 1;
        if self.job_clones_left[job] == 0 {
            for w in std::mem::take(&mut self.waiters[job]) {
                let start = self.clones[w as usize].delay_start(now);
                self.timers.push(start, Timer::Start(w));
            }
        }
        if self.exitall {
            self.terminate_others(i, g, exit_what, now);
        }
        let group = &mut self.groups[g];
        group.clones_left -= 1;
        if group.clones_left == 0 {
            let end_counters = counter_row(host, end.since(self.run_start).as_ns());
            let start = group.start.unwrap_or(now);
            group.result = Some(GroupResult {
                groupid: g as u32,
                start_ns: start.since(self.run_start).as_ns(),
                end_ns: end.since(self.run_start).as_ns(),
                counters_start: group.counters_start.take().unwrap_or_else(|| end_counters.clone()),
                counters_end: end_counters,
            });
        }
        Ok(())
    }

    fn finish<D: BlockDevice>(
        self,
        host: &Host<D>,
        end: SimTime,
        disk_start: &crate::os::DiskStats,
        opts: &RunOptions,
    ) -> RunResult {
        let total = end.since(self.run_start).as_ns().max(1);
        let d = host.disk().since(disk_start);
        let disk = DiskUtil {
            name: opts.device_name.clone(),
            read_ios: d.read_ios,
            write_ios: d.write_ios,
            read_ticks_ms: d.read_ns / 1_000_000,
            write_ticks_ms: d.write_ns / 1_000_000,
            in_queue_ms: d.in_queue_ns / 1_000_000,
            util_pct: (d.busy_ns as f64 / total as f64 * 100.0).min(100.0),
        };
        RunResult {
            jobs: self
                .clones
                .into_iter()
                .map(|c| JobResult { usr_ns: c.thread.usr_ns, sys_ns: c.thread.sys_ns, ctx: c.thread.ctx, ..c.result })
                .collect(),
            groups: self.groups.into_iter().filter_map(|g| g.result).collect(),
            disk,
            series: self.series,
            windows: self.windows,
            start_ns: self.run_start.as_ns(),
            end_ns: end.as_ns(),
            profile: host.device().profile().to_string(),
        }
    }
}

impl DirResult {
    /// fio's bandwidth in KiB/s over the measured runtime (as `bw` in the JSON).
    pub fn bw_kib_per_sec(&self) -> u64 {
        let ms = self.runtime_ns / 1_000_000;
        (self.io_bytes * 1000).checked_div(ms).map_or(0, |b| b / 1024)
    }

    /// fio's IOPS over the measured runtime.
    pub fn iops(&self) -> f64 {
        let ms = self.runtime_ns / 1_000_000;
        if ms == 0 { 0.0 } else { 1000.0 * self.total_ios as f64 / ms as f64 }
    }
}
