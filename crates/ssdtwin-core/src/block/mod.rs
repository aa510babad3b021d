//! Block targets: the one seam between what issues I/O (the workload runner, the host
//! stack) and what stores blocks (an SSD twin today; disks, pools and stripes beside it).
//!
//! Every target implements [`BlockDevice`], shaped after smoltcp's `phy::Device`: the caller
//! [`submit`](BlockDevice::submit)s a [`Command`] at a simulated time, asks
//! [`poll_at`](BlockDevice::poll_at) when the target next needs attention, and calls
//! [`poll`](BlockDevice::poll) to advance to it; `poll` hands back a [`Completion`] when a
//! command finishes. Callers are generic over the trait (static dispatch: monomorphised,
//! never a trait object on the hot path), so the bare twin pays nothing for the seam.
//!
//! Contract, for every implementation:
//!
//! * time only moves forward: each `now` passed to `submit` is at or after the target's
//!   [`now`](BlockDevice::now);
//! * a command the target accepted always completes: while [`in_flight`](BlockDevice::in_flight)
//!   is above zero, `poll_at` is not [`SimTime::NEVER`];
//! * `submit` refuses, with a [`SubmitError`] and no change of state, a command outside the
//!   target's [`BlockGeometry`]; it never panics on one;
//! * [`counters`](BlockDevice::counters) appends the target's monotonic counters and levels
//!   under a prefix, so a target made of targets names its parts (`special0.nand_write_bytes`).
//!
//! ```
//! use ssdtwin_core::block::{BlockDevice, Command, Opcode};
//! use ssdtwin_core::config::{build, load_profile};
//! use ssdtwin_core::engine::SimTime;
//! use ssdtwin_core::ssd::Ssd;
//!
//! fn read_one<D: BlockDevice>(dev: &mut D) -> u64 {
//!     let lba_bytes = dev.geometry().lba_bytes;
//!     let blocks = (4096 / lba_bytes) as u32;
//!     dev.submit(dev.now(), Command::new(Opcode::Read, 0, blocks), 7).unwrap();
//!     loop {
//!         if let Some(done) = dev.poll() {
//!             return done.completed.since(done.submitted).as_ns();
//!         }
//!     }
//! }
//! let mut ssd = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
//! assert!(read_one(&mut ssd) > 0);
//! ```

mod any;
mod command;
mod counters;
pub mod zones;

pub use any::AnyDevice;
pub use command::{Command, Completion, Opcode, PlacementId, SubmitError};
pub use counters::{Counter, CounterRow};
pub use zones::{Placed, Zone, ZoneAction, ZoneConfig, ZoneError, ZoneState, Zones};

use crate::engine::SimTime;

/// What a target looks like from above: its block size, its size, and the largest command
/// it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockGeometry {
    /// Bytes per logical block (the current LBA format's data size).
    pub lba_bytes: u64,
    /// Logical blocks the target holds.
    pub lbas: u64,
    /// Largest read or write command the target accepts, bytes (a host block layer splits
    /// larger I/Os); `u64::MAX` when unlimited. Deallocate is never limited.
    pub max_transfer_bytes: u64,
    /// Submission queues the target offers (NVMe I/O queue pairs; 1 for a single-queue
    /// target): a host maps its CPUs onto them.
    pub hardware_queues: u32,
    /// Reclaim unit handles a write may name (Flexible Data Placement's Reclaim Unit Handle
    /// Status list, placement identifiers `0..placement_handles`); 0 without FDP.
    pub placement_handles: u16,
    /// A zoned namespace's zone size, capacity and limits (`None`: conventional).
    pub zones: Option<crate::block::ZoneConfig>,
}

/// How the host sees a target that is not one NVMe namespace on the in-box driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostInterface {
    /// The host driver it needs (a host profile's `[drivers.NAME]` has its costs).
    pub driver: String,
    /// Identical devices a card shows the host.
    pub luns: u32,
    /// Host DRAM the driver keeps for the target, bytes.
    pub host_memory_bytes: u64,
}

impl BlockGeometry {
    /// Capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.lbas * self.lba_bytes
    }
}

/// A simulated block target. See the module documentation for the call protocol.
pub trait BlockDevice {
    /// Block size, capacity and transfer limit, as they are now (a format may change them
    /// between runs, never during one).
    fn geometry(&self) -> BlockGeometry;

    /// Name of the profile (or pool description) the target was built from, for reports.
    fn profile(&self) -> &str;

    /// Time of the last event the target processed.
    fn now(&self) -> SimTime;

    /// Submits `command` at `now`; `tag` comes back in its [`Completion`].
    fn submit(&mut self, now: SimTime, command: Command, tag: u64) -> Result<(), SubmitError>;

    /// When the target next needs [`poll`](BlockDevice::poll), or [`SimTime::NEVER`].
    fn poll_at(&self) -> SimTime;

    /// Processes the next event; returns a completion if a command finished with it.
    fn poll(&mut self) -> Option<Completion>;

    /// Commands submitted and not yet completed.
    fn in_flight(&self) -> u32;

    /// Appends every counter, each name prefixed with `prefix` (empty for the top level).
    fn counters(&self, prefix: &str, out: &mut CounterRow);

    /// A hint that a command to `lba` will come soon: a target may warm its memory for it.
    /// It changes nothing in the model.
    #[inline]
    fn prefetch(&self, lba: u64) {
        let _ = lba;
    }

    /// The driver the host runs for the target and the memory it keeps, if not the in-box
    /// NVMe path.
    fn host_interface(&self) -> Option<HostInterface> {
        None
    }

    /// Seeds the target's variability streams from a run's seed (a run calls it before its
    /// first command). A target without random variability ignores it.
    fn reseed(&mut self, seed: u64) {
        let _ = seed;
    }

    /// A zoned target's zones now: each one's state and LBAs written (empty: not zoned).
    fn zone_states(&self) -> Vec<(crate::block::ZoneState, u64)> {
        Vec::new()
    }
}

/// A borrowed target is a target: a host can wrap `&mut D` for one run and give the
/// device back when the run ends.
impl<D: BlockDevice + ?Sized> BlockDevice for &mut D {
    fn geometry(&self) -> BlockGeometry {
        (**self).geometry()
    }
    fn profile(&self) -> &str {
        (**self).profile()
    }
    #[inline]
    fn now(&self) -> SimTime {
        (**self).now()
    }
    #[inline]
    fn submit(&mut self, now: SimTime, command: Command, tag: u64) -> Result<(), SubmitError> {
        (**self).submit(now, command, tag)
    }
    #[inline]
    fn poll_at(&self) -> SimTime {
        (**self).poll_at()
    }
    #[inline]
    fn poll(&mut self) -> Option<Completion> {
        (**self).poll()
    }
    fn in_flight(&self) -> u32 {
        (**self).in_flight()
    }
    fn counters(&self, prefix: &str, out: &mut CounterRow) {
        (**self).counters(prefix, out);
    }
    #[inline]
    fn prefetch(&self, lba: u64) {
        (**self).prefetch(lba);
    }
    fn host_interface(&self) -> Option<HostInterface> {
        (**self).host_interface()
    }
    fn zone_states(&self) -> Vec<(crate::block::ZoneState, u64)> {
        (**self).zone_states()
    }
    fn reseed(&mut self, seed: u64) {
        (**self).reseed(seed);
    }
}
