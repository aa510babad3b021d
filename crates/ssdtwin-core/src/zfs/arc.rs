//! The ARC: ZFS's cache of blocks, data and metadata alike, in memory (`arc.c`).
//!
//! The Adaptive Replacement Cache of Megiddo and Modha (FAST 2003), in bytes as OpenZFS
//! keeps it: blocks seen once live on the MRU list, blocks seen again on the MFU list; the
//! target size of the MRU side, `p`, grows on a hit in the MRU ghost list (recently evicted
//! from MRU) and shrinks on a hit in the MFU ghost list. Blocks are held compressed, as on
//! disk (`zfs_compressed_arc_enabled`), so each costs its physical size. The cache's size
//! `c` is `zfs_arc_max`, by default `max(5/8 of RAM, RAM − 1 GiB)` on Linux
//! (`arc_default_max`).
//!
//! Left out: the metadata/data balance (`zfs_arc_meta_balance`), the dbuf cache of
//! uncompressed copies, L2ARC, and memory pressure from the rest of the system.
//!
//! Keys are the model's logical block identifiers. Storage: a hash map from key to entry and
//! one slab of entries linked into four lists, ~48 bytes per cached block; no allocation once
//! the slab has grown to the most blocks held.

use crate::engine::Slab;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const NONE: u32 = u32::MAX;

/// Multiplicative hashing of 64-bit keys: fast and deterministic (the map is never iterated).
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0.rotate_left(5) ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by block identifiers.
pub(crate) type KeyMap<V> = HashMap<u64, V, BuildHasherDefault<KeyHasher>>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    Mru = 0,
    Mfu = 1,
    MruGhost = 2,
    MfuGhost = 3,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    bytes: u64,
    prev: u32,
    next: u32,
    list: List,
}

#[derive(Clone, Copy, Debug, Default)]
struct Lru {
    head: u32,
    tail: u32,
    bytes: u64,
    count: usize,
}

/// Hit and miss counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArcStats {
    /// Lookups that found the block.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Misses whose block had been evicted recently (a ghost hit).
    pub ghost_hits: u64,
    /// Bytes evicted.
    pub evicted_bytes: u64,
}

/// The cache. See the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct Arc {
    c: u64,
    p: u64,
    map: KeyMap<u32>,
    entries: Slab<Entry>,
    lists: [Lru; 4],
    pub(crate) stats: ArcStats,
}

impl Arc {
    pub(crate) fn new(bytes: u64) -> Self {
        let empty = Lru { head: NONE, tail: NONE, bytes: 0, count: 0 };
        Arc {
            c: bytes.max(1 << 20),
            p: bytes / 2,
            map: KeyMap::default(),
            entries: Slab::default(),
            lists: [empty; 4],
            stats: ArcStats::default(),
        }
    }

    /// Bytes of cached blocks.
    pub(crate) fn size(&self) -> u64 {
        self.lists[0].bytes + self.lists[1].bytes
    }

    /// The target size.
    pub(crate) fn target(&self) -> u64 {
        self.c
    }

    /// Blocks held.
    pub(crate) fn blocks(&self) -> usize {
        self.lists[0].count + self.lists[1].count
    }

    /// Whether `key` is cached, without touching the lists.
    pub(crate) fn contains(&self, key: u64) -> bool {
        self.map.get(&key).is_some_and(|&e| matches!(self.entries[e].list, List::Mru | List::Mfu))
    }

    /// Looks `key` up: a hit moves it to the MFU head.
    pub(crate) fn lookup(&mut self, key: u64) -> bool {
        match self.map.get(&key) {
            Some(&e) if matches!(self.entries[e].list, List::Mru | List::Mfu) => {
                self.stats.hits += 1;
                self.unlink(e);
                self.push_head(e, List::Mfu);
                true
            }
            _ => {
                self.stats.misses += 1;
                false
            }
        }
    }

    /// Caches `key` (just read or written) at `bytes`; a block already cached takes the new
    /// size. Evicts to stay within the target.
    pub(crate) fn insert(&mut self, key: u64, bytes: u64) {
        let list = match self.map.get(&key).copied() {
            Some(e) => {
                let was = self.entries[e].list;
                self.unlink(e);
                self.entries.free(e);
                self.map.remove(&key);
                match was {
                    List::MruGhost => {
                        self.stats.ghost_hits += 1;
                        let (b1, b2) = (self.lists[2].bytes.max(1), self.lists[3].bytes.max(1));
                        self.p = (self.p + bytes.max(bytes * b2 / b1)).min(self.c);
                        List::Mfu
                    }
                    List::MfuGhost => {
                        self.stats.ghost_hits += 1;
                        let (b1, b2) = (self.lists[2].bytes.max(1), self.lists[3].bytes.max(1));
                        self.p = self.p.saturating_sub(bytes.max(bytes * b1 / b2));
                        List::Mfu
                    }
                    other => other,
                }
            }
            None => List::Mru,
        };
        let e = self.entries.insert(Entry { key, bytes, prev: NONE, next: NONE, list });
        self.map.insert(key, e);
        self.push_head(e, list);
        self.evict();
    }

    /// Empties the cache (the pool exported and imported, or caches dropped).
    pub(crate) fn clear(&mut self) {
        let target = self.c;
        let stats = self.stats;
        *self = Arc::new(target);
        self.stats = stats;
    }

    fn evict(&mut self) {
        while self.size() > self.c {
            let from = if self.lists[0].bytes > self.p || self.lists[1].bytes == 0 { List::Mru } else { List::Mfu };
            let e = self.lists[from as usize].tail;
            let bytes = self.entries[e].bytes;
            self.unlink(e);
            self.stats.evicted_bytes += bytes;
            self.push_head(e, if from == List::Mru { List::MruGhost } else { List::MfuGhost });
        }
        // Ghost lists remember at most the cache's size each.
        for ghost in [List::MruGhost, List::MfuGhost] {
            while self.lists[ghost as usize].bytes > self.c {
                let e = self.lists[ghost as usize].tail;
                self.unlink(e);
                self.map.remove(&self.entries[e].key);
                self.entries.free(e);
            }
        }
    }

    fn push_head(&mut self, e: u32, list: List) {
        let l = &mut self.lists[list as usize];
        let old = l.head;
        l.head = e;
        if l.tail == NONE {
            l.tail = e;
        }
        l.bytes += self.entries[e].bytes;
        l.count += 1;
        if old != NONE {
            self.entries[old].prev = e;
        }
        let entry = &mut self.entries[e];
        entry.list = list;
        entry.prev = NONE;
        entry.next = old;
    }

    fn unlink(&mut self, e: u32) {
        let Entry { prev, next, list, bytes, .. } = self.entries[e];
        let l = &mut self.lists[list as usize];
        l.bytes -= bytes;
        l.count -= 1;
        if prev == NONE {
            l.head = next;
        } else {
            self.entries[prev].next = next;
        }
        if next == NONE {
            self.lists[list as usize].tail = prev;
        } else {
            self.entries[next].prev = prev;
        }
    }
}

/// `arc_default_max` on Linux: the larger of 5/8 of RAM and all of it but 1 GiB.
pub(crate) fn default_arc_max(ram_bytes: u64) -> u64 {
    let size = if ram_bytes >= 1 << 30 { ram_bytes - (1 << 30) } else { ram_bytes / 2 };
    (ram_bytes * 5 / 8).max(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_seen_twice_survives_a_scan_of_blocks_seen_once() {
        let mut a = Arc::new(100 << 20);
        a.insert(1, 1 << 20);
        assert!(a.lookup(1), "now on the MFU list");
        for k in 100..400 {
            a.insert(k, 1 << 20);
        }
        assert!(a.size() <= 100 << 20);
        assert!(a.contains(1), "the scan evicted only blocks seen once");
        assert!(!a.contains(100), "the oldest scanned block went first");
    }

    #[test]
    fn a_ghost_hit_grows_the_side_it_came_from() {
        let mut a = Arc::new(10 << 20);
        for k in 0..20 {
            a.insert(k, 1 << 20);
        }
        let p = a.p;
        assert!(!a.lookup(0), "evicted");
        a.insert(0, 1 << 20);
        assert!(a.p > p, "a hit in the MRU ghost list raises p");
        assert_eq!(a.stats.ghost_hits, 1);
    }

    #[test]
    fn the_default_size_follows_arc_default_max() {
        assert_eq!(default_arc_max(64 << 30), 63 << 30);
        assert_eq!(default_arc_max(2 << 30), 5 << 28, "5/8 of 2 GiB beats all but 1 GiB");
    }
}
