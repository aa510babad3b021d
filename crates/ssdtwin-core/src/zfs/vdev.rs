//! Top-level vdevs: how a block's place on a vdev (a DVA) maps onto its drives, how much
//! space a block takes there, and the vdev's metaslabs.
//!
//! * Labels (`vdev_label.c`): every leaf keeps two 256 KiB labels and a 3.5 MiB boot area at
//!   its start and two labels at its end; vdev offset 0 is leaf offset 4 MiB.
//! * Space (`vdev_psize_to_asize`): on a disk or mirror a block takes its physical size
//!   rounded up to 2^ashift; on RAID-Z (`vdev_raidz_psize_to_asize`) its data sectors, a
//!   parity sector per stripe row for each parity level, padded to a multiple of parity + 1.
//! * Mapping: a mirror writes every child and reads one; RAID-Z spreads a block's sectors
//!   over its columns from `offset / 2^ashift mod children`, parity first
//!   (`vdev_raidz_map_alloc`), and a read touches only the data columns.

use super::config::{AllocClass, VdevLayout};
use super::metaslab::{Metaslab, metaslab_shift};

/// Bytes at the start of every leaf before vdev offset 0 (`VDEV_LABEL_START_SIZE`).
pub(crate) const LABEL_START_BYTES: u64 = 4 << 20;
/// Bytes at the end of every leaf the vdev does not use (`VDEV_LABEL_END_SIZE`).
pub(crate) const LABEL_END_BYTES: u64 = 512 << 10;
/// One label (`VDEV_LABEL_SIZE`); its uberblock ring starts 128 KiB in.
pub(crate) const LABEL_BYTES: u64 = 256 << 10;

/// A block's address on a top-level vdev: vdev index and byte offset, packed in 64 bits
/// (8 bits of vdev, 56 of 512-byte sectors), or a hole, or data embedded in the pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dva(u64);

impl Dva {
    /// No block.
    pub const HOLE: Dva = Dva(u64::MAX);
    /// Data small enough to live in the block pointer itself (no allocation).
    pub const EMBEDDED: Dva = Dva(u64::MAX - 1);

    pub(crate) fn new(vdev: usize, offset: u64) -> Dva {
        debug_assert!(offset % 512 == 0 && vdev < 255);
        Dva((vdev as u64) << 56 | offset >> 9)
    }
    /// Whether a block is there (neither a hole nor embedded).
    pub fn is_allocated(self) -> bool {
        self.0 < u64::MAX - 1
    }
    /// The top-level vdev.
    pub fn vdev(self) -> usize {
        (self.0 >> 56) as usize
    }
    /// Byte offset on the vdev.
    pub fn offset(self) -> u64 {
        (self.0 & ((1 << 56) - 1)) << 9
    }
}

/// One child's share of a block's I/O on a vdev.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Column {
    /// Index of the child within the vdev.
    pub child: usize,
    /// Offset on the child (vdev space of the child, before the label area).
    pub offset: u64,
    pub bytes: u64,
    pub parity: bool,
}

/// A top-level vdev at run time.
#[derive(Clone, Debug)]
pub(crate) struct TopVdev {
    pub(crate) name: String,
    pub(crate) class: AllocClass,
    pub(crate) layout: VdevLayout,
    pub(crate) ashift: u32,
    /// Pool-wide indices of its leaves.
    pub(crate) leaves: Vec<usize>,
    pub(crate) rotational: bool,
    /// Bytes its metaslabs cover.
    pub(crate) asize: u64,
    pub(crate) ms_shift: u32,
    pub(crate) metaslabs: Vec<Metaslab>,
    /// The metaslab each DVA index allocates from (`mg_primaries`, `mg_secondaries`, …).
    active: [Option<usize>; 3],
    pub(crate) allocated: u64,
}

impl TopVdev {
    /// A vdev over leaves each giving `leaf_bytes` (the smallest of them) to ZFS.
    pub(crate) fn new(
        name: String,
        class: AllocClass,
        layout: VdevLayout,
        ashift: u8,
        leaves: Vec<usize>,
        leaf_bytes: u64,
        rotational: bool,
    ) -> Self {
        let child = leaf_bytes.saturating_sub(LABEL_START_BYTES + LABEL_END_BYTES);
        let raw = match layout {
            VdevLayout::Disk | VdevLayout::Mirror => child,
            VdevLayout::Raidz(_) => child * leaves.len() as u64,
        };
        let ms_shift = metaslab_shift(raw);
        let count = (raw >> ms_shift).max(1);
        let size = 1u64 << ms_shift;
        let metaslabs = (0..count).map(|i| Metaslab::new(i * size, size.min(raw))).collect::<Vec<_>>();
        let asize = metaslabs.iter().map(|m| m.size).sum();
        TopVdev {
            name,
            class,
            layout,
            ashift: u32::from(ashift),
            leaves,
            rotational,
            asize,
            ms_shift,
            metaslabs,
            active: [None; 3],
            allocated: 0,
        }
    }

    /// Space a block of `psize` physical bytes takes (`vdev_psize_to_asize`).
    pub(crate) fn psize_to_asize(&self, psize: u64) -> u64 {
        let unit = 1u64 << self.ashift;
        match self.layout {
            VdevLayout::Disk | VdevLayout::Mirror => psize.div_ceil(unit) * unit,
            VdevLayout::Raidz(p) => {
                let (p, cols) = (u64::from(p), self.leaves.len() as u64);
                let mut sectors = psize.div_ceil(unit);
                sectors += p * ((sectors + cols - p - 1) / (cols - p));
                sectors.div_ceil(p + 1) * (p + 1) * unit
            }
        }
    }

    /// The smallest allocation (`vdev_get_min_alloc`).
    pub(crate) fn min_alloc(&self) -> u64 {
        match self.layout {
            VdevLayout::Raidz(p) => (u64::from(p) + 1) << self.ashift,
            _ => 1 << self.ashift,
        }
    }

    pub(crate) fn metaslab_of(&self, offset: u64) -> usize {
        ((offset >> self.ms_shift) as usize).min(self.metaslabs.len() - 1)
    }

    /// Allocates `asize` bytes for DVA number `d` of a block, avoiding the metaslabs its
    /// other copies on this vdev use (`metaslab_is_unique`) while it can; `None` if nothing
    /// fits.
    pub(crate) fn alloc(&mut self, asize: u64, d: usize, avoid: &[usize]) -> Option<u64> {
        let d = d.min(2);
        if let Some(m) = self.active[d]
            && !avoid.contains(&m)
            && let Some(o) = self.metaslabs[m].alloc(asize)
        {
            self.allocated += asize;
            return Some(o);
        }
        let count = self.metaslabs.len();
        let others: Vec<usize> =
            self.active.iter().enumerate().filter(|&(i, _)| i != d).filter_map(|(_, a)| *a).collect();
        // Standards are lowered step by step: another copy's metaslab, then any at all
        // (`try_hard`: "gradually lower our standards until anything becomes acceptable").
        let fits = |m: &usize| self.metaslabs[*m].largest() >= asize;
        let best = (0..count)
            .filter(|m| !avoid.contains(m) && !others.contains(m) && fits(m))
            .max_by_key(|&m| (self.metaslabs[m].weight(m, count, self.rotational), std::cmp::Reverse(m)))
            .or_else(|| (0..count).find(|m| !avoid.contains(m) && fits(m)))
            .or_else(|| (0..count).find(fits))?;
        self.active[d] = Some(best);
        let o = self.metaslabs[best].alloc(asize)?;
        self.allocated += asize;
        Some(o)
    }

    pub(crate) fn free(&mut self, offset: u64, asize: u64) {
        let m = self.metaslab_of(offset);
        self.metaslabs[m].free(offset, asize);
        self.allocated -= asize;
    }

    /// Fragmentation of the free space, weighted by metaslab size (`vdev_metaslab_group`),
    /// or `None` if nothing was ever allocated.
    pub(crate) fn fragmentation(&self) -> Option<u64> {
        let (mut w, mut n) = (0u128, 0u128);
        for m in &self.metaslabs {
            if let Some(f) = m.fragmentation() {
                w += u128::from(f) * u128::from(m.size);
                n += u128::from(m.size);
            }
        }
        (n > 0).then(|| (w / n) as u64)
    }

    /// The children's parts of an I/O of `asize` bytes at vdev `offset`: all of them for a
    /// write, the data columns (or, for a mirror, the caller's one child) for a read.
    // The RAID-Z arithmetic keeps the short names of OpenZFS's `vdev_raidz_map_alloc`.
    #[allow(clippy::many_single_char_names)]
    pub(crate) fn columns(&self, offset: u64, asize: u64, out: &mut Vec<Column>) {
        out.clear();
        match self.layout {
            VdevLayout::Disk | VdevLayout::Mirror => {
                for child in 0..self.leaves.len() {
                    out.push(Column { child, offset, bytes: asize, parity: false });
                }
            }
            VdevLayout::Raidz(p) => {
                let (cols, p) = (self.leaves.len() as u64, u64::from(p));
                let unit = 1u64 << self.ashift;
                let (b, s) = (offset >> self.ashift, asize >> self.ashift);
                let (first, row) = (b % cols, b / cols);
                let (q, r) = (s / cols, s % cols);
                for i in 0..cols {
                    let c = (first + i) % cols;
                    let n = q + u64::from(i < r);
                    if n == 0 {
                        continue;
                    }
                    let row = row + u64::from(c < first);
                    out.push(Column { child: c as usize, offset: row * unit, bytes: n * unit, parity: i < p });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vdev(layout: VdevLayout, n: usize) -> TopVdev {
        TopVdev::new("t".into(), AllocClass::Normal, layout, 12, (0..n).collect(), 1 << 40, true)
    }

    #[test]
    fn asize_rounds_to_ashift_and_adds_raidz_parity_and_padding() {
        let m = vdev(VdevLayout::Mirror, 2);
        assert_eq!(m.psize_to_asize(512), 4096);
        assert_eq!(m.psize_to_asize(131_072), 131_072);
        let z2 = vdev(VdevLayout::Raidz(2), 6);
        // 4 KiB: 1 data sector + 2 parity = 3, a multiple of 3: 12 KiB.
        assert_eq!(z2.psize_to_asize(4096), 12_288);
        // 128 KiB: 32 data sectors over 4 data columns = 8 rows, 16 parity: 48 sectors.
        assert_eq!(z2.psize_to_asize(131_072), 48 * 4096);
        let z1 = vdev(VdevLayout::Raidz(1), 4);
        // 8 KiB: 2 data + 1 parity = 3, padded to a multiple of 2: 4 sectors.
        assert_eq!(z1.psize_to_asize(8192), 4 * 4096);
    }

    #[test]
    fn raidz_columns_cover_the_block_parity_first() {
        let z2 = vdev(VdevLayout::Raidz(2), 6);
        let mut cols = Vec::new();
        z2.columns(7 * 4096, 48 * 4096, &mut cols);
        assert_eq!(cols.iter().map(|c| c.bytes).sum::<u64>(), 48 * 4096);
        assert_eq!(cols.iter().filter(|c| c.parity).count(), 2);
        assert_eq!(cols[0].child, 1, "sector 7 of 6 columns starts in column 1");
        assert!(cols.iter().all(|c| c.offset == 4096 || c.offset == 2 * 4096));
    }

    #[test]
    fn ditto_copies_on_one_vdev_land_in_different_metaslabs() {
        let mut m = vdev(VdevLayout::Mirror, 2);
        let a = m.alloc(4096, 0, &[]).unwrap();
        let b = m.alloc(4096, 1, &[m.metaslab_of(a)]).unwrap();
        assert_ne!(m.metaslab_of(a), m.metaslab_of(b));
        assert_eq!(m.allocated, 8192);
        assert_eq!(m.metaslab_of(a), 0, "the outermost metaslab weighs most on a disk");
    }

    #[test]
    fn dvas_pack_vdev_and_offset() {
        let d = Dva::new(3, 1 << 40);
        assert_eq!((d.vdev(), d.offset()), (3, 1 << 40));
        assert!(d.is_allocated() && !Dva::HOLE.is_allocated() && !Dva::EMBEDDED.is_allocated());
    }
}
