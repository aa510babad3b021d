//! Least-recently-used replacement over map segments: an intrusive doubly linked list
//! (8 bytes per segment of the whole map, allocated once); every operation is O(1).

const NONE: u32 = u32::MAX;

/// An LRU list of at most `capacity` segments.
#[derive(Clone, Debug)]
pub(crate) struct Lru {
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used: the next victim.
    tail: u32,
    len: u32,
    capacity: u32,
}

impl Lru {
    pub(crate) fn new(segments: u32, capacity: u32) -> Self {
        Lru {
            prev: vec![NONE; segments as usize],
            next: vec![NONE; segments as usize],
            head: NONE,
            tail: NONE,
            len: 0,
            capacity,
        }
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.len -= 1;
    }

    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NONE;
        self.next[s as usize] = self.head;
        if self.head == NONE {
            self.tail = s;
        } else {
            self.prev[self.head as usize] = s;
        }
        self.head = s;
        self.len += 1;
    }

    /// Marks `s` (present) as just used.
    pub(crate) fn touch(&mut self, s: u32) {
        if self.head != s {
            self.unlink(s);
            self.push_front(s);
        }
    }

    /// Adds `s` (absent); returns the segment evicted to make room, if any.
    pub(crate) fn insert(&mut self, s: u32) -> Option<u32> {
        if self.capacity == 0 {
            return Some(s);
        }
        let victim = (self.len == self.capacity).then(|| {
            let v = self.tail;
            self.unlink(v);
            v
        });
        self.push_front(s);
        victim
    }

    /// Removes `s` (present).
    pub(crate) fn remove(&mut self, s: u32) {
        self.unlink(s);
    }

    /// Segments held.
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Empties the list, handing each segment to `out`, most recent first.
    pub(crate) fn drain(&mut self, mut out: impl FnMut(u32)) {
        let mut s = self.head;
        while s != NONE {
            out(s);
            let next = self.next[s as usize];
            self.prev[s as usize] = NONE;
            self.next[s as usize] = NONE;
            s = next;
        }
        self.head = NONE;
        self.tail = NONE;
        self.len = 0;
    }
}
