//! fio's steady-state detection (`steadystate.c`, fio 3.33): every interval, the IOPS and
//! bandwidth of the last interval are sampled, for one clone or, under `group_reporting`,
//! summed over its group; once `ss_dur` worth of samples are in, the criterion is judged
//! on the latest window after each sample, and when it holds the clones are stopped.
//!
//! The criteria are fio's to the arithmetic: the largest absolute deviation from the
//! window's mean, or the least-squares slope over sample numbers 0, 1, … (fio assumes the
//! samples evenly spaced); each as a percentage of the mean when the limit is one; the job
//! is steady when the criterion's absolute value is below the limit. Samples start one
//! interval after `ss_ramp`; the sample clock starts with the clone (fio's helper thread
//! ticks from fio's start, within a second of it).

use super::super::{JobSet, SteadyResult, SteadyStateSpec};
use super::{Runner, Timer, clone_ids};
use crate::engine::{SimDuration, SimTime};
use crate::os::CloneId;
use std::collections::VecDeque;

/// Steady-state detection for one clone or one reporting group.
pub(super) struct SteadyTracker {
    /// The clones whose completions are summed.
    pub clones: Vec<CloneId>,
    spec: SteadyStateSpec,
    start: SimTime,
    /// When the next sample is taken.
    pub next_check: SimTime,
    /// Each clone's completed I/Os and bytes at the previous sample.
    previous: Vec<(u64, u64)>,
    /// The latest samples, `(iops, bytes per second)`, oldest first.
    window: VecDeque<(u64, u64)>,
    pub result: SteadyResult,
}

impl SteadyTracker {
    /// Detection for `clones`, which start at `start`.
    pub(super) fn new(spec: SteadyStateSpec, clones: Vec<CloneId>, start: SimTime) -> Self {
        SteadyTracker {
            previous: vec![(0, 0); clones.len()],
            clones,
            spec,
            start,
            next_check: start + SimDuration(spec.interval_ns),
            window: VecDeque::with_capacity(spec.samples()),
            result: SteadyResult {
                spec,
                attained: false,
                criterion: 0.0,
                max_deviation: 0.0,
                slope: 0.0,
                iops: Vec::new(),
                bw: Vec::new(),
            },
        }
    }

    /// Takes the sample due at `now` from each clone's completed `(ios, bytes)` so far;
    /// true when the job is steady. Schedules the next sample.
    pub(super) fn check(&mut self, now: SimTime, totals: &[(u64, u64)]) -> bool {
        let interval_ns = self.spec.interval_ns;
        self.next_check = now + SimDuration(interval_ns);
        let ramp_over = now.since(self.start).as_ns() >= self.spec.ramp_ns + interval_ns;
        // fio: 1000 × Δ / elapsed ms, per clone, in integers.
        let ms = (interval_ns / 1_000_000).max(1);
        let (mut iops, mut bw) = (0, 0);
        for (previous, &(ios, bytes)) in self.previous.iter_mut().zip(totals) {
            iops += 1000 * (ios - previous.0) / ms;
            bw += 1000 * (bytes - previous.1) / ms;
            *previous = (ios, bytes);
        }
        if !ramp_over {
            return false;
        }
        let n = self.spec.samples();
        if self.window.len() == n {
            self.window.pop_front();
        }
        self.window.push_back((iops, bw));
        self.result.iops = self.window.iter().map(|s| s.0).collect();
        self.result.bw = self.window.iter().map(|s| s.1).collect();
        if self.window.len() < n {
            return false;
        }
        let ys: Vec<u64> = self.window.iter().map(|&(i, b)| if self.spec.bandwidth { b } else { i }).collect();
        self.judge(&ys)
    }

    /// fio's `steadystate_slope` / `steadystate_deviation` on a full window.
    // The regression's sums are named as in its formula.
    #[allow(clippy::similar_names)]
    fn judge(&mut self, ys: &[u64]) -> bool {
        let n = ys.len() as u64;
        let sum_y: u64 = ys.iter().sum();
        let mean = sum_y as f64 / n as f64;
        let r = &mut self.result;
        if self.spec.slope {
            let sum_x = n * (n - 1) / 2;
            let sum_x_sq = (n - 1) * n * (2 * n - 1) / 6;
            let sum_xy: u64 = ys.iter().enumerate().map(|(x, &y)| x as u64 * y).sum();
            r.slope = (sum_xy as f64 - sum_x as f64 * sum_y as f64 / n as f64)
                / (sum_x_sq as f64 - sum_x as f64 * sum_x as f64 / n as f64);
            r.criterion = if self.spec.percent { 100.0 * r.slope / mean } else { r.slope };
        } else {
            r.max_deviation = ys.iter().map(|&y| (y as f64 - mean).abs()).fold(0.0, f64::max);
            r.criterion = if self.spec.percent { 100.0 * r.max_deviation / mean } else { r.max_deviation };
        }
        // A NaN criterion (a window of zeros judged in percent) is never below the limit.
        r.attained = r.criterion.abs() < self.spec.limit;
        r.attained
    }
}

impl Runner {
    /// Starts steady-state detection for the clones from `first_clone` on whose jobs ask
    /// for it: one tracker per reporting group under `group_reporting`, else per clone.
    pub(super) fn track_steady_state(&mut self, set: &JobSet, first_clone: usize) {
        // (reporting group under group_reporting, clones)
        let mut by_group: Vec<(Option<usize>, Vec<CloneId>)> = Vec::new();
        for i in clone_ids(first_clone..self.clones.len()) {
            let spec = &set.jobs[self.clones[i].result.job];
            if spec.steadystate.dur_ns == 0 {
                continue;
            }
            let group = spec.group_reporting.then_some(self.clones[i].group);
            match by_group.iter_mut().find(|(g, _)| group.is_some() && *g == group) {
                Some((_, clones)) => clones.push(i),
                None => by_group.push((group, vec![i])),
            }
        }
        for (_, clones) in by_group {
            let first = &self.clones[clones[0]];
            let spec = set.jobs[first.result.job].steadystate;
            let tracker = SteadyTracker::new(spec, clones, first.start);
            let last = *tracker.clones.last().expect("a tracker has clones");
            self.clones[last].result.steadystate = Some(tracker.result.clone());
            self.timers.push(tracker.next_check, Timer::Steady(self.steady.len() as u32));
            self.steady.push(tracker);
        }
    }

    /// Takes tracker `n`'s sample; stops its clones when they are steady (fio's
    /// `fio_mark_td_terminate`: the measured time ends now).
    pub(super) fn sample_steady_state(&mut self, n: usize, now: SimTime) {
        let t = &mut self.steady[n];
        if t.clones.iter().all(|&i| self.clones[i].finished) {
            return;
        }
        let totals: Vec<(u64, u64)> =
            t.clones.iter().map(|&i| (self.clones[i].done_ios, self.clones[i].done_bytes)).collect();
        let steady = t.check(now, &totals);
        let last = *t.clones.last().expect("a tracker has clones");
        self.clones[last].result.steadystate = Some(t.result.clone());
        if !steady {
            self.timers.push(t.next_check, Timer::Steady(n as u32));
            return;
        }
        for i in t.clones.clone() {
            let c = &mut self.clones[i];
            if !c.finished && now < c.deadline {
                c.deadline = now;
                self.timers.push(now, Timer::Deadline(i));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(slope: bool, limit: f64, dur_s: u64) -> SteadyStateSpec {
        SteadyStateSpec { slope, limit, dur_ns: dur_s * 1_000_000_000, ..SteadyStateSpec::default() }
    }

    /// Feeds per-second IOPS to a tracker of one clone; the second it is steady at.
    fn steady_at(spec: SteadyStateSpec, iops: &[u64]) -> Option<usize> {
        let mut t = SteadyTracker::new(spec, vec![CloneId(0)], SimTime::ZERO);
        let mut total = 0;
        iops.iter().position(|&x| {
            total += x;
            let now = t.next_check;
            t.check(now, &[(total, total * 4096)])
        })
    }

    #[test]
    fn deviation_waits_for_a_full_window_within_the_limit() {
        // 10 % of the mean: the window [100, 90, 100] has mean 96.67 and deviation 6.67.
        assert_eq!(steady_at(spec(false, 10.0, 3), &[50, 100, 90, 100, 100]), Some(3));
        // 5 %: only [100, 100, 100] is steady.
        assert_eq!(steady_at(spec(false, 5.0, 3), &[50, 100, 90, 100, 100, 100]), Some(5));
    }

    #[test]
    fn slope_is_least_squares_over_sample_numbers() {
        let mut t = SteadyTracker::new(spec(true, 1.0, 4), vec![CloneId(0)], SimTime::ZERO);
        // y = 100 + 2x: slope 2, mean 103, criterion 1.94 % (not below 1 %).
        assert!(!t.judge(&[100, 102, 104, 106]));
        assert!((t.result.slope - 2.0).abs() < 1e-12);
        assert!((t.result.criterion - 200.0 / 103.0).abs() < 1e-12);
        assert!(t.judge(&[100, 101, 100, 101]), "slope 0.2, 0.2 % of the mean");
    }

    #[test]
    fn samples_start_one_interval_after_the_ramp() {
        let ramped = SteadyStateSpec { ramp_ns: 2_000_000_000, ..spec(false, 50.0, 2) };
        // Seconds 1 and 2 are ramp, second 3 is the first sample, second 4 fills the window.
        assert_eq!(steady_at(ramped, &[1, 1, 100, 100, 100]), Some(3));
    }
}
