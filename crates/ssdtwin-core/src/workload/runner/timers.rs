//! The runner's timers: one queue in time order (FIFO among equal times), which also knows
//! when the next timer that is not a thread's resumption is due.
//!
//! That time bounds what the runner may do ahead of the clock: a thread's resumption touches
//! only its own thread and core, while the other timers (a clone starting, a ramp ending, a
//! deadline, a steady-state sample) can change any clone or read the host's counters. See
//! [`Runner::wakes_early`](super::Runner).
//!
//! A winner tree over clones, one pending resumption each, was tried in place of the heap
//! for resumptions: it took more instructions per timer (143 per push against 104) and ran
//! no faster.

use crate::engine::{EventQueue, SimTime};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug)]
pub(super) enum Timer {
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

pub(super) struct Timers {
    queue: EventQueue<Timer>,
    /// The times of the pending timers other than `Resume`.
    others: BinaryHeap<Reverse<SimTime>>,
}

impl Timers {
    pub(super) fn new() -> Self {
        Timers { queue: EventQueue::with_capacity(256), others: BinaryHeap::new() }
    }

    #[inline]
    pub(super) fn push(&mut self, at: SimTime, timer: Timer) {
        if !matches!(timer, Timer::Resume { .. }) {
            self.others.push(Reverse(at));
        }
        self.queue.push(at, timer);
    }

    #[inline]
    pub(super) fn peek_time(&self) -> SimTime {
        self.queue.peek_time()
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<(SimTime, Timer)> {
        let (at, timer) = self.queue.pop()?;
        if !matches!(timer, Timer::Resume { .. }) {
            // The queue pops in time order, so this timer is the earliest of the others.
            self.others.pop();
        }
        Some((at, timer))
    }

    /// When the next timer other than a thread's resumption is due.
    #[inline]
    pub(super) fn next_other(&self) -> SimTime {
        self.others.peek().map_or(SimTime::NEVER, |r| r.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_other_timer_follows_pushes_and_pops() {
        let mut t = Timers::new();
        t.push(SimTime(30), Timer::Deadline(0));
        t.push(SimTime(10), Timer::Resume { clone: 0, generation: 0 });
        t.push(SimTime(20), Timer::RampEnd(0));
        assert_eq!(t.next_other(), SimTime(20));
        assert!(matches!(t.pop(), Some((SimTime(10), Timer::Resume { .. }))));
        assert_eq!(t.next_other(), SimTime(20));
        assert!(matches!(t.pop(), Some((SimTime(20), Timer::RampEnd(0)))));
        assert_eq!(t.next_other(), SimTime(30));
        assert!(matches!(t.pop(), Some((SimTime(30), Timer::Deadline(0)))));
        assert_eq!(t.next_other(), SimTime::NEVER);
    }
}
