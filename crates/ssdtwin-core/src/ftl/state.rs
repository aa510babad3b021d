//! The FTL's state in snapshots: everything but the map arrays, exported and imported, and
//! the L2P restored chunk by chunk.

use super::{
    Frontier, Ftl, FtlCounters, Placement, SbState, StateError, Stream, Superblocks, WearLevelling, WearState,
};
use crate::nand::CellMode;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// The FTL's state apart from the map arrays, as stored in snapshots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FtlState {
    sbs: Superblocks,
    frontiers: Vec<Frontier>,
    write_seq: u64,
    counters: FtlCounters,
    slc_in_use: u32,
    slc_valid: u64,
    slc_full: VecDeque<u32>,
    /// Spares, remapped slots and bad blocks (absent from an older state: none).
    #[serde(default)]
    wear: WearState,
    /// Superblock owners and per-handle counters of an FDP drive (absent: none).
    #[serde(default)]
    placement: Option<Placement>,
}

impl FtlState {
    /// The placement handles (FDP handles or zone slots) its frontiers were for.
    pub fn handles(&self) -> u16 {
        (self.frontiers.len().saturating_sub(Stream::BASE.len()) / 2) as u16
    }
}

impl Ftl {
    /// Everything but the map and tags. Only meaningful when no program is pending.
    pub fn export_state(&self) -> FtlState {
        FtlState {
            sbs: self.sbs.clone(),
            frontiers: self.frontiers.clone(),
            write_seq: self.write_seq,
            counters: self.counters.clone(),
            slc_in_use: self.slc_in_use,
            slc_valid: self.slc_valid,
            slc_full: self.slc_full.clone(),
            wear: self.wear.export_state(),
            placement: self.placement.clone(),
        }
    }

    /// Replaces the L2P chunk by chunk, as [`PageMap::for_each_stored_chunk`] gave it
    /// (`read(low, high)` fills one chunk), for a restore before [`Ftl::import_state`].
    pub fn restore_l2p<E>(
        &mut self,
        read: impl FnMut(&mut [u32], Option<&mut [u8]>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.map.restore_l2p(read)
    }

    /// Restores a state exported by [`Ftl::export_state`], the L2P having been read in by
    /// [`Ftl::restore_l2p`], with tags and the per-block erase counts (SLC, native; `None`
    /// in a state saved before they were kept); P2L is rebuilt. Fails if the pieces do not
    /// fit this FTL's geometry or do not hold together.
    pub fn import_state(
        &mut self,
        mut state: FtlState,
        tags: Option<Vec<u32>>,
        block_erases: Option<(Vec<u32>, Vec<u32>)>,
    ) -> Result<(), StateError> {
        let n = self.sbs.len() as usize;
        let sized = [state.sbs.valid.len(), state.sbs.mode.len(), state.sbs.erase_count.len()];
        if state.sbs.len() != self.sbs.len()
            || state.frontiers.len() != self.frontiers.len()
            || sized.iter().any(|&l| l != n)
        {
            return Err(StateError::Shape);
        }
        if state.sbs.slc_erase_count.is_empty() {
            state.sbs.slc_erase_count = vec![0; n];
        }
        if state.sbs.slc_erase_count.len() != n
            || state.sbs.last_write_seq.len() != n
            || state.sbs.erases_pending.len() != n
            || state.sbs.free.iter().any(|&sb| sb as usize >= n)
        {
            return Err(StateError::ArrayLengths);
        }
        self.wear.import_state(
            state.wear,
            block_erases,
            (&state.sbs.erase_count, &state.sbs.slc_erase_count),
            &self.endurance,
            self.geometry.native,
        )?;
        match (self.placement.as_mut(), state.placement) {
            (None, None) => {}
            (Some(mine), Some(mut theirs)) if theirs.fits(mine.config, self.sbs.len()) => {
                theirs.config = mine.config;
                *mine = theirs;
            }
            _ => return Err(StateError::Placement),
        }
        self.map.rebuild_reverse()?;
        self.sbs = state.sbs;
        for (f, s) in self.frontiers.iter_mut().zip(state.frontiers) {
            *f = s;
        }
        // Before the frontiers' flags are sized from what they claim.
        self.check_frontiers()?;
        for f in &mut self.frontiers {
            f.restore_flags(&self.geometry);
        }
        self.write_seq = state.write_seq;
        self.counters = state.counters;
        self.slc_in_use = state.slc_in_use;
        self.slc_valid = state.slc_valid;
        self.slc_full = state.slc_full;
        // A snapshot is of a quiet device: nothing is being erased.
        self.slc_stale_erasing.clear();
        self.discarded.clear();
        self.slc_stale = (0..self.sbs.len())
            .filter(|&sb| {
                self.sbs.mode(sb) == CellMode::Slc && self.sbs.state(sb) == SbState::Full && self.sbs.valid(sb) == 0
            })
            .collect();
        if self.endurance.levelling == WearLevelling::Static {
            self.wear_victim = self.find_cold_victim();
        }
        if let (Some(mine), Some(theirs)) = (self.tags.as_mut(), tags) {
            if theirs.len() != mine.len() {
                return Err(StateError::Tags);
            }
            mine.copy_from_slice(&theirs);
        }
        self.check_invariants()
    }
}
