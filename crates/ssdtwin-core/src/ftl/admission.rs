//! Admission: where host writes go now (the SLC cache, the native mode or nowhere) and
//! whether a stream has room for more units without dipping into GC's reserve of free
//! superblocks. Nothing here changes state.

use super::{Ftl, HandleId, Stream, WhenFull};
use crate::nand::CellMode;

impl Ftl {
    /// True if the host frontier of `handle` (or of writes that name none) can take `units`
    /// more without dipping into the superblocks GC keeps in reserve.
    pub fn host_can_take(&self, handle: Option<HandleId>, units: u32) -> bool {
        match self.host_stream(handle) {
            Some(stream) => self.can_take(stream, units, self.gc.fg_threshold_sb),
            None => false,
        }
    }

    /// True if the host frontier can take `units` more by opening at most one superblock
    /// from GC's reserve (writes paced by GC, see `ssd::gc_pace`); the reserve keeps one
    /// free superblock for GC whatever the host borrows.
    pub fn host_can_borrow(&self, handle: Option<HandleId>, units: u32) -> bool {
        let reserve = self.gc.fg_threshold_sb.saturating_sub(1).max(1);
        self.host_stream(handle).is_some_and(|stream| self.can_take(stream, units, reserve))
    }

    /// True if GC's reserve of free superblocks is whole.
    pub fn reserve_whole(&self) -> bool {
        self.sbs.free_count() >= self.gc.fg_threshold_sb
    }

    /// Where host writes go now: a write placed on a reclaim unit handle to that handle's
    /// frontier (FDP drives have no SLC cache); else the SLC cache while it has room, else
    /// the native mode ([`WhenFull::Direct`]) or nowhere until folding frees cache
    /// ([`WhenFull::Fold`]).
    #[inline]
    pub fn host_stream(&self, handle: Option<HandleId>) -> Option<Stream> {
        if let Some(h) = handle {
            return Some(Stream::Placed(h));
        }
        if !self.slc.enabled() {
            return Some(Stream::Host);
        }
        if self.frontiers[Stream::HostSlc.index()].room() > 0 || self.can_open_slc() {
            return Some(Stream::HostSlc);
        }
        match self.slc.when_full {
            WhenFull::Direct => Some(Stream::Host),
            WhenFull::Fold => None,
        }
    }

    /// Whether another superblock may be opened in SLC mode: within the static part, or
    /// within the dynamic cap while enough stays free; always leaving room to fold every
    /// cached unit back and for GC's reserve.
    pub fn can_open_slc(&self) -> bool {
        let native_sb = u64::from(self.geometry.sb_units());
        let fold_need = self.slc_valid.div_ceil(native_sb) as u32;
        let free = self.sbs.free_count();
        if free <= self.gc.fg_threshold_sb + fold_need + 1 {
            return false;
        }
        let in_use = self.slc_in_use;
        in_use < self.slc.static_sb
            || (in_use < self.slc.static_sb + self.slc.dynamic_max_sb
                && free > self.slc.dynamic_min_free_sb + fold_need + self.gc.fg_threshold_sb)
    }

    /// True if placing `units` host units needs more superblocks than are free or being
    /// reclaimed, beyond GC's reserve (so GC must collect more).
    pub fn space_short_for(&self, handle: Option<HandleId>, units: u32) -> bool {
        let Some(stream) = self.host_stream(handle) else { return false };
        let (room, capacity) =
            (self.frontiers[stream.index()].room(), self.geometry.sb_units_in(self.mode_for(stream)));
        let needed = units.saturating_sub(room).div_ceil(capacity);
        self.sbs.free_count() + self.sbs.reclaiming() < needed + self.gc.fg_threshold_sb
    }

    pub(super) fn can_take(&self, stream: Stream, units: u32, reserve_sb: u32) -> bool {
        let f = &self.frontiers[stream.index()];
        let room = f.room();
        if units <= room {
            return true;
        }
        let capacity = self.geometry.sb_units_in(self.mode_for(stream));
        let needed = (units - room).div_ceil(capacity);
        self.sbs.free_count() >= needed + reserve_sb
    }

    /// Cell mode new superblocks of `stream` are opened in.
    pub(super) fn mode_for(&self, stream: Stream) -> CellMode {
        if stream == Stream::HostSlc { CellMode::Slc } else { self.geometry.native }
    }
}
