//! The NAND back end: geometry, cell modes and timings, dies and channels.
//!
//! Read ONFI 4.x §§ "Read", "Program", "Erase", "Suspend" (or a vendor datasheet) before
//! editing; `docs/model.md` § "NAND timing and suspend" and § "Channel transfer" list what
//! is simplified.
//!
//! [`NandArray`] owns one [`Die`] per die (indexed by [`DieId`]) and one [`BusyResource`]
//! per channel. It does not
//! own the event queue: [`NandArray::submit`] and [`NandArray::complete`] return when a die
//! next needs attention, and the device schedules that. A program's channel transfer is
//! booked when its die picks it (for its ready time, which may lie ahead), and its array
//! phase begins when the transfer ends; a read's transfer is booked when its array phase
//! ends ([`NandArray::transfer_out`]). A program holds its die from the moment the die
//! picks it, through the wait for its channel and its data transfer, to the end of tPROG.
//! A read holds its die only for tR: the page register keeps the data until the channel
//! takes it (cache read), so dies keep reading while a channel is congested.
//!
//! Thermal throttling caps how many dies may run an operation at once
//! ([`NandArray::set_die_cap`]): a die with work that finds the cap reached waits in a FIFO
//! for a die to finish. Without a cap (the normal state) nothing waits.

mod cell;
mod die;
mod geometry;
mod ids;

pub use cell::{CellMode, CellTiming};
pub use die::{Die, DieOp, DieOpKind, DieScheduler, SuspendPolicy, SuspendTiming};
pub use geometry::{Geometry, Ppa, UNIT_BYTES};
pub use ids::{DieId, PuId};

use crate::engine::{BusyResource, SimDuration, SimRng, SimTime, UnitLognormal};
use die::Started;

/// Everything the back end needs to time operations.
#[derive(Clone, Debug, PartialEq)]
pub struct NandTiming {
    /// Array times per cell mode, indexed by [`CellMode::index`].
    pub cell: [CellTiming; 4],
    /// Channel transfer rate in bytes per second (an 8-bit bus moves one byte per transfer).
    pub channel_bytes_per_sec: u64,
    /// Fixed command and address cycles per channel transfer.
    pub channel_cmd: SimDuration,
    /// ECC decode latency per read transfer (the decoder is pipelined, so it adds latency
    /// but does not limit throughput).
    pub ecc_decode: SimDuration,
    /// How dies pick their next op.
    pub scheduler: DieScheduler,
    /// Program/erase suspend.
    pub suspend: SuspendTiming,
    /// Coefficient of variation of the dies' array times (process variation): each die's
    /// times are the nominal ones times a factor of mean 1 drawn once per drive.
    pub die_cv: f64,
}

impl NandTiming {
    /// Array time of an op.
    #[inline]
    pub fn array_time(&self, kind: DieOpKind, mode: CellMode) -> SimDuration {
        let t = &self.cell[mode.index()];
        match kind {
            DieOpKind::HostRead | DieOpKind::MapRead | DieOpKind::RelocRead => t.t_read,
            DieOpKind::Program | DieOpKind::BackgroundProgram | DieOpKind::UrgentProgram | DieOpKind::MapWrite => {
                t.t_prog
            }
            DieOpKind::Erase => t.t_erase,
        }
    }

    /// Array time of `op` on a die whose times are `factor` × nominal.
    #[inline]
    pub fn op_time(&self, op: &DieOp, factor: f64) -> SimDuration {
        let t = if op.t_array == SimDuration::ZERO { self.array_time(op.kind, op.mode) } else { op.t_array };
        if (factor - 1.0).abs() < f64::EPSILON { t } else { t.scaled(factor) }
    }

    /// Channel time to move `units` map units.
    #[inline]
    pub fn transfer_time(&self, units: u32) -> SimDuration {
        self.channel_cmd + SimDuration::for_bytes(u64::from(units) * UNIT_BYTES, self.channel_bytes_per_sec)
    }
}

/// When a die must be looked at again: its current op ends at `end` (an event carrying
/// `generation`; stale generations are ignored).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DieWake {
    /// The die.
    pub die: DieId,
    /// Completion time of the running op.
    pub end: SimTime,
    /// Generation to hand back to [`NandArray::complete`].
    pub generation: u32,
}

/// The dies and channels.
#[derive(Clone, Debug)]
pub struct NandArray {
    /// Geometry and addressing.
    pub geometry: Geometry,
    /// Timings.
    pub timing: NandTiming,
    dies: Vec<Die>,
    channels: Vec<BusyResource>,
    /// Dies running an operation, counted only while a cap holds (from when it was set).
    active: u32,
    /// Most dies allowed to run an operation at once (`u32::MAX`: no cap).
    die_cap: u32,
    /// Dies with work waiting for the cap, first come first served.
    waiting: std::collections::VecDeque<DieId>,
    is_waiting: Vec<bool>,
    /// Each die's array-time factor (process variation, `NandTiming::die_cv`).
    die_factor: Vec<f64>,
}

impl NandArray {
    /// An idle array; `process_seed` (the drive's) draws its dies' process variation.
    pub fn new(geometry: Geometry, timing: NandTiming, process_seed: u64) -> Self {
        let dies = vec![Die::default(); geometry.dies() as usize];
        let mut rng = SimRng::stream(process_seed, 0x4449_4553);
        let variation = UnitLognormal::with_cv(timing.die_cv);
        let die_factor = dies.iter().map(|_| variation.sample(&mut rng)).collect();
        let channels = vec![BusyResource::default(); geometry.channels as usize];
        let is_waiting = vec![false; dies.len()];
        NandArray {
            geometry,
            timing,
            dies,
            channels,
            active: 0,
            die_cap: u32::MAX,
            waiting: std::collections::VecDeque::new(),
            is_waiting,
            die_factor,
        }
    }

    /// Queues `op` on `die`; returns a wake-up if the die started something new.
    pub fn submit(&mut self, die: DieId, op: DieOp, now: SimTime) -> Option<DieWake> {
        let timing = &self.timing;
        let d = &mut self.dies[die.index()];
        d.enqueue(op, timing.scheduler);
        if d.is_idle() {
            return self.start_gated(die, now);
        }
        if matches!(op.kind, DieOpKind::HostRead | DieOpKind::MapRead) && d.should_suspend(now, &timing.suspend) {
            let factor = self.die_factor[die.index()];
            let started = d.suspend_for_read(now, &timing.suspend, |op| timing.op_time(op, factor));
            return wake(die, started);
        }
        None
    }

    /// Handles the end of `die`'s op: returns the finished op (if the wake-up was current)
    /// and up to two wake-ups: a die that waited for the cap (it goes first), and `die`'s
    /// next op.
    pub fn complete(&mut self, die: DieId, generation: u32, now: SimTime) -> (Option<DieOp>, [Option<DieWake>; 2]) {
        let Some(op) = self.dies[die.index()].finish(generation) else {
            return (None, [None, None]);
        };
        if self.die_cap == u32::MAX {
            // Uncapped (the normal state): nothing waits and nothing is counted.
            return (Some(op), [None, self.start_next(die, now)]);
        }
        self.active -= 1;
        let first = match self.pop_waiting() {
            Some(w) => self.start_gated(w, now),
            None => None,
        };
        (Some(op), [first, self.start_gated(die, now)])
    }

    /// Caps the dies running an operation at once at `cap` (`u32::MAX`: no cap). Running
    /// operations finish; waiting dies start, in order, while the new cap allows, their
    /// wake-ups pushed to `wakes`.
    pub fn set_die_cap(&mut self, cap: u32, now: SimTime, wakes: &mut Vec<DieWake>) {
        if self.die_cap == u32::MAX {
            // Dies are counted only while a cap holds: count the ones running now.
            self.active = self.dies.iter().filter(|d| d.is_running()).count() as u32;
        }
        self.die_cap = cap.max(1);
        while self.active < self.die_cap {
            let Some(w) = self.pop_waiting() else { break };
            if let Some(wake) = self.start_gated(w, now) {
                wakes.push(wake);
            }
        }
    }

    /// The cap on dies running at once (`u32::MAX`: none).
    pub fn die_cap(&self) -> u32 {
        self.die_cap
    }

    /// Starts `die`'s next op if it has one and the cap allows; otherwise it waits its turn.
    fn start_gated(&mut self, die: DieId, now: SimTime) -> Option<DieWake> {
        if self.die_cap == u32::MAX {
            return self.start_next(die, now);
        }
        if !self.dies[die.index()].has_work() {
            return None;
        }
        if self.active >= self.die_cap {
            if !std::mem::replace(&mut self.is_waiting[die.index()], true) {
                self.waiting.push_back(die);
            }
            return None;
        }
        let wake = self.start_next(die, now);
        if wake.is_some() {
            self.active += 1;
        }
        wake
    }

    /// The first waiting die that is still idle with work.
    fn pop_waiting(&mut self) -> Option<DieId> {
        while let Some(w) = self.waiting.pop_front() {
            self.is_waiting[w.index()] = false;
            if self.dies[w.index()].is_idle() && self.dies[w.index()].has_work() {
                return Some(w);
            }
        }
        None
    }

    /// Array busy time of every die together, by activity (reads, programs, erases), ns.
    pub fn array_ns(&self) -> [u64; 3] {
        let mut total = [0; 3];
        for d in &self.dies {
            for (t, x) in total.iter_mut().zip(d.array_ns) {
                *t += x;
            }
        }
        total
    }

    fn start_next(&mut self, die: DieId, now: SimTime) -> Option<DieWake> {
        let timing = &self.timing;
        let factor = self.die_factor[die.index()];
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        let started = self.dies[die.index()].start_next(
            now,
            &timing.suspend,
            |op| timing.op_time(op, factor),
            |op, start| match op.kind {
                // Data moves into the page registers before the array programs it.
                DieOpKind::Program | DieOpKind::BackgroundProgram | DieOpKind::UrgentProgram | DieOpKind::MapWrite => {
                    channel.book(start, timing.transfer_time(op.units)).1
                }
                _ => start,
            },
        );
        wake(die, started)
    }

    /// Books the channel of `die` to move `units` out after a read, from `ready`; returns
    /// when the data has been decoded and is in controller memory.
    pub fn transfer_out(&mut self, die: DieId, ready: SimTime, units: u32) -> SimTime {
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        channel.book(ready, self.timing.transfer_time(units)).1 + self.timing.ecc_decode
    }

    /// Die state, for reports and invariant checks.
    pub fn die(&self, die: DieId) -> &Die {
        &self.dies[die.index()]
    }

    /// All dies.
    pub fn dies(&self) -> &[Die] {
        &self.dies
    }

    /// Channel busy time so far, per channel, in ns.
    pub fn channel_busy_ns(&self) -> Vec<u64> {
        self.channels.iter().map(BusyResource::busy_ns).collect()
    }

    /// True when every die is idle with nothing queued.
    pub fn is_quiet(&self) -> bool {
        self.dies.iter().all(Die::is_quiet)
    }
}

fn wake(die: DieId, started: Started) -> Option<DieWake> {
    match started {
        Started::Idle => None,
        Started::Until { end, generation } => Some(DieWake { die, end, generation }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(policy: SuspendPolicy) -> NandArray {
        let cell = CellTiming {
            t_read: SimDuration::from_us(50),
            t_read_spread: SimDuration::ZERO,
            t_prog_spread: SimDuration::ZERO,
            t_prog: SimDuration::from_us(1000),
            t_erase: SimDuration::from_us(3000),
        };
        let timing = NandTiming {
            cell: [cell; 4],
            channel_bytes_per_sec: 400_000_000,
            channel_cmd: SimDuration::ZERO,
            ecc_decode: SimDuration::from_us(2),
            scheduler: DieScheduler::ReadPriority,
            suspend: SuspendTiming {
                policy,
                t_suspend: SimDuration::from_us(20),
                t_resume: SimDuration::from_us(10),
                max_per_op: 4,
            },
            die_cv: 0.0,
        };
        NandArray::new(Geometry::new(1, 1, 1, 4, 4, 16384, CellMode::Tlc), timing, 1)
    }

    fn op(kind: DieOpKind, units: u32) -> DieOp {
        DieOp::nominal(kind, CellMode::Tlc, 0, units, SimTime::ZERO)
    }

    // --- idle die ---------------------------------------------------------------------

    #[test]
    fn read_on_an_idle_die_takes_t_read() {
        let mut a = array(SuspendPolicy::None);
        let w = a.submit(DieId(0), op(DieOpKind::HostRead, 1), SimTime(0)).unwrap();
        assert_eq!(w.end, SimTime(50_000));
        // 4 KiB at 400 MB/s = 10.24 us, then 2 us of ECC.
        assert_eq!(a.transfer_out(DieId(0), w.end, 1), SimTime(50_000 + 10_240 + 2_000));
    }

    #[test]
    fn program_waits_for_its_channel_transfer() {
        let mut a = array(SuspendPolicy::None);
        let w = a.submit(DieId(0), op(DieOpKind::Program, 4), SimTime(0)).unwrap();
        // 16 KiB in (40.96 us) then tPROG.
        assert_eq!(w.end, SimTime(40_960 + 1_000_000));
    }

    // --- busy die ---------------------------------------------------------------------

    #[test]
    fn read_waits_behind_a_program_without_suspend() {
        let mut a = array(SuspendPolicy::None);
        let w = a.submit(DieId(0), op(DieOpKind::Program, 4), SimTime(0)).unwrap();
        assert!(a.submit(DieId(0), op(DieOpKind::HostRead, 1), SimTime(100_000)).is_none());
        let (done, [_, next]) = a.complete(DieId(0), w.generation, w.end);
        assert_eq!(done.unwrap().kind, DieOpKind::Program);
        assert_eq!(next.unwrap().end, w.end + SimDuration::from_us(50));
    }

    #[test]
    fn read_suspends_a_program_and_the_program_resumes_with_its_remaining_time() {
        let mut a = array(SuspendPolicy::Program);
        let w = a.submit(DieId(0), op(DieOpKind::Program, 4), SimTime(0)).unwrap();
        let now = SimTime(100_000);
        let r = a.submit(DieId(0), op(DieOpKind::HostRead, 1), now).unwrap();
        assert_eq!(r.end, now + SimDuration::from_us(20 + 50));
        // The program's own completion is now stale.
        assert_eq!(a.complete(DieId(0), w.generation, w.end), (None, [None, None]));
        let (done, [_, resumed]) = a.complete(DieId(0), r.generation, r.end);
        assert_eq!(done.unwrap().kind, DieOpKind::HostRead);
        let remaining = w.end.since(now);
        assert_eq!(resumed.unwrap().end, r.end + SimDuration::from_us(10) + remaining);
        assert_eq!(a.die(DieId(0)).suspensions, 1);
    }

    // --- throttled: a cap on dies running at once ------------------------------------

    fn four_dies() -> NandArray {
        let a = array(SuspendPolicy::None);
        NandArray::new(Geometry::new(1, 4, 1, 4, 4, 16384, CellMode::Tlc), a.timing, 1)
    }

    #[test]
    fn a_capped_array_runs_dies_in_turn() {
        let mut a = four_dies();
        let mut wakes = Vec::new();
        a.set_die_cap(2, SimTime(0), &mut wakes);
        assert!(wakes.is_empty());
        let started: Vec<_> = (0..4).map(|d| a.submit(DieId(d), op(DieOpKind::HostRead, 1), SimTime(0))).collect();
        // Dies 0 and 1 read at once; 2 and 3 wait for them.
        assert!(started[0].is_some() && started[1].is_some());
        assert!(started[2].is_none() && started[3].is_none());
        let w0 = started[0].unwrap();
        let (done, [first, own]) = a.complete(DieId(0), w0.generation, w0.end);
        assert!(done.is_some() && own.is_none());
        // Die 2 takes die 0's turn, starting when die 0 ends.
        assert_eq!(first.map(|w| (w.die, w.end)), Some((DieId(2), w0.end + SimDuration::from_us(50))));
        // Lifting the cap starts die 3 at once.
        a.set_die_cap(u32::MAX, SimTime(60_000), &mut wakes);
        assert_eq!(wakes.iter().map(|w| w.die).collect::<Vec<_>>(), vec![DieId(3)]);
    }

    #[test]
    fn array_time_is_counted_by_activity() {
        let mut a = array(SuspendPolicy::None);
        let w = a.submit(DieId(0), op(DieOpKind::Program, 4), SimTime(0)).unwrap();
        a.submit(DieId(0), op(DieOpKind::Erase, 0), SimTime(0));
        let (_, [_, next]) = a.complete(DieId(0), w.generation, w.end);
        assert!(next.is_some());
        assert_eq!(a.array_ns(), [0, 1_000_000, 3_000_000]);
    }
}
