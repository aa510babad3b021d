//! Write frontiers: where the next unit of each write stream goes.
//!
//! A frontier fills one open superblock in address order (which is stripe order: all planes
//! of die 0, then die 1, ..., then the next row), so consecutive units spread over dies and
//! channels. When a program unit (one page per plane of one die) is complete, it is handed
//! to the die to program. Until that program finishes, the data lives in controller memory
//! and reads are served from there; `pu_done` records which program units of the current
//! and previous superblock are still pending.
//!
//! Relocated data (GC, folding) may only be programmed once the reads that fetched it have
//! finished: `deps` counts, per destination program unit, the relocation reads still
//! outstanding.

use crate::nand::{CellMode, Geometry};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A program unit whose program has not finished.
pub(crate) const PENDING: bool = false;

/// The write streams, each with its own frontier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Stream {
    /// Host writes to the native cell mode.
    Host,
    /// GC relocations.
    Gc,
}

impl Stream {
    /// Number of streams.
    pub const COUNT: usize = 2;
    /// All streams.
    pub const ALL: [Stream; Stream::COUNT] = [Stream::Host, Stream::Gc];

    /// Index into per-stream tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Name in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Stream::Host => "host",
            Stream::Gc => "gc",
        }
    }
}

/// A destination program unit with relocation reads outstanding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PuDeps {
    pub seq: u64,
    pub pu: u32,
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
    /// Program-done flags for the current superblock, by program unit.
    #[serde(skip)]
    pub(crate) pu_done: Vec<bool>,
    /// The previous superblock and its flags (its last programs may still be running).
    #[serde(skip)]
    pub(crate) prev: Option<(u32, Vec<bool>)>,
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
            pu_done: Vec::new(),
            prev: None,
            pu_seq: 0,
            deps: VecDeque::new(),
        }
    }

    /// Units left in the open superblock.
    #[inline]
    pub fn room(&self) -> u32 {
        if self.sb.is_some() { self.capacity - self.next } else { 0 }
    }

    /// Starts filling `sb` in `mode`. The current superblock becomes the previous one; the
    /// flag storage of the one before that is recycled.
    pub(crate) fn start(&mut self, sb: u32, mode: CellMode, geometry: &Geometry) {
        let capacity = geometry.sb_units_in(mode);
        let mut flags = self.prev.take().map(|(_, f)| f).unwrap_or_default();
        flags.clear();
        flags.resize((capacity / geometry.pu_units()) as usize, PENDING);
        let old_flags = std::mem::replace(&mut self.pu_done, flags);
        if let Some(old) = self.sb {
            self.prev = Some((old, old_flags));
        }
        self.sb = Some(sb);
        self.mode = mode;
        self.next = 0;
        self.capacity = capacity;
    }

    /// After a restore: everything written so far is programmed.
    pub(crate) fn restore_flags(&mut self, geometry: &Geometry) {
        self.prev = None;
        self.deps.clear();
        self.pu_done.clear();
        if self.sb.is_some() {
            self.pu_done.resize((self.capacity / geometry.pu_units()) as usize, true);
        }
    }

    /// Marks program unit `pu_in_sb` of `sb` as programmed.
    pub(crate) fn mark_programmed(&mut self, sb: u32, pu_in_sb: u32) {
        if self.sb == Some(sb) {
            self.pu_done[pu_in_sb as usize] = true;
        } else if let Some((p, flags)) = self.prev.as_mut() {
            if *p == sb {
                flags[pu_in_sb as usize] = true;
            }
        }
    }

    /// True if unit data at (`sb`, `pu_in_sb`) is still waiting for its program.
    #[inline]
    pub(crate) fn is_pending(&self, sb: u32, pu_in_sb: u32) -> bool {
        if self.sb == Some(sb) {
            return self.pu_done[pu_in_sb as usize] == PENDING;
        }
        match &self.prev {
            Some((p, flags)) if *p == sb => flags[pu_in_sb as usize] == PENDING,
            _ => false,
        }
    }
}
