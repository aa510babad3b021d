//! The host's CPU cores: where threads run their work and where interrupts are handled.
//!
//! Each core serves two kinds of work:
//!
//! * **task work** (a thread's user-space and system-call time) runs in booking order, one
//!   piece after another, as threads sharing a core take turns;
//! * **interrupt work** (a completion's handler) preempts it: a handler starts as soon as
//!   the previous handler on that core is done, and task work that was running or queued
//!   at that moment finishes that much later.
//!
//! A task booking therefore returns the end it would have without interrupts, and
//! [`Cpu::settle`] tells, when that time comes, whether handlers pushed it later (each core
//! keeps a running total of the time handlers took from task work). Interrupts that
//! arrive while a handler is still running join it (NVMe's handler reaps every completion
//! it finds), so the entry cost is paid once per burst. Memory: a few words per core.
//!
//! ```
//! use ssdtwin_core::engine::{SimDuration, SimTime};
//! use ssdtwin_core::os::{CoreId, Cpu};
//!
//! let mut cpu = Cpu::new(1);
//! let core = CoreId(0);
//! let mut work = cpu.task(core, SimTime::ZERO, SimDuration::from_us(10));
//! // An interrupt at 2 us takes 1 us (entry) + 2 us (handler) from the task.
//! let irq_end = cpu.irq(core, SimTime(2_000), SimDuration::from_us(1), SimDuration::from_us(2));
//! assert_eq!(irq_end, SimTime(5_000));
//! assert_eq!(cpu.settle(&mut work), Some(SimTime(13_000)));
//! assert_eq!(cpu.settle(&mut work), None);
//! ```

use crate::engine::{SimDuration, SimTime};

/// A core, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CoreId(pub u32);

/// Task work booked on a core: when it ends, as far as is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Booking {
    /// The core.
    pub core: CoreId,
    /// When the work ends unless interrupts handled since the booking delay it.
    pub end: SimTime,
    /// The core's stolen-time total when `end` was last set.
    stolen_mark: u64,
}

/// Busy time of one core, by kind, ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreTime {
    /// Task work.
    pub task_ns: u64,
    /// Interrupt handlers.
    pub irq_ns: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Core {
    /// End of the last task work booked.
    task_until: SimTime,
    /// Start of the busy period of task work that ends at `task_until`.
    task_from: SimTime,
    /// End of the last interrupt handler.
    irq_until: SimTime,
    /// Time handlers have taken from task work, ns (monotonic).
    stolen_ns: u64,
    time: CoreTime,
}

/// The host's cores.
#[derive(Clone, Debug)]
pub struct Cpu {
    cores: Vec<Core>,
}

impl Cpu {
    /// `n` idle cores.
    pub fn new(n: u32) -> Self {
        Cpu { cores: vec![Core::default(); n as usize] }
    }

    /// Number of cores.
    pub fn len(&self) -> u32 {
        self.cores.len() as u32
    }

    /// True if there are no cores (never, for a built host).
    pub fn is_empty(&self) -> bool {
        self.cores.is_empty()
    }

    /// Books `work` of a thread on `core`, starting no earlier than `ready` and after the
    /// task work booked before it. Zero work ends at `ready` and waits for nothing.
    #[inline]
    pub fn task(&mut self, core: CoreId, ready: SimTime, work: SimDuration) -> Booking {
        let c = &mut self.cores[core.0 as usize];
        if work == SimDuration::ZERO {
            return Booking { core, end: ready, stolen_mark: c.stolen_ns };
        }
        let start = ready.max(c.task_until).max(c.irq_until);
        if start > c.task_until {
            c.task_from = start;
        }
        let end = start + work;
        c.task_until = end;
        c.time.task_ns += work.as_ns();
        Booking { core, end, stolen_mark: c.stolen_ns }
    }

    /// Runs an interrupt handler on `core` for an event at `at`: `entry` (interrupt entry
    /// and exit, skipped when the handler is already running) plus `work`. Returns when
    /// the handler ends; task work it overlaps is delayed by its length.
    #[inline]
    pub fn irq(&mut self, core: CoreId, at: SimTime, entry: SimDuration, work: SimDuration) -> SimTime {
        let c = &mut self.cores[core.0 as usize];
        let joins = at < c.irq_until;
        let length = if joins { work } else { entry + work };
        if length == SimDuration::ZERO {
            return at.max(c.irq_until);
        }
        let start = at.max(c.irq_until);
        let end = start + length;
        c.irq_until = end;
        c.time.irq_ns += length.as_ns();
        // Task work running or queued during the handler finishes later by the part of the
        // handler that overlaps its busy period.
        if start < c.task_until && end > c.task_from {
            let stolen = end.since(start.max(c.task_from));
            c.task_until += stolen;
            c.stolen_ns += stolen.as_ns();
        }
        end
    }

    /// When task work asked for at `at` on `core` could start: after the work booked
    /// before it and any running interrupt handler.
    #[inline]
    pub fn available(&self, core: CoreId, at: SimTime) -> SimTime {
        let c = &self.cores[core.0 as usize];
        at.max(c.task_until).max(c.irq_until)
    }

    /// Whether `booking` ends when it said: `None` if so, or its new end if interrupt
    /// handlers took time from its core since it was booked (then call again at that end).
    #[inline]
    pub fn settle(&self, booking: &mut Booking) -> Option<SimTime> {
        let stolen = self.cores[booking.core.0 as usize].stolen_ns;
        let extra = stolen - booking.stolen_mark;
        if extra == 0 {
            return None;
        }
        booking.end += SimDuration(extra);
        booking.stolen_mark = stolen;
        Some(booking.end)
    }

    /// A thread spun on `core` from `from` to `to` (polling for completions): the core was
    /// busy with task work all along.
    pub fn spin(&mut self, core: CoreId, from: SimTime, to: SimTime) {
        let c = &mut self.cores[core.0 as usize];
        let start = from.max(c.task_until);
        if to > start {
            c.time.task_ns += to.since(start).as_ns();
            if start > c.task_until {
                c.task_from = start;
            }
            c.task_until = to;
        }
    }

    /// Busy time of `core` so far.
    pub fn time(&self, core: CoreId) -> CoreTime {
        self.cores[core.0 as usize].time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000;

    fn us(n: u64) -> SimDuration {
        SimDuration::from_us(n)
    }

    // ---- task work alone ----

    #[test]
    fn task_work_queues_in_booking_order() {
        let mut cpu = Cpu::new(1);
        let a = cpu.task(CoreId(0), SimTime::ZERO, us(3));
        let b = cpu.task(CoreId(0), SimTime(US), us(2));
        assert_eq!((a.end, b.end), (SimTime(3 * US), SimTime(5 * US)));
        assert_eq!(cpu.time(CoreId(0)).task_ns, 5 * US);
    }

    #[test]
    fn cores_are_independent() {
        let mut cpu = Cpu::new(2);
        let a = cpu.task(CoreId(0), SimTime::ZERO, us(3));
        let b = cpu.task(CoreId(1), SimTime::ZERO, us(3));
        assert_eq!(a.end, b.end);
    }

    #[test]
    fn zero_work_waits_for_nothing() {
        let mut cpu = Cpu::new(1);
        cpu.task(CoreId(0), SimTime::ZERO, us(10));
        assert_eq!(cpu.task(CoreId(0), SimTime(1), SimDuration::ZERO).end, SimTime(1));
    }

    // ---- interrupts ----

    #[test]
    fn an_interrupt_on_an_idle_core_delays_nothing() {
        let mut cpu = Cpu::new(1);
        let mut t = cpu.task(CoreId(0), SimTime::ZERO, us(2));
        assert_eq!(cpu.irq(CoreId(0), SimTime(5 * US), us(1), us(1)), SimTime(7 * US));
        assert_eq!(cpu.settle(&mut t), None);
    }

    #[test]
    fn an_interrupt_before_queued_work_starts_delays_only_by_its_overlap() {
        let mut cpu = Cpu::new(1);
        let mut t = cpu.task(CoreId(0), SimTime(10 * US), us(2));
        // Handler 9..11 us overlaps the task's start by 1 us.
        cpu.irq(CoreId(0), SimTime(9 * US), SimDuration::ZERO, us(2));
        assert_eq!(cpu.settle(&mut t), Some(SimTime(13 * US)));
    }

    #[test]
    fn interrupts_during_a_handler_share_its_entry() {
        let mut cpu = Cpu::new(1);
        let first = cpu.irq(CoreId(0), SimTime::ZERO, us(1), us(1));
        let second = cpu.irq(CoreId(0), SimTime(US), us(1), us(1));
        assert_eq!((first, second), (SimTime(2 * US), SimTime(3 * US)));
        assert_eq!(cpu.time(CoreId(0)).irq_ns, 3 * US);
    }

    #[test]
    fn task_work_booked_after_an_interrupt_waits_for_it() {
        let mut cpu = Cpu::new(1);
        cpu.irq(CoreId(0), SimTime::ZERO, us(1), us(1));
        assert_eq!(cpu.task(CoreId(0), SimTime(US), us(1)).end, SimTime(3 * US));
    }

    #[test]
    fn handlers_that_land_in_an_extension_extend_again() {
        let mut cpu = Cpu::new(1);
        let mut t = cpu.task(CoreId(0), SimTime::ZERO, us(4));
        cpu.irq(CoreId(0), SimTime(US), SimDuration::ZERO, us(2));
        assert_eq!(cpu.settle(&mut t), Some(SimTime(6 * US)));
        cpu.irq(CoreId(0), SimTime(5 * US), SimDuration::ZERO, us(1));
        assert_eq!(cpu.settle(&mut t), Some(SimTime(7 * US)));
        assert_eq!(cpu.settle(&mut t), None);
    }
}
