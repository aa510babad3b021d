//! Dirty-page limits and the writer throttle (`mm/page-writeback.c`).
//!
//! Read first: `domain_dirty_limits`, `balance_dirty_pages`, `pos_ratio_polynom` and
//! `wb_update_write_bandwidth` in `mm/page-writeback.c` (5.x/6.x), summarised in
//! `docs/model.md` § "Page cache". Writers run free until dirty pages (dirty plus under
//! writeback) pass `freerun`, the midpoint of the background and foreground thresholds;
//! above it each writer sleeps after dirtying, for as long as dirtying that many pages
//! takes at `write_bandwidth × pos_ratio` shared among the writers, where `pos_ratio`
//! falls as a cubic from 2 (at freerun) through 1 (at the setpoint) to 0 (at the limit).
//!
//! Simplified: one writeback domain (no cgroups, no per-device share of the limit: the
//! page cache serves one block target); `dirty_ratelimit` is the device's write bandwidth
//! shared equally among the writers active in the last bandwidth interval, the value the
//! kernel's feedback loop converges to.

use crate::engine::{SimDuration, SimTime};

/// `MAX_PAUSE`: the longest a writer sleeps in one `balance_dirty_pages` call (HZ/5).
pub const MAX_PAUSE: SimDuration = SimDuration(200_000_000);
/// `BANDWIDTH_INTERVAL`: how often the write bandwidth is re-estimated (HZ/5).
pub const BANDWIDTH_INTERVAL: SimDuration = SimDuration(200_000_000);
/// The averaging period of the write bandwidth: `roundup_pow_of_two(3 * HZ)` jiffies at
/// HZ = 1000.
const BANDWIDTH_PERIOD: SimDuration = SimDuration(4_096_000_000);
/// `INIT_BW`: the write bandwidth assumed before any writeback, bytes per second.
const INIT_WRITE_BW_BYTES_PER_S: f64 = 100.0 * 1024.0 * 1024.0;

/// The dirty thresholds, in pages (`domain_dirty_limits`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirtyLimits {
    /// Background writeback starts above this.
    pub background: u64,
    /// The foreground threshold (`dirty_ratio`): writers are held at it.
    pub thresh: u64,
}

impl DirtyLimits {
    /// The limits for `dirtyable` pages of memory with the given ratios, in percent.
    pub fn new(dirtyable: u64, background_ratio: u32, ratio: u32) -> Self {
        let thresh = dirtyable * u64::from(ratio) / 100;
        let mut background = dirtyable * u64::from(background_ratio) / 100;
        if background >= thresh {
            background = thresh / 2;
        }
        DirtyLimits { background, thresh: thresh.max(1) }
    }

    /// Below this, writers are not throttled at all.
    pub fn freerun(&self) -> u64 {
        u64::midpoint(self.background, self.thresh)
    }

    /// Where the throttle aims to hold dirty pages: `pos_ratio` is 1 here.
    pub fn setpoint(&self) -> u64 {
        u64::midpoint(self.freerun(), self.thresh)
    }

    /// `pos_ratio_polynom`: 1 + ((setpoint − dirty) / (limit − setpoint))³, in [0, 2].
    pub fn pos_ratio(&self, dirty: u64) -> f64 {
        let setpoint = self.setpoint() as f64;
        let span = (self.thresh as f64 - setpoint).max(1.0);
        let x = (setpoint - dirty as f64) / span;
        (1.0 + x * x * x).clamp(0.0, 2.0)
    }
}

/// The device's write bandwidth as the kernel estimates it from completed writeback.
#[derive(Clone, Copy, Debug)]
pub struct WriteBandwidth {
    bytes_per_s: f64,
    stamp: SimTime,
    written_at_stamp: u64,
}

impl Default for WriteBandwidth {
    fn default() -> Self {
        WriteBandwidth { bytes_per_s: INIT_WRITE_BW_BYTES_PER_S, stamp: SimTime::ZERO, written_at_stamp: 0 }
    }
}

impl WriteBandwidth {
    /// The current estimate, bytes per second.
    pub fn bytes_per_s(&self) -> f64 {
        self.bytes_per_s
    }

    /// `wb_update_write_bandwidth`: folds in what was written since the last estimate, if a
    /// bandwidth interval has passed. `busy` says whether writeback was in progress all the
    /// while (an idle span says nothing about the device and restarts the interval).
    pub fn update(&mut self, now: SimTime, written_bytes: u64, busy: bool) {
        let elapsed = now.since(self.stamp);
        if elapsed < BANDWIDTH_INTERVAL {
            return;
        }
        let written = written_bytes - self.written_at_stamp;
        if busy && written > 0 {
            let bw = written as f64 * 1e9 / elapsed.as_ns() as f64;
            self.bytes_per_s = if elapsed >= BANDWIDTH_PERIOD {
                bw
            } else {
                let period = BANDWIDTH_PERIOD.as_ns() as f64;
                let e = elapsed.as_ns() as f64;
                (self.bytes_per_s * (period - e) + bw * e) / period
            };
        }
        self.stamp = now;
        self.written_at_stamp = written_bytes;
    }
}

/// How long a writer that dirtied `pages` pages sleeps, with `dirty` pages dirty or under
/// writeback and `writers` writers sharing the bandwidth (`balance_dirty_pages`).
pub fn pause(
    limits: &DirtyLimits,
    dirty: u64,
    pages: u64,
    page_bytes: u64,
    bw: &WriteBandwidth,
    writers: u32,
) -> SimDuration {
    if dirty <= limits.freerun() {
        return SimDuration::ZERO;
    }
    let pos = limits.pos_ratio(dirty);
    if pos <= 0.0 {
        return MAX_PAUSE;
    }
    let rate_bytes_per_s = bw.bytes_per_s() / f64::from(writers.max(1)) * pos;
    let ns = (pages * page_bytes) as f64 * 1e9 / rate_bytes_per_s;
    SimDuration((ns as u64).min(MAX_PAUSE.as_ns()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_follow_the_kernel_defaults() {
        // 10 % and 20 % of 1000 pages: freerun halfway, setpoint halfway above it.
        let l = DirtyLimits::new(1000, 10, 20);
        assert_eq!((l.background, l.thresh, l.freerun(), l.setpoint()), (100, 200, 150, 175));
        // A background ratio at or above the foreground one is halved.
        assert_eq!(DirtyLimits::new(1000, 30, 20).background, 100);
    }

    #[test]
    fn pos_ratio_is_two_at_freerun_one_at_the_setpoint_and_zero_at_the_limit() {
        let l = DirtyLimits::new(1000, 10, 20);
        assert!((l.pos_ratio(150) - 2.0).abs() < 1e-9);
        assert!((l.pos_ratio(175) - 1.0).abs() < 1e-9);
        assert!(l.pos_ratio(200).abs() < 1e-9);
        assert!(l.pos_ratio(190) < l.pos_ratio(180), "the throttle tightens as dirty pages grow");
    }

    #[test]
    fn writers_above_freerun_sleep_at_the_write_bandwidth() {
        let l = DirtyLimits::new(1000, 10, 20);
        let bw = WriteBandwidth::default();
        assert_eq!(pause(&l, 140, 256, 4096, &bw, 1), SimDuration::ZERO);
        // At the setpoint one writer dirtying 1 MiB sleeps 1 MiB / 100 MiB/s = 10 ms; two
        // writers share the bandwidth and sleep twice as long.
        let one = pause(&l, 175, 256, 4096, &bw, 1).as_ns();
        assert!((one as f64 - 1e7).abs() < 1e3, "{one}");
        assert_eq!(pause(&l, 175, 256, 4096, &bw, 2).as_ns(), 2 * one);
        assert_eq!(pause(&l, 200, 1, 4096, &bw, 1), MAX_PAUSE);
    }

    #[test]
    fn the_bandwidth_estimate_moves_toward_what_writeback_achieves() {
        let mut bw = WriteBandwidth::default();
        // 1 GB/s for 200 ms: the estimate moves 200/4096 of the way from 100 MiB/s.
        bw.update(SimTime(200_000_000), 200_000_000, true);
        let expected = (INIT_WRITE_BW_BYTES_PER_S * (4096.0 - 200.0) + 1e9 * 200.0) / 4096.0;
        assert!((bw.bytes_per_s() - expected).abs() < 1.0);
        // An idle span leaves it alone; a long busy one replaces it.
        bw.update(SimTime(400_000_000), 200_000_000, false);
        assert!((bw.bytes_per_s() - expected).abs() < 1.0);
        bw.update(SimTime(5_400_000_000), 2_700_000_000, true);
        assert!((bw.bytes_per_s() - 5e8).abs() < 1.0);
    }
}
