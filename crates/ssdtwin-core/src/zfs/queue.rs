//! The I/O scheduler in front of each leaf vdev (`vdev_queue.c`).
//!
//! I/Os wait in five classes, in priority order: sync read, sync write, async read, async
//! write, scrub. A class whose active count is below its minimum goes first; then any class
//! below its maximum, in priority order; never more than `zfs_vdev_max_active` in all. The
//! async-write maximum rises linearly from its minimum to its maximum as dirty data goes
//! from 30 % to 60 % of `zfs_dirty_data_max`. Sync classes are served first come, first
//! served; the others in offset order from the last offset issued, wrapping round (an
//! elevator). The I/O taken absorbs the queued I/Os of its class that follow it on the disk
//! into one device command (`vdev_queue_aggregate`) up to 1 MiB on rotating media, 128 KiB
//! on others: writes that touch, reads within 32 KiB (the gap is read too). (ZFS looks for
//! neighbours among every class; here a sync class searches the first 64 queued.)
//!
//! Queues hold I/O ids; the offset-ordered ones are deques kept sorted, so issuing in order
//! and appending in order (what a txg's allocations give) cost O(1).

use std::collections::VecDeque;

/// Priority classes, in issue order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IoClass {
    SyncRead = 0,
    SyncWrite = 1,
    AsyncRead = 2,
    AsyncWrite = 3,
    Scrub = 4,
}

impl IoClass {
    pub(crate) const ALL: [IoClass; 5] =
        [IoClass::SyncRead, IoClass::SyncWrite, IoClass::AsyncRead, IoClass::AsyncWrite, IoClass::Scrub];
    fn fifo(self) -> bool {
        matches!(self, IoClass::SyncRead | IoClass::SyncWrite)
    }
}

/// Min and max active per class, and the total.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub min: [u32; 5],
    pub max: [u32; 5],
    pub total: u32,
}

/// One leaf's queue.
#[derive(Clone, Debug, Default)]
pub(crate) struct LeafQueue {
    fifo: [VecDeque<(u64, u32)>; 2],
    sorted: [VecDeque<(u64, u32)>; 3],
    pub(crate) active: [u32; 5],
    pub(crate) last_offset: u64,
}

impl LeafQueue {
    pub(crate) fn push(&mut self, class: IoClass, offset: u64, id: u32) {
        if class.fifo() {
            self.fifo[class as usize].push_back((offset, id));
        } else {
            let q = &mut self.sorted[class as usize - 2];
            if q.back().is_none_or(|&(o, _)| o <= offset) {
                q.push_back((offset, id));
            } else {
                let at = q.partition_point(|&(o, _)| o <= offset);
                q.insert(at, (offset, id));
            }
        }
    }

    fn queued(&self, class: IoClass) -> usize {
        if class.fifo() { self.fifo[class as usize].len() } else { self.sorted[class as usize - 2].len() }
    }

    /// I/Os queued and active.
    pub(crate) fn length(&self) -> u32 {
        IoClass::ALL.iter().map(|&c| self.queued(c) as u32).sum::<u32>() + self.active.iter().sum::<u32>()
    }

    /// The class to issue from next (`vdev_queue_class_to_issue`), given the async-write
    /// maximum for the current dirty level.
    pub(crate) fn class_to_issue(&self, limits: &Limits, async_write_max: u32) -> Option<IoClass> {
        if self.active.iter().sum::<u32>() >= limits.total {
            return None;
        }
        let max = |c: IoClass| if c == IoClass::AsyncWrite { async_write_max } else { limits.max[c as usize] };
        IoClass::ALL
            .iter()
            .find(|&&c| self.queued(c) > 0 && self.active[c as usize] < limits.min[c as usize])
            .or_else(|| IoClass::ALL.iter().find(|&&c| self.queued(c) > 0 && self.active[c as usize] < max(c)))
            .copied()
    }

    /// Takes the next I/O of `class`: the oldest of a FIFO class, else the first at or after
    /// the last offset issued (wrapping to the lowest).
    pub(crate) fn take(&mut self, class: IoClass) -> Option<u32> {
        if class.fifo() {
            return self.fifo[class as usize].pop_front().map(|(_, id)| id);
        }
        let q = &mut self.sorted[class as usize - 2];
        let last = self.last_offset;
        let at = q.partition_point(|&(o, _)| o < last);
        let at = if at == q.len() { 0 } else { at };
        q.remove(at).map(|(_, id)| id)
    }

    /// The next I/O of an offset-ordered `class` after the one just taken, if it starts
    /// within `gap` bytes of `end`: it is removed and returned for aggregation.
    pub(crate) fn take_neighbour(&mut self, class: IoClass, end: u64, gap: u64) -> Option<(u64, u32)> {
        if class.fifo() {
            let q = &mut self.fifo[class as usize];
            let at = q.iter().take(FIFO_SEARCH).position(|&(o, _)| o >= end && o <= end + gap)?;
            return q.remove(at);
        }
        let q = &mut self.sorted[class as usize - 2];
        let at = q.partition_point(|&(o, _)| o < end);
        match q.get(at) {
            Some(&(o, _)) if o <= end + gap => q.remove(at),
            _ => None,
        }
    }

    /// Puts back an I/O that could not be aggregated after all (first in line again).
    pub(crate) fn put_back(&mut self, class: IoClass, offset: u64, id: u32) {
        if class.fifo() {
            self.fifo[class as usize].push_front((offset, id));
        } else {
            self.push(class, offset, id);
        }
    }
}

/// Queued I/Os of a first-come class searched for a neighbour to aggregate.
const FIFO_SEARCH: usize = 64;

/// The async-write maximum for `dirty` bytes of `dirty_max` (`vdev_queue_max_async_writes`).
pub(crate) fn async_write_max(dirty: u64, dirty_max: u64, min_pct: u64, max_pct: u64, lo: u32, hi: u32) -> u32 {
    let min_bytes = dirty_max * min_pct / 100;
    let max_bytes = dirty_max * max_pct / 100;
    if dirty <= min_bytes {
        lo
    } else if dirty >= max_bytes {
        hi
    } else {
        let extra = u64::from(hi - lo) * (dirty - min_bytes) / (max_bytes - min_bytes);
        lo + extra as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { min: [10, 10, 1, 2, 1], max: [10, 10, 3, 10, 3], total: 1000 };

    #[test]
    fn classes_below_their_minimum_go_first_then_by_priority() {
        let mut q = LeafQueue::default();
        q.push(IoClass::Scrub, 0, 1);
        q.push(IoClass::AsyncWrite, 0, 2);
        assert_eq!(q.class_to_issue(&LIMITS, 2), Some(IoClass::AsyncWrite), "both under minimum: priority order");
        q.active[IoClass::AsyncWrite as usize] = 2;
        assert_eq!(q.class_to_issue(&LIMITS, 2), Some(IoClass::Scrub), "async writes at their dirty-level maximum");
        assert_eq!(q.class_to_issue(&LIMITS, 10), Some(IoClass::Scrub), "scrub's minimum comes before maxima");
        q.active[IoClass::Scrub as usize] = 1;
        assert_eq!(q.class_to_issue(&LIMITS, 10), Some(IoClass::AsyncWrite));
    }

    #[test]
    fn offset_ordered_classes_issue_as_an_elevator() {
        let mut q = LeafQueue::default();
        for (o, id) in [(300, 3), (100, 1), (200, 2)] {
            q.push(IoClass::AsyncWrite, o, id);
        }
        q.last_offset = 150;
        assert_eq!(q.take(IoClass::AsyncWrite), Some(2));
        q.last_offset = 400;
        assert_eq!(q.take(IoClass::AsyncWrite), Some(1), "past the end: back to the lowest");
        assert_eq!(q.take_neighbour(IoClass::AsyncWrite, 250, 0), None);
        assert_eq!(q.take_neighbour(IoClass::AsyncWrite, 300, 0), Some((300, 3)));
    }

    #[test]
    fn async_write_concurrency_ramps_with_dirty_data() {
        let m = |d| async_write_max(d, 1000, 30, 60, 2, 10);
        assert_eq!((m(100), m(300), m(450), m(600), m(900)), (2, 2, 6, 10, 10));
    }
}
