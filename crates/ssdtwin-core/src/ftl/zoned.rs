//! What a zoned namespace asks of the FTL beyond a conventional drive: a zone's frontier
//! closed before its superblock is full (a reset of an open zone), its superblock padded to
//! the end (a finish), and a superblock whose zone was reset erased as soon as its programs
//! are done (no GC: its data was all discarded).

use super::{Ftl, SbState, Stream};
use crate::nand::{Ppa, PuId};

impl Ftl {
    /// Stops `stream`'s frontier filling its superblock: the open program unit is padded
    /// (pushed to `ready`), the superblock is full as far as the FTL is concerned, and the
    /// next unit of the stream opens a new one. Returns the padding units.
    pub fn close_frontier(&mut self, stream: Stream, ready: &mut Vec<PuId>) -> u32 {
        let pad = self.pad(stream, ready);
        let f = &mut self.frontiers[stream.index()];
        if let Some(sb) = f.sb {
            f.retire();
            self.sbs.state[sb as usize] = SbState::Full;
            self.sbs.last_write_seq[sb as usize] = self.write_seq;
        }
        pad
    }

    /// Fills the rest of `stream`'s superblock with padding: the open program unit and every
    /// unit after it, each pushed to `ready`. Returns the padding units.
    pub fn pad_to_end(&mut self, stream: Stream, ready: &mut Vec<PuId>) -> u32 {
        let first = self.pad(stream, ready);
        let pu_units = self.geometry.pu_units();
        let f = &mut self.frontiers[stream.index()];
        let Some(sb) = f.sb else { return first };
        let mut rest = 0;
        while f.next < f.capacity {
            f.next += pu_units;
            f.pu_seq += 1;
            rest += pu_units;
            ready.push(self.geometry.pu_of(Ppa(self.geometry.sb_base(sb) + u64::from(f.next) - 1)));
        }
        self.counters.padding_units += u64::from(rest);
        first + rest
    }

    /// `sb`'s data was all discarded: erase it once its programs are done.
    pub fn discard(&mut self, sb: u32) {
        self.discarded.push(sb);
    }

    /// Hands over for erasing the discarded superblocks whose programs are done (pushed to
    /// `out`, now victims); drops those GC took meanwhile.
    pub fn take_discarded(&mut self, out: &mut Vec<u32>) {
        let mut k = 0;
        while k < self.discarded.len() {
            let sb = self.discarded[k];
            if self.sbs.state(sb) != SbState::Full || self.sbs.valid(sb) != 0 {
                self.discarded.swap_remove(k);
            } else if self.programs_pending(sb) {
                k += 1;
            } else {
                self.discarded.swap_remove(k);
                self.sbs.state[sb as usize] = SbState::Victim;
                self.sbs.reclaiming += 1;
                out.push(sb);
            }
        }
    }

    /// True if some discarded superblock waits for its programs before its erase.
    pub fn has_discarded(&self) -> bool {
        !self.discarded.is_empty()
    }

    /// True if a program unit of `sb` some frontier wrote is not programmed yet.
    pub fn programs_pending(&self, sb: u32) -> bool {
        self.frontiers.iter().any(|f| f.has_pending(sb))
    }
}
