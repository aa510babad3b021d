//! Running latency statistics: min, max, mean and standard deviation over exact integer
//! sums (so merging jobs under `group_reporting` is exact), plus fio's coarse latency
//! distribution buckets (`latency_ns`, `latency_us`, `latency_ms` in fio's JSON).

use super::PlatHistogram;

/// Summary of a set of latencies in ns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatStats {
    /// Smallest value (0 when empty).
    pub min: u64,
    /// Largest value.
    pub max: u64,
    /// Number of values.
    pub n: u64,
    sum: u128,
    sum_sq: u128,
}

impl LatStats {
    /// Adds a value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        self.max = self.max.max(v);
        self.n += 1;
        self.sum += u128::from(v);
        self.sum_sq += u128::from(v) * u128::from(v);
    }

    /// Adds another summary.
    pub fn merge(&mut self, o: &LatStats) {
        if o.n == 0 {
            return;
        }
        self.min = if self.n == 0 { o.min } else { self.min.min(o.min) };
        self.max = self.max.max(o.max);
        self.n += o.n;
        self.sum += o.sum;
        self.sum_sq += o.sum_sq;
    }

    /// Mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.sum as f64 / self.n as f64 }
    }

    /// Sample standard deviation, as fio reports it (0 with fewer than two values).
    pub fn stddev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        let mean = self.sum as f64 / n;
        let var = (self.sum_sq as f64 - n * mean * mean) / (n - 1.0);
        var.max(0.0).sqrt()
    }
}

/// fio's latency distribution buckets, by completion latency. Labels are the bucket's upper
/// bound in its unit: ns `2 4 10 20 50 100 250 500 750 1000`, µs the same, ms the same then
/// `2000 >=2000`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatBuckets {
    /// Below 1 µs.
    pub ns: [u64; 10],
    /// 1 µs to below 1 ms.
    pub us: [u64; 10],
    /// 1 ms and above.
    pub ms: [u64; 12],
}

/// Bucket labels shared by the ns and µs groups.
pub const LAT_LABELS: [&str; 10] = ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"];
/// Bucket labels of the ms group.
pub const LAT_MS_LABELS: [&str; 12] =
    ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"];

/// fio's `io_u_mark_lat_*` bucket of a value below 1000 in its unit.
#[inline]
fn small_bucket(v: u64) -> usize {
    match v {
        0..=1 => 0,
        2..=3 => 1,
        4..=9 => 2,
        10..=19 => 3,
        20..=49 => 4,
        50..=99 => 5,
        100..=249 => 6,
        250..=499 => 7,
        500..=749 => 8,
        _ => 9,
    }
}

impl LatBuckets {
    /// Counts a completion latency in ns.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        if ns < 1_000 {
            self.ns[small_bucket(ns)] += 1;
        } else if ns < 1_000_000 {
            self.us[small_bucket(ns / 1_000)] += 1;
        } else {
            let ms = ns / 1_000_000;
            let i = match ms {
                0..=999 => small_bucket(ms),
                1000..=1999 => 10,
                _ => 11,
            };
            self.ms[i] += 1;
        }
    }

    /// Adds another set of buckets.
    pub fn merge(&mut self, o: &LatBuckets) {
        self.ns.iter_mut().zip(o.ns).for_each(|(a, b)| *a += b);
        self.us.iter_mut().zip(o.us).for_each(|(a, b)| *a += b);
        self.ms.iter_mut().zip(o.ms).for_each(|(a, b)| *a += b);
    }
}

/// Latency summaries and histograms, for one direction of one job: fio keeps a histogram of
/// each of the three latencies (`io_u_plat[FIO_SLAT|FIO_CLAT|FIO_LAT]`) and reports the
/// percentiles of those its `*_percentiles` options ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DirLatency {
    /// Submission latency.
    pub slat: LatStats,
    /// Completion latency.
    pub clat: LatStats,
    /// Total latency.
    pub lat: LatStats,
    /// Submission-latency histogram.
    pub slat_hist: PlatHistogram,
    /// Completion-latency histogram.
    pub clat_hist: PlatHistogram,
    /// Total-latency histogram: the percentiles of the latency an application sees.
    pub lat_hist: PlatHistogram,
    /// Completion-latency buckets.
    pub buckets: LatBuckets,
}

impl DirLatency {
    /// Records one I/O.
    #[inline]
    pub fn record(&mut self, slat: u64, clat: u64) {
        self.slat.record(slat);
        self.clat.record(clat);
        self.lat.record(slat + clat);
        self.slat_hist.record(slat);
        self.clat_hist.record(clat);
        self.lat_hist.record(slat + clat);
        self.buckets.record(clat);
    }

    /// Records one I/O of a synchronous engine, which fio gives no submission latency:
    /// `clat` from issue to completion, `lat` from the start of its preparation.
    pub fn record_without_slat(&mut self, lat: u64, clat: u64) {
        self.clat.record(clat);
        self.lat.record(lat);
        self.clat_hist.record(clat);
        self.lat_hist.record(lat);
        self.buckets.record(clat);
    }

    /// Adds another direction's latencies.
    pub fn merge(&mut self, o: &DirLatency) {
        self.slat.merge(&o.slat);
        self.clat.merge(&o.clat);
        self.lat.merge(&o.lat);
        self.slat_hist.merge(&o.slat_hist);
        self.clat_hist.merge(&o.clat_hist);
        self.lat_hist.merge(&o.lat_hist);
        self.buckets.merge(&o.buckets);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_stddev() {
        let mut s = LatStats::default();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            s.record(v);
        }
        assert_eq!((s.min, s.max, s.n), (2, 9, 8));
        assert!((s.mean() - 5.0).abs() < 1e-12);
        assert!((s.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn buckets_follow_fio_boundaries() {
        let mut b = LatBuckets::default();
        b.record(999); // 999 ns -> ns bucket "1000"
        b.record(1_000); // 1 us -> us bucket "2"
        b.record(15_000); // 15 us -> us "20"
        b.record(2_500_000); // 2.5 ms -> ms "4"
        b.record(3_000_000_000); // 3 s -> ms ">=2000"
        assert_eq!(b.ns[9], 1);
        assert_eq!(b.us[0], 1);
        assert_eq!(b.us[3], 1);
        assert_eq!(b.ms[1], 1);
        assert_eq!(b.ms[11], 1);
    }
}
