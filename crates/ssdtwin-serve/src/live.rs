//! What a running server shows while it serves: once a wall second, a snapshot of the last
//! second (requests, bytes and latency percentiles by operation, queue depth, lateness of
//! replies, and every counter of the drive), kept in a bounded ring that other threads (a
//! dashboard, a metrics endpoint) read without ever holding up the twin's thread; and the
//! time scale, which another thread may ask to change (the server's own calibration of it),
//! applied at the first instant no command is in flight.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

/// Snapshots kept: an hour at one a second.
pub const KEPT: usize = 3600;

/// Shared between the twin's thread (which pushes) and readers.
#[derive(Clone, Debug, Default)]
pub struct Live {
    inner: Arc<Mutex<Ring>>,
}

#[derive(Debug, Default)]
struct Ring {
    /// Snapshots as JSON text, oldest first.
    snapshots: VecDeque<String>,
    /// The index of `snapshots[0]`: indices count every snapshot ever pushed.
    first: u64,
    /// A time scale another thread asked for, not yet applied.
    time_scale: Option<f64>,
}

impl Live {
    fn ring(&self) -> std::sync::MutexGuard<'_, Ring> {
        // A reader that panicked left the ring whole: every write to it is one push.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a snapshot (JSON text), dropping the oldest past [`KEPT`].
    pub fn push(&self, snapshot: String) {
        let mut ring = self.ring();
        if ring.snapshots.len() == KEPT {
            ring.snapshots.pop_front();
            ring.first += 1;
        }
        ring.snapshots.push_back(snapshot);
    }

    /// The snapshots from index `from` on (the oldest kept if `from` is older), and the
    /// index to ask from next.
    pub fn since(&self, from: u64) -> (u64, Vec<String>) {
        let ring = self.ring();
        let end = ring.first + ring.snapshots.len() as u64;
        let skip = from.saturating_sub(ring.first).min(ring.snapshots.len() as u64);
        (end, ring.snapshots.iter().skip(skip as usize).cloned().collect())
    }

    /// Asks the server to serve at time scale `k` from the first instant no command is in
    /// flight (see [`crate::Server::run`]).
    pub fn request_time_scale(&self, k: f64) {
        self.ring().time_scale = Some(k);
    }

    /// The time scale asked for since the last call, if any.
    pub(crate) fn take_time_scale(&self) -> Option<f64> {
        self.ring().time_scale.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_get_what_they_have_not_seen_and_the_ring_stays_bounded() {
        let live = Live::default();
        for i in 0..KEPT + 10 {
            live.push(format!("{i}"));
        }
        let (next, all) = live.since(0);
        assert_eq!((next, all.len()), ((KEPT + 10) as u64, KEPT));
        assert_eq!(all[0], "10");
        let (again, none) = live.since(next);
        assert_eq!((again, none.len()), (next, 0));
        live.push("new".into());
        assert_eq!(live.since(next).1, vec!["new".to_string()]);
    }

    #[test]
    fn a_time_scale_request_is_taken_once() {
        let live = Live::default();
        assert_eq!(live.take_time_scale(), None);
        live.request_time_scale(8.0);
        assert_eq!(live.take_time_scale(), Some(8.0));
        assert_eq!(live.take_time_scale(), None);
    }
}
