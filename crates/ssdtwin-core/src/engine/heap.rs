//! A binary min-heap of small `Copy` entries, for the event queue.
//!
//! `std`'s `BinaryHeap` stores a pushed entry and then loads it back whole to sift it, and
//! likewise the entry it moves to the root on a pop: a wide load of what narrower stores
//! have just written cannot be taken from the store buffer and waits for them, on every push
//! and pop. Here the entry being placed stays in registers until its slot is known. A pop
//! sinks the root's hole to the bottom along the smaller child and lets the last entry rise
//! from there, as `std` does (the last entry nearly always belongs near the bottom, so this
//! compares less than sinking it from the root). docs/performance.md has the figures.

/// A min-heap: [`MinHeap::pop`] gives the least entry.
#[derive(Clone, Debug)]
pub(super) struct MinHeap<T> {
    data: Vec<T>,
}

impl<T: Copy + Ord> MinHeap<T> {
    /// An empty heap with room for `capacity` entries before it grows.
    pub(super) fn with_capacity(capacity: usize) -> Self {
        MinHeap { data: Vec::with_capacity(capacity) }
    }

    /// The least entry.
    #[inline]
    pub(super) fn peek(&self) -> Option<&T> {
        self.data.first()
    }

    /// Adds `item`.
    #[inline]
    pub(super) fn push(&mut self, item: T) {
        let len = self.data.len();
        if len == 0 || self.data[(len - 1) / 2] <= item {
            self.data.push(item);
        } else {
            self.sift_up(item);
        }
    }

    /// Adds `item`, less than the parent of the next free slot, on its way to the root. Out
    /// of line: most pushes stay at the bottom.
    #[inline(never)]
    fn sift_up(&mut self, item: T) {
        let parent = (self.data.len() - 1) / 2;
        self.data.push(self.data[parent]);
        self.rise(parent, item);
    }

    /// Places `item` in the empty slot `hole` or above it, moving greater parents down.
    #[inline]
    fn rise(&mut self, mut hole: usize, item: T) {
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if self.data[parent] <= item {
                break;
            }
            self.data[hole] = self.data[parent];
            hole = parent;
        }
        self.data[hole] = item;
    }

    /// Removes and returns the least entry.
    #[inline]
    pub(super) fn pop(&mut self) -> Option<T> {
        let last = self.data.pop()?;
        let len = self.data.len();
        if len == 0 {
            return Some(last);
        }
        let top = self.data[0];
        let mut hole = 0;
        let mut child = 1;
        while child + 1 < len {
            child += usize::from(self.data[child + 1] < self.data[child]);
            self.data[hole] = self.data[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child + 1 == len {
            self.data[hole] = self.data[child];
            hole = child;
        }
        self.rise(hole, last);
        Some(top)
    }

    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.data.len()
    }

    /// Drops every entry, keeping the storage.
    pub(super) fn clear(&mut self) {
        self.data.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        // Any mix of pushes and pops gives what a sorted list of the pending entries would:
        // every size, duplicates, pops of the last entry and of an empty heap.
        #[test]
        fn pops_the_least_pending(ops in proptest::collection::vec(proptest::option::of(0u32..40), 0..300)) {
            let mut heap = MinHeap::with_capacity(2);
            let mut pending: Vec<u32> = Vec::new();
            for op in ops {
                if let Some(x) = op {
                    heap.push(x);
                    pending.push(x);
                } else {
                    pending.sort_unstable();
                    let expected = (!pending.is_empty()).then(|| pending.remove(0));
                    proptest::prop_assert_eq!(heap.peek().copied(), expected);
                    proptest::prop_assert_eq!(heap.pop(), expected);
                }
                proptest::prop_assert_eq!(heap.len(), pending.len());
            }
        }
    }
}
