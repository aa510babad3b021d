//! The controller: firmware cores, the write buffer, and the L2P map cache.
//!
//! Firmware cores are a [`ServerPool`](crate::engine::ServerPool): each command occupies the
//! core free soonest, for `read_cmd + units × unit` plus the map lookups' cost (reads),
//! `write_cmd + units × unit` (writes), `write_cmd + units × trim_unit` (trims) or
//! `write_cmd` (flushes); a translation-page load takes `map_load_fw` more once the page
//! arrives. The write buffer acknowledges writes once
//! their data is in controller memory and holds them until programmed; when it is full, new
//! writes wait (back-pressure). The map cache decides what a lookup costs; with the whole map
//! in DRAM it is free. The firmware's thermal management (`thermal`) heats the drive with
//! the power of its work and throttles it at its thresholds. See `docs/model.md` §
//! "Controller".

pub mod map_cache;
pub mod thermal;
mod write_buffer;

pub use map_cache::{MapCache, MapCacheConfig};
pub use write_buffer::WriteBuffer;

use crate::engine::SimDuration;

/// Firmware and buffer parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ControllerConfig {
    /// Firmware cores.
    pub cores: u32,
    /// Firmware time per read command.
    pub read_cmd: SimDuration,
    /// Firmware time per write, trim or flush command.
    pub write_cmd: SimDuration,
    /// Firmware time per map unit a read or write touches.
    pub unit: SimDuration,
    /// Firmware time per map unit trimmed.
    pub trim_unit: SimDuration,
    /// Write buffer size in map units.
    pub buffer_units: u32,
    /// Whether the buffer survives power loss.
    pub power_protected: bool,
    /// Coefficient of variation of the per-command firmware time (log-normal, mean 1).
    pub cmd_cv: f64,
}
