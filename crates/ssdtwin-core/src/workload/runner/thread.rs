//! A clone's thread on a host core, running fio's I/O loop with its engine's costs: its
//! state ([`ThreadState`], [`Step`]); the loop's decisions are in `io_loop.rs`, its
//! submissions in `submit.rs`, its completions in `reap.rs`.
//!
//! Read first: fio's `backend.c` (`do_io`, `wait_for_completions`), `ioengines.c`
//! (`td_io_queue`, `td_io_commit`, `td_io_getevents`) and `init.c` (the option fix-ups
//! quoted below); `docs/model.md` § "Host stack" lists what is simplified.
//!
//! The loop, per engine kind ([`EngineKind`](crate::os::EngineKind)):
//!
//! ```text
//! sync:    prep ─▶ submit call ─▶ [device] ─▶ irq ─▶ wake ─▶ return ─▶ account ─▶ prep …
//! async:   prep, queue ─(batch full)─▶ submit call for the batch ─▶ … until the queue is full
//!          full ─▶ reap ≥ min completions (blocking: wake first) ─▶ until ≤ iodepth_low ─▶ prep …
//! kernel-callback: prime one command; each completion's handler issues the next one
//! ```
//!
//! Every step books CPU time on the thread's core and takes effect when it ends (a timer,
//! unless it costs nothing). A thread is in one [`Step`] at a time:
//!
//! * `Idle`: runnable now; `Runner::drive` picks its next action;
//! * `Cpu`: its work is booked and takes effect at the booking's end (`then`);
//! * `Blocked`: waiting for `need` visible completions (asleep, or spinning when polled);
//! * `Sleeping`: thinktime, a rate limit or a flow; a timer makes it `Idle`, or first books
//!   the spin that ends a sleep on time (`spin_until`, see `Runner::sleep`);
//! * `Done`: stopped with nothing in flight.
//!
//! fio's timestamps: an I/O starts when its preparation starts, is issued when the submit
//! call that carried it returns (synchronous engines: when the call starts) and completes
//! when the reap call that found it returns. slat = issue − start, clat = complete − issue.

use super::super::{Direction, JobSpec};
use super::engine_run::{EngineRun, WakeupWork};
use crate::engine::{SimDuration, SimTime};
use crate::os::{Booking, CoreId};
use std::collections::VecDeque;

/// What a thread is doing.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    Idle,
    Cpu { booking: Booking, then: Then },
    Blocked { need: u32, since: SimTime },
    Sleeping { spin_until: SimTime },
    Done,
}

/// What takes effect when a thread's CPU work ends.
#[derive(Clone, Copy, Debug)]
pub(super) enum Then {
    /// Nothing: carry on.
    Continue,
    /// The queued I/Os reach the device.
    Commit,
    /// Reap `n` visible completions.
    Reap { n: u32 },
    /// Reap `n` visible completions, then prepare and submit the next I/O: the thread's
    /// loop run as one piece of CPU work (the last `issue_cost` of it is the issue).
    ReapAndIssue { n: u32, issue_cost: SimDuration },
    /// The common wakeup (`Runner::wake_to_reap_one_and_issue`): reap completion `id`, the
    /// one that woke the thread (carried here, not queued as visible: nothing reads the
    /// queue before the work ends), then issue the next I/O, as `ReapAndIssue`.
    ReapOneAndIssue { id: u32, issue_cost: SimDuration },
    /// The spinning part of a thinktime is over; sleep the rest.
    Think { sleep: SimDuration },
    /// The fsync call reaches the kernel.
    Sync { end: bool },
}

/// A clone's thread.
// Each flag is one state of the thread fio keeps as a flag too.
#[allow(clippy::struct_excessive_bools)]
// Fields in declaration order (`repr(C)`), from a cache line's start: what each I/O's turns
// read and write first, so that they take the fewest lines and the same ones in every
// clone (the first line holds the step and the counts beside it, the second the queues),
// then the engine's costs, then what is rarely used.
#[repr(C, align(64))]
pub(super) struct ThreadState {
    pub step: Step,
    /// Submitted, completion not yet visible.
    pub in_device: u32,
    /// Bumped whenever a timer for this thread is armed, so older ones are ignored.
    pub generation: u32,
    pub core: CoreId,
    pub irq_core: CoreId,
    /// The depth a latency target allows now (`u32::MAX`: the engine's).
    pub depth_cap: u32,
    /// The queue was full when reaping started: reap until at most `low` are in flight.
    pub draining: bool,
    /// Woken from a wait for completions: the next reap call pays the wakeup.
    pub woken: bool,
    /// Let everything in flight complete before issuing more (fio's `io_u_quiesce`).
    pub quiesce: bool,
    /// Whether the last I/O issued was a write (fio's `last_ddir_issued`).
    pub last_issue_write: bool,
    /// Completion visible, not yet reaped.
    pub visible: VecDeque<u32>,
    /// Prepared, not yet submitted.
    pub queued: Vec<u32>,
    pub think_on_issue: bool,
    /// `sync=1` without the page cache, where the run flushes after each write (see
    /// `RunOptions::fs_syncs`).
    pub flush_sync_writes: bool,
    /// fio's loop without options that change a woken thread's next steps (set with the
    /// clone, see `JobClone::plain_loop`): one I/O per submit call, a reap that waits for
    /// one completion and stops draining after it, no thinktime, syncs, rate limits,
    /// buffered copies or controls; woken by interrupts (neither polling nor the bare host).
    pub plain_loop: bool,
    /// A thread with a plain loop that nothing but its own completions and deadline can
    /// move before its next wakeup (set with the phase, see `Runner::mark_sees_ahead`): the
    /// common wakeup a completion brings is booked when the device posts it, ahead of its
    /// interrupt handler's end, with the same effect (`Runner::on_posted`).
    pub sees_ahead: bool,
    /// Completions the device posted whose interrupt handler had not ended then, handed
    /// back to the host until it has (`Runner::on_posted`).
    pub handlers_pending: u32,
    /// The common wakeup's work with this thread's engine.
    pub wakeup_work: WakeupWork,
    pub think_total: SimDuration,
    /// Blocks counted for thinktime (issued or completed, per `thinktime_blocks_type`).
    pub think_counter: u64,
    /// User and kernel CPU time booked over the measured span, ns, and the times the
    /// thread slept (the result's `usr_ns`, `sys_ns` and `ctx` when the run ends; kept
    /// here, beside what each I/O touches anyway).
    pub usr_ns: u64,
    pub sys_ns: u64,
    pub ctx: u64,
    pub engine: EngineRun,
    pub think_mark: u64,
    pub think_blocks: u64,
    pub think_spin: SimDuration,
    pub think_iotime: SimDuration,
    pub last_think: SimTime,
    /// `fsync=` / `fdatasync=`: a sync after this many writes issued (0: never).
    pub fsync_blocks: u64,
    pub fdatasync_blocks: u64,
    /// Writes issued.
    pub writes_issued: u64,
    /// `end_fsync`: one sync when the job's writes end; done once.
    pub end_fsync: bool,
    pub end_synced: bool,
    /// `sync=1`: buffered writes are written through.
    pub sync_writes: bool,
    /// `pre_read` and `invalidate`: what happens to the file's cached pages at the start.
    pub pre_read: bool,
    pub invalidate: bool,
    /// The mmap engine's mappings: file extent `(start, end)` on the namespace and its
    /// mapping, made when the clone starts.
    pub mmaps: Vec<(u64, u64, crate::os::vm::MappingId)>,
    /// The mmap engine with `direct=1`: each I/O is followed by `msync` and
    /// `MADV_DONTNEED` of its range.
    pub mmap_direct: bool,
    /// The advice the mmap engine gives its mappings (`fadvise_hint=`).
    pub mmap_hint: Option<crate::os::vm::Madvise>,
    /// How its calls and wakeups vary (`None`: each costs its mean).
    pub cpu_draws: Option<super::jitter::CpuDraws>,
}

// The first cache line holds the step and the counts beside it; the queues start the next.
const _: () = assert!(std::mem::offset_of!(ThreadState, visible) == 64);

impl ThreadState {
    /// One call's CPU work (user, system), given at its mean, as this thread pays it.
    #[inline]
    pub(super) fn vary_call(&mut self, user: SimDuration, sys: SimDuration) -> (SimDuration, SimDuration) {
        match self.cpu_draws.as_mut() {
            Some(d) => d.call(user, sys),
            None => (user, sys),
        }
    }

    pub(super) fn new(engine: EngineRun, spec: &JobSpec, core: CoreId, irq_core: CoreId) -> Self {
        ThreadState {
            wakeup_work: engine.wakeup_work(),
            engine,
            core,
            irq_core,
            queued: Vec::new(),
            in_device: 0,
            visible: VecDeque::new(),
            step: Step::Idle,
            generation: 0,
            draining: false,
            woken: false,
            think_counter: 0,
            usr_ns: 0,
            sys_ns: 0,
            ctx: 0,
            think_mark: 0,
            think_blocks: spec.thinktime_blocks.max(1),
            think_on_issue: spec.thinktime_blocks_issue,
            think_total: SimDuration(spec.thinktime_ns),
            think_spin: SimDuration(spec.thinktime_spin_ns.min(spec.thinktime_ns)),
            think_iotime: SimDuration(spec.thinktime_iotime_ns),
            last_think: SimTime::ZERO,
            fsync_blocks: spec.fsync_blocks,
            fdatasync_blocks: spec.fdatasync_blocks,
            end_fsync: spec.end_fsync && spec.rw.uses(Direction::Write),
            end_synced: false,
            sync_writes: spec.sync_writes,
            flush_sync_writes: false,
            plain_loop: false,
            sees_ahead: false,
            handlers_pending: 0,
            writes_issued: 0,
            last_issue_write: false,
            pre_read: spec.pre_read,
            invalidate: spec.invalidate,
            depth_cap: u32::MAX,
            quiesce: false,
            mmaps: Vec::new(),
            mmap_direct: spec.direct,
            cpu_draws: None,
            mmap_hint: super::mmap_hint(spec.fadvise_hint, spec.rw.is_random()),
        }
    }

    /// The mapping holding namespace byte `offset` and where its file starts.
    pub(super) fn mapping_at(&self, offset: u64) -> (crate::os::vm::MappingId, u64) {
        let k = self.mmaps.iter().position(|&(start, end, _)| (start..end).contains(&offset)).unwrap_or(0);
        let (start, _, m) = self.mmaps[k];
        (m, start)
    }

    /// fio's `get_rw_ddir`: after a write, a sync is due every `fsync` (or `fdatasync`)
    /// writes issued.
    pub(super) fn sync_due(&self) -> bool {
        let every = |n: u64| n > 0 && self.writes_issued % n == 0;
        self.last_issue_write && (every(self.fsync_blocks) || every(self.fdatasync_blocks))
    }

    /// fio's `cur_depth`: I/Os queued, in flight or completed but not reaped.
    #[inline]
    pub(super) fn depth_used(&self) -> u32 {
        self.queued.len() as u32 + self.in_device + self.visible.len() as u32
    }

    /// The least completions a reap waits for now: `iodepth_batch_complete_min`, at most
    /// what is in use and at least one.
    #[inline]
    pub(super) fn reap_min(&self) -> u32 {
        1.max(self.engine.complete_min.min(self.depth_used()))
    }

    /// fio's `wait_for_completions` on a full queue: the thread drains (reaps until at most
    /// `iodepth_low` are in use); returns the least the first reap waits for.
    #[inline]
    pub(super) fn start_draining(&mut self) -> u32 {
        self.draining = true;
        self.reap_min()
    }

    /// Whether fio's `handle_thinktime` stalls now.
    pub(super) fn think_due(&self, now: SimTime) -> bool {
        if self.think_total == SimDuration::ZERO {
            return false;
        }
        if self.think_iotime > SimDuration::ZERO {
            return now.since(self.last_think) >= self.think_iotime;
        }
        self.think_counter >= self.think_mark + self.think_blocks
    }
}
