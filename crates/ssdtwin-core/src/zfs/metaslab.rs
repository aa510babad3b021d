//! Metaslabs: each top-level vdev's space cut into equal slices, each with its own free
//! space, and OpenZFS's dynamic-fit allocator inside one (`metaslab.c`).
//!
//! * Size: `vdev_metaslab_set_size` aims at 200 metaslabs of 2^29 bytes or more, at least
//!   16, each at most 2^34 bytes (then at most 2^17 of them), and never below 2^24.
//! * Inside a metaslab (`metaslab_df_alloc`): first fit from a cursor kept per alignment
//!   (the largest power of two dividing the size), searching at most 16 MiB past the first
//!   candidate; once free space is below 4 % or no free segment reaches 128 KiB, best fit
//!   by size. Allocations therefore run forward through a fresh metaslab.
//! * Choosing one (`metaslab_space_weight`): free space, doubled at the outer edge of a
//!   rotating vdev and falling linearly to the inner edge, lowered by fragmentation; the
//!   active metaslab is used until it cannot satisfy a request.
//! * Fragmentation (`metaslab_set_fragmentation`): the free space's segment sizes looked up
//!   in `zfs_frag_table`, weighted by space.
//!
//! Free space is a range tree: two ordered maps (by start and by size), O(log n) per
//! allocation or free, about 100 bytes per free segment. A fresh metaslab is one segment.

use std::collections::{BTreeMap, BTreeSet};

/// First-fit gives way to best-fit below this largest free segment (`metaslab_df_alloc_threshold`).
const DF_ALLOC_THRESHOLD_BYTES: u64 = 128 << 10;
/// … or below this much free space, % (`metaslab_df_free_pct`).
const DF_FREE_PCT: u64 = 4;
/// First-fit searches this far past its first candidate (`metaslab_df_max_search`).
const DF_MAX_SEARCH_BYTES: u64 = 16 << 20;
/// `zfs_frag_table`: fragmentation % of free space in segments of 512 B, 1 KiB, … 512 MiB.
const FRAG_TABLE: [u64; 21] = [100, 99, 97, 93, 88, 83, 77, 71, 64, 57, 50, 43, 36, 29, 23, 17, 12, 7, 3, 1, 0];

/// log2 of the metaslab size for a vdev of `asize` bytes (`vdev_metaslab_set_size`).
pub(crate) fn metaslab_shift(asize: u64) -> u32 {
    const DEFAULT_SHIFT: u32 = 29;
    const DEFAULT_COUNT: u64 = 200;
    const MIN_COUNT: u64 = 16;
    const MAX_SHIFT: u32 = 34;
    const COUNT_LIMIT: u64 = 1 << 17;
    const MIN_SHIFT: u32 = 24; // SPA_MAXBLOCKSHIFT
    let highbit = |v: u64| 64 - v.leading_zeros();
    let count = asize >> DEFAULT_SHIFT;
    let mut shift = if count < MIN_COUNT {
        highbit(asize / MIN_COUNT)
    } else if count > DEFAULT_COUNT {
        highbit(asize / DEFAULT_COUNT)
    } else {
        DEFAULT_SHIFT
    };
    if shift < MIN_SHIFT {
        shift = MIN_SHIFT;
    } else if shift > MAX_SHIFT {
        shift = MAX_SHIFT;
        if (asize >> shift) > COUNT_LIMIT {
            shift = highbit(asize / COUNT_LIMIT);
        }
    }
    shift
}

/// One metaslab: `size` bytes of its vdev from `start`.
#[derive(Clone, Debug)]
pub(crate) struct Metaslab {
    pub(crate) size: u64,
    pub(crate) allocated: u64,
    by_start: BTreeMap<u64, u64>,
    by_size: BTreeSet<(u64, u64)>,
    /// First-fit cursor per alignment class (`ms_lbas`).
    cursors: [u64; 64],
}

impl Metaslab {
    pub(crate) fn new(start: u64, size: u64) -> Self {
        let mut by_start = BTreeMap::new();
        by_start.insert(start, start + size);
        let mut by_size = BTreeSet::new();
        by_size.insert((size, start));
        Metaslab { size, allocated: 0, by_start, by_size, cursors: [start; 64] }
    }

    pub(crate) fn free_bytes(&self) -> u64 {
        self.size - self.allocated
    }

    /// The largest free segment.
    pub(crate) fn largest(&self) -> u64 {
        self.by_size.last().map_or(0, |&(len, _)| len)
    }

    /// Allocates `size` bytes (dynamic fit); `None` if no free segment holds them.
    pub(crate) fn alloc(&mut self, size: u64) -> Option<u64> {
        if self.largest() < size {
            return None;
        }
        let align = size & size.wrapping_neg();
        let slot = align.trailing_zeros() as usize;
        let free_pct = self.free_bytes() * 100 / self.size;
        let mut found = None;
        if self.largest() >= DF_ALLOC_THRESHOLD_BYTES && free_pct >= DF_FREE_PCT {
            let cursor = self.cursors[slot];
            let mut first = None;
            for (&s, &e) in
                self.by_start.range(..=cursor).next_back().into_iter().chain(self.by_start.range(cursor + 1..))
            {
                if e <= cursor {
                    continue;
                }
                let s = s.max(cursor);
                let first_start = *first.get_or_insert(s);
                if s - first_start > DF_MAX_SEARCH_BYTES {
                    break;
                }
                if s + size <= e {
                    found = Some(s);
                    break;
                }
            }
        }
        let offset = if let Some(o) = found {
            o
        } else {
            let &(_, start) = self.by_size.range((size, 0)..).next()?;
            start
        };
        self.take(offset, size);
        self.cursors[slot] = offset + size;
        self.allocated += size;
        Some(offset)
    }

    /// Removes `offset..offset + size` from the free segment holding it.
    fn take(&mut self, offset: u64, size: u64) {
        let (&s, &e) = self.by_start.range(..=offset).next_back().expect("the offset lies in a free segment");
        debug_assert!(offset >= s && offset + size <= e, "allocation {offset}+{size} outside free segment {s}..{e}");
        self.by_start.remove(&s);
        self.by_size.remove(&(e - s, s));
        for (a, b) in [(s, offset), (offset + size, e)] {
            if b > a {
                self.by_start.insert(a, b);
                self.by_size.insert((b - a, a));
            }
        }
    }

    /// Returns `offset..offset + size` to the free space, merging with its neighbours.
    pub(crate) fn free(&mut self, offset: u64, size: u64) {
        let (mut s, mut e) = (offset, offset + size);
        if let Some((&ps, &pe)) = self.by_start.range(..offset).next_back()
            && pe >= s
        {
            debug_assert!(pe == s, "double free at {offset}");
            self.by_start.remove(&ps);
            self.by_size.remove(&(pe - ps, ps));
            s = ps;
        }
        if let Some(&ne) = self.by_start.get(&e) {
            self.by_start.remove(&e);
            self.by_size.remove(&(ne - e, e));
            e = ne;
        }
        self.by_start.insert(s, e);
        self.by_size.insert((e - s, s));
        self.allocated -= size;
    }

    /// `metaslab_set_fragmentation`: 0 to 100, or `None` when nothing was ever allocated.
    pub(crate) fn fragmentation(&self) -> Option<u64> {
        if self.allocated == 0 {
            return None;
        }
        let (mut weighted, mut total) = (0u128, 0u128);
        for &(len, _) in &self.by_size {
            let bucket = len.ilog2().saturating_sub(9) as usize;
            let pct = FRAG_TABLE.get(bucket).copied().unwrap_or(0);
            weighted += u128::from(len) * u128::from(pct);
            total += u128::from(len);
        }
        Some(weighted.checked_div(total).map_or(0, |f| f as u64))
    }

    /// `metaslab_space_weight` for metaslab `id` of `count` on a vdev that rotates or not.
    pub(crate) fn weight(&self, id: usize, count: usize, rotational: bool) -> u64 {
        let mut space = self.free_bytes();
        if let Some(f) = self.fragmentation() {
            space = space * (100 - f.saturating_sub(1)) / 100;
        }
        if rotational {
            let w = u128::from(space);
            (2 * w - w * id as u128 / count as u128) as u64
        } else {
            space
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_vdev_metaslab_set_size() {
        // 16 TB: 200 metaslabs would be 80 GB each, beyond 2^34: 16 GiB metaslabs instead.
        assert_eq!(metaslab_shift(16_000_000_000_000), 34);
        // 256 GiB: 512 slices of 2^29 are too many; 256 GiB / 200 = 1.28 GiB, highbit 31.
        assert_eq!(metaslab_shift(256 << 30), 31);
        // 4 GiB: fewer than 16 slices of 2^29; 4 GiB / 16 = 256 MiB, highbit 29.
        assert_eq!(metaslab_shift(4 << 30), 29);
        // 100 MiB: the floor of 2^24.
        assert_eq!(metaslab_shift(100 << 20), 24);
    }

    #[test]
    fn a_fresh_metaslab_allocates_forward_and_frees_merge() {
        let mut m = Metaslab::new(1 << 30, 1 << 30);
        let a = m.alloc(4096).unwrap();
        let b = m.alloc(4096).unwrap();
        let c = m.alloc(131_072).unwrap();
        assert_eq!((a, b), (1 << 30, (1 << 30) + 4096), "first fit from the cursor");
        assert_eq!(c, (1 << 30) + 8192, "each alignment has its own cursor; blocks need no alignment");
        m.free(b, 4096);
        m.free(a, 4096);
        assert_eq!(m.allocated, 131_072);
        assert_eq!(m.by_start.len(), 2, "the two 4 KiB frees merged into one segment before the 128 KiB block");
        assert_eq!(m.fragmentation(), Some(0), "nearly all free space is one huge segment");
    }

    #[test]
    fn best_fit_when_nearly_full() {
        let mut m = Metaslab::new(0, 1 << 24);
        let blocks: Vec<u64> = (0..4096).map(|_| m.alloc(4096).unwrap()).collect();
        assert!(m.alloc(4096).is_none(), "full");
        m.free(blocks[100], 4096);
        m.free(blocks[2000], 4096);
        m.free(blocks[2001], 4096);
        // 12 KiB free in two holes, below the 128 KiB threshold: best fit picks the 8 KiB hole.
        assert_eq!(m.alloc(8192), Some(blocks[2000]));
        assert_eq!(m.alloc(4096), Some(blocks[100]));
    }

    #[test]
    fn lba_weighting_prefers_outer_metaslabs_of_rotating_vdevs() {
        let ms: Vec<Metaslab> = (0..10).map(|i| Metaslab::new(i << 30, 1 << 30)).collect();
        assert_eq!(ms[0].weight(0, 10, true), 2 << 30);
        assert_eq!(ms[5].weight(5, 10, true), (2 << 30) - (1 << 30) / 2);
        assert_eq!(ms[5].weight(5, 10, false), 1 << 30);
    }
}
