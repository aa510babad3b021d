//! The page cache's pages: which pages of the block target are in memory, in what state,
//! and which go when memory runs out.
//!
//! Read first: `mm/filemap.c` (page states), `mm/swap.c` (`mark_page_accessed`) and
//! `mm/vmscan.c` (`shrink_inactive_list`, `inactive_is_low`). Pages are numbered by their
//! offset on the target (`offset / page_bytes`). A page is *locked* while a read fills it,
//! *uptodate* once it holds data, *dirty* when written and not yet written back, and
//! *under writeback* while its write is at the device. Memory is `capacity` frames; pages
//! sit on an inactive or an active list (two-list LRU: a page is promoted on its second
//! access, and the active list is trimmed into the inactive one when it grows larger).
//! Reclaim takes clean, unlocked pages from the inactive tail; referenced ones get a
//! second pass.
//!
//! This module is bookkeeping only, with no time in it: [`crate::os`] drives reads,
//! writeback and the writer throttle around it ([`readahead`], [`dirty`]).

pub mod dirty;
pub mod readahead;

use crate::engine::Slab;
use std::collections::{BTreeSet, HashMap};

/// A page number on the target.
pub type PageNo = u64;

const UPTODATE: u8 = 1;
const LOCKED: u8 = 2;
const DIRTY: u8 = 4;
const WRITEBACK: u8 = 8;
const READAHEAD: u8 = 16;
const ACTIVE: u8 = 32;
const REFERENCED: u8 = 64;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Frame {
    page: PageNo,
    prev: u32,
    next: u32,
    flags: u8,
}

#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
    len: u64,
}

impl List {
    const EMPTY: List = List { head: NIL, tail: NIL, len: 0 };
}

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Not in memory.
    Absent,
    /// Being read; `marker` if it carries `PG_readahead` (now cleared: the kernel starts
    /// the next window on touching the marker whether or not its read is done).
    Locked {
        /// The page was a readahead marker.
        marker: bool,
    },
    /// In memory with data; `marker` if it carries `PG_readahead` (now cleared).
    Uptodate {
        /// The page was a readahead marker.
        marker: bool,
    },
}

/// Counters of the page cache, cumulative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PageCacheCounters {
    /// Pages a read found in memory.
    pub hit_pages: u64,
    /// Pages a read had to wait for (absent or being read).
    pub miss_pages: u64,
    /// Pages read from the target (by requests and readahead).
    pub read_pages: u64,
    /// Of those, pages nobody had asked for yet (readahead beyond the request).
    pub readahead_pages: u64,
    /// Pages written back.
    pub writeback_pages: u64,
    /// Pages dropped to make room.
    pub evicted_pages: u64,
}

/// The pages in memory. See the module documentation.
pub struct PageCache {
    capacity: u64,
    frames: Slab<Frame>,
    index: HashMap<PageNo, u32>,
    lists: [List; 2],
    /// Dirty pages not under writeback, in page order (what writeback takes next).
    dirty: BTreeSet<PageNo>,
    writeback: u64,
    /// Counters.
    pub counters: PageCacheCounters,
}

impl PageCache {
    /// An empty cache of `capacity` pages.
    pub fn new(capacity: u64) -> Self {
        PageCache {
            capacity: capacity.max(1),
            frames: Slab::default(),
            index: HashMap::new(),
            lists: [List::EMPTY, List::EMPTY],
            dirty: BTreeSet::new(),
            writeback: 0,
            counters: PageCacheCounters::default(),
        }
    }

    /// Pages in memory.
    pub fn resident(&self) -> u64 {
        self.index.len() as u64
    }

    /// Dirty pages (not yet under writeback).
    pub fn dirty(&self) -> u64 {
        self.dirty.len() as u64
    }

    /// Pages under writeback.
    pub fn under_writeback(&self) -> u64 {
        self.writeback
    }

    /// What is known of `page`; touching it clears its readahead marker, and marks it
    /// accessed if it holds data.
    pub fn touch(&mut self, page: PageNo) -> Lookup {
        let Some(&f) = self.index.get(&page) else { return Lookup::Absent };
        let flags = self.frames[f].flags;
        self.frames[f].flags &= !READAHEAD;
        let marker = flags & READAHEAD != 0;
        if flags & LOCKED != 0 {
            return Lookup::Locked { marker };
        }
        self.mark_accessed(f);
        Lookup::Uptodate { marker }
    }

    /// Whether `page` is in memory (being read or with data), without touching it.
    pub fn contains(&self, page: PageNo) -> bool {
        self.index.contains_key(&page)
    }

    /// Contiguous pages in memory just below `page`, at most `limit`
    /// (`page_cache_prev_miss`).
    pub fn cached_before(&self, page: PageNo, limit: u64) -> u64 {
        (1..=limit.min(page)).take_while(|&k| self.contains(page - k)).count() as u64
    }

    /// Adds `page`, locked for a read (it must be absent); `marker` gives it
    /// `PG_readahead`. Makes room first if memory is full.
    pub fn insert_locked(&mut self, page: PageNo, marker: bool) {
        let flags = LOCKED | if marker { READAHEAD } else { 0 };
        self.insert(page, flags);
    }

    /// A read filled `page`.
    pub fn read_done(&mut self, page: PageNo) {
        if let Some(&f) = self.index.get(&page) {
            let frame = &mut self.frames[f];
            frame.flags = (frame.flags & !LOCKED) | UPTODATE;
        }
    }

    /// `page` was written in memory (added if absent: a whole-page write needs no read).
    pub fn write(&mut self, page: PageNo) {
        let f = match self.index.get(&page) {
            Some(&f) => {
                self.mark_accessed(f);
                f
            }
            None => self.insert(page, UPTODATE),
        };
        let frame = &mut self.frames[f];
        frame.flags = (frame.flags & !LOCKED) | UPTODATE;
        if frame.flags & DIRTY == 0 {
            frame.flags |= DIRTY;
            self.dirty.insert(page);
        }
    }

    /// The next run of contiguous dirty pages at or after `from` (wrapping to `lo`), at
    /// most `run_max` long, within `lo..hi`, moved to writeback.
    pub fn take_dirty_run(&mut self, from: PageNo, run_max: u64, lo: PageNo, hi: PageNo) -> Option<(PageNo, u64)> {
        let start = from.clamp(lo, hi);
        let first = *self.dirty.range(start..hi).next().or_else(|| self.dirty.range(lo..start).next())?;
        let mut n = 0;
        while n < run_max && first + n < hi && self.dirty.remove(&(first + n)) {
            let f = self.index[&(first + n)];
            let frame = &mut self.frames[f];
            frame.flags = (frame.flags & !DIRTY) | WRITEBACK;
            n += 1;
        }
        self.writeback += n;
        Some((first, n))
    }

    /// The write of pages `first..first + n` reached the media.
    pub fn end_writeback(&mut self, first: PageNo, n: u64) {
        for page in first..first + n {
            if let Some(&f) = self.index.get(&page) {
                self.frames[f].flags &= !WRITEBACK;
            }
        }
        self.writeback -= n;
        self.counters.writeback_pages += n;
    }

    /// Whether any page of `lo..hi` is dirty.
    pub fn any_dirty_in(&self, lo: PageNo, hi: PageNo) -> bool {
        self.dirty.range(lo..hi).next().is_some()
    }

    /// Drops the clean, unlocked pages of `lo..hi` (`invalidate_mapping_pages`, what
    /// fio's `invalidate` asks for through `posix_fadvise(POSIX_FADV_DONTNEED)`).
    pub fn invalidate(&mut self, lo: PageNo, hi: PageNo) {
        let pages: Vec<PageNo> = if hi - lo < self.index.len() as u64 {
            (lo..hi).filter(|p| self.index.contains_key(p)).collect()
        } else {
            // In page order, as the range's loop gives them: the map's own order would decide
            // which freed frames later pages reuse.
            let mut pages: Vec<PageNo> = self.index.keys().copied().filter(|p| (lo..hi).contains(p)).collect();
            pages.sort_unstable();
            pages
        };
        for page in pages {
            let f = self.index[&page];
            if self.frames[f].flags & (LOCKED | DIRTY | WRITEBACK) == 0 {
                self.remove(f);
            }
        }
    }

    fn insert(&mut self, page: PageNo, flags: u8) -> u32 {
        debug_assert!(!self.index.contains_key(&page));
        if self.resident() >= self.capacity {
            self.reclaim_one();
        }
        let frame = Frame { page, prev: NIL, next: NIL, flags };
        let f = self.frames.insert(frame);
        self.index.insert(page, f);
        self.push_head(0, f);
        f
    }

    /// `mark_page_accessed`: an unreferenced page becomes referenced; a referenced
    /// inactive page is activated.
    fn mark_accessed(&mut self, f: u32) {
        let flags = self.frames[f].flags;
        if flags & REFERENCED == 0 {
            self.frames[f].flags |= REFERENCED;
        } else if flags & ACTIVE == 0 {
            self.unlink(0, f);
            self.frames[f].flags = (flags & !REFERENCED) | ACTIVE;
            self.push_head(1, f);
            self.balance();
        }
    }

    /// `inactive_is_low` for file pages: keep the inactive list at least as long as the
    /// active one by moving the active tail down.
    fn balance(&mut self) {
        while self.lists[1].len > self.lists[0].len {
            let f = self.lists[1].tail;
            self.unlink(1, f);
            self.frames[f].flags &= !(ACTIVE | REFERENCED);
            self.push_head(0, f);
        }
    }

    /// Frees one frame from the inactive tail: clean, unlocked, not recently referenced
    /// pages go; referenced ones lose the mark and rotate; busy ones rotate. If every page
    /// is busy the cache grows past its capacity for now (dirty pages are bounded well
    /// below it by the dirty limits).
    fn reclaim_one(&mut self) {
        self.balance();
        let mut scanned = 0;
        let len = self.lists[0].len;
        while scanned < 2 * len {
            let f = self.lists[0].tail;
            if f == NIL {
                return;
            }
            let flags = self.frames[f].flags;
            if flags & (LOCKED | DIRTY | WRITEBACK) == 0 && flags & REFERENCED == 0 {
                self.remove(f);
                self.counters.evicted_pages += 1;
                return;
            }
            self.frames[f].flags &= !REFERENCED;
            self.unlink(0, f);
            self.push_head(0, f);
            scanned += 1;
        }
    }

    fn remove(&mut self, f: u32) {
        let list = usize::from(self.frames[f].flags & ACTIVE != 0);
        self.unlink(list, f);
        self.index.remove(&self.frames[f].page);
        self.frames.free(f);
    }

    fn push_head(&mut self, list: usize, f: u32) {
        let head = self.lists[list].head;
        self.frames[f].prev = NIL;
        self.frames[f].next = head;
        if head == NIL {
            self.lists[list].tail = f;
        } else {
            self.frames[head].prev = f;
        }
        self.lists[list].head = f;
        self.lists[list].len += 1;
    }

    fn unlink(&mut self, list: usize, f: u32) {
        let Frame { prev, next, .. } = self.frames[f];
        if prev == NIL {
            self.lists[list].head = next;
        } else {
            self.frames[prev].next = next;
        }
        if next == NIL {
            self.lists[list].tail = prev;
        } else {
            self.frames[next].prev = prev;
        }
        self.lists[list].len -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(cache: &mut PageCache, pages: std::ops::Range<u64>) {
        for p in pages {
            cache.insert_locked(p, false);
            cache.read_done(p);
        }
    }

    #[test]
    fn a_full_cache_drops_the_least_recently_used_clean_page() {
        let mut c = PageCache::new(4);
        filled(&mut c, 0..4);
        c.touch(0);
        c.touch(0); // 0 is now active
        filled(&mut c, 4..5);
        assert!(c.contains(0), "the active page stays");
        assert!(!c.contains(1), "the oldest inactive page goes");
        assert_eq!((c.resident(), c.counters.evicted_pages), (4, 1));
    }

    #[test]
    fn dirty_and_locked_pages_are_never_reclaimed() {
        let mut c = PageCache::new(2);
        c.write(0);
        c.insert_locked(1, false);
        filled(&mut c, 2..3);
        assert!(c.contains(0) && c.contains(1) && c.contains(2), "nothing clean to drop: the cache grows");
        assert_eq!(c.take_dirty_run(0, 256, 0, u64::MAX), Some((0, 1)));
        c.end_writeback(0, 1);
        filled(&mut c, 3..4);
        assert!(!c.contains(0), "written back, the page is clean and can go");
    }

    #[test]
    fn writeback_takes_dirty_runs_in_page_order_from_the_cursor() {
        let mut c = PageCache::new(100);
        for p in [3, 4, 5, 9, 10, 20] {
            c.write(p);
        }
        let all = (0, u64::MAX);
        assert_eq!(c.take_dirty_run(9, 256, all.0, all.1), Some((9, 2)));
        assert_eq!(c.take_dirty_run(11, 256, all.0, all.1), Some((20, 1)));
        assert_eq!(c.take_dirty_run(21, 2, all.0, all.1), Some((3, 2)), "wraps to the start; runs stop at run_max");
        assert_eq!((c.dirty(), c.under_writeback()), (1, 5));
        assert_eq!(c.take_dirty_run(0, 10, 6, 8), None, "nothing dirty in the range");
        assert_eq!(c.take_dirty_run(0, 10, 4, 6), Some((5, 1)));
        assert!(!c.any_dirty_in(0, 100));
    }

    #[test]
    fn the_readahead_marker_is_reported_once() {
        let mut c = PageCache::new(10);
        c.insert_locked(7, true);
        assert_eq!(c.touch(7), Lookup::Locked { marker: true });
        assert_eq!(c.touch(7), Lookup::Locked { marker: false });
        c.read_done(7);
        c.insert_locked(8, true);
        c.read_done(8);
        assert_eq!(c.touch(8), Lookup::Uptodate { marker: true });
        assert_eq!(c.touch(7), Lookup::Uptodate { marker: false });
        assert_eq!(c.touch(9), Lookup::Absent);
    }

    #[test]
    fn invalidate_keeps_dirty_pages() {
        let mut c = PageCache::new(10);
        filled(&mut c, 0..4);
        c.write(2);
        c.invalidate(0, 4);
        assert_eq!(c.resident(), 1);
        assert!(c.contains(2));
        assert_eq!(c.cached_before(3, 8), 1);
    }
}
