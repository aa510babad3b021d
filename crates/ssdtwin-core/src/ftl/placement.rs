//! Flexible Data Placement (NVMe TP4146, NVMe 2.1 base specification § 5.x "Flexible Data
//! Placement"): reclaim unit handles, the reclaim units they fill, and who owns the data in
//! each.
//!
//! The model's mapping: one reclaim group (every die), and a reclaim unit is one superblock
//! (one block per plane of every die, the unit GC erases). Each reclaim unit handle is a
//! write frontier of its own ([`Stream::Placed`]), so data placed on different handles never
//! shares a reclaim unit when the host writes it. What GC does with a victim's valid data is
//! the handle type's promise:
//!
//! * **initially isolated**: relocated data of every handle goes to GC's one frontier, where
//!   handles mix (the reclaim unit it lands in is owned by no handle);
//! * **persistently isolated**: relocated data stays with its handle ([`Stream::PlacedGc`]),
//!   in reclaim units that hold that handle's data only.
//!
//! Each superblock records the handle whose data it holds ([`Placement::owner`]), so GC can
//! keep that promise and the device can say, per handle, how much the host wrote and how
//! much GC moved out of its reclaim units: the handle's write amplification.

use super::Stream;
use serde::{Deserialize, Serialize};

/// A reclaim unit handle: `0..handles` of the drive's FDP configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(transparent)]
#[serde(transparent)]
pub struct HandleId(pub u16);

impl HandleId {
    /// The handle's position in per-handle tables.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// What GC does with a handle's data (the Reclaim Unit Handle Type of the FDP
/// configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Isolation {
    /// Data written on the handle starts out in its own reclaim units; GC may mix it with
    /// other handles' data.
    Initially,
    /// Data written on the handle stays in reclaim units of that handle through GC.
    Persistently,
}

impl Isolation {
    /// The names profiles use.
    pub const NAMES: [(&'static str, Isolation); 2] =
        [("initially-isolated", Isolation::Initially), ("persistently-isolated", Isolation::Persistently)];

    /// nvme-cli's name of the handle type.
    pub const fn nvme_name(self) -> &'static str {
        match self {
            Isolation::Initially => "Initially Isolated",
            Isolation::Persistently => "Persistently Isolated",
        }
    }
}

/// A drive's FDP configuration (validated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FdpConfig {
    /// Reclaim unit handles (placement handles of the one reclaim group).
    pub handles: u16,
    /// The type of every handle.
    pub isolation: Isolation,
}

/// Per-handle activity, in map units.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HandleCounters {
    /// Units the host wrote on the handle.
    pub host_units: u64,
    /// Valid units GC moved out of reclaim units the handle owned.
    pub gc_units: u64,
    /// Reclaim units opened for the handle's host writes.
    pub reclaim_units: u64,
}

impl HandleCounters {
    /// Units written to the media for the handle's data: what the host wrote, and what GC
    /// moved out of its reclaim units.
    pub fn media_units(&self) -> u64 {
        self.host_units + self.gc_units
    }
}

/// The placement state of an FDP drive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// Handles and their type (not saved: the profile gives them).
    #[serde(skip, default = "FdpConfig::none")]
    pub(crate) config: FdpConfig,
    /// Per superblock: the handle whose data it holds, plus one; 0 for none (free, or data
    /// of several handles or of none).
    owner: Vec<u16>,
    /// Per handle.
    pub(crate) handles: Vec<HandleCounters>,
    /// Valid units GC moved out of reclaim units no handle owned.
    pub(crate) unowned_gc_units: u64,
}

impl FdpConfig {
    fn none() -> Self {
        FdpConfig { handles: 0, isolation: Isolation::Initially }
    }
}

impl Placement {
    /// No data placed yet over `superblocks`.
    pub(crate) fn new(config: FdpConfig, superblocks: u32) -> Self {
        Placement {
            config,
            owner: vec![0; superblocks as usize],
            handles: vec![HandleCounters::default(); usize::from(config.handles)],
            unowned_gc_units: 0,
        }
    }

    /// The handle whose data `sb` holds, if one does.
    #[inline]
    pub fn owner(&self, sb: u32) -> Option<HandleId> {
        self.owner[sb as usize].checked_sub(1).map(HandleId)
    }

    /// `stream` opened `sb`.
    pub(crate) fn opened(&mut self, sb: u32, stream: Stream) {
        self.owner[sb as usize] = match stream {
            Stream::Placed(h) => {
                self.handles[h.index()].reclaim_units += 1;
                h.0 + 1
            }
            Stream::PlacedGc(h) => h.0 + 1,
            Stream::Host | Stream::HostSlc | Stream::Gc | Stream::Fold => 0,
        };
    }

    /// Takes `handles` handles (more than before).
    pub(crate) fn grow(&mut self, handles: u16) {
        self.config.handles = handles;
        self.handles.resize(usize::from(handles), HandleCounters::default());
    }

    /// Every superblock is free (a format).
    pub(crate) fn forget_owners(&mut self) {
        self.owner.fill(0);
    }

    /// GC moved `units` out of `victim`.
    pub(crate) fn moved(&mut self, victim: u32, units: u32) {
        match self.owner(victim) {
            Some(h) => self.handles[h.index()].gc_units += u64::from(units),
            None => self.unowned_gc_units += u64::from(units),
        }
    }

    /// Where GC writes `victim`'s valid data.
    pub(crate) fn gc_stream(&self, victim: u32) -> Stream {
        match (self.config.isolation, self.owner(victim)) {
            (Isolation::Persistently, Some(h)) => Stream::PlacedGc(h),
            _ => Stream::Gc,
        }
    }

    /// Per-handle counters, handle 0 first.
    pub fn handles(&self) -> &[HandleCounters] {
        &self.handles
    }

    /// Units GC moved out of reclaim units no handle owned (initially isolated handles' data
    /// after its first move, and data written before placement was used).
    pub fn unowned_gc_units(&self) -> u64 {
        self.unowned_gc_units
    }

    /// The configuration.
    pub fn config(&self) -> FdpConfig {
        self.config
    }

    /// Checks a restored state against the configuration and the superblock count.
    pub(crate) fn fits(&self, config: FdpConfig, superblocks: u32) -> bool {
        self.owner.len() == superblocks as usize
            && self.handles.len() == usize::from(config.handles)
            && self.owner.iter().all(|&o| o <= config.handles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ownership_follows_the_stream_that_opened_a_superblock() {
        let config = FdpConfig { handles: 3, isolation: Isolation::Persistently };
        let mut p = Placement::new(config, 10);
        p.opened(4, Stream::Placed(HandleId(2)));
        p.opened(5, Stream::Gc);
        p.opened(6, Stream::PlacedGc(HandleId(0)));
        assert_eq!((p.owner(4), p.owner(5), p.owner(6)), (Some(HandleId(2)), None, Some(HandleId(0))));
        assert_eq!(p.handles[2].reclaim_units, 1, "a host-written reclaim unit is counted");
        assert_eq!(p.handles[0].reclaim_units, 0, "GC's are not");
        assert_eq!(p.gc_stream(4), Stream::PlacedGc(HandleId(2)));
        assert_eq!(p.gc_stream(5), Stream::Gc);
        p.moved(4, 7);
        p.moved(5, 3);
        assert_eq!((p.handles[2].gc_units, p.unowned_gc_units), (7, 3));
        let mut initially = Placement::new(FdpConfig { isolation: Isolation::Initially, ..config }, 10);
        initially.opened(4, Stream::Placed(HandleId(2)));
        assert_eq!(initially.gc_stream(4), Stream::Gc, "initially isolated data mixes in GC");
    }

    #[test]
    fn stream_indices_are_a_bijection() {
        for i in 0..Stream::count(5) {
            assert_eq!(Stream::of_index(i).index(), i);
        }
    }
}
