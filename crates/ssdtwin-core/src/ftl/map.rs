//! The page-level map at 4 KiB map units: L2P (logical → physical) and its reverse, P2L,
//! used by GC to find which logical unit a valid physical unit holds.
//!
//! Memory: 4 bytes per logical unit plus 4 bytes per physical unit. A physical unit is valid
//! exactly when its P2L entry is not [`UNMAPPED`], so no separate valid bitmap is kept.
//! Entries are stored plus one (so [`UNMAPPED`], `u32::MAX`, is stored as 0): a fresh map is
//! untouched zeroed memory, costing neither time nor resident memory until written.

use crate::engine::BigArray;

/// Marks an unmapped logical unit, or an invalid physical unit.
pub const UNMAPPED: u32 = u32::MAX;

/// Stored form of a value: plus one, wrapping, so UNMAPPED is 0.
#[inline]
fn encode(v: u32) -> u32 {
    v.wrapping_add(1)
}

#[inline]
fn decode(v: u32) -> u32 {
    v.wrapping_sub(1)
}

/// L2P and P2L arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageMap {
    l2p: BigArray<u32>,
    p2l: BigArray<u32>,
}

impl PageMap {
    /// Everything unmapped.
    pub fn new(logical_units: u32, physical_units: u32) -> Self {
        PageMap {
            l2p: BigArray::filled(logical_units as usize, encode(UNMAPPED)),
            p2l: BigArray::filled(physical_units as usize, encode(UNMAPPED)),
        }
    }

    /// Physical location of `lpn`, or [`UNMAPPED`].
    #[inline]
    pub fn lookup(&self, lpn: u32) -> u32 {
        decode(self.l2p[lpn as usize])
    }

    /// Prefetches the L2P entry of `lpn`.
    #[inline]
    pub fn touch(&self, lpn: u32) {
        crate::engine::prefetch(&self.l2p, lpn as usize);
    }

    /// Logical unit held at `ppa`, or [`UNMAPPED`] if the unit is invalid.
    #[inline]
    pub fn owner(&self, ppa: u32) -> u32 {
        decode(self.p2l[ppa as usize])
    }

    /// Logical units.
    pub fn logical_units(&self) -> u32 {
        self.l2p.len() as u32
    }

    /// Physical units.
    pub fn physical_units(&self) -> u32 {
        self.p2l.len() as u32
    }

    /// The L2P in stored form (location + 1, 0 when unmapped), for snapshots.
    pub fn stored_l2p(&self) -> &[u32] {
        &self.l2p
    }

    /// Points `lpn` at `ppa`; returns the location it had before (now invalid).
    #[inline]
    pub(crate) fn remap(&mut self, lpn: u32, ppa: u32) -> u32 {
        let old = decode(std::mem::replace(&mut self.l2p[lpn as usize], encode(ppa)));
        if old != UNMAPPED {
            self.p2l[old as usize] = encode(UNMAPPED);
        }
        self.p2l[ppa as usize] = encode(lpn);
        old
    }

    /// Unmaps `lpn`; returns the location it had.
    #[inline]
    pub(crate) fn unmap(&mut self, lpn: u32) -> u32 {
        let old = decode(std::mem::replace(&mut self.l2p[lpn as usize], encode(UNMAPPED)));
        if old != UNMAPPED {
            self.p2l[old as usize] = encode(UNMAPPED);
        }
        old
    }

    /// Unmaps everything.
    pub(crate) fn clear(&mut self) {
        // Fresh arrays rather than a fill: untouched pages cost neither time nor memory.
        self.l2p = BigArray::filled(self.l2p.len(), encode(UNMAPPED));
        self.p2l = BigArray::filled(self.p2l.len(), encode(UNMAPPED));
    }

    /// Replaces the L2P with `stored` (stored form, as [`PageMap::stored_l2p`] gives) and
    /// rebuilds P2L. Fails if an entry points beyond the physical array.
    pub(crate) fn restore(&mut self, stored: &[u32]) -> Result<(), String> {
        if stored.len() != self.l2p.len() {
            return Err(format!("map has {} units, this device {}", stored.len(), self.l2p.len()));
        }
        let physical = self.physical_units();
        if stored.iter().any(|&s| decode(s) != UNMAPPED && decode(s) >= physical) {
            return Err("map points beyond the physical array".into());
        }
        self.l2p.copy_from_slice(stored);
        self.p2l.fill(encode(UNMAPPED));
        for (lpn, &s) in self.l2p.iter().enumerate() {
            if decode(s) != UNMAPPED {
                self.p2l[decode(s) as usize] = encode(lpn as u32);
            }
        }
        Ok(())
    }

    /// Mapped (logical, physical) pairs, for invariant checks.
    pub(crate) fn mapped(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.l2p.iter().enumerate().filter(|&(_, &s)| s != 0).map(|(l, &s)| (l as u32, decode(s)))
    }

    /// Valid (physical, logical) pairs, for invariant checks.
    pub(crate) fn valid(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.p2l.iter().enumerate().filter(|&(_, &s)| s != 0).map(|(p, &s)| (p as u32, decode(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_map_is_all_unmapped_and_remap_keeps_both_directions() {
        let mut m = PageMap::new(10, 20);
        assert!((0..10).all(|l| m.lookup(l) == UNMAPPED));
        assert_eq!(m.remap(3, 7), UNMAPPED);
        assert_eq!(m.remap(3, 0), 7);
        assert_eq!((m.lookup(3), m.owner(0), m.owner(7)), (0, 3, UNMAPPED));
        assert_eq!(m.unmap(3), 0);
        assert_eq!(m.owner(0), UNMAPPED);
        assert!(m.stored_l2p().iter().all(|&s| s == 0));
    }
}
