//! Each core error maps, once, to a class of `ssdtwin.errors`; the message is the Rust
//! `Display` text, unchanged. I/O failures map to the built-in `FileNotFoundError` and
//! `PermissionError` where those fit.

use pyo3::exceptions::{PyFileExistsError, PyFileNotFoundError, PyKeyboardInterrupt, PyPermissionError};
use pyo3::prelude::*;
use ssdtwin_core::config::ProfileError;
use ssdtwin_core::ssd::SnapshotError;
use ssdtwin_core::workload::{JobError, RunError};
use ssdtwin_core::zfs::{OpError, PoolError};

/// An instance of `ssdtwin.errors.<class>` carrying `message`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    let made = py
        .import("ssdtwin.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message.clone(),)))
        .map(PyErr::from_value);
    // If the package is not importable the extension is being used bare: still say why.
    made.unwrap_or_else(|_| pyo3::exceptions::PyRuntimeError::new_err(message))
}

pub(crate) fn profile(py: Python<'_>, e: &ProfileError) -> PyErr {
    raise(py, "ProfileError", e.to_string())
}

pub(crate) fn job(py: Python<'_>, e: &JobError) -> PyErr {
    raise(py, "JobError", e.to_string())
}

pub(crate) fn run(py: Python<'_>, e: &RunError) -> PyErr {
    match e {
        RunError::Job(j) => job(py, j),
        RunError::LogFile { kind: std::io::ErrorKind::NotFound, .. } => PyFileNotFoundError::new_err(e.to_string()),
        RunError::LogFile { .. } => PyPermissionError::new_err(e.to_string()),
        RunError::Cancelled => PyKeyboardInterrupt::new_err("interrupted"),
        _ => raise(py, "SsdtwinError", e.to_string()),
    }
}

pub(crate) fn snapshot(py: Python<'_>, e: &SnapshotError) -> PyErr {
    match e {
        SnapshotError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        SnapshotError::Io { source, .. } if source.kind() == std::io::ErrorKind::PermissionDenied => {
            PyPermissionError::new_err(e.to_string())
        }
        SnapshotError::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
            PyFileExistsError::new_err(e.to_string())
        }
        SnapshotError::Profile { .. } => raise(py, "ProfileError", e.to_string()),
        _ => raise(py, "StateError", e.to_string()),
    }
}

/// An instance of `ssdtwin.errors.<class>` with `message` (for errors of other layers).
pub(crate) fn named(py: Python<'_>, class: &str, message: String) -> PyErr {
    raise(py, class, message)
}

/// A device operation refused (busy device, bad argument).
pub(crate) fn device(py: Python<'_>, message: String) -> PyErr {
    raise(py, "DeviceError", message)
}

pub(crate) fn pool(py: Python<'_>, e: &PoolError) -> PyErr {
    match e {
        PoolError::Unreadable { .. } => PyPermissionError::new_err(e.to_string()),
        _ => raise(py, "PoolError", e.to_string()),
    }
}

pub(crate) fn op(py: Python<'_>, e: &OpError) -> PyErr {
    match e {
        OpError::Lost { .. } => raise(py, "PoolUnavailableError", e.to_string()),
        OpError::Full { .. } => raise(py, "PoolFullError", e.to_string()),
        OpError::Stalled { .. } => raise(py, "SsdtwinError", e.to_string()),
        _ => raise(py, "PoolError", e.to_string()),
    }
}
