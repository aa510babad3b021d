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
//! [`Ftl`]'s methods are grouped by what they do, one file each:
//!
//! ```text
//!  admission.rs   where host writes go and whether a stream has room (no state changes)
//!  place.rs       frontiers moving on, host writes, trims, padding, programs done
//!  placement.rs   Flexible Data Placement: reclaim unit handles and who owns each superblock
//!  slc.rs         the SLC cache's parameters and the reclaim of its stale superblocks
//!  relocation.rs  GC and fold victims, relocation jobs and their reads
//!  erase.rs       erases, the return to the free pool, Format NVM
//!  life.rs        rated life used, and static wear levelling's cold victim
//!  steady.rs      the sampled steady-state fill
//!  untimed.rs     placement with no timing, for bulk fills
//!  zoned.rs       zoned namespaces: frontiers closed early, padding to the end, discards
//!  state.rs       snapshot export and import
//!  invariants.rs  the checks below
//! ```
//!
//! under them the data: `map.rs` (L2P and P2L), `blocks.rs` (superblock table),
//! `frontier.rs` (write frontiers), `gc/` and `wear/` (their policies).
//!
//! Invariants (checked by [`Ftl::check_invariants`] in tests):
//! * L2P and P2L are inverse on every mapped unit;
//! * each superblock's valid count equals the number of valid P2L entries in it;
//! * a Free superblock holds no valid unit; a Victim, Erasing or Retired one holds none
//!   either;
//! * a superblock is Retired exactly when no block serves it.

mod admission;
mod blocks;
mod counters;
mod erase;
mod error;
mod frontier;
pub mod gc;
mod invariants;
mod l2p;
mod life;
mod map;
mod place;
pub mod placement;
mod relocation;
pub mod slc;
mod state;
mod steady;
mod untimed;
pub mod wear;
mod zoned;

pub use blocks::{SbState, Superblocks};
pub use counters::FtlCounters;
pub use error::StateError;
pub use frontier::{Frontier, Stream};
pub use gc::{GcConfig, VictimPolicy};
pub use map::{MAX_PHYSICAL_UNITS, PageMap, UNMAPPED};
pub use placement::{FdpConfig, HandleCounters, HandleId, Isolation, Placement};
pub use relocation::{RelocRead, RelocationJob};
pub use slc::{SlcCacheConfig, WhenFull};
pub use state::FtlState;
pub use steady::SteadyRefusal;
pub use wear::{
    BITS_PER_UNIT, BitErrorLaw, BlockInfo, BlockRole, BlockWear, Endurance, MAX_RETRY_CHANCE, MAX_UBER_PER_BIT,
    MediaErrorState, MediaErrors, ReadRetryLaw, WearLevelling, WearState, WearStateError,
};

use crate::engine::BigArray;
use crate::nand::{CellMode, DieId, Geometry, Ppa, PuId};
use frontier::Pending;
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
        /// Destination program unit (groups a command's units).
        pu: PuId,
        /// Die of the source.
        die: DieId,
        /// Cell mode of the source.
        mode: CellMode,
    },
}

/// The FTL state.
#[derive(Clone, Debug)]
pub struct Ftl {
    geometry: Geometry,
    /// Page map.
    pub map: PageMap,
    /// Superblock table.
    pub sbs: Superblocks,
    /// One per stream, in [`Stream::index`] order.
    frontiers: Vec<Frontier>,
    /// Flexible Data Placement's handles and superblock owners, on a drive that has it.
    placement: Option<Placement>,
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
    /// Superblocks whose zone was reset, to erase once their programs are done.
    discarded: Vec<u32>,
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
            frontiers: vec![Frontier::new(native); Stream::count(0)],
            placement: None,
            gc,
            slc: SlcCacheConfig::NONE,
            slc_in_use: 0,
            slc_valid: 0,
            slc_full: VecDeque::new(),
            slc_stale: Vec::new(),
            slc_stale_erasing: Vec::new(),
            discarded: Vec::new(),
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

    /// Enables Flexible Data Placement with `fdp`'s handles (before any write; never with an
    /// SLC cache, which the configuration refuses).
    #[must_use]
    pub fn with_placement(mut self, fdp: FdpConfig) -> Self {
        self.frontiers = vec![Frontier::new(self.geometry.native); Stream::count(fdp.handles)];
        self.placement = Some(Placement::new(fdp, self.geometry.superblocks()));
        self
    }

    /// Gives the drive at least `handles` placement frontiers (a zoned drive opens one more
    /// when every slot is kept by a zone whose writes are still to place).
    pub fn ensure_handles(&mut self, handles: u16) {
        if let Some(p) = self.placement.as_mut()
            && p.config.handles < handles
        {
            p.grow(handles);
            self.frontiers.resize(Stream::count(handles), Frontier::new(self.geometry.native));
        }
    }

    /// The placement state of an FDP drive.
    pub fn placement(&self) -> Option<&Placement> {
        self.placement.as_ref()
    }

    /// Every stream this drive has, in index order.
    pub fn streams(&self) -> impl Iterator<Item = Stream> + use<> {
        (0..self.frontiers.len()).map(Stream::of_index)
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

    /// Per-physical-unit tags (verify mode).
    pub fn tags(&self) -> Option<&[u32]> {
        self.tags.as_deref()
    }
}
