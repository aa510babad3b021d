//! Placement: moving a frontier on, opening superblocks, mapping host writes and trims,
//! padding a partial program unit, and recording programs as done. Program units that
//! become ready to program are pushed into the caller's buffer, so nothing allocates per
//! unit.

use super::{Ftl, HandleId, SbState, Stream, UNMAPPED, wear};
use crate::nand::{CellMode, DieId, Ppa, PuId};

impl Ftl {
    /// Moves the frontier of `stream` one unit on; returns the address to write. Opens a new
    /// superblock when the current one is full (the caller checked there is one).
    // Always inlined: relocation moves each unit through it, and the call alone cost a tenth
    // of random writes with GC once placement streams made it larger (measured with
    // `examples/speed`: 2.52 M/s called, 2.86 M/s inlined).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    pub(super) fn advance(&mut self, stream: Stream) -> (u64, bool) {
        let si = stream.index();
        if self.frontiers[si].room() == 0 {
            self.open_next(stream);
        }
        let f = &mut self.frontiers[si];
        let sb = f.sb.expect("open_next leaves an open superblock");
        let offset = f.next;
        f.next += 1;
        let pu_units = self.geometry.pu_units();
        // One remainder where two would do (a unit ends its program unit when the next one
        // starts another), and a mask where the program unit is a power of two units: a
        // hardware division here is a tenth of a relocation's time.
        let within = if pu_units.is_power_of_two() { offset & (pu_units - 1) } else { offset % pu_units };
        if within == 0 {
            f.pu_seq += 1;
        }
        let filled = within + 1 == pu_units;
        if f.mode == CellMode::Slc {
            self.slc_valid += 1;
        }
        self.sbs.valid[sb as usize] += 1;
        self.write_seq += 1;
        (self.geometry.sb_base(sb) + u64::from(offset), filled)
    }

    pub(super) fn open_next(&mut self, stream: Stream) {
        let si = stream.index();
        if let Some(old) = self.frontiers[si].sb {
            self.sbs.state[old as usize] = SbState::Full;
            self.sbs.last_write_seq[old as usize] = self.write_seq;
            if self.sbs.mode(old) == CellMode::Slc {
                self.slc_full.push_back(old);
                // Overwritten while it was open: nothing left to fold, only to erase.
                if self.sbs.valid(old) == 0 {
                    self.slc_stale.push(old);
                }
            }
        }
        let mode = self.mode_for(stream);
        let (e, native, sbs) = (&self.endurance, self.geometry.native, &self.sbs);
        let wear = |sb: u32| wear::wear_units(sbs.erase_count(sb), sbs.slc_erase_count(sb), e, native);
        let pick = e.levelling.pick(self.sbs.free_pool(), wear, stream == Stream::Gc);
        let sb = self.sbs.open_at(pick, mode).expect("callers check free space before placing data");
        if mode == CellMode::Slc {
            self.slc_in_use += 1;
        }
        if let Some(p) = self.placement.as_mut() {
            p.opened(sb, stream);
        }
        self.frontiers[si].start(sb, mode, &self.geometry);
    }

    /// Places one host-written unit, on reclaim unit handle `handle` if the write names one;
    /// pushes the program unit to `ready` if this filled it.
    #[inline]
    pub fn write(&mut self, handle: Option<HandleId>, lpn: u64, tag: u32, ready: &mut Vec<PuId>) -> Ppa {
        let stream = self.host_stream(handle).expect("admission checks that host writes have somewhere to go");
        match stream {
            Stream::HostSlc => self.counters.host_units_slc += 1,
            Stream::Placed(h) => {
                if let Some(p) = self.placement.as_mut() {
                    p.handles[h.index()].host_units += 1;
                }
            }
            _ => {}
        }
        let (ppa, filled) = self.advance(stream);
        let old = self.map.remap(lpn, ppa);
        self.unmap_old(old);
        if let Some(tags) = self.tags.as_mut() {
            tags[ppa as usize] = tag;
        }
        self.counters.host_units_written += 1;
        if filled {
            ready.push(self.geometry.pu_of(Ppa(ppa)));
        }
        Ppa(ppa)
    }

    #[inline]
    pub(super) fn unmap_old(&mut self, old: u64) {
        if old != UNMAPPED {
            let sb = self.geometry.sb_of(Ppa(old));
            self.sbs.valid[sb as usize] -= 1;
            if self.sbs.mode(sb) == CellMode::Slc {
                self.slc_valid -= 1;
                if self.sbs.valid[sb as usize] == 0 && self.sbs.state(sb) == SbState::Full {
                    self.slc_stale.push(sb);
                }
            }
        }
    }

    /// Unmaps `lpn` (TRIM / deallocate).
    pub fn trim(&mut self, lpn: u64) {
        let old = self.map.unmap(lpn);
        if old != UNMAPPED {
            self.unmap_old(old);
            self.counters.units_trimmed += 1;
        }
    }

    /// Fills the rest of `stream`'s current program unit with padding so it can be
    /// programmed (a flush of a volatile buffer). The program unit goes to `ready` at once,
    /// or, for relocated data, once the reads feeding it are done. Returns the padding units.
    pub fn pad(&mut self, stream: Stream, ready: &mut Vec<PuId>) -> u32 {
        let pu_units = self.geometry.pu_units();
        let f = &mut self.frontiers[stream.index()];
        let Some(sb) = f.sb else { return 0 };
        if f.next % pu_units == 0 {
            return 0;
        }
        let pad = pu_units - f.next % pu_units;
        f.next += pad;
        self.counters.padding_units += u64::from(pad);
        let pu = self.geometry.pu_of(Ppa(self.geometry.sb_base(sb) + u64::from(f.next) - 1));
        match f.deps.back_mut() {
            Some(d) if d.pu == pu => {
                d.filled = true;
                Self::try_emit(d, ready);
                while f.deps.front().is_some_and(|d| d.emitted) {
                    f.deps.pop_front();
                }
            }
            _ => ready.push(pu),
        }
        pad
    }

    /// Records that program unit `pu` (global index) has been programmed.
    pub fn program_done(&mut self, pu: PuId) {
        let (sb, pu_in_sb) = self.geometry.sb_of_pu(pu);
        let mode = self.sbs.mode(sb);
        self.counters.units_programmed[mode.index()] += u64::from(self.geometry.pu_units());
        for f in &mut self.frontiers {
            f.mark_programmed(sb, pu_in_sb);
        }
    }

    /// Die and cell mode of program unit `pu`.
    pub fn pu_target(&self, pu: PuId) -> (DieId, CellMode) {
        (self.geometry.die_of_pu(pu), self.sbs.mode(self.geometry.sb_of_pu(pu).0))
    }
}
