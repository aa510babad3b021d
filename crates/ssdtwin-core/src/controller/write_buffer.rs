//! The write buffer: space accounting and the queue of writes waiting for space.
//!
//! A write takes its units of space when admitted and gives them back when the program unit
//! holding them has been programmed. A write larger than the whole buffer is admitted only
//! into an empty buffer, so no size can deadlock. Waiting writes are admitted strictly in
//! arrival order.

use std::collections::VecDeque;

/// Buffer occupancy and waiters.
#[derive(Clone, Debug)]
pub struct WriteBuffer {
    capacity_units: u32,
    used_units: u32,
    waiting: VecDeque<u32>,
}

impl WriteBuffer {
    /// An empty buffer of `capacity_units` map units.
    pub fn new(capacity_units: u32) -> Self {
        WriteBuffer { capacity_units, used_units: 0, waiting: VecDeque::new() }
    }

    /// True if a write of `units` could be admitted now (nobody waiting ahead of it).
    #[inline]
    pub fn has_room(&self, units: u32) -> bool {
        self.waiting.is_empty() && self.fits(units)
    }

    #[inline]
    fn fits(&self, units: u32) -> bool {
        self.used_units + units <= self.capacity_units || self.used_units == 0
    }

    /// Takes space for an admitted write.
    #[inline]
    pub fn take(&mut self, units: u32) {
        self.used_units += units;
    }

    /// Gives space back after a program.
    #[inline]
    pub fn release(&mut self, units: u32) {
        debug_assert!(units <= self.used_units);
        self.used_units -= units;
    }

    /// Queues a write (by command slot) until space frees.
    pub fn wait(&mut self, slot: u32) {
        self.waiting.push_back(slot);
    }

    /// The first waiting write, if it fits now.
    pub fn next_admissible(&self, units_of: impl Fn(u32) -> u32) -> Option<u32> {
        let &slot = self.waiting.front()?;
        self.fits(units_of(slot)).then_some(slot)
    }

    /// The first waiting write, if any.
    pub fn front(&self) -> Option<u32> {
        self.waiting.front().copied()
    }

    /// Removes the first waiting write.
    pub fn pop_waiting(&mut self) -> Option<u32> {
        self.waiting.pop_front()
    }

    /// Units held.
    pub fn used_units(&self) -> u32 {
        self.used_units
    }

    /// Capacity in units.
    pub fn capacity_units(&self) -> u32 {
        self.capacity_units
    }

    /// Writes waiting for space.
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }
}
