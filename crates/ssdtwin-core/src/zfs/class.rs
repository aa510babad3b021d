//! Where a block goes: the allocation class (`spa_preferred_class`), its copies' places on
//! the class's vdevs (`metaslab_alloc`), and the fall-back when a class is full
//! (`zio_dva_allocate`).
//!
//! `spa_preferred_class`, for a block that is not a dedup table block:
//!
//! 1. no special vdev, or special already tried → normal;
//! 2. metadata, or an indirect block of a file (`zfs_user_indirect_is_special`) → special;
//! 3. a data block whose physical size (after compression) is at most the dataset's
//!    `special_small_blocks` → special, *only while* the special class's allocated space is
//!    below `(100 − zfs_special_class_metadata_reserve_pct) %` of its size;
//! 4. else normal.
//!
//! If the chosen class has no room for every copy (ENOSPC), `zio_dva_allocate` asks again
//! with special marked as tried, which gives normal: the block *spills*. Intent-log blocks
//! choose for themselves (`zio_alloc_zil`): log vdevs, else special, else normal.
//!
//! Copies of one block go to consecutive vdevs of the class; when the class has one vdev
//! they share it, in different metaslabs. The rotor moves to the next vdev after
//! `metaslab_aliquot` bytes times the vdev's data disks.

use super::config::{AllocClass, VdevLayout};
use super::vdev::Dva;
use super::{OpError, Pool};

/// What a block is, for placement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Role {
    /// Metadata, or an indirect block of a file.
    pub metadata: bool,
    /// A level > 0 block.
    pub indirect: bool,
    /// The dataset's `special_small_blocks` (data blocks only).
    pub small_blocks: u64,
    /// An intent-log block.
    pub intent_log: bool,
}

/// Space in use, by class and kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClassUsage {
    /// Bytes of metadata (copies included).
    pub metadata_bytes: u64,
    /// Bytes of data blocks.
    pub data_bytes: u64,
    /// Bytes of intent-log blocks.
    pub log_bytes: u64,
    /// The class's space, bytes.
    pub size_bytes: u64,
}

impl ClassUsage {
    /// All bytes allocated.
    pub fn allocated(&self) -> u64 {
        self.metadata_bytes + self.data_bytes + self.log_bytes
    }
}

/// Space per class, and what did not go where it was meant to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// The normal class.
    pub normal: ClassUsage,
    /// The special class.
    pub special: ClassUsage,
    /// The dedup class.
    pub dedup: ClassUsage,
    /// Log vdevs.
    pub log: ClassUsage,
    /// Small data blocks sent to normal because the special class was past its reserve
    /// threshold (`spa_preferred_class`, rule 3), bytes allocated.
    pub small_blocks_redirected_bytes: u64,
    /// Metadata meant for special that spilled to normal (special full), bytes.
    pub metadata_spilled_bytes: u64,
    /// Small data blocks meant for special that spilled to normal (special full), bytes.
    pub data_spilled_bytes: u64,
    /// Intent-log blocks that found no room on log or special vdevs, bytes.
    pub log_spilled_bytes: u64,
}

impl Usage {
    pub(crate) fn class_mut(&mut self, c: AllocClass) -> &mut ClassUsage {
        match c {
            AllocClass::Normal => &mut self.normal,
            AllocClass::Special => &mut self.special,
            AllocClass::Dedup => &mut self.dedup,
            AllocClass::Log => &mut self.log,
        }
    }
    /// The usage of class `c`.
    pub fn class(&self, c: AllocClass) -> &ClassUsage {
        match c {
            AllocClass::Normal => &self.normal,
            AllocClass::Special => &self.special,
            AllocClass::Dedup => &self.dedup,
            AllocClass::Log => &self.log,
        }
    }
    /// Bytes that spilled from special to normal because special was full.
    pub fn spilled_bytes(&self) -> u64 {
        self.metadata_spilled_bytes + self.data_spilled_bytes + self.log_spilled_bytes
    }
}

impl Pool {
    pub(crate) fn has_class(&self, c: AllocClass) -> bool {
        !self.class_tops[c.index()].is_empty()
    }

    /// The space of class `c` (`metaslab_class_get_space`), bytes.
    pub(crate) fn class_space(&self, c: AllocClass) -> u64 {
        self.class_tops[c.index()].iter().map(|&t| self.tops[t].asize).sum()
    }

    /// `spa_preferred_class` for a block of `psize` physical bytes.
    pub(crate) fn preferred_class(&mut self, role: Role, psize: u64, tried_special: bool) -> AllocClass {
        if role.intent_log {
            return AllocClass::Log;
        }
        if !self.has_class(AllocClass::Special) || tried_special {
            return AllocClass::Normal;
        }
        let t = &self.config.tunables;
        if role.metadata || (t.zfs_user_indirect_is_special != 0 && role.indirect) {
            return AllocClass::Special;
        }
        if psize <= role.small_blocks {
            let reserve = t.zfs_special_class_metadata_reserve_pct;
            let limit = u128::from(self.class_space(AllocClass::Special)) * u128::from(100 - reserve) / 100;
            if u128::from(self.usage.special.allocated()) < limit {
                return AllocClass::Special;
            }
            self.usage.small_blocks_redirected_bytes += psize;
        }
        AllocClass::Normal
    }

    /// Places `copies` copies of a block of `psize` bytes (`zio_dva_allocate`): in its
    /// preferred class, or in normal when that one is full. `Err(Full)` when normal is full.
    pub(crate) fn allocate(&mut self, role: Role, psize: u64, copies: usize) -> Result<[Dva; 3], OpError> {
        let mut dva = [Dva::HOLE; 3];
        if role.intent_log {
            for c in [AllocClass::Log, AllocClass::Special, AllocClass::Normal] {
                if self.has_class(c) && self.alloc_in_class(c, psize, 1, &mut dva) {
                    if c == AllocClass::Normal
                        && (self.has_class(AllocClass::Log) || self.has_class(AllocClass::Special))
                    {
                        self.usage.log_spilled_bytes += self.dva_asize(&dva, psize);
                    }
                    self.account(&dva, psize, role, true);
                    return Ok(dva);
                }
            }
            return Err(OpError::Full { pool: self.config.name.clone(), bytes: psize });
        }
        let class = self.preferred_class(role, psize, false);
        if self.alloc_in_class(class, psize, copies, &mut dva) {
            self.account(&dva, psize, role, true);
            return Ok(dva);
        }
        let fallback = self.preferred_class(role, psize, true);
        if fallback != class && self.alloc_in_class(fallback, psize, copies, &mut dva) {
            let bytes = self.dva_asize(&dva, psize);
            if role.metadata || role.indirect {
                self.usage.metadata_spilled_bytes += bytes;
            } else {
                self.usage.data_spilled_bytes += bytes;
            }
            self.account(&dva, psize, role, true);
            return Ok(dva);
        }
        Err(OpError::Full { pool: self.config.name.clone(), bytes: psize })
    }

    /// Returns a block's copies to their metaslabs.
    pub(crate) fn free_block(&mut self, dva: &[Dva; 3], psize: u64, role: Role) {
        self.account(dva, psize, role, false);
        for d in dva.iter().filter(|d| d.is_allocated()) {
            let asize = self.tops[d.vdev()].psize_to_asize(psize);
            self.tops[d.vdev()].free(d.offset(), asize);
        }
    }

    /// Space the copies take.
    pub(crate) fn dva_asize(&self, dva: &[Dva; 3], psize: u64) -> u64 {
        dva.iter().filter(|d| d.is_allocated()).map(|d| self.tops[d.vdev()].psize_to_asize(psize)).sum()
    }

    fn account(&mut self, dva: &[Dva; 3], psize: u64, role: Role, add: bool) {
        for d in dva.iter().filter(|d| d.is_allocated()) {
            let top = &self.tops[d.vdev()];
            let asize = top.psize_to_asize(psize);
            let u = self.usage.class_mut(top.class);
            let field = if role.intent_log {
                &mut u.log_bytes
            } else if role.metadata || role.indirect {
                &mut u.metadata_bytes
            } else {
                &mut u.data_bytes
            };
            if add {
                *field += asize;
            } else {
                *field -= asize;
            }
        }
    }

    /// `metaslab_alloc`: every copy in class `class` or none.
    fn alloc_in_class(&mut self, class: AllocClass, psize: u64, copies: usize, dva: &mut [Dva; 3]) -> bool {
        let ci = class.index();
        let n = self.class_tops[ci].len();
        if n == 0 {
            return false;
        }
        for d in 0..copies {
            // The first copy starts at the rotor, each further one at the vdev after the
            // previous copy's.
            let start = if d == 0 {
                self.rotor[ci] % n
            } else {
                let prev = dva[d - 1].vdev();
                (self.class_tops[ci].iter().position(|&t| t == prev).unwrap_or(0) + 1) % n
            };
            let mut placed = false;
            for k in 0..n {
                let top = self.class_tops[ci][(start + k) % n];
                if !self.top_readable(top) {
                    continue;
                }
                let asize = self.tops[top].psize_to_asize(psize);
                let avoid: Vec<usize> = dva[..d]
                    .iter()
                    .filter(|x| x.is_allocated() && x.vdev() == top)
                    .map(|x| self.tops[top].metaslab_of(x.offset()))
                    .collect();
                if let Some(offset) = self.tops[top].alloc(asize, d, &avoid) {
                    dva[d] = Dva::new(top, offset);
                    placed = true;
                    if d == 0 {
                        self.rotate(ci, (start + k) % n, asize);
                    }
                    break;
                }
            }
            if !placed {
                for x in dva[..d].iter().filter(|x| x.is_allocated()) {
                    let asize = self.tops[x.vdev()].psize_to_asize(psize);
                    self.tops[x.vdev()].free(x.offset(), asize);
                }
                *dva = [Dva::HOLE; 3];
                return false;
            }
        }
        true
    }

    /// Moves the class's rotor on once a vdev has taken its aliquot.
    fn rotate(&mut self, ci: usize, at: usize, asize: u64) {
        let top = self.class_tops[ci][at];
        let data_disks = match self.tops[top].layout {
            VdevLayout::Disk | VdevLayout::Mirror => 1,
            VdevLayout::Raidz(p) => self.tops[top].leaves.len() as u64 - u64::from(p),
        };
        if self.rotor[ci] % self.class_tops[ci].len() != at {
            self.rotor[ci] = at;
            self.rotor_bytes[ci] = 0;
        }
        self.rotor_bytes[ci] += asize;
        if self.rotor_bytes[ci] >= self.config.tunables.metaslab_aliquot * data_disks {
            self.rotor[ci] = (at + 1) % self.class_tops[ci].len();
            self.rotor_bytes[ci] = 0;
        }
    }
}
