//! The SLC cache: which host writes go to blocks programmed one bit per cell, how large the
//! cache may grow, and which data folding moves out first.
//!
//! Read NewMaxx, "SLC Cache: How Does That Work?" and AnandTech's Intel 660p and Crucial P1
//! reviews (domain-facts.md § 2) for the mechanisms; `docs/model.md` § "SLC cache and
//! folding" for the simplifications.
//!
//! * **Static part**: `static_sb` superblocks the namespace never needs (capacity validation
//!   keeps them out of user space), so the cache never shrinks below them.
//! * **Dynamic part**: up to `dynamic_max_sb` more, borrowed from free space while more than
//!   `dynamic_min_free_sb` superblocks stay free beyond what folding every cached unit back
//!   would take. It shrinks as the drive fills.
//! * **When full**: host writes go straight to native blocks ([`WhenFull::Direct`]) or wait
//!   for folding to free cache ([`WhenFull::Fold`]).
//! * **Folding** moves the oldest full SLC superblock's valid data to native blocks; when
//!   it runs (watermarks, idle, reads) is the device's policy (`device::background`).
//! * **Stale superblocks**: a full SLC superblock whose data has all been overwritten or
//!   trimmed is handed over for erasing ([`Ftl::take_stale_slc`]) rather than folded.

use super::{Ftl, SbState, Stream, UNMAPPED};
use crate::engine::SimDuration;
use crate::nand::{CellMode, Ppa};

/// What host writes do when the SLC cache has no room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenFull {
    /// Write to native blocks at native speed.
    Direct,
    /// Wait until folding frees SLC space.
    Fold,
}

/// SLC-cache and folding parameters (validated; `static_sb = dynamic_max_sb = 0` means no
/// cache).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlcCacheConfig {
    /// Superblocks always available in SLC mode.
    pub static_sb: u32,
    /// Most extra superblocks borrowed from free space.
    pub dynamic_max_sb: u32,
    /// Dynamic SLC is used only while more than this many superblocks are free (after
    /// room to fold the cache back).
    pub dynamic_min_free_sb: u32,
    /// Behaviour when the cache is full.
    pub when_full: WhenFull,
    /// Start folding when this many map units are cached in SLC.
    pub fold_high_units: u64,
    /// Fold down to this many.
    pub fold_low_units: u64,
    /// Fold after this long with no host command in flight (`None`: never on idle).
    pub fold_idle: Option<SimDuration>,
    /// What a session the idle timer starts folds down to, units.
    pub fold_idle_low_units: u64,
    /// A host read starts folding while data is cached.
    pub fold_on_read: bool,
    /// Fold programs yield to host programs and erases (else they queue with them).
    pub fold_in_background: bool,
    /// While at least this many map units are cached, fold programs are urgent: they queue
    /// with host programs and reads never suspend them (`u64::MAX`: never).
    pub fold_urgent_units: u64,
}

impl SlcCacheConfig {
    /// No SLC cache.
    pub const NONE: SlcCacheConfig = SlcCacheConfig {
        static_sb: 0,
        dynamic_max_sb: 0,
        dynamic_min_free_sb: 0,
        when_full: WhenFull::Direct,
        fold_high_units: u64::MAX,
        fold_low_units: 0,
        fold_idle: None,
        fold_idle_low_units: 0,
        fold_on_read: false,
        fold_in_background: true,
        fold_urgent_units: u64::MAX,
    };

    /// True if host writes may go to SLC at all.
    pub fn enabled(&self) -> bool {
        self.static_sb + self.dynamic_max_sb > 0
    }
}

impl Ftl {
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
        (!self.slc_stale.is_empty() || !self.slc_stale_erasing.is_empty())
            && self.host_stream(None) == Some(Stream::Host)
    }

    /// True if some stale SLC superblock waits to be erased.
    #[inline]
    pub fn has_stale_slc(&self) -> bool {
        !self.slc_stale.is_empty()
    }
}
