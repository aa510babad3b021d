//! fio's thread loop (`backend.c`'s `do_io`): a runnable thread's next actions, decided
//! in fio's order, and the CPU work each books on the thread's core.

use super::super::Direction;
use super::super::trace::TraceOp;
use super::replay::ReplayCursor;
use super::thread::{Step, Then, ThreadState};
use super::verify::Phase;
use super::{InFlightIo, Runner, SyncCall, Timer};
use crate::block::BlockDevice;
use crate::engine::{SimDuration, SimTime};
use crate::os::{CloneId, EngineKind, Host};

/// The thread's next move.
pub(super) enum Action {
    Issue,
    Commit,
    /// Reap at least `min` completions (waiting for them if need be).
    Wait {
        min: u32,
    },
    Think,
    /// An fsync call (`end`: the one when the job's writes are over).
    Sync {
        end: bool,
    },
    Sleep(SimTime),
    /// The pass's writes are done: read them back (`verify=`).
    BeginVerify,
    /// Ahead of its share of its flow: wait until the flow's count moves.
    FlowWait,
    Finish,
}

/// fio's quiesce before a stall or a sync: the queued I/Os are committed and everything
/// in use reaped, then `then`.
fn after_quiesce(t: &ThreadState, then: Action) -> Action {
    if !t.queued.is_empty() {
        Action::Commit
    } else if t.depth_used() > 0 {
        Action::Wait { min: t.depth_used() }
    } else {
        then
    }
}

impl Runner {
    /// Runs clone `i`'s thread from `now` until it must wait for CPU, completions or time
    /// (nothing to do unless it is runnable: most calls, checked before the loop's call).
    #[inline]
    pub(super) fn drive<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        if matches!(self.clones[i].thread.step, Step::Idle) {
            self.run_thread(host, i, now);
        }
    }

    /// [`Self::drive`]'s loop: the thread's next actions, one after another.
    // Out of line, so that `drive`, called twice per I/O on a thread that mostly waits,
    // inlines to its check that the thread is runnable.
    #[inline(never)]
    pub(super) fn run_thread<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        loop {
            if !matches!(self.clones[i].thread.step, Step::Idle) {
                return;
            }
            match self.next_action(i, now) {
                Action::Issue => self.issue_one(host, i, now),
                Action::Commit => {
                    let t = &mut self.clones[i].thread;
                    let e = &t.engine;
                    let n = t.queued.len() as u64;
                    let sys = e.submit_call + e.submit_io.times(n) + e.lookaside.times(n);
                    let (user, sys) = t.vary_call(SimDuration::ZERO, sys);
                    self.work(host, i, now, user, sys, Then::Commit);
                }
                Action::Wait { min } => {
                    if !self.reap_or_block(host, i, now, min) {
                        return;
                    }
                }
                Action::Think => {
                    let t = &mut self.clones[i].thread;
                    t.think_mark = t.think_counter;
                    t.last_think = now;
                    let (spin, sleep) = (t.think_spin, SimDuration(t.think_total.as_ns() - t.think_spin.as_ns()));
                    self.work(host, i, now, spin, SimDuration::ZERO, Then::Think { sleep });
                }
                Action::Sync { end } => {
                    if let Some(r) = self.clones[i].replay_mut()
                        && !end
                        && r.peek().is_some_and(|e| e.op == TraceOp::Sync)
                    {
                        r.take(now);
                    }
                    if self.clones[i].control.is_some() {
                        self.clones[i].log_issue(now, TraceOp::Sync, 0, 0);
                    }
                    let t = &mut self.clones[i].thread;
                    t.last_issue_write = false;
                    t.end_synced |= end;
                    let (user, sys) = t.vary_call(SimDuration::ZERO, t.engine.submit_call);
                    self.work(host, i, now, user, sys, Then::Sync { end });
                }
                Action::Sleep(until) => {
                    self.sleep(host, i, now, until);
                    return;
                }
                Action::BeginVerify => self.begin_verify(host, i, now),
                Action::FlowWait => {
                    let c = &mut self.clones[i];
                    c.thread.step = Step::Sleeping { spin_until: SimTime::ZERO };
                    c.thread.generation = c.thread.generation.wrapping_add(1);
                    let member = c.flow().expect("only clones in a flow wait for it");
                    self.flows.wait(&member, i);
                    return;
                }
                Action::Finish => {
                    self.clones[i].thread.step = Step::Done;
                    return;
                }
            }
        }
    }

    /// fio's wait for at least `min` completions of clone `i` at `now`: books the reap of
    /// those visible (with the next I/O's issue in the same piece of work where the loop
    /// would go straight on to it), or blocks the thread. False if it blocked.
    pub(super) fn reap_or_block<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        now: SimTime,
        min: u32,
    ) -> bool {
        let c = &mut self.clones[i];
        let t = &mut c.thread;
        let ready = t.visible.len() as u32;
        if ready < min || ready == 0 {
            self.block(i, min.max(1), now);
            return false;
        }
        let n = ready.min(t.engine.complete_max.max(min));
        let woken = std::mem::take(&mut t.woken);
        let (reap_user, reap_sys) = t.engine.reap_cpu(n);
        let (mut user, mut sys) = t.vary_call(reap_user, reap_sys);
        if woken {
            let wake = t.engine.wake;
            sys += t.cpu_draws.as_mut().map_or(wake, |d| d.wakeup(wake));
        }
        let e = &t.engine;
        if let Some(b) = &e.buffered {
            for &id in t.visible.iter().take(n as usize) {
                let io = &self.ios[id];
                sys += b.call(io.dir, io.bytes);
            }
        }
        if let Some(v) = c.control.as_deref().and_then(|c| c.verify.as_ref()) {
            for &id in t.visible.iter().take(n as usize) {
                let io = &self.ios[id];
                if io.read_back || (v.checks_reads && io.dir == Direction::Read) {
                    user += v.check_cost(io.bytes);
                }
            }
        }
        let (issue_user, issue_sys) = e.issue_one_cpu();
        let (issue_user, issue_sys) = c.thread.vary_call(issue_user, issue_sys);
        let issue_cost = issue_user + issue_sys;
        if self.issues_after_reap(i, n, now + user + sys + issue_cost) {
            self.work(host, i, now, user + issue_user, sys + issue_sys, Then::ReapAndIssue { n, issue_cost });
        } else {
            // The issue priced to decide comes later, on its own path: with this draw.
            if let Some(d) = self.clones[i].thread.cpu_draws.as_mut() {
                d.put_back_call();
            }
            self.work(host, i, now, user, sys, Then::Reap { n });
        }
        true
    }

    // fio's thread loop decisions, in the order it makes them.
    pub(super) fn next_action(&mut self, i: CloneId, now: SimTime) -> Action {
        let c = &mut self.clones[i];
        if c.control.is_some() && c.verify().is_some_and(|v| v.dry_run && v.phase == Phase::Io) && !c.stopped {
            c.dry_run_pass();
        }
        // Whether the clone may still issue matters only once its queue has room.
        if !c.stopped && c.thread.depth_used() < c.thread.engine.depth && c.out_of_work(now) {
            c.stopped = true;
        }
        let t = &c.thread;
        let used = t.depth_used();
        if t.engine.kind == EngineKind::KernelCallback {
            // Primed once; then the thread sleeps until its handler has nothing left.
            return match (c.stopped, used) {
                (true, 0) => Action::Finish,
                (false, 0) => Action::Issue,
                _ => Action::Wait { min: u32::MAX },
            };
        }
        if c.stopped {
            return self.next_action_stopped(i, now);
        }
        if t.sync_due() {
            // Simplified: the queue drains before the sync (fio's sync engines do; libaio
            // waits only for what it has not submitted).
            return after_quiesce(t, Action::Sync { end: false });
        }
        if c.control.is_some()
            && let Some(e) = c.replay().and_then(ReplayCursor::peek)
        {
            match e.op {
                // fio's sync io_u: the queue drains, then the sync call.
                TraceOp::Sync => return after_quiesce(t, Action::Sync { end: false }),
                TraceOp::Wait => {
                    let due = c.replay().map_or(now, ReplayCursor::due);
                    if due > now {
                        return if t.queued.is_empty() { Action::Sleep(due) } else { Action::Commit };
                    }
                    c.replay_mut().and_then(|r| r.take(now));
                    return self.next_action(i, now);
                }
                TraceOp::Read | TraceOp::Write | TraceOp::Trim => {}
            }
        }
        if t.think_due(now) {
            // fio's io_u_quiesce: everything in flight completes before the stall.
            return after_quiesce(t, Action::Think);
        }
        if t.quiesce {
            if !t.queued.is_empty() {
                return Action::Commit;
            } else if used > 0 {
                return Action::Wait { min: used };
            }
            self.clones[i].thread.quiesce = false;
            return self.next_action(i, now);
        }
        let full = used >= t.engine.depth.min(t.depth_cap);
        if t.draining && !full && used > t.engine.low {
            return Action::Wait { min: t.reap_min() };
        }
        if !full {
            let dir = c.next_dir();
            let due =
                if c.control.is_some() { c.replay().map_or(SimTime::ZERO, ReplayCursor::due) } else { SimTime::ZERO };
            let allowed = c.rate_allows_at(dir).max(due);
            if due > now && due == allowed {
                // fio's iolog_delay: the thread sleeps until the entry's time, what is in
                // flight staying in flight.
                return if t.queued.is_empty() { Action::Sleep(due) } else { Action::Commit };
            }
            if allowed <= now {
                let Some(member) = c.control.as_deref_mut().and_then(|c| c.flow.as_mut()) else {
                    return Action::Issue;
                };
                let Some(woken) = self.flows.may_issue(member) else { return self.hold_for_flow(i, now) };
                self.wake(&woken, now);
                return Action::Issue;
            }
            // fio's rate_ddir quiesces before it sleeps.
            return after_quiesce(t, Action::Sleep(allowed));
        }
        if !t.queued.is_empty() {
            return Action::Commit;
        }
        // wait_for_completions: a full queue must reap at least one.
        Action::Wait { min: self.clones[i].thread.start_draining() }
    }

    /// [`Self::next_action`] for a clone that issues no more: leftover completions are
    /// reaped first (a drained queue, or a reap that took fewer than were visible), then
    /// the end's fsync, then a verifying pass's next phase.
    fn next_action_stopped(&mut self, i: CloneId, now: SimTime) -> Action {
        let c = &mut self.clones[i];
        let t = &c.thread;
        let used = t.depth_used();
        if !t.queued.is_empty() {
            Action::Commit
        } else if used > 0 {
            Action::Wait { min: used }
        } else if t.end_fsync && !t.end_synced && t.writes_issued > 0 {
            Action::Sync { end: true }
        } else if now < c.deadline
            && let Some(v) = c.control.as_deref_mut().and_then(|c| c.verify.as_mut())
        {
            // fio's thread_main: a pass's I/O, then its read-back, then the next pass.
            match v.phase {
                Phase::Io if v.logs_writes() => Action::BeginVerify,
                Phase::Io => Action::Finish,
                Phase::Verify => {
                    v.end_verify(c.ramp_end, now);
                    if c.next_pass() {
                        c.thread.end_synced = false;
                        self.next_action(i, now)
                    } else {
                        Action::Finish
                    }
                }
            }
        } else {
            Action::Finish
        }
    }

    /// Clone `i` is ahead of its flow: with `flow_sleep` it lets its I/O complete and
    /// sleeps, without it waits for the flow's count to move.
    pub(super) fn hold_for_flow(&self, i: CloneId, now: SimTime) -> Action {
        let c = &self.clones[i];
        let t = &c.thread;
        let sleep_ns = c.flow().map_or(0, |m| m.sleep_ns);
        if sleep_ns == 0 { Action::FlowWait } else { after_quiesce(t, Action::Sleep(now + SimDuration(sleep_ns))) }
    }

    /// Decides the next I/O of clone `i` and records it in flight from `now`.
    #[inline]
    pub(super) fn prepare_io<D: BlockDevice>(&mut self, host: &Host<D>, i: CloneId, now: SimTime) -> u32 {
        let c = &mut self.clones[i];
        let (dir, offset, bytes, read_back) =
            if c.control.is_some() && c.replaying() { c.next_replayed(now) } else { c.next_io() };
        if c.control.is_some() {
            let op = match dir {
                Direction::Read => TraceOp::Read,
                Direction::Write => TraceOp::Write,
                Direction::Trim => TraceOp::Trim,
            };
            c.log_issue(now, op, offset, bytes);
        }
        // Offloaded submission queues each I/O at its place in the rate schedule; one that
        // waited beyond it (the device behind, the depth full) counts the wait as latency.
        let scheduled = c.rate_allows_at(dir);
        let start = if c.offload && scheduled > SimTime::ZERO { scheduled.max(c.start).min(now) } else { now };
        c.charge_rate(dir, bytes);
        let prio = match c.control.as_deref_mut().and_then(|c| c.priority.as_mut()) {
            Some(p) => p.pick(dir, bytes),
            None => 0,
        };
        // fio's io_bytes_exceeded counts the job's own directions: a write job's
        // read-backs are not in its budget.
        if !read_back || c.rw.uses(Direction::Read) {
            c.issued_bytes += bytes;
        }
        c.issued_ios += 1;
        let depth_bucket = match c.thread.depth_used() + 1 {
            1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            8..=15 => 3,
            16..=31 => 4,
            32..=63 => 5,
            _ => 6,
        };
        c.result.iodepth_level[depth_bucket] += 1;
        c.thread.last_issue_write = dir == Direction::Write;
        if dir == Direction::Write {
            c.thread.writes_issued += 1;
        }
        if c.thread.think_on_issue {
            c.thread.think_counter += 1;
        }
        // Decide the next I/Os now and warm the target for them (a trace decides its own).
        while c.ahead.len() < super::clone::LOOKAHEAD && !(c.control.is_some() && c.replaying()) {
            let next = c.decide();
            host.prefetch(next.offset);
            c.ahead.push_back(next);
        }
        self.ios.insert(InFlightIo {
            dir,
            offset,
            bytes,
            start,
            issue: now,
            sync: SyncCall::No,
            read_back,
            prio,
            handed_back: false,
        })
    }

    /// Prepares one I/O; submits it (a synchronous engine, or a full batch) or queues it.
    pub(super) fn issue_one<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        let id = self.prepare_io(host, i, now);
        let c = &mut self.clones[i];
        let make = match c.verify() {
            Some(v) if self.ios[id].dir == Direction::Write => v.write_cost(self.ios[id].bytes),
            _ => SimDuration::ZERO,
        };
        let t = &mut c.thread;
        t.queued.push(id);
        let e = &t.engine;
        let n = t.queued.len() as u32;
        let (user, sys, then) = match e.kind {
            EngineKind::Sync | EngineKind::KernelCallback => (e.prep, e.submit_call + e.submit_io, Then::Commit),
            EngineKind::Async if n >= e.batch_submit => {
                let n = u64::from(n);
                (e.prep, e.submit_call + e.submit_io.times(n) + e.lookaside.times(n), Then::Commit)
            }
            EngineKind::Async => (e.prep, SimDuration::ZERO, Then::Continue),
        };
        let (user, sys) = t.vary_call(user, sys);
        self.work(host, i, now, user + make, sys, then);
    }

    /// Books `user` then `sys` CPU time for clone `i`'s thread from `now`; `then` takes
    /// effect when it ends (at once if it costs nothing and the core is free).
    pub(super) fn work<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        now: SimTime,
        user: SimDuration,
        sys: SimDuration,
        then: Then,
    ) {
        let c = &mut self.clones[i];
        if user + sys == SimDuration::ZERO {
            // Nothing to book (the bare host): it takes effect now.
            self.apply(host, i, now, then);
            return;
        }
        let booking = host.cpu_mut().task(c.thread.core, now, user + sys);
        if now >= c.ramp_end && now < c.deadline {
            c.thread.usr_ns += user.as_ns();
            c.thread.sys_ns += sys.as_ns();
        }
        if booking.end <= now {
            self.apply(host, i, now, then);
        } else {
            c.thread.step = Step::Cpu { booking, then };
            c.thread.generation = c.thread.generation.wrapping_add(1);
            // Work booked now ends its cost later unless its core is busy: mostly in order.
            let (rank, timer) = Timer::resume(i, c.thread.generation);
            self.timers.push_in_order_ranked(booking.end, rank, timer);
        }
    }

    /// Clone `i`'s pass wrote what it had to: fio's `do_verify` syncs the files and drops
    /// their cached pages (so blocks are read from the device), then reads them back.
    pub(super) fn begin_verify<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        let c = &mut self.clones[i];
        let v = c.verify_mut().expect("only verifying clones begin a read-back");
        if v.sync_before && !v.synced {
            v.synced = true;
            let (user, sys) = c.thread.vary_call(SimDuration::ZERO, c.thread.engine.submit_call);
            self.work(host, i, now, user, sys, Then::Sync { end: true });
            return;
        }
        if c.thread.engine.buffered.is_some() {
            for (start, end) in c.file_regions() {
                host.invalidate(start, end);
            }
        }
        let c = &mut self.clones[i];
        let ramp_end = c.ramp_end;
        c.verify_mut().expect("checked above").begin_verify(ramp_end, now);
        c.stopped = false;
    }

    /// Clone `i`'s thread sleeps from `now` until `until`, as fio's `usec_sleep` does on
    /// the host's timers: fio measured at start how long the shortest sleep takes (the
    /// timer's granularity `g`); a wait shorter than that is spun, a longer one sleeps
    /// `g` less and spins what is left when its timer fires. The bare host sleeps exactly.
    pub(super) fn sleep<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime, until: SimTime) {
        let c = &mut self.clones[i];
        let (fires, spin_until) = if c.thread.engine.free {
            (until, SimTime::ZERO)
        } else {
            let h = host.config();
            let granularity = h.sleep_timer.granularity(h.wakeup);
            let wait = until.since(now);
            if wait < granularity {
                self.work(host, i, now, wait, SimDuration::ZERO, Then::Continue);
                return;
            }
            c.thread.ctx += 1;
            (h.sleep_timer.fires(until.saturating_sub(granularity)) + h.wakeup, until)
        };
        c.thread.step = Step::Sleeping { spin_until };
        c.thread.generation = c.thread.generation.wrapping_add(1);
        let (rank, timer) = Timer::resume(i, c.thread.generation);
        self.timers.push_ranked(fires, rank, timer);
    }

    /// A thread timer fired: its CPU work ended (unless interrupts delayed it) or its
    /// sleep is over.
    pub(super) fn resume<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, generation: u32, now: SimTime) {
        let t = &mut self.clones[i].thread;
        if t.generation != generation {
            return;
        }
        match t.step {
            Step::Cpu { mut booking, then } => {
                if let Some(later) = host.cpu().settle(&mut booking) {
                    t.step = Step::Cpu { booking, then };
                    let (rank, timer) = Timer::resume(i, generation);
                    self.timers.push_ranked(later, rank, timer);
                    return;
                }
                t.step = Step::Idle;
                self.apply(host, i, now, then);
            }
            Step::Sleeping { spin_until } => {
                t.step = Step::Idle;
                if now < spin_until {
                    self.work(host, i, now, spin_until - now, SimDuration::ZERO, Then::Continue);
                    return;
                }
            }
            _ => return,
        }
        self.drive(host, i, now);
    }

    /// Wakes a sleeping thread early (its clone was stopped).
    pub(super) fn interrupt_sleep<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        let t = &mut self.clones[i].thread;
        if matches!(t.step, Step::Sleeping { .. }) {
            t.step = Step::Idle;
            t.generation = t.generation.wrapping_add(1);
            self.drive(host, i, now);
        }
    }

    /// What a thread's finished CPU work does.
    pub(super) fn apply<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime, then: Then) {
        self.clones[i].thread.step = Step::Idle;
        match then {
            Then::Continue => {}
            Then::Commit => self.commit(host, i, now),
            Then::Reap { n } => self.reap(i, now, n),
            Then::ReapAndIssue { n, issue_cost } => {
                let issue_start = now.saturating_sub(issue_cost);
                self.reap(i, issue_start, n);
                self.issue_after_reap(host, i, issue_start, now);
            }
            Then::ReapOneAndIssue { id, issue_cost } => {
                let issue_start = now.saturating_sub(issue_cost);
                let at = issue_start.saturating_sub(self.clones[i].thread.engine.account);
                self.complete(i, id, at);
                self.stop_draining_if_low(i);
                self.issue_after_reap(host, i, issue_start, now);
            }
            Then::Think { sleep } => {
                if sleep > SimDuration::ZERO {
                    self.sleep(host, i, now, now + sleep);
                }
            }
            Then::Sync { end } => self.send_sync(host, i, now, end),
        }
    }

    /// The issue that ends a reap's work at `now` (`Then::ReapAndIssue`), begun at
    /// `issue_start`: the next I/O, unless the deadline passed while the thread worked.
    pub(super) fn issue_after_reap<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        issue_start: SimTime,
        now: SimTime,
    ) {
        let c = &mut self.clones[i];
        if c.out_of_work(issue_start) {
            c.stopped = true;
        } else {
            // Nothing was queued (`issues_after_reap`): the one I/O goes alone.
            let id = self.prepare_io(host, i, issue_start);
            self.send_io(host, i, id, now);
            self.block_if_full(i, now);
        }
    }
}
