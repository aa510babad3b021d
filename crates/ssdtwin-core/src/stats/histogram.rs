//! fio's latency histogram (`io_u_plat`, stat.c): 1856 buckets; values below 128 ns are
//! exact, and each later power of two is split into 64 buckets (≤ 0.78 % error). fio reports
//! percentiles as bucket mid-values, so using the same buckets makes ours look like fio's
//! (e.g. 17024 or 411648 ns). Memory: 14.8 KiB per histogram; `record` is O(1).

/// log2 of the buckets per group.
pub const PLAT_BITS: u32 = 6;
/// Buckets per group.
pub const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// Groups.
pub const PLAT_GROUP_NR: usize = 29;
/// Total buckets.
pub const PLAT_NR: usize = PLAT_GROUP_NR * PLAT_VAL as usize;

/// Bucket counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlatHistogram {
    counts: Box<[u64; PLAT_NR]>,
    total: u64,
}

impl Default for PlatHistogram {
    fn default() -> Self {
        PlatHistogram { counts: Box::new([0; PLAT_NR]), total: 0 }
    }
}

/// Bucket index of `val` ns (fio's `plat_val_to_idx`).
#[inline]
pub fn plat_val_to_idx(val: u64) -> usize {
    let msb = if val == 0 { 0 } else { val.ilog2() };
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) << PLAT_BITS) as usize;
    let offset = ((PLAT_VAL - 1) & (val >> error_bits)) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// Representative value of bucket `idx` (fio's `plat_idx_to_val`: the bucket's mid-point).
pub fn plat_idx_to_val(idx: usize) -> u64 {
    assert!(idx < PLAT_NR, "bucket index {idx} beyond {PLAT_NR}");
    if idx < (PLAT_VAL << 1) as usize {
        return idx as u64;
    }
    let error_bits = (idx >> PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + PLAT_BITS);
    let k = idx as u64 % PLAT_VAL;
    // fio computes base + (k + 0.5) * 2^error_bits in floating point and truncates.
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

impl PlatHistogram {
    /// Counts one value (ns).
    #[inline]
    pub fn record(&mut self, val: u64) {
        self.counts[plat_val_to_idx(val)] += 1;
        self.total += 1;
    }

    /// Adds another histogram's counts.
    pub fn merge(&mut self, other: &PlatHistogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
        self.total += other.total;
    }

    /// Forgets every value.
    pub fn clear(&mut self) {
        if self.total > 0 {
            self.counts.fill(0);
            self.total = 0;
        }
    }

    /// The bucket counts, in bucket order.
    pub fn counts(&self) -> &[u64] {
        &self.counts[..]
    }

    /// Values counted.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Percentiles as fio computes them (`calc_clat_percentiles`): for each `p` in the
    /// sorted list, the value of the first bucket where the running count reaches
    /// `p / 100 × total`.
    pub fn percentiles(&self, list: &[f64]) -> Vec<u64> {
        let mut out = vec![0; list.len()];
        if self.total == 0 || list.is_empty() {
            return out;
        }
        let n = self.total as f64;
        let mut sum = 0u64;
        let mut j = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            sum += c;
            while j < list.len() && sum as f64 >= list[j] / 100.0 * n {
                out[j] = plat_idx_to_val(i);
                j += 1;
            }
            if j == list.len() {
                break;
            }
        }
        out
    }

    /// Non-empty buckets as (representative value, count), in order (fio's json+ `bins`).
    pub fn bins(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(|(i, c)| (plat_idx_to_val(i), *c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        for v in 0..128 {
            assert_eq!(plat_idx_to_val(plat_val_to_idx(v)), v);
        }
    }

    #[test]
    fn reference_percentile_values_are_bucket_midpoints() {
        // Values that appear in fio 3.33's output (reference/fio-3.33): each is its own
        // bucket's representative.
        for v in [13_376u64, 17_024, 35_584, 411_648, 1_105_920, 4_014_080, 88_576, 232_448, 1_138_688, 2_375_680] {
            assert_eq!(plat_idx_to_val(plat_val_to_idx(v)), v, "{v}");
        }
    }

    #[test]
    fn bucket_error_is_below_one_percent() {
        for v in [1_000u64, 12_345, 99_999, 1_234_567, 98_765_432] {
            let r = plat_idx_to_val(plat_val_to_idx(v)) as f64;
            assert!((r - v as f64).abs() / (v as f64) < 0.0079, "{v} -> {r}");
        }
    }

    #[test]
    fn percentiles_walk_the_cumulative_count() {
        let mut h = PlatHistogram::default();
        for v in 1..=100u64 {
            h.record(v);
        }
        assert_eq!(h.percentiles(&[1.0, 50.0, 99.0, 100.0]), vec![1, 50, 99, 100]);
    }
}
