//! Errors in profile files: the variants every kind of profile (drive, host, disk) shares,
//! worded once so every file reports a bad field the same way.

use thiserror::Error;

/// A profile could not be turned into a configuration. Every variant names the file (or the
/// override source) and the field; the simulation never starts with a bad profile.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProfileError {
    /// The TOML is malformed, has a wrong type, or an unknown field.
    #[error("{file}: {message}")]
    Parse {
        /// File or source label.
        file: String,
        /// The parser's message, on one line, with the line and column.
        message: String,
    },
    /// A value is outside what the model accepts.
    #[error("{file}: {field} = {value}: {allowed}")]
    OutOfRange {
        /// File or source label.
        file: String,
        /// Dotted field name, e.g. `nand.page_bytes`.
        field: String,
        /// The offending value.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A required field is missing.
    #[error("{file}: {field} is required ({why})")]
    Missing {
        /// File or source label.
        file: String,
        /// Dotted field name.
        field: String,
        /// Why it is needed.
        why: String,
    },
    /// A profile file that exists cannot be read as one (not a regular file, too large,
    /// not UTF-8).
    #[error("profile '{path}' cannot be read: {reason}")]
    Unreadable {
        /// The path given.
        path: String,
        /// Why (not a regular file, too large, not UTF-8).
        reason: String,
    },
    /// A name is neither a shipped profile nor a readable file.
    #[error("profile '{name}' is neither a shipped profile ({available}) nor a readable TOML file")]
    NotFound {
        /// What was asked for.
        name: String,
        /// Shipped profile names.
        available: String,
    },
    /// A name is neither a shipped host profile nor a readable file.
    #[error("host profile '{name}' is neither a shipped host ({available}) nor a readable TOML file")]
    HostNotFound {
        /// What was asked for.
        name: String,
        /// Shipped host profile names.
        available: String,
    },
    /// The profile uses a section or field that has moved.
    #[error("{file}: {what} has moved: use {now}")]
    Moved {
        /// File or source label.
        file: String,
        /// The old section or field.
        what: String,
        /// Where it is now.
        now: String,
    },
    /// An override (`section.field=value`) is malformed.
    #[error("override '{text}': {problem}")]
    BadOverride {
        /// The override as given.
        text: String,
        /// What is wrong.
        problem: String,
    },
}
