//! Block commands and their completions: what crosses the seam between the host stack and a
//! block target. The opcodes are NVMe's I/O command set, which every target here speaks.

use super::zones::{ZoneAction, ZoneError};
use crate::engine::SimTime;
use thiserror::Error;

/// I/O command opcodes modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// Read (0x02).
    Read,
    /// Write (0x01).
    Write,
    /// Dataset Management with the Deallocate attribute (0x09): TRIM.
    Trim,
    /// Flush (0x00).
    Flush,
    /// Zone Append (0x7D): a write at the write pointer of the zone starting at `slba`; its
    /// completion says where the data went.
    ZoneAppend,
    /// Zone Management Send (0x79) of `action` to the zone starting at `slba`, or (`all`) to
    /// every zone in a state the action applies to.
    ZoneSend {
        /// The action.
        action: ZoneAction,
        /// Select All.
        all: bool,
    },
}

impl Opcode {
    /// True for the Zoned Namespace commands, which only a zoned target takes.
    #[inline]
    pub const fn is_zoned(self) -> bool {
        matches!(self, Opcode::ZoneAppend | Opcode::ZoneSend { .. })
    }

    /// True for the commands that carry data to the target.
    #[inline]
    pub const fn writes(self) -> bool {
        matches!(self, Opcode::Write | Opcode::ZoneAppend)
    }
}

/// One command: `blocks` LBAs from `slba` (ignored for Flush).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// Opcode.
    pub opcode: Opcode,
    /// Starting LBA.
    pub slba: u64,
    /// Number of LBAs (at least 1 for Read, Write, Trim).
    pub blocks: u32,
    /// A write's data placement directive (NVMe's Directive Type 2, its Directive Specific
    /// field): where an FDP drive puts the data. `None` on every other command.
    pub placement: Option<PlacementId>,
}

impl Command {
    /// A command with no directive.
    pub const fn new(opcode: Opcode, slba: u64, blocks: u32) -> Self {
        Command { opcode, slba, blocks, placement: None }
    }
}

/// A placement identifier: the reclaim group (high bits, as many as the drive's reclaim
/// groups need) and the placement handle within it. With one reclaim group, the handle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct PlacementId(pub u16);

/// A finished command, handed back by [`BlockDevice::poll`](super::BlockDevice::poll).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The caller's identifier given at submission.
    pub user: u64,
    /// The command.
    pub command: Command,
    /// When it was submitted (the doorbell).
    pub submitted: SimTime,
    /// When its completion was posted to the host.
    pub completed: SimTime,
    /// A Zone Append's assigned LBA (the first it wrote); 0 for every other command.
    pub assigned_lba: u64,
}

/// A command the device refuses.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SubmitError {
    /// LBAs beyond the namespace.
    #[error("LBA range {slba}+{blocks} is beyond the namespace ({lbas} LBAs)")]
    OutOfRange {
        /// Starting LBA.
        slba: u64,
        /// Count.
        blocks: u32,
        /// Namespace size in LBAs.
        lbas: u64,
    },
    /// A zero-length data command.
    #[error("a {opcode:?} command needs at least one LBA")]
    Empty {
        /// Opcode.
        opcode: Opcode,
    },
    /// A write names a placement identifier, and the drive has no Flexible Data Placement.
    #[error(
        "the drive has no Flexible Data Placement (its profile has no [fdp] section), so a write cannot name placement identifier {placement}"
    )]
    NoPlacement {
        /// The identifier named.
        placement: u16,
    },
    /// A zoned command to a target without zones.
    #[error("{opcode:?} is a Zoned Namespace command, and the target has no zones (its profile has no [zns] section)")]
    NotZoned {
        /// Opcode.
        opcode: Opcode,
    },
    /// A command the zones refuse (their state, write pointer or limits).
    #[error("{0}")]
    Zone(#[from] ZoneError),
    /// Deallocate on a zoned namespace.
    #[error("a zoned namespace frees data by Zone Reset, not Deallocate (TRIM)")]
    TrimOnZoned,
    /// The command is larger than MDTS allows.
    #[error("{bytes} bytes exceed the maximum data transfer size of {mdts_bytes} bytes")]
    TooLarge {
        /// Transfer size.
        bytes: u64,
        /// MDTS in bytes.
        mdts_bytes: u64,
    },
}
