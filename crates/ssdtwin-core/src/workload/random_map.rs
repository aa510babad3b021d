//! fio's random map (`lib/axmap.c`): the blocks of a region that a pass has visited, so
//! that uniform random I/O touches every block once per pass. A drawn block already
//! visited is replaced by the next free one after it, wrapping at the region's end.
//!
//! The map has two forms with the same answers:
//!
//! * **few visited**: a hash set of the visited blocks (linear probing on 4-byte block
//!   numbers, at most three quarters full, doubled when full);
//! * **many visited**: fio's bitmap, one bit per block.
//!
//! A run starts with the set and moves to the bitmap once the set would grow past a quarter
//! of the bitmap's size: the set's last table is the largest power of two of slots within
//! `blocks / 128`, so the move comes after 0.3–0.6 % of the region's blocks. The reason is the
//! memory the kernel must back: a short run on a large drive visits a small part of it, and
//! a bitmap spreads those visits over all its pages. At 8 TiB the bitmap is 256 MiB, and
//! where the kernel takes huge pages from the hypervisor on first touch (0.45 GB/s on this
//! project's machines) zeroing it takes half a second, as long as the run's reads
//! themselves; the set for the same run's 2.2 million reads is 16 MiB. Either form costs one
//! cache miss per claim, which the runner hides with a prefetch ([`RandomMap::touch`]).
//! Regions too small for the set to pay (below 131,072 blocks), or of 2³² − 1 blocks or
//! more, use the bitmap from the start.
//!
//! A table of 2 MiB or more is made on another thread while the set fills the one before
//! it ([`NextTable`]), so the kernel's zeroing of its memory runs beside the simulation;
//! the claims are the same either way. The set then holds up to three times its table (3/8
//! of the bitmap; 7/16 while it grows), still less than the bitmap.

use crate::engine::{BigArray, prefetch};
use std::thread::JoinHandle;

/// The set's smallest table, slots.
const MIN_SLOTS: u64 = 1 << 10;

/// Blocks per slot of the largest table before the bitmap takes over: a table of
/// `blocks / 128` 4-byte slots is a quarter of the bitmap's `blocks / 8` bytes.
const BLOCKS_PER_SLOT: u64 = 128;

/// An empty slot (never a block number: the set holds regions below 2³² − 1 blocks).
const EMPTY: u32 = u32::MAX;

/// Tables from this size up are made ahead on another thread ([`NextTable`]). The smaller
/// ones, 2 MiB in all, take under 5 ms to make in place even at the slowest first touch:
/// too little to be worth a thread each.
const MADE_AHEAD_BYTES: u64 = 2 << 20;

/// fio's random map over `blocks` blocks.
#[derive(Clone, Debug)]
pub(crate) struct RandomMap {
    visited: Visited,
    blocks: u64,
    /// Blocks visited in this pass.
    used: u64,
}

#[derive(Clone, Debug)]
enum Visited {
    Few(BlockSet),
    Many(BigArray<u64>),
}

impl RandomMap {
    pub(crate) fn new(blocks: u64) -> Self {
        let visited = if blocks >= MIN_SLOTS * BLOCKS_PER_SLOT && blocks < u64::from(EMPTY) {
            Visited::Few(BlockSet::with_slots(MIN_SLOTS, blocks))
        } else {
            Visited::Many(bitmap(blocks))
        };
        RandomMap { visited, blocks, used: 0 }
    }

    /// Marks `block` or the next free block after it (wrapping); starts a new pass when
    /// every block has been visited.
    #[inline]
    pub(crate) fn claim(&mut self, block: u64) -> u64 {
        if let Visited::Few(set) = &mut self.visited
            && set.is_full()
        {
            self.visited = grown(set, self.blocks);
        }
        let found = match &mut self.visited {
            Visited::Few(set) => {
                // At most 0.6 % of the blocks are in the set, so the drawn one is nearly
                // always free.
                let mut b = block;
                while !set.insert(b as u32) {
                    b = if b + 1 == self.blocks { 0 } else { b + 1 };
                }
                b
            }
            Visited::Many(bits) => {
                if self.used == self.blocks {
                    bits.fill(0);
                    self.used = 0;
                }
                claim_bit(bits, self.blocks, block)
            }
        };
        self.used += 1;
        found
    }

    /// Loads the memory claiming `block` will consult, so that it is cached by then.
    #[inline]
    pub(crate) fn touch(&self, block: u64) {
        match &self.visited {
            Visited::Few(set) => prefetch(&set.slots, set.home(block as u32)),
            Visited::Many(bits) => prefetch(bits, (block / 64) as usize),
        }
    }

    /// Bytes the map holds, or will once the table being made ahead is filled.
    #[cfg(test)]
    fn memory_bytes(&self) -> usize {
        match &self.visited {
            Visited::Few(set) => {
                let next = if set.next.is_started() { 2 * set.slots.len() } else { 0 };
                (set.slots.len() + next) * 4
            }
            Visited::Many(bits) => bits.len() * 8,
        }
    }
}

/// The full `set` of a region of `blocks` doubled, or the bitmap once the set would outgrow
/// a quarter of it.
#[cold]
fn grown(set: &mut BlockSet, blocks: u64) -> Visited {
    let slots = set.slots.len() as u64 * 2;
    if doubles_into(slots, blocks) {
        let table = set.next.take().unwrap_or_else(|| empty_table(slots));
        debug_assert!(table.len() as u64 == slots && table.iter().all(|&b| b == EMPTY), "a fresh table");
        let mut larger = BlockSet::in_table(table, blocks);
        for b in set.blocks() {
            larger.insert(b);
        }
        Visited::Few(larger)
    } else {
        debug_assert!(!set.next.is_started(), "no table is made ahead for the move to the bitmap");
        let mut bits = bitmap(blocks);
        for b in set.blocks() {
            bits[(b / 64) as usize] |= 1 << (b % 64);
        }
        Visited::Many(bits)
    }
}

/// Whether a full set of a region of `blocks` blocks doubles into a table of `slots` slots
/// (otherwise it moves to the bitmap).
fn doubles_into(slots: u64, blocks: u64) -> bool {
    slots <= blocks / BLOCKS_PER_SLOT
}

/// `slots` empty slots.
fn empty_table(slots: u64) -> BigArray<u32> {
    BigArray::filled(slots as usize, EMPTY)
}

/// One bit per block, all clear.
fn bitmap(blocks: u64) -> BigArray<u64> {
    BigArray::filled(blocks.div_ceil(64) as usize, 0)
}

/// Sets the bit of `block` or of the next clear one after it (wrapping); one must be clear.
#[inline]
fn claim_bit(bits: &mut [u64], blocks: u64, block: u64) -> u64 {
    let mut b = block;
    loop {
        let (w, bit) = ((b / 64) as usize, b % 64);
        let free = !bits[w] & (!0u64 << bit);
        if free != 0 {
            let found = (w as u64) * 64 + u64::from(free.trailing_zeros());
            if found < blocks {
                bits[(found / 64) as usize] |= 1 << (found % 64);
                return found;
            }
        }
        // Nothing free from here to the end of this word: next word, wrapping.
        b = (w as u64 + 1) * 64;
        if b >= blocks {
            b = 0;
        }
    }
}

/// A set of block numbers: open addressing with linear probing, so that a probe past the
/// home slot stays in its cache line. The table is a [`BigArray`] for its huge pages:
/// with 4 KiB pages the reads of an 8 TiB drive ran at 2.9–3.0 M/s instead of 3.4–3.7 M/s,
/// the TLB missing on nearly every claim.
#[derive(Clone, Debug)]
struct BlockSet {
    /// A power of two of slots, [`EMPTY`] or a block.
    slots: BigArray<u32>,
    len: u64,
    /// 64 − log2(slots): Fibonacci hashing keeps the product's top bits.
    shift: u32,
    /// The doubled table, where it is made ahead.
    next: NextTable,
}

impl BlockSet {
    /// An empty set of `slots` slots for a region of `blocks` blocks.
    fn with_slots(slots: u64, blocks: u64) -> Self {
        Self::in_table(empty_table(slots), blocks)
    }

    /// An empty set in `slots`, all empty; starts making the doubled table if the set will
    /// double into it and it is large.
    fn in_table(slots: BigArray<u32>, blocks: u64) -> Self {
        let n = slots.len() as u64;
        debug_assert!(n.is_power_of_two());
        let doubled = 2 * n;
        let next = if doubles_into(doubled, blocks) && doubled * 4 >= MADE_AHEAD_BYTES {
            NextTable::start(doubled)
        } else {
            NextTable::default()
        };
        BlockSet { slots, len: 0, shift: 64 - n.trailing_zeros(), next }
    }

    /// The blocks in the set, in slot order.
    fn blocks(&self) -> impl Iterator<Item = u32> + '_ {
        self.slots.iter().copied().filter(|&b| b != EMPTY)
    }

    /// Three quarters full: linear probing slows sharply beyond that.
    fn is_full(&self) -> bool {
        self.len * 4 >= self.slots.len() as u64 * 3
    }

    #[inline]
    fn home(&self, block: u32) -> usize {
        (u64::from(block).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Adds `block`; false if it was there already.
    #[inline]
    fn insert(&mut self, block: u32) -> bool {
        let mut i = self.home(block);
        let slots = &mut *self.slots;
        let mask = slots.len() - 1;
        loop {
            match slots[i] {
                EMPTY => {
                    slots[i] = block;
                    self.len += 1;
                    return true;
                }
                b if b == block => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }
}

/// A set's doubled table, made on another thread while the set fills: its memory's first
/// touch (the kernel zeroing pages the hypervisor must back, 0.45 GB/s on this project's
/// machines) then overlaps the simulation instead of stalling it when the set grows. A copy
/// of the set starts without one and makes its next table in place. A set dropped before
/// it grows leaves the thread to finish its table and free it (at most 64 MiB, for 8 TiB of
/// 4 KiB blocks).
#[derive(Debug, Default)]
struct NextTable(Option<JoinHandle<BigArray<u32>>>);

impl NextTable {
    /// Starts making a table of `slots` empty slots; none if no thread can be started.
    fn start(slots: u64) -> Self {
        let thread =
            std::thread::Builder::new().name("ssdtwin-random-map".into()).spawn(move || empty_table(slots)).ok();
        NextTable(thread)
    }

    /// The table, once made (waiting for it if need be); none if it was never started or
    /// its thread failed.
    fn take(&mut self) -> Option<BigArray<u32>> {
        self.0.take()?.join().ok()
    }

    /// Whether a table is being made (or made and not yet taken).
    fn is_started(&self) -> bool {
        self.0.is_some()
    }
}

impl Clone for NextTable {
    fn clone(&self) -> Self {
        NextTable(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimRng;

    /// fio's rule spelt out plainly: the first unvisited block at or after the drawn one,
    /// wrapping; all clear again once every block is visited.
    struct Reference {
        visited: Vec<bool>,
        used: usize,
    }

    impl Reference {
        fn claim(&mut self, block: u64) -> u64 {
            if self.used == self.visited.len() {
                self.visited.fill(false);
                self.used = 0;
            }
            let n = self.visited.len();
            let found = (0..n).map(|k| (block as usize + k) % n).find(|&b| !self.visited[b]).expect("one is free");
            self.visited[found] = true;
            self.used += 1;
            found as u64
        }
    }

    #[test]
    fn visits_every_block_once_per_pass() {
        let mut m = RandomMap::new(100);
        let mut rng = SimRng::stream(1, 1);
        let mut seen: Vec<u64> = (0..100).map(|_| m.claim(rng.below(100))).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
        // The next claim starts a new pass.
        assert!(m.claim(5) < 100);
        assert_eq!(m.used, 1);
    }

    /// Through the set, its doublings, the move to the bitmap and into a second pass, every
    /// claim lands where fio's rule puts it, including repeated and wrapping draws.
    #[test]
    fn both_forms_claim_what_fios_rule_claims() {
        let blocks = (1 << 18) + 13;
        let mut m = RandomMap::new(blocks);
        assert!(matches!(m.visited, Visited::Few(_)));
        let mut reference = Reference { visited: vec![false; blocks as usize], used: 0 };
        let mut rng = SimRng::stream(7, 1);
        let mut sparse_claims = 0;
        for k in 0..blocks + 5000 {
            let drawn = match k % 5 {
                // Early in the pass, draws on the last blocks wrap to the start, and a block
                // drawn again moves to the next free one.
                0 if k < 10_000 => blocks - 1 - rng.below(3),
                1 if k < 10_000 => 17,
                _ => rng.below(blocks),
            };
            assert_eq!(m.claim(drawn), reference.claim(drawn), "claim {k} of block {drawn}");
            if matches!(m.visited, Visited::Few(_)) {
                sparse_claims += 1;
                assert!(sparse_claims <= 2048, "the set never gave way to the bitmap");
            }
        }
        // The set doubled to blocks / 128 = 2048 slots and held three quarters of that (0.6 %
        // of the blocks) before the bitmap took over.
        assert_eq!(sparse_claims, 2048 * 3 / 4);
        assert_eq!(m.used, 5000);
    }

    /// The last block's neighbours: a block drawn twice moves on to the last one, and the
    /// last one drawn again wraps to the first.
    #[test]
    fn a_visited_draw_moves_on_and_wraps_at_the_end() {
        let blocks = 1 << 18;
        let mut m = RandomMap::new(blocks);
        assert!(matches!(m.visited, Visited::Few(_)));
        assert_eq!(
            [blocks - 2, blocks - 2, blocks - 1, blocks - 1].map(|b| m.claim(b)),
            [blocks - 2, blocks - 1, 0, 1]
        );
    }

    /// The set is used from 131,072 blocks (2^10 slots at 128 blocks each) up to 2^32 − 2
    /// blocks, whose numbers stay below its 4-byte slots' empty mark; the bitmap elsewhere.
    #[test]
    fn the_set_is_used_only_where_it_pays_and_its_slots_hold_the_blocks() {
        let few = |blocks: u64| matches!(RandomMap::new(blocks).visited, Visited::Few(_));
        assert_eq!([131_071, 131_072, (1 << 32) - 2, (1 << 32) - 1].map(few), [false, true, true, false]);
        let mut m = RandomMap::new((1 << 32) - 2);
        assert_eq!([(1 << 32) - 3, (1 << 32) - 3].map(|b| m.claim(b)), [(1 << 32) - 3, 0]);
    }

    /// Tables made ahead on another thread (2 MiB and up) take the same claims as tables
    /// made in place, through to the move to the bitmap.
    #[test]
    fn tables_made_ahead_claim_what_fios_rule_claims() {
        let blocks = (1 << 27) + 5; // the set's last table: 2^20 slots, 4 MiB
        let mut m = RandomMap::new(blocks);
        let mut visited = std::collections::HashSet::new();
        let mut rng = SimRng::stream(11, 1);
        let mut largest_made_ahead = 0;
        for k in 0..800_000u64 {
            // A few repeated draws early on, then uniform ones.
            let drawn = if k < 1000 && k % 7 == 0 { 17 + k % 3 } else { rng.below(blocks) };
            let mut expected = drawn;
            while !visited.insert(expected) {
                expected = (expected + 1) % blocks;
            }
            assert_eq!(m.claim(drawn), expected, "claim {k} of block {drawn}");
            if let Visited::Few(set) = &m.visited
                && set.next.is_started()
            {
                largest_made_ahead = largest_made_ahead.max(set.slots.len() * 2);
            }
        }
        // The 2^19- and 2^20-slot tables were made ahead; the set then gave way to the
        // bitmap after three quarters of 2^20 claims.
        assert_eq!(largest_made_ahead, 1 << 20);
        assert!(matches!(m.visited, Visited::Many(_)));
        assert_eq!(m.used, 800_000);
    }

    /// A copy of a map whose next table is being made grows without it, and claims what the
    /// original claims.
    #[test]
    fn a_copy_made_while_a_table_is_made_ahead_claims_the_same() {
        let blocks = 1 << 27;
        let mut m = RandomMap::new(blocks);
        let mut rng = SimRng::stream(5, 1);
        while !matches!(&m.visited, Visited::Few(set) if set.next.is_started()) {
            m.claim(rng.below(blocks));
        }
        let mut copy = m.clone();
        assert!(matches!(&copy.visited, Visited::Few(set) if !set.next.is_started()));
        // Through two doublings of both and their move to the bitmap, with draws on visited
        // blocks among them.
        for k in 0..700_000u64 {
            let drawn = if k % 1000 == 0 { 17 } else { rng.below(blocks) };
            assert_eq!(copy.claim(drawn), m.claim(drawn), "claim {k} of block {drawn}");
        }
        assert!(matches!((&copy.visited, &m.visited), (Visited::Many(_), Visited::Many(_))));
    }

    /// A short run on a large region holds a small fraction of the bitmap's memory.
    #[test]
    fn a_few_visits_of_a_large_region_take_little_memory() {
        let blocks = 1u64 << 31; // 8 TiB of 4 KiB blocks
        let mut m = RandomMap::new(blocks);
        let mut rng = SimRng::stream(3, 1);
        for _ in 0..100_000 {
            m.claim(rng.below(blocks));
        }
        // 100,000 blocks in a table at most three quarters full: 2^18 slots of 4 bytes,
        // and the next one of 2^19 made ahead, where the bitmap would be 256 MiB.
        assert_eq!(m.memory_bytes(), 3 << 20);
    }
}
