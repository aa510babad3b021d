//! Placeholder: fio human-readable output (being written).

use super::OutputOptions;
use crate::workload::{JobSet, RunResult};

/// Renders fio 3.33's normal output.
pub fn fio_normal(_set: &JobSet, _result: &RunResult, _opts: &OutputOptions) -> String {
    String::new()
}
