//! One die: its operation queues, what it is doing, and program/erase suspend.
//!
//! ```text
//!            start(op)                 done
//!   Idle ───────────────▶ Busy(op) ─────────────▶ Idle (or Busy with the next op)
//!                          │   ▲
//!   read arrives, op is a  │   │ reads drained: resume after t_resume with the
//!   program/erase and      ▼   │ remaining array time
//!   suspend is allowed   Busy(read) with Suspended(program/erase) parked
//! ```
//!
//! Queues are by class, highest priority first: host and map reads, relocation (GC/fold)
//! reads, programs and erases (host, GC, map, urgent fold programs, fold programs with
//! `slc_cache.fold_priority = "host"`, and every erase, first come first served: an erase
//! below programs would wait for good behind a steady write stream, and the superblock it
//! frees is what later programs need), background programs (fold programs by default). Urgent fold programs are the only programs a read never suspends. Under
//! [`DieScheduler::ReadPriority`] the die takes the first non-empty class, except that a
//! parked (suspended) op resumes as soon as the host and map reads are drained, before the
//! other classes; under [`DieScheduler::Fifo`] every op goes to one queue. An op may carry a
//! `ready` time in the future (a firmware core or a data transfer finishes later); the die
//! commits to it when it picks it and starts it no earlier than that.
//!
//! A suspended op is parked, not cancelled: the die's `generation` is bumped so its pending
//! completion event is dropped as stale, and the op resumes with the array time it still had.

use super::CellMode;
use crate::engine::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What a die operation does, and for whom (the `token` indexes the requester's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum DieOpKind {
    /// Read user data for a host command.
    HostRead,
    /// Read a translation page for the map cache.
    MapRead,
    /// Read valid data out of a GC or fold victim.
    RelocRead,
    /// Program a program unit of a write frontier.
    Program,
    /// Program folded data in the background (`slc_cache.fold_priority = "background"`):
    /// starts only when no read, other program or erase waits on the die.
    BackgroundProgram,
    /// Program a map page (journal or translation page).
    MapWrite,
    /// Erase this die's blocks of a superblock.
    Erase,
    /// Program folded data urgently (`slc_cache.fold_urgent_gib`): queues with host
    /// programs and is never suspended.
    UrgentProgram,
}

impl DieOpKind {
    fn class(self) -> usize {
        match self {
            DieOpKind::HostRead | DieOpKind::MapRead => 0,
            // Erases go before queued programs: the superblock an erase frees is what waiting
            // writes need (below programs, a steady write stream would hold it off for good).
            DieOpKind::RelocRead | DieOpKind::Erase => 1,
            DieOpKind::Program | DieOpKind::MapWrite | DieOpKind::UrgentProgram => 2,
            DieOpKind::BackgroundProgram => 3,
        }
    }
    /// Which array activity the op is, for energy: 0 read, 1 program, 2 erase.
    #[inline]
    pub fn energy_class(self) -> usize {
        match self {
            DieOpKind::HostRead | DieOpKind::MapRead | DieOpKind::RelocRead => 0,
            DieOpKind::Program | DieOpKind::BackgroundProgram | DieOpKind::UrgentProgram | DieOpKind::MapWrite => 1,
            DieOpKind::Erase => 2,
        }
    }
    fn suspendable(self) -> bool {
        matches!(self, DieOpKind::Program | DieOpKind::BackgroundProgram | DieOpKind::MapWrite | DieOpKind::Erase)
    }
}

/// A queued or running operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DieOp {
    /// What the op does.
    pub kind: DieOpKind,
    /// Cell mode of the block it touches (selects the timing).
    pub mode: CellMode,
    /// Requester's index (command slot, relocation read, program unit, superblock).
    pub token: u32,
    /// Map units moved over the channel (reads and programs).
    pub units: u32,
    /// Earliest start.
    pub ready: SimTime,
    /// Array time the requester worked out (a read's page type and retries), or zero for
    /// the cell mode's nominal time.
    #[serde(default)]
    pub t_array: SimDuration,
}

impl DieOp {
    /// An operation that takes its cell mode's nominal array time (its requester worked out
    /// no time of its own, as a host read does for its page type and retries).
    pub const fn nominal(kind: DieOpKind, mode: CellMode, token: u32, units: u32, ready: SimTime) -> Self {
        DieOp { kind, mode, token, units, ready, t_array: SimDuration::ZERO }
    }
}

/// How a die picks its next operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DieScheduler {
    /// Reads before programs before erases (background programs last); FIFO within a
    /// class.
    ReadPriority,
    /// One FIFO for everything.
    Fifo,
}

/// Which long operations a read may suspend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuspendPolicy {
    /// Reads wait for the running operation.
    None,
    /// Reads may suspend programs.
    Program,
    /// Reads may suspend programs and erases.
    ProgramErase,
}

/// Suspend parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuspendTiming {
    /// Which operations may be suspended.
    pub policy: SuspendPolicy,
    /// Time from the suspend command until the array is free for the read.
    pub t_suspend: SimDuration,
    /// Extra time to resume the suspended operation.
    pub t_resume: SimDuration,
    /// Suspensions allowed per operation. This bounds how often an operation is suspended,
    /// not how long: a suspended operation resumes only once no host or map read is queued
    /// on its die, so a steady stream of reads can hold it off indefinitely.
    pub max_per_op: u8,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Running {
    op: DieOp,
    /// When the array operation itself started (after any channel transfer in).
    array_start: SimTime,
    end: SimTime,
    suspends: u8,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Parked {
    op: DieOp,
    remaining: SimDuration,
    suspends: u8,
}

/// Queue classes, highest priority first (see [`DieOpKind::class`]).
const CLASSES: usize = 4;

/// Per-die state.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Die {
    queues: [VecDeque<DieOp>; CLASSES],
    running: Option<Running>,
    parked: Option<Parked>,
    /// Bumped whenever a scheduled completion must be ignored.
    pub generation: u32,
    /// Array busy time by activity ([`DieOpKind::energy_class`]: reads, programs,
    /// erases), in ns, counted when an op starts (all of it) and taken back for the part a
    /// suspension defers.
    pub array_ns: [u64; 3],
    /// Number of suspensions performed.
    pub suspensions: u64,
}

/// A die asks its owner to start an op: the owner books the channel for programs and
/// returns when the array operation starts.
#[derive(Clone, Copy)]
pub(crate) enum Started {
    /// Nothing to do.
    Idle,
    /// Completion at `end`, tagged with `generation`.
    Until { end: SimTime, generation: u32 },
}

impl Die {
    /// Adds an op to its queue.
    pub(crate) fn enqueue(&mut self, op: DieOp, scheduler: DieScheduler) {
        let class = match scheduler {
            DieScheduler::ReadPriority => op.kind.class(),
            DieScheduler::Fifo => 0,
        };
        self.queues[class].push_back(op);
    }

    /// True when the die has no running op.
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.running.is_none()
    }

    /// True when nothing is running, parked or queued.
    pub fn is_quiet(&self) -> bool {
        self.running.is_none() && self.parked.is_none() && self.queues.iter().all(VecDeque::is_empty)
    }

    /// True if an op is running on the array.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// True if an op is queued or parked.
    pub fn has_work(&self) -> bool {
        self.parked.is_some() || self.queues.iter().any(|q| !q.is_empty())
    }

    /// Ops waiting (not running).
    pub fn queued(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum::<usize>() + usize::from(self.parked.is_some())
    }

    /// The running op, if any.
    pub fn running(&self) -> Option<DieOp> {
        self.running.map(|r| r.op)
    }

    /// Whether a newly queued host or map read should suspend the running op now.
    pub(crate) fn should_suspend(&self, now: SimTime, suspend: &SuspendTiming) -> bool {
        let Some(r) = self.running else { return false };
        let allowed = match suspend.policy {
            SuspendPolicy::None => false,
            SuspendPolicy::Program => {
                matches!(r.op.kind, DieOpKind::Program | DieOpKind::BackgroundProgram | DieOpKind::MapWrite)
            }
            SuspendPolicy::ProgramErase => r.op.kind.suspendable(),
        };
        // A program still loading its data is suspended as soon as its array phase starts;
        // suspending is only worth it if enough array time is left.
        allowed && r.suspends < suspend.max_per_op && r.end > now.max(r.array_start) + suspend.t_suspend
    }

    /// Parks the running op and starts the first queued read after `t_suspend`.
    pub(crate) fn suspend_for_read(
        &mut self,
        now: SimTime,
        suspend: &SuspendTiming,
        t_read: impl Fn(&DieOp) -> SimDuration,
    ) -> Started {
        let r = self.running.take().expect("should_suspend checked that an op is running");
        // The array phase is suspended once it has begun; what is left of it is served
        // after resume (all of it, if the data was still loading).
        let at = now.max(r.array_start);
        let remaining = r.end.since(at);
        self.array_ns[r.op.kind.energy_class()] -= remaining.as_ns();
        self.parked = Some(Parked { op: r.op, remaining, suspends: r.suspends + 1 });
        self.suspensions += 1;
        self.generation = self.generation.wrapping_add(1);
        let op = self.queues[0].pop_front().expect("a read was just queued");
        let start = (at + suspend.t_suspend).max(op.ready);
        self.run(op, start, start, t_read(&op), 0)
    }

    /// Starts the next op if the die is idle. `array_start_for` books the channel for a
    /// program and returns when its array phase may begin.
    pub(crate) fn start_next(
        &mut self,
        now: SimTime,
        suspend: &SuspendTiming,
        timing: impl Fn(&DieOp) -> SimDuration,
        mut array_start_for: impl FnMut(&DieOp, SimTime) -> SimTime,
    ) -> Started {
        if self.running.is_some() {
            return Started::Idle;
        }
        // Host reads first, then a parked op resumes before anything else.
        if let Some(op) = self.queues[0].pop_front() {
            let start = now.max(op.ready);
            let array_start = array_start_for(&op, start);
            return self.run(op, start, array_start, timing(&op), 0);
        }
        if let Some(p) = self.parked.take() {
            let array_start = now + suspend.t_resume;
            return self.run(p.op, now, array_start, p.remaining, p.suspends);
        }
        for class in 1..CLASSES {
            if let Some(op) = self.queues[class].pop_front() {
                let start = now.max(op.ready);
                let array_start = array_start_for(&op, start);
                return self.run(op, start, array_start, timing(&op), 0);
            }
        }
        Started::Idle
    }

    fn run(&mut self, op: DieOp, _start: SimTime, array_start: SimTime, array: SimDuration, suspends: u8) -> Started {
        let end = array_start + array;
        self.array_ns[op.kind.energy_class()] += array.as_ns();
        self.running = Some(Running { op, array_start, end, suspends });
        Started::Until { end, generation: self.generation }
    }

    /// Finishes the running op if `generation` is current; returns it.
    pub(crate) fn finish(&mut self, generation: u32) -> Option<DieOp> {
        if generation != self.generation {
            return None;
        }
        self.running.take().map(|r| r.op)
    }
}
