//! A clone replaying a trace (`read_iolog=`), as fio's `read_iolog_get` and `iolog_delay`
//! do it: entries in order; each I/O no sooner than its delay after the previous I/O was
//! issued (the thread sleeps, leaving what is in flight in flight); a sync lets the queue
//! drain and syncs; a v2 `wait` holds everything until its time. The trace ends the job.

use crate::engine::{SimDuration, SimTime};
use crate::workload::trace::{ReplayOptions, TraceEntry, TraceOp, TraceReader};

/// Where a clone is in its trace.
pub(super) struct ReplayCursor {
    reader: TraceReader,
    /// The next entry, read ahead.
    next: Option<TraceEntry>,
    /// When the next entry may go (its delay after the last issue).
    next_at: SimTime,
    /// The clone's start: a `wait` counts from it.
    start: SimTime,
    /// A read error after the trace was checked (it changed under the run).
    pub error: Option<String>,
}

impl ReplayCursor {
    /// The trace at `path`, from its first entry, for a clone starting at `start`.
    pub(super) fn open(path: &str, options: ReplayOptions, start: SimTime) -> Result<Self, String> {
        let mut cursor =
            ReplayCursor { reader: TraceReader::open(path, options)?, next: None, next_at: start, start, error: None };
        cursor.advance(start);
        Ok(cursor)
    }

    fn advance(&mut self, last_issue: SimTime) {
        self.next = match self.reader.next_entry() {
            Some(Ok(e)) => Some(e),
            Some(Err(e)) => {
                self.error = Some(e);
                None
            }
            None => None,
        };
        self.next_at = match self.next {
            Some(e) if e.op == TraceOp::Wait => self.start + SimDuration(e.delay_us * 1_000_000),
            Some(e) => last_issue + SimDuration(e.delay_us * 1000),
            None => SimTime::NEVER,
        };
    }

    /// The next entry, if the trace has one.
    #[inline]
    pub(super) fn peek(&self) -> Option<TraceEntry> {
        self.next
    }

    /// When the next entry may go.
    #[inline]
    pub(super) fn due(&self) -> SimTime {
        self.next_at
    }

    /// Takes the next entry, issued (or passed) at `now`.
    pub(super) fn take(&mut self, now: SimTime) -> Option<TraceEntry> {
        let e = self.next?;
        // A wait passes without being an issue: delays after it run from the last I/O.
        let last_issue = if e.op == TraceOp::Wait { now.max(self.next_at) } else { now };
        self.advance(last_issue);
        Some(e)
    }
}
