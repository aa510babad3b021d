//! Seeded random streams. Each consumer (a job clone, a policy tie-break) owns one stream,
//! derived from the run seed and a stream label, so adding a consumer never shifts the
//! numbers another one sees.

use rand_core::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A fast, seedable generator (xoshiro256++) with the few draws the model needs.
#[derive(Clone, Debug)]
pub struct SimRng(Xoshiro256PlusPlus);

impl SimRng {
    /// A stream for `label` under run seed `seed`.
    pub fn stream(seed: u64, label: u64) -> Self {
        // splitmix64 of the pair, so nearby seeds and labels give unrelated streams.
        let mut z = seed ^ label.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        SimRng(Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31)))
    }

    /// A uniform 64-bit value.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform value in `0..n` (Lemire's multiply-shift; bias below 2^-32 for n < 2^32).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p` (one draw whatever `p` is, so streams stay aligned).
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit_f64() < p
    }

    /// An exponentially distributed value of mean `mean` (one uniform draw).
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 − u is in (0, 1], so the log is finite.
        -mean * (1.0 - self.unit_f64()).ln()
    }

    /// A standard normal value (`rand_distr`'s ziggurat: one uniform and a table lookup almost
    /// every time, where Box–Muller took a logarithm, a square root and a cosine).
    #[inline]
    pub fn normal(&mut self) -> f64 {
        StandardNormal.sample(&mut self.0)
    }
}

/// A log-normal distribution of mean 1 and a given coefficient of variation, its
/// parameters worked out once (a per-command draw then costs one normal and one `exp`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitLognormal {
    /// σ of the underlying normal; 0 when the distribution is the constant 1.
    sigma: f64,
    /// μ of the underlying normal, −σ²/2 so that the mean is 1.
    mu: f64,
}

impl UnitLognormal {
    /// Mean 1, coefficient of variation `cv` (0 or less: always 1).
    pub fn with_cv(cv: f64) -> Self {
        if cv <= 0.0 {
            return UnitLognormal { sigma: 0.0, mu: 0.0 };
        }
        let sigma2 = (1.0 + cv * cv).ln();
        UnitLognormal { sigma: sigma2.sqrt(), mu: -sigma2 / 2.0 }
    }

    /// One factor (draws a normal even when σ is 0, so later draws stay where they were).
    #[inline]
    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        let z = rng.normal();
        if self.sigma == 0.0 {
            return 1.0;
        }
        (z * self.sigma + self.mu).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| SimRng::stream(7, 1).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(SimRng::stream(7, 1).next_u64(), SimRng::stream(7, 2).next_u64());
    }

    #[test]
    fn a_unit_mean_lognormal_has_the_mean_and_spread_asked_for() {
        let mut r = SimRng::stream(3, 9);
        let factor = UnitLognormal::with_cv(0.2);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| factor.sample(&mut r)).collect();
        let mean = xs.iter().sum::<f64>() / f64::from(n);
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / f64::from(n);
        assert!((mean - 1.0).abs() < 0.003, "mean {mean}");
        assert!((var.sqrt() - 0.2).abs() < 0.003, "cv {}", var.sqrt());
        assert!(xs.iter().all(|&x| x > 0.0));
        assert_eq!(UnitLognormal::with_cv(0.0).sample(&mut r).to_bits(), 1f64.to_bits());
    }

    #[test]
    fn chance_hits_at_its_probability() {
        let mut r = SimRng::stream(5, 5);
        let hits = (0..100_000).filter(|_| r.chance(0.01)).count();
        assert!((850..1150).contains(&hits), "{hits}");
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = SimRng::stream(1, 1);
        assert!((0..10_000).all(|_| r.below(10) < 10));
    }
}
