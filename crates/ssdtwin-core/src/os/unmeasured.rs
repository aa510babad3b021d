//! I/O the host makes outside any measurement: laying out a job's files before its clock
//! starts, and draining what an interrupted run left in flight.
//!
//! fio writes a job's files before the job starts (`extend_file`, then `create_fsync`);
//! the kernel's writeback sends those writes as it sends one large buffered write's. The
//! host sends them straight to its target and waits for them: simulated time passes, but
//! neither the host's CPU nor its disk statistics count them (they are the target's
//! history, not the job's), so the runner never drives the target itself.

use super::Host;
use crate::block::{BlockDevice, Command, Opcode, SubmitError};
use crate::engine::SimTime;
use thiserror::Error;

/// Largest write of a file layout, bytes.
const LAYOUT_CHUNK_BYTES: u64 = 1 << 20;
/// Layout writes in flight.
const LAYOUT_QUEUE_DEPTH: u32 = 32;

/// Unmeasured I/O could not complete.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum UnmeasuredError {
    /// The target refused a write (a range outside its namespace).
    #[error(transparent)]
    Refused(#[from] SubmitError),
    /// Commands are outstanding but the target will never complete them (a bug in the
    /// model).
    #[error("the target stalled at {time_ns} ns with {in_flight} commands outstanding")]
    Stalled {
        /// The target's clock.
        time_ns: u64,
        /// Commands at the target.
        in_flight: u32,
    },
}

impl<D: BlockDevice> Host<D> {
    /// Writes the byte ranges `ranges` (`(start, end)`) in order, unmeasured, as fio lays out
    /// its files before a job: writes of up to 1 MiB (the target's transfer limit if
    /// smaller), 32 in flight, as writeback of one large buffered write keeps the device
    /// busy; with `flush`, a flush follows (fio's `create_fsync`). Returns when all are done.
    pub fn lay_out(&mut self, ranges: &[(u64, u64)], flush: bool) -> Result<(), UnmeasuredError> {
        let geometry = self.device.geometry();
        let chunk = LAYOUT_CHUNK_BYTES.min(geometry.max_transfer_bytes).max(geometry.lba_bytes);
        let mut pieces = ranges
            .iter()
            .flat_map(|&(start, end)| (start..end).step_by(chunk as usize).map(move |at| (at, chunk.min(end - at))));
        let device = &mut self.device;
        let mut next = pieces.next();
        let mut flush = flush && !ranges.is_empty();
        loop {
            while device.in_flight() < LAYOUT_QUEUE_DEPTH
                && let Some((at, bytes)) = next
            {
                let command = Command::new(Opcode::Write, at / geometry.lba_bytes, (bytes / geometry.lba_bytes) as u32);
                let now = device.now();
                device.submit(now, command, 0)?;
                next = pieces.next();
            }
            if device.in_flight() == 0 && next.is_none() && flush {
                // create_fsync: the file's writes are made stable before the job starts.
                flush = false;
                let now = device.now();
                device.submit(now, Command::new(Opcode::Flush, 0, 0), 0)?;
            }
            if device.in_flight() == 0 {
                return Ok(());
            }
            if device.poll_at() == SimTime::NEVER {
                return Err(UnmeasuredError::Stalled { time_ns: device.now().as_ns(), in_flight: device.in_flight() });
            }
            device.poll();
        }
    }

    /// Runs the host and its target until nothing is in flight, discarding completions:
    /// commands left over from an interrupted run belong to nobody.
    pub fn drain(&mut self) {
        while self.in_flight() > 0 && self.poll_at() != SimTime::NEVER {
            self.poll();
        }
        let device = &mut self.device;
        while device.in_flight() > 0 && device.poll_at() != SimTime::NEVER {
            device.poll();
        }
    }
}
