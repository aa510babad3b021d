//! The event queue: a binary heap ordered by (time, sequence number).
//!
//! Events that fall on the same nanosecond pop in the order they were pushed, so a run is
//! bit-identical however many events tie. Events are small `Copy` values stored inline; the
//! heap's storage grows to the largest number of pending events and is then reused, so a
//! steady-state run does not allocate (push and pop are O(log n); a 16-byte key plus the
//! event per pending entry, aligned to 16).
//!
//! Cancelling is done by the owner: an event carries a generation number that the handler
//! compares with the current one and drops if stale (see `nand::die`).

use super::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone)]
struct Entry<E> {
    /// The time in the high 64 bits, the sequence number in the low: one comparison orders
    /// by both (the heap compares on every level of every push and pop).
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: `BinaryHeap` is a max-heap and we want the earliest event on top.
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// A min-queue of events keyed by simulated time, FIFO among equal times.
#[derive(Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue with room for `capacity` pending events before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(capacity), next_seq: 0 }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { key: (u128::from(time.as_ns()) << 64) | u128::from(seq), event });
    }

    /// The time of the earliest pending event, or [`SimTime::NEVER`].
    #[inline]
    pub fn peek_time(&self) -> SimTime {
        self.heap.peek().map_or(SimTime::NEVER, Entry::time)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|e| (e.time(), e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Drops every pending event, keeping the storage.
    pub fn clear(&mut self) {
        self.heap.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_then_insertion_order() {
        let mut q = EventQueue::with_capacity(4);
        q.push(SimTime(30), 'c');
        q.push(SimTime(10), 'a');
        q.push(SimTime(30), 'd');
        q.push(SimTime(10), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.peek_time(), SimTime::NEVER);
    }
}
