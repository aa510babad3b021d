//! Statistics shared by every layer: fio's latency histogram and running summaries.
//!
//! [`PlatHistogram`] reproduces fio's bucketing exactly, so percentiles look like fio's;
//! [`LatStats`] keeps exact integer sums so summaries merge without error.

mod histogram;
mod latency;

pub use histogram::{PLAT_NR, PlatHistogram, plat_idx_to_val, plat_val_to_idx};
pub use latency::{DirLatency, LAT_LABELS, LAT_MS_LABELS, LatBuckets, LatStats};
