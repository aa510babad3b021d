//! `ssdtwin serve`: the twin as an NBD export that real clients (fio's nbd engine,
//! qemu-io, nbdcopy, nbdfuse) read and write, with each reply released when the twin
//! completes the command, mapped to wall-clock time. This crate is the only simulation code of
//! the project that reads a wall clock (besides it, only what watches the server from Python,
//! `python/ssdtwin/live/`, the prober's timing of real targets, and progress bars do).
//!
//! * [`protocol`]: the NBD handshake and framing;
//! * [`store`]: the data clients wrote;
//! * [`server`]: connections, the twin's thread and its pacing;
//! * [`stats`]: what the server reports;
//! * [`live`]: what it shows while it serves (snapshots, time-scale requests).

pub mod live;
pub mod protocol;
pub mod server;
pub mod stats;
pub mod store;

pub use live::Live;
pub use server::{Listen, ServeConfig, ServeError, Server};
pub use stats::ServeStats;
