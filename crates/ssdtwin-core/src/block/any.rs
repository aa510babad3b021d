//! [`AnyDevice`]: the closed set of leaf block targets, dispatched statically.
//!
//! A target made of targets (a ZFS pool's vdevs) holds its parts as `AnyDevice`, so one pool
//! mixes disks and SSD twins while every call is a `match`, never a trait object. This is
//! the one place in `block` that names concrete targets. The bare twin's runs stay generic
//! over [`Ssd`] itself and never pay for the match.
//!
//! A pool is not a variant: it is a target of its own (`zfs::Pool` implements
//! [`BlockDevice`]) and is never the part of another.

use super::{BlockDevice, BlockGeometry, Command, Completion, CounterRow, SubmitError};
use crate::engine::SimTime;
use crate::hdd::Hdd;
use crate::ssd::Ssd;

/// A leaf block target: an SSD twin or a hard disk.
#[derive(Clone)]
pub enum AnyDevice {
    /// An SSD twin.
    Ssd(Box<Ssd>),
    /// A hard disk.
    Hdd(Box<Hdd>),
}

impl AnyDevice {
    /// Whether the media rotates (a disk): ZFS weights allocations towards low offsets and
    /// aggregates larger I/Os on such vdevs.
    pub fn rotational(&self) -> bool {
        matches!(self, AnyDevice::Hdd(_))
    }
}

macro_rules! each {
    ($self:expr, $d:ident => $e:expr) => {
        match $self {
            AnyDevice::Ssd($d) => $e,
            AnyDevice::Hdd($d) => $e,
        }
    };
}

impl BlockDevice for AnyDevice {
    fn geometry(&self) -> BlockGeometry {
        each!(self, d => d.geometry())
    }
    fn profile(&self) -> &str {
        each!(self, d => d.profile())
    }
    #[inline]
    fn now(&self) -> SimTime {
        each!(self, d => d.now())
    }
    #[inline]
    fn submit(&mut self, now: SimTime, command: Command, tag: u64) -> Result<(), SubmitError> {
        each!(self, d => d.submit(now, command, tag))
    }
    #[inline]
    fn poll_at(&self) -> SimTime {
        each!(self, d => d.poll_at())
    }
    #[inline]
    fn poll(&mut self) -> Option<Completion> {
        each!(self, d => d.poll())
    }
    fn in_flight(&self) -> u32 {
        each!(self, d => d.in_flight())
    }
    fn counters(&self, prefix: &str, out: &mut CounterRow) {
        each!(self, d => BlockDevice::counters(&**d, prefix, out));
    }
    fn reseed(&mut self, seed: u64) {
        each!(self, d => d.reseed(seed));
    }

    fn zone_states(&self) -> Vec<(crate::block::ZoneState, u64)> {
        each!(self, d => d.zone_states())
    }
}
