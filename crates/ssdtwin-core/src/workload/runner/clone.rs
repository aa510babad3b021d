//! One clone of a job (one fio thread): what it issues next, when its rate allows it, and
//! the statistics of what completed.
//!
//! Decisions follow fio's `io_u.c`: the direction of a mixed job is drawn with probability
//! `rwmixread`, sizes and offsets come from the generators, sequential offsets wrap at the
//! end of the region, random ones use fio's random map. The next [`LOOKAHEAD`] I/Os are
//! decided ahead of issue so the target can warm its memory for them (see
//! `engine::prefetch`); this changes nothing in the model.

use super::super::files::PlacedFile;
use super::super::generators::{BsChooser, OffsetChooser};
use super::super::logs::JobLogs;
use super::super::trace::TraceOp;
use super::super::{
    Direction, Distribution, ExitWhat, FileService, JobResult, JobSpec, PlacementSpec, PlidSelect, RwPattern,
    RwSequencer, StridedZones,
};
use super::control::Control;
use super::thread::ThreadState;
use super::verify::{Phase, Verify};
use crate::block::PlacementId;
use crate::engine::{SimDuration, SimRng, SimTime};
use crate::os::{CloneId, EngineKind};
use std::collections::VecDeque;

/// The runner's clones, indexed by their ids.
impl std::ops::Index<CloneId> for Vec<JobClone> {
    type Output = JobClone;
    #[inline]
    fn index(&self, clone: CloneId) -> &JobClone {
        &self[clone.index()]
    }
}

impl std::ops::IndexMut<CloneId> for Vec<JobClone> {
    #[inline]
    fn index_mut(&mut self, clone: CloneId) -> &mut JobClone {
        &mut self[clone.index()]
    }
}

/// I/Os decided ahead of issue per clone, so their memory can be prefetched.
pub(super) const LOOKAHEAD: usize = 4;

/// An I/O decided ahead of issue.
#[derive(Clone, Copy, Debug)]
pub(super) struct Decided {
    pub offset: u64,
    pub bytes: u64,
    pub dir: Direction,
}

/// Per-direction window accumulator for fio's bw/iops samples.
#[derive(Clone, Copy, Default)]
pub(super) struct SampleWindow {
    pub bytes: u64,
    pub ios: u64,
}

/// How a clone's issue rate is limited in one direction (`rate_iops=`, `rate=`).
#[derive(Clone, Copy, Debug)]
pub(super) enum RateLimit {
    /// One I/O per period.
    Iops(SimDuration),
    /// This many bytes per second.
    Bytes(u64),
}

impl RateLimit {
    /// The mean gap after an I/O of `bytes`.
    fn gap(self, bytes: u64) -> SimDuration {
        match self {
            RateLimit::Iops(period) => period,
            RateLimit::Bytes(per_sec) => SimDuration((u128::from(bytes) * 1_000_000_000 / u128::from(per_sec)) as u64),
        }
    }
}

/// fio's `get_next_seq_offset`: the offset after `last_pos` (the end of the previous I/O)
/// in a region of `bytes`, moved by `add` (`rw=read:N`) except after an I/O at the very
/// start; moving past either end wraps, forwards to the start, backwards to `bytes + add`.
fn next_seq_pos(last_pos: u64, add: i64, bytes: u64) -> u64 {
    if last_pos == 0 || add == 0 {
        return last_pos;
    }
    match last_pos.checked_add_signed(add) {
        Some(pos) if pos < bytes => pos,
        _ if add > 0 => 0,
        _ => bytes.saturating_add_signed(add),
    }
}

/// One file of a clone (or its region of the device) and where the clone is in it.
struct FileCursor {
    /// The clone's I/O region, namespace bytes.
    start: u64,
    bytes: u64,
    /// The whole file on the namespace, bytes `(start, end)`: readahead and fsync see it.
    extent: (u64, u64),
    /// Random offsets per direction (random jobs).
    offsets: [Option<OffsetChooser>; 3],
    /// Random values drawn ahead per direction, their random-map words prefetched.
    drawn: [VecDeque<u64>; 3],
    /// Next sequential offset per direction, from `start` (fio's `last_pos`: the end of
    /// the previous I/O).
    seq_pos: [u64; 3],
    /// Where the previous I/O per direction started, from `start` (fio's `last_start`).
    last_start: [Option<u64>; 3],
    /// Bytes issued to it in this pass, and its share of a pass: it is done once they meet.
    issued: u64,
    quota: u64,
    /// The strided zone I/O is in (`zonemode=strided`).
    zone: Option<ZoneCursor>,
}

/// Where a file's strided zones stand (fio's `file_offset` and `zone_bytes`).
struct ZoneCursor {
    zones: StridedZones,
    /// The zone's start, from the file's.
    offset: u64,
    /// Bytes transferred in it.
    bytes: u64,
}

impl FileCursor {
    /// A cursor at the start of `file`'s region, with `quota` bytes per pass.
    fn new(spec: &JobSpec, file: &PlacedFile, align: [u64; 3], max_bs: [u64; 3], quota: u64) -> Self {
        let bytes = file.region.1 - file.region.0;
        // Random offsets are drawn within a zone (fio's `lastblock` is the zone range).
        let span = spec.strided_zones.map_or(bytes, |z| z.range.min(bytes));
        FileCursor {
            start: file.region.0,
            bytes,
            extent: file.extent,
            offsets: std::array::from_fn(|d| {
                let dir = Direction::ALL[d];
                (spec.rw.is_random() && spec.rw.uses(dir)).then(|| {
                    let blocks = span.saturating_sub(max_bs[d]) / align[d] + 1;
                    let uniform = matches!(spec.random_distribution[d], Distribution::Random);
                    OffsetChooser::new(&spec.random_distribution[d], blocks, align[d], uniform && !spec.norandommap)
                })
            }),
            drawn: std::array::from_fn(|_| VecDeque::with_capacity(LOOKAHEAD)),
            seq_pos: [0; 3],
            last_start: [None; 3],
            issued: 0,
            quota,
            zone: spec.strided_zones.map(|zones| ZoneCursor { zones, offset: 0, bytes: 0 }),
        }
    }

    /// fio's `setup_strided_zone_mode` before an I/O in direction `d`: on to the next zone
    /// once this one has had its bytes (from the file's start again past its end), back to
    /// the zone's start past its range, and every `range` bytes a fresh start (fio's
    /// `fio_file_reset`: each direction at the zone's start, the random map cleared).
    fn enter_zone(&mut self, d: usize) {
        let Some(z) = self.zone.as_mut() else { return };
        if z.bytes >= z.zones.size {
            z.bytes = 0;
            z.offset += z.zones.range + z.zones.skip;
            if z.offset >= self.bytes {
                z.offset = 0;
            }
            self.seq_pos[d] = z.offset;
        }
        if self.seq_pos[d] >= z.offset + z.zones.range {
            self.seq_pos[d] = z.offset;
        }
        if z.bytes % z.zones.range == 0 {
            self.seq_pos = [z.offset; 3];
            self.last_start = [None; 3];
            for chooser in self.offsets.iter_mut().flatten() {
                chooser.reset_map();
            }
            for drawn in &mut self.drawn {
                drawn.clear();
            }
        }
    }

    fn done(&self) -> bool {
        self.issued >= self.quota
    }
}

// Each flag is one state of the clone fio keeps as a flag too.
#[allow(clippy::struct_excessive_bools)]
pub(super) struct JobClone {
    pub group: usize,
    /// What `exitall` ends when this clone finishes.
    pub exit_what: ExitWhat,
    /// `rate_min` / `rate_iops_min`: the check that fails the job when it runs too slowly.
    pub rate_check: Option<super::rate_min::RateCheck>,
    /// fio's `FIO_SYNCIO` engines report no submission latency.
    pub sync_engine: bool,
    pub rw: RwPattern,
    rwmix_read: u32,
    /// The files (one region of the namespace for a job on the device), and which one
    /// the next I/O goes to.
    files: Vec<FileCursor>,
    file: usize,
    /// Whether a file has been picked yet.
    file_picked: bool,
    service: FileService,
    /// I/Os left on the current file before the service type picks again.
    service_left: u32,
    /// Draws file numbers for `random` and skewed file services.
    file_chooser: Option<OffsetChooser>,
    /// The page cache's readahead stream of the first file; file `k` uses `stream_base + k`.
    pub stream_base: u32,
    pub budget_bytes: Option<u64>,
    max_ios: Option<u64>,
    bs: [BsChooser; 3],
    align: [u64; 3],
    rate: [Option<RateLimit>; 3],
    /// `io_submit_mode=offload`: latency of a rate-limited I/O runs from its scheduled time.
    pub offload: bool,
    rate_poisson: bool,
    rate_rng: SimRng,
    next_rate: [SimTime; 3],
    trimwrite_next: Option<(u64, u64)>,
    /// `rw=PATTERN:N`: bytes added to each sequential offset, and random draws every `N`
    /// I/Os with the countdown to the next (fio's `ddir_seq_add`, `ddir_seq_nr`).
    seq_add: i64,
    seq_nr: u32,
    seq_countdown: u32,
    sequencer: RwSequencer,
    /// The next I/Os, decided ahead of issue.
    pub ahead: VecDeque<Decided>,
    rng: SimRng,
    pub issued_bytes: u64,
    pub issued_ios: u64,
    /// Data I/Os and bytes completed since the start, ramp included (steady-state samples).
    pub done_ios: u64,
    pub done_bytes: u64,
    pub start: SimTime,
    pub ramp_end: SimTime,
    pub deadline: SimTime,
    pub started: bool,
    /// No more I/O will be issued (deadline, budget or count reached).
    pub stopped: bool,
    pub finished: bool,
    pub windows: [SampleWindow; 3],
    pub window_end: SimTime,
    pub result: JobResult,
    pub logs: Option<JobLogs>,
    pub thread: ThreadState,
    /// Verification, latency limits, flows and command priorities, if the job uses any.
    pub control: Option<Box<Control>>,
    /// The job's own priority (`prioclass`, `prio`), for the logs.
    pub own_priority: super::super::IoPriority,
    /// With verification, each pass over the region is followed by reading it back: the
    /// bytes of one pass, and the passes still to come (`None`: until the runtime ends).
    pass_bytes: u64,
    passes_left: Option<u32>,
    /// With data placement, the identifiers its writes name and how it picks them.
    placement: Option<PlacementPicker>,
    /// `zonemode=zbd`: the clone's share of fio's zone handling.
    pub zbd: Option<super::zbd::ZbdJob>,
}

/// fio's `dp_fill_dspec_data`: each write names the next identifier of the job's list
/// (round robin, one cursor per clone) or one drawn from it, from the clone's own stream.
struct PlacementPicker {
    ids: Vec<PlacementId>,
    select: PlidSelect,
    next: usize,
    rng: SimRng,
}

impl PlacementPicker {
    /// The picker of `spec` on a drive with `handles` reclaim unit handles (the run checked
    /// its indices against them); the status list names handle `i` by identifier `i`.
    fn new(spec: &PlacementSpec, handles: u16, rng: SimRng) -> Self {
        let ids = match &spec.indices {
            Some(indices) => indices.iter().map(|&i| PlacementId(i)).collect(),
            None => (0..handles.min(MAX_PLACEMENT_IDS)).map(PlacementId).collect(),
        };
        PlacementPicker { ids, select: spec.select, next: 0, rng }
    }

    fn pick(&mut self) -> PlacementId {
        let k = match self.select {
            PlidSelect::RoundRobin => {
                let k = self.next;
                self.next = (self.next + 1) % self.ids.len();
                k
            }
            PlidSelect::Random => self.rng.below(self.ids.len() as u64) as usize,
        };
        self.ids[k]
    }
}

/// fio's `FIO_MAX_DP_IDS`: with no `plids=`, the first this many handles.
const MAX_PLACEMENT_IDS: u16 = 128;

impl JobClone {
    /// The placement identifier the next write names, if the job places its writes.
    #[inline]
    pub(super) fn next_placement(&mut self) -> Option<PlacementId> {
        self.placement.as_mut().map(PlacementPicker::pick)
    }
}

/// Process ids fio's parent can have: above the ones a booted Linux system has used, below
/// the kernel's default `pid_max` (32768) less room for the clones.
const PARENT_PIDS: std::ops::Range<u64> = 1_000..30_000;

/// The process id of the clone with fio's thread number `thread_number` (1-based): fio
/// forks one process per clone in order, so on a quiet machine they follow its parent's.
/// The parent's is drawn from the run's seed: the same seed gives the same pids.
fn process_id(seed: u64, thread_number: u32) -> u32 {
    let parent = PARENT_PIDS.start + SimRng::stream(seed, 0x5049_4400).below(PARENT_PIDS.end - PARENT_PIDS.start);
    (parent + u64::from(thread_number)) as u32
}

/// What a clone is given when it is created.
pub(super) struct CloneSetup<'a> {
    pub spec: &'a JobSpec,
    pub job: usize,
    pub clone: u32,
    pub group: usize,
    /// fio's global thread number (1-based).
    pub thread_number: u32,
    pub seed: u64,
    pub namespace_bytes: u64,
    /// Its files, or its region of the device.
    pub files: Vec<PlacedFile>,
    /// The readahead stream of its first file.
    pub stream_base: u32,
    pub sample_window: SimDuration,
    pub now: SimTime,
    pub logs: Option<JobLogs>,
    pub thread: ThreadState,
    pub host: &'a crate::os::HostConfig,
    /// `read_iolog=`: the clone's trace.
    pub replay: Option<super::replay::ReplayCursor>,
    /// `write_iolog=`: its iolog.
    pub iolog: Option<super::super::trace::IologWriter>,
    /// The target's reclaim unit handles (data placement).
    pub placement_handles: u16,
}

impl JobClone {
    // The clone's whole setup from its job's options, one field after another.
    #[allow(clippy::too_many_lines)]
    pub(super) fn new(s: CloneSetup) -> Self {
        let spec = s.spec;
        let ns_bytes = s.namespace_bytes;
        let total_bytes: u64 = s.files.iter().map(|f| f.region.1 - f.region.0).sum();
        let per_pass = spec.io_size.map_or(total_bytes, |size| size.resolve(ns_bytes));
        // fio's trimwrite trims each byte and then writes it, so its budget counts both.
        let passes = u64::from(spec.loops.max(1)) * if spec.rw == RwPattern::TrimWrite { 2 } else { 1 };
        // fio seeds from the job's thread number when randrepeat=1, so reruns repeat; clones
        // get distinct streams either way.
        let seed = spec.randseed.unwrap_or(s.seed);
        let label = (u64::from(s.thread_number) << 8) ^ u64::from(spec.randrepeat);
        let start = s.now + SimDuration(spec.startdelay_ns);
        let control = Control::new(spec, s.host, seed, label, start, (s.replay, s.iolog));
        // fio's thread_main: with verification every pass (even of a time-based job) ends
        // after `size` bytes and is read back before the next.
        let passes_verified = control.as_ref().and_then(|c| c.verify.as_ref()).is_some_and(Verify::logs_writes);
        let replaying = control.as_ref().is_some_and(|c| c.replay.is_some());
        let budget_bytes = if spec.files.create_only {
            Some(0)
        } else if replaying {
            // The trace ends the job.
            None
        } else if passes_verified {
            Some(per_pass)
        } else {
            (!spec.time_based).then(|| per_pass.saturating_mul(passes))
        };
        let passes_left = (!spec.time_based).then(|| spec.loops.max(1) - 1);
        let rng = SimRng::stream(seed, label);
        let align = std::array::from_fn(|d| spec.blockalign[d].unwrap_or_else(|| spec.bs[d].min()));
        let max_bs = std::array::from_fn::<u64, 3, _>(|d| spec.bs[d].max());
        let files: Vec<FileCursor> = s
            .files
            .iter()
            .map(|f| FileCursor::new(spec, f, align, max_bs, share_of(per_pass, f.region.1 - f.region.0, total_bytes)))
            .collect();
        let file_chooser = match &spec.files.service {
            _ if files.len() < 2 => None,
            FileService::Random { .. } => Some(OffsetChooser::new(&Distribution::Random, files.len() as u64, 1, false)),
            FileService::Skewed(dist) => Some(OffsetChooser::new(dist, files.len() as u64, 1, false)),
            FileService::RoundRobin { .. } | FileService::Sequential => None,
        };
        let rate = std::array::from_fn(|d| {
            match (spec.rate_iops[d].filter(|&r| r > 0), spec.rate_bytes[d].filter(|&r| r > 0)) {
                (Some(iops), _) => Some(RateLimit::Iops(SimDuration(1_000_000_000 / iops))),
                (None, Some(bytes)) => Some(RateLimit::Bytes(bytes)),
                (None, None) => None,
            }
        });
        let start = s.now + SimDuration(spec.startdelay_ns);
        let ramp_end = start + SimDuration(spec.ramp_time_ns);
        let deadline = spec.runtime_ns.map_or(SimTime::NEVER, |r| ramp_end + SimDuration(r));
        JobClone {
            group: s.group,
            exit_what: spec.exit_what,
            rate_check: super::rate_min::RateCheck::new(spec),
            sync_engine: super::super::is_sync_engine(&spec.ioengine),
            rw: spec.rw,
            rwmix_read: spec.rwmix_read,
            files,
            file: 0,
            file_picked: false,
            service: spec.files.service.clone(),
            service_left: 0,
            file_chooser,
            stream_base: s.stream_base,
            budget_bytes,
            max_ios: spec.number_ios.map(|n| n * if spec.rw == RwPattern::TrimWrite { 2 } else { 1 }),
            bs: std::array::from_fn(|d| BsChooser::new(&spec.bs[d])),
            align,
            rate,
            rate_poisson: spec.rate_poisson,
            offload: spec.io_submit_offload,
            // Its own stream, so a rate limit does not change which offsets are drawn.
            rate_rng: SimRng::stream(seed, label ^ 0x7a7e),
            next_rate: [SimTime::ZERO; 3],
            trimwrite_next: None,
            seq_add: spec.rw_seq_add,
            seq_nr: spec.rw_seq_nr,
            // fio starts the countdown at 1: the first I/O draws.
            seq_countdown: 1,
            sequencer: spec.rw_sequencer,
            ahead: VecDeque::with_capacity(LOOKAHEAD),
            rng,
            issued_bytes: 0,
            issued_ios: 0,
            done_ios: 0,
            done_bytes: 0,
            start,
            ramp_end,
            deadline,
            started: false,
            stopped: false,
            finished: false,
            windows: [SampleWindow::default(); 3],
            window_end: ramp_end + s.sample_window,
            result: JobResult {
                job: s.job,
                clone: s.clone,
                pid: process_id(s.seed, s.thread_number),
                name: spec.name.clone(),
                groupid: s.group as u32,
                dirs: fresh_dirs(control.as_ref().and_then(|c| c.priority.as_ref())),
                iodepth_level: [0; 7],
                start_ns: 0,
                ramp_end_ns: 0,
                end_ns: 0,
                usr_ns: 0,
                sys_ns: 0,
                ctx: 0,
                sync_lat: crate::stats::LatStats::default(),
                steadystate: None,
                error: None,
                latency_depth: None,
                zone_resets: 0,
            },
            logs: s.logs,
            thread: s.thread,
            control,
            own_priority: spec.priority.job_priority(),
            pass_bytes: per_pass,
            passes_left,
            placement: spec
                .placement
                .as_ref()
                .map(|p| PlacementPicker::new(p, s.placement_handles, SimRng::stream(seed, label ^ 0x0046_4450))),
            zbd: spec.zbd.as_ref().map(|_| {
                let start = s.files.iter().map(|f| f.region.0).min().unwrap_or(0);
                let end = s.files.iter().map(|f| f.region.1).max().unwrap_or(ns_bytes);
                super::zbd::ZbdJob::new(spec, start, end, per_pass)
            }),
        }
    }

    /// `latency_target` found its depth: statistics restart at `now` (fio's
    /// `reset_all_stats`, which also restarts the runtime).
    pub(super) fn restart_measurement(&mut self, now: SimTime, runtime_ns: Option<u64>, window: SimDuration) {
        let dirs = fresh_dirs(self.priority());
        let r = &mut self.result;
        r.dirs = dirs;
        r.iodepth_level = [0; 7];
        (self.thread.usr_ns, self.thread.sys_ns, self.thread.ctx) = (0, 0, 0);
        r.sync_lat = crate::stats::LatStats::default();
        self.windows = [SampleWindow::default(); 3];
        self.ramp_end = now;
        self.window_end = now + window;
        if let Some(runtime) = runtime_ns {
            self.deadline = now + SimDuration(runtime);
        }
    }

    /// Whether the clone measures `dir`: its pattern's directions, and reads when it
    /// reads back what it wrote.
    pub(super) fn measures(&self, dir: Direction) -> bool {
        self.rw.uses(dir) || (dir == Direction::Read && self.verify().is_some_and(Verify::logs_writes))
    }

    /// After a read-back, starts the next pass if one is left (fio's `keep_running`).
    pub(super) fn next_pass(&mut self) -> bool {
        match self.passes_left.as_mut() {
            Some(0) => return false,
            Some(n) => *n -= 1,
            None => {}
        }
        if let Some(b) = self.budget_bytes.as_mut() {
            *b += self.pass_bytes;
        }
        self.stopped = false;
        true
    }

    /// `verify_only`: the pass's writes are decided and logged without being issued.
    pub(super) fn dry_run_pass(&mut self) {
        while self.budget_bytes.is_none_or(|b| self.issued_bytes < b) {
            let (_, _, bytes, _) = self.next_io();
            self.issued_bytes += bytes.max(1);
        }
        self.stopped = true;
    }

    /// The clone's I/O regions in its files, namespace bytes `(start, end)`: what fio's
    /// `invalidate` and `pre_read` cover.
    pub(super) fn file_regions(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.files.iter().map(|f| (f.start, f.start + f.bytes))
    }

    /// The extents of the clone's files on the namespace, bytes `(start, end)`.
    pub(super) fn file_extents(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.files.iter().map(|f| f.extent)
    }

    /// The file holding namespace byte `offset`: its readahead stream and its extent.
    pub(super) fn file_at(&self, offset: u64) -> (u32, (u64, u64)) {
        let k = match self.files.as_slice() {
            [_] => 0,
            files => files.iter().position(|f| (f.extent.0..f.extent.1).contains(&offset)).unwrap_or(0),
        };
        (self.stream_base + k as u32, self.files[k].extent)
    }

    /// Moves the clone's start to `to` if that is later (`wait_for`): its ramp, deadline
    /// and sample windows move with it. Returns the start.
    pub(super) fn delay_start(&mut self, to: SimTime) -> SimTime {
        if to > self.start {
            let shift = to.since(self.start);
            self.start = to;
            self.ramp_end += shift;
            if self.deadline != SimTime::NEVER {
                self.deadline += shift;
            }
            self.window_end += shift;
        }
        self.start
    }

    /// `exitall` ended the clone before it started: it issues nothing once it does.
    pub(super) fn end_at_start(&mut self) {
        self.ramp_end = self.start;
        self.deadline = self.start;
    }

    /// True once the clone may issue nothing more: its deadline passed, or its byte budget
    /// or I/O count is used up.
    #[inline]
    pub(super) fn out_of_work(&self, now: SimTime) -> bool {
        if self.control.is_some() {
            if let Some(v) = self.verify()
                && v.phase == Phase::Verify
            {
                return now >= self.deadline || v.verified_all();
            }
            if let Some(r) = self.replay() {
                return now >= self.deadline || r.peek().is_none();
            }
        }
        now >= self.deadline
            || self.budget_bytes.is_some_and(|b| self.issued_bytes >= b)
            || self.max_ios.is_some_and(|n| self.issued_ios >= n)
    }

    /// The next I/O, decided now or taken from those decided ahead, and whether it reads
    /// back a block written earlier (`verify=`).
    #[inline]
    pub(super) fn next_io(&mut self) -> (Direction, u64, u64, bool) {
        if self.control.is_some() {
            return self.next_io_verified();
        }
        let Decided { offset, bytes, dir } = self.ahead.pop_front().unwrap_or_else(|| self.decide());
        (dir, offset, bytes, false)
    }

    /// [`Self::next_io`] for a clone that may verify.
    #[cold]
    fn next_io_verified(&mut self) -> (Direction, u64, u64, bool) {
        let last_was_read = !self.thread.last_issue_write;
        if let Some((offset, bytes)) = self.verify_mut().and_then(|v| v.next_read_back(last_was_read)) {
            return (Direction::Read, offset, bytes, true);
        }
        let Decided { offset, bytes, dir } = self.ahead.pop_front().unwrap_or_else(|| self.decide());
        // Under zonemode=zbd the block written is known when the write is sent (its zone's
        // write pointer): it is logged there.
        if dir == Direction::Write
            && self.zbd.is_none()
            && let Some(v) = self.verify_mut()
        {
            v.log_write(offset, bytes);
        }
        (dir, offset, bytes, false)
    }

    /// Its trace, if it replays one.
    #[inline]
    pub(super) fn replay(&self) -> Option<&super::replay::ReplayCursor> {
        self.control.as_deref()?.replay.as_ref()
    }

    #[inline]
    pub(super) fn replay_mut(&mut self) -> Option<&mut super::replay::ReplayCursor> {
        self.control.as_deref_mut()?.replay.as_mut()
    }

    /// Whether it replays a trace.
    #[inline]
    pub(super) fn replaying(&self) -> bool {
        self.replay().is_some()
    }

    /// The next I/O of a replaying clone, issued at `now`: its trace's next entry.
    pub(super) fn next_replayed(&mut self, now: SimTime) -> (Direction, u64, u64, bool) {
        let e = self.replay_mut().and_then(|r| r.take(now)).expect("issued only while the trace has I/O next");
        let dir = match e.op {
            TraceOp::Read => Direction::Read,
            TraceOp::Write => Direction::Write,
            TraceOp::Trim => Direction::Trim,
            TraceOp::Sync | TraceOp::Wait => unreachable!("syncs and waits are not issued as I/O"),
        };
        (dir, e.offset, e.bytes, false)
    }

    /// Logs an I/O (or a sync) issued at `now` to its `write_iolog`, if it keeps one.
    pub(super) fn log_issue(&mut self, now: SimTime, op: TraceOp, offset: u64, bytes: u64) {
        let us = now.since(self.start).as_ns() / 1000;
        if let Some(log) = self.control.as_deref_mut().and_then(|c| c.iolog.as_mut()) {
            log.record(us, op, offset, bytes);
        }
    }

    /// Its verification, if it verifies.
    #[inline]
    pub(super) fn verify(&self) -> Option<&Verify> {
        self.control.as_deref()?.verify.as_ref()
    }

    #[inline]
    pub(super) fn verify_mut(&mut self) -> Option<&mut Verify> {
        self.control.as_deref_mut()?.verify.as_mut()
    }

    /// Its command-priority draws, if it splits priorities.
    #[inline]
    pub(super) fn priority(&self) -> Option<&super::priority::PrioritySelector> {
        self.control.as_deref()?.priority.as_ref()
    }

    /// Its flow membership, once started in a flow.
    #[inline]
    pub(super) fn flow(&self) -> Option<super::flow::Member> {
        self.control.as_deref()?.flow
    }

    /// The direction of the next I/O, for its rate limit: the next decided one's (a
    /// read-back is a read; `verify_only` leaves nothing decided).
    #[inline]
    pub(super) fn next_dir(&self) -> Direction {
        if let Some(e) = self.replay().and_then(super::replay::ReplayCursor::peek) {
            return match e.op {
                TraceOp::Write => Direction::Write,
                TraceOp::Trim => Direction::Trim,
                _ => Direction::Read,
            };
        }
        match (self.verify(), self.ahead.front()) {
            (Some(v), _) if v.phase == Phase::Verify => Direction::Read,
            (_, Some(decided)) => decided.dir,
            (_, None) => Direction::Read,
        }
    }

    /// Whether this clone's thread runs fio's loop without the options that change what a
    /// woken thread does next, woken by interrupts (see
    /// [`super::thread::ThreadState::plain_loop`]); fixed for the clone's life.
    pub(super) fn plain_loop(&self) -> bool {
        let t = &self.thread;
        let e = &t.engine;
        self.control.is_none()
            && !self.rate_limited()
            && e.kind != EngineKind::KernelCallback
            && !e.null
            && e.batch_submit == 1
            && e.complete_min <= 1
            && e.low + 1 >= e.depth
            && e.buffered.is_none()
            && t.depth_cap == u32::MAX
            && t.think_total == SimDuration::ZERO
            && t.fsync_blocks == 0
            && t.fdatasync_blocks == 0
            && !t.flush_sync_writes
            && !e.polled
            && !e.free
    }

    /// Whether any direction is rate-limited.
    #[inline]
    pub(super) fn rate_limited(&self) -> bool {
        self.rate.iter().any(Option::is_some)
    }

    /// When the rate limit of `dir` allows its next I/O (`SimTime::ZERO`: now).
    #[inline]
    pub(super) fn rate_allows_at(&self, dir: Direction) -> SimTime {
        if self.rate[dir.index()].is_some() { self.next_rate[dir.index()] } else { SimTime::ZERO }
    }

    /// Moves the rate limit of `dir` past an I/O of `bytes`. As fio's `usec_for_io`, the
    /// schedule runs from the clone's start, not from when an I/O went: an even gap per I/O,
    /// or with `rate_process=poisson` an exponentially distributed one of the same mean.
    #[inline]
    pub(super) fn charge_rate(&mut self, dir: Direction, bytes: u64) {
        let Some(limit) = self.rate[dir.index()] else { return };
        let mean = limit.gap(bytes);
        let gap =
            if self.rate_poisson { SimDuration(self.rate_rng.exponential(mean.as_ns() as f64) as u64) } else { mean };
        let next = &mut self.next_rate[dir.index()];
        *next = (*next).max(self.start) + gap;
    }

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
    pub(super) fn decide(&mut self) -> Decided {
        let dir = self.pick_direction();
        let (offset, bytes) = self.next_offset(dir);
        Decided { offset, bytes, dir }
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
        if self.files.len() > 1 {
            self.pick_file();
        }
        // fio counts down to the next random draw on every I/O (`:N`; 1 draws every time).
        self.seq_countdown -= 1;
        let mut draw = self.seq_countdown == 0;
        if draw {
            self.seq_countdown = self.seq_nr;
        }
        let f = &mut self.files[self.file];
        f.enter_zone(d);
        let zone_start = f.zone.as_ref().map_or(0, |z| z.offset);
        let seq = next_seq_pos(f.seq_pos[d], self.seq_add, f.bytes);
        // A random job whose sequential run reaches the end draws instead, as fio does.
        draw |= f.offsets[d].is_some() && self.sequencer == RwSequencer::Sequential && seq + bytes > f.bytes;
        let offset = match f.offsets[d].as_mut() {
            Some(chooser) if draw => {
                while f.drawn[d].len() <= LOOKAHEAD {
                    let raw = chooser.draw(&mut self.rng);
                    chooser.touch(raw);
                    f.drawn[d].push_back(raw);
                }
                let raw = f.drawn[d].pop_front().expect("filled above");
                f.start + zone_start + chooser.settle(raw) * self.align[d]
            }
            Some(_) if self.sequencer == RwSequencer::Identical => f.start + f.last_start[d].unwrap_or(0),
            _ => f.start + if seq + bytes > f.bytes { 0 } else { seq },
        };
        // A random block near the end may not fit a larger size: clip at the region end.
        let bytes = bytes.min(f.start + f.bytes - offset);
        f.last_start[d] = Some(offset - f.start);
        f.seq_pos[d] = offset - f.start + bytes;
        f.issued += bytes;
        if let Some(z) = f.zone.as_mut() {
            z.bytes += bytes;
        }
        if self.rw == RwPattern::TrimWrite {
            self.trimwrite_next = Some((offset, bytes));
        }
        (offset, bytes)
    }

    /// Moves to the file the next I/O goes to, as fio's `get_next_file`: the current one
    /// while its turn lasts (`:N` I/Os; for `sequential`, until it is done), then the next
    /// not-done file in turn or a not-done file drawn at random. When every file is done,
    /// a new pass over all of them begins (fio's loops and time-based runs).
    fn pick_file(&mut self) {
        if self.files.iter().all(FileCursor::done) {
            for f in &mut self.files {
                f.issued = 0;
            }
        }
        let stay = self.file_picked
            && match self.service {
                FileService::Sequential => true,
                FileService::RoundRobin { .. } | FileService::Random { .. } => self.service_left > 0,
                FileService::Skewed(_) => false,
            };
        if stay && !self.files[self.file].done() {
            self.service_left = self.service_left.saturating_sub(1);
            return;
        }
        let n = self.files.len();
        // fio's round robin starts at the first file.
        let from = if self.file_picked { self.file } else { n - 1 };
        self.file_picked = true;
        self.file = match self.file_chooser.as_mut() {
            // Draws are bounded: after a few misses on done files, take the next one in turn.
            Some(chooser) => (0..4 * n)
                .map(|_| chooser.draw(&mut self.rng) as usize % n)
                .find(|&k| !self.files[k].done())
                .unwrap_or_else(|| next_not_done(&self.files, from)),
            None => next_not_done(&self.files, from),
        };
        self.service_left = match self.service {
            FileService::RoundRobin { every } | FileService::Random { every } => every - 1,
            FileService::Sequential | FileService::Skewed(_) => 0,
        };
    }

    /// Turns the bytes and I/Os of every averaging window that ended by `now` into samples.
    pub(super) fn close_sample_windows(&mut self, now: SimTime, window: SimDuration) {
        while self.window_end <= now {
            let secs = window.as_secs_f64();
            for dir in Direction::ALL {
                if !self.measures(dir) {
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

/// Empty per-direction results, with per-priority statistics where priorities are split.
fn fresh_dirs(priority: Option<&super::priority::PrioritySelector>) -> [super::super::DirResult; 3] {
    let mut dirs: [super::super::DirResult; 3] = Default::default();
    if let Some(p) = priority {
        for (d, stats) in dirs.iter_mut().zip(p.empty_stats()) {
            d.prios = stats;
        }
    }
    dirs
}

/// `bytes`' share of `per_pass` when the files hold `total` bytes.
fn share_of(per_pass: u64, bytes: u64, total: u64) -> u64 {
    (u128::from(per_pass) * u128::from(bytes) / u128::from(total.max(1))) as u64
}

/// The first file after `current`, in turn, that is not done (`current` itself last).
fn next_not_done(files: &[FileCursor], current: usize) -> usize {
    (1..=files.len()).map(|step| (current + step) % files.len()).find(|&k| !files[k].done()).unwrap_or(current)
}
