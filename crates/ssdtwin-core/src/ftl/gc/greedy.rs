//! Greedy victim selection: the full superblock with the fewest valid units, which frees the
//! most space per unit moved. Ties go to the lowest index, so runs are deterministic.

use super::Candidate;

/// Picks the candidate with the fewest valid units.
pub(crate) fn pick(candidates: impl Iterator<Item = Candidate>) -> Option<u32> {
    candidates.min_by_key(|c| (c.valid, c.sb)).map(|c| c.sb)
}
