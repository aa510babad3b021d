//! Typed indices of the array's parts: a die, and a program unit. Each is a `u32` index
//! into flat storage (a `Vec` of dies, the program units of the array in superblock-major
//! order), wrapped so the compiler keeps one from being passed for another; they cost
//! nothing at run time (`#[repr(transparent)]`). `geometry.rs` says how they are numbered.

use serde::{Deserialize, Serialize};

/// A die of the array: die `d` sits on channel `d % channels`, as die `d / channels` of
/// that channel ([`Geometry::die_name`](super::Geometry::die_name)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(transparent)]
#[serde(transparent)]
pub struct DieId(pub u32);

impl DieId {
    /// The die's position in a `Vec` of the array's dies.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The die's number.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// A program unit (one page on every plane of one die, the unit of a multi-plane program),
/// numbered across the array superblock-major: `superblock * pus_per_superblock +
/// row * dies + die`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(transparent)]
#[serde(transparent)]
pub struct PuId(pub u32);

impl PuId {
    /// The program unit's position in a `Vec` of the array's program units.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The program unit's number.
    #[inline]
    pub const fn get(self) -> u32 {
        self.0
    }
}
