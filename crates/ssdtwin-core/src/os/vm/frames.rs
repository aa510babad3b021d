//! Page frames of DRAM and the LRU lists reclaim takes them from.
//!
//! Read first: `include/linux/page-flags.h` (the flags mirrored here), `include/linux/mmzone.h`
//! (`enum lru_list`) and `mm/swap.c` (`lru_cache_add`, `rotate_reclaimable_page`). A frame
//! holds one page of a mapping (its owner, a global page number) or is free. Frames in use
//! sit on one of four lists — inactive and active, anonymous and file — as the kernel's
//! per-zone (3.x) or per-node (4.8+) `lruvec` keeps them; unevictable pages are not
//! modelled.
//!
//! State of a frame, by flags:
//!
//! ```text
//!  free ──alloc──▶ LOCKED (read in flight) ──read done──▶ uptodate ──▶ … ──free──▶ free
//!                  uptodate ──reclaim writes it──▶ WRITEBACK (+RECLAIM) ──write done──▶ freed
//! ```
//!
//! Storage is struct-of-arrays, allocated zeroed once for every frame of the machine and
//! touched as frames are first used: 18 bytes a frame (owner, swap slot, two links, flags),
//! so 32 GiB of 4 KiB frames take up to 144 MiB. Every operation is O(1); the free list
//! grows to the most frames ever freed and is then reused.

/// A frame, by index.
pub type FrameId = u32;

/// No frame (an empty list's end).
pub const NIL: FrameId = u32::MAX;

/// The four LRU lists, as `enum lru_list` orders them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Lru {
    /// `LRU_INACTIVE_ANON`.
    InactiveAnon = 0,
    /// `LRU_ACTIVE_ANON`.
    ActiveAnon = 1,
    /// `LRU_INACTIVE_FILE`.
    InactiveFile = 2,
    /// `LRU_ACTIVE_FILE`.
    ActiveFile = 3,
}

impl Lru {
    /// The inactive or active list of anonymous or file pages.
    pub fn of(anon: bool, active: bool) -> Lru {
        match (anon, active) {
            (true, false) => Lru::InactiveAnon,
            (true, true) => Lru::ActiveAnon,
            (false, false) => Lru::InactiveFile,
            (false, true) => Lru::ActiveFile,
        }
    }

    fn from_bits(bits: u16) -> Lru {
        match bits & LRU_MASK {
            0 => Lru::InactiveAnon,
            1 => Lru::ActiveAnon,
            2 => Lru::InactiveFile,
            _ => Lru::ActiveFile,
        }
    }
}

const LRU_MASK: u16 = 3;
/// On an LRU list (isolated or free frames are not).
pub const ON_LRU: u16 = 1 << 2;
/// `PG_referenced`: seen referenced once by reclaim or by `mark_page_accessed`.
pub const REFERENCED: u16 = 1 << 3;
/// The PTE's accessed bit (one mapping per page here, so it lives with the frame).
pub const YOUNG: u16 = 1 << 4;
/// `PG_dirty`: must be written before the frame can be freed (anonymous pages without a
/// swap slot count as dirty).
pub const DIRTY: u16 = 1 << 5;
/// `PG_locked` while the page's read is in flight (not yet `PG_uptodate`).
pub const LOCKED: u16 = 1 << 6;
/// `PG_writeback`.
pub const WRITEBACK: u16 = 1 << 7;
/// `PG_reclaim`: reclaim wrote it and frees it when the write ends.
pub const RECLAIM: u16 = 1 << 8;
/// `PG_readahead`: the marker whose touch starts the next window (file) or counts a
/// readahead hit (swap).
pub const READAHEAD: u16 = 1 << 9;
/// `PG_swapcache`: an anonymous page with a swap slot.
pub const SWAPCACHE: u16 = 1 << 10;
/// Mapped in the process's page table.
pub const MAPPED: u16 = 1 << 11;
/// `PageAnon`.
pub const ANON: u16 = 1 << 12;

/// Every frame of the machine. See the module documentation.
pub struct Frames {
    /// The global page number each frame holds.
    pub owner: Vec<u32>,
    /// The swap slot of a frame in the swap cache (global slot number).
    pub slot: Vec<u32>,
    /// Flags (the constants above) and the list a frame is on.
    pub flags: Vec<u16>,
    prev: Vec<FrameId>,
    next: Vec<FrameId>,
    heads: [FrameId; 4],
    tails: [FrameId; 4],
    lens: [u64; 4],
    /// Frames freed after use, the last freed on top.
    free: Vec<FrameId>,
    /// Frames never used yet start here.
    fresh: u32,
}

impl Frames {
    /// `n` free frames, handed out lowest index first.
    pub fn new(n: u32) -> Self {
        let n = n as usize;
        // Links are written before they are read (by the list operations), so zeroed
        // storage the OS maps lazily will do.
        Frames {
            owner: vec![0; n],
            slot: vec![0; n],
            flags: vec![0; n],
            prev: vec![0; n],
            next: vec![0; n],
            heads: [NIL; 4],
            tails: [NIL; 4],
            lens: [0; 4],
            free: Vec::new(),
            fresh: 0,
        }
    }

    /// Frames of the machine.
    pub fn total(&self) -> u64 {
        self.flags.len() as u64
    }

    /// Free frames.
    pub fn free_count(&self) -> u64 {
        self.free.len() as u64 + (self.total() - u64::from(self.fresh))
    }

    /// Frames on list `lru`.
    pub fn len(&self, lru: Lru) -> u64 {
        self.lens[lru as usize]
    }

    /// A free frame for page `owner`, with `flags` (not yet on a list), or `None`.
    #[inline]
    pub fn alloc(&mut self, owner: u32, flags: u16) -> Option<FrameId> {
        let f = match self.free.pop() {
            Some(f) => f,
            None if u64::from(self.fresh) < self.total() => {
                self.fresh += 1;
                self.fresh - 1
            }
            None => return None,
        };
        self.owner[f as usize] = owner;
        self.flags[f as usize] = flags;
        Some(f)
    }

    /// Gives frame `f` (off every list) back.
    #[inline]
    pub fn release(&mut self, f: FrameId) {
        debug_assert!(self.flags[f as usize] & ON_LRU == 0, "a frame leaves its list before it is freed");
        self.flags[f as usize] = 0;
        self.free.push(f);
    }

    /// Whether flag(s) `bits` are all set on `f`.
    #[inline]
    pub fn has(&self, f: FrameId, bits: u16) -> bool {
        self.flags[f as usize] & bits == bits
    }

    /// Sets `bits` on `f`.
    #[inline]
    pub fn set(&mut self, f: FrameId, bits: u16) {
        self.flags[f as usize] |= bits;
    }

    /// Clears `bits` on `f`; returns whether any was set.
    #[inline]
    pub fn clear(&mut self, f: FrameId, bits: u16) -> bool {
        let was = self.flags[f as usize] & bits != 0;
        self.flags[f as usize] &= !bits;
        was
    }

    /// The list `f` is on (meaningful only with [`ON_LRU`]).
    #[inline]
    pub fn lru(&self, f: FrameId) -> Lru {
        Lru::from_bits(self.flags[f as usize])
    }

    /// The frame at the tail (oldest end) of `lru`.
    #[inline]
    pub fn tail(&self, lru: Lru) -> FrameId {
        self.tails[lru as usize]
    }

    /// The frame after `f` towards the head, or [`NIL`].
    #[inline]
    pub fn newer(&self, f: FrameId) -> FrameId {
        self.prev[f as usize]
    }

    /// Puts `f` at the head of `lru` (`lru_cache_add`, activation).
    #[inline]
    pub fn push_head(&mut self, lru: Lru, f: FrameId) {
        let l = lru as usize;
        let head = self.heads[l];
        self.prev[f as usize] = NIL;
        self.next[f as usize] = head;
        if head == NIL {
            self.tails[l] = f;
        } else {
            self.prev[head as usize] = f;
        }
        self.heads[l] = f;
        self.lens[l] += 1;
        self.flags[f as usize] = (self.flags[f as usize] & !LRU_MASK) | lru as u16 | ON_LRU;
    }

    /// Puts `f` at the tail of `lru`, where reclaim looks first (`rotate_reclaimable_page`).
    #[inline]
    pub fn push_tail(&mut self, lru: Lru, f: FrameId) {
        let l = lru as usize;
        let tail = self.tails[l];
        self.next[f as usize] = NIL;
        self.prev[f as usize] = tail;
        if tail == NIL {
            self.heads[l] = f;
        } else {
            self.next[tail as usize] = f;
        }
        self.tails[l] = f;
        self.lens[l] += 1;
        self.flags[f as usize] = (self.flags[f as usize] & !LRU_MASK) | lru as u16 | ON_LRU;
    }

    /// Takes `f` off its list.
    #[inline]
    pub fn unlink(&mut self, f: FrameId) {
        debug_assert!(self.has(f, ON_LRU));
        let l = self.lru(f) as usize;
        let (p, n) = (self.prev[f as usize], self.next[f as usize]);
        if p == NIL {
            self.heads[l] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tails[l] = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.lens[l] -= 1;
        self.flags[f as usize] &= !ON_LRU;
    }

    /// Moves `f` to the head of `lru` (from wherever it is).
    #[inline]
    pub fn move_head(&mut self, lru: Lru, f: FrameId) {
        if self.has(f, ON_LRU) {
            self.unlink(f);
        }
        self.push_head(lru, f);
    }

    /// Checks the lists against the flags and the lengths (tests).
    pub fn check(&self) {
        let mut on = 0u64;
        for l in 0..4 {
            let (mut f, mut n, mut last) = (self.heads[l], 0u64, NIL);
            while f != NIL {
                assert_eq!(self.lru(f) as usize, l, "frame {f} is on list {l} and says otherwise");
                assert!(self.has(f, ON_LRU));
                assert_eq!(self.prev[f as usize], last);
                last = f;
                f = self.next[f as usize];
                n += 1;
            }
            assert_eq!(self.tails[l], last);
            assert_eq!(self.lens[l], n, "list {l} length");
            on += n;
        }
        let flagged = self.flags.iter().filter(|&&fl| fl & ON_LRU != 0).count() as u64;
        assert_eq!(on, flagged, "every frame flagged on a list is on it");
        assert!(on + self.free_count() <= self.total());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(fr: &Frames, lru: Lru) -> Vec<FrameId> {
        let mut out = Vec::new();
        let mut f = fr.tail(lru);
        while f != NIL {
            out.push(f);
            f = fr.newer(f);
        }
        out
    }

    // ---- free frames ----

    #[test]
    fn frames_are_handed_out_lowest_first_and_reused() {
        let mut fr = Frames::new(3);
        assert_eq!([fr.alloc(7, ANON), fr.alloc(8, ANON)], [Some(0), Some(1)]);
        fr.release(0);
        assert_eq!(fr.alloc(9, 0), Some(0));
        assert_eq!(fr.alloc(10, 0), Some(2));
        assert_eq!(fr.alloc(11, 0), None, "all three in use");
        assert_eq!(fr.owner[2], 10);
    }

    // ---- lists ----

    #[test]
    fn lists_keep_age_order_and_rotation_puts_a_frame_at_the_tail() {
        let mut fr = Frames::new(4);
        for i in 0..4 {
            let f = fr.alloc(i, 0).unwrap();
            fr.push_head(Lru::InactiveFile, f);
        }
        assert_eq!(order(&fr, Lru::InactiveFile), [0, 1, 2, 3], "oldest first from the tail");
        fr.unlink(2);
        fr.push_tail(Lru::InactiveFile, 2);
        fr.move_head(Lru::ActiveFile, 0);
        assert_eq!(order(&fr, Lru::InactiveFile), [2, 1, 3]);
        assert_eq!(order(&fr, Lru::ActiveFile), [0]);
        assert_eq!((fr.len(Lru::InactiveFile), fr.len(Lru::ActiveFile)), (3, 1));
        fr.check();
    }
}
