//! Erasing: a victim's move to Erasing, each die's erase counting a P/E cycle, the
//! superblock's return to the free pool (or retirement), and Format NVM.

use super::{Frontier, Ftl, SbState, Superblocks, WearLevelling};
use crate::nand::{CellMode, DieId};

impl Ftl {
    /// The victim's reads and every program of its data are done: it moves to Erasing;
    /// returns the dies to erase.
    pub fn begin_erase(&mut self, victim: u32) -> u32 {
        debug_assert_eq!(self.sbs.state(victim), SbState::Victim);
        self.sbs.state[victim as usize] = SbState::Erasing;
        let dies = self.geometry.dies();
        self.sbs.erases_pending[victim as usize] = dies;
        dies
    }

    /// `die`'s blocks of `sb` are erased (each counts a P/E cycle, and a worn-out one is
    /// replaced by a spare); returns true when the superblock's last die is done and it is
    /// free again, or retired.
    pub fn erase_done(&mut self, sb: u32, die: DieId) -> bool {
        let mode = self.sbs.mode(sb);
        self.wear.erase(sb, die, mode, &self.endurance, self.geometry.native);
        self.counters.block_erases += u64::from(self.geometry.planes);
        let pending = &mut self.sbs.erases_pending[sb as usize];
        *pending -= 1;
        if *pending > 0 {
            return false;
        }
        if mode == CellMode::Slc {
            self.slc_in_use -= 1;
            if let Some(k) = self.slc_stale_erasing.iter().position(|&s| s == sb) {
                self.slc_stale_erasing.swap_remove(k);
            }
        }
        // A frontier may still keep the program flags of its previous superblock; they
        // must not outlive it, as the superblock may reopen in another mode.
        for f in &mut self.frontiers {
            f.forget_prev(sb);
        }
        self.map.forget_run(sb);
        let retire = self.wear.take_retirement(sb, self.sbs.in_service(), &self.endurance);
        self.sbs.release(sb, self.geometry.native, retire);
        self.counters.superblock_erases += 1;
        if mode == CellMode::Slc {
            self.counters.slc_superblock_erases += 1;
        }
        if self.endurance.levelling == WearLevelling::Static {
            self.wear_victim = self.find_cold_victim();
        }
        true
    }

    /// Unmaps everything and returns every superblock to the free pool (Format NVM). The
    /// device must be quiet. No erase is issued, counted or timed.
    pub fn format(&mut self) {
        self.map.clear();
        let n = self.sbs.len();
        let native = self.geometry.native;
        let erase_count = std::mem::take(&mut self.sbs.erase_count);
        let slc_erase_count = std::mem::take(&mut self.sbs.slc_erase_count);
        let retired: Vec<u32> = (0..n).filter(|&sb| self.sbs.state(sb) == SbState::Retired).collect();
        self.sbs = Superblocks::new(n, native);
        // A real drive erases what held data; the model keeps the erase counts as they were
        // and counts no erase, so wear and the `erases` counter ignore formats. Retired
        // superblocks stay retired.
        self.sbs.erase_count = erase_count;
        self.sbs.slc_erase_count = slc_erase_count;
        for sb in retired {
            self.sbs.state[sb as usize] = SbState::Retired;
        }
        self.sbs.free.retain(|&sb| self.sbs.state[sb as usize] == SbState::Free);
        self.wear_victim = None;
        let streams = self.frontiers.len();
        self.frontiers = vec![Frontier::new(native); streams];
        if let Some(p) = self.placement.as_mut() {
            p.forget_owners();
        }
        self.slc_in_use = 0;
        self.slc_valid = 0;
        self.slc_full.clear();
        self.slc_stale.clear();
        self.slc_stale_erasing.clear();
        self.discarded.clear();
        if let Some(tags) = self.tags.as_mut() {
            tags.fill(0);
        }
    }
}
