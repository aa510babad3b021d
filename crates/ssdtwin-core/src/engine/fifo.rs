//! The event queue's FIFO: entries pushed in key order, on a ring whose vacant slots hold
//! the greatest key.
//!
//! The queue asks for the FIFO's least key after every pop and on every push. With a few
//! events pending at a time, whether the FIFO is empty then is a coin toss, and a
//! `VecDeque`'s `front()` branches on it. Here the head slot's key is the answer either way
//! (`u128::MAX` when the FIFO is empty, as for an empty queue), kept in a field, and no
//! operation but growth branches on the FIFO's length.

use super::queue::Entry;

/// Entries in key order, each pushed no earlier than the one before.
#[derive(Clone)]
pub(super) struct Fifo<E> {
    /// A power of two of slots (none before the first push). Vacant slots hold the key
    /// `u128::MAX` and a stale event.
    slots: Vec<Entry<E>>,
    head: usize,
    len: usize,
    /// The head entry's key, `u128::MAX` when empty.
    head_key: u128,
}

impl<E: Copy> Fifo<E> {
    pub(super) fn new() -> Self {
        Fifo { slots: Vec::new(), head: 0, len: 0, head_key: u128::MAX }
    }

    /// The least key pending, `u128::MAX` if none.
    #[inline]
    pub(super) fn head_key(&self) -> u128 {
        self.head_key
    }

    /// The head entry; the FIFO must not be empty.
    #[inline]
    pub(super) fn head(&self) -> &Entry<E> {
        debug_assert!(self.len > 0, "the head of an empty FIFO");
        &self.slots[self.head]
    }

    /// Appends `entry`, whose key is no less than any pending.
    #[inline]
    pub(super) fn push_back(&mut self, entry: Entry<E>) {
        if self.len == self.slots.len() {
            self.grow(entry);
        }
        let mask = self.slots.len() - 1;
        self.slots[(self.head + self.len) & mask] = entry;
        self.len += 1;
        // The head's key, or this one's if the FIFO was empty: the least of the two.
        self.head_key = self.head_key.min(entry.key);
    }

    /// Removes the head entry; the FIFO must not be empty.
    #[inline]
    pub(super) fn pop_front(&mut self) -> Entry<E> {
        debug_assert!(self.len > 0, "popped an empty FIFO");
        let mask = self.slots.len() - 1;
        let entry = self.slots[self.head];
        self.slots[self.head].key = u128::MAX;
        self.head = (self.head + 1) & mask;
        self.len -= 1;
        self.head_key = self.slots[self.head].key;
        entry
    }

    /// Doubles the ring (to 16 slots at first), its entries moved to the front in order;
    /// `filler` makes the vacant slots' stale event.
    #[cold]
    fn grow(&mut self, filler: Entry<E>) {
        let vacant = Entry { key: u128::MAX, ..filler };
        let mut slots = vec![vacant; (2 * self.slots.len()).max(16)];
        let mask = self.slots.len().wrapping_sub(1);
        for (k, slot) in slots.iter_mut().take(self.len).enumerate() {
            *slot = self.slots[(self.head + k) & mask];
        }
        self.slots = slots;
        self.head = 0;
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Drops every entry, keeping the storage.
    pub(super) fn clear(&mut self) {
        for slot in &mut self.slots {
            slot.key = u128::MAX;
        }
        self.head = 0;
        self.len = 0;
        self.head_key = u128::MAX;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: u128) -> Entry<u32> {
        Entry { key, event: key as u32 }
    }

    proptest::proptest! {
        // Any mix of pushes (in key order) and pops, across growth and wrap-around, gives
        // the entries back in order, and the head key is the head's or the greatest.
        #[test]
        fn pops_in_push_order(ops in proptest::collection::vec(proptest::bool::ANY, 0..300)) {
            let mut fifo = Fifo::new();
            let mut model = std::collections::VecDeque::new();
            let mut next = 0u128;
            for push in ops {
                if push {
                    fifo.push_back(entry(next));
                    model.push_back(next);
                    next += 1;
                } else if let Some(key) = model.pop_front() {
                    proptest::prop_assert_eq!(fifo.pop_front().key, key);
                }
                proptest::prop_assert_eq!(fifo.len(), model.len());
                proptest::prop_assert_eq!(fifo.head_key(), model.front().copied().unwrap_or(u128::MAX));
                if let Some(&key) = model.front() {
                    proptest::prop_assert_eq!(fifo.head().key, key);
                }
            }
            fifo.clear();
            proptest::prop_assert_eq!(fifo.head_key(), u128::MAX);
        }
    }
}
