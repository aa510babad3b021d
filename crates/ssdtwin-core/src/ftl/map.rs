//! The page-level map at 4 KiB map units: L2P (logical → physical) and its reverse, P2L,
//! used by GC to find which logical unit a valid physical unit holds.
//!
//! Memory, at most 4 bytes per logical and 4 per physical unit at every capacity (docs/model.md
//! § Page map; docs/performance.md):
//!
//! * **L2P** (`ftl/l2p.rs`): entries stored plus one (0 is [`UNMAPPED`]), so a fresh map is
//!   untouched zeroed memory, costing neither time nor resident memory until written; the
//!   low 32 bits in a `u32` array, bits 32–33 in a side array where the physical array has
//!   2³² units or more (0.25 B per logical unit more). Chunks of 2¹⁹ entries written whole by
//!   one sequential run are held as one number until written again.
//! * **P2L**: per physical unit, `lpn mod (2³² − 1)`, plus one, or 0 for a unit that holds
//!   nothing valid, so a unit is valid exactly when its entry is not 0. Below 2³² − 1 logical
//!   units that is the whole logical unit; above, the candidates `low + k·(2³² − 1)` are
//!   checked against the L2P (the one that maps here is the owner: at most five, and only GC
//!   and invariant checks ask).
//! * **Sequential runs**: a bulk sequential fill (`ssd/fill.rs`) does not write the P2L. For
//!   each superblock it records the run it wrote (units `first..first + len` hold logical
//!   units `lpn..lpn + len`), and those units' P2L entries stay 0 and untouched: such a unit
//!   is valid while the L2P still maps its logical unit to it. A superblock's run is
//!   forgotten when it is erased. So a sequentially filled drive touches next to no memory
//!   for its map (its L2P is in sequential chunks), and its P2L costs memory only where data
//!   has been rewritten.

use super::error::StateError;
use super::l2p::L2p;
use crate::engine::BigArray;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

/// Marks an unmapped logical unit, or an invalid physical unit.
pub const UNMAPPED: u64 = u64::MAX;

/// P2L entries hold logical units modulo this (so that `+ 1` still fits 32 bits).
const P2L_MODULUS: u64 = (1 << 32) - 1;

/// Most physical units the map can address: L2P entries are 34 bits, stored plus one.
pub const MAX_PHYSICAL_UNITS: u64 = (1 << 34) - 1;

/// Units `first..first + len` of a superblock hold logical units `lpn..lpn + len` unless
/// rewritten since (`len == 0`: no run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Run {
    first: u32,
    len: u32,
    lpn: u64,
}

/// Fresh map arrays being backed with memory on another thread ([`PageMap::prepare_layout`]).
/// Dropped unused, the thread stops within one chunk of its work and is waited for.
pub(crate) struct LayoutArrays {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<(L2p, BigArray<u32>)>>,
}

impl LayoutArrays {
    /// The arrays, once the thread is done with them (`None` if no thread ran, or it
    /// panicked).
    fn take(mut self) -> Option<(L2p, BigArray<u32>)> {
        self.thread.take()?.join().ok()
    }
}

impl Drop for LayoutArrays {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.stop.store(true, Ordering::Relaxed);
            let _ = thread.join();
        }
    }
}

/// L2P and P2L.
#[derive(Clone, Debug)]
pub struct PageMap {
    l2p: L2p,
    p2l: BigArray<u32>,
    /// Per superblock, the run a bulk fill wrote with implicit P2L entries.
    runs: Vec<Run>,
    /// Physical units per superblock (superblocks are contiguous in physical addresses).
    sb_units: u64,
    /// True while some superblock has a run (lets writes skip the check otherwise).
    any_run: bool,
}

impl PartialEq for PageMap {
    /// Equal when both map every logical unit alike (the P2L follows from the L2P), however
    /// each stores it.
    fn eq(&self, other: &Self) -> bool {
        self.logical_units() == other.logical_units()
            && (0..self.logical_units()).all(|l| self.l2p.get(l) == other.l2p.get(l))
    }
}

impl Eq for PageMap {}

impl PageMap {
    /// Everything unmapped: `physical_units` in superblocks of `sb_units`.
    pub fn new(logical_units: u64, physical_units: u64, sb_units: u32) -> Self {
        assert!(physical_units <= MAX_PHYSICAL_UNITS, "config validation bounds the array");
        let superblocks = physical_units.div_ceil(u64::from(sb_units.max(1)));
        PageMap {
            l2p: L2p::new(logical_units, physical_units >= 1 << 32),
            p2l: BigArray::filled(physical_units as usize, 0),
            runs: vec![Run::default(); superblocks as usize],
            sb_units: u64::from(sb_units.max(1)),
            any_run: false,
        }
    }

    /// Physical location of `lpn`, or [`UNMAPPED`].
    #[inline]
    pub fn lookup(&self, lpn: u64) -> u64 {
        self.l2p.get(lpn).wrapping_sub(1)
    }

    /// Prefetches the L2P entry of `lpn`. Where no map memory holds it (a sequential chunk)
    /// there is nothing to fetch, and the location of a mapped `lpn` comes back at once.
    #[inline]
    pub fn touch(&self, lpn: u64) -> Option<u64> {
        self.l2p.touch(lpn).map(|stored| stored.wrapping_sub(1)).filter(|&ppa| ppa != UNMAPPED)
    }

    /// Prefetches the P2L entry a write of `lpn` will clear: that of its location now (the
    /// L2P entry, fetched a few writes before by [`PageMap::touch`], is read here).
    #[inline]
    pub fn touch_old(&self, lpn: u64) {
        let old = self.lookup(lpn);
        if old != UNMAPPED {
            crate::engine::prefetch(&self.p2l, old as usize);
        }
    }

    /// Prefetches the L2P entry of the logical unit `ppa` holds, where its P2L entry names
    /// it outright (a relocation walks a victim's P2L entries in order, but remaps their
    /// owners' L2P entries at random).
    #[inline]
    pub fn touch_owner(&self, ppa: u64) {
        if let Some(&stored) = self.p2l.get(ppa as usize)
            && stored != 0
            && self.logical_units() <= P2L_MODULUS
        {
            self.l2p.touch(u64::from(stored - 1));
        }
    }

    /// The run covering `ppa`, if its P2L entry is implicit.
    #[inline]
    fn run_lpn(&self, ppa: u64) -> Option<u64> {
        run_lpn(&self.runs, self.any_run, self.sb_units, ppa)
    }

    /// Logical unit held at `ppa`, or [`UNMAPPED`] if the unit is invalid.
    #[inline]
    pub fn owner(&self, ppa: u64) -> u64 {
        let stored = self.p2l[ppa as usize];
        if stored == 0 {
            return match self.run_lpn(ppa) {
                Some(lpn) if self.lookup(lpn) == ppa => lpn,
                _ => UNMAPPED,
            };
        }
        let low = u64::from(stored - 1);
        let logical = self.logical_units();
        if logical <= P2L_MODULUS {
            return low;
        }
        let mut lpn = low;
        while lpn < logical {
            if self.lookup(lpn) == ppa {
                return lpn;
            }
            lpn += P2L_MODULUS;
        }
        unreachable!("a valid P2L entry has an owner that maps to it")
    }

    /// Logical units.
    pub fn logical_units(&self) -> u64 {
        self.l2p.len()
    }

    /// Physical units.
    pub fn physical_units(&self) -> u64 {
        self.p2l.len() as u64
    }

    /// True if entries need more than 32 bits (arrays of 2³² physical units or more).
    pub fn has_high_bits(&self) -> bool {
        self.l2p.has_high()
    }

    /// Calls `f` with the stored L2P (location + 1, 0 when unmapped) chunk by chunk, low 32
    /// bits and, on arrays of 2³² physical units or more, bits 32–33 four entries per byte
    /// (for snapshots).
    pub fn for_each_stored_chunk(&self, f: impl FnMut(&[u32], Option<&[u8]>)) {
        self.l2p.for_each_chunk(f);
    }

    /// True if `lpn` holds data.
    #[inline]
    pub fn is_mapped(&self, lpn: u64) -> bool {
        self.l2p.get(lpn) != 0
    }

    /// True if every logical unit of `lpns` holds data.
    pub fn all_mapped(&self, lpns: std::ops::Range<u64>) -> bool {
        self.l2p.all_mapped(lpns)
    }

    /// Clears the P2L entry of `old`, which the L2P no longer points at (nothing to do where
    /// the entry is implicit).
    #[inline]
    fn invalidate(&mut self, old: u64) {
        invalidate(&mut self.p2l, &self.runs, self.any_run, self.sb_units, old);
    }

    /// Points `lpn` at `ppa`; returns the location it had before (now invalid).
    #[inline]
    pub(crate) fn remap(&mut self, lpn: u64, ppa: u64) -> u64 {
        let old = self.lookup(lpn);
        self.l2p.set(lpn, ppa + 1);
        if old != UNMAPPED {
            self.invalidate(old);
        }
        self.p2l[ppa as usize] = (lpn % P2L_MODULUS) as u32 + 1;
        old
    }

    /// Starts backing fresh, unmapped arrays of this map's size with memory on another
    /// thread, for a layout that will write them whole ([`PageMap::clear_for_layout`]) once
    /// the caller has done other work: the kernel's zeroing then runs beside that work. The
    /// map's own arrays are the caller's to clear first, so that memory is not held twice.
    pub(crate) fn prepare_layout(&self) -> LayoutArrays {
        let (logical, physical, high) = (self.l2p.len(), self.p2l.len(), self.l2p.has_high());
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("ssdtwin-map-memory".into())
            .spawn(move || {
                let l2p = L2p::new(logical, high);
                let p2l = BigArray::filled(physical, 0);
                l2p.populate(&flag);
                p2l.populate(&flag);
                (l2p, p2l)
            })
            .ok();
        LayoutArrays { stop, thread }
    }

    /// Unmaps everything, with the arrays backed by memory: `prepared`'s, or, where no
    /// thread could prepare them, fresh ones backed now. For a map about to be laid out
    /// whole, in random order.
    pub(crate) fn clear_for_layout(&mut self, prepared: LayoutArrays) {
        if let Some((l2p, p2l)) = prepared.take() {
            (self.l2p, self.p2l) = (l2p, p2l);
            self.forget_runs();
        } else {
            self.clear();
            let never = AtomicBool::new(false);
            self.l2p.populate(&never);
            self.p2l.populate(&never);
        }
    }

    /// Points `lpn`, which is unmapped, at `ppa`, which is invalid (a map being laid out
    /// from nothing): no lookup of what was there.
    #[inline]
    pub(crate) fn map_fresh(&mut self, lpn: u64, ppa: u64) {
        debug_assert!(!self.is_mapped(lpn) && self.p2l[ppa as usize] == 0);
        self.l2p.set(lpn, ppa + 1);
        self.p2l[ppa as usize] = (lpn % P2L_MODULUS) as u32 + 1;
    }

    /// Unmaps `lpn`; returns the location it had.
    #[inline]
    pub(crate) fn unmap(&mut self, lpn: u64) -> u64 {
        let old = self.lookup(lpn);
        if old != UNMAPPED {
            self.l2p.set(lpn, 0);
            self.invalidate(old);
        }
        old
    }

    /// Maps `count` consecutive logical units from `lpn` to consecutive units from `ppa`,
    /// all in superblock `sb` from its unit `offset` on, as a sequential write places them;
    /// calls `old(location)` for every unit that was mapped before, after which it is
    /// invalid. The P2L entries are left implicit when the superblock's run can take them
    /// (see the module doc).
    pub(crate) fn map_run(&mut self, lpn: u64, ppa: u64, count: u32, mut old: impl FnMut(u64)) {
        let sb = (ppa / self.sb_units) as usize;
        let offset = (ppa % self.sb_units) as u32;
        let run = self.runs[sb];
        let implicit = if run.len == 0 && offset == 0 {
            true
        } else {
            run.len > 0 && run.first + run.len == offset && run.lpn + u64::from(run.len) == lpn
        };
        let (p2l, runs, any_run, sb_units) = (&mut self.p2l, &self.runs, self.any_run, self.sb_units);
        self.l2p.set_seq(lpn, ppa + 1, u64::from(count), |stored| {
            invalidate(p2l, runs, any_run, sb_units, stored - 1);
            old(stored - 1);
        });
        if implicit {
            let run = &mut self.runs[sb];
            if run.len == 0 {
                *run = Run { first: offset, len: 0, lpn };
            }
            run.len += count;
            self.any_run = true;
        } else {
            for k in 0..u64::from(count) {
                self.p2l[(ppa + k) as usize] = ((lpn + k) % P2L_MODULUS) as u32 + 1;
            }
        }
    }

    /// Superblock `sb` was erased: its run, if any, ends.
    pub(crate) fn forget_run(&mut self, sb: u32) {
        self.runs[sb as usize] = Run::default();
        self.any_run = self.runs.iter().any(|r| r.len > 0);
    }

    /// Unmaps everything.
    pub(crate) fn clear(&mut self) {
        // Fresh arrays rather than a fill: untouched pages cost neither time nor memory.
        self.l2p.clear();
        self.p2l = BigArray::filled(self.p2l.len(), 0);
        self.forget_runs();
    }

    /// No superblock holds a run any more.
    fn forget_runs(&mut self) {
        self.runs.fill(Run::default());
        self.any_run = false;
    }

    /// Replaces the L2P chunk by chunk, as [`PageMap::for_each_stored_chunk`] gave it:
    /// `read(low, high)` fills one chunk. [`PageMap::rebuild_reverse`] must follow.
    pub(crate) fn restore_l2p<E>(
        &mut self,
        read: impl FnMut(&mut [u32], Option<&mut [u8]>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.l2p.restore(read)
    }

    /// Rebuilds P2L from the L2P (after a restore wrote it). Fails if an entry points beyond
    /// the physical array or two entries point at one unit.
    pub(crate) fn rebuild_reverse(&mut self) -> Result<(), StateError> {
        self.p2l = BigArray::filled(self.p2l.len(), 0);
        self.runs.fill(Run::default());
        self.any_run = false;
        let physical = self.physical_units();
        for lpn in 0..self.logical_units() {
            let ppa = self.lookup(lpn);
            if ppa == UNMAPPED {
                continue;
            }
            if ppa >= physical {
                return Err(StateError::MapBeyondArray);
            }
            if self.p2l[ppa as usize] != 0 {
                return Err(StateError::MappedTwice { ppa });
            }
            // Sequentially written stretches become runs again, as the bulk fill left them.
            let (sb, offset) = ((ppa / self.sb_units) as usize, (ppa % self.sb_units) as u32);
            let run = &mut self.runs[sb];
            if run.len == 0 && offset == 0 {
                *run = Run { first: 0, len: 1, lpn };
                self.any_run = true;
            } else if run.len > 0 && run.first + run.len == offset && run.lpn + u64::from(run.len) == lpn {
                run.len += 1;
            } else if self.run_lpn(ppa).is_some() {
                return Err(StateError::MappedTwice { ppa });
            } else {
                self.p2l[ppa as usize] = (lpn % P2L_MODULUS) as u32 + 1;
            }
        }
        Ok(())
    }

    /// Mapped (logical, physical) pairs, for invariant checks.
    pub(crate) fn mapped(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.logical_units()).map(|l| (l, self.lookup(l))).filter(|&(_, p)| p != UNMAPPED)
    }

    /// Valid (physical, logical) pairs, for invariant checks.
    pub(crate) fn valid(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.physical_units()).map(|p| (p, self.owner(p))).filter(|&(_, l)| l != UNMAPPED)
    }
}

/// The implicit owner of `ppa`, if a superblock's run covers it.
#[inline]
fn run_lpn(runs: &[Run], any_run: bool, sb_units: u64, ppa: u64) -> Option<u64> {
    if !any_run {
        return None;
    }
    let run = runs[(ppa / sb_units) as usize];
    let offset = ppa % sb_units;
    (offset >= u64::from(run.first) && offset < u64::from(run.first) + u64::from(run.len))
        .then(|| run.lpn + offset - u64::from(run.first))
}

/// Clears the P2L entry of `old` unless a run holds it implicitly.
#[inline]
fn invalidate(p2l: &mut [u32], runs: &[Run], any_run: bool, sb_units: u64, old: u64) {
    if run_lpn(runs, any_run, sb_units, old).is_none() {
        p2l[old as usize] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::l2p::CHUNK_UNITS;

    #[test]
    fn a_fresh_map_is_all_unmapped_and_remap_keeps_both_directions() {
        let mut m = PageMap::new(10, 20, 5);
        assert!((0..10).all(|l| m.lookup(l) == UNMAPPED));
        assert_eq!(m.remap(3, 7), UNMAPPED);
        assert_eq!(m.remap(3, 0), 7);
        assert_eq!((m.lookup(3), m.owner(0), m.owner(7)), (0, 3, UNMAPPED));
        assert_eq!(m.unmap(3), 0);
        assert_eq!(m.owner(0), UNMAPPED);
        assert!((0..10).all(|l| !m.is_mapped(l)));
    }

    #[test]
    fn touch_gives_the_location_of_a_run_s_units_and_nothing_for_unmapped_ones() {
        let mut m = PageMap::new(2 * CHUNK_UNITS, 2 * CHUNK_UNITS, 1 << 20);
        m.map_run(CHUNK_UNITS, 77, 10, |_| panic!("nothing was mapped"));
        assert_eq!(m.touch(CHUNK_UNITS + 3), Some(80));
        // Past the run, and in a chunk never written: unmapped, no location.
        assert_eq!((m.touch(CHUNK_UNITS + 10), m.touch(0)), (None, None));
        // A unit mapped on its own lives in the arrays: a prefetch, no location.
        m.remap(5, 3);
        assert_eq!(m.touch(5), None);
    }

    #[test]
    fn a_run_keeps_its_reverse_entries_implicit_until_rewritten() {
        let mut m = PageMap::new(20, 30, 10);
        m.map_run(0, 0, 10, |_| panic!("nothing was mapped"));
        m.map_run(10, 10, 4, |_| panic!("nothing was mapped"));
        // Both runs start their superblocks: no reverse entry is written.
        assert!(m.p2l.iter().all(|&s| s == 0));
        assert_eq!((m.owner(7), m.owner(13), m.owner(14)), (7, 13, UNMAPPED));
        // Rewriting unit 7 elsewhere invalidates its old place without a reverse entry.
        assert_eq!(m.remap(7, 25), 7);
        assert_eq!((m.owner(7), m.owner(25)), (UNMAPPED, 7));
        // A run that does not continue the superblock's run writes its reverse entries.
        let mut old = Vec::new();
        m.map_run(5, 15, 3, |p| old.push(p));
        assert_eq!(old, [5, 6, 25]);
        assert_eq!((m.owner(15), m.owner(17), m.owner(5), m.owner(25)), (5, 7, UNMAPPED, UNMAPPED));
        assert_eq!(m.valid().count(), m.mapped().count());
        m.forget_run(0);
        assert_eq!(m.owner(0), UNMAPPED);
    }

    #[test]
    fn beyond_two_to_the_32_units_the_high_bits_and_owners_are_recovered() {
        // A map of 2^32 + 8 logical and 2^33 + 16 physical units needs 49 GiB of address
        // space, touched in a few pages only (anonymous memory is zero until written).
        let logical = (1u64 << 32) + 8;
        let mut m = PageMap::new(logical, (1 << 33) + 16, 1 << 20);
        let far = (1u64 << 32) + 5;
        assert_eq!(m.remap(far, far + 3), UNMAPPED);
        assert_eq!(m.remap(2, (1 << 33) + 1), UNMAPPED);
        assert_eq!((m.lookup(far), m.lookup(2)), (far + 3, (1 << 33) + 1));
        // lpn `far` and lpn 6 share their P2L entry's value: the L2P tells which one it is.
        assert_eq!(far % P2L_MODULUS, 6);
        assert_eq!(m.remap(6, 9), UNMAPPED);
        assert_eq!((m.owner(far + 3), m.owner(9), m.owner((1 << 33) + 1)), (far, 6, 2));
        assert_eq!(m.unmap(far), far + 3);
        assert_eq!(m.owner(far + 3), UNMAPPED);
    }
}
