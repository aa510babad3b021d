//! Placement with no timing, for bulk fills: every program counts as done at once and
//! relocations and erases complete in place, leaving the state a timed run would leave.

use super::{Ftl, RelocationJob, Stream};
use crate::nand::{CellMode, DieId, Ppa, PuId};

impl Ftl {
    /// Places a host unit with no timing: its program unit counts as programmed at once.
    /// Used by bulk fills, which yield the state a timed run would leave.
    pub fn write_untimed(&mut self, lpn: u64, tag: u32, scratch: &mut Vec<PuId>) {
        self.write(None, lpn, tag, scratch);
        for pu in scratch.drain(..) {
            self.program_done(pu);
        }
        if self.has_stale_slc() {
            // Rare (an SLC superblock all overwritten): a vector of its own costs nothing.
            let mut stale = Vec::new();
            self.take_stale_slc(&mut stale);
            for sb in stale {
                self.erase_untimed(sb);
            }
        }
    }

    /// Places `count` host units from `lpn` on, in order, with no timing, as `count` calls
    /// of [`Ftl::write_untimed`] would (without an SLC cache): their program units count as
    /// programmed at once. If the host frontier has no room, a superblock is opened first
    /// (the caller made sure one is free); `count` must fit the room there is then. `tag`
    /// gives each unit's data version in verify mode. The map is written in one pass, with
    /// the reverse entries left implicit where the superblock's run allows ([`PageMap`]).
    pub fn write_seq_untimed(&mut self, lpn: u64, count: u32, mut tag: impl FnMut(u64) -> u32) {
        debug_assert!(!self.slc.enabled(), "an SLC cache decides per unit where host data goes");
        let host = Stream::Host.index();
        if self.frontiers[host].room() == 0 {
            self.open_next(Stream::Host);
        }
        let g = &self.geometry;
        let f = &mut self.frontiers[host];
        let sb = f.sb.expect("open_next leaves an open superblock");
        assert!(count <= f.room(), "a run stays inside its superblock");
        let (offset, pu_units) = (f.next, g.pu_units());
        f.pu_seq += u64::from((offset + count).div_ceil(pu_units) - offset.div_ceil(pu_units));
        f.next += count;
        self.sbs.valid[sb as usize] += count;
        self.write_seq += u64::from(count);
        self.counters.host_units_written += u64::from(count);
        let base = g.sb_base(sb) + u64::from(offset);
        let sbs = &mut self.sbs;
        self.map.map_run(lpn, base, count, |old| {
            let old_sb = g.sb_of(Ppa(old));
            debug_assert_ne!(sbs.mode(old_sb), CellMode::Slc);
            sbs.valid[old_sb as usize] -= 1;
        });
        if let Some(tags) = self.tags.as_mut() {
            for k in 0..u64::from(count) {
                tags[(base + k) as usize] = tag(lpn + k);
            }
        }
        // The program units this run completed: programmed at once.
        let (first, end) = (offset / pu_units, (offset + count) / pu_units);
        if end > first {
            let mode = self.sbs.mode(sb);
            self.counters.units_programmed[mode.index()] += u64::from((end - first) * pu_units);
            for f in &mut self.frontiers {
                f.mark_range_programmed(sb, first..end);
            }
        }
    }

    /// Erases victim `sb` on every die with no timing.
    pub(super) fn erase_untimed(&mut self, sb: u32) {
        let dies = self.begin_erase(sb);
        for die in 0..dies {
            self.erase_done(sb, DieId(die));
        }
    }

    /// Pads and programs every stream's open program unit with no timing.
    pub fn pad_untimed(&mut self, scratch: &mut Vec<PuId>) {
        for stream in self.streams() {
            self.pad(stream, scratch);
            for pu in scratch.drain(..) {
                self.program_done(pu);
            }
        }
    }

    /// Folds every full SLC superblock with no timing, whatever `fold_low_gib` says (the
    /// superblock the SLC frontier is still filling keeps its data).
    pub fn fold_untimed(&mut self, job: &mut RelocationJob, scratch: &mut Vec<PuId>) {
        while let Some(victim) = self.pick_fold_victim() {
            self.relocate_untimed(victim, Stream::Fold, job, scratch);
            self.gc_untimed(job, scratch);
        }
    }

    /// Runs GC with no timing until free space is above the background threshold (or no
    /// victim helps), then moves cold data as static wear levelling asks.
    pub fn gc_untimed(&mut self, job: &mut RelocationJob, scratch: &mut Vec<PuId>) {
        while self.wants_gc() {
            let Some(victim) = self.pick_gc_victim() else {
                return;
            };
            self.relocate_untimed(victim, self.gc_stream(victim), job, scratch);
        }
        while let Some(victim) = self.take_wear_victim() {
            self.relocate_untimed(victim, self.gc_stream(victim), job, scratch);
        }
    }

    /// Folds, or else collects, with no timing until a host unit can be placed, as a drive
    /// does for writes that wait for space. False if nothing would free any.
    pub fn make_room_untimed(&mut self, job: &mut RelocationJob, scratch: &mut Vec<PuId>) -> bool {
        while !self.host_can_take(None, 1) {
            if let Some(victim) = self.pick_fold_victim() {
                self.relocate_untimed(victim, Stream::Fold, job, scratch);
            } else if let Some(victim) = self.pick_gc_victim() {
                self.relocate_untimed(victim, self.gc_stream(victim), job, scratch);
            } else {
                return false;
            }
        }
        true
    }

    /// Moves `victim`'s valid data to `stream` and erases it, with no timing.
    pub(super) fn relocate_untimed(
        &mut self,
        victim: u32,
        stream: Stream,
        job: &mut RelocationJob,
        scratch: &mut Vec<PuId>,
    ) {
        self.start_relocation(victim, stream, job);
        for read in &job.reads {
            self.reloc_read_done(stream, read, scratch);
        }
        for pu in scratch.drain(..) {
            self.program_done(pu);
        }
        self.erase_untimed(victim);
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    // --- arrays beyond 2^32 units ---------------------------------------------------------

    #[test]
    fn data_placed_beyond_two_to_the_32_units_reads_back_and_moves_with_gc() {
        // 32,800 superblocks of 262,144 units (8 ch × 4 dies × 2 planes × 1024 pages of 16
        // KiB): 8.6 G physical units, 2^32 + 1000 logical ones. Untouched map memory costs
        // nothing, so only what this test writes is resident.
        let g = Geometry::new(8, 4, 2, 32_800, 1024, 16384, CellMode::Tlc);
        let logical = (1u64 << 32) + 300_000;
        let gc = GcConfig { policy: VictimPolicy::Greedy, bg_threshold_sb: 2, fg_threshold_sb: 1 };
        let endurance = Endurance {
            rated_pe_cycles: [30_000, 10_000, 3_000, 1_000],
            spare_blocks_per_plane: 0,
            block_spread: 0.0,
            seed: 1,
            levelling: WearLevelling::Dynamic,
            static_spread_cycles: 100,
            spare_threshold_pct: 10,
            min_superblocks: 2,
            bit_errors: BitErrorLaw { uber_per_bit: 1e-15, tenfold_life: 0.1 },
            read_retry: ReadRetryLaw::default(),
        };
        let mut ftl = Ftl::new(g.clone(), logical, gc, endurance, true);
        // Open the last superblocks first, so every address written lies above 2^33.
        let n = g.superblocks();
        ftl.sbs.free.rotate_left((n - 3) as usize);
        let sb_units = u64::from(g.sb_units());
        // A full superblock of units near the top of the logical space, and two whose P2L
        // entries read the same (they differ by 2^32 - 1).
        let top: Vec<u64> = (logical - sb_units..logical).collect();
        let twins = [5, 5 + ((1u64 << 32) - 1)];
        let mut scratch = Vec::new();
        let mut version = 0;
        for &lpn in top.iter().chain(&twins) {
            version += 1;
            ftl.write_untimed(lpn, version, &mut scratch);
        }
        let first = ftl.map.lookup(top[0]);
        assert_eq!(first, g.sb_base(n - 3));
        assert!(first > 1 << 33);
        let where_twins = twins.map(|l| ftl.map.lookup(l));
        assert_eq!(where_twins.map(|p| ftl.map.owner(p)), twins);
        // GC moves the full superblock: every unit keeps its data at its new address.
        let mut job = RelocationJob::default();
        ftl.write_untimed(7, version + 1, &mut scratch);
        ftl.relocate_untimed(n - 3, Stream::Gc, &mut job, &mut scratch);
        for (k, &lpn) in top.iter().enumerate() {
            let ppa = ftl.map.lookup(lpn);
            assert!(g.sb_of(Ppa(ppa)) != n - 3 && ppa > 1 << 33, "unit {lpn} at {ppa}");
            assert_eq!((ftl.map.owner(ppa), ftl.tag_of(lpn)), (lpn, Some(k as u32 + 1)));
        }
        assert_eq!(ftl.sbs.valid(n - 3), 0);
        assert_eq!(ftl.tag_of(twins[1]), Some(version));
        ftl.trim(twins[1]);
        assert_eq!((ftl.map.owner(where_twins[1]), ftl.map.owner(where_twins[0])), (UNMAPPED, twins[0]));
    }
}
