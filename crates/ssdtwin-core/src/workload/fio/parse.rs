//! Placeholder: the fio job parser (being written).

use crate::workload::{JobError, JobSet};
use std::path::Path;

/// Parses a job file.
pub fn parse_job_file(path: &Path) -> Result<JobSet, JobError> {
    Err(JobError::Unreadable {
        place: "command line".into(),
        path: path.display().to_string(),
        reason: "parser not written yet".into(),
    })
}

/// Parses job-file text; `source` labels errors, `base_dir` resolves `include`.
pub fn parse_job_text(_text: &str, source: &str, _base_dir: &Path) -> Result<JobSet, JobError> {
    Err(JobError::NoJobs { place: source.into() })
}

/// Parses fio-style arguments (`--name=a --rw=randread ... [jobfile ...]`).
pub fn parse_command_line(_args: &[String]) -> Result<JobSet, JobError> {
    Err(JobError::NoJobs { place: "command line".into() })
}
