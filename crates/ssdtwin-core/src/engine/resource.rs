//! Shared hardware with a busy-until time: a channel, a link direction, a firmware core.
//!
//! A request ready at `ready` starts at `max(ready, busy_until)` and holds the resource for
//! its service time; requests are served in the order they are booked. Callers often book
//! ahead of time, as soon as they know the work: a command's core time is booked at
//! submission for its arrival after the SQE fetch (`ssd/mod.rs`), and a program's
//! channel transfer when its die picks it, for a start that may lie in the future
//! (`nand/mod.rs`). A booking never fills an idle gap left before an earlier one, so the
//! order is booking order, which can differ from the order in which requests are ready.
//! `busy_ns` accumulates service time for utilisation figures.

use super::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// One server that serves bookings in order, represented by when it is next free.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct BusyResource {
    busy_until: SimTime,
    busy_ns: u64,
}

impl BusyResource {
    /// Books `service` starting no earlier than `ready`; returns (start, end).
    #[inline]
    pub fn book(&mut self, ready: SimTime, service: SimDuration) -> (SimTime, SimTime) {
        let start = ready.max(self.busy_until);
        let end = start + service;
        self.busy_until = end;
        self.busy_ns += service.as_ns();
        (start, end)
    }

    /// When the resource is next free.
    pub fn busy_until(&self) -> SimTime {
        self.busy_until
    }

    /// Total service time booked so far, in nanoseconds.
    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }
}

/// A pool of identical servers (firmware cores): each request takes the one free soonest.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ServerPool {
    servers: Vec<BusyResource>,
}

impl ServerPool {
    /// `n` servers, all idle.
    pub fn new(n: usize) -> Self {
        ServerPool { servers: vec![BusyResource::default(); n] }
    }

    /// Books `service` on the server that can start it soonest; ties go to the lowest index.
    #[inline]
    pub fn book(&mut self, ready: SimTime, service: SimDuration) -> (SimTime, SimTime) {
        let mut best = 0;
        let mut best_free = SimTime::NEVER;
        for (i, s) in self.servers.iter().enumerate() {
            let free = s.busy_until().max(ready);
            if free < best_free {
                best = i;
                best_free = free;
                if free == ready {
                    break;
                }
            }
        }
        self.servers[best].book(ready, service)
    }

    /// Total service time booked over all servers, in nanoseconds.
    pub fn busy_ns(&self) -> u64 {
        self.servers.iter().map(BusyResource::busy_ns).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcfs_booking_queues_behind_earlier_work() {
        let mut r = BusyResource::default();
        assert_eq!(r.book(SimTime(100), SimDuration(50)), (SimTime(100), SimTime(150)));
        assert_eq!(r.book(SimTime(120), SimDuration(10)), (SimTime(150), SimTime(160)));
        assert_eq!(r.book(SimTime(500), SimDuration(10)), (SimTime(500), SimTime(510)));
        assert_eq!(r.busy_ns(), 70);
    }

    #[test]
    fn pool_spreads_over_free_servers() {
        let mut p = ServerPool::new(2);
        assert_eq!(p.book(SimTime(0), SimDuration(10)).0, SimTime(0));
        assert_eq!(p.book(SimTime(0), SimDuration(10)).0, SimTime(0));
        assert_eq!(p.book(SimTime(0), SimDuration(10)).0, SimTime(10));
    }
}
