//! Errors in jobs: parsing job files and command lines, and checking jobs against a device.

use thiserror::Error;

/// A job could not be parsed or cannot run on this device. `place` is `FILE:LINE` for job
/// files or `command line` for `--option=value` arguments; messages are one line.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JobError {
    /// The job file is malformed (bad section header, text outside a section, ...).
    #[error("{place}: {message}")]
    Syntax {
        /// Where.
        place: String,
        /// What is wrong.
        message: String,
    },
    /// An fio option ssdtwin does not implement. Refused, never ignored.
    #[error("{place}: fio option '{option}' is not supported by ssdtwin{hint}")]
    Unsupported {
        /// Where.
        place: String,
        /// The option name.
        option: String,
        /// Optional advice, starting with "; ".
        hint: String,
    },
    /// A value that does not parse or is out of range.
    #[error("{place}: {option}={value}: {allowed}")]
    BadValue {
        /// Where.
        place: String,
        /// The option.
        option: String,
        /// The value as written.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A file (job file or include) could not be read.
    #[error("{place}: cannot read {path}: {reason}")]
    Unreadable {
        /// Where it was referenced (or `command line`).
        place: String,
        /// The path.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The job set is empty.
    #[error("{place}: no jobs defined")]
    NoJobs {
        /// Where.
        place: String,
    },
    /// A job does not fit the device (region beyond the namespace, block size not a multiple
    /// of the LBA size, ...).
    #[error("job '{job}': {problem}")]
    Invalid {
        /// Job name.
        job: String,
        /// What is wrong and what is allowed.
        problem: String,
    },
}
