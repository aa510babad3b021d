//! CLOCK (second-chance) replacement over map segments: a ring of slots with a reference
//! bit each and a hand; cheaper to maintain than LRU in firmware, close to it in hit rate.
//! Memory: 4 bytes per segment of the whole map plus 5 bytes per slot.

const NONE: u32 = u32::MAX;

/// A CLOCK ring of `capacity` slots.
#[derive(Clone, Debug)]
pub(crate) struct Clock {
    slot_of: Vec<u32>,
    slots: Vec<u32>,
    referenced: Vec<bool>,
    hand: usize,
    len: u32,
}

impl Clock {
    pub(crate) fn new(segments: u32, capacity: u32) -> Self {
        Clock {
            slot_of: vec![NONE; segments as usize],
            slots: vec![NONE; capacity as usize],
            referenced: vec![false; capacity as usize],
            hand: 0,
            len: 0,
        }
    }

    /// Marks `s` (present) as used.
    pub(crate) fn touch(&mut self, s: u32) {
        self.referenced[self.slot_of[s as usize] as usize] = true;
    }

    /// Adds `s` (absent); returns the segment evicted to make room, if any.
    pub(crate) fn insert(&mut self, s: u32) -> Option<u32> {
        if self.slots.is_empty() {
            return Some(s);
        }
        if (self.len as usize) < self.slots.len() {
            // Fill free slots first, found by the hand.
            while self.slots[self.hand] != NONE {
                self.hand = (self.hand + 1) % self.slots.len();
            }
            self.place(s);
            self.len += 1;
            return None;
        }
        // Second chance: clear reference bits until an unreferenced slot comes round.
        while self.referenced[self.hand] {
            self.referenced[self.hand] = false;
            self.hand = (self.hand + 1) % self.slots.len();
        }
        let victim = self.slots[self.hand];
        self.slot_of[victim as usize] = NONE;
        self.place(s);
        Some(victim)
    }

    /// A newly loaded segment starts unreferenced: only a hit earns it a second chance.
    fn place(&mut self, s: u32) {
        self.slots[self.hand] = s;
        self.referenced[self.hand] = false;
        self.slot_of[s as usize] = self.hand as u32;
        self.hand = (self.hand + 1) % self.slots.len();
    }

    /// Segments held.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Empties every slot, handing each segment to `out` in slot order.
    pub(crate) fn drain(&mut self, mut out: impl FnMut(u32)) {
        for (slot, referenced) in self.slots.iter_mut().zip(self.referenced.iter_mut()) {
            if *slot != NONE {
                out(*slot);
                self.slot_of[*slot as usize] = NONE;
                *slot = NONE;
            }
            *referenced = false;
        }
        self.hand = 0;
        self.len = 0;
    }

    /// Removes `s` (present).
    pub(crate) fn remove(&mut self, s: u32) {
        let slot = self.slot_of[s as usize] as usize;
        self.slots[slot] = NONE;
        self.referenced[slot] = false;
        self.slot_of[s as usize] = NONE;
        self.len -= 1;
    }
}
