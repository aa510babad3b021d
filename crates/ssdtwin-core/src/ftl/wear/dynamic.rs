//! Dynamic wear levelling: a stream opens the least-worn free superblock, so the blocks
//! that cycle (those holding hot data, and the free ones) wear evenly. Ties go to the one
//! free longest, so an unworn drive behaves as first in, first out. Blocks holding cold
//! data are never picked while they hold it; static wear levelling (`cold_data.rs`) moves it.

use std::collections::VecDeque;

/// Index in `free` of the superblock with the least wear (the first of equals).
pub(super) fn pick(free: &VecDeque<u32>, wear: impl Fn(u32) -> u64) -> usize {
    free.iter().enumerate().min_by_key(|&(k, &sb)| (wear(sb), k)).map_or(0, |(k, _)| k)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_least_worn_opens_first_and_equals_keep_their_order() {
        let free = [5u32, 2, 9, 4].into_iter().collect();
        // Superblocks 9 and 4 are the least worn; 9 was freed first.
        let wear = |sb: u32| [0, 0, 7, 0, 3, 9, 0, 0, 0, 3][sb as usize];
        assert_eq!(super::pick(&free, wear), 2);
        let even = |_| 1;
        assert_eq!(super::pick(&free, even), 0);
    }
}
