//! The NAND back end: geometry, cell modes and timings, dies and channels.
//!
//! Read ONFI 4.x §§ "Read", "Program", "Erase", "Suspend" (or a vendor datasheet) before
//! editing; `docs/model.md` § "NAND timing and suspend" and § "Channel transfer" list what
//! is simplified.
//!
//! [`NandArray`] owns one [`Die`] per die and one [`BusyResource`] per channel. It does not
//! own the event queue: [`NandArray::submit`] and [`NandArray::complete`] return when a die
//! next needs attention, and the device schedules that. A program's channel transfer is
//! booked when its die picks it (for its ready time, which may lie ahead), and its array
//! phase begins when the transfer ends; a read's transfer is booked when its array phase
//! ends ([`NandArray::transfer_out`]). A program holds its die from the moment the die
//! picks it, through the wait for its channel and its data transfer, to the end of tPROG.
//! A read holds its die only for tR: the page register keeps the data until the channel
//! takes it (cache read), so dies keep reading while a channel is congested.

mod cell;
mod die;
mod geometry;

pub use cell::{CellMode, CellTiming};
pub use die::{Die, DieOp, DieOpKind, DieScheduler, SuspendPolicy, SuspendTiming};
pub use geometry::{Geometry, Ppa, UNIT_BYTES};

use crate::engine::{BusyResource, SimDuration, SimTime};
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
    /// Die index.
    pub die: u32,
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
}

impl NandArray {
    /// An idle array.
    pub fn new(geometry: Geometry, timing: NandTiming) -> Self {
        let dies = vec![Die::default(); geometry.dies() as usize];
        let channels = vec![BusyResource::default(); geometry.channels as usize];
        NandArray { geometry, timing, dies, channels }
    }

    /// Queues `op` on `die`; returns a wake-up if the die started something new.
    pub fn submit(&mut self, die: u32, op: DieOp, now: SimTime) -> Option<DieWake> {
        let timing = &self.timing;
        let d = &mut self.dies[die as usize];
        d.enqueue(op, timing.scheduler);
        if d.is_idle() {
            return self.start_next(die, now);
        }
        if matches!(op.kind, DieOpKind::HostRead | DieOpKind::MapRead) && d.should_suspend(now, &timing.suspend) {
            let started = d.suspend_for_read(now, &timing.suspend, |m| timing.cell[m.index()].t_read);
            return wake(die, started);
        }
        None
    }

    /// Handles the end of `die`'s op: returns the finished op (if the wake-up was current)
    /// and the die's next wake-up.
    pub fn complete(&mut self, die: u32, generation: u32, now: SimTime) -> (Option<DieOp>, Option<DieWake>) {
        let Some(op) = self.dies[die as usize].finish(generation) else {
            return (None, None);
        };
        (Some(op), self.start_next(die, now))
    }

    fn start_next(&mut self, die: u32, now: SimTime) -> Option<DieWake> {
        let timing = &self.timing;
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        let started = self.dies[die as usize].start_next(
            now,
            &timing.suspend,
            |kind, mode| timing.array_time(kind, mode),
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
    pub fn transfer_out(&mut self, die: u32, ready: SimTime, units: u32) -> SimTime {
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        channel.book(ready, self.timing.transfer_time(units)).1 + self.timing.ecc_decode
    }

    /// Die state, for reports and invariant checks.
    pub fn die(&self, die: u32) -> &Die {
        &self.dies[die as usize]
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

fn wake(die: u32, started: Started) -> Option<DieWake> {
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
        };
        NandArray::new(Geometry::new(1, 1, 1, 4, 4, 16384, CellMode::Tlc), timing)
    }

    fn op(kind: DieOpKind, units: u32) -> DieOp {
        DieOp { kind, mode: CellMode::Tlc, token: 0, units, ready: SimTime::ZERO }
    }

    // --- idle die ---------------------------------------------------------------------

    #[test]
    fn read_on_an_idle_die_takes_t_read() {
        let mut a = array(SuspendPolicy::None);
        let w = a.submit(0, op(DieOpKind::HostRead, 1), SimTime(0)).unwrap();
        assert_eq!(w.end, SimTime(50_000));
        // 4 KiB at 400 MB/s = 10.24 us, then 2 us of ECC.
        assert_eq!(a.transfer_out(0, w.end, 1), SimTime(50_000 + 10_240 + 2_000));
    }

    #[test]
    fn program_waits_for_its_channel_transfer() {
        let mut a = array(SuspendPolicy::None);
        let w = a.submit(0, op(DieOpKind::Program, 4), SimTime(0)).unwrap();
        // 16 KiB in (40.96 us) then tPROG.
        assert_eq!(w.end, SimTime(40_960 + 1_000_000));
    }

    // --- busy die ---------------------------------------------------------------------

    #[test]
    fn read_waits_behind_a_program_without_suspend() {
        let mut a = array(SuspendPolicy::None);
        let w = a.submit(0, op(DieOpKind::Program, 4), SimTime(0)).unwrap();
        assert!(a.submit(0, op(DieOpKind::HostRead, 1), SimTime(100_000)).is_none());
        let (done, next) = a.complete(0, w.generation, w.end);
        assert_eq!(done.unwrap().kind, DieOpKind::Program);
        assert_eq!(next.unwrap().end, w.end + SimDuration::from_us(50));
    }

    #[test]
    fn read_suspends_a_program_and_the_program_resumes_with_its_remaining_time() {
        let mut a = array(SuspendPolicy::Program);
        let w = a.submit(0, op(DieOpKind::Program, 4), SimTime(0)).unwrap();
        let now = SimTime(100_000);
        let r = a.submit(0, op(DieOpKind::HostRead, 1), now).unwrap();
        assert_eq!(r.end, now + SimDuration::from_us(20 + 50));
        // The program's own completion is now stale.
        assert_eq!(a.complete(0, w.generation, w.end), (None, None));
        let (done, resumed) = a.complete(0, r.generation, r.end);
        assert_eq!(done.unwrap().kind, DieOpKind::HostRead);
        let remaining = w.end.since(now);
        assert_eq!(resumed.unwrap().end, r.end + SimDuration::from_us(10) + remaining);
        assert_eq!(a.die(0).suspensions, 1);
    }
}
