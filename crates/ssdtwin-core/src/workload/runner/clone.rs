//! One clone of a job (one fio thread): what it issues next, when its rate allows it, and
//! the statistics of what completed.
//!
//! Decisions follow fio's `io_u.c`: the direction of a mixed job is drawn with probability
//! `rwmixread`, sizes and offsets come from the generators, sequential offsets wrap at the
//! end of the region, random ones use fio's random map. The next [`LOOKAHEAD`] I/Os are
//! decided ahead of issue so the target can warm its memory for them (see
//! `engine::prefetch`); this changes nothing in the model.

use super::super::generators::{BsChooser, OffsetChooser};
use super::super::logs::JobLogs;
use super::super::{Direction, JobResult, JobSpec, RwPattern};
use super::thread::ThreadState;
use crate::engine::{SimDuration, SimRng, SimTime};
use std::collections::VecDeque;

/// I/Os decided ahead of issue per clone, so their memory can be prefetched.
pub(super) const LOOKAHEAD: usize = 4;

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

pub(super) struct JobClone {
    pub group: usize,
    /// fio's `FIO_SYNCIO` engines report no submission latency.
    pub sync_engine: bool,
    pub rw: RwPattern,
    rwmix_read: u32,
    region_start: u64,
    region_bytes: u64,
    pub budget_bytes: Option<u64>,
    max_ios: Option<u64>,
    bs: [BsChooser; 3],
    align: [u64; 3],
    offsets: [Option<OffsetChooser>; 3],
    seq_pos: [u64; 3],
    rate: [Option<RateLimit>; 3],
    rate_poisson: bool,
    rate_rng: SimRng,
    next_rate: [SimTime; 3],
    trimwrite_next: Option<(u64, u64)>,
    /// The next I/Os, decided ahead of issue.
    pub ahead: VecDeque<(Direction, u64, u64)>,
    /// Random values drawn ahead per direction, their random-map words prefetched.
    drawn: [VecDeque<u64>; 3],
    rng: SimRng,
    pub issued_bytes: u64,
    pub issued_ios: u64,
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
    pub sample_window: SimDuration,
    pub now: SimTime,
    pub logs: Option<JobLogs>,
    pub thread: ThreadState,
}

impl JobClone {
    pub(super) fn new(s: CloneSetup) -> Self {
        let spec = s.spec;
        let ns_bytes = s.namespace_bytes;
        let offset = spec.offset.resolve(ns_bytes) + spec.offset_increment.resolve(ns_bytes) * u64::from(s.clone);
        let region_bytes = spec.size.map_or(ns_bytes - spec.offset.resolve(ns_bytes), |size| size.resolve(ns_bytes));
        let per_pass = spec.io_size.map_or(region_bytes, |size| size.resolve(ns_bytes));
        // fio's trimwrite trims each byte and then writes it, so its budget counts both.
        let passes = u64::from(spec.loops.max(1)) * if spec.rw == RwPattern::TrimWrite { 2 } else { 1 };
        let budget_bytes = (!spec.time_based).then(|| per_pass.saturating_mul(passes));
        // fio seeds from the job's thread number when randrepeat=1, so reruns repeat; clones
        // get distinct streams either way.
        let seed = spec.randseed.unwrap_or(s.seed);
        let label = (u64::from(s.thread_number) << 8) ^ u64::from(spec.randrepeat);
        let rng = SimRng::stream(seed, label);
        let align = std::array::from_fn(|d| spec.blockalign[d].unwrap_or_else(|| spec.bs[d].min()));
        let max_bs = std::array::from_fn::<u64, 3, _>(|d| spec.bs[d].max());
        let offsets = std::array::from_fn(|d| {
            let dir = Direction::ALL[d];
            (spec.rw.is_random() && spec.rw.uses(dir)).then(|| {
                let blocks = (region_bytes - max_bs[d]) / align[d] + 1;
                let uniform = matches!(spec.random_distribution[d], super::super::Distribution::Random);
                OffsetChooser::new(&spec.random_distribution[d], blocks, align[d], uniform && !spec.norandommap)
            })
        });
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
            sync_engine: super::super::is_sync_engine(&spec.ioengine),
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
            rate,
            rate_poisson: spec.rate_poisson,
            // Its own stream, so a rate limit does not change which offsets are drawn.
            rate_rng: SimRng::stream(seed, label ^ 0x7a7e),
            next_rate: [SimTime::ZERO; 3],
            trimwrite_next: None,
            ahead: VecDeque::with_capacity(LOOKAHEAD),
            drawn: std::array::from_fn(|_| VecDeque::with_capacity(LOOKAHEAD)),
            rng,
            issued_bytes: 0,
            issued_ios: 0,
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
                name: spec.name.clone(),
                groupid: s.group as u32,
                dirs: Default::default(),
                iodepth_level: [0; 7],
                start_ns: 0,
                ramp_end_ns: 0,
                end_ns: 0,
                usr_ns: 0,
                sys_ns: 0,
                ctx: 0,
                sync_lat: crate::stats::LatStats::default(),
            },
            logs: s.logs,
            thread: s.thread,
        }
    }

    /// True once the clone may issue nothing more: its deadline passed, or its byte budget
    /// or I/O count is used up.
    #[inline]
    /// The bytes the clone addresses, `(start, end)`: its file.
    pub(super) fn region(&self) -> (u64, u64) {
        (self.region_start, self.region_start + self.region_bytes)
    }

    pub(super) fn out_of_work(&self, now: SimTime) -> bool {
        now >= self.deadline
            || self.budget_bytes.is_some_and(|b| self.issued_bytes >= b)
            || self.max_ios.is_some_and(|n| self.issued_ios >= n)
    }

    /// The next I/O, decided now or taken from those decided ahead.
    #[inline]
    pub(super) fn next_io(&mut self) -> (Direction, u64, u64) {
        match self.ahead.pop_front() {
            Some(io) => io,
            None => self.decide(),
        }
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
        let gap = if self.rate_poisson {
            let u = self.rate_rng.unit_f64();
            SimDuration((-(1.0 - u).ln() * mean.as_ns() as f64) as u64)
        } else {
            mean
        };
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
    pub(super) fn decide(&mut self) -> (Direction, u64, u64) {
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
    pub(super) fn close_sample_windows(&mut self, now: SimTime, window: SimDuration) {
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
