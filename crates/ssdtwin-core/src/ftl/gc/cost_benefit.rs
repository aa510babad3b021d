//! Cost-benefit victim selection (Rosenblum & Ousterhout, "The Design and Implementation of a
//! Log-Structured File System", SOSP 1991; Kawaguchi et al. for flash, USENIX 1995): maximise
//! `(1 - u) * age / (1 + u)`, where `u` is the valid fraction and `age` the time since the
//! superblock was last written. It prefers old, cold superblocks over slightly emptier hot
//! ones, which lowers write amplification under skewed workloads. Age is measured in units
//! written since (a logical clock), so the choice does not depend on timing.

use super::Candidate;

/// Picks the candidate with the highest benefit/cost ratio.
pub(crate) fn pick(candidates: impl Iterator<Item = Candidate>, now_seq: u64) -> Option<u32> {
    let mut best: Option<(f64, u32)> = None;
    for c in candidates {
        let u = f64::from(c.valid) / f64::from(c.capacity.max(1));
        let age = (now_seq.saturating_sub(c.last_write_seq) + 1) as f64;
        let score = (1.0 - u) * age / (1.0 + u);
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, c.sb));
        }
    }
    best.map(|(_, sb)| sb)
}
