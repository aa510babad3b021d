//! Host programs staged per die. Firmware hands a die a few host programs at a time (one on
//! the array, a few ready behind it) and keeps the rest of the write buffer's data until the
//! die can take them, so work that frees space (an erase, a GC program) never waits behind
//! a die's whole backlog. Host data is striped over the dies in order,
//! so a die a few per cent slower than the rest gathers a backlog as large as the buffer
//! lets it; queued on the die, a victim's erase and the GC programs holding its data waited
//! for all of it (170 ms on `intel-910-400` under steady-state random writes at QD32, every
//! host write stalled meanwhile).

use std::collections::VecDeque;

use crate::nand::{DieId, DieOp};

/// Host programs a die holds at once: one on the array, three ready to follow it. Enough
/// that the die never idles between host programs while its next data crosses the
/// channel; few enough that a GC program or an erase waits a few tPROG at most. (With two,
/// GC programs won the dies often enough to keep the free pool at GC's background
/// threshold under sustained writes, and the timed steady state left the sampled one's, in
/// `tests/steady.rs`, by 4 % of write amplification.)
const STAGED_PER_DIE: u32 = 4;

/// The host programs each die holds, and those waiting in controller memory for it.
#[derive(Clone, Debug, Default)]
pub(super) struct HostStaging {
    on_die: Vec<u32>,
    waiting: Vec<VecDeque<DieOp>>,
}

impl HostStaging {
    pub(super) fn new(dies: u32) -> Self {
        HostStaging { on_die: vec![0; dies as usize], waiting: vec![VecDeque::new(); dies as usize] }
    }

    /// A host program for `die`: returned if the die takes it now, else kept for it.
    #[inline]
    pub(super) fn offer(&mut self, die: DieId, op: DieOp) -> Option<DieOp> {
        let d = die.index();
        if self.on_die[d] < STAGED_PER_DIE {
            self.on_die[d] += 1;
            Some(op)
        } else {
            self.waiting[d].push_back(op);
            None
        }
    }

    /// A host program on `die` finished: the next one kept for it, if any, goes to it.
    #[inline]
    pub(super) fn finished(&mut self, die: DieId) -> Option<DieOp> {
        let d = die.index();
        let next = self.waiting[d].pop_front();
        if next.is_none() {
            self.on_die[d] -= 1;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimTime;
    use crate::nand::{CellMode, DieOpKind};

    fn op(token: u32) -> DieOp {
        DieOp::nominal(DieOpKind::Program, CellMode::Tlc, token, 4, SimTime::ZERO)
    }

    #[test]
    fn a_die_holds_a_few_and_the_rest_follow_in_order() {
        let mut s = HostStaging::new(2);
        let (d0, d1) = (DieId(0), DieId(1));
        let n = STAGED_PER_DIE;
        for t in 0..n {
            assert_eq!(s.offer(d0, op(t)).map(|o| o.token), Some(t));
        }
        assert!(s.offer(d0, op(n)).is_none());
        assert!(s.offer(d0, op(n + 1)).is_none());
        // Another die is not held up by this one's backlog.
        assert_eq!(s.offer(d1, op(99)).map(|o| o.token), Some(99));
        // Each program that finishes hands the die the next one kept, in order.
        assert_eq!(s.finished(d0).map(|o| o.token), Some(n));
        assert_eq!(s.finished(d0).map(|o| o.token), Some(n + 1));
        for _ in 0..n {
            assert!(s.finished(d0).is_none());
        }
        // All of its places are free again.
        for t in 0..n {
            assert!(s.offer(d0, op(t)).is_some());
        }
        assert!(s.offer(d0, op(n)).is_none());
    }
}
