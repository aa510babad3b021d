//! Records kept in a vector and reused through a free list, named by `u32` ids.
//!
//! In-flight requests, I/Os and page frames come and go at every event; a [`Slab`] gives
//! each a stable id until it is freed and, once its storage has grown to the most records
//! ever live at once, allocates nothing. A freed record stays readable until the next
//! [`Slab::insert`] reuses its slot.

use std::ops::{Index, IndexMut};

/// A vector of records with a free list. See the module documentation.
#[derive(Clone, Debug)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    /// Stores `item` in a free slot (or a new one) and returns its id.
    #[inline]
    pub fn insert(&mut self, item: T) -> u32 {
        if let Some(id) = self.free.pop() {
            self.items[id as usize] = item;
            id
        } else {
            self.items.push(item);
            self.items.len() as u32 - 1
        }
    }

    /// Gives slot `id` back for reuse.
    #[inline]
    pub fn free(&mut self, id: u32) {
        self.free.push(id);
    }
}

impl<T> Index<u32> for Slab<T> {
    type Output = T;
    #[inline]
    fn index(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}

impl<T> IndexMut<u32> for Slab<T> {
    #[inline]
    fn index_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused_last_freed_first() {
        let mut s = Slab::default();
        assert_eq!([s.insert('a'), s.insert('b'), s.insert('c')], [0, 1, 2]);
        s.free(0);
        s.free(2);
        assert_eq!(s[2], 'c', "a freed record stays readable until reused");
        assert_eq!(s.insert('d'), 2);
        assert_eq!(s.insert('e'), 0);
        assert_eq!(s.insert('f'), 3);
        s[1] = 'B';
        assert_eq!([s[0], s[1], s[2], s[3]], ['e', 'B', 'd', 'f']);
    }
}
