//! Static wear levelling: dynamic levelling for new data, plus the migration of cold data.
//!
//! Data that is never rewritten pins its superblock: the block is not erased, so it stops
//! wearing while the rest of the drive cycles. When the most-worn superblock has `spread`
//! more native-equivalent P/E cycles than the least-worn one holding data, that cold data is
//! moved (a relocation job like GC's, whatever its valid count) so the young block rejoins
//! the free pool, and relocated data is written to the most-worn free superblock, where
//! cold data belongs (Chang, SAC 2007: the "dual pool" scheme).

use std::collections::VecDeque;

/// Index in `free` of the superblock a stream opens: the least worn for new data, the most
/// worn for relocated (`cold`) data; the first of equals either way.
pub(super) fn pick(free: &VecDeque<u32>, wear: impl Fn(u32) -> u64, cold: bool) -> usize {
    if !cold {
        return super::dynamic::pick(free, wear);
    }
    free.iter().enumerate().min_by_key(|&(k, &sb)| (u64::MAX - wear(sb), k)).map_or(0, |(k, _)| k)
}

/// The superblock whose data should move: the least-worn of `candidates` (superblocks
/// holding data, with their wear), if the most-worn superblock of the drive (`max_wear`)
/// has at least `threshold` more wear; ties to the lowest index.
pub(crate) fn pick_cold_victim(
    candidates: impl Iterator<Item = (u32, u64)>,
    max_wear: u64,
    threshold: u64,
) -> Option<u32> {
    let (sb, wear) = candidates.min_by_key(|&(sb, w)| (w, sb))?;
    (max_wear.saturating_sub(wear) >= threshold).then_some(sb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_data_goes_to_the_most_worn_free_block() {
        let free = [5u32, 2, 9].into_iter().collect();
        let wear = |sb: u32| u64::from(sb);
        assert_eq!(pick(&free, wear, true), 2);
        assert_eq!(pick(&free, wear, false), 1);
    }

    #[test]
    fn data_moves_only_past_the_spread() {
        let held = [(3u32, 10u64), (1, 40), (7, 10)];
        assert_eq!(pick_cold_victim(held.into_iter(), 109, 100), None);
        assert_eq!(pick_cold_victim(held.into_iter(), 110, 100), Some(3));
    }
}
