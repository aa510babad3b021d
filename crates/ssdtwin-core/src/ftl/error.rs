//! Why the FTL's state does not hold together: a broken invariant found by
//! [`Ftl::check_invariants`](super::Ftl::check_invariants), or a saved state that does not
//! fit the device it is restored over ([`Ftl::import_state`](super::Ftl::import_state)).
//!
//! A snapshot that fails here is reported as corrupt with this message, so the text is
//! part of the interface.

use super::SbState;
use super::wear::WearStateError;
use crate::nand::CellMode;
use thiserror::Error;

/// A broken FTL invariant or a saved state that does not fit; the first one found.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum StateError {
    /// The saved state has other superblock or stream counts.
    #[error("superblock or stream count differs from this device")]
    Shape,
    /// The saved per-superblock arrays have other lengths, or the free pool names a
    /// superblock beyond them.
    #[error("superblock arrays differ in length from this device")]
    ArrayLengths,
    /// The saved verify tags cover another number of physical units.
    #[error("verify tags do not match the physical array")]
    Tags,
    /// An L2P entry beyond the physical array.
    #[error("map points beyond the physical array")]
    MapBeyondArray,
    /// Two L2P entries at one physical unit.
    #[error("two logical units map to physical unit {ppa}")]
    MappedTwice {
        /// The physical unit.
        ppa: u64,
    },
    /// The saved wear does not fit.
    #[error(transparent)]
    Wear(#[from] WearStateError),
    /// L2P and P2L disagree on a mapped unit.
    #[error("lpn {lpn} maps to ppa {ppa}, whose owner is {owner}")]
    OwnerDiffers {
        /// Logical unit.
        lpn: u64,
        /// Where the L2P puts it.
        ppa: u64,
        /// What the P2L says is there.
        owner: u64,
    },
    /// A P2L entry whose logical unit the L2P puts elsewhere.
    #[error("ppa {ppa} claims lpn {lpn}, which maps elsewhere")]
    StaleOwner {
        /// Physical unit.
        ppa: u64,
        /// The logical unit it claims.
        lpn: u64,
    },
    /// A superblock's valid count is not what the map holds in it.
    #[error("superblock {sb}: valid count {valid}, map says {mapped}")]
    ValidCount {
        /// Superblock.
        sb: u32,
        /// Its valid count.
        valid: u32,
        /// Units the map places in it.
        mapped: u32,
    },
    /// A superblock that should hold nothing holds valid units.
    #[error("superblock {sb} is {state:?} but holds {valid} valid units")]
    ValidWhenEmpty {
        /// Superblock.
        sb: u32,
        /// Its state (Free, Victim, Erasing or Retired).
        state: SbState,
        /// Its valid count.
        valid: u32,
    },
    /// A superblock retired while its blocks serve it, or the other way round.
    #[error("superblock {sb} is {state:?} but its blocks say otherwise")]
    Retirement {
        /// Superblock.
        sb: u32,
        /// Its state.
        state: SbState,
    },
    /// More SLC erases than erases.
    #[error("superblock {sb} has more SLC erases than erases")]
    SlcErases {
        /// Superblock.
        sb: u32,
    },
    /// The SLC valid counter is not what the map holds in SLC superblocks.
    #[error("SLC holds {mapped} valid units, the counter says {counter}")]
    SlcValid {
        /// Units the map places in SLC superblocks.
        mapped: u64,
        /// The counter.
        counter: u64,
    },
    /// The SLC superblock counter is not the number of SLC superblocks in use.
    #[error("{in_use} superblocks are in SLC mode, the counter says {counter}")]
    SlcInUse {
        /// SLC superblocks that are not free.
        in_use: usize,
        /// The counter.
        counter: u32,
    },
    /// The free pool holds a superblock that is not Free.
    #[error("the free pool holds a superblock that is not Free")]
    FreePool,
    /// The free pool misses Free superblocks.
    #[error("{free} superblocks are Free, the free pool holds {pool}")]
    FreeCount {
        /// Superblocks in state Free.
        free: usize,
        /// Superblocks in the pool.
        pool: usize,
    },
    /// A frontier writes a superblock beyond the array.
    #[error("frontier {frontier} writes superblock {sb}, beyond the {superblocks} there are")]
    FrontierBeyond {
        /// Frontier (stream index).
        frontier: usize,
        /// Superblock.
        sb: u32,
        /// Superblocks of the array.
        superblocks: u32,
    },
    /// The state's Flexible Data Placement does not match the profile's `[fdp]`.
    #[error("the state's Flexible Data Placement (handles, superblock owners) does not match the profile's [fdp]")]
    Placement,
    /// Two frontiers write one superblock.
    #[error("frontiers {first} and {second} both write superblock {sb}")]
    FrontiersShare {
        /// The first frontier.
        first: usize,
        /// The second frontier.
        second: usize,
        /// Superblock.
        sb: u32,
    },
    /// A frontier writes a superblock that is not open, or open in another mode.
    #[error("frontier {frontier} writes superblock {sb} in {mode:?} mode, which is {state:?} in {sb_mode:?} mode")]
    FrontierState {
        /// Frontier (stream index).
        frontier: usize,
        /// Superblock.
        sb: u32,
        /// The frontier's mode.
        mode: CellMode,
        /// The superblock's state.
        state: SbState,
        /// The superblock's mode.
        sb_mode: CellMode,
    },
    /// A frontier past its superblock's capacity, or with a capacity not of its mode.
    #[error("frontier {frontier} is at unit {next} of {capacity} in superblock {sb}")]
    FrontierPosition {
        /// Frontier (stream index).
        frontier: usize,
        /// Its next unit.
        next: u32,
        /// Its capacity.
        capacity: u32,
        /// Superblock.
        sb: u32,
    },
    /// An open superblock no frontier writes.
    #[error("superblock {sb} is open but no frontier writes it")]
    OpenUnwritten {
        /// Superblock.
        sb: u32,
    },
}
