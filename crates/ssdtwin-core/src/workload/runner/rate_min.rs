//! fio's minimum rates (`rate_min`, `rate_iops_min`, `rate_cycle`; backend.c
//! `__check_min_rate`): after each completion past the ramp, once the clone has run 2 s,
//! each direction that has moved data is judged over the last `rate_cycle` ms; a direction
//! slower than its minimum fails the job with EIO from `check_min_rate`.

use crate::engine::SimTime;
use crate::workload::{JobFailure, JobSpec};

/// fio lets a job settle this long before judging its rate.
const SETTLE_NS: u64 = 2_000_000_000;
/// `EIO`, the error fio records.
const EIO: u32 = 5;

/// The minimum-rate check of one clone.
pub(super) struct RateCheck {
    min_bytes: [Option<u64>; 3],
    min_ios: [Option<u64>; 3],
    cycle_ms: u64,
    /// Per direction: bytes and I/Os completed since the ramp ended.
    bytes: [u64; 3],
    ios: [u64; 3],
    /// Per direction: the totals and time of the last judgement (fio's `last_rate_check_*`).
    last: [(u64, u64, Option<SimTime>); 3],
}

impl RateCheck {
    /// The check `spec` asks for, if any.
    pub(super) fn new(spec: &JobSpec) -> Option<Self> {
        let wanted = spec.rate_min.iter().chain(&spec.rate_iops_min).any(Option::is_some);
        wanted.then_some(RateCheck {
            min_bytes: spec.rate_min,
            min_ios: spec.rate_iops_min,
            cycle_ms: spec.rate_cycle_ms,
            bytes: [0; 3],
            ios: [0; 3],
            last: [(0, 0, None); 3],
        })
    }

    /// Counts a measured completion in direction `d` at `now` of a clone started at
    /// `start`; returns the failure if a direction fell below its minimum.
    pub(super) fn on_completion(
        &mut self,
        d: usize,
        bytes: u64,
        now: SimTime,
        start: SimTime,
        name: &str,
    ) -> Option<JobFailure> {
        self.bytes[d] += bytes;
        self.ios[d] += 1;
        if now.since(start).as_ns() < SETTLE_NS {
            return None;
        }
        for d in 0..3 {
            if self.bytes[d] == 0 || (self.min_bytes[d].is_none() && self.min_ios[d].is_none()) {
                continue;
            }
            let (last_bytes, last_ios, last_time) = self.last[d];
            if let Some(t) = last_time.filter(|_| last_bytes > 0 || last_ios > 0) {
                let spent_ms = now.since(t).as_ns() / 1_000_000;
                if spent_ms < self.cycle_ms || spent_ms == 0 {
                    continue;
                }
                let message = if let Some(min) = self.min_bytes[d] {
                    let rate = (self.bytes[d] - last_bytes) * 1000 / spent_ms;
                    (rate < min).then(|| format!("{name}: rate_min={min}B/s not met, got {rate}B/s"))
                } else {
                    let min = self.min_ios[d].unwrap_or(0);
                    let rate = (self.ios[d] - last_ios) * 1000 / spent_ms;
                    (rate < min).then(|| format!("{name}: rate_iops_min={min} not met, got {rate} IOPS"))
                };
                if let Some(message) = message {
                    return Some(JobFailure { errno: EIO, func: "check_min_rate", message });
                }
            }
            self.last[d] = (self.bytes[d], self.ios[d], Some(now));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime(n * 1_000_000)
    }

    #[test]
    fn a_rate_below_the_minimum_fails_after_the_settle_time_and_a_cycle() {
        let mut spec = JobSpec::new("j");
        spec.rate_min = [Some(1_000_000), None, None];
        let mut check = RateCheck::new(&spec).unwrap();
        // 4 KiB per ms is 4.096 MB/s: fine.
        for t in 1..=3500 {
            assert!(check.on_completion(0, 4096, ms(t), ms(0), "j").is_none(), "{t}");
        }
        // Then 4 KiB per 10 ms (409.6 KB/s). Checks fall at 2 s (the first, a reference), 3 s
        // and 4 s (the 3-4 s cycle still holds half a second of fast reads): the 4-5 s cycle fails.
        let mut failed = None;
        for t in (3510..=6000).step_by(10) {
            if let Some(f) = check.on_completion(0, 4096, ms(t), ms(0), "j") {
                failed = Some((t, f));
                break;
            }
        }
        let (t, f) = failed.expect("the slow phase fails");
        assert_eq!(t, 5000);
        assert_eq!((f.errno, f.func), (5, "check_min_rate"));
        assert!(f.message.starts_with("j: rate_min=1000000B/s not met, got "), "{}", f.message);
    }
}
