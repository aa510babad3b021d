//! Life used: the rated life each superblock and the whole drive have used (NVMe's
//! Percentage Used), and the cold data static wear levelling moves.

use super::{BlockInfo, Ftl, SbState, wear};
use crate::nand::CellMode;

impl Ftl {
    /// Life used by superblock `sb`, as a share of the rated life: its SLC-mode erases over
    /// the SLC rating plus its native erases over the native rating.
    pub fn superblock_life_used(&self, sb: u32) -> f64 {
        let e = &self.endurance;
        self.sb_wear(sb) as f64
            / (f64::from(e.rated_pe_cycles[CellMode::Slc.index()])
                * f64::from(e.rated_pe_cycles[self.geometry.native.index()]))
    }

    /// Every block's wear and role, in physical order (die, plane, block).
    pub fn blocks(&self) -> Vec<BlockInfo> {
        self.wear.blocks(&self.endurance, self.geometry.native)
    }

    /// The rated life the units programmed so far will have used once their superblocks
    /// are erased, parts per billion of the drive's rated life: the programs in each mode
    /// over the units a whole drive holds in that mode and its rating. In steady state it
    /// grows as [`Ftl::life_used`] does, without waiting for erases, so short measurements
    /// see the wear rate.
    pub fn life_programmed_ppb(&self) -> u64 {
        let e = &self.endurance;
        let n = u128::from(self.sbs.len());
        let native = self.geometry.native;
        let ppb = |mode: CellMode| {
            let units = u128::from(self.counters.units_programmed[mode.index()]);
            let lifetime =
                u128::from(self.geometry.sb_units_in(mode)) * n * u128::from(e.rated_pe_cycles[mode.index()]);
            units * 1_000_000_000 / lifetime
        };
        let slc = ppb(CellMode::Slc);
        let total = if native == CellMode::Slc { slc } else { slc + ppb(native) };
        total as u64
    }

    /// Wear of superblock `sb` in integer units (see `wear::wear_units`).
    pub(super) fn sb_wear(&self, sb: u32) -> u64 {
        wear::wear_units(self.sbs.erase_count(sb), self.sbs.slc_erase_count(sb), &self.endurance, self.geometry.native)
    }

    /// The least-worn Full superblock whose data has gone unwritten for a whole namespace's
    /// worth of writes (cold), if the most-worn superblock has `static_spread_cycles` more
    /// native cycles of wear.
    pub(super) fn find_cold_victim(&self) -> Option<u32> {
        let in_service = (0..self.sbs.len()).filter(|&sb| self.sbs.state(sb) != SbState::Retired);
        let max_wear = in_service.map(|sb| self.sb_wear(sb)).max()?;
        let age = self.logical_units();
        let cold = (0..self.sbs.len())
            .filter(|&sb| {
                self.sbs.state(sb) == SbState::Full
                    && self.sbs.valid(sb) > 0
                    && self.write_seq - self.sbs.last_write_seq[sb as usize] >= age
            })
            .map(|sb| (sb, self.sb_wear(sb)));
        let threshold = u64::from(self.endurance.static_spread_cycles)
            * u64::from(self.endurance.rated_pe_cycles[CellMode::Slc.index()]);
        wear::pick_cold_victim(cold, max_wear, threshold)
    }

    /// Under static wear levelling, the superblock whose cold data should move now, if it
    /// still holds it and the GC stream has room for it; counts the job. Called when GC has
    /// nothing to do.
    pub fn take_wear_victim(&mut self) -> Option<u32> {
        let sb = self.wear_victim?;
        let valid = self.sbs.valid(sb);
        if self.sbs.state(sb) != SbState::Full || valid == 0 {
            self.wear_victim = None;
            return None;
        }
        if !self.can_take(self.gc_stream(sb), valid, self.gc.fg_threshold_sb) {
            return None;
        }
        self.wear_victim = None;
        self.counters.wl_jobs += 1;
        self.counters.wl_units_moved += u64::from(valid);
        Some(sb)
    }

    /// Mean life used over the superblocks, as a share of the rated life (NVMe's Percentage
    /// Used divided by 100): each superblock's erases in SLC mode over the SLC rating plus
    /// its native erases over the native rating.
    pub fn life_used(&self) -> f64 {
        let (total, per_life) = self.wear_total();
        total as f64 / per_life as f64
    }

    /// [`Ftl::life_used`] in parts per million, rounded down, computed exactly.
    pub fn life_used_ppm(&self) -> u64 {
        let (total, per_life) = self.wear_total();
        (total * 1_000_000 / per_life) as u64
    }

    /// Wear units of every superblock together, and the units of one whole rated life of
    /// all of them.
    fn wear_total(&self) -> (u128, u128) {
        let e = &self.endurance;
        let total: u128 = (0..self.sbs.len()).map(|sb| u128::from(self.sb_wear(sb))).sum();
        let per_life = u128::from(e.rated_pe_cycles[CellMode::Slc.index()])
            * u128::from(e.rated_pe_cycles[self.geometry.native.index()])
            * u128::from(self.sbs.len());
        (total, per_life)
    }
}
