//! Simulated time: an instant ([`SimTime`]) and a span ([`SimDuration`]), both integer nanoseconds.
//!
//! Floats never hold time inside the model; they appear only when a figure is written out
//! (seconds in a report, microseconds in a table). Arithmetic saturates instead of wrapping:
//! `u64` nanoseconds cover 584 years of simulated time, so saturation only guards against
//! `SimTime::NEVER` being used as a base.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the simulation started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SimDuration(pub u64);

impl SimTime {
    /// The start of every simulation.
    pub const ZERO: SimTime = SimTime(0);
    /// A time that never comes: what `poll_at` returns when nothing is pending.
    pub const NEVER: SimTime = SimTime(u64::MAX);

    /// Nanoseconds since the start.
    pub const fn as_ns(self) -> u64 {
        self.0
    }

    /// Seconds since the start, for output only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }

    /// The span from `earlier` to `self`, or zero if `earlier` is later.
    pub const fn since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }

    /// `d` before `self`, or the start if that would be earlier.
    #[must_use]
    pub const fn saturating_sub(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
}

impl SimDuration {
    /// No time at all.
    pub const ZERO: SimDuration = SimDuration(0);

    /// This duration times a non-negative `factor`, to the nearest nanosecond (halves up).
    /// Adding ½ and truncating is `f64::round` for these values without its library call,
    /// which per-command variation would otherwise pay on every read.
    #[inline]
    #[must_use]
    pub fn scaled(self, factor: f64) -> Self {
        debug_assert!(factor >= 0.0, "a duration scales by a non-negative factor");
        SimDuration((self.0 as f64 * factor + 0.5) as u64)
    }

    /// `ns` nanoseconds to the nearest one, exactly as `SimDuration(ns.round() as u64)`
    /// (halves away from zero; negative and NaN give zero, beyond `u64::MAX` saturates)
    /// but with integer conversions instead of `f64::round`'s library call, for the
    /// paths that convert a computed time on every step.
    #[inline]
    #[must_use]
    pub fn from_ns_f64(ns: f64) -> Self {
        let whole = ns as u64;
        // Exact: `whole` is `ns`'s integer part below 2^53, and `ns` is whole above it.
        let fraction = ns - whole as f64;
        SimDuration(if fraction >= 0.5 { whole.saturating_add(1) } else { whole })
    }

    /// A span of `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Self {
        SimDuration(ns)
    }
    /// A span of `us` microseconds.
    pub const fn from_us(us: u64) -> Self {
        SimDuration(us * 1_000)
    }
    /// A span of `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    /// A span of `s` seconds.
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * 1_000_000_000)
    }
    /// Nanoseconds in this span.
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// Seconds in this span, for output only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// The time to move `bytes` at `bytes_per_sec`, rounded up to whole nanoseconds.
    pub fn for_bytes(bytes: u64, bytes_per_sec: u64) -> Self {
        debug_assert!(bytes_per_sec > 0, "a rate of zero bytes per second is refused by validation");
        // In 64 bits while the product fits (every transfer up to 18 GB): a 128-bit
        // division is a library call, and this runs for every command's link transfer.
        if let Some(scaled) = bytes.checked_mul(1_000_000_000) {
            return SimDuration(scaled.div_ceil(bytes_per_sec));
        }
        let ns = (u128::from(bytes) * 1_000_000_000).div_ceil(u128::from(bytes_per_sec));
        SimDuration(u64::try_from(ns).unwrap_or(u64::MAX))
    }
    /// This span `n` times over.
    #[must_use]
    pub const fn times(self, n: u64) -> Self {
        SimDuration(self.0.saturating_mul(n))
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}

impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}

impl AddAssign for SimDuration {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}

impl Sub for SimTime {
    type Output = SimDuration;
    fn sub(self, earlier: SimTime) -> SimDuration {
        self.since(earlier)
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} s", self.as_secs_f64())
    }
}

impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ns", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_up_to_whole_nanoseconds() {
        // 4 KiB at 400 MB/s is 10.24 us.
        assert_eq!(SimDuration::for_bytes(4096, 400_000_000), SimDuration(10_240));
        // 1 byte at 3 GB/s is a third of a nanosecond, rounded up.
        assert_eq!(SimDuration::for_bytes(1, 3_000_000_000), SimDuration(1));
        // Either side of where bytes × 10^9 stops fitting in 64 bits.
        let edge = u64::MAX / 1_000_000_000;
        assert_eq!(SimDuration::for_bytes(edge, 1_000_000_000), SimDuration(edge));
        assert_eq!(SimDuration::for_bytes(edge + 1, 1_000_000_000), SimDuration(edge + 1));
        assert_eq!(SimDuration::for_bytes(edge + 1, 3_000_000_000), SimDuration((edge + 1).div_ceil(3)));
    }

    #[test]
    fn nanoseconds_from_a_float_round_as_f64_round_does() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.499_999_999_999_999_94,
            -0.5,
            -0.7,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            4_503_599_627_370_495.5,
            9_007_199_254_740_993.0,
            1.8e19,
            1.9e19,
        ];
        for ns in edges {
            assert_eq!(SimDuration::from_ns_f64(ns), SimDuration(ns.round() as u64), "{ns:e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn nanoseconds_from_any_float_round_as_f64_round_does(bits in proptest::num::u64::ANY) {
            let ns = f64::from_bits(bits);
            proptest::prop_assert_eq!(SimDuration::from_ns_f64(ns), SimDuration(ns.round() as u64));
        }

        #[test]
        fn nanoseconds_from_a_time_like_float_round_as_f64_round_does(ns in 0.0f64..1e12) {
            proptest::prop_assert_eq!(SimDuration::from_ns_f64(ns), SimDuration(ns.round() as u64));
        }
    }

    #[test]
    fn arithmetic_saturates_at_never() {
        assert_eq!(SimTime::NEVER + SimDuration::from_secs(1), SimTime::NEVER);
        assert_eq!(SimTime(5).since(SimTime(9)), SimDuration::ZERO);
    }
}
