//! The kernel's spinlocks on the swap path, as resources threads contend for.
//!
//! Read first: `mm/swapfile.c` (`swap_lock`, `swap_info_struct.lock`, `swap_info_get`,
//! `get_swap_page`) and `mm/swap_state.c` (the swap cache's `tree_lock` / `i_pages` lock).
//! A spinlock is held for a short critical section; a CPU that finds it held spins (its core
//! stays busy) until the holder releases it. When the lock's cache line last lived on
//! another core it must first move (`transfer`): under contention every acquisition pays
//! it, which is why a lock that is cheap for one thread caps many threads' throughput
//! (Shaohua Li's "`swap_lock` is heavily contended" with three fast SSDs, host-facts §3.2).
//!
//! A lock keeps the intervals it is held, in time order: an acquisition asked for at `t`
//! takes the first free gap at or after `t` long enough for `hold` (plus `transfer` if the
//! holder before it ran on another core), spinning until then. A thread books its
//! acquisitions for a short step of its CPU work ahead of other threads' events of the same
//! span (see the memory runner), so a later event may ask for the lock at an earlier time:
//! it fills the gap it finds there, as it would have had the events come in time order.
//! Intervals older than [`WINDOW`] before an acquisition are dropped. Memory: 24 bytes per
//! interval within the window.

use crate::engine::{SimDuration, SimTime};
use crate::os::CoreId;
use std::collections::VecDeque;

/// How far back a lock remembers when it was held: longer than any step a thread books
/// ahead (a step of 20 us plus a row whose faults each reclaim a batch stays well below).
pub const WINDOW: SimDuration = SimDuration(2_000_000);

/// A lock, by index into [`Locks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockId(pub u16);

#[derive(Clone, Copy, Debug)]
struct Held {
    start: u64,
    end: u64,
    core: u32,
}

#[derive(Clone, Debug, Default)]
struct SpinLock {
    /// When it is held, in time order, none overlapping.
    held: VecDeque<Held>,
    acquisitions: u64,
    spin_ns: u64,
    held_ns: u64,
}

/// Every lock the VM models, and what contention cost.
#[derive(Clone, Debug)]
pub struct Locks {
    locks: Vec<SpinLock>,
    transfer: SimDuration,
}

/// Totals over every lock, for counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LockTotals {
    /// Acquisitions.
    pub acquisitions: u64,
    /// Time CPUs spun waiting for a holder, ns.
    pub spin_ns: u64,
    /// Time the locks were held, ns.
    pub held_ns: u64,
}

impl Locks {
    /// `n` free locks whose cache line costs `transfer` to move between cores.
    pub fn new(n: usize, transfer: SimDuration) -> Self {
        Locks { locks: vec![SpinLock::default(); n], transfer }
    }

    /// A CPU on `core` takes lock `id` at `t` for a critical section of `hold`; returns when
    /// it has released it (spinning, transfer and the section all included).
    #[inline]
    pub fn acquire(&mut self, id: LockId, t: SimTime, core: CoreId, hold: SimDuration) -> SimTime {
        let transfer = self.transfer.as_ns();
        let l = &mut self.locks[usize::from(id.0)];
        let q = &mut l.held;
        while q.front().is_some_and(|h| h.end + WINDOW.as_ns() < t.as_ns()) {
            q.pop_front();
        }
        let mut i = first_ending_after(q, t.as_ns());
        let mut start = t.as_ns();
        let end = loop {
            let moved = i > 0 && q[i - 1].core != core.0;
            let end = start + hold.as_ns() + if moved { transfer } else { 0 };
            if i == q.len() || end <= q[i].start {
                // Back-to-back sections of one core are one interval (a batch's
                // acquisitions), which keeps the list short.
                if i > 0 && q[i - 1].end == start && q[i - 1].core == core.0 {
                    q[i - 1].end = end;
                } else {
                    q.insert(i, Held { start, end, core: core.0 });
                }
                break end;
            }
            start = start.max(q[i].end);
            i += 1;
        };
        l.spin_ns += start - t.as_ns();
        l.held_ns += end - start;
        l.acquisitions += 1;
        SimTime(end)
    }

    /// Totals over every lock.
    pub fn totals(&self) -> LockTotals {
        self.locks.iter().fold(LockTotals::default(), |a, l| LockTotals {
            acquisitions: a.acquisitions + l.acquisitions,
            spin_ns: a.spin_ns + l.spin_ns,
            held_ns: a.held_ns + l.held_ns,
        })
    }
}

/// The index of the first interval of `q` that ends after `t` (`q.len()` if none).
/// Intervals are disjoint and ordered, so their ends are too. Most requests come after the
/// last interval, and the rest (booked by a thread a step behind another) just before it,
/// so the search gallops back from the end instead of bisecting the whole window.
fn first_ending_after(q: &VecDeque<Held>, t: u64) -> usize {
    let n = q.len();
    if q.back().is_none_or(|h| h.end <= t) {
        return n;
    }
    // q[hi] ends after t; find lo with q[lo - 1] ending at or before t (or lo = 0).
    let mut hi = n - 1;
    let mut step = 1;
    let mut lo = loop {
        if step > hi {
            break 0;
        }
        let probe = hi - step;
        if q[probe].end <= t {
            break probe + 1;
        }
        hi = probe;
        step *= 2;
    };
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if q[mid].end <= t {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOLD: SimDuration = SimDuration(100);

    #[test]
    fn an_uncontended_lock_costs_its_hold_and_a_move_when_the_core_changes() {
        let mut l = Locks::new(1, SimDuration(50));
        let id = LockId(0);
        assert_eq!(l.acquire(id, SimTime(1_000), CoreId(0), HOLD), SimTime(1_100), "first use: no move");
        assert_eq!(l.acquire(id, SimTime(2_000), CoreId(0), HOLD), SimTime(2_100), "same core: line is local");
        assert_eq!(l.acquire(id, SimTime(3_000), CoreId(1), HOLD), SimTime(3_150), "another core: the line moves");
        assert_eq!(l.totals().spin_ns, 0);
    }

    #[test]
    fn a_later_request_for_an_earlier_time_fills_the_gap_there() {
        let mut l = Locks::new(1, SimDuration::ZERO);
        let id = LockId(0);
        // Booked ahead: held 1000-1100 and 5000-5100.
        l.acquire(id, SimTime(1_000), CoreId(0), HOLD);
        l.acquire(id, SimTime(5_000), CoreId(0), HOLD);
        assert_eq!(l.acquire(id, SimTime(2_000), CoreId(1), HOLD), SimTime(2_100), "the gap is free");
        assert_eq!(l.acquire(id, SimTime(4_950), CoreId(1), HOLD), SimTime(5_200), "too short a gap: after 5100");
        assert_eq!(l.totals().spin_ns, 150);
    }

    #[test]
    fn the_search_from_the_end_finds_what_bisection_finds() {
        let q: VecDeque<Held> = (0..100).map(|k| Held { start: k * 10, end: k * 10 + 5, core: 0 }).collect();
        for t in 0..1_010 {
            assert_eq!(first_ending_after(&q, t), q.partition_point(|h| h.end <= t), "t = {t}");
        }
        assert_eq!(first_ending_after(&VecDeque::new(), 7), 0);
    }

    #[test]
    fn contending_cpus_spin_and_serialize() {
        let mut l = Locks::new(1, SimDuration(50));
        let id = LockId(0);
        // Four cores ask at the same instant: each waits for all before it.
        let ends: Vec<u64> = (0..4).map(|c| l.acquire(id, SimTime(0), CoreId(c), HOLD).as_ns()).collect();
        assert_eq!(ends, [100, 250, 400, 550]);
        let t = l.totals();
        assert_eq!((t.acquisitions, t.spin_ns, t.held_ns), (4, 100 + 250 + 400, 550));
    }
}
