//! What the jobs completed in each window of the device-counter series: I/Os, bytes and
//! total latency (submission to completion, fio's `lat`) per direction, so a series shows
//! IOPS, bandwidth and latency percentiles over time beside the device's counters.
//! Every completion counts, ramp time included: the series describes the whole run.

use crate::stats::PlatHistogram;
use crate::workload::{Direction, WindowDir, WindowRow};

/// Percentiles each window reports.
const PERCENTILES: [f64; 3] = [50.0, 99.0, 99.9];

/// One direction's completions since the last sample.
#[derive(Default)]
struct DirWindow {
    ios: u64,
    bytes: u64,
    lat_sum_ns: u128,
    lat_max_ns: u64,
    lat: PlatHistogram,
}

/// Completions per direction since the last series sample.
#[derive(Default)]
pub(super) struct IoWindows {
    dirs: [DirWindow; 3],
}

impl IoWindows {
    /// Counts one completion of `bytes` that took `lat_ns` from submission.
    #[inline]
    pub(super) fn record(&mut self, dir: Direction, bytes: u64, lat_ns: u64) {
        let d = &mut self.dirs[dir.index()];
        d.ios += 1;
        d.bytes += bytes;
        d.lat_sum_ns += u128::from(lat_ns);
        d.lat_max_ns = d.lat_max_ns.max(lat_ns);
        d.lat.record(lat_ns);
    }

    /// The window ending at `time_ns`; starts the next one.
    pub(super) fn take(&mut self, time_ns: u64) -> WindowRow {
        let dirs = self.dirs.each_mut().map(|d| {
            let p = d.lat.percentiles(&PERCENTILES);
            let row = WindowDir {
                ios: d.ios,
                bytes: d.bytes,
                mean_lat_ns: if d.ios == 0 { 0.0 } else { d.lat_sum_ns as f64 / d.ios as f64 },
                p50_lat_ns: p[0],
                p99_lat_ns: p[1],
                p999_lat_ns: p[2],
                max_lat_ns: d.lat_max_ns,
            };
            (d.ios, d.bytes, d.lat_sum_ns, d.lat_max_ns) = (0, 0, 0, 0);
            d.lat.clear();
            row
        });
        WindowRow { time_ns, dirs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_summarises_its_completions_and_the_next_starts_empty() {
        let mut w = IoWindows::default();
        for lat in 1..=1000u64 {
            w.record(Direction::Read, 4096, lat * 1000);
        }
        w.record(Direction::Write, 131_072, 20_000);
        let row = w.take(5_000_000);
        let r = &row.dirs[Direction::Read.index()];
        assert_eq!((r.ios, r.bytes, r.max_lat_ns), (1000, 4_096_000, 1_000_000));
        assert!((r.mean_lat_ns - 500_500.0).abs() < 1e-6);
        // fio's buckets are within 1/64 of the value.
        assert!((r.p50_lat_ns as f64 / 500_000.0 - 1.0).abs() < 1.0 / 64.0);
        assert!((r.p99_lat_ns as f64 / 990_000.0 - 1.0).abs() < 1.0 / 64.0);
        assert_eq!(row.dirs[Direction::Write.index()].ios, 1);
        let next = w.take(10_000_000);
        assert!(next.dirs.iter().all(|d| d.ios == 0 && d.p99_lat_ns == 0 && d.max_lat_ns == 0));
    }
}
