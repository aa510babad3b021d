//! Relocation jobs: moving the valid data out of a victim superblock (GC or folding).
//!
//! The map changes at once when a job starts: every valid unit of the victim is remapped to
//! the destination stream's frontier, so the FTL never holds two live copies. The physical
//! work follows in time: one read per victim program unit that held valid data, issued a
//! window at a time by the device; each destination program unit is programmed once the
//! reads that supplied it have finished (`Frontier::deps`); the victim is erased once all its
//! reads are done and every program holding its data has finished (`ssd/background.rs`),
//! since until then host reads of that data are served from the victim.

use crate::nand::CellMode;
use serde::{Deserialize, Serialize};

/// One die read of a relocation job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelocRead {
    /// Die to read.
    pub die: u32,
    /// Mode of the victim (selects tR).
    pub mode: CellMode,
    /// Valid units read (moved over the channel).
    pub units: u32,
    /// Destination program units it feeds, as frontier sequence numbers (inclusive).
    pub dst_seq_first: u64,
    /// Last destination sequence number fed.
    pub dst_seq_last: u64,
}
