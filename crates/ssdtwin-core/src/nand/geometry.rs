//! Geometry and physical addressing.
//!
//! The array is `channels × dies_per_channel` dies, each with `planes` planes of
//! `blocks_per_plane` blocks of `pages_per_block` pages (in the native cell mode) of
//! `page_bytes`. A page holds `page_bytes / 4096` map units.
//!
//! Blocks are managed in **superblocks**: superblock `s` is block `s` of every plane of every
//! die, written and erased together, as controllers with die-level striping do. A physical
//! unit address ([`Ppa`]) numbers units in stripe order inside a superblock:
//!
//! ```text
//! ppa = ((sb * rows + row) * dies + die) * planes * units_per_page + plane * units_per_page + slot
//! ```
//!
//! so a write frontier is a counter, sequential data lands on consecutive dies, and a GC
//! victim is one contiguous range of addresses. A **program unit** is one page on every plane
//! of one die (the unit of a multi-plane program); die `d` sits on channel `d % channels`, so
//! consecutive program units also alternate channels.

use super::{CellMode, DieId, PuId};
use strength_reduce::{StrengthReducedU32, StrengthReducedU64};

/// Bytes in one map unit, the granularity of the L2P map.
pub const UNIT_BYTES: u64 = 4096;

/// A physical map-unit address (see the module doc for the layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ppa(pub u64);

/// A validated geometry with the derived strides used by address decoding.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// NAND channels.
    pub channels: u32,
    /// Dies on each channel.
    pub dies_per_channel: u32,
    /// Planes in each die.
    pub planes: u32,
    /// Blocks in each plane (= number of superblocks).
    pub blocks_per_plane: u32,
    /// Pages per block when programmed in the native cell mode.
    pub pages_per_block: u32,
    /// Bytes of user data per page.
    pub page_bytes: u32,
    /// The cell mode the NAND is built for.
    pub native: CellMode,
    units_per_page: u32,
    pu_units: u32,
    row_units: u32,
    sb_units: u32,
    /// The strides as divisors by multiplication: every read decodes addresses several
    /// times, and a hardware division takes tens of cycles.
    divide: Divisors,
}

#[derive(Clone, Copy, Debug)]
struct Divisors {
    sb_units: StrengthReducedU64,
    pu_units: StrengthReducedU64,
    pu_units_in_sb: StrengthReducedU32,
    pus_per_sb: StrengthReducedU32,
    dies: StrengthReducedU32,
    channels: StrengthReducedU32,
}

// The strides and divisors follow from the counts.
impl PartialEq for Geometry {
    fn eq(&self, other: &Self) -> bool {
        (self.channels, self.dies_per_channel, self.planes, self.blocks_per_plane, self.pages_per_block)
            == (other.channels, other.dies_per_channel, other.planes, other.blocks_per_plane, other.pages_per_block)
            && (self.page_bytes, self.native) == (other.page_bytes, other.native)
    }
}
impl Eq for Geometry {}

impl Geometry {
    /// Derives the strides. The caller (config validation) guarantees every count is
    /// non-zero, `page_bytes` is a multiple of 4096, a superblock's units and the array's
    /// program units fit in `u32` and its units in the map (`ftl::MAX_PHYSICAL_UNITS`).
    pub fn new(
        channels: u32,
        dies_per_channel: u32,
        planes: u32,
        blocks_per_plane: u32,
        pages_per_block: u32,
        page_bytes: u32,
        native: CellMode,
    ) -> Self {
        let units_per_page = page_bytes / UNIT_BYTES as u32;
        let pu_units = planes * units_per_page;
        let row_units = channels * dies_per_channel * pu_units;
        let sb_units = pages_per_block * row_units;
        let dies = channels * dies_per_channel;
        let divide = Divisors {
            sb_units: StrengthReducedU64::new(u64::from(sb_units)),
            pu_units: StrengthReducedU64::new(u64::from(pu_units)),
            pu_units_in_sb: StrengthReducedU32::new(pu_units),
            pus_per_sb: StrengthReducedU32::new(sb_units / pu_units),
            dies: StrengthReducedU32::new(dies),
            channels: StrengthReducedU32::new(channels),
        };
        Geometry {
            channels,
            dies_per_channel,
            planes,
            blocks_per_plane,
            pages_per_block,
            page_bytes,
            native,
            units_per_page,
            pu_units,
            row_units,
            sb_units,
            divide,
        }
    }

    /// Total dies.
    #[inline]
    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }
    /// Map units per page.
    #[inline]
    pub fn units_per_page(&self) -> u32 {
        self.units_per_page
    }
    /// Map units per program unit (one page on every plane of a die).
    #[inline]
    pub fn pu_units(&self) -> u32 {
        self.pu_units
    }
    /// Map units per row (one program unit on every die).
    #[inline]
    pub fn row_units(&self) -> u32 {
        self.row_units
    }
    /// Map units per superblock when written in the native mode.
    #[inline]
    pub fn sb_units(&self) -> u32 {
        self.sb_units
    }
    /// Superblocks in the array.
    #[inline]
    pub fn superblocks(&self) -> u32 {
        self.blocks_per_plane
    }
    /// Physical map units in the array (native mode everywhere).
    pub fn total_units(&self) -> u64 {
        u64::from(self.sb_units) * u64::from(self.blocks_per_plane)
    }
    /// Raw bytes of the array in the native mode.
    pub fn raw_bytes(&self) -> u64 {
        self.total_units() * UNIT_BYTES
    }
    /// Rows (pages per block) a superblock has when written in `mode`.
    #[inline]
    pub fn rows_in(&self, mode: CellMode) -> u32 {
        self.pages_per_block * mode.bits() / self.native.bits()
    }
    /// Usable map units of a superblock written in `mode`.
    #[inline]
    pub fn sb_units_in(&self, mode: CellMode) -> u32 {
        self.rows_in(mode) * self.row_units
    }
    /// Program units in the array (native mode everywhere).
    pub fn total_pus(&self) -> u64 {
        self.total_units() / u64::from(self.pu_units)
    }
    /// First address of superblock `sb`.
    #[inline]
    pub fn sb_base(&self, sb: u32) -> u64 {
        u64::from(sb) * u64::from(self.sb_units)
    }
    /// Superblock holding `ppa`.
    #[inline]
    pub fn sb_of(&self, ppa: Ppa) -> u32 {
        (ppa.0 / self.divide.sb_units) as u32
    }
    /// Program unit (row × dies + die) of `ppa` inside its superblock.
    #[inline]
    pub fn pu_in_sb(&self, ppa: Ppa) -> u32 {
        (ppa.0 % self.divide.sb_units) as u32 / self.divide.pu_units_in_sb
    }
    /// Global program-unit index of `ppa` (superblock-major).
    #[inline]
    pub fn pu_of(&self, ppa: Ppa) -> PuId {
        PuId((ppa.0 / self.divide.pu_units) as u32)
    }
    /// Die holding `ppa`.
    #[inline]
    pub fn die_of(&self, ppa: Ppa) -> DieId {
        self.die_of_pu(self.pu_of(ppa))
    }
    /// Die of global program unit `pu`.
    #[inline]
    pub fn die_of_pu(&self, pu: PuId) -> DieId {
        DieId(pu.0 % self.divide.dies)
    }
    /// Superblock of global program unit `pu`, and its index inside it.
    #[inline]
    pub fn sb_of_pu(&self, pu: PuId) -> (u32, u32) {
        StrengthReducedU32::div_rem(pu.0, self.divide.pus_per_sb)
    }
    /// Page type (0 = the word line's lower page) that program unit `pu` holds when
    /// written in `mode`: a superblock is written a row at a time, one page per die, so the
    /// row is the page's index in its blocks.
    #[inline]
    pub fn page_type_of_pu(&self, pu: PuId, mode: CellMode) -> u32 {
        let (_, in_sb) = self.sb_of_pu(pu);
        mode.page_type_of_row(in_sb / self.divide.dies)
    }
    /// Channel of die `die`.
    #[inline]
    pub fn channel_of_die(&self, die: DieId) -> u32 {
        die.0 % self.divide.channels
    }
    /// Hierarchical name of a die for reports, e.g. `ch1.die3`.
    pub fn die_name(&self, die: DieId) -> String {
        format!("ch{}.die{}", die.0 % self.channels, die.0 / self.channels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Geometry {
        // 2 channels x 2 dies x 2 planes, 16 KiB pages (4 units), 6 pages per TLC block.
        Geometry::new(2, 2, 2, 10, 6, 16384, CellMode::Tlc)
    }

    #[test]
    fn a_program_unit_holds_the_page_type_of_its_row() {
        // 4 dies a row; rows 0, 1, 2 are a TLC word line's lower, middle and upper pages.
        let g = small();
        let types: Vec<u32> = (0..24).map(|pu| g.page_type_of_pu(PuId(pu), CellMode::Tlc)).collect();
        assert_eq!(&types[..12], &[0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(&types[12..], &types[..12]);
        // The next superblock starts at row 0 again; an SLC page has one type.
        assert_eq!(g.page_type_of_pu(PuId(24), CellMode::Tlc), 0);
        assert!((0..24).all(|pu| g.page_type_of_pu(PuId(pu), CellMode::Slc) == 0));
    }

    #[test]
    fn strides_follow_the_stripe_layout() {
        let g = small();
        assert_eq!(g.dies(), 4);
        assert_eq!(g.pu_units(), 8);
        assert_eq!(g.row_units(), 32);
        assert_eq!(g.sb_units(), 192);
        assert_eq!(g.total_units(), 1920);
        assert_eq!(g.rows_in(CellMode::Slc), 2);
        assert_eq!(g.sb_units_in(CellMode::Slc), 64);
    }

    #[test]
    fn decoding_walks_dies_then_rows() {
        let g = small();
        assert_eq!(g.die_of(Ppa(0)), DieId(0));
        assert_eq!(g.die_of(Ppa(7)), DieId(0));
        assert_eq!(g.die_of(Ppa(8)), DieId(1));
        assert_eq!(g.die_of(Ppa(31)), DieId(3));
        assert_eq!(g.die_of(Ppa(32)), DieId(0));
        assert_eq!(g.pu_in_sb(Ppa(32)), 4);
        assert_eq!(g.sb_of(Ppa(192)), 1);
        assert_eq!(g.pu_in_sb(Ppa(192)), 0);
        assert_eq!(g.channel_of_die(DieId(3)), 1);
        assert_eq!(g.die_name(DieId(3)), "ch1.die1");
        assert_eq!(g.die_of_pu(PuId(5)), DieId(1));
        assert_eq!(g.sb_of_pu(PuId(25)), (1, 1));
    }

    proptest::proptest! {
        // The decoders divide by multiplication; they must agree with plain division for
        // every shape a profile can give (odd die counts and pages per block included) and
        // every address of the array.
        #[test]
        fn decoding_agrees_with_division(
            channels in 1u32..=32,
            dies_per_channel in 1u32..=16,
            planes in 1u32..=6,
            pages_per_block in 1u32..=3000,
            blocks_per_plane in 1u32..=100_000,
            units_per_page in 1u32..=8,
            raw in 0u64..u64::MAX,
        ) {
            let g = Geometry::new(channels, dies_per_channel, planes, blocks_per_plane, pages_per_block,
                units_per_page * 4096, CellMode::Tlc);
            // Validation keeps the array's program units within 32 bits.
            proptest::prop_assume!(u32::try_from(g.total_pus()).is_ok());
            let (pu_units, dies) = (u64::from(planes * units_per_page), u64::from(channels * dies_per_channel));
            let sb_units = pu_units * dies * u64::from(pages_per_block);
            let unit = raw % g.total_units();
            let ppa = Ppa(unit);
            let pu = unit / pu_units;
            proptest::prop_assert_eq!(u64::from(g.sb_of(ppa)), unit / sb_units);
            proptest::prop_assert_eq!(u64::from(g.pu_in_sb(ppa)), unit % sb_units / pu_units);
            proptest::prop_assert_eq!(u64::from(g.pu_of(ppa).get()), pu);
            proptest::prop_assert_eq!(u64::from(g.die_of(ppa).get()), pu % dies);
            let pu = pu as u32;
            let pus_per_sb = (sb_units / pu_units) as u32;
            proptest::prop_assert_eq!(g.sb_of_pu(PuId(pu)), (pu / pus_per_sb, pu % pus_per_sb));
            proptest::prop_assert_eq!(g.channel_of_die(DieId(pu)), pu % channels);
        }
    }
}
