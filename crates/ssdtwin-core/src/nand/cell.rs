//! Cell modes and their timings.
//!
//! A block of TLC or QLC NAND can also be programmed with one bit per cell (pSLC): it then
//! holds a third or a quarter of the pages and uses the faster SLC timings. The mode is a
//! property of each superblock, set when it is opened (see `ftl::blocks`).

use crate::engine::SimDuration;
use serde::{Deserialize, Serialize};

/// Bits stored per cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellMode {
    /// 1 bit per cell.
    Slc,
    /// 2 bits per cell.
    Mlc,
    /// 3 bits per cell.
    Tlc,
    /// 4 bits per cell.
    Qlc,
}

impl CellMode {
    /// All modes, in order of bits per cell.
    pub const ALL: [CellMode; 4] = [CellMode::Slc, CellMode::Mlc, CellMode::Tlc, CellMode::Qlc];

    /// Bits per cell.
    #[inline]
    pub const fn bits(self) -> u32 {
        match self {
            CellMode::Slc => 1,
            CellMode::Mlc => 2,
            CellMode::Tlc => 3,
            CellMode::Qlc => 4,
        }
    }

    /// Index into per-mode tables.
    #[inline]
    pub const fn index(self) -> usize {
        self.bits() as usize - 1
    }

    /// Lower-case name, as in profiles.
    pub const fn name(self) -> &'static str {
        match self {
            CellMode::Slc => "slc",
            CellMode::Mlc => "mlc",
            CellMode::Tlc => "tlc",
            CellMode::Qlc => "qlc",
        }
    }
}

/// Array-operation times of one cell mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellTiming {
    /// Page read (array to page register), tR.
    pub t_read: SimDuration,
    /// Program of one page on every plane of a die (multi-plane), tPROG.
    pub t_prog: SimDuration,
    /// Block erase on every plane of a die, tBERS.
    pub t_erase: SimDuration,
}
