//! The superblock table: state, valid count, cell mode, erase counts and age of every
//! superblock, and the free pool.
//!
//! ```text
//!   Free ──open──▶ Open ──filled──▶ Full ──chosen by GC/fold/wear levelling──▶ Victim
//!    ▲                                                            │ reads and programs of
//!    └───────────── all dies erased ◀── Erasing ◀─────────────────┘ its data done
//!                         │ a block failed with no spare in its plane
//!                         ▼
//!                      Retired
//! ```
//!
//! * **Free**: erased, in the free pool; which one opens next is the wear-levelling
//!   policy's choice (`ftl::wear`).
//! * **Open**: a write frontier is filling it in one cell mode.
//! * **Full**: no room left; holds valid and invalid units.
//! * **Victim**: its valid units have been remapped elsewhere; the relocation reads of the
//!   old copies, or the programs of the new ones, are not all done (until a program is
//!   done, host reads of its data go to the victim).
//! * **Erasing**: one erase per die queued; free once the last finishes.
//! * **Retired**: a block of it wore out and its plane had no spare: never used again (its
//!   good blocks became spares of their planes).
//!
//! Format returns every superblock to Free at once, without an erase: erase counts stay as
//! they were and no time passes.

use crate::nand::CellMode;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Lifecycle state of a superblock (see the module doc for transitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SbState {
    /// Erased and in the free pool.
    Free,
    /// Being filled by a frontier.
    Open,
    /// Filled.
    Full,
    /// Valid data remapped elsewhere; its relocation reads or programs are pending.
    Victim,
    /// Erases queued.
    Erasing,
    /// Out of service for good (a worn-out block with no spare to replace it).
    Retired,
}

/// Per-superblock arrays (struct of arrays) and the free pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Superblocks {
    pub(crate) state: Vec<SbState>,
    pub(crate) valid: Vec<u32>,
    pub(crate) mode: Vec<CellMode>,
    pub(crate) erase_count: Vec<u32>,
    /// Of `erase_count`, the erases in SLC mode (missing from an older state: sized on load).
    #[serde(default)]
    pub(crate) slc_erase_count: Vec<u32>,
    /// Write sequence number when the superblock was last written (age for cost-benefit).
    pub(crate) last_write_seq: Vec<u64>,
    /// Erases still outstanding while Erasing.
    pub(crate) erases_pending: Vec<u32>,
    /// Superblocks in the Victim or Erasing state.
    pub(crate) reclaiming: u32,
    pub(crate) free: VecDeque<u32>,
}

impl Superblocks {
    /// `n` free superblocks in the native mode.
    pub fn new(n: u32, native: CellMode) -> Self {
        Superblocks {
            state: vec![SbState::Free; n as usize],
            valid: vec![0; n as usize],
            mode: vec![native; n as usize],
            erase_count: vec![0; n as usize],
            slc_erase_count: vec![0; n as usize],
            last_write_seq: vec![0; n as usize],
            erases_pending: vec![0; n as usize],
            reclaiming: 0,
            free: (0..n).collect(),
        }
    }

    /// Number of superblocks.
    pub fn len(&self) -> u32 {
        self.state.len() as u32
    }

    /// True if there are none (never, after validation).
    pub fn is_empty(&self) -> bool {
        self.state.is_empty()
    }

    /// Superblocks in the free pool.
    #[inline]
    pub fn free_count(&self) -> u32 {
        self.free.len() as u32
    }

    /// Superblocks being reclaimed (Victim or Erasing).
    #[inline]
    pub fn reclaiming(&self) -> u32 {
        self.reclaiming
    }

    /// State of `sb`.
    pub fn state(&self, sb: u32) -> SbState {
        self.state[sb as usize]
    }

    /// Valid units in `sb`.
    pub fn valid(&self, sb: u32) -> u32 {
        self.valid[sb as usize]
    }

    /// Cell mode `sb` was opened in.
    pub fn mode(&self, sb: u32) -> CellMode {
        self.mode[sb as usize]
    }

    /// Times `sb` has been erased.
    pub fn erase_count(&self, sb: u32) -> u32 {
        self.erase_count[sb as usize]
    }

    /// Times `sb` has been erased in SLC mode.
    pub fn slc_erase_count(&self, sb: u32) -> u32 {
        self.slc_erase_count[sb as usize]
    }

    /// The free superblocks, in the order they were freed.
    pub fn free_pool(&self) -> &VecDeque<u32> {
        &self.free
    }

    /// Superblocks not retired.
    pub fn in_service(&self) -> u32 {
        self.len() - self.state.iter().filter(|&&s| s == SbState::Retired).count() as u32
    }

    /// Opens the free superblock at `index` of the pool (the wear-levelling policy's
    /// choice) in `mode`.
    pub(crate) fn open_at(&mut self, index: usize, mode: CellMode) -> Option<u32> {
        let sb = self.free.remove(index)?;
        self.state[sb as usize] = SbState::Open;
        self.mode[sb as usize] = mode;
        Some(sb)
    }

    /// Counts `sb`'s erase in the mode it was written in and returns it to the free pool,
    /// or retires it.
    pub(crate) fn release(&mut self, sb: u32, native: CellMode, retire: bool) {
        debug_assert_eq!(self.valid[sb as usize], 0);
        self.reclaiming -= 1;
        self.erase_count[sb as usize] += 1;
        if self.mode[sb as usize] == CellMode::Slc {
            self.slc_erase_count[sb as usize] += 1;
        }
        self.mode[sb as usize] = native;
        if retire {
            self.state[sb as usize] = SbState::Retired;
        } else {
            self.state[sb as usize] = SbState::Free;
            self.free.push_back(sb);
        }
    }
}
