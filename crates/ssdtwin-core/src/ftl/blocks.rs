//! The superblock table: state, valid count, cell mode, erase count and age of every
//! superblock, and the free pool.
//!
//! ```text
//!   Free ──open──▶ Open ──filled──▶ Full ──chosen by GC/fold──▶ Victim
//!    ▲                                                            │ reads and programs of
//!    └───────────── all dies erased ◀── Erasing ◀─────────────────┘ its data done
//! ```
//!
//! * **Free**: erased, in the free pool (FIFO, so wear spreads over all superblocks).
//! * **Open**: a write frontier is filling it in one cell mode.
//! * **Full**: no room left; holds valid and invalid units.
//! * **Victim**: its valid units have been remapped elsewhere; the relocation reads of the
//!   old copies, or the programs of the new ones, are not all done (until a program is
//!   done, host reads of its data go to the victim).
//! * **Erasing**: one erase per die queued; free once the last finishes.
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
}

/// Per-superblock arrays (struct of arrays) and the free pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Superblocks {
    pub(crate) state: Vec<SbState>,
    pub(crate) valid: Vec<u32>,
    pub(crate) mode: Vec<CellMode>,
    pub(crate) erase_count: Vec<u32>,
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

    /// Takes the oldest free superblock and opens it in `mode`.
    pub(crate) fn open(&mut self, mode: CellMode) -> Option<u32> {
        let sb = self.free.pop_front()?;
        self.state[sb as usize] = SbState::Open;
        self.mode[sb as usize] = mode;
        Some(sb)
    }

    /// Returns `sb` to the free pool after its last erase.
    pub(crate) fn release(&mut self, sb: u32, native: CellMode) {
        debug_assert_eq!(self.valid[sb as usize], 0);
        self.reclaiming -= 1;
        self.state[sb as usize] = SbState::Free;
        self.mode[sb as usize] = native;
        self.erase_count[sb as usize] += 1;
        self.free.push_back(sb);
    }
}
