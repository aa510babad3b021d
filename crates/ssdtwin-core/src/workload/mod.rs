//! Workloads: fio jobs, their generators, and the runner that drives a device with them.
//!
//! [`JobSpec`] is one fio job in typed form; [`fio`] reads job files and command lines into
//! a [`JobSet`] and writes fio's reports; the runner ([`run`]) executes a job set as fio
//! would (closed loop per clone with `iodepth` in flight, groups separated by `stonewall`,
//! ramp excluded from statistics) and returns a [`RunResult`]. Its one target is a
//! [`Host`](crate::os::Host) over any block device (an SSD, an HDD, a ZFS pool, an md
//! array): the workload never drives a block device itself. [`memory`] runs workloads on memory rather than on a block device (R6's
//! memcpy sweep, STREAM, Himeno) over the host's virtual memory.

mod engines;
mod error;
mod files;
pub mod fio;
mod generators;
mod job;
mod logs;
pub mod memory;
mod random_map;
mod result;
mod runner;
pub mod trace;

pub use engines::{ENGINES, FioEngine, Support, fio_engine, is_sync_engine, modelled_engine_names};
pub use error::JobError;
pub use job::*;
pub use result::*;
pub use runner::{Progress, RunError, RunOptions, run};
