//! Write frontiers: where the next unit of each write stream goes.
//!
//! A frontier fills one open superblock in address order (which is stripe order: all planes
//! of die 0, then die 1, ..., then the next row), so consecutive units spread over dies and
//! channels. When a program unit (one page per plane of one die) is complete, it is handed
//! to the die to program. Until that program finishes, host data lives in controller memory
//! and reads are served from there, while relocated data is still read from its source
//! block, which is not erased before; `pu_state` records, for the current and previous
//! superblock, which program units are pending and where their data can be read.
//!
//! Relocated data (GC, folding) may only be programmed once the reads that fetched it have
//! finished: `deps` counts, per destination program unit, the relocation reads still
//! outstanding.

use super::placement::HandleId;
use crate::nand::{CellMode, DieId, Geometry, PuId};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Program state of a program unit: programmed.
pub(crate) const DONE: u32 = 0;
/// Not programmed yet; its data is in controller memory.
pub(crate) const PENDING: u32 = 1;
/// Not programmed yet; its data is read from a source die in some mode:
/// `SOURCE_BASE + die * 4 + mode index`.
const SOURCE_BASE: u32 = 2;

/// Where a pending program unit's data is read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pending {
    /// Controller memory (host data waiting in the write buffer).
    Memory,
    /// The relocation source on this die, in this cell mode.
    Source { die: DieId, mode: CellMode },
}

/// The write streams, each with its own frontier: the four every drive has, and, on a drive
/// with Flexible Data Placement, two per reclaim unit handle (its host writes, and its GC
/// relocations when the handle is persistently isolated).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Stream {
    /// Host writes to the native cell mode (no SLC cache, or cache full).
    Host,
    /// Host writes into the SLC cache.
    HostSlc,
    /// GC relocations.
    Gc,
    /// Folding: SLC-cached data moved to the native mode.
    Fold,
    /// Host writes placed on a reclaim unit handle (FDP).
    Placed(HandleId),
    /// GC relocations of a persistently isolated handle's data.
    PlacedGc(HandleId),
}

impl Stream {
    /// The streams every drive has.
    pub const BASE: [Stream; 4] = [Stream::Host, Stream::HostSlc, Stream::Gc, Stream::Fold];

    /// Number of frontiers a drive with `handles` reclaim unit handles keeps.
    pub const fn count(handles: u16) -> usize {
        Self::BASE.len() + 2 * handles as usize
    }

    /// Index into per-stream tables: the base streams first, then each handle's two.
    #[inline]
    pub const fn index(self) -> usize {
        match self {
            Stream::Host => 0,
            Stream::HostSlc => 1,
            Stream::Gc => 2,
            Stream::Fold => 3,
            Stream::Placed(h) => Self::BASE.len() + 2 * h.index(),
            Stream::PlacedGc(h) => Self::BASE.len() + 2 * h.index() + 1,
        }
    }

    /// The stream of index `i` (the inverse of [`Stream::index`]).
    pub const fn of_index(i: usize) -> Stream {
        match i {
            0 => Stream::Host,
            1 => Stream::HostSlc,
            2 => Stream::Gc,
            3 => Stream::Fold,
            _ => {
                let h = HandleId(((i - Self::BASE.len()) / 2) as u16);
                if (i - Self::BASE.len()) % 2 == 0 { Stream::Placed(h) } else { Stream::PlacedGc(h) }
            }
        }
    }

    /// True for the streams host writes go to (their data sits in the write buffer).
    #[inline]
    pub const fn is_host(self) -> bool {
        matches!(self, Stream::Host | Stream::HostSlc | Stream::Placed(_))
    }

    /// True for the streams relocations write.
    #[inline]
    pub const fn is_relocation(self) -> bool {
        matches!(self, Stream::Gc | Stream::Fold | Stream::PlacedGc(_))
    }
}

/// A destination program unit with relocation reads outstanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PuDeps {
    pub seq: u64,
    pub pu: PuId,
    pub pending_reads: u32,
    pub filled: bool,
    pub emitted: bool,
}

/// One stream's frontier. Equality compares the persistent position only, not the
/// transient program flags and dependencies.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Frontier {
    /// Open superblock, if any.
    pub(crate) sb: Option<u32>,
    /// Mode the superblock is written in.
    pub(crate) mode: CellMode,
    /// Next unit offset inside the superblock.
    pub(crate) next: u32,
    /// Units the superblock holds in `mode`.
    pub(crate) capacity: u32,
    /// Program state of each program unit of the current superblock.
    #[serde(skip)]
    pub(crate) pu_state: Vec<u32>,
    /// The previous superblock and its states (its last programs may still be running).
    #[serde(skip)]
    pub(crate) prev: Option<(u32, Vec<u32>)>,
    /// Sequence number of the program unit being filled (counts every unit started).
    pub(crate) pu_seq: u64,
    #[serde(skip)]
    pub(crate) deps: VecDeque<PuDeps>,
}

impl PartialEq for Frontier {
    fn eq(&self, o: &Self) -> bool {
        (self.sb, self.mode, self.next, self.capacity, self.pu_seq) == (o.sb, o.mode, o.next, o.capacity, o.pu_seq)
    }
}

impl Frontier {
    pub(crate) fn new(mode: CellMode) -> Self {
        Frontier {
            sb: None,
            mode,
            next: 0,
            capacity: 0,
            pu_state: Vec::new(),
            prev: None,
            pu_seq: 0,
            deps: VecDeque::new(),
        }
    }

    /// The superblock being filled, if any.
    pub fn superblock(&self) -> Option<u32> {
        self.sb
    }

    /// Units placed so far in the open superblock (padding included).
    pub fn placed(&self) -> u32 {
        self.next
    }

    /// Units left in the open superblock.
    #[inline]
    pub fn room(&self) -> u32 {
        if self.sb.is_some() { self.capacity - self.next } else { 0 }
    }

    /// Starts filling `sb` in `mode`. The current superblock becomes the previous one; the
    /// flag storage of the one before that is recycled. A frontier retired (none current)
    /// keeps the superblock it retired as the previous one.
    pub(crate) fn start(&mut self, sb: u32, mode: CellMode, geometry: &Geometry) {
        let capacity = geometry.sb_units_in(mode);
        let recycled = if self.sb.is_some() { self.prev.take().map(|(_, f)| f) } else { None };
        let mut flags = recycled.unwrap_or_default();
        flags.clear();
        flags.resize((capacity / geometry.pu_units()) as usize, PENDING);
        let old_flags = std::mem::replace(&mut self.pu_state, flags);
        if let Some(old) = self.sb {
            self.prev = Some((old, old_flags));
        }
        self.sb = Some(sb);
        self.mode = mode;
        self.next = 0;
        self.capacity = capacity;
    }

    /// After a restore: every program unit written so far is programmed (a snapshot is
    /// taken of a quiet device); the rest are still to be written.
    pub(crate) fn restore_flags(&mut self, geometry: &Geometry) {
        self.prev = None;
        self.deps.clear();
        self.pu_state.clear();
        if self.sb.is_some() {
            let pu_units = geometry.pu_units();
            self.pu_state.resize((self.capacity / pu_units) as usize, PENDING);
            self.pu_state[..self.next.div_ceil(pu_units) as usize].fill(DONE);
        }
    }

    /// Stops filling the open superblock: it becomes the previous one (its flags kept for
    /// programs still pending), and the next unit opens another.
    pub(crate) fn retire(&mut self) {
        if let Some(old) = self.sb.take() {
            self.prev = Some((old, std::mem::take(&mut self.pu_state)));
        }
    }

    /// Drops the flags of the previous superblock if it is `sb` (erased: all programmed).
    pub(crate) fn forget_prev(&mut self, sb: u32) {
        if self.prev.as_ref().is_some_and(|(p, _)| *p == sb) {
            self.prev = None;
        }
    }

    fn state_mut(&mut self, sb: u32, pu_in_sb: u32) -> Option<&mut u32> {
        if self.sb == Some(sb) {
            return self.pu_state.get_mut(pu_in_sb as usize);
        }
        match self.prev.as_mut() {
            Some((p, states)) if *p == sb => states.get_mut(pu_in_sb as usize),
            _ => None,
        }
    }

    /// Marks program unit `pu_in_sb` of `sb` as programmed.
    pub(crate) fn mark_programmed(&mut self, sb: u32, pu_in_sb: u32) {
        if let Some(s) = self.state_mut(sb, pu_in_sb) {
            *s = DONE;
        }
    }

    /// Marks program units `pus` of `sb` as programmed (a bulk fill's).
    pub(crate) fn mark_range_programmed(&mut self, sb: u32, pus: std::ops::Range<u32>) {
        let states = if self.sb == Some(sb) {
            &mut self.pu_state
        } else {
            match self.prev.as_mut() {
                Some((p, states)) if *p == sb => states,
                _ => return,
            }
        };
        states[pus.start as usize..pus.end as usize].fill(DONE);
    }

    /// True if a program unit of `sb` this frontier wrote is not programmed yet.
    pub(crate) fn has_pending(&self, sb: u32) -> bool {
        if self.sb == Some(sb) {
            return self.pu_state.iter().any(|&s| s != DONE);
        }
        matches!(&self.prev, Some((p, states)) if *p == sb && states.iter().any(|&s| s != DONE))
    }

    /// Records that pending program unit `pu_in_sb` of `sb` holds relocated data still
    /// readable on `die` in `mode` (the first source wins).
    pub(crate) fn set_source(&mut self, sb: u32, pu_in_sb: u32, die: DieId, mode: CellMode) {
        if let Some(s) = self.state_mut(sb, pu_in_sb)
            && *s == PENDING
        {
            *s = SOURCE_BASE + die.get() * 4 + mode.index() as u32;
        }
    }

    /// Where the data of (`sb`, `pu_in_sb`) is read from while its program is pending;
    /// `None` if it is programmed or not this frontier's.
    #[inline]
    pub(crate) fn pending(&self, sb: u32, pu_in_sb: u32) -> Option<Pending> {
        let state = if self.sb == Some(sb) {
            self.pu_state[pu_in_sb as usize]
        } else {
            match &self.prev {
                Some((p, states)) if *p == sb => states[pu_in_sb as usize],
                _ => return None,
            }
        };
        match state {
            DONE => None,
            PENDING => Some(Pending::Memory),
            s => {
                let code = s - SOURCE_BASE;
                Some(Pending::Source { die: DieId(code / 4), mode: CellMode::ALL[(code % 4) as usize] })
            }
        }
    }
}
