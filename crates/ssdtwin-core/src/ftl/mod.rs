//! The flash translation layer: page map, superblocks, write frontiers, GC, the SLC cache,
//! TRIM and wear.
//!
//! Read Gupta et al., "DFTL" (ASPLOS 2009) § 2 for page-level mapping and Agrawal et al.,
//! "Design Tradeoffs for SSD Performance" (USENIX ATC 2008) for striping and cleaning;
//! `docs/model.md` § "Page map" and § "GC" list what is simplified.
//!
//! [`Ftl`] is pure bookkeeping: it never sees time. The device asks it where a logical unit
//! lives ([`Ftl::locate`]), to place written units ([`Ftl::write`]), to unmap ([`Ftl::trim`]),
//! and to start and advance relocation jobs; program units that become ready to program are
//! pushed into a caller-provided buffer, so nothing here allocates per unit.
//!
//! Invariants (checked by [`Ftl::check_invariants`] in tests):
//! * L2P and P2L are inverse on every mapped unit;
//! * each superblock's valid count equals the number of valid P2L entries in it;
//! * a Free superblock holds no valid unit; a Victim, Erasing or Retired one holds none
//!   either;
//! * a superblock is Retired exactly when no block serves it.

mod blocks;
mod error;
mod frontier;
pub mod gc;
mod l2p;
mod map;
mod relocation;
pub mod slc;
mod steady;
pub mod wear;

pub use blocks::{SbState, Superblocks};
pub use error::StateError;
pub use frontier::{Frontier, Stream};
pub use gc::{GcConfig, VictimPolicy};
pub use map::{MAX_PHYSICAL_UNITS, PageMap, UNMAPPED};
pub use relocation::RelocRead;
pub use slc::{SlcCacheConfig, WhenFull};
pub use steady::SteadyRefusal;
pub use wear::{
    BITS_PER_UNIT, BitErrorLaw, BlockInfo, BlockRole, BlockWear, Endurance, MAX_UBER_PER_BIT, MediaErrorState,
    MediaErrors, WearLevelling, WearState, WearStateError,
};

use crate::engine::BigArray;
use crate::nand::{CellMode, Geometry, Ppa};
use frontier::{Pending, PuDeps};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Where a logical unit's data is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Never written or trimmed: reads return zeros without touching NAND.
    Unmapped,
    /// Written, but its program has not finished: served from controller memory.
    Buffered,
    /// On NAND at `ppa`, in a block of cell mode `mode`.
    Nand {
        /// Physical address.
        ppa: Ppa,
        /// Mode of its superblock.
        mode: CellMode,
    },
    /// Being relocated: its new program unit `pu` is not programmed yet, so it is read from
    /// its source on `die`, in `mode`.
    Moving {
        /// Destination program unit (global index; groups a command's units).
        pu: u32,
        /// Die of the source.
        die: u32,
        /// Cell mode of the source.
        mode: CellMode,
    },
}

/// FTL activity counters, in map units unless named otherwise. Counters missing from an
/// older state file start at zero.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FtlCounters {
    /// Units written by the host.
    pub host_units_written: u64,
    /// Units trimmed (that were mapped).
    pub units_trimmed: u64,
    /// Units moved by GC.
    pub gc_units_moved: u64,
    /// GC jobs started.
    pub gc_jobs: u64,
    /// Host units written into the SLC cache.
    pub host_units_slc: u64,
    /// Units folded from SLC to the native mode.
    pub folded_units: u64,
    /// Fold jobs started (one SLC superblock each).
    pub fold_jobs: u64,
    /// Units programmed, per cell mode ([`CellMode::index`]), padding included.
    pub units_programmed: [u64; 4],
    /// Padding units programmed to close a partial program unit.
    pub padding_units: u64,
    /// Units read by relocation.
    pub reloc_units_read: u64,
    /// Superblock erases (one per superblock, covering every die).
    pub superblock_erases: u64,
    /// Of those, erases of superblocks written in SLC mode.
    pub slc_superblock_erases: u64,
    /// Block erases (one per block of every plane of every die a superblock erase covers).
    pub block_erases: u64,
    /// Static wear-levelling jobs started (also counted in `gc_jobs`).
    pub wl_jobs: u64,
    /// Units moved by static wear levelling (also counted in `gc_units_moved`).
    pub wl_units_moved: u64,
}

/// A relocation in progress: the victim and its remaining reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelocationJob {
    /// Superblock being emptied.
    pub victim: u32,
    /// Reads still to issue or finish (issued in order).
    pub reads: Vec<RelocRead>,
    /// Next read to issue.
    pub next_read: usize,
    /// Reads issued and not finished.
    pub outstanding: u32,
}

impl RelocationJob {
    /// True once every read has been issued and finished.
    pub fn reads_finished(&self) -> bool {
        self.next_read == self.reads.len() && self.outstanding == 0
    }
}

/// The FTL state.
#[derive(Clone, Debug)]
pub struct Ftl {
    geometry: Geometry,
    /// Page map.
    pub map: PageMap,
    /// Superblock table.
    pub sbs: Superblocks,
    frontiers: [Frontier; Stream::COUNT],
    /// GC parameters.
    pub gc: GcConfig,
    /// SLC cache parameters.
    pub slc: SlcCacheConfig,
    /// Superblocks in SLC mode that are not free (open, full, being reclaimed).
    slc_in_use: u32,
    /// Valid units in SLC-mode superblocks.
    slc_valid: u64,
    /// Full SLC superblocks, oldest first (folding takes the front).
    slc_full: VecDeque<u32>,
    /// Full SLC superblocks whose data has all been overwritten or trimmed: firmware erases
    /// them and gives them back to the cache, once their last programs are done.
    slc_stale: Vec<u32>,
    /// Stale SLC superblocks handed over for erasing and not yet free.
    slc_stale_erasing: Vec<u32>,
    /// Units placed so far (a logical clock for superblock age).
    write_seq: u64,
    /// In verify mode, the data version stored in each physical unit.
    tags: Option<BigArray<u32>>,
    /// Activity counters.
    pub counters: FtlCounters,
    /// Rated endurance and wear-levelling policy.
    pub endurance: Endurance,
    /// Per-block wear, spares and bad blocks.
    pub wear: BlockWear,
    /// Under static wear levelling, the superblock whose cold data should move, judged at
    /// the last release (wear only changes there).
    wear_victim: Option<u32>,
}

impl Ftl {
    /// An empty FTL over `geometry` exposing `logical_units` to the host, its blocks rated
    /// as `endurance` says.
    pub fn new(geometry: Geometry, logical_units: u64, gc: GcConfig, endurance: Endurance, verify: bool) -> Self {
        let physical = geometry.total_units();
        let native = geometry.native;
        let wear = BlockWear::new(geometry.dies(), geometry.planes, geometry.superblocks(), &endurance);
        Ftl {
            map: PageMap::new(logical_units, physical, geometry.sb_units()),
            sbs: Superblocks::new(geometry.superblocks(), native),
            frontiers: std::array::from_fn(|_| Frontier::new(native)),
            gc,
            slc: SlcCacheConfig::NONE,
            slc_in_use: 0,
            slc_valid: 0,
            slc_full: VecDeque::new(),
            slc_stale: Vec::new(),
            slc_stale_erasing: Vec::new(),
            write_seq: 0,
            tags: verify.then(|| BigArray::filled(physical as usize, 0)),
            counters: FtlCounters::default(),
            endurance,
            wear,
            wear_victim: None,
            geometry,
        }
    }

    /// Enables an SLC cache (before any write).
    #[must_use]
    pub fn with_slc(mut self, slc: SlcCacheConfig) -> Self {
        self.slc = slc;
        self
    }

    /// Valid map units held in SLC-mode superblocks.
    pub fn slc_valid_units(&self) -> u64 {
        self.slc_valid
    }

    /// Superblocks in SLC mode now.
    pub fn slc_superblocks(&self) -> u32 {
        self.slc_in_use
    }

    /// Geometry the FTL addresses.
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The frontier of `stream`.
    pub fn frontier(&self, stream: Stream) -> &Frontier {
        &self.frontiers[stream.index()]
    }

    /// Logical units that hold data (NVMe's namespace utilisation).
    pub fn mapped_units(&self) -> u64 {
        self.sbs.valid.iter().map(|&v| u64::from(v)).sum()
    }

    /// Logical units exposed to the host.
    pub fn logical_units(&self) -> u64 {
        self.map.logical_units()
    }

    /// Warms memory for a command to `lpn` coming soon: its L2P entry, or, where a
    /// sequential chunk gives the location without memory, its block's error rate, which
    /// the read will add to the media's hazard. Changes nothing in the model.
    #[inline]
    pub fn touch(&self, lpn: u64) {
        if let Some(ppa) = self.map.touch(lpn) {
            let ppa = Ppa(ppa);
            self.wear.touch_uber(self.geometry.sb_of(ppa), self.geometry.die_of(ppa));
        }
    }

    /// Where `lpn` lives now.
    #[inline]
    pub fn locate(&self, lpn: u64) -> Location {
        let ppa = self.map.lookup(lpn);
        if ppa == UNMAPPED {
            return Location::Unmapped;
        }
        let ppa = Ppa(ppa);
        let sb = self.geometry.sb_of(ppa);
        let pu = self.geometry.pu_in_sb(ppa);
        for f in &self.frontiers {
            match f.pending(sb, pu) {
                Some(Pending::Memory) => return Location::Buffered,
                Some(Pending::Source { die, mode }) => {
                    return Location::Moving { pu: self.geometry.pu_of(ppa), die, mode };
                }
                None => {}
            }
        }
        Location::Nand { ppa, mode: self.sbs.mode(sb) }
    }

    /// Data version stored for `lpn` (verify mode only; 0 when unmapped).
    pub fn tag_of(&self, lpn: u64) -> Option<u32> {
        let tags = self.tags.as_ref()?;
        let ppa = self.map.lookup(lpn);
        Some(if ppa == UNMAPPED { 0 } else { tags[ppa as usize] })
    }

    /// True if the host frontier can take `units` more without dipping into the superblocks
    /// GC keeps in reserve.
    pub fn host_can_take(&self, units: u32) -> bool {
        match self.host_stream() {
            Some(stream) => self.can_take(stream, units, self.gc.fg_threshold_sb),
            None => false,
        }
    }

    /// True if the host frontier can take `units` more by opening at most one superblock
    /// from GC's reserve (writes paced by GC, see `ssd::gc_pace`); the reserve keeps one
    /// free superblock for GC whatever the host borrows.
    pub fn host_can_borrow(&self, units: u32) -> bool {
        let reserve = self.gc.fg_threshold_sb.saturating_sub(1).max(1);
        self.host_stream().is_some_and(|stream| self.can_take(stream, units, reserve))
    }

    /// True if GC's reserve of free superblocks is whole.
    pub fn reserve_whole(&self) -> bool {
        self.sbs.free_count() >= self.gc.fg_threshold_sb
    }

    /// Where host writes go now: the SLC cache while it has room, else the native mode
    /// ([`WhenFull::Direct`]) or nowhere until folding frees cache ([`WhenFull::Fold`]).
    pub fn host_stream(&self) -> Option<Stream> {
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

    /// Share of the mapped units in `lpns` that live in SLC-mode superblocks.
    pub fn slc_resident_fraction(&self, lpns: std::ops::Range<u64>) -> f64 {
        let (mut mapped, mut slc) = (0u64, 0u64);
        for lpn in lpns {
            let ppa = self.map.lookup(lpn);
            if ppa != UNMAPPED {
                mapped += 1;
                if self.sbs.mode(self.geometry.sb_of(Ppa(ppa))) == CellMode::Slc {
                    slc += 1;
                }
            }
        }
        if mapped == 0 { 0.0 } else { slc as f64 / mapped as f64 }
    }

    /// True if placing `units` host units needs more superblocks than are free or being
    /// reclaimed, beyond GC's reserve (so GC must collect more).
    pub fn space_short_for(&self, units: u32) -> bool {
        let Some(stream) = self.host_stream() else { return false };
        let (room, capacity) =
            (self.frontiers[stream.index()].room(), self.geometry.sb_units_in(self.mode_for(stream)));
        let needed = units.saturating_sub(room).div_ceil(capacity);
        self.sbs.free_count() + self.sbs.reclaiming() < needed + self.gc.fg_threshold_sb
    }

    fn can_take(&self, stream: Stream, units: u32, reserve_sb: u32) -> bool {
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
    fn mode_for(&self, stream: Stream) -> CellMode {
        if stream == Stream::HostSlc { CellMode::Slc } else { self.geometry.native }
    }

    /// Moves the frontier of `stream` one unit on; returns the address to write. Opens a new
    /// superblock when the current one is full (the caller checked there is one).
    #[inline]
    fn advance(&mut self, stream: Stream) -> (u64, bool) {
        let si = stream.index();
        if self.frontiers[si].room() == 0 {
            self.open_next(stream);
        }
        let f = &mut self.frontiers[si];
        let sb = f.sb.expect("open_next leaves an open superblock");
        let offset = f.next;
        f.next += 1;
        let pu_units = self.geometry.pu_units();
        if offset % pu_units == 0 {
            f.pu_seq += 1;
        }
        let filled = f.next % pu_units == 0;
        if f.mode == CellMode::Slc {
            self.slc_valid += 1;
        }
        self.sbs.valid[sb as usize] += 1;
        self.write_seq += 1;
        (self.geometry.sb_base(sb) + u64::from(offset), filled)
    }

    fn open_next(&mut self, stream: Stream) {
        let si = stream.index();
        if let Some(old) = self.frontiers[si].sb {
            self.sbs.state[old as usize] = SbState::Full;
            self.sbs.last_write_seq[old as usize] = self.write_seq;
            if self.sbs.mode(old) == CellMode::Slc {
                self.slc_full.push_back(old);
                // Overwritten while it was open: nothing left to fold, only to erase.
                if self.sbs.valid(old) == 0 {
                    self.slc_stale.push(old);
                }
            }
        }
        let mode = self.mode_for(stream);
        let (e, native, sbs) = (&self.endurance, self.geometry.native, &self.sbs);
        let wear = |sb: u32| wear::wear_units(sbs.erase_count(sb), sbs.slc_erase_count(sb), e, native);
        let pick = e.levelling.pick(self.sbs.free_pool(), wear, stream == Stream::Gc);
        let sb = self.sbs.open_at(pick, mode).expect("callers check free space before placing data");
        if mode == CellMode::Slc {
            self.slc_in_use += 1;
        }
        self.frontiers[si].start(sb, mode, &self.geometry);
    }

    /// Places one host-written unit; pushes the program unit to `ready` if this filled it.
    #[inline]
    pub fn write(&mut self, lpn: u64, tag: u32, ready: &mut Vec<u32>) -> Ppa {
        let stream = self.host_stream().expect("admission checks that host writes have somewhere to go");
        if stream == Stream::HostSlc {
            self.counters.host_units_slc += 1;
        }
        let (ppa, filled) = self.advance(stream);
        let old = self.map.remap(lpn, ppa);
        self.unmap_old(old);
        if let Some(tags) = self.tags.as_mut() {
            tags[ppa as usize] = tag;
        }
        self.counters.host_units_written += 1;
        if filled {
            ready.push(self.geometry.pu_of(Ppa(ppa)));
        }
        Ppa(ppa)
    }

    #[inline]
    fn unmap_old(&mut self, old: u64) {
        if old != UNMAPPED {
            let sb = self.geometry.sb_of(Ppa(old));
            self.sbs.valid[sb as usize] -= 1;
            if self.sbs.mode(sb) == CellMode::Slc {
                self.slc_valid -= 1;
                if self.sbs.valid[sb as usize] == 0 && self.sbs.state(sb) == SbState::Full {
                    self.slc_stale.push(sb);
                }
            }
        }
    }

    /// Hands over the full SLC superblocks that hold nothing valid any more and whose
    /// programs are all done, each now a victim with nothing to move: the caller erases
    /// them (cheaply: no relocation) and they return to the free pool, so overwritten data
    /// does not hold the cache's superblocks (the drive's own reclaim of stale SLC blocks).
    pub fn take_stale_slc(&mut self, out: &mut Vec<u32>) {
        let mut k = 0;
        while k < self.slc_stale.len() {
            let sb = self.slc_stale[k];
            if self.sbs.state(sb) != SbState::Full || self.sbs.valid(sb) != 0 || self.sbs.mode(sb) != CellMode::Slc {
                // Collected by GC or folding meanwhile.
                self.slc_stale.swap_remove(k);
            } else if self.frontiers.iter().any(|f| f.has_pending(sb)) {
                k += 1;
            } else {
                self.slc_stale.swap_remove(k);
                self.sbs.state[sb as usize] = SbState::Victim;
                self.sbs.reclaiming += 1;
                self.slc_stale_erasing.push(sb);
                out.push(sb);
            }
        }
    }

    /// True if host writes would leave the full SLC cache while some of its superblocks
    /// hold only stale data about to be erased: cache space a few milliseconds away, which
    /// writes wait for (firmware erases stale blocks ahead of need rather than write
    /// natively what the cache can take).
    pub fn host_waits_for_slc_erase(&self) -> bool {
        (!self.slc_stale.is_empty() || !self.slc_stale_erasing.is_empty()) && self.host_stream() == Some(Stream::Host)
    }

    /// True if some stale SLC superblock waits to be erased.
    #[inline]
    pub fn has_stale_slc(&self) -> bool {
        !self.slc_stale.is_empty()
    }

    /// Unmaps `lpn` (TRIM / deallocate).
    pub fn trim(&mut self, lpn: u64) {
        let old = self.map.unmap(lpn);
        if old != UNMAPPED {
            self.unmap_old(old);
            self.counters.units_trimmed += 1;
        }
    }

    /// Fills the rest of `stream`'s current program unit with padding so it can be
    /// programmed (a flush of a volatile buffer). The program unit goes to `ready` at once,
    /// or, for relocated data, once the reads feeding it are done. Returns the padding units.
    pub fn pad(&mut self, stream: Stream, ready: &mut Vec<u32>) -> u32 {
        let pu_units = self.geometry.pu_units();
        let f = &mut self.frontiers[stream.index()];
        let Some(sb) = f.sb else { return 0 };
        if f.next % pu_units == 0 {
            return 0;
        }
        let pad = pu_units - f.next % pu_units;
        f.next += pad;
        self.counters.padding_units += u64::from(pad);
        let pu = self.geometry.pu_of(Ppa(self.geometry.sb_base(sb) + u64::from(f.next) - 1));
        match f.deps.back_mut() {
            Some(d) if d.pu == pu => {
                d.filled = true;
                Self::try_emit(d, ready);
                while f.deps.front().is_some_and(|d| d.emitted) {
                    f.deps.pop_front();
                }
            }
            _ => ready.push(pu),
        }
        pad
    }

    /// The destination program unit of relocation stream `stream` that holds data but
    /// waits for more to fill it, if any.
    pub fn open_relocation_pu(&self, stream: Stream) -> Option<u32> {
        self.frontiers[stream.index()].deps.back().filter(|d| !d.emitted).map(|d| d.pu)
    }

    /// Records that program unit `pu` (global index) has been programmed.
    pub fn program_done(&mut self, pu: u32) {
        let (sb, pu_in_sb) = self.geometry.sb_of_pu(pu);
        let mode = self.sbs.mode(sb);
        self.counters.units_programmed[mode.index()] += u64::from(self.geometry.pu_units());
        for f in &mut self.frontiers {
            f.mark_programmed(sb, pu_in_sb);
        }
    }

    /// Die and cell mode of program unit `pu`.
    pub fn pu_target(&self, pu: u32) -> (u32, CellMode) {
        (self.geometry.die_of_pu(pu), self.sbs.mode(self.geometry.sb_of_pu(pu).0))
    }

    /// True if free space is low enough that GC should run. Superblocks already being
    /// reclaimed (relocated or erasing) count as free: starting another job for them would
    /// collect fuller victims than needed.
    pub fn wants_gc(&self) -> bool {
        self.sbs.free_count() + self.sbs.reclaiming() < self.gc.bg_threshold_sb
    }

    /// Chooses a GC victim among full superblocks, if GC can make progress with it.
    pub fn pick_gc_victim(&self) -> Option<u32> {
        let g = &self.geometry;
        let candidates =
            (0..self.sbs.len()).filter(|&sb| self.sbs.state(sb) == SbState::Full).map(|sb| gc::Candidate {
                sb,
                valid: self.sbs.valid(sb),
                capacity: g.sb_units_in(self.sbs.mode(sb)),
                last_write_seq: self.sbs.last_write_seq[sb as usize],
            });
        let victim = self.gc.policy.pick(candidates, self.write_seq)?;
        // Collecting frees space only if the victim's data fits in less than a superblock of
        // the mode GC writes (a full native superblock frees nothing; an SLC one packs into
        // a fraction of one). GC may use the reserve, but must have room for what it moves.
        let gains = self.sbs.valid(victim) < g.sb_units_in(self.mode_for(Stream::Gc));
        (gains && self.can_take(Stream::Gc, self.sbs.valid(victim), 0)).then_some(victim)
    }

    /// The oldest full SLC superblock, if folding it can make progress (room in the
    /// native fold frontier for its valid data).
    pub fn pick_fold_victim(&mut self) -> Option<u32> {
        while let Some(&sb) = self.slc_full.front() {
            if self.sbs.state(sb) == SbState::Full && self.sbs.mode(sb) == CellMode::Slc {
                return self.can_take(Stream::Fold, self.sbs.valid(sb), 0).then_some(sb);
            }
            // Collected by GC meanwhile.
            self.slc_full.pop_front();
        }
        None
    }

    /// Starts relocating the valid units of `victim` to `stream`: remaps them now and fills
    /// `job` with the reads to perform. Returns the number of units moved.
    pub fn start_relocation(&mut self, victim: u32, stream: Stream, job: &mut RelocationJob) -> u32 {
        debug_assert_eq!(self.sbs.state(victim), SbState::Full);
        if self.slc_full.front() == Some(&victim) {
            self.slc_full.pop_front();
        }
        self.sbs.state[victim as usize] = SbState::Victim;
        self.sbs.reclaiming += 1;
        job.victim = victim;
        job.reads.clear();
        job.next_read = 0;
        job.outstanding = 0;
        let g = self.geometry.clone();
        let mode = self.sbs.mode(victim);
        let base = g.sb_base(victim);
        let pu_units = g.pu_units();
        let pus = g.sb_units_in(mode) / pu_units;
        let mut moved = 0;
        for pu in 0..pus {
            let start = base + u64::from(pu * pu_units);
            let mut read: Option<RelocRead> = None;
            for ppa in start..start + u64::from(pu_units) {
                let lpn = self.map.owner(ppa);
                if lpn == UNMAPPED {
                    continue;
                }
                let (new_ppa, filled) = self.advance(stream);
                self.map.remap(lpn, new_ppa);
                self.sbs.valid[victim as usize] -= 1;
                if mode == CellMode::Slc {
                    self.slc_valid -= 1;
                }
                if let Some(tags) = self.tags.as_mut() {
                    tags[new_ppa as usize] = tags[ppa as usize];
                }
                let f = &mut self.frontiers[stream.index()];
                let dst = Ppa(new_ppa);
                f.set_source(g.sb_of(dst), g.pu_in_sb(dst), g.die_of_pu(pu), mode);
                let seq = f.pu_seq;
                if f.deps.back().is_none_or(|d| d.seq != seq) {
                    let dst_pu = g.pu_of(dst);
                    f.deps.push_back(PuDeps { seq, pu: dst_pu, pending_reads: 0, filled: false, emitted: false });
                }
                let r = read.get_or_insert(RelocRead {
                    die: g.die_of_pu(pu),
                    mode,
                    units: 0,
                    dst_seq_first: seq,
                    dst_seq_last: seq - 1,
                });
                r.units += 1;
                let deps = f.deps.back_mut().expect("pushed above");
                if r.dst_seq_last != seq {
                    r.dst_seq_last = seq;
                    deps.pending_reads += 1;
                }
                if filled {
                    deps.filled = true;
                }
                moved += 1;
            }
            if let Some(r) = read {
                self.counters.reloc_units_read += u64::from(r.units);
                job.reads.push(r);
            }
        }
        debug_assert_eq!(self.sbs.valid(victim), 0);
        if stream == Stream::Fold {
            self.counters.folded_units += u64::from(moved);
            self.counters.fold_jobs += 1;
        } else {
            self.counters.gc_units_moved += u64::from(moved);
            self.counters.gc_jobs += 1;
        }
        moved
    }

    /// A relocation read of `stream` finished: destination program units that are now
    /// complete and fully fed are pushed to `ready`. Touches only the units this read fed.
    pub fn reloc_read_done(&mut self, stream: Stream, read: &RelocRead, ready: &mut Vec<u32>) {
        let f = &mut self.frontiers[stream.index()];
        let front = f.deps.front().map_or(0, |d| d.seq);
        for seq in read.dst_seq_first..=read.dst_seq_last {
            let d = &mut f.deps[(seq - front) as usize];
            d.pending_reads -= 1;
            Self::try_emit(d, ready);
        }
        while f.deps.front().is_some_and(|d| d.emitted) {
            f.deps.pop_front();
        }
    }

    #[inline]
    fn try_emit(d: &mut PuDeps, ready: &mut Vec<u32>) {
        if d.filled && d.pending_reads == 0 && !d.emitted {
            d.emitted = true;
            ready.push(d.pu);
        }
    }

    /// The victim's reads and every program of its data are done: it moves to Erasing;
    /// returns the dies to erase.
    pub fn begin_erase(&mut self, victim: u32) -> u32 {
        debug_assert_eq!(self.sbs.state(victim), SbState::Victim);
        self.sbs.state[victim as usize] = SbState::Erasing;
        let dies = self.geometry.dies();
        self.sbs.erases_pending[victim as usize] = dies;
        dies
    }

    /// `die`'s blocks of `sb` are erased (each counts a P/E cycle, and a worn-out one is
    /// replaced by a spare); returns true when the superblock's last die is done and it is
    /// free again, or retired.
    pub fn erase_done(&mut self, sb: u32, die: u32) -> bool {
        let mode = self.sbs.mode(sb);
        self.wear.erase(sb, die, mode, &self.endurance, self.geometry.native);
        self.counters.block_erases += u64::from(self.geometry.planes);
        let pending = &mut self.sbs.erases_pending[sb as usize];
        *pending -= 1;
        if *pending > 0 {
            return false;
        }
        if mode == CellMode::Slc {
            self.slc_in_use -= 1;
            if let Some(k) = self.slc_stale_erasing.iter().position(|&s| s == sb) {
                self.slc_stale_erasing.swap_remove(k);
            }
        }
        // A frontier may still keep the program flags of its previous superblock; they
        // must not outlive it, as the superblock may reopen in another mode.
        for f in &mut self.frontiers {
            f.forget_prev(sb);
        }
        self.map.forget_run(sb);
        let retire = self.wear.take_retirement(sb, self.sbs.in_service(), &self.endurance);
        self.sbs.release(sb, self.geometry.native, retire);
        self.counters.superblock_erases += 1;
        if mode == CellMode::Slc {
            self.counters.slc_superblock_erases += 1;
        }
        if self.endurance.levelling == WearLevelling::Static {
            self.wear_victim = self.find_cold_victim();
        }
        true
    }

    /// Life used by superblock `sb`, as a share of the rated life: its SLC-mode erases over
    /// the SLC rating plus its native erases over the native rating.
    pub fn superblock_life_used(&self, sb: u32) -> f64 {
        let e = &self.endurance;
        self.sb_wear(sb) as f64
            / (f64::from(e.rated_pe_cycles[CellMode::Slc.index()])
                * f64::from(e.rated_pe_cycles[self.geometry.native.index()]))
    }

    /// Every block's wear and role, in physical order (die, plane, block).
    pub fn blocks(&self) -> Vec<BlockInfo> {
        self.wear.blocks(&self.endurance, self.geometry.native)
    }

    /// The rated life the units programmed so far will have used once their superblocks
    /// are erased, parts per billion of the drive's rated life: the programs in each mode
    /// over the units a whole drive holds in that mode and its rating. In steady state it
    /// grows as [`Ftl::life_used`] does, without waiting for erases, so short measurements
    /// see the wear rate.
    pub fn life_programmed_ppb(&self) -> u64 {
        let e = &self.endurance;
        let n = u128::from(self.sbs.len());
        let native = self.geometry.native;
        let ppb = |mode: CellMode| {
            let units = u128::from(self.counters.units_programmed[mode.index()]);
            let lifetime =
                u128::from(self.geometry.sb_units_in(mode)) * n * u128::from(e.rated_pe_cycles[mode.index()]);
            units * 1_000_000_000 / lifetime
        };
        let slc = ppb(CellMode::Slc);
        let total = if native == CellMode::Slc { slc } else { slc + ppb(native) };
        total as u64
    }

    /// Wear of superblock `sb` in integer units (see `wear::wear_units`).
    fn sb_wear(&self, sb: u32) -> u64 {
        wear::wear_units(self.sbs.erase_count(sb), self.sbs.slc_erase_count(sb), &self.endurance, self.geometry.native)
    }

    /// The least-worn Full superblock whose data has gone unwritten for a whole namespace's
    /// worth of writes (cold), if the most-worn superblock has `static_spread_cycles` more
    /// native cycles of wear.
    fn find_cold_victim(&self) -> Option<u32> {
        let in_service = (0..self.sbs.len()).filter(|&sb| self.sbs.state(sb) != SbState::Retired);
        let max_wear = in_service.map(|sb| self.sb_wear(sb)).max()?;
        let age = self.logical_units();
        let cold = (0..self.sbs.len())
            .filter(|&sb| {
                self.sbs.state(sb) == SbState::Full
                    && self.sbs.valid(sb) > 0
                    && self.write_seq - self.sbs.last_write_seq[sb as usize] >= age
            })
            .map(|sb| (sb, self.sb_wear(sb)));
        let threshold = u64::from(self.endurance.static_spread_cycles)
            * u64::from(self.endurance.rated_pe_cycles[CellMode::Slc.index()]);
        wear::pick_cold_victim(cold, max_wear, threshold)
    }

    /// Under static wear levelling, the superblock whose cold data should move now, if it
    /// still holds it and the GC stream has room for it; counts the job. Called when GC has
    /// nothing to do.
    pub fn take_wear_victim(&mut self) -> Option<u32> {
        let sb = self.wear_victim?;
        let valid = self.sbs.valid(sb);
        if self.sbs.state(sb) != SbState::Full || valid == 0 {
            self.wear_victim = None;
            return None;
        }
        if !self.can_take(Stream::Gc, valid, self.gc.fg_threshold_sb) {
            return None;
        }
        self.wear_victim = None;
        self.counters.wl_jobs += 1;
        self.counters.wl_units_moved += u64::from(valid);
        Some(sb)
    }

    /// Mean life used over the superblocks, as a share of the rated life (NVMe's Percentage
    /// Used divided by 100): each superblock's erases in SLC mode over the SLC rating plus
    /// its native erases over the native rating.
    pub fn life_used(&self) -> f64 {
        let (total, per_life) = self.wear_total();
        total as f64 / per_life as f64
    }

    /// [`Ftl::life_used`] in parts per million, rounded down, computed exactly.
    pub fn life_used_ppm(&self) -> u64 {
        let (total, per_life) = self.wear_total();
        (total * 1_000_000 / per_life) as u64
    }

    /// Wear units of every superblock together, and the units of one whole rated life of
    /// all of them.
    fn wear_total(&self) -> (u128, u128) {
        let e = &self.endurance;
        let total: u128 = (0..self.sbs.len()).map(|sb| u128::from(self.sb_wear(sb))).sum();
        let per_life = u128::from(e.rated_pe_cycles[CellMode::Slc.index()])
            * u128::from(e.rated_pe_cycles[self.geometry.native.index()])
            * u128::from(self.sbs.len());
        (total, per_life)
    }

    /// Unmaps everything and returns every superblock to the free pool (Format NVM). The
    /// device must be quiet. No erase is issued, counted or timed.
    pub fn format(&mut self) {
        self.map.clear();
        let n = self.sbs.len();
        let native = self.geometry.native;
        let erase_count = std::mem::take(&mut self.sbs.erase_count);
        let slc_erase_count = std::mem::take(&mut self.sbs.slc_erase_count);
        let retired: Vec<u32> = (0..n).filter(|&sb| self.sbs.state(sb) == SbState::Retired).collect();
        self.sbs = Superblocks::new(n, native);
        // A real drive erases what held data; the model keeps the erase counts as they were
        // and counts no erase, so wear and the `erases` counter ignore formats. Retired
        // superblocks stay retired.
        self.sbs.erase_count = erase_count;
        self.sbs.slc_erase_count = slc_erase_count;
        for sb in retired {
            self.sbs.state[sb as usize] = SbState::Retired;
        }
        self.sbs.free.retain(|&sb| self.sbs.state[sb as usize] == SbState::Free);
        self.wear_victim = None;
        self.frontiers = std::array::from_fn(|_| Frontier::new(native));
        self.slc_in_use = 0;
        self.slc_valid = 0;
        self.slc_full.clear();
        self.slc_stale.clear();
        self.slc_stale_erasing.clear();
        if let Some(tags) = self.tags.as_mut() {
            tags.fill(0);
        }
    }

    /// Checks the invariants in the module doc; returns the first violation found.
    pub fn check_invariants(&self) -> Result<(), StateError> {
        let g = &self.geometry;
        let mut counted = vec![0u32; self.sbs.len() as usize];
        for (lpn, ppa) in self.map.mapped() {
            if self.map.owner(ppa) != lpn {
                return Err(StateError::OwnerDiffers { lpn, ppa, owner: self.map.owner(ppa) });
            }
            counted[g.sb_of(Ppa(ppa)) as usize] += 1;
        }
        for (ppa, lpn) in self.map.valid() {
            if self.map.lookup(lpn) != ppa {
                return Err(StateError::StaleOwner { ppa, lpn });
            }
        }
        for sb in 0..self.sbs.len() {
            let (state, valid) = (self.sbs.state(sb), self.sbs.valid(sb));
            if counted[sb as usize] != valid {
                return Err(StateError::ValidCount { sb, valid, mapped: counted[sb as usize] });
            }
            if matches!(state, SbState::Free | SbState::Victim | SbState::Erasing | SbState::Retired) && valid != 0 {
                return Err(StateError::ValidWhenEmpty { sb, state, valid });
            }
            if (state == SbState::Retired) == self.wear.serves(sb) {
                return Err(StateError::Retirement { sb, state });
            }
            if self.sbs.slc_erase_count(sb) > self.sbs.erase_count(sb) {
                return Err(StateError::SlcErases { sb });
            }
        }
        let slc_valid: u64 = (0..self.sbs.len())
            .filter(|&sb| self.sbs.mode(sb) == CellMode::Slc)
            .map(|sb| u64::from(counted[sb as usize]))
            .sum();
        if slc_valid != self.slc_valid {
            return Err(StateError::SlcValid { mapped: slc_valid, counter: self.slc_valid });
        }
        let slc_sbs = (0..self.sbs.len())
            .filter(|&sb| self.sbs.mode(sb) == CellMode::Slc && self.sbs.state(sb) != SbState::Free)
            .count();
        if slc_sbs as u32 != self.slc_in_use {
            return Err(StateError::SlcInUse { in_use: slc_sbs, counter: self.slc_in_use });
        }
        let free_in_pool = self.sbs.free.iter().filter(|&&sb| self.sbs.state(sb) == SbState::Free).count();
        if free_in_pool != self.sbs.free.len() {
            return Err(StateError::FreePool);
        }
        let free_states = (0..self.sbs.len()).filter(|&sb| self.sbs.state(sb) == SbState::Free).count();
        if free_states != self.sbs.free.len() {
            return Err(StateError::FreeCount { free: free_states, pool: self.sbs.free.len() });
        }
        self.check_frontiers()
    }

    /// Each open superblock is filled by exactly one frontier, in its mode, within its
    /// capacity (what a restored state must hold for writes to go on safely).
    fn check_frontiers(&self) -> Result<(), StateError> {
        let mut filled_by = vec![None; self.sbs.len() as usize];
        for (k, f) in self.frontiers.iter().enumerate() {
            let Some(sb) = f.sb else { continue };
            if sb >= self.sbs.len() {
                return Err(StateError::FrontierBeyond { frontier: k, sb, superblocks: self.sbs.len() });
            }
            if let Some(other) = filled_by[sb as usize].replace(k) {
                return Err(StateError::FrontiersShare { first: other, second: k, sb });
            }
            if self.sbs.state(sb) != SbState::Open || self.sbs.mode(sb) != f.mode {
                return Err(StateError::FrontierState {
                    frontier: k,
                    sb,
                    mode: f.mode,
                    state: self.sbs.state(sb),
                    sb_mode: self.sbs.mode(sb),
                });
            }
            if f.capacity != self.geometry.sb_units_in(f.mode) || f.next > f.capacity {
                return Err(StateError::FrontierPosition { frontier: k, next: f.next, capacity: f.capacity, sb });
            }
        }
        match (0..self.sbs.len()).find(|&sb| self.sbs.state(sb) == SbState::Open && filled_by[sb as usize].is_none()) {
            Some(sb) => Err(StateError::OpenUnwritten { sb }),
            None => Ok(()),
        }
    }
}

/// The FTL's state apart from the map arrays, as stored in snapshots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FtlState {
    sbs: Superblocks,
    frontiers: Vec<Frontier>,
    write_seq: u64,
    counters: FtlCounters,
    slc_in_use: u32,
    slc_valid: u64,
    slc_full: VecDeque<u32>,
    /// Spares, remapped slots and bad blocks (absent from an older state: none).
    #[serde(default)]
    wear: WearState,
}

impl Ftl {
    /// Everything but the map and tags. Only meaningful when no program is pending.
    pub fn export_state(&self) -> FtlState {
        FtlState {
            sbs: self.sbs.clone(),
            frontiers: self.frontiers.to_vec(),
            write_seq: self.write_seq,
            counters: self.counters.clone(),
            slc_in_use: self.slc_in_use,
            slc_valid: self.slc_valid,
            slc_full: self.slc_full.clone(),
            wear: self.wear.export_state(),
        }
    }

    /// Per-physical-unit tags (verify mode).
    pub fn tags(&self) -> Option<&[u32]> {
        self.tags.as_deref()
    }

    /// Replaces the L2P chunk by chunk, as [`PageMap::for_each_stored_chunk`] gave it
    /// (`read(low, high)` fills one chunk), for a restore before [`Ftl::import_state`].
    pub fn restore_l2p<E>(
        &mut self,
        read: impl FnMut(&mut [u32], Option<&mut [u8]>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.map.restore_l2p(read)
    }

    /// Restores a state exported by [`Ftl::export_state`], the L2P having been read in by
    /// [`Ftl::restore_l2p`], with tags and the per-block erase counts (SLC, native; `None`
    /// in a state saved before they were kept); P2L is rebuilt. Fails if the pieces do not
    /// fit this FTL's geometry or do not hold together.
    pub fn import_state(
        &mut self,
        mut state: FtlState,
        tags: Option<Vec<u32>>,
        block_erases: Option<(Vec<u32>, Vec<u32>)>,
    ) -> Result<(), StateError> {
        let n = self.sbs.len() as usize;
        let sized = [state.sbs.valid.len(), state.sbs.mode.len(), state.sbs.erase_count.len()];
        if state.sbs.len() != self.sbs.len() || state.frontiers.len() != Stream::COUNT || sized.iter().any(|&l| l != n)
        {
            return Err(StateError::Shape);
        }
        if state.sbs.slc_erase_count.is_empty() {
            state.sbs.slc_erase_count = vec![0; n];
        }
        if state.sbs.slc_erase_count.len() != n
            || state.sbs.last_write_seq.len() != n
            || state.sbs.erases_pending.len() != n
            || state.sbs.free.iter().any(|&sb| sb as usize >= n)
        {
            return Err(StateError::ArrayLengths);
        }
        self.wear.import_state(
            state.wear,
            block_erases,
            (&state.sbs.erase_count, &state.sbs.slc_erase_count),
            &self.endurance,
            self.geometry.native,
        )?;
        self.map.rebuild_reverse()?;
        self.sbs = state.sbs;
        for (f, s) in self.frontiers.iter_mut().zip(state.frontiers) {
            *f = s;
        }
        // Before the frontiers' flags are sized from what they claim.
        self.check_frontiers()?;
        for f in &mut self.frontiers {
            f.restore_flags(&self.geometry);
        }
        self.write_seq = state.write_seq;
        self.counters = state.counters;
        self.slc_in_use = state.slc_in_use;
        self.slc_valid = state.slc_valid;
        self.slc_full = state.slc_full;
        // A snapshot is of a quiet device: nothing is being erased.
        self.slc_stale_erasing.clear();
        self.slc_stale = (0..self.sbs.len())
            .filter(|&sb| {
                self.sbs.mode(sb) == CellMode::Slc && self.sbs.state(sb) == SbState::Full && self.sbs.valid(sb) == 0
            })
            .collect();
        if self.endurance.levelling == WearLevelling::Static {
            self.wear_victim = self.find_cold_victim();
        }
        if let (Some(mine), Some(theirs)) = (self.tags.as_mut(), tags) {
            if theirs.len() != mine.len() {
                return Err(StateError::Tags);
            }
            mine.copy_from_slice(&theirs);
        }
        self.check_invariants()
    }

    /// Places a host unit with no timing: its program unit counts as programmed at once.
    /// Used by bulk fills, which yield the state a timed run would leave.
    pub fn write_untimed(&mut self, lpn: u64, tag: u32, scratch: &mut Vec<u32>) {
        self.write(lpn, tag, scratch);
        for pu in scratch.drain(..) {
            self.program_done(pu);
        }
        if self.has_stale_slc() {
            self.take_stale_slc(scratch);
            for sb in std::mem::take(scratch) {
                self.erase_untimed(sb);
            }
        }
    }

    /// Places `count` host units from `lpn` on, in order, with no timing, as `count` calls
    /// of [`Ftl::write_untimed`] would (without an SLC cache): their program units count as
    /// programmed at once. If the host frontier has no room, a superblock is opened first
    /// (the caller made sure one is free); `count` must fit the room there is then. `tag`
    /// gives each unit's data version in verify mode. The map is written in one pass, with
    /// the reverse entries left implicit where the superblock's run allows ([`PageMap`]).
    pub fn write_seq_untimed(&mut self, lpn: u64, count: u32, mut tag: impl FnMut(u64) -> u32) {
        debug_assert!(!self.slc.enabled(), "an SLC cache decides per unit where host data goes");
        let host = Stream::Host.index();
        if self.frontiers[host].room() == 0 {
            self.open_next(Stream::Host);
        }
        let g = &self.geometry;
        let f = &mut self.frontiers[host];
        let sb = f.sb.expect("open_next leaves an open superblock");
        assert!(count <= f.room(), "a run stays inside its superblock");
        let (offset, pu_units) = (f.next, g.pu_units());
        f.pu_seq += u64::from((offset + count).div_ceil(pu_units) - offset.div_ceil(pu_units));
        f.next += count;
        self.sbs.valid[sb as usize] += count;
        self.write_seq += u64::from(count);
        self.counters.host_units_written += u64::from(count);
        let base = g.sb_base(sb) + u64::from(offset);
        let sbs = &mut self.sbs;
        self.map.map_run(lpn, base, count, |old| {
            let old_sb = g.sb_of(Ppa(old));
            debug_assert_ne!(sbs.mode(old_sb), CellMode::Slc);
            sbs.valid[old_sb as usize] -= 1;
        });
        if let Some(tags) = self.tags.as_mut() {
            for k in 0..u64::from(count) {
                tags[(base + k) as usize] = tag(lpn + k);
            }
        }
        // The program units this run completed: programmed at once.
        let (first, end) = (offset / pu_units, (offset + count) / pu_units);
        if end > first {
            let mode = self.sbs.mode(sb);
            self.counters.units_programmed[mode.index()] += u64::from((end - first) * pu_units);
            for f in &mut self.frontiers {
                f.mark_range_programmed(sb, first..end);
            }
        }
    }

    /// Erases victim `sb` on every die with no timing.
    fn erase_untimed(&mut self, sb: u32) {
        let dies = self.begin_erase(sb);
        for die in 0..dies {
            self.erase_done(sb, die);
        }
    }

    /// Pads and programs every stream's open program unit with no timing.
    pub fn pad_untimed(&mut self, scratch: &mut Vec<u32>) {
        for stream in Stream::ALL {
            self.pad(stream, scratch);
            for pu in scratch.drain(..) {
                self.program_done(pu);
            }
        }
    }

    /// Folds every full SLC superblock with no timing, whatever `fold_low_gib` says (the
    /// superblock the SLC frontier is still filling keeps its data).
    pub fn fold_untimed(&mut self, job: &mut RelocationJob, scratch: &mut Vec<u32>) {
        while let Some(victim) = self.pick_fold_victim() {
            self.relocate_untimed(victim, Stream::Fold, job, scratch);
            self.gc_untimed(job, scratch);
        }
    }

    /// Runs GC with no timing until free space is above the background threshold (or no
    /// victim helps), then moves cold data as static wear levelling asks.
    pub fn gc_untimed(&mut self, job: &mut RelocationJob, scratch: &mut Vec<u32>) {
        while self.wants_gc() {
            let Some(victim) = self.pick_gc_victim() else {
                return;
            };
            self.relocate_untimed(victim, Stream::Gc, job, scratch);
        }
        while let Some(victim) = self.take_wear_victim() {
            self.relocate_untimed(victim, Stream::Gc, job, scratch);
        }
    }

    /// Folds, or else collects, with no timing until a host unit can be placed, as a drive
    /// does for writes that wait for space. False if nothing would free any.
    pub fn make_room_untimed(&mut self, job: &mut RelocationJob, scratch: &mut Vec<u32>) -> bool {
        while !self.host_can_take(1) {
            if let Some(victim) = self.pick_fold_victim() {
                self.relocate_untimed(victim, Stream::Fold, job, scratch);
            } else if let Some(victim) = self.pick_gc_victim() {
                self.relocate_untimed(victim, Stream::Gc, job, scratch);
            } else {
                return false;
            }
        }
        true
    }

    /// Moves `victim`'s valid data to `stream` and erases it, with no timing.
    fn relocate_untimed(&mut self, victim: u32, stream: Stream, job: &mut RelocationJob, scratch: &mut Vec<u32>) {
        self.start_relocation(victim, stream, job);
        for read in &job.reads {
            self.reloc_read_done(stream, read, scratch);
        }
        for pu in scratch.drain(..) {
            self.program_done(pu);
        }
        self.erase_untimed(victim);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // --- arrays beyond 2^32 units ---------------------------------------------------------

    #[test]
    fn data_placed_beyond_two_to_the_32_units_reads_back_and_moves_with_gc() {
        // 32,800 superblocks of 262,144 units (8 ch × 4 dies × 2 planes × 1024 pages of 16
        // KiB): 8.6 G physical units, 2^32 + 1000 logical ones. Untouched map memory costs
        // nothing, so only what this test writes is resident.
        let g = Geometry::new(8, 4, 2, 32_800, 1024, 16384, CellMode::Tlc);
        let logical = (1u64 << 32) + 300_000;
        let gc = GcConfig { policy: VictimPolicy::Greedy, bg_threshold_sb: 2, fg_threshold_sb: 1 };
        let endurance = Endurance {
            rated_pe_cycles: [30_000, 10_000, 3_000, 1_000],
            spare_blocks_per_plane: 0,
            block_spread: 0.0,
            seed: 1,
            levelling: WearLevelling::Dynamic,
            static_spread_cycles: 100,
            spare_threshold_pct: 10,
            min_superblocks: 2,
            bit_errors: BitErrorLaw { uber_per_bit: 1e-15, tenfold_life: 0.1 },
        };
        let mut ftl = Ftl::new(g.clone(), logical, gc, endurance, true);
        // Open the last superblocks first, so every address written lies above 2^33.
        let n = g.superblocks();
        ftl.sbs.free.rotate_left((n - 3) as usize);
        let sb_units = u64::from(g.sb_units());
        // A full superblock of units near the top of the logical space, and two whose P2L
        // entries read the same (they differ by 2^32 - 1).
        let top: Vec<u64> = (logical - sb_units..logical).collect();
        let twins = [5, 5 + ((1u64 << 32) - 1)];
        let mut scratch = Vec::new();
        let mut version = 0;
        for &lpn in top.iter().chain(&twins) {
            version += 1;
            ftl.write_untimed(lpn, version, &mut scratch);
        }
        let first = ftl.map.lookup(top[0]);
        assert_eq!(first, g.sb_base(n - 3));
        assert!(first > 1 << 33);
        let where_twins = twins.map(|l| ftl.map.lookup(l));
        assert_eq!(where_twins.map(|p| ftl.map.owner(p)), twins);
        // GC moves the full superblock: every unit keeps its data at its new address.
        let mut job = RelocationJob::default();
        ftl.write_untimed(7, version + 1, &mut scratch);
        ftl.relocate_untimed(n - 3, Stream::Gc, &mut job, &mut scratch);
        for (k, &lpn) in top.iter().enumerate() {
            let ppa = ftl.map.lookup(lpn);
            assert!(g.sb_of(Ppa(ppa)) != n - 3 && ppa > 1 << 33, "unit {lpn} at {ppa}");
            assert_eq!((ftl.map.owner(ppa), ftl.tag_of(lpn)), (lpn, Some(k as u32 + 1)));
        }
        assert_eq!(ftl.sbs.valid(n - 3), 0);
        assert_eq!(ftl.tag_of(twins[1]), Some(version));
        ftl.trim(twins[1]);
        assert_eq!((ftl.map.owner(where_twins[1]), ftl.map.owner(where_twins[0])), (UNMAPPED, twins[0]));
    }
}
