//! The seek curve: time to move the arm `d` cylinders and settle.
//!
//! Short seeks are dominated by acceleration, so their time grows with the square root of
//! the distance; long seeks reach the arm's top speed, so theirs grows linearly (Ruemmler &
//! Wilkes 1994, the HP 97560: 3.24 + 0.400·√d ms up to 383 cylinders, 8.00 + 0.008·d ms
//! beyond; the WD 4 TB DiskSim extraction in host-facts.md §6.1 has the same shape, linear
//! beyond ~22 % of the stroke). The curve here is
//!
//! ```text
//! t(d) = t1 + a·(√d − 1)                           1 ≤ d ≤ d0
//! t(d) = t(d0) + (t_full − t(d0))·(d − d0)/(D − d0)   d0 < d ≤ D
//! ```
//!
//! and [`SeekCurve::fit`] finds `a` so that it reproduces a datasheet's three figures:
//! single-track `t1`, full stroke `t_full` (distance `D`) and the *average seek*, which
//! datasheets define as the average over all seek combinations,
//! `Σ (D + 1 − d)·t(d) / Σ (D + 1 − d)` (Hitachi's OEM specifications, § 4.4.2.1). The
//! average is linear in `a`, so the fit is one division.

use crate::engine::SimDuration;

/// A fitted seek curve (times in ns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeekCurve {
    t1_ns: f64,
    a_ns: f64,
    d0: u32,
    t_d0_ns: f64,
    slope_ns: f64,
    full: u32,
}

impl SeekCurve {
    /// Fits the curve to single-track, average and full-stroke times over `cylinders`, with
    /// square-root seeks up to `short_fraction` of the stroke. `Err` gives the range of
    /// averages the other figures allow.
    pub(crate) fn fit(
        t1: SimDuration,
        t_avg: SimDuration,
        t_full: SimDuration,
        short_fraction: f64,
        cylinders: u32,
    ) -> Result<Self, String> {
        let full = cylinders.saturating_sub(1).max(2);
        let d0 = ((f64::from(full) * short_fraction) as u32).clamp(1, full - 1);
        let (t1, t_full) = (t1.as_ns() as f64, t_full.as_ns() as f64);
        let with = |a: f64| {
            let t_d0 = t1 + a * (f64::from(d0).sqrt() - 1.0);
            SeekCurve { t1_ns: t1, a_ns: a, d0, t_d0_ns: t_d0, slope_ns: (t_full - t_d0) / f64::from(full - d0), full }
        };
        let a_max = (t_full - t1) / (f64::from(d0).sqrt() - 1.0).max(1e-9);
        let (lo, hi) = (with(0.0).weighted_average_ns(), with(a_max).weighted_average_ns());
        let target = t_avg.as_ns() as f64;
        if target < lo || target > hi {
            return Err(format!(
                "with these single-track and full-stroke times and short_seek_fraction, the average seek must lie \
                 between {:.2} and {:.2} ms",
                lo / 1e6,
                hi / 1e6
            ));
        }
        Ok(with(a_max * (target - lo) / (hi - lo)))
    }

    /// Time to seek `distance` cylinders (0 for none).
    #[inline]
    pub fn time(&self, distance: u32) -> SimDuration {
        let d = distance.min(self.full);
        let ns = if d == 0 {
            0.0
        } else if d <= self.d0 {
            self.t1_ns + self.a_ns * (f64::from(d).sqrt() - 1.0)
        } else {
            self.t_d0_ns + self.slope_ns * f64::from(d - self.d0)
        };
        SimDuration(ns.round() as u64)
    }

    /// The longest seek, cylinders.
    pub fn full_stroke(&self) -> u32 {
        self.full
    }

    /// The datasheet average: over all seek distances weighted by how many start/end pairs
    /// have that distance.
    pub fn weighted_average_ns(&self) -> f64 {
        let max = u64::from(self.full);
        let (mut num, mut den) = (0.0, 0.0);
        for d in 1..=max {
            let w = (max + 1 - d) as f64;
            num += w * self.time(d as u32).as_ns() as f64;
            den += w;
        }
        num / den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_reproduces_the_three_datasheet_figures() {
        let ms = |v: f64| SimDuration((v * 1e6) as u64);
        let c = SeekCurve::fit(ms(0.23), ms(7.4), ms(15.7), 0.22, 500_000).unwrap();
        assert_eq!(c.time(1), ms(0.23));
        assert_eq!(c.time(c.full_stroke()), ms(15.7));
        assert!((c.weighted_average_ns() / 7.4e6 - 1.0).abs() < 1e-3, "{}", c.weighted_average_ns());
        // Square root below the boundary: four times the distance, twice the added time.
        let extra = |d| c.time(d).as_ns() as f64 - 0.23e6;
        assert!((extra(40_001) / extra(10_001) - 2.0).abs() < 0.02);
    }

    #[test]
    fn an_average_the_other_figures_cannot_give_is_refused() {
        let ms = |v: f64| SimDuration((v * 1e6) as u64);
        let e = SeekCurve::fit(ms(1.0), ms(1.2), ms(15.0), 0.22, 100_000).unwrap_err();
        assert!(e.contains("must lie between"), "{e}");
    }
}
