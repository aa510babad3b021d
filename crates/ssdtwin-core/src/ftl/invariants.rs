//! The invariants of the module doc, checked in tests and on every restored state.

use super::{Ftl, SbState, StateError};
use crate::nand::{CellMode, Ppa};

impl Ftl {
    /// Checks the invariants in the module doc; returns the first violation found.
    pub fn check_invariants(&self) -> Result<(), StateError> {
        let g = &self.geometry;
        let mut counted = vec![0u32; self.sbs.len() as usize];
        for (lpn, ppa) in self.map.mapped() {
            if self.map.owner(ppa) != lpn {
                return Err(StateError::OwnerDiffers { lpn, ppa, owner: self.map.owner(ppa) });
            }
            counted[g.sb_of(Ppa(ppa)) as usize] += 1;
        }
        for (ppa, lpn) in self.map.valid() {
            if self.map.lookup(lpn) != ppa {
                return Err(StateError::StaleOwner { ppa, lpn });
            }
        }
        for sb in 0..self.sbs.len() {
            let (state, valid) = (self.sbs.state(sb), self.sbs.valid(sb));
            if counted[sb as usize] != valid {
                return Err(StateError::ValidCount { sb, valid, mapped: counted[sb as usize] });
            }
            if matches!(state, SbState::Free | SbState::Victim | SbState::Erasing | SbState::Retired) && valid != 0 {
                return Err(StateError::ValidWhenEmpty { sb, state, valid });
            }
            if (state == SbState::Retired) == self.wear.serves(sb) {
                return Err(StateError::Retirement { sb, state });
            }
            if self.sbs.slc_erase_count(sb) > self.sbs.erase_count(sb) {
                return Err(StateError::SlcErases { sb });
            }
        }
        let slc_valid: u64 = (0..self.sbs.len())
            .filter(|&sb| self.sbs.mode(sb) == CellMode::Slc)
            .map(|sb| u64::from(counted[sb as usize]))
            .sum();
        if slc_valid != self.slc_valid {
            return Err(StateError::SlcValid { mapped: slc_valid, counter: self.slc_valid });
        }
        let slc_sbs = (0..self.sbs.len())
            .filter(|&sb| self.sbs.mode(sb) == CellMode::Slc && self.sbs.state(sb) != SbState::Free)
            .count();
        if slc_sbs as u32 != self.slc_in_use {
            return Err(StateError::SlcInUse { in_use: slc_sbs, counter: self.slc_in_use });
        }
        let free_in_pool = self.sbs.free.iter().filter(|&&sb| self.sbs.state(sb) == SbState::Free).count();
        if free_in_pool != self.sbs.free.len() {
            return Err(StateError::FreePool);
        }
        let free_states = (0..self.sbs.len()).filter(|&sb| self.sbs.state(sb) == SbState::Free).count();
        if free_states != self.sbs.free.len() {
            return Err(StateError::FreeCount { free: free_states, pool: self.sbs.free.len() });
        }
        self.check_frontiers()
    }

    /// Each open superblock is filled by exactly one frontier, in its mode, within its
    /// capacity (what a restored state must hold for writes to go on safely).
    pub(super) fn check_frontiers(&self) -> Result<(), StateError> {
        let mut filled_by = vec![None; self.sbs.len() as usize];
        for (k, f) in self.frontiers.iter().enumerate() {
            let Some(sb) = f.sb else { continue };
            if sb >= self.sbs.len() {
                return Err(StateError::FrontierBeyond { frontier: k, sb, superblocks: self.sbs.len() });
            }
            if let Some(other) = filled_by[sb as usize].replace(k) {
                return Err(StateError::FrontiersShare { first: other, second: k, sb });
            }
            if self.sbs.state(sb) != SbState::Open || self.sbs.mode(sb) != f.mode {
                return Err(StateError::FrontierState {
                    frontier: k,
                    sb,
                    mode: f.mode,
                    state: self.sbs.state(sb),
                    sb_mode: self.sbs.mode(sb),
                });
            }
            if f.capacity != self.geometry.sb_units_in(f.mode) || f.next > f.capacity {
                return Err(StateError::FrontierPosition { frontier: k, next: f.next, capacity: f.capacity, sb });
            }
        }
        match (0..self.sbs.len()).find(|&sb| self.sbs.state(sb) == SbState::Open && filled_by[sb as usize].is_none()) {
            Some(sb) => Err(StateError::OpenUnwritten { sb }),
            None => Ok(()),
        }
    }
}
