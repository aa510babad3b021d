//! Uncorrectable bit errors: the rate a read meets as its block wears, and the count of
//! them that SMART reports as Media and Data Integrity Errors.
//!
//! Read Mielke et al., "Bit Error Rate in NAND Flash Memories" (IRPS 2008) and Cai et al.,
//! "Error Patterns in MLC NAND Flash Memory" (DATE 2012) first; `docs/model.md` §
//! "Media errors" gives the derivation and what is left out.
//!
//! **The law.** Each P/E cycle widens the cells' threshold-voltage distributions, so the raw
//! bit error rate (RBER) grows with wear (Cai et al.: exponentially in the cycles). The ECC
//! corrects up to `t` bits a codeword; a codeword fails when more do, so the uncorrectable
//! bit error rate (UBER) grows as RBER^(t+1) (Mielke et al.: "UBER is a strong function of
//! program/erase cycling"). An exponential raised to a power is an exponential: the UBER of
//! a block that has used `w` of its rated life is
//!
//! ```text
//! UBER(w) = uber_per_bit × 10^((w − 1) / tenfold_life)      at most one error per map unit
//! ```
//!
//! where `uber_per_bit` is the rate the drive is rated for at the end of its rated endurance
//! (JEDEC JESD218: ≤ 10⁻¹⁵ for client drives, ≤ 10⁻¹⁶ for enterprise ones) and `tenfold_life`
//! the share of the rated life over which it grows tenfold. Below the rating it falls as
//! steeply, so a fresh drive reads without errors; past it, errors come within tens of
//! percent of extra wear, as worn-out drives show.
//!
//! **Counting.** A read of `bits` from a block at rate `u` expects `bits × u` errors. The
//! errors form a Poisson process in that accumulated expectation (the *hazard*): the time to
//! the next error is an exponential draw. [`MediaErrors`] adds each read's expectation and
//! counts an error each time the hazard passes the next draw, which it takes from a hash of
//! the drive's seed and the errors so far: a read costs one multiply-add and a comparison,
//! the draws are made once per error, and the same drive and workload give the same count.

use crate::nand::UNIT_BYTES;
use serde::{Deserialize, Serialize};

/// Bits in one 4 KiB map unit.
pub const BITS_PER_UNIT: f64 = (UNIT_BYTES * 8) as f64;

/// The highest UBER the law gives: one error expected per map unit read, where every
/// codeword of the unit has failed and further wear cannot fail it more.
pub const MAX_UBER_PER_BIT: f64 = 1.0 / BITS_PER_UNIT;

/// How the uncorrectable bit error rate grows with wear (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BitErrorLaw {
    /// Uncorrectable bit errors per bit read at the rated P/E cycles (0: none ever).
    pub uber_per_bit: f64,
    /// Share of the rated life over which the UBER grows tenfold (> 0).
    pub tenfold_life: f64,
}

impl BitErrorLaw {
    /// The UBER of a block that has used `life_used` of its rated life.
    pub fn uber(&self, life_used: f64) -> f64 {
        (self.uber_per_bit * 10f64.powf((life_used - 1.0) / self.tenfold_life)).min(MAX_UBER_PER_BIT)
    }
}

/// How often a read fails hard-decision decoding and retries with shifted read levels: the
/// raw bit error rate behind it grows exponentially with wear (Cai et al.), so the chance
/// grows geometrically from `fresh` (no wear) to `rated` (the rated P/E cycles), and each
/// retry needs another with chance `again` (Park et al., ASPLOS'21: several retries per read
/// on aged 3D NAND).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReadRetryLaw {
    /// Chance a read of a fresh block retries (0: never).
    pub fresh: f64,
    /// Chance at the rated P/E cycles (≥ `fresh`).
    pub rated: f64,
    /// Chance each retry needs one more.
    pub again: f64,
}

/// The most a read's chance of retrying can reach.
pub const MAX_RETRY_CHANCE: f64 = 0.99;

impl ReadRetryLaw {
    /// The chance a read of a block that has used `life_used` of its rated life retries.
    pub fn chance(&self, life_used: f64) -> f64 {
        if self.fresh <= 0.0 {
            return 0.0;
        }
        (self.fresh * (self.rated / self.fresh).powf(life_used)).min(MAX_RETRY_CHANCE)
    }
}

/// Media and Data Integrity Errors: uncorrectable errors the reads met, counted as a Poisson
/// process in the expected errors (see the module doc). 32 bytes; nothing allocates.
#[derive(Clone, Debug, PartialEq)]
pub struct MediaErrors {
    seed: u64,
    errors: u64,
    /// Expected errors accumulated since the last one.
    hazard: f64,
    /// The hazard at which the next error occurs (an exponential draw).
    next: f64,
}

/// What a saved state keeps of [`MediaErrors`] (the next draw follows from the count).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MediaErrorState {
    /// Errors so far.
    pub errors: u64,
    /// Expected errors accumulated since the last one.
    pub hazard: f64,
}

impl MediaErrors {
    /// No errors yet; the draws follow from `seed` (the drive's).
    pub fn new(seed: u64) -> Self {
        Self::restore(seed, MediaErrorState::default())
    }

    /// The count and hazard of a saved state.
    pub fn restore(seed: u64, state: MediaErrorState) -> Self {
        MediaErrors { seed, errors: state.errors, hazard: state.hazard, next: draw(seed, state.errors) }
    }

    /// What a saved state keeps.
    pub fn state(&self) -> MediaErrorState {
        MediaErrorState { errors: self.errors, hazard: self.hazard }
    }

    /// Errors so far.
    pub fn errors(&self) -> u64 {
        self.errors
    }

    /// A read of `units` map units from blocks at `uber_per_bit`.
    #[inline]
    pub fn read(&mut self, units: u32, uber_per_bit: f64) {
        self.hazard += f64::from(units) * BITS_PER_UNIT * uber_per_bit;
        while self.hazard >= self.next {
            self.hazard -= self.next;
            self.errors += 1;
            self.next = draw(self.seed, self.errors);
        }
    }
}

/// The `k`-th exponential draw (mean 1) of `seed`: `−ln u` of a hashed uniform in (0, 1].
fn draw(seed: u64, k: u64) -> f64 {
    let h = super::splitmix(seed ^ 0x6D65_6469_615F_6572 ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let u = ((h >> 11) + 1) as f64 / (1u64 << 53) as f64;
    -u.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LAW: BitErrorLaw = BitErrorLaw { uber_per_bit: 1e-15, tenfold_life: 0.1 };

    #[test]
    fn read_retries_grow_geometrically_from_fresh_to_rated() {
        let law = ReadRetryLaw { fresh: 1e-3, rated: 0.1, again: 0.5 };
        assert!((law.chance(0.0) - 1e-3).abs() < 1e-15);
        assert!((law.chance(1.0) - 0.1).abs() < 1e-12);
        // Halfway through the life: the geometric mean.
        assert!((law.chance(0.5) - 1e-2).abs() < 1e-12);
        assert_eq!(law.chance(10.0).to_bits(), MAX_RETRY_CHANCE.to_bits());
        assert_eq!(ReadRetryLaw::default().chance(1.0).to_bits(), 0f64.to_bits());
    }

    #[test]
    fn the_rate_is_the_rated_one_at_the_rating_and_tenfold_per_step() {
        assert!((LAW.uber(1.0) / 1e-15 - 1.0).abs() < 1e-12);
        assert!((LAW.uber(1.1) / 1e-14 - 1.0).abs() < 1e-9);
        assert!((LAW.uber(0.5) / 1e-20 - 1.0).abs() < 1e-9);
        // Far past the rating every unit read fails, and no more.
        assert_eq!(LAW.uber(5.0).to_bits(), MAX_UBER_PER_BIT.to_bits());
        assert_eq!(BitErrorLaw { uber_per_bit: 0.0, ..LAW }.uber(9.0).to_bits(), 0f64.to_bits());
    }

    #[test]
    fn errors_are_a_poisson_count_of_the_expected_ones() {
        // 10,000 reads expecting 0.05 errors each: 500 expected, standard deviation 22.
        let mut m = MediaErrors::new(3);
        for _ in 0..10_000 {
            m.read(1, 0.05 / BITS_PER_UNIT);
        }
        assert!(m.errors().abs_diff(500) <= 5 * 22, "{}", m.errors());
        // The same seed and reads count the same; another seed differs.
        let mut again = MediaErrors::new(3);
        let mut other = MediaErrors::new(4);
        for _ in 0..10_000 {
            again.read(1, 0.05 / BITS_PER_UNIT);
            other.read(1, 0.05 / BITS_PER_UNIT);
        }
        assert_eq!(again, m);
        assert_ne!(other.errors(), m.errors());
    }

    #[test]
    fn a_saved_count_goes_on_as_if_never_saved() {
        let mut a = MediaErrors::new(9);
        a.read(1000, 1e-6);
        let mut b = MediaErrors::restore(9, a.state());
        a.read(5000, 1e-6);
        b.read(5000, 1e-6);
        assert_eq!(a, b);
        assert!(a.errors() > 100);
    }
}
