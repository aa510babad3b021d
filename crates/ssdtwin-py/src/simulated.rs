//! Simulated time this process has run, over every drive, pool and card the bindings
//! simulated: what the command line divides by wall time for its "x real time" figure.
//! A count kept beside the model, never read by it, so results do not depend on it.

use pyo3::prelude::*;
use ssdtwin_core::engine::SimTime;
use std::sync::atomic::{AtomicU64, Ordering};

static SIMULATED_NS: AtomicU64 = AtomicU64::new(0);

/// Counts the simulated time between `from` and `to` (nothing if the clock did not move).
pub(crate) fn add(from: SimTime, to: SimTime) {
    SIMULATED_NS.fetch_add(to.since(from).as_ns(), Ordering::Relaxed);
}

/// Simulated ns run in this process so far, by every device, pool and card.
#[pyfunction]
pub(crate) fn simulated_ns() -> u64 {
    SIMULATED_NS.load(Ordering::Relaxed)
}

/// What keeps a simulated clock: a drive or a pool.
pub(crate) trait Clocked {
    fn clock(&self) -> SimTime;
}

impl Clocked for ssdtwin_core::ssd::Ssd {
    fn clock(&self) -> SimTime {
        ssdtwin_core::block::BlockDevice::now(self)
    }
}

impl Clocked for ssdtwin_core::zfs::Pool {
    fn clock(&self) -> SimTime {
        self.now()
    }
}

/// Runs `f` on `target`, counting the simulated time it takes.
pub(crate) fn counted<D: Clocked, T>(target: &mut D, f: impl FnOnce(&mut D) -> T) -> T {
    let from = target.clock();
    let out = f(target);
    add(from, target.clock());
    out
}
