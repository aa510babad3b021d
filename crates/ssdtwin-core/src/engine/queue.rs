//! The event queue: a binary min-heap (`engine::heap`) ordered by (time, sequence number),
//! beside a FIFO for streams of events that arrive in time order.
//!
//! Events that fall on the same nanosecond pop in the order they were pushed, so a run is
//! bit-identical however many events tie; events pushed with a rank
//! ([`EventQueue::push_ranked`]) pop after those, in rank order, for an owner that may push
//! the same events at different moments and wants them in the same order.
//!
//! Events are small `Copy` values stored inline; the heap's storage grows to the largest
//! number of pending events and is then reused, so a steady-state run does not allocate
//! (push and pop are O(log n); a 16-byte key plus the event per pending entry, aligned to
//! 16).
//!
//! A stream whose events mostly come in time order (completions leaving one link, say) is
//! pushed with [`EventQueue::push_in_order`]: such an event goes to the FIFO when it is no
//! earlier than the FIFO's last, which costs O(1) instead of a heap's O(log n) push and pop,
//! and to the heap otherwise (the FIFO is a ring, `engine::fifo`). Pops take the earlier of
//! the two heads by the same key, so the order events pop in is the same whichever way they
//! were pushed.
//!
//! The least pending key is kept, so [`EventQueue::peek_time`] is one load: callers ask it
//! more often than they pop.
//!
//! Cancelling is done by the owner: an event carries a generation number that the handler
//! compares with the current one and drops if stale (see `nand::die`).

use super::SimTime;
use super::fifo::Fifo;
use super::heap::MinHeap;
use std::cmp::Ordering;

/// The bit of a key's sequence half that marks a rank (see [`EventQueue::push_ranked`]):
/// sequence numbers stay below it.
const RANKED: u64 = 1 << 63;
/// Ranks stay below this, so that no key is `u128::MAX`, the least key of an empty queue.
const MAX_RANK: u64 = 1 << 62;

#[derive(Clone, Copy)]
pub(super) struct Entry<E> {
    /// The time in the high 64 bits, the sequence number in the low: one comparison orders
    /// by both (the heap compares on every level of every push and pop).
    pub(super) key: u128,
    pub(super) event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

// Entries order by key alone (keys are unique but for ranked events pushed twice with one
// time and rank, which their owner makes the same event).
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
    in_order: Fifo<E>,
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
            in_order: Fifo::new(),
            in_order_last: 0,
            next_seq: 0,
            least_key: u128::MAX,
        }
    }

    /// The next push's key at `time`: the time, then the push's sequence number.
    fn next_key(&mut self, time: SimTime) -> u128 {
        let seq = self.next_seq;
        self.next_seq += 1;
        (u128::from(time.as_ns()) << 64) | u128::from(seq)
    }

    /// A ranked event's key at `time` (see [`Self::push_ranked`]).
    fn ranked_key(time: SimTime, rank: u64) -> u128 {
        debug_assert!(rank < MAX_RANK, "ranks leave the top two bits free");
        (u128::from(time.as_ns()) << 64) | u128::from(RANKED | rank)
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        let key = self.next_key(time);
        self.insert(Entry { key, event });
    }

    /// Schedules `event` at `time`, an event of a stream that mostly comes in time order
    /// (see the module documentation); it pops exactly as if pushed with [`Self::push`].
    #[inline]
    pub fn push_in_order(&mut self, time: SimTime, event: E) {
        let key = self.next_key(time);
        self.insert_in_order(Entry { key, event });
    }

    /// Schedules `event` at `time` to pop, among the events of that time, after those pushed
    /// without a rank, in the order of `rank` (below 2^62; events pending at one time with
    /// one rank pop in either order, so they should be the same event): for events whose
    /// order must not depend on when they were pushed.
    #[inline]
    pub fn push_ranked(&mut self, time: SimTime, rank: u64, event: E) {
        self.insert(Entry { key: Self::ranked_key(time, rank), event });
    }

    /// [`Self::push_ranked`] for a stream that mostly comes in time order, as
    /// [`Self::push_in_order`].
    #[inline]
    pub fn push_in_order_ranked(&mut self, time: SimTime, rank: u64, event: E) {
        self.insert_in_order(Entry { key: Self::ranked_key(time, rank), event });
    }

    /// Adds `entry` to the heap.
    #[inline]
    fn insert(&mut self, entry: Entry<E>) {
        self.least_key = self.least_key.min(entry.key);
        self.heap.push(entry);
    }

    /// Adds `entry` to the FIFO if it is no earlier than the FIFO's last, else to the heap.
    #[inline]
    fn insert_in_order(&mut self, entry: Entry<E>) {
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
        self.in_order.head_key() == self.least_key
    }

    /// The earliest pending event, if any.
    #[inline]
    pub fn peek(&self) -> Option<&E> {
        if self.is_empty() {
            return None;
        }
        let entry = if self.fifo_first() { self.in_order.head() } else { self.heap.peek().expect("not empty") };
        Some(&entry.event)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.is_empty() {
            return None;
        }
        let e =
            if self.fifo_first() { self.in_order.pop_front() } else { self.heap.pop().expect("its key is the least") };
        let heap_key = self.heap.peek().map_or(u128::MAX, |h| h.key);
        self.least_key = self.in_order.head_key().min(heap_key);
        Some((e.time(), e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() + self.in_order.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        // No key is all ones (sequence numbers and ranks stay below it).
        self.least_key == u128::MAX
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

    #[test]
    fn ranked_events_follow_the_others_of_their_time_in_rank_order() {
        let mut q = EventQueue::with_capacity(4);
        q.push_ranked(SimTime(10), 7, 'c');
        q.push_in_order_ranked(SimTime(10), 2, 'b');
        q.push(SimTime(10), 'a');
        q.push_in_order(SimTime(20), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert!(q.is_empty());
    }

    proptest::proptest! {
        // Any mix of pushes (each kind, in or out of time order) and pops gives the events
        // in time order, then unranked ones in push order, then ranked ones in rank order,
        // as one sorted list of everything pending would.
        #[test]
        fn pops_as_a_sorted_list_would(ops in proptest::collection::vec((0u8..5, 0u64..50), 0..400)) {
            let mut q = EventQueue::with_capacity(4);
            // (time, ranked, push order or rank, event)
            let mut pending: Vec<(u64, bool, u64, usize)> = Vec::new();
            let mut now = 0;
            for (n, (op, dt)) in ops.into_iter().enumerate() {
                let (t, rank) = (now + dt, (n as u64 * 7919) % 100_003);
                match op {
                    0 => q.push(SimTime(t), n),
                    1 => q.push_in_order(SimTime(t), n),
                    2 => q.push_ranked(SimTime(t), rank, n),
                    3 => q.push_in_order_ranked(SimTime(t), rank, n),
                    _ => {
                        pending.sort_unstable();
                        let expected = (!pending.is_empty()).then(|| pending.remove(0));
                        proptest::prop_assert_eq!(q.peek_time(), expected.map_or(SimTime::NEVER, |e| SimTime(e.0)));
                        proptest::prop_assert_eq!(q.peek().copied(), expected.map(|e| e.3));
                        proptest::prop_assert_eq!(q.pop(), expected.map(|e| (SimTime(e.0), e.3)));
                        if let Some((t, ..)) = expected {
                            now = t;
                        }
                    }
                }
                match op {
                    0 | 1 => pending.push((t, false, n as u64, n)),
                    2 | 3 => pending.push((t, true, rank, n)),
                    _ => {}
                }
                proptest::prop_assert_eq!(q.len(), pending.len());
                proptest::prop_assert_eq!(q.is_empty(), pending.is_empty());
                // The kept least key follows every push and pop.
                let least = pending.iter().map(|e| e.0).min();
                proptest::prop_assert_eq!(q.peek_time(), least.map_or(SimTime::NEVER, SimTime));
            }
        }
    }
}
