//! A thread's completions: each made visible (or, for a thread that sees them ahead,
//! its wakeup booked when the device posts it), then reaped, with the shortcuts that
//! decide the common wakeup without the loop (each checked against the loop in debug
//! builds).

use super::super::Direction;
use super::io_loop::Action;
use super::thread::{Step, Then};
use super::{Runner, SyncCall};
use crate::block::{BlockDevice, Opcode};
use crate::engine::{SimDuration, SimTime};
use crate::os::{CloneId, CompletionPath, EngineKind, Host, IoDone, IoRequest, IoTag};

impl Runner {
    /// An I/O of clone `i` finished and its completion became visible at `now`. The
    /// caller drives the thread afterwards.
    #[inline]
    pub(super) fn on_visible<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, id: u32, now: SimTime) {
        if self.ios[id].sync == SyncCall::ZoneReset {
            // A zone's reset before a write: done, and counted nowhere.
            self.ios.free(id);
            return;
        }
        if self.wake_to_reap_one_and_issue(host, i, id, now) {
            return;
        }
        self.clones[i].thread.in_device -= 1;
        if self.clones[i].thread.flush_sync_writes && self.flush_after_write(host, i, id, now) {
            return;
        }
        if self.clones[i].thread.engine.kind == EngineKind::KernelCallback {
            // The handler that saw it issues the next command itself (its cost is in the
            // handler's work): record it and go on; the thread sleeps through all of it.
            self.complete(i, id, now);
            let c = &mut self.clones[i];
            if !c.stopped && c.out_of_work(now) {
                c.stopped = true;
            }
            if c.stopped {
                if c.thread.depth_used() == 0 {
                    c.thread.step = Step::Idle;
                }
                return;
            }
            let next = self.prepare_io(host, i, now);
            self.clones[i].thread.queued.push(next);
            self.commit(host, i, now);
            return;
        }
        if self.replace_directly(host, i, id, now) {
            return;
        }
        let t = &mut self.clones[i].thread;
        t.visible.push_back(id);
        let Step::Blocked { need, since } = t.step else { return };
        if (t.visible.len() as u32) < need {
            return;
        }
        t.step = Step::Idle;
        let e = &t.engine;
        if e.polled {
            // The thread spun on its core since it began to wait: that time is its own.
            let n = t.visible.len() as u32;
            let (user, reap_sys) = e.reap_cpu(n);
            let poll_sys = e.poll_io.times(u64::from(n));
            let c = &mut self.clones[i];
            let (user, sys) = c.thread.vary_call(user, poll_sys + reap_sys);
            if now >= c.ramp_end && now < c.deadline {
                c.thread.sys_ns += now.since(since).as_ns();
            }
            host.cpu_mut().spin(c.thread.core, since, now);
            self.work(host, i, now, user, sys, Then::Reap { n });
        } else {
            // The wakeup is paid with the reap call that follows (see `reap_or_block`).
            self.clones[i].thread.woken = true;
            if self.loop_waits_on_full_queue(i, now) {
                // What the loop would decide first, decided here: reap.
                let min = self.clones[i].thread.start_draining();
                debug_assert!(
                    matches!(self.next_action(i, now), Action::Wait { min: m } if m == min),
                    "the loop decides the same"
                );
                self.reap_or_block(host, i, now, min);
            }
        }
    }

    /// The common wakeup, decided without the loop: a thread with a plain loop
    /// ([`ThreadState::plain_loop`](super::thread::ThreadState::plain_loop)), blocked for one completion with its whole depth in the
    /// device, woken at `now` by I/O `id`'s, reaps it and issues the next I/O in one piece of
    /// CPU work, as `next_action`, `reap_or_block` and `issues_after_reap` would decide
    /// (checked in debug builds). False, with nothing done, if the case is not that one.
    #[inline]
    pub(super) fn wake_to_reap_one_and_issue<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        id: u32,
        now: SimTime,
    ) -> bool {
        let c = &self.clones[i];
        let t = &c.thread;
        if !t.plain_loop
            || !matches!(t.step, Step::Blocked { need: 1, .. })
            || t.in_device < t.engine.depth
            || !t.queued.is_empty()
            || t.quiesce
            || c.stopped
        {
            return false;
        }
        let c = &mut self.clones[i];
        let mean = c.thread.wakeup_work;
        let ((user, sys), issue_cost) = match c.thread.cpu_draws.as_mut() {
            None => (mean.cpu(), mean.issue()),
            Some(d) => {
                // The loop's order: the reap call, its wakeup, the issue.
                d.mark();
                let (reap_user, reap_sys) = d.call(mean.reap_user, mean.reap_sys);
                let wake = d.wakeup(mean.wake);
                let (issue_user, issue_sys) = d.call(mean.issue_user, mean.issue_sys);
                ((reap_user + issue_user, reap_sys + wake + issue_sys), issue_user + issue_sys)
            }
        };
        let end = now + user + sys;
        if c.out_of_work(end) {
            // The loop prices this wakeup instead: it gets the same draws.
            if let Some(d) = c.thread.cpu_draws.as_mut() {
                d.rewind();
            }
            return false;
        }
        let t = &mut c.thread;
        t.in_device -= 1;
        t.step = Step::Idle;
        t.draining = true;
        debug_assert!(
            {
                // The loop would see the completion visible.
                self.clones[i].thread.woken = true;
                self.clones[i].thread.visible.push_back(id);
                let decides = matches!(self.next_action(i, now), Action::Wait { min: 1 })
                    && self.loop_waits_on_full_queue(i, now)
                    && self.issues_after_reap(i, 1, end);
                self.clones[i].thread.visible.clear();
                self.clones[i].thread.woken = false;
                decides
            },
            "the loop decides the same"
        );
        let then = Then::ReapOneAndIssue { id, issue_cost };
        self.work(host, i, now, user, sys, then);
        true
    }

    /// A caller's I/O completed at the device now and becomes visible at `done.visible`, when
    /// its interrupt handler ends: if its thread sees completions ahead
    /// ([`ThreadState::sees_ahead`](super::thread::ThreadState::sees_ahead)), has none whose handler is still running, and this one
    /// wakes it in the common way, that wakeup is booked now; otherwise the host hands the
    /// completion back at its visible time.
    #[inline]
    pub(super) fn on_posted<D: BlockDevice>(&mut self, host: &mut Host<D>, done: IoDone) {
        let IoTag { clone: i, io: id } = IoTag::from_caller_tag(done.tag);
        let t = &self.clones[i].thread;
        // A zone's reset before a write is not the write's completion.
        let reset = self.ios[id].sync == SyncCall::ZoneReset;
        if t.sees_ahead
            && t.handlers_pending == 0
            && !reset
            && self.wake_to_reap_one_and_issue(host, i, id, done.visible)
        {
            return;
        }
        self.clones[i].thread.handlers_pending += 1;
        self.ios[id].handed_back = true;
        host.defer(done);
    }

    /// Whether clone `i`'s loop, run at `now`, would find its queue full with nothing else to
    /// do first (the common case of a woken thread): then it reaps (fio's
    /// `wait_for_completions`); otherwise [`Self::next_action`] must decide.
    #[inline]
    pub(super) fn loop_waits_on_full_queue(&self, i: CloneId, now: SimTime) -> bool {
        let c = &self.clones[i];
        let t = &c.thread;
        c.control.is_none()
            && !c.stopped
            && t.engine.kind != EngineKind::KernelCallback
            && t.depth_used() >= t.engine.depth.min(t.depth_cap)
            && t.queued.is_empty()
            && !t.quiesce
            && !t.sync_due()
            && !t.think_due(now)
    }

    /// An `O_SYNC` write of clone `i` reached the device: its flush follows before the call
    /// returns. False if `id` is not such a write (or its flush is the one that finished).
    pub(super) fn flush_after_write<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        id: u32,
        now: SimTime,
    ) -> bool {
        let io = &mut self.ios[id];
        if io.dir != Direction::Write || io.sync != SyncCall::No || io.bytes == 0 {
            return false;
        }
        io.sync = SyncCall::Flushing;
        let t = &self.clones[i].thread;
        let path = if t.engine.polled {
            CompletionPath::Polled
        } else {
            CompletionPath::Interrupt { core: t.irq_core, work: t.engine.irq_work }
        };
        let flush = IoRequest { opcode: Opcode::Flush, offset_bytes: 0, bytes: 0, placement: None };
        self.submit_request(host, i, id, flush, path, now);
        true
    }

    /// The bare host's shortcut: a thread blocked on its one completion reaps it and issues
    /// the next I/O at once, as the loop would at no cost. False if the case is not that
    /// simple (the loop then handles it).
    #[inline]
    pub(super) fn replace_directly<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        id: u32,
        now: SimTime,
    ) -> bool {
        let c = &self.clones[i];
        let t = &c.thread;
        if !t.engine.direct
            || !matches!(t.step, Step::Blocked { need: 1, .. })
            || !t.visible.is_empty()
            || t.think_total > SimDuration::ZERO
            || t.sync_due()
            || c.stopped
            || t.depth_cap != u32::MAX
            || c.control.is_some()
        {
            return false;
        }
        self.complete(i, id, now);
        let c = &mut self.clones[i];
        let dir = c.next_dir();
        if c.out_of_work(now) || c.rate_allows_at(dir) > now {
            c.thread.step = Step::Idle;
            return true;
        }
        let next = self.prepare_io(host, i, now);
        self.send_io(host, i, next, now);
        true
    }

    /// Whether, after reaping `n` completions, clone `i`'s loop goes straight on to issue one
    /// I/O that ends by `end` and nothing else could happen first: fio's loop with one I/O
    /// per submit call, no rate, thinktime or low-water mark to wait for, and work left.
    pub(super) fn issues_after_reap(&self, i: CloneId, n: u32, end: SimTime) -> bool {
        let c = &self.clones[i];
        let t = &c.thread;
        let e = &t.engine;
        let used = t.depth_used() - n;
        e.kind != EngineKind::KernelCallback
            && !e.null
            && e.batch_submit == 1
            && used < e.depth.min(t.depth_cap)
            && !t.quiesce
            && !(t.draining && used > e.low)
            && t.queued.is_empty()
            && t.think_total == SimDuration::ZERO
            && !t.sync_due()
            && !c.stopped
            && !c.rate_limited()
            && c.control.is_none()
            && !c.out_of_work(end)
    }

    /// After a reap and an issue: if clone `i`'s queue is full again with nothing visible,
    /// the thread blocks for a completion, as the loop would decide (`next_action`'s
    /// `wait_for_completions`, then `drive`'s wait) in the simple case `issues_after_reap`
    /// admitted; the common case of a thread at its depth, decided without the loop.
    pub(super) fn block_if_full(&mut self, i: CloneId, now: SimTime) {
        let c = &mut self.clones[i];
        let t = &mut c.thread;
        let used = t.depth_used();
        if c.stopped || !t.visible.is_empty() || t.quiesce || used < t.engine.depth || t.sync_due() {
            return;
        }
        let need = t.start_draining();
        self.block(i, need, now);
    }

    /// Clone `i`'s thread waits from `now` for `need` visible completions: asleep (a
    /// context switch) unless its engine polls or costs nothing.
    pub(super) fn block(&mut self, i: CloneId, need: u32, now: SimTime) {
        let c = &mut self.clones[i];
        c.thread.step = Step::Blocked { need, since: now };
        if !c.thread.engine.polled && !c.thread.engine.free {
            c.thread.ctx += 1;
        }
    }

    /// Reaps `n` visible completions of clone `i`; fio timestamps them when the reap
    /// call returned, before its own accounting.
    pub(super) fn reap(&mut self, i: CloneId, now: SimTime, n: u32) {
        let account = self.clones[i].thread.engine.account.times(u64::from(n));
        let at = now.saturating_sub(account);
        for _ in 0..n {
            let id = self.clones[i].thread.visible.pop_front().expect("reaping only what is visible");
            self.complete(i, id, at);
        }
        self.stop_draining_if_low(i);
    }

    /// After a reap: clone `i` stops draining once at most `iodepth_low` are in use.
    pub(super) fn stop_draining_if_low(&mut self, i: CloneId) {
        let t = &mut self.clones[i].thread;
        if t.draining && t.depth_used() <= t.engine.low {
            t.draining = false;
        }
    }
}
