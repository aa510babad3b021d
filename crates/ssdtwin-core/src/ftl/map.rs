//! The page-level map at 4 KiB map units: L2P (logical → physical) and its reverse, P2L,
//! used by GC to find which logical unit a valid physical unit holds.
//!
//! Memory: 4 bytes per logical unit plus 4 bytes per physical unit. A physical unit is valid
//! exactly when its P2L entry is not [`UNMAPPED`], so no separate valid bitmap is kept.

/// Marks an unmapped logical unit, or an invalid physical unit.
pub const UNMAPPED: u32 = u32::MAX;

use crate::engine::BigArray;

/// L2P and P2L arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageMap {
    pub(crate) l2p: BigArray<u32>,
    pub(crate) p2l: BigArray<u32>,
}

impl PageMap {
    /// Everything unmapped.
    pub fn new(logical_units: u32, physical_units: u32) -> Self {
        PageMap {
            l2p: BigArray::filled(logical_units as usize, UNMAPPED),
            p2l: BigArray::filled(physical_units as usize, UNMAPPED),
        }
    }

    /// Physical location of `lpn`, or [`UNMAPPED`].
    #[inline]
    pub fn lookup(&self, lpn: u32) -> u32 {
        self.l2p[lpn as usize]
    }

    /// Prefetches the L2P entry of `lpn`.
    #[inline]
    pub fn touch(&self, lpn: u32) {
        crate::engine::prefetch(&self.l2p, lpn as usize);
    }

    /// Logical unit held at `ppa`, or [`UNMAPPED`] if the unit is invalid.
    #[inline]
    pub fn owner(&self, ppa: u32) -> u32 {
        self.p2l[ppa as usize]
    }

    /// Logical units.
    pub fn logical_units(&self) -> u32 {
        self.l2p.len() as u32
    }

    /// Points `lpn` at `ppa`; returns the location it had before (now invalid).
    #[inline]
    pub(crate) fn remap(&mut self, lpn: u32, ppa: u32) -> u32 {
        let old = std::mem::replace(&mut self.l2p[lpn as usize], ppa);
        if old != UNMAPPED {
            self.p2l[old as usize] = UNMAPPED;
        }
        self.p2l[ppa as usize] = lpn;
        old
    }

    /// Unmaps `lpn`; returns the location it had.
    #[inline]
    pub(crate) fn unmap(&mut self, lpn: u32) -> u32 {
        let old = std::mem::replace(&mut self.l2p[lpn as usize], UNMAPPED);
        if old != UNMAPPED {
            self.p2l[old as usize] = UNMAPPED;
        }
        old
    }

    /// Unmaps everything.
    pub(crate) fn clear(&mut self) {
        self.l2p.fill(UNMAPPED);
        self.p2l.fill(UNMAPPED);
    }

    /// Rebuilds P2L from L2P (after loading a snapshot, which stores only L2P).
    pub(crate) fn rebuild_p2l(&mut self) {
        self.p2l.fill(UNMAPPED);
        for (lpn, &ppa) in self.l2p.iter().enumerate() {
            if ppa != UNMAPPED {
                self.p2l[ppa as usize] = lpn as u32;
            }
        }
    }
}
