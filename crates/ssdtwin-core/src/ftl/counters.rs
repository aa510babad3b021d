//! The FTL's activity counters.

use serde::{Deserialize, Serialize};

/// FTL activity counters, in map units unless named otherwise. Counters missing from an
/// older state file start at zero.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FtlCounters {
    /// Units written by the host.
    pub host_units_written: u64,
    /// Units trimmed (that were mapped).
    pub units_trimmed: u64,
    /// Units moved by GC.
    pub gc_units_moved: u64,
    /// GC jobs started.
    pub gc_jobs: u64,
    /// Host units written into the SLC cache.
    pub host_units_slc: u64,
    /// Units folded from SLC to the native mode.
    pub folded_units: u64,
    /// Fold jobs started (one SLC superblock each).
    pub fold_jobs: u64,
    /// Units programmed, per cell mode ([`CellMode::index`]), padding included.
    pub units_programmed: [u64; 4],
    /// Padding units programmed to close a partial program unit.
    pub padding_units: u64,
    /// Units read by relocation.
    pub reloc_units_read: u64,
    /// Superblock erases (one per superblock, covering every die).
    pub superblock_erases: u64,
    /// Of those, erases of superblocks written in SLC mode.
    pub slc_superblock_erases: u64,
    /// Block erases (one per block of every plane of every die a superblock erase covers).
    pub block_erases: u64,
    /// Static wear-levelling jobs started (also counted in `gc_jobs`).
    pub wl_jobs: u64,
    /// Units moved by static wear levelling (also counted in `gc_units_moved`).
    pub wl_units_moved: u64,
}
