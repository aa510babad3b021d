//! What `zpool list -v` and `zdb -bbb` show, gathered from the model's tables.
//!
//! * [`ListRow`]: one row per pool, top-level vdev, class header and leaf, in
//!   `zpool_main.c`'s order (normal vdevs, then the `dedup`, `special` and `logs` classes);
//!   the pool's SIZE and ALLOC count normal, special and dedup, not log vdevs
//!   (`spa_prop_get_config`).
//! * [`BlockStats`]: zdb's traversal (`dump_block_stats`): per DMU object type and level
//!   the blocks, logical, physical and allocated bytes (every copy), and the histograms of
//!   psize, lsize and asize binned at powers of two, each bin holding sizes up to and
//!   including its own (`BIN(size) = highbit64(size - 1)`).
//!
//! The text layouts are the CLI's (`python/ssdtwin/zfs.py`); this module gives numbers.

use super::Pool;
use super::class::Usage;
use super::config::{AllocClass, VdevLayout};
use super::objects::{self, ot};
use super::vdev::Dva;

/// One txg as it synced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxgRecord {
    /// Its number.
    pub txg: u64,
    /// When it started and finished syncing, ns.
    pub start_ns: u64,
    /// See above.
    pub end_ns: u64,
    /// Physical bytes of blocks it wrote (one copy each, labels and logs aside).
    pub written_bytes: u64,
    /// Space by class when it was done.
    pub usage: Usage,
}

/// What a row of `zpool list -v` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowKind {
    /// The pool.
    Pool,
    /// A top-level vdev.
    Top,
    /// A class header (`special`, `logs`, `dedup`).
    Class,
    /// A leaf under a mirror or RAID-Z vdev.
    Leaf,
}

/// A row of `zpool list -v`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListRow {
    /// Name (`tank`, `mirror-0`, `sda`, `special`).
    pub name: String,
    /// Indentation, as zpool prints it.
    pub depth: usize,
    /// What it is.
    pub kind: RowKind,
    /// SIZE (for a leaf, its partition), bytes.
    pub size: u64,
    /// ALLOC, bytes.
    pub alloc: u64,
    /// FRAG, %, if known.
    pub frag: Option<u64>,
    /// HEALTH.
    pub health: String,
}

/// Blocks of one DMU object type at one level (or all levels: `level = None`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TypeStats {
    /// Index in `dmu_ot[]`.
    pub ot: u8,
    /// Level, or `None` for the type's total.
    pub level: Option<u8>,
    /// Block pointers.
    pub count: u64,
    /// Logical bytes.
    pub lsize: u64,
    /// Physical bytes.
    pub psize: u64,
    /// Allocated bytes, every copy.
    pub asize: u64,
}

/// zdb's block statistics.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockStats {
    /// Per (type, level) and per type, rows with blocks only.
    pub types: Vec<TypeStats>,
    /// The total over every block.
    pub total: TypeStats,
    /// Blocks whose data lives in the block pointer.
    pub embedded: u64,
    /// Blocks with two copies on one top-level vdev.
    pub ditto_same_vdev: u64,
    /// Histograms, by bin (bin `k` holds sizes in (2^(k-1), 2^k]), for k = 0..=24:
    /// (count, bytes) of psize, lsize and asize.
    pub psize_hist: Vec<(u64, u64)>,
    /// See above.
    pub lsize_hist: Vec<(u64, u64)>,
    /// See above.
    pub asize_hist: Vec<(u64, u64)>,
    /// Space by class.
    pub usage: Usage,
}

impl BlockStats {
    fn add(&mut self, ot: u8, level: u8, lsize: u64, psize: u64, asize: u64, embedded: bool) {
        let i = self.types.iter().position(|t| t.ot == ot && t.level == Some(level)).unwrap_or_else(|| {
            self.types.push(TypeStats { ot, level: Some(level), ..Default::default() });
            self.types.len() - 1
        });
        for t in [&mut self.types[i], &mut self.total] {
            t.count += 1;
            t.lsize += lsize;
            t.psize += psize;
            t.asize += asize;
        }
        if embedded {
            self.embedded += 1;
            return;
        }
        let bin = |s: u64| (64 - (s.max(1) - 1).leading_zeros()).min(24) as usize;
        for (h, s) in [(&mut self.psize_hist, psize), (&mut self.lsize_hist, lsize), (&mut self.asize_hist, asize)] {
            let b = &mut h[bin(s)];
            b.0 += 1;
            b.1 += s;
        }
    }

    /// Metadata: every level > 0 block and every block of a metadata type (zdb's
    /// "Metadata Total").
    pub fn metadata_total(&self) -> TypeStats {
        let mut m = TypeStats::default();
        for t in self.types.iter().filter(|t| t.level.is_some_and(|l| l > 0 || ot::is_metadata(t.ot))) {
            m.count += t.count;
            m.lsize += t.lsize;
            m.psize += t.psize;
            m.asize += t.asize;
        }
        m
    }
}

impl Pool {
    /// `zdb -bbb`'s numbers: every block pointer of the pool.
    pub fn block_stats(&self) -> BlockStats {
        let mut s = BlockStats {
            psize_hist: vec![(0, 0); 25],
            lsize_hist: vec![(0, 0); 25],
            asize_hist: vec![(0, 0); 25],
            usage: self.usage(),
            ..Default::default()
        };
        let count_bp = |s: &mut BlockStats, dva: &[Dva; 3], ot: u8, level: u8, lsize: u64, psize: u64| {
            if dva[0] == Dva::HOLE {
                return;
            }
            let embedded = dva[0] == Dva::EMBEDDED;
            let asize = if embedded { 0 } else { self.dva_asize(dva, psize) };
            let live: Vec<usize> = dva.iter().filter(|d| d.is_allocated()).map(|d| d.vdev()).collect();
            if live.len() > 1 && (1..live.len()).any(|i| live[..i].contains(&live[i])) {
                s.ditto_same_vdev += 1;
            }
            s.add(ot, level, lsize, if embedded { 0 } else { psize }, asize, embedded);
        };
        for b in &self.mos {
            count_bp(&mut s, &b.dva, b.ot, b.level, u64::from(b.lsize), u64::from(b.psize));
        }
        for (dva, psize) in &self.txg.log_spacemaps {
            count_bp(&mut s, dva, ot::SPACE_MAP, 0, (psize * 2).next_power_of_two().max(4096), *psize);
        }
        for (i, d) in self.datasets.iter().enumerate() {
            for b in &d.meta {
                count_bp(&mut s, &b.dva, b.ot, b.level, u64::from(b.lsize), u64::from(b.psize));
            }
            if let Some(t) = &d.tree {
                let rs = d.cfg.recordsize_bytes;
                for f in 0..t.tree.files() {
                    let (n, lsize) = objects::file_blocks(t.tree.file_bytes[f], rs);
                    for b in 0..n {
                        let at = (t.data_base[f] + b) as usize * t.copies;
                        let mut dva = [Dva::HOLE; 3];
                        dva[..t.copies].copy_from_slice(&t.data[at..at + t.copies]);
                        let psize = if dva[0].is_allocated() { self.data_psize(i, f, b, lsize) } else { 0 };
                        count_bp(&mut s, &dva, ot::PLAIN_FILE, 0, lsize, psize);
                    }
                }
            }
            for page in d.flat.pages.iter().flatten() {
                for r in page {
                    count_bp(&mut s, &r.dva, ot::PLAIN_FILE, 0, d.cfg.recordsize_bytes, u64::from(r.psize));
                }
            }
        }
        // Per-type totals after the per-level rows, as zdb keeps them.
        let mut totals: Vec<TypeStats> = Vec::new();
        for t in &s.types {
            match totals.iter_mut().find(|x| x.ot == t.ot) {
                Some(x) => {
                    x.count += t.count;
                    x.lsize += t.lsize;
                    x.psize += t.psize;
                    x.asize += t.asize;
                }
                None => totals.push(TypeStats { level: None, ..*t }),
            }
        }
        s.types.extend(totals);
        s.types.sort_by_key(|t| (t.ot, t.level.map_or(u8::MAX, |l| u8::MAX - 1 - l)));
        s
    }

    /// `zpool list -v`'s rows.
    pub fn list_rows(&self) -> Vec<ListRow> {
        let lost = self.check_usable().is_err();
        let degraded = self.leaves.iter().any(|l| l.failed);
        let pool_health = if lost {
            "UNAVAIL"
        } else if degraded {
            "DEGRADED"
        } else {
            "ONLINE"
        };
        let u = self.usage();
        let counted = [AllocClass::Normal, AllocClass::Special, AllocClass::Dedup];
        let size: u64 = counted.iter().map(|&c| self.class_space(c)).sum();
        let alloc: u64 = counted.iter().map(|&c| u.class(c).allocated()).sum();
        let frag = {
            let tops: Vec<_> = self.tops.iter().filter(|t| counted.contains(&t.class)).collect();
            let (mut w, mut n) = (0u128, 0u128);
            for t in &tops {
                if let Some(f) = t.fragmentation() {
                    w += u128::from(f) * u128::from(t.asize);
                    n += u128::from(t.asize);
                }
            }
            Some(w.checked_div(n).map_or(0, |f| f as u64))
        };
        let mut rows = vec![ListRow {
            name: self.config.name.clone(),
            depth: 0,
            kind: RowKind::Pool,
            size,
            alloc,
            frag,
            health: pool_health.into(),
        }];
        let top_rows = |class: AllocClass, rows: &mut Vec<ListRow>| {
            let tops: Vec<usize> = (0..self.tops.len()).filter(|&t| self.tops[t].class == class).collect();
            if tops.is_empty() {
                return;
            }
            if class != AllocClass::Normal {
                rows.push(ListRow {
                    name: class.name().into(),
                    depth: 0,
                    kind: RowKind::Class,
                    size: 0,
                    alloc: 0,
                    frag: None,
                    health: "-".into(),
                });
            }
            for t in tops {
                let top = &self.tops[t];
                let failed = top.leaves.iter().filter(|&&l| self.leaves[l].failed).count();
                let tolerated = match top.layout {
                    VdevLayout::Disk => 0,
                    VdevLayout::Mirror => top.leaves.len() - 1,
                    VdevLayout::Raidz(p) => usize::from(p),
                };
                let health = if failed > tolerated {
                    "UNAVAIL"
                } else if failed > 0 {
                    "DEGRADED"
                } else {
                    "ONLINE"
                };
                rows.push(ListRow {
                    name: top.name.clone(),
                    depth: 2,
                    kind: RowKind::Top,
                    size: top.asize,
                    alloc: top.allocated,
                    frag: Some(top.fragmentation().unwrap_or(0)),
                    health: if top.layout == VdevLayout::Disk && failed > 0 { "FAULTED".into() } else { health.into() },
                });
                if top.layout != VdevLayout::Disk {
                    for &l in &top.leaves {
                        let leaf = &self.leaves[l];
                        rows.push(ListRow {
                            name: leaf.name.clone(),
                            depth: 4,
                            kind: RowKind::Leaf,
                            size: leaf.size_bytes,
                            alloc: 0,
                            frag: None,
                            health: if leaf.failed { "FAULTED".into() } else { "ONLINE".into() },
                        });
                    }
                }
            }
        };
        top_rows(AllocClass::Normal, &mut rows);
        top_rows(AllocClass::Dedup, &mut rows);
        top_rows(AllocClass::Special, &mut rows);
        top_rows(AllocClass::Log, &mut rows);
        rows
    }

    /// Every txg synced so far.
    pub fn txg_log(&self) -> &[TxgRecord] {
        &self.txg_log
    }
}
