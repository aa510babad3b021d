//! fio's per-command priorities (`engines/cmdprio.c`): with `cmdprio_percentage` a share of
//! a direction's commands gets the `cmdprio_class`/`cmdprio` priority; with
//! `cmdprio_bssplit` each block size has its own shares and priorities. Every other
//! command has the job's own priority (`prioclass`/`prio`, else 0). The draw is fio's: a
//! number 0-99 per command from its own stream, compared with the shares in order.
//!
//! The priorities go into the statistics (per-priority completion latencies, fio's
//! `clat_prio`) and the logs. They change no timing: Linux's NVMe driver passes no
//! priority to the drive and the `none` scheduler NVMe queues use dispatches in order.

use super::super::{Direction, IoPriority, JobSpec, PrioLatency};
use crate::engine::SimRng;

/// How one direction's commands get priorities.
#[derive(Clone, Debug)]
enum Rule {
    /// A share of all commands, percent, gets the priority at this index.
    Share { percent: u32, index: u8 },
    /// Per block size: the shares (percent) and priority indices.
    BySize(Vec<(u64, Vec<(u32, u8)>)>),
}

/// A clone's priority draws.
#[derive(Clone, Debug)]
pub(super) struct PrioritySelector {
    rng: SimRng,
    /// Per direction (read, write): fio's `clat_prio` list, the job's own priority first.
    priorities: [Vec<IoPriority>; 2],
    rules: [Option<Rule>; 2],
}

impl PrioritySelector {
    /// The draws `spec` asks for, if any of its directions splits priorities.
    pub(super) fn new(spec: &JobSpec, seed: u64, label: u64) -> Option<Self> {
        let p = &spec.priority;
        let own = p.job_priority();
        let mut priorities: [Vec<IoPriority>; 2] = [vec![own], vec![own]];
        let mut rules: [Option<Rule>; 2] = [None, None];
        for (d, dir) in [Direction::Read, Direction::Write].into_iter().enumerate() {
            if !spec.rw.uses(dir) || !p.splits(d) {
                continue;
            }
            let list = &mut priorities[d];
            let mut index_of = |prio: IoPriority| -> u8 {
                let k = list.iter().position(|&q| q == prio).unwrap_or_else(|| {
                    list.push(prio);
                    list.len() - 1
                });
                k as u8
            };
            rules[d] = Some(if p.percentage[d] > 0 {
                Rule::Share { percent: p.percentage[d], index: index_of(p.cmd_priority(d)) }
            } else {
                let mut sizes: Vec<(u64, Vec<(u32, u8)>)> = Vec::new();
                for split in &p.bssplit[d] {
                    let index = index_of(split.priority.unwrap_or_else(|| p.cmd_priority(d)));
                    match sizes.last_mut() {
                        Some((bytes, shares)) if *bytes == split.bytes => shares.push((split.percent, index)),
                        _ => sizes.push((split.bytes, vec![(split.percent, index)])),
                    }
                }
                Rule::BySize(sizes)
            });
        }
        rules.iter().any(Option::is_some).then(|| PrioritySelector {
            rng: SimRng::stream(seed, label ^ 0x7072_696f),
            priorities,
            rules,
        })
    }

    /// The priority index of the next command in `dir` of `bytes` (0: the job's own).
    pub(super) fn pick(&mut self, dir: Direction, bytes: u64) -> u8 {
        let Some(rule) = self.rules.get(dir.index()).and_then(Option::as_ref) else { return 0 };
        let (total, shares): (u32, &[(u32, u8)]) = match rule {
            Rule::Share { percent, index } => {
                let draw = self.rng.below(100) as u32;
                return if draw < *percent { *index } else { 0 };
            }
            Rule::BySize(sizes) => match sizes.iter().find(|(b, _)| *b == bytes) {
                Some((_, shares)) => (shares.iter().map(|s| s.0).sum(), shares),
                None => return 0,
            },
        };
        let draw = self.rng.below(100) as u32;
        if draw >= total {
            return 0;
        }
        let mut cumulative = 0;
        for &(percent, index) in shares {
            cumulative += percent;
            if draw < cumulative {
                return index;
            }
        }
        0
    }

    /// The priority at `index` of `dir`.
    pub(super) fn priority(&self, dir: Direction, index: u8) -> IoPriority {
        self.priorities.get(dir.index()).map_or_else(IoPriority::default, |l| l[usize::from(index)])
    }

    /// Empty per-priority statistics for each direction that splits priorities.
    pub(super) fn empty_stats(&self) -> [Vec<PrioLatency>; 3] {
        std::array::from_fn(|d| match self.rules.get(d) {
            Some(Some(_)) => self.priorities[d].iter().map(|&p| PrioLatency::new(p)).collect(),
            _ => Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{PrioritySplit, RwPattern};

    fn draws(spec: &JobSpec, dir: Direction, bytes: u64, n: usize) -> Vec<usize> {
        let mut s = PrioritySelector::new(spec, 1, 1).unwrap();
        let mut counts = vec![0; 4];
        for _ in 0..n {
            counts[usize::from(s.pick(dir, bytes))] += 1;
        }
        counts
    }

    #[test]
    fn a_percentage_gives_that_share_the_cmdprio_priority() {
        let mut spec = JobSpec::new("j");
        spec.rw = RwPattern::RandRead;
        spec.priority.class = Some(3);
        spec.priority.percentage = [20, 20];
        spec.priority.cmd_class = [1, 1];
        let s = PrioritySelector::new(&spec, 1, 1).unwrap();
        assert_eq!(s.priority(Direction::Read, 0), IoPriority { class: 3, level: 0 });
        assert_eq!(s.priority(Direction::Read, 1), IoPriority { class: 1, level: 0 });
        let counts = draws(&spec, Direction::Read, 4096, 100_000);
        // Binomial: 20,000 ± 4σ (σ = 126).
        assert!(counts[1].abs_diff(20_000) < 510, "{counts:?}");
    }

    #[test]
    fn bssplit_shares_apply_to_their_size_only() {
        let mut spec = JobSpec::new("j");
        spec.rw = RwPattern::RandRead;
        let at = |class, level| Some(IoPriority { class, level });
        spec.priority.bssplit[0] = vec![
            PrioritySplit { bytes: 65536, percent: 25, priority: at(1, 1) },
            PrioritySplit { bytes: 65536, percent: 75, priority: at(3, 2) },
        ];
        let counts = draws(&spec, Direction::Read, 65536, 100_000);
        assert_eq!(counts[0], 0);
        assert!(counts[1].abs_diff(25_000) < 550 && counts[2].abs_diff(75_000) < 550, "{counts:?}");
        assert_eq!(draws(&spec, Direction::Read, 1 << 20, 1000)[0], 1000);
    }

    #[test]
    fn a_job_without_splits_has_no_selector() {
        let mut spec = JobSpec::new("j");
        spec.priority.class = Some(2);
        assert!(PrioritySelector::new(&spec, 1, 1).is_none());
    }
}
