//! fio's latency limits: `max_latency` fails a job on one slow I/O; `latency_target`
//! searches for the deepest queue whose I/Os meet the target (`io_u.c` `lat_target_init`,
//! `lat_target_check`, `lat_target_success`, `__lat_target_failed`, `queue_full`).
//!
//! The search starts at depth 1 and, every `latency_window`, judges the I/Os completed in
//! the window: if at least `latency_percentile` % met the target it doubles the depth (or,
//! once a depth has failed, bisects towards it), else it bisects down. A depth that passes
//! twice in a row is the answer: statistics restart there and, unless `latency_run` keeps
//! the search going, the job ends when that final window passes too. With a percentile of
//! 100 a single late I/O fails the window at once, and a late I/O at depth 1 ends the job
//! with ETIMEDOUT.

use crate::engine::{SimDuration, SimTime};
use crate::workload::{JobFailure, JobSpec, LatencyTarget};

/// `ETIMEDOUT`, the error fio records.
const ETIMEDOUT: u32 = 110;

/// What the clone must do after a latency observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Go on.
    Continue,
    /// The depth changed: let what is in flight complete first (`io_u_quiesce`).
    Quiesce,
    /// The depth is found: quiesce, then measure afresh from now (`reset_all_stats`).
    FinalRun,
    /// The final window passed: the job is done.
    Done,
}

/// The search of one clone.
#[derive(Clone, Debug)]
struct Search {
    target: LatencyTarget,
    iodepth: u32,
    /// fio's `latency_qd`, `latency_qd_high`, `latency_qd_low`, `latency_stable_count`.
    qd: u32,
    high: u32,
    low: u32,
    stable: u32,
    /// The window: when it started, I/Os completed by then, late ones since.
    window_start: SimTime,
    window_ios: u64,
    failed: u64,
    /// The final window at the found depth is running.
    end_run: bool,
}

/// A clone's latency limits.
#[derive(Clone, Debug)]
pub(super) struct LatencyControl {
    /// `max_latency` per direction, ns (0: none).
    max_ns: [u64; 3],
    search: Option<Search>,
}

impl LatencyControl {
    /// The limits `spec` sets, if any; `now` is when the clone starts.
    pub(super) fn new(spec: &JobSpec, now: SimTime) -> Option<Self> {
        let search = spec.latency_target.filter(|t| t.target_ns > 0).map(|target| Search {
            target,
            iodepth: spec.iodepth,
            qd: 1,
            high: spec.iodepth,
            low: 1,
            stable: 0,
            window_start: now,
            window_ios: 0,
            failed: 0,
            end_run: false,
        });
        let max_ns = spec.max_latency_ns.map(|m| m.unwrap_or(0));
        (search.is_some() || max_ns.iter().any(|&m| m > 0)).then_some(LatencyControl { max_ns, search })
    }

    /// The depth the search allows now (`u32::MAX` without a search).
    pub(super) fn depth(&self) -> u32 {
        self.search.as_ref().map_or(u32::MAX, |s| s.qd)
    }

    /// The depth to report as `latency_depth`, if there is a search.
    pub(super) fn reported_depth(&self) -> Option<u32> {
        self.search.as_ref().map(|s| s.qd)
    }

    /// A measured I/O in direction `d` took `total_ns` from its start to its completion at
    /// `now`, when the clone had completed `done_ios`: the failure that ends the job, or
    /// what the search does.
    pub(super) fn on_completion(
        &mut self,
        d: usize,
        total_ns: u64,
        now: SimTime,
        done_ios: u64,
        name: &str,
    ) -> Result<Verdict, JobFailure> {
        let max = self.max_ns[d];
        if max > 0 && total_ns > max {
            return Err(late(name, total_ns, max));
        }
        let Some(s) = self.search.as_mut() else { return Ok(Verdict::Continue) };
        if total_ns > s.target.target_ns {
            if s.target.percentile < 100.0 {
                s.failed += 1;
            } else if s.qd == 1 {
                return Err(late(name, total_ns, s.target.target_ns));
            } else {
                s.failed_window(now, done_ios);
                return Ok(Verdict::Quiesce);
            }
        }
        Ok(s.check(now, done_ios))
    }
}

impl Search {
    /// `lat_target_check`: once a window has passed, judge it.
    fn check(&mut self, now: SimTime, done_ios: u64) -> Verdict {
        if now.since(self.window_start) < SimDuration(self.target.window_ns) {
            return Verdict::Continue;
        }
        let ios = done_ios - self.window_ios;
        let met = if ios == 0 { 100.0 } else { (ios - self.failed.min(ios)) as f64 * 100.0 / ios as f64 };
        if met >= self.target.percentile {
            self.succeeded(now, done_ios)
        } else {
            self.failed_window(now, done_ios);
            Verdict::Quiesce
        }
    }

    /// `__lat_target_failed` (the depth-1 case is handled by the caller).
    fn failed_window(&mut self, now: SimTime, done_ios: u64) {
        if self.qd == 1 {
            // fio stays at depth 1, and keeps the window (it starts no new one), when a
            // window at depth 1 misses a percentile below 100.
            return;
        }
        self.high = self.qd;
        if self.qd == self.low {
            self.low -= 1;
        }
        self.qd = u32::midpoint(self.qd, self.low);
        self.stable = 0;
        self.new_window(now, done_ios);
    }

    /// `lat_target_success`.
    fn succeeded(&mut self, now: SimTime, done_ios: u64) -> Verdict {
        let before = self.qd;
        self.low = self.qd;
        if self.qd + 1 == self.high {
            // One below a failing depth: creep the ceiling up after three passes in a row.
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.qd = if self.high == self.iodepth { self.qd * 2 } else { u32::midpoint(self.qd, self.high) };
        self.qd = self.qd.min(self.iodepth);
        // Going deeper needs no quiesce; the same depth again is the answer.
        let mut verdict = Verdict::Continue;
        if !self.target.keep_adjusting && self.qd == before {
            verdict = if self.end_run { Verdict::Done } else { Verdict::FinalRun };
            self.end_run = true;
        }
        self.new_window(now, done_ios);
        verdict
    }

    fn new_window(&mut self, now: SimTime, done_ios: u64) {
        self.window_start = now;
        self.window_ios = done_ios;
        self.failed = 0;
    }
}

/// fio's `lat_fatal`: ETIMEDOUT from "max latency exceeded".
fn late(name: &str, total_ns: u64, max_ns: u64) -> JobFailure {
    JobFailure {
        errno: ETIMEDOUT,
        func: "max latency exceeded",
        message: format!("{name}: latency of {total_ns} nsec exceeds specified max ({max_ns} nsec)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(iodepth: u32, percentile: f64) -> LatencyControl {
        let mut spec = JobSpec::new("j");
        spec.iodepth = iodepth;
        spec.latency_target =
            Some(LatencyTarget { target_ns: 1_000, window_ns: 1_000_000, percentile, keep_adjusting: false });
        LatencyControl::new(&spec, SimTime::ZERO).unwrap()
    }

    fn ms(n: u64) -> SimTime {
        SimTime(n * 1_000_000)
    }

    /// Drives the search with windows in which I/Os are late exactly when the depth is
    /// above `fits`; returns the depths tried, window by window, and the final verdict.
    fn search(iodepth: u32, fits: u32) -> (Vec<u32>, Verdict) {
        let mut c = control(iodepth, 99.0);
        let mut depths = vec![c.depth()];
        let mut done = 0;
        for window in 1..100 {
            // 100 I/Os per window, half of them late when the depth does not fit.
            for k in 0..100u64 {
                done += 1;
                let late = c.depth() > fits && k % 2 == 0;
                let at = if k == 99 { ms(window) } else { ms(window - 1) + SimDuration(k * 1000) };
                let verdict = c.on_completion(0, if late { 5_000 } else { 500 }, at, done, "j").unwrap();
                if verdict == Verdict::Done {
                    return (depths, verdict);
                }
            }
            depths.push(c.depth());
        }
        (depths, Verdict::Continue)
    }

    #[test]
    fn the_search_doubles_then_bisects_to_the_deepest_fitting_depth() {
        let (depths, verdict) = search(128, 24);
        assert_eq!(verdict, Verdict::Done);
        // 1, 2, 4, 8, 16, 32 (fails), back to (32+16)/2 = 24, which passes: up to (24+32)/2 =
        // 28 fails, down to 26, 25, then 24 passes three times against a ceiling of 25.
        assert_eq!(&depths[..8], &[1, 2, 4, 8, 16, 32, 24, 28]);
        assert_eq!(*depths.last().unwrap(), 24);
    }

    #[test]
    fn a_depth_that_always_fits_ends_at_iodepth() {
        let (depths, verdict) = search(16, 1000);
        assert_eq!(verdict, Verdict::Done);
        assert_eq!(depths, vec![1, 2, 4, 8, 16, 16]);
    }

    #[test]
    fn at_percentile_100_one_late_io_at_depth_1_is_fatal() {
        let mut c = control(8, 100.0);
        let e = c.on_completion(0, 2_000, ms(0), 1, "j").unwrap_err();
        assert_eq!((e.errno, e.func), (110, "max latency exceeded"));
        assert_eq!(e.message, "j: latency of 2000 nsec exceeds specified max (1000 nsec)");
    }

    #[test]
    fn max_latency_fails_the_direction_it_is_set_for() {
        let mut spec = JobSpec::new("j");
        spec.max_latency_ns = [None, Some(10_000), None];
        let mut c = LatencyControl::new(&spec, SimTime::ZERO).unwrap();
        assert_eq!(c.on_completion(0, 50_000, ms(1), 1, "j"), Ok(Verdict::Continue));
        assert!(c.on_completion(1, 50_000, ms(1), 2, "j").is_err());
        assert_eq!(c.depth(), u32::MAX);
    }
}
