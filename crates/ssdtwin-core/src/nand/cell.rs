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

    /// The page type of word-line row `row` (0 = the lower page): `row mod bits`, each mode
    /// with its own constant divisor.
    #[inline]
    pub const fn page_type_of_row(self, row: u32) -> u32 {
        match self {
            CellMode::Slc => 0,
            CellMode::Mlc => row & 1,
            CellMode::Tlc => row % 3,
            CellMode::Qlc => row & 3,
        }
    }

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
    /// Page read (array to page register), tR: the mean over a word line's page types.
    pub t_read: SimDuration,
    /// How far the slowest page type's tR lies above `t_read` and the fastest's below it
    /// (page types in between are spaced evenly): a word line's lower page needs fewer
    /// sensing steps than its upper pages.
    pub t_read_spread: SimDuration,
    /// Program of one page on every plane of a die (multi-plane), tPROG: the mean over a
    /// word line's page types.
    pub t_prog: SimDuration,
    /// How far the slowest page type's tPROG lies above `t_prog` and the fastest's below it:
    /// a word line programmed page by page (planar MLC) places its upper page's states
    /// between the lower page's; 3D NAND programs a word line's pages in one shot, with none.
    #[serde(default)]
    pub t_prog_spread: SimDuration,
    /// Block erase on every plane of a die, tBERS.
    pub t_erase: SimDuration,
}

impl CellTiming {
    /// tR of page type `page_type` (0 = the lower page) of a word line in `mode`.
    #[inline]
    pub fn t_read_of(&self, mode: CellMode, page_type: u32) -> SimDuration {
        spread_by_page_type(self.t_read, self.t_read_spread, mode, page_type)
    }

    /// tPROG of page type `page_type` of a word line in `mode`.
    #[inline]
    pub fn t_prog_of(&self, mode: CellMode, page_type: u32) -> SimDuration {
        spread_by_page_type(self.t_prog, self.t_prog_spread, mode, page_type)
    }
}

/// `mean` for page type `page_type` of a word line in `mode` whose page types spread evenly
/// from `mean − spread` (the lower page) to `mean + spread` (the upper page).
#[inline]
fn spread_by_page_type(mean: SimDuration, spread: SimDuration, mode: CellMode, page_type: u32) -> SimDuration {
    if mode.bits() < 2 || spread == SimDuration::ZERO {
        return mean;
    }
    // Each mode divides by its own constant (a division by a variable would cost every read
    // more than the rest of this function).
    let twice = 2 * spread.as_ns() * u64::from(page_type);
    let step = match mode {
        CellMode::Slc | CellMode::Mlc => twice,
        CellMode::Tlc => twice / 2,
        CellMode::Qlc => twice / 3,
    };
    SimDuration((mean.as_ns() + step).saturating_sub(spread.as_ns()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_types_spread_evenly_around_the_mean_tr() {
        let t = CellTiming {
            t_read: SimDuration::from_us(60),
            t_read_spread: SimDuration::from_us(12),
            t_prog: SimDuration::from_us(700),
            t_prog_spread: SimDuration::from_us(300),
            t_erase: SimDuration::from_us(3000),
        };
        let tlc: Vec<u64> = (0..3).map(|k| t.t_read_of(CellMode::Tlc, k).as_ns() / 1000).collect();
        assert_eq!(tlc, [48, 60, 72]);
        let qlc: Vec<u64> = (0..4).map(|k| t.t_read_of(CellMode::Qlc, k).as_ns()).collect();
        assert_eq!(qlc, [48_000, 56_000, 64_000, 72_000]);
        assert_eq!(qlc.iter().sum::<u64>() / 4, 60_000);
        assert_eq!(t.t_read_of(CellMode::Slc, 0), t.t_read);
        let mlc: Vec<u64> = (0..2).map(|k| t.t_prog_of(CellMode::Mlc, k).as_ns() / 1000).collect();
        assert_eq!(mlc, [400, 1000], "an MLC word line's lower page programs fast, its upper page slow");
        assert_eq!(t.t_prog_of(CellMode::Slc, 0), t.t_prog);
    }
}
