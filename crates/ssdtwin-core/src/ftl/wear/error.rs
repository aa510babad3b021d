//! Why a saved wear state does not fit the array it is restored over.

use thiserror::Error;

/// A saved wear state that does not fit this array or does not hold together (each block
/// serves at most one slot or waits in one spare pool of its own plane).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum WearStateError {
    /// One spare pool per plane is stored.
    #[error("wear: {pools} spare pools for {planes} planes")]
    SparePools {
        /// Pools in the state.
        pools: usize,
        /// Planes of the array.
        planes: usize,
    },
    /// Spares or remapped slots without the per-block erase counts.
    #[error("wear: per-block erase counts are missing")]
    ErasesMissing,
    /// Per-block erase counts for another number of blocks.
    #[error("wear: erase counts for {stored} blocks, the array has {blocks}")]
    EraseCounts {
        /// Blocks in the state.
        stored: usize,
        /// Blocks of the array.
        blocks: usize,
    },
    /// A slot served by a block beyond its plane (or a slot beyond the array).
    #[error("wear: slot {slot} is served by block {block}, outside its plane")]
    SlotOutside {
        /// Superblock slot.
        slot: u32,
        /// Block within the plane.
        block: u32,
    },
    /// A superblock retired in some planes only.
    #[error("wear: superblock {sb} is retired in some planes and not others")]
    PartlyRetired {
        /// Superblock.
        sb: usize,
    },
    /// A block in two places (in service, a spare, bad).
    #[error("wear: block {block} is {role} and somewhere else too")]
    TwoPlaces {
        /// Block index in the array.
        block: usize,
        /// One of its places ("in service", "a spare", "bad").
        role: &'static str,
    },
    /// A spare block beyond its plane.
    #[error("wear: spare block {block} is outside its plane")]
    SpareOutside {
        /// Block within the plane.
        block: u32,
    },
    /// A bad block beyond the array.
    #[error("wear: bad block {block} is outside the array")]
    BadOutside {
        /// Block index in the array.
        block: u32,
    },
    /// A block kept in service as worn that is not marked bad.
    #[error("wear: block {block} is kept in service as worn but is not bad")]
    KeptNotBad {
        /// Block index in the array.
        block: u32,
    },
}
