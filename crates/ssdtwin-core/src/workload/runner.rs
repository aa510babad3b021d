//! The runner: executes a [`JobSet`] on any [`BlockDevice`] with fio's semantics.
//!
//! Jobs are split into *phases* at every `stonewall`: the jobs of a phase (and their
//! `numjobs` clones) run concurrently, and the next phase starts when the last clone of the
//! previous one has finished. Reporting groups start at every `stonewall` or `new_group`.
//!
//! Each clone is a closed loop: it keeps `iodepth` commands in flight (1 for synchronous
//! engines), issuing the next when one completes (after `thinktime`, and no faster than
//! `rate_iops`). It stops issuing when its byte budget (`io_size` or `size`, times `loops`),
//! `number_ios` or `runtime` is reached; with `time_based` only `runtime` ends it. Statistics
//! count completions after `ramp_time`; with a runtime, completions after the deadline are
//! not counted and the clone's measured time ends at the deadline.
//!
//! The loop alternates between the device's next event and the runner's (issue timers,
//! start, ramp end, deadline), device first on ties, so a run is deterministic.

use super::generators::{BsChooser, OffsetChooser};
use super::logs::JobLogs;
use super::{DirResult, Direction, DiskUtil, GroupResult, JobError, JobResult, JobSet, JobSpec, RunResult, RwPattern};
use crate::block::{BlockDevice, Command, Completion, CounterRow, Opcode};
use crate::engine::{EventQueue, SimDuration, SimRng, SimTime};
use std::collections::VecDeque;
use std::path::PathBuf;
use thiserror::Error;

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
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            seed: 0x5eed,
            series_window_ns: 100_000_000,
            sample_window_ns: 500_000_000,
            log_dir: PathBuf::from("."),
            device_name: "nvme0n1".to_string(),
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

/// I/Os decided ahead of issue per clone, so their memory can be prefetched.
const LOOKAHEAD: usize = 4;

#[derive(Clone, Copy, Debug)]
enum Timer {
    Start(u32),
    Issue(u32),
    RampEnd(u32),
    Deadline(u32),
}

/// Per-direction window accumulator for fio's bw/iops samples.
#[derive(Clone, Copy, Default)]
struct SampleWindow {
    bytes: u64,
    ios: u64,
}

struct JobClone {
    group: usize,
    sync: bool,
    depth: u32,
    rw: RwPattern,
    rwmix_read: u32,
    region_start: u64,
    region_bytes: u64,
    budget_bytes: Option<u64>,
    max_ios: Option<u64>,
    bs: [BsChooser; 3],
    align: [u64; 3],
    offsets: [Option<OffsetChooser>; 3],
    seq_pos: [u64; 3],
    rate_gap: [Option<SimDuration>; 3],
    next_rate: [SimTime; 3],
    thinktime: SimDuration,
    trimwrite_next: Option<(u64, u64)>,
    /// The next I/Os, decided [`LOOKAHEAD`] issues ahead so their map entries are in cache
    /// when they go (see `engine::prefetch`).
    ahead: VecDeque<(Direction, u64, u64)>,
    /// Random values drawn [`LOOKAHEAD`] decisions ahead per direction, their random-map
    /// words prefetched.
    drawn: [VecDeque<u64>; 3],
    rng: SimRng,
    in_flight: u32,
    timers_pending: u32,
    issued_bytes: u64,
    issued_ios: u64,
    start: SimTime,
    ramp_end: SimTime,
    deadline: SimTime,
    started: bool,
    stopped: bool,
    finished: bool,
    windows: [SampleWindow; 3],
    window_end: SimTime,
    result: JobResult,
    logs: Option<JobLogs>,
}

struct Group {
    clones_left: usize,
    start: Option<SimTime>,
    counters_start: Option<CounterRow>,
    result: Option<GroupResult>,
}

/// Runs `set` on `device`; `observe` is called with progress now and then and may return
/// false to stop the run ([`RunError::Cancelled`]).
pub fn run<D: BlockDevice>(
    device: &mut D,
    set: &JobSet,
    opts: &RunOptions,
    observe: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunResult, RunError> {
    validate(device, set)?;
    // Commands left over from an interrupted run belong to nobody: finish them first.
    drain_commands(device);
    let run_start = device.now();
    let groupids = group_ids(set);
    let mut runner = Runner {
        timers: EventQueue::with_capacity(256),
        ios: Vec::new(),
        free_ios: Vec::new(),
        max_command_bytes: device.geometry().max_transfer_bytes,
        clones: Vec::new(),
        groups: Vec::new(),
        series: Vec::new(),
        next_sample: run_start,
        series_window: SimDuration(opts.series_window_ns.max(1)),
        sample_window: SimDuration(opts.sample_window_ns.max(1)),
        run_start,
        in_flight: 0,
        busy_since: run_start,
        disk: DiskUtil { name: opts.device_name.clone(), ..DiskUtil::default() },
        busy_ns: 0,
        bytes_done: 0,
        steps: 0,
        unfinished: 0,
    };
    let mut thread = 0u32;
    let mut phase_start_job = 0;
    while phase_start_job < set.jobs.len() {
        let phase_end_job =
            (phase_start_job + 1..set.jobs.len()).find(|&j| set.jobs[j].stonewall).unwrap_or(set.jobs.len());
        let first_clone = runner.clones.len();
        for j in phase_start_job..phase_end_job {
            let spec = &set.jobs[j];
            let g = groupids[j] as usize;
            while runner.groups.len() <= g {
                runner.groups.push(Group { clones_left: 0, start: None, counters_start: None, result: None });
            }
            for k in 0..spec.numjobs {
                thread += 1;
                let clone = new_clone(device, spec, j, k, g, thread, opts, device.now())?;
                runner.groups[g].clones_left += 1;
                runner.unfinished += 1;
                runner.clones.push(clone);
            }
        }
        for i in first_clone..runner.clones.len() {
            let start = runner.clones[i].start;
            runner.timers.push(start, Timer::Start(i as u32));
        }
        if let Err(e) = runner.run_phase(device, observe) {
            drain_commands(device);
            return Err(e);
        }
        phase_start_job = phase_end_job;
    }
    runner.sample_series_until(device, device.now(), true);
    Ok(runner.finish(device, opts))
}

/// Runs the device until no host command is in flight, discarding completions.
fn drain_commands<D: BlockDevice>(device: &mut D) {
    while device.in_flight() > 0 && device.poll_at() != SimTime::NEVER {
        device.poll();
    }
}

/// The device's counters, taken at `time_ns` since the run started.
fn counter_row<D: BlockDevice>(device: &D, time_ns: u64) -> CounterRow {
    let mut row = CounterRow::at(time_ns);
    device.counters("", &mut row);
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

/// Checks every job against the device before anything runs.
fn validate<D: BlockDevice>(device: &D, set: &JobSet) -> Result<(), JobError> {
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
        if job.time_based && job.runtime_ns.is_none() {
            return Err(invalid(job, "time_based needs a runtime".into()));
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
        let region = job.size.map_or(ns_bytes - offset, |s| s.resolve(ns_bytes));
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

#[allow(clippy::too_many_arguments)]
fn new_clone<D: BlockDevice>(
    device: &D,
    spec: &JobSpec,
    job: usize,
    k: u32,
    group: usize,
    thread: u32,
    opts: &RunOptions,
    now: SimTime,
) -> Result<JobClone, RunError> {
    let ns_bytes = device.geometry().capacity_bytes();
    let offset = spec.offset.resolve(ns_bytes) + spec.offset_increment.resolve(ns_bytes) * u64::from(k);
    let region_bytes = spec.size.map_or(ns_bytes - spec.offset.resolve(ns_bytes), |s| s.resolve(ns_bytes));
    let per_pass = spec.io_size.map_or(region_bytes, |s| s.resolve(ns_bytes));
    // fio's trimwrite trims each byte and then writes it, so its budget counts both.
    let passes = u64::from(spec.loops.max(1)) * if spec.rw == RwPattern::TrimWrite { 2 } else { 1 };
    let budget_bytes = (!spec.time_based).then(|| per_pass.saturating_mul(passes));
    // fio seeds from the job's thread number when randrepeat=1, so reruns repeat; clones
    // get distinct streams either way.
    let seed = spec.randseed.unwrap_or(opts.seed);
    let rng = SimRng::stream(seed, (u64::from(thread) << 8) ^ u64::from(spec.randrepeat));
    let sync = super::is_sync_engine(&spec.ioengine);
    let align = std::array::from_fn(|d| spec.bs[d].min());
    let max_bs = std::array::from_fn::<u64, 3, _>(|d| spec.bs[d].max());
    let offsets = std::array::from_fn(|d| {
        let dir = Direction::ALL[d];
        (spec.rw.is_random() && spec.rw.uses(dir)).then(|| {
            let blocks = (region_bytes - max_bs[d]) / align[d] + 1;
            let uniform = matches!(spec.random_distribution[d], super::Distribution::Random);
            OffsetChooser::new(&spec.random_distribution[d], blocks, align[d], uniform && !spec.norandommap)
        })
    });
    let start = now + SimDuration(spec.startdelay_ns);
    let ramp_end = start + SimDuration(spec.ramp_time_ns);
    let deadline = spec.runtime_ns.map_or(SimTime::NEVER, |r| ramp_end + SimDuration(r));
    let logs = JobLogs::open(spec, thread, &opts.log_dir, !sync)?;
    Ok(JobClone {
        group,
        sync,
        depth: spec.effective_iodepth(),
        rw: spec.rw,
        rwmix_read: spec.rwmix_read,
        region_start: offset,
        region_bytes,
        budget_bytes,
        max_ios: spec.number_ios.map(|n| n * if spec.rw == RwPattern::TrimWrite { 2 } else { 1 }),
        bs: std::array::from_fn(|d| BsChooser::new(&spec.bs[d])),
        align,
        offsets,
        seq_pos: [0; 3],
        rate_gap: std::array::from_fn(|d| spec.rate_iops[d].filter(|&r| r > 0).map(|r| SimDuration(1_000_000_000 / r))),
        next_rate: [SimTime::ZERO; 3],
        thinktime: SimDuration(spec.thinktime_ns),
        trimwrite_next: None,
        ahead: VecDeque::with_capacity(LOOKAHEAD),
        drawn: std::array::from_fn(|_| VecDeque::with_capacity(LOOKAHEAD)),
        rng,
        in_flight: 0,
        timers_pending: 0,
        issued_bytes: 0,
        issued_ios: 0,
        start,
        ramp_end,
        deadline,
        started: false,
        stopped: false,
        finished: false,
        windows: [SampleWindow::default(); 3],
        window_end: ramp_end + SimDuration(opts.sample_window_ns.max(1)),
        result: JobResult {
            job,
            clone: k,
            name: spec.name.clone(),
            groupid: group as u32,
            dirs: Default::default(),
            iodepth_level: [0; 7],
            start_ns: 0,
            ramp_end_ns: 0,
            end_ns: 0,
        },
        logs,
    })
}

/// A fio I/O in flight: one or more device commands (the host block layer splits I/Os
/// larger than the device's maximum transfer size, as Linux does).
#[derive(Clone, Copy, Debug)]
struct InFlightIo {
    clone: u32,
    dir: Direction,
    offset: u64,
    bytes: u64,
    commands_left: u32,
}

struct Runner {
    timers: EventQueue<Timer>,
    ios: Vec<InFlightIo>,
    free_ios: Vec<u32>,
    /// Largest command the device accepts (MDTS), bytes.
    max_command_bytes: u64,
    clones: Vec<JobClone>,
    groups: Vec<Group>,
    series: Vec<CounterRow>,
    next_sample: SimTime,
    series_window: SimDuration,
    sample_window: SimDuration,
    run_start: SimTime,
    in_flight: u32,
    busy_since: SimTime,
    disk: DiskUtil,
    busy_ns: u64,
    bytes_done: u64,
    steps: u64,
    /// Clones not yet finished.
    unfinished: usize,
}

impl Runner {
    fn run_phase<D: BlockDevice>(
        &mut self,
        device: &mut D,
        observe: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<(), RunError> {
        loop {
            let t_dev = device.poll_at();
            let t_run = self.timers.peek_time();
            if t_dev == SimTime::NEVER && t_run == SimTime::NEVER {
                if self.unfinished > 0 {
                    return Err(RunError::Stalled { time_ns: device.now().as_ns(), in_flight: device.in_flight() });
                }
                break;
            }
            let t = t_dev.min(t_run);
            if t >= self.next_sample {
                self.sample_series_until(device, t, false);
            }
            if t_dev <= t_run {
                if let Some(c) = device.poll() {
                    self.on_completion(device, c)?;
                }
            } else {
                let (now, timer) = self.timers.pop().expect("peeked a timer");
                self.on_timer(device, now, timer)?;
            }
            self.steps += 1;
            if self.steps & 0xFFFF == 0 && !observe(&self.progress(device)) {
                return Err(RunError::Cancelled);
            }
            if self.unfinished == 0 {
                // Stragglers of stopped clones are done too; background work (GC) may go on
                // and is finished by the next phase or by whoever drives the device next.
                break;
            }
        }
        Ok(())
    }

    fn progress<D: BlockDevice>(&self, device: &D) -> Progress {
        let deadlines: Option<Vec<SimTime>> =
            self.clones.iter().map(|c| (c.deadline != SimTime::NEVER).then_some(c.deadline)).collect();
        let budgets: Option<u64> = self.clones.iter().map(|c| c.budget_bytes).sum();
        Progress {
            elapsed_ns: device.now().since(self.run_start).as_ns(),
            expected_ns: deadlines.and_then(|d| d.into_iter().max()).map(|t| t.since(self.run_start).as_ns()),
            bytes_done: self.bytes_done,
            bytes_expected: budgets,
        }
    }

    fn sample_series_until<D: BlockDevice>(&mut self, device: &D, t: SimTime, include_end: bool) {
        while self.next_sample <= t {
            let s = counter_row(device, self.next_sample.since(self.run_start).as_ns());
            self.series.push(s);
            self.next_sample += self.series_window;
        }
        if include_end && self.series.last().is_none_or(|s| s.time_ns < t.since(self.run_start).as_ns()) {
            let s = counter_row(device, t.since(self.run_start).as_ns());
            self.series.push(s);
        }
    }

    fn on_timer<D: BlockDevice>(&mut self, device: &mut D, now: SimTime, timer: Timer) -> Result<(), RunError> {
        match timer {
            Timer::Start(i) => {
                let c = &mut self.clones[i as usize];
                c.started = true;
                c.result.start_ns = now.since(self.run_start).as_ns();
                c.result.ramp_end_ns = c.ramp_end.since(self.run_start).as_ns();
                let g = c.group;
                let (ramp_end, deadline) = (c.ramp_end, c.deadline);
                self.groups[g].start.get_or_insert(now);
                if ramp_end == now {
                    // No ramp: the group's counters start before its first command.
                    self.snapshot_group_start(device, g, now);
                } else {
                    self.timers.push(ramp_end, Timer::RampEnd(i));
                }
                if deadline != SimTime::NEVER {
                    self.timers.push(deadline, Timer::Deadline(i));
                }
                self.issue(device, i as usize, now);
            }
            Timer::Issue(i) => {
                self.clones[i as usize].timers_pending -= 1;
                self.issue(device, i as usize, now);
            }
            Timer::RampEnd(i) => {
                let g = self.clones[i as usize].group;
                self.snapshot_group_start(device, g, now);
            }
            Timer::Deadline(i) => {
                let c = &mut self.clones[i as usize];
                c.stopped = true;
                self.maybe_finish(device, i as usize, now)?;
            }
        }
        Ok(())
    }

    /// Records the device counters a group's statistics start from (its first ramp end).
    fn snapshot_group_start<D: BlockDevice>(&mut self, device: &D, g: usize, now: SimTime) {
        if self.groups[g].counters_start.is_none() {
            let s = counter_row(device, now.since(self.run_start).as_ns());
            self.groups[g].counters_start = Some(s);
        }
    }

    /// Issues commands until the clone's depth is full or it must wait.
    fn issue<D: BlockDevice>(&mut self, device: &mut D, i: usize, now: SimTime) {
        let lba = device.geometry().lba_bytes;
        loop {
            let c = &mut self.clones[i];
            if c.stopped || c.in_flight + c.timers_pending >= c.depth {
                break;
            }
            if now >= c.deadline
                || c.budget_bytes.is_some_and(|b| c.issued_bytes >= b)
                || c.max_ios.is_some_and(|n| c.issued_ios >= n)
            {
                c.stopped = true;
                break;
            }
            let (dir, offset, bytes) = match c.ahead.pop_front() {
                Some(io) => io,
                None => c.decide(),
            };
            if let Some(gap) = c.rate_gap[dir.index()] {
                if c.next_rate[dir.index()] > now {
                    let at = c.next_rate[dir.index()];
                    c.ahead.push_front((dir, offset, bytes));
                    c.timers_pending += 1;
                    self.timers.push(at, Timer::Issue(i as u32));
                    break;
                }
                c.next_rate[dir.index()] = now + gap;
            }
            c.issued_bytes += bytes;
            c.issued_ios += 1;
            c.in_flight += 1;
            let depth_bucket = match c.in_flight {
                1 => 0,
                2..=3 => 1,
                4..=7 => 2,
                8..=15 => 3,
                16..=31 => 4,
                32..=63 => 5,
                _ => 6,
            };
            c.result.iodepth_level[depth_bucket] += 1;
            let opcode = match dir {
                Direction::Read => Opcode::Read,
                Direction::Write => Opcode::Write,
                Direction::Trim => Opcode::Trim,
            };
            // Split at the device's maximum transfer size, as the block layer does (a
            // deallocate has no such limit).
            let chunk = if dir == Direction::Trim { bytes } else { bytes.min(self.max_command_bytes) };
            let io = InFlightIo { clone: i as u32, dir, offset, bytes, commands_left: bytes.div_ceil(chunk) as u32 };
            let user = if let Some(k) = self.free_ios.pop() {
                self.ios[k as usize] = io;
                k
            } else {
                self.ios.push(io);
                self.ios.len() as u32 - 1
            };
            let mut at = offset;
            while at < offset + bytes {
                let len = chunk.min(offset + bytes - at);
                let cmd = Command { opcode, slba: at / lba, blocks: (len / lba) as u32 };
                device.submit(now, cmd, u64::from(user)).expect("validation keeps commands inside the namespace");
                at += len;
            }
            let c = &mut self.clones[i];
            // Decide the next I/Os now and prefetch their map entries: DRAM latency then
            // overlaps the work until they are issued instead of stalling the submit.
            while c.ahead.len() < LOOKAHEAD {
                let next = c.decide();
                device.prefetch(next.1 / lba);
                c.ahead.push_back(next);
            }
            if self.in_flight == 0 {
                self.busy_since = now;
            }
            self.in_flight += 1;
        }
    }

    fn on_completion<D: BlockDevice>(&mut self, device: &mut D, done: Completion) -> Result<(), RunError> {
        let now = done.completed;
        let io = &mut self.ios[done.user as usize];
        io.commands_left -= 1;
        if io.commands_left > 0 {
            return Ok(());
        }
        let InFlightIo { clone, dir, offset, bytes, .. } = *io;
        self.free_ios.push(done.user as u32);
        let i = clone as usize;
        self.in_flight -= 1;
        if self.in_flight == 0 {
            self.busy_ns += now.since(self.busy_since).as_ns();
        }
        let c = &mut self.clones[i];
        c.in_flight -= 1;
        let counted = now >= c.ramp_end && now <= c.deadline;
        if counted {
            let (slat, clat) = if c.sync {
                (0, done.completed.since(done.submitted).as_ns())
            } else {
                (done.issued.since(done.submitted).as_ns(), done.completed.since(done.issued).as_ns())
            };
            let d = &mut c.result.dirs[dir.index()];
            d.io_bytes += bytes;
            d.total_ios += 1;
            if c.sync {
                d.latency.clat.record(clat);
                d.latency.lat.record(clat);
                d.latency.clat_hist.record(clat);
                d.latency.buckets.record(clat);
            } else {
                d.latency.record(slat, clat);
            }
            c.close_sample_windows(now, self.sample_window);
            let w = &mut c.windows[dir.index()];
            w.bytes += bytes;
            w.ios += 1;
            let since = now.since(c.ramp_end).as_ns();
            if let Some(logs) = c.logs.as_mut() {
                logs.record(since, dir, slat, clat, bytes, offset)?;
            }
            self.bytes_done += bytes;
            let total_ms = (slat + clat) / 1_000_000;
            match dir {
                Direction::Read => {
                    self.disk.read_ios += 1;
                    self.disk.read_ticks_ms += total_ms;
                }
                Direction::Write => {
                    self.disk.write_ios += 1;
                    self.disk.write_ticks_ms += total_ms;
                }
                Direction::Trim => {}
            }
            self.disk.in_queue_ms += total_ms;
        }
        if !c.stopped {
            if c.thinktime > SimDuration::ZERO {
                c.timers_pending += 1;
                let at = now + c.thinktime;
                self.timers.push(at, Timer::Issue(i as u32));
            } else {
                self.issue(device, i, now);
            }
        }
        self.maybe_finish(device, i, now)
    }

    /// Marks a clone finished once it has stopped issuing and nothing of it is in flight.
    fn maybe_finish<D: BlockDevice>(&mut self, device: &D, i: usize, now: SimTime) -> Result<(), RunError> {
        let c = &mut self.clones[i];
        if c.finished || !c.stopped || c.in_flight > 0 {
            return Ok(());
        }
        c.finished = true;
        self.unfinished -= 1;
        let end = now.min(c.deadline);
        c.close_sample_windows(end, self.sample_window);
        c.result.end_ns = end.since(self.run_start).as_ns();
        let measured = end.since(c.ramp_end).as_ns();
        for dir in Direction::ALL {
            if c.rw.uses(dir) {
                c.result.dirs[dir.index()].runtime_ns = measured;
            }
        }
        if let Some(logs) = c.logs.as_mut() {
            logs.finish(measured)?;
        }
        let g = c.group;
        let group = &mut self.groups[g];
        group.clones_left -= 1;
        if group.clones_left == 0 {
            let end_counters = counter_row(device, end.since(self.run_start).as_ns());
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

    fn finish<D: BlockDevice>(self, device: &D, _opts: &RunOptions) -> RunResult {
        let end = device.now();
        let total = end.since(self.run_start).as_ns().max(1);
        let mut disk = self.disk;
        disk.util_pct = (self.busy_ns as f64 / total as f64 * 100.0).min(100.0);
        RunResult {
            jobs: self.clones.into_iter().map(|c| c.result).collect(),
            groups: self.groups.into_iter().filter_map(|g| g.result).collect(),
            disk,
            series: self.series,
            start_ns: self.run_start.as_ns(),
            end_ns: end.as_ns(),
            profile: device.profile().to_string(),
        }
    }
}

impl JobClone {
    /// fio picks the direction of each I/O of a mixed job with probability `rwmixread`.
    fn pick_direction(&mut self) -> Direction {
        match self.rw {
            RwPattern::Read | RwPattern::RandRead => Direction::Read,
            RwPattern::Write | RwPattern::RandWrite => Direction::Write,
            RwPattern::Trim | RwPattern::RandTrim => Direction::Trim,
            RwPattern::ReadWrite | RwPattern::RandRw => {
                if self.rng.below(100) < u64::from(self.rwmix_read) {
                    Direction::Read
                } else {
                    Direction::Write
                }
            }
            RwPattern::TrimWrite => {
                if self.trimwrite_next.is_some() {
                    Direction::Write
                } else {
                    Direction::Trim
                }
            }
        }
    }

    /// Direction, offset and size of the next I/O.
    fn decide(&mut self) -> (Direction, u64, u64) {
        let dir = self.pick_direction();
        let (offset, bytes) = self.next_offset(dir);
        (dir, offset, bytes)
    }

    /// Offset and size of the next I/O in `dir`.
    fn next_offset(&mut self, dir: Direction) -> (u64, u64) {
        let d = dir.index();
        if dir == Direction::Write
            && let Some((at, left)) = self.trimwrite_next.take()
        {
            // Write the trimmed range back in write-sized pieces, as fio does.
            let bytes = self.bs[d].next(&mut self.rng).min(left);
            if left > bytes {
                self.trimwrite_next = Some((at + bytes, left - bytes));
            }
            return (at, bytes);
        }
        let bytes = self.bs[d].next(&mut self.rng);
        let offset = if let Some(chooser) = self.offsets[d].as_mut() {
            while self.drawn[d].len() <= LOOKAHEAD {
                let raw = chooser.draw(&mut self.rng);
                chooser.touch(raw);
                self.drawn[d].push_back(raw);
            }
            let raw = self.drawn[d].pop_front().expect("filled above");
            self.region_start + chooser.settle(raw) * self.align[d]
        } else {
            if self.seq_pos[d] + bytes > self.region_bytes {
                self.seq_pos[d] = 0;
            }
            let off = self.region_start + self.seq_pos[d];
            self.seq_pos[d] += bytes;
            off
        };
        // A random block near the end may not fit a larger size: clip at the region end.
        let bytes = bytes.min(self.region_start + self.region_bytes - offset);
        if self.rw == RwPattern::TrimWrite {
            self.trimwrite_next = Some((offset, bytes));
        }
        (offset, bytes)
    }

    /// Turns the bytes and I/Os of every averaging window that ended by `now` into samples.
    fn close_sample_windows(&mut self, now: SimTime, window: SimDuration) {
        while self.window_end <= now {
            let secs = window.as_secs_f64();
            for dir in Direction::ALL {
                if !self.rw.uses(dir) {
                    continue;
                }
                let w = std::mem::take(&mut self.windows[dir.index()]);
                let r = &mut self.result.dirs[dir.index()];
                r.bw_samples.push(w.bytes as f64 / 1024.0 / secs);
                r.iops_samples.push(w.ios as f64 / secs);
            }
            self.window_end += window;
        }
    }
}

impl DirResult {
    /// fio's bandwidth in KiB/s over the measured runtime (as `bw` in the JSON).
    pub fn bw_kib_per_sec(&self) -> u64 {
        let ms = self.runtime_ns / 1_000_000;
        if ms == 0 { 0 } else { self.io_bytes * 1000 / ms / 1024 }
    }

    /// fio's IOPS over the measured runtime.
    pub fn iops(&self) -> f64 {
        let ms = self.runtime_ns / 1_000_000;
        if ms == 0 { 0.0 } else { 1000.0 * self.total_ios as f64 / ms as f64 }
    }
}
