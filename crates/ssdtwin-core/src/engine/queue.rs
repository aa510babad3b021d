//! The event queue: a binary min-heap (`engine::heap`) ordered by (time, sequence number),
//! beside a FIFO for streams of events that arrive in time order.
//!
//! Events that fall on the same nanosecond pop in the order they were pushed, so a run is
//! bit-identical however many events tie. Events are small `Copy` values stored inline; the
//! heap's storage grows to the largest number of pending events and is then reused, so a
//! steady-state run does not allocate (push and pop are O(log n); a 16-byte key plus the
//! event per pending entry, aligned to 16).
//!
//! A stream whose events mostly come in time order (completions leaving one link, say) is
//! pushed with [`EventQueue::push_in_order`]: such an event goes to the FIFO when it is no
//! earlier than the FIFO's last, which costs O(1) instead of a heap's O(log n) push and pop,
//! and to the heap otherwise. Pops take the earlier of the two heads by the same key, so the
//! order events pop in is the same whichever way they were pushed.
//!
//! The least pending key is kept, so [`EventQueue::peek_time`] is one load: callers ask it
//! more often than they pop.
//!
//! Cancelling is done by the owner: an event carries a generation number that the handler
//! compares with the current one and drops if stale (see `nand::die`).

use super::SimTime;
use super::heap::MinHeap;
use std::cmp::Ordering;
use std::collections::VecDeque;

#[derive(Clone, Copy)]
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

// Entries order by key alone (keys are unique).
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
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

/// A min-queue of events keyed by simulated time, FIFO among equal times.
#[derive(Clone)]
pub struct EventQueue<E> {
    heap: MinHeap<Entry<E>>,
    /// Entries in key order, each pushed no earlier than the one before.
    in_order: VecDeque<Entry<E>>,
    /// The key of the last entry pushed to `in_order`, kept after it pops: whether the FIFO
    /// takes an entry is then one comparison, with no test of whether it is empty first
    /// (for a stream with a few events pending at a time, a coin toss for the branch
    /// predictor). An empty FIFO's stale key is below any new entry's, since nothing is
    /// scheduled before the last event popped; an entry that were would go to the heap,
    /// and pop in the same order.
    in_order_last: u128,
    next_seq: u64,
    /// The least pending key (`u128::MAX` when none is): callers ask for the next event's
    /// time several times per event handled, so it is kept rather than found each time.
    least_key: u128,
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue with room for `capacity` pending events before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            heap: MinHeap::with_capacity(capacity),
            in_order: VecDeque::new(),
            in_order_last: 0,
            next_seq: 0,
            least_key: u128::MAX,
        }
    }

    fn entry(&mut self, time: SimTime, event: E) -> Entry<E> {
        let seq = self.next_seq;
        self.next_seq += 1;
        Entry { key: (u128::from(time.as_ns()) << 64) | u128::from(seq), event }
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        let entry = self.entry(time, event);
        self.least_key = self.least_key.min(entry.key);
        self.heap.push(entry);
    }

    /// Schedules `event` at `time`, an event of a stream that mostly comes in time order
    /// (see the module documentation); it pops exactly as if pushed with [`Self::push`].
    #[inline]
    pub fn push_in_order(&mut self, time: SimTime, event: E) {
        let entry = self.entry(time, event);
        self.least_key = self.least_key.min(entry.key);
        if self.in_order_last <= entry.key {
            self.in_order_last = entry.key;
            self.in_order.push_back(entry);
        } else {
            self.heap.push(entry);
        }
    }

    /// The time of the earliest pending event, or [`SimTime::NEVER`].
    #[inline]
    pub fn peek_time(&self) -> SimTime {
        SimTime((self.least_key >> 64) as u64)
    }

    /// Whether the earliest pending event is the FIFO's head (else it is the heap's top).
    #[inline]
    fn fifo_first(&self) -> bool {
        self.in_order.front().is_some_and(|f| f.key == self.least_key)
    }

    /// The earliest pending event, if any.
    #[inline]
    pub fn peek(&self) -> Option<&E> {
        let entry = if self.fifo_first() { self.in_order.front() } else { self.heap.peek() };
        entry.map(|e| &e.event)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = if self.fifo_first() { self.in_order.pop_front() } else { self.heap.pop() };
        let heap_key = self.heap.peek().map_or(u128::MAX, |h| h.key);
        let fifo_key = self.in_order.front().map_or(u128::MAX, |f| f.key);
        self.least_key = fifo_key.min(heap_key);
        e.map(|e| (e.time(), e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() + self.in_order.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.in_order.is_empty()
    }

    /// Drops every pending event, keeping the storage.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.in_order.clear();
        self.in_order_last = 0;
        self.least_key = u128::MAX;
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

    #[test]
    fn in_order_pushes_tie_with_heap_pushes_by_insertion() {
        let mut q = EventQueue::with_capacity(4);
        q.push_in_order(SimTime(10), 'a');
        q.push(SimTime(10), 'b');
        q.push_in_order(SimTime(10), 'c');
        // Earlier than the FIFO's last: it goes to the heap, and still pops first.
        q.push_in_order(SimTime(5), 'z');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['z', 'a', 'b', 'c']);
    }

    proptest::proptest! {
        // Any mix of pushes (either kind, in or out of time order) and pops gives the
        // events in (time, push order), as one sorted list of everything pending would.
        #[test]
        fn pops_as_a_sorted_list_would(ops in proptest::collection::vec((0u8..3, 0u64..50), 0..400)) {
            let mut q = EventQueue::with_capacity(4);
            let mut pending: Vec<(u64, usize)> = Vec::new();
            let mut now = 0;
            for (n, (op, dt)) in ops.into_iter().enumerate() {
                match op {
                    0 => {
                        q.push(SimTime(now + dt), n);
                        pending.push((now + dt, n));
                    }
                    1 => {
                        q.push_in_order(SimTime(now + dt), n);
                        pending.push((now + dt, n));
                    }
                    _ => {
                        pending.sort_unstable();
                        let expected = (!pending.is_empty()).then(|| pending.remove(0));
                        proptest::prop_assert_eq!(q.peek_time(), expected.map_or(SimTime::NEVER, |e| SimTime(e.0)));
                        proptest::prop_assert_eq!(q.peek().copied(), expected.map(|(_, e)| e));
                        proptest::prop_assert_eq!(q.pop(), expected.map(|(t, e)| (SimTime(t), e)));
                        if let Some((t, _)) = expected {
                            now = t;
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), pending.len());
                // The kept least key follows every push and pop.
                let least = pending.iter().map(|&(t, _)| t).min();
                proptest::prop_assert_eq!(q.peek_time(), least.map_or(SimTime::NEVER, SimTime));
            }
        }
    }
}
