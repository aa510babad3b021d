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
//!
//! The [`Host`] is the runner's only target: the runner submits, polls, books CPU work and
//! lays out files through it, and never reaches the block device beneath it. Each I/O
//! carries an [`IoTag`](crate::os::IoTag) (its clone and id) through the host; clones are
//! named by [`CloneId`].
//!
//! The files, one idea each:
//!
//! ```text
//! mod.rs         run(): validate, resolve engines, then per phase: place, lay out, add, run
//! validate.rs    the job set checked against the host and target before anything runs
//! engine_run.rs  an engine as a job runs it: fio's batching fix-ups, the host's costs
//! placement.rs   each clone's region or files (laid out through the host) and core
//! phase.rs       a phase's clones made and their starts armed
//! event_loop.rs  the host's events and the runner's timers, in time order
//! thread.rs      a clone's thread state;  io_loop.rs  fio's loop decisions
//! submit.rs      I/O reaching the host;   reap.rs     completions seen and reaped
//! account.rs     a completion counted;    finish.rs   clones ending, the run's result
//! clone.rs       a clone: its I/O stream, budgets and statistics (and control/, verify,
//!                latency, rate_min, priority, flow, steady, replay, window: its options)
//! ```

// The runner names a clone's id i, the clone c, its thread t, its engine e and a count n.
#![allow(clippy::many_single_char_names)]

mod account;
mod clone;
mod control;
mod engine_run;
mod event_loop;
mod finish;
mod flow;
mod io_loop;
mod jitter;
mod latency;
mod phase;
mod placement;
mod priority;
mod rate_min;
mod reap;
mod replay;
mod steady;
mod submit;
mod thread;
mod validate;
mod verify;
mod window;
mod zbd;

pub(crate) use engine_run::EngineRun;

use super::files::{self, FileTable};
use super::{DirResult, Direction, FadviseHint, GroupResult, JobError, JobSet, JobSpec, RunResult, WindowRow};
use crate::block::{BlockDevice, CounterRow};
use crate::engine::{EventQueue, SimDuration, SimTime, Slab};
use crate::os::vm::Madvise;
use crate::os::{CloneId, Host};
use clone::JobClone;
use placement::{lay_out, place_clone};
use std::path::PathBuf;
use steady::SteadyTracker;
use thiserror::Error;
use validate::{check_steady_state_groups, group_ids, validate};
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
    Start(CloneId),
    /// A thread's CPU work or sleep ends (ignored if the thread's generation moved on).
    Resume {
        clone: CloneId,
        generation: u32,
    },
    RampEnd(CloneId),
    Deadline(CloneId),
    /// A steady-state sample of tracker `n` is due.
    Steady(u32),
}

impl Timer {
    /// Clone `clone`'s thread timer of `generation`, and its rank among timers of the same
    /// time (`EventQueue::push_ranked`): by clone, so that threads resuming at the same time
    /// go in the same order however their timers were set (a thread's wakeup may be booked
    /// ahead of its time, see `Runner::on_posted`).
    fn resume(clone: CloneId, generation: u32) -> (u64, Timer) {
        let rank = (u64::from(clone.0) << 32) | u64::from(generation);
        (rank, Timer::Resume { clone, generation })
    }
}

/// A fio I/O from its preparation to its reaping (its clone is in its tag, an [`IoTag`](crate::os::IoTag)).
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
    /// Handed back to the host by `on_posted` to come back when its interrupt handler
    /// ends (counted in its thread's `handlers_pending` until then).
    handed_back: bool,
}

/// The ids of the clones at `indices` of the runner's clones.
fn clone_ids(indices: std::ops::Range<usize>) -> impl Iterator<Item = CloneId> {
    indices.map(|i| CloneId(i as u32))
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
    /// Not fio's I/O: the reset of a full zone (`zonemode=zbd`) sent just before the write
    /// that needs it.
    ZoneReset,
}

struct Group {
    clones_left: usize,
    start: Option<SimTime>,
    counters_start: Option<CounterRow>,
    result: Option<GroupResult>,
}

struct Runner {
    /// `zonemode=zbd`: fio's view of the zones, shared by the jobs.
    zbd: Option<zbd::Zbd>,
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
    waiters: Vec<Vec<CloneId>>,
    /// Some job has `exitall` (fio then applies it to every job that finishes).
    exitall: bool,
    /// `exit_what=all` fired: clones created from now on end as soon as they start.
    terminate_all: bool,
    /// Per job: `runtime`, ns.
    runtimes: Vec<Option<u64>>,
    /// `flow=`: the flows clones share.
    flows: flow::Flows,
}

/// fio's zone set-up for the run's `zonemode=zbd` jobs, if any.
fn zbd_setup<D: BlockDevice>(host: &Host<D>, set: &JobSet) -> Result<Option<zbd::Zbd>, JobError> {
    let jobs: Vec<&JobSpec> = set.jobs.iter().filter(|j| j.zbd.is_some()).collect();
    let Some(first) = jobs.first() else { return Ok(None) };
    let g = host.geometry();
    let Some(config) = g.zones else {
        return Err(JobError::Invalid {
            job: first.name.clone(),
            problem: "zonemode=zbd needs a zoned drive (a profile with [zns], e.g. generic-zns-966g); fio's \
                      emulated zones on a conventional drive are not modelled"
                .into(),
        });
    };
    zbd::Zbd::new(config, g.lba_bytes, &host.device().zone_states(), &jobs).map(Some)
}

/// Runs `set` on `host`; `observe` is called with progress now and then and may return
/// false to stop the run ([`RunError::Cancelled`]).
// The run's setup, then its phases, each set up and run in turn: read top to bottom.
pub fn run<D: BlockDevice>(
    host: &mut Host<D>,
    set: &JobSet,
    opts: &RunOptions,
    observe: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunResult, RunError> {
    let g = host.geometry();
    let in_bytes = set.in_zones_of(g.zones.map(|z| z.size_lbas * g.lba_bytes))?;
    let set = in_bytes.as_ref().unwrap_or(set);
    validate(host, set)?;
    // The drive's variability (page reads, retries, firmware time) draws from the run's seed.
    host.reseed_target(opts.seed);
    let engines = set
        .jobs
        .iter()
        .map(|job| EngineRun::resolve(job, host.config(), files::on_files(job)))
        .collect::<Result<Vec<_>, JobError>>()?;
    host.drain();
    let run_start = host.now();
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
        zbd: zbd_setup(host, set)?,
    };
    let ns_bytes = host.geometry().capacity_bytes();
    let mut file_table = FileTable::new(ns_bytes);
    let mut numbering = phase::Numbering::default();
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
        let first_clone = runner.clones.len();
        let phase = phase_start_job..phase_end_job;
        runner.add_clones(host, set, phase, &engines, &groupids, placed, opts, &mut numbering)?;
        runner.arm_starts(set, first_clone, phase_start_job);
        runner.track_steady_state(set, first_clone);
        runner.mark_sees_ahead(host, first_clone);
        if let Err(e) = runner.run_phase(host, observe) {
            host.drain();
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
