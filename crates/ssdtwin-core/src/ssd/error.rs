//! Why the device refused a management request (format, HMB, APST).
//!
//! Each message is what the user sees (the Python bindings raise it as a `DeviceError`), so
//! its text is part of the interface: tests compare it.

use thiserror::Error;

/// A management request the device refused; it changed nothing.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DeviceError {
    /// The request needs a quiet device (no command, program, GC job or erase pending).
    #[error("{action} needs an idle device; call quiesce first")]
    NotIdle {
        /// What was asked, as the message words it ("format", "changing the HMB").
        action: &'static str,
    },
    /// Format NVM named an LBA format the namespace does not have.
    #[error("LBA format {index} does not exist; the namespace has {formats} (0 to {})", formats - 1)]
    NoSuchLbaFormat {
        /// The index asked for.
        index: usize,
        /// LBA formats the namespace has (at least one).
        formats: usize,
    },
    /// An APST table whose length is not the number of power states.
    #[error("an APST table has one entry per power state: {entries} for {states}")]
    ApstTableLength {
        /// Entries in the table.
        entries: usize,
        /// Power states of the drive.
        states: usize,
    },
    /// An APST entry leading to a power state the drive does not have.
    #[error("APST target power state {target} does not exist ({states} states)")]
    NoSuchPowerState {
        /// The target.
        target: u8,
        /// Power states of the drive.
        states: usize,
    },
}
