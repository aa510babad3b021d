//! Placeholder: fio JSON output (being written).

use crate::workload::{JobSet, RunResult};

/// Wall-clock time of the run, supplied by the caller (the model never reads a clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WallClock {
    /// Milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// `ctime()`-style local time without the newline, e.g. `Sat Nov 21 19:08:42 2026`.
    pub ctime: String,
}

/// How to write the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOptions {
    /// `json+`: add latency `bins`.
    pub plus: bool,
    /// When the run happened.
    pub wall: WallClock,
    /// Device name for `disk_util` and the normal report.
    pub device_name: String,
}

/// Renders fio 3.33's JSON.
pub fn fio_json(_set: &JobSet, _result: &RunResult, _opts: &OutputOptions) -> String {
    String::new()
}
