//! Errors of operations on a pool: bad trees and scans, unknown datasets and devices, and
//! the pool's own verdicts (lost, full). Pool-file errors are [`super::PoolError`].

use thiserror::Error;

/// An operation on a pool could not run, or the pool refused it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum OpError {
    /// A file-tree or operation parameter is outside what the model accepts.
    #[error("{field} = {value}: {allowed}")]
    Parameter {
        /// The option or field (`--size-dist`, `--files`).
        field: String,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A line of a directory scan, size histogram or zdb output cannot be read.
    #[error("{file}:{line}: {problem}")]
    Input {
        /// The file.
        file: String,
        /// Line number, from 1.
        line: usize,
        /// What is wrong and what was expected.
        problem: String,
    },
    /// An input file cannot be read at all.
    #[error("{path}: {reason}")]
    Unreadable {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// The pool has no dataset of that name.
    #[error("pool '{pool}' has no dataset '{name}' (it has {available})")]
    NoDataset {
        /// Pool name.
        pool: String,
        /// What was asked for.
        name: String,
        /// The datasets it has.
        available: String,
    },
    /// The pool has no device of that name.
    #[error("pool '{pool}' has no device '{name}' (it has {available})")]
    NoDevice {
        /// Pool name.
        pool: String,
        /// What was asked for.
        name: String,
        /// Its devices.
        available: String,
    },
    /// A dataset has no file tree to operate on, or already has one.
    #[error("dataset '{dataset}': {problem}")]
    Tree {
        /// Dataset.
        dataset: String,
        /// What is wrong.
        problem: String,
    },
    /// A top-level vdev has lost more devices than its redundancy covers: the pool, and
    /// every block on it, is gone. Nothing can run on it.
    #[error(
        "pool '{pool}' is lost: {class} vdev {vdev} has no copy left ({failed}); every top-level vdev holds the only \
         copy of its blocks, so the whole pool is unavailable"
    )]
    Lost {
        /// Pool name.
        pool: String,
        /// The vdev that failed (`special mirror-1`).
        vdev: String,
        /// Its class.
        class: String,
        /// Its failed devices.
        failed: String,
    },
    /// The normal class has no room for a block: the pool is full.
    #[error("pool '{pool}' is full: no room for a {bytes}-byte block in the normal class")]
    Full {
        /// Pool name.
        pool: String,
        /// The block that did not fit.
        bytes: u64,
    },
    /// Commands are outstanding but nothing will complete them: a bug in the model.
    #[error("internal error: the pool simulation stalled at {time_ns} ns; please report it with the pool file")]
    Stalled {
        /// Simulated time.
        time_ns: u64,
    },
}
