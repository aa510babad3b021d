//! Garbage collection: when to collect and which superblock to collect.
//!
//! GC starts when the free pool falls below `bg_threshold_sb` superblocks and runs beside
//! host I/O (its reads, programs and erases queue on the same dies). Below
//! `fg_threshold_sb`, host writes that would need a new superblock wait until GC frees one:
//! that is foreground (blocking) GC. Each victim policy is a file; [`VictimPolicy`] selects.

mod cost_benefit;
mod greedy;

use serde::{Deserialize, Serialize};

/// How the next victim is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VictimPolicy {
    /// Fewest valid units.
    Greedy,
    /// Highest `(1 - u) * age / (1 + u)`.
    CostBenefit,
}

/// GC parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcConfig {
    /// Victim selection.
    pub policy: VictimPolicy,
    /// Start background GC when fewer superblocks than this are free.
    pub bg_threshold_sb: u32,
    /// Hold host writes that need a new superblock when this few or fewer are free.
    pub fg_threshold_sb: u32,
}

/// A superblock GC may collect.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    pub sb: u32,
    pub valid: u32,
    pub capacity: u32,
    pub last_write_seq: u64,
}

impl VictimPolicy {
    pub(crate) fn pick(self, candidates: impl Iterator<Item = Candidate>, now_seq: u64) -> Option<u32> {
        match self {
            VictimPolicy::Greedy => greedy::pick(candidates),
            VictimPolicy::CostBenefit => cost_benefit::pick(candidates, now_seq),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(sb: u32, valid: u32, last_write_seq: u64) -> Candidate {
        Candidate { sb, valid, capacity: 100, last_write_seq }
    }

    #[test]
    fn greedy_takes_the_emptiest() {
        let cs = [c(0, 50, 0), c(1, 20, 0), c(2, 20, 0), c(3, 90, 0)];
        assert_eq!(VictimPolicy::Greedy.pick(cs.into_iter(), 1000), Some(1));
    }

    #[test]
    fn cost_benefit_prefers_old_cold_over_young_slightly_emptier() {
        // sb 0: 40 % valid, written long ago; sb 1: 30 % valid, just written.
        let cs = [c(0, 40, 0), c(1, 30, 990)];
        assert_eq!(VictimPolicy::CostBenefit.pick(cs.into_iter(), 1000), Some(0));
        assert_eq!(VictimPolicy::Greedy.pick(cs.into_iter(), 1000), Some(1));
    }
}
