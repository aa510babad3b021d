//! NVMe interrupt coalescing (Set Features 08h), as a driver that sets it: the controller
//! holds a vector's completion entries back until `threshold` of them are waiting or
//! `time` has passed since the first, then raises one interrupt for them all. Reset value
//! 0 (off), and Linux never sets it; a host profile can (`[kernel]
//! nvme_int_coalesce_time_us`, `nvme_int_coalesce_thr`).
//!
//! Read first: NVMe Base Specification, "Interrupt Coalescing" (Feature Identifier 08h):
//! TIME in 100 µs units, THR the number of entries less one.

use super::CommandTag;
use crate::engine::{SimDuration, SimTime};
use crate::os::{CoreId, IntCoalescing};

/// A completion entry held back, with the handler work it will take.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    pub command_tag: CommandTag,
    pub device_done: SimTime,
    pub work: SimDuration,
}

/// What became of an entry posted on a vector.
pub(super) enum Posted {
    /// Held; with `Some`, the entry opened a window whose time runs out at `.0` (a timer
    /// to set, carrying the window's generation `.1`).
    Held(Option<(SimTime, u32)>),
    /// The threshold was reached: these entries raise the interrupt now.
    Fire(Vec<Held>),
}

/// One vector's entries waiting for an interrupt.
#[derive(Debug, Default)]
struct Vector {
    held: Vec<Held>,
    /// Counts windows, so a window's timer that finds a later one open does nothing.
    generation: u32,
}

/// The coalescing state of every vector (one per core whose queue takes interrupts).
#[derive(Debug)]
pub(super) struct Coalescer {
    setting: IntCoalescing,
    vectors: Vec<Vector>,
}

impl Coalescer {
    pub(super) fn new(setting: IntCoalescing, cores: u32) -> Self {
        Coalescer { setting, vectors: (0..cores).map(|_| Vector::default()).collect() }
    }

    /// An entry posted on `core`'s vector.
    pub(super) fn post(&mut self, core: CoreId, entry: Held) -> Posted {
        let v = &mut self.vectors[core.0 as usize];
        let opens = v.held.is_empty();
        v.held.push(entry);
        if v.held.len() as u32 >= self.setting.threshold {
            v.generation = v.generation.wrapping_add(1);
            return Posted::Fire(std::mem::take(&mut v.held));
        }
        Posted::Held(opens.then(|| (entry.device_done + self.setting.time, v.generation)))
    }

    /// The time of `core`'s window `generation` ran out: its entries, if it is still open.
    pub(super) fn expire(&mut self, core: CoreId, generation: u32) -> Option<Vec<Held>> {
        let v = &mut self.vectors[core.0 as usize];
        if v.generation != generation || v.held.is_empty() {
            return None;
        }
        v.generation = v.generation.wrapping_add(1);
        Some(std::mem::take(&mut v.held))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at_us: u64) -> Held {
        Held { command_tag: CommandTag::from_user(0), device_done: SimTime(at_us * 1_000), work: SimDuration::ZERO }
    }

    fn coalescer(time_us: u64, threshold: u32) -> Coalescer {
        Coalescer::new(IntCoalescing { time: SimDuration::from_us(time_us), threshold }, 2)
    }

    #[test]
    fn the_threshold_fires_at_once_and_closes_the_window() {
        let mut c = coalescer(100, 3);
        let Posted::Held(Some((timer, generation))) = c.post(CoreId(0), entry(10)) else { panic!("opens") };
        assert_eq!(timer, SimTime(110_000));
        assert!(matches!(c.post(CoreId(0), entry(20)), Posted::Held(None)));
        let Posted::Fire(entries) = c.post(CoreId(0), entry(30)) else { panic!("fires") };
        assert_eq!(entries.len(), 3);
        assert!(c.expire(CoreId(0), generation).is_none(), "the window's timer finds it closed");
    }

    #[test]
    fn the_time_fires_what_is_held_and_vectors_are_apart() {
        let mut c = coalescer(200, 8);
        let Posted::Held(Some((_, generation))) = c.post(CoreId(0), entry(0)) else { panic!("opens") };
        assert!(matches!(c.post(CoreId(1), entry(5)), Posted::Held(Some(_))), "core 1 has its own window");
        c.post(CoreId(0), entry(50));
        assert_eq!(c.expire(CoreId(0), generation).map(|e| e.len()), Some(2));
        assert!(c.expire(CoreId(0), generation).is_none());
        assert!(matches!(c.post(CoreId(0), entry(300)), Posted::Held(Some(_))), "a new window opens");
    }
}
