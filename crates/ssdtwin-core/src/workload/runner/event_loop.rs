//! The run's event loop: the host's next event or the runner's next timer (thread
//! timers, starts, ramp ends, deadlines, steady-state samples), host first on ties, with
//! the counter series sampled as simulated time passes.

use super::{MAX_SERIES_ROWS, Progress, RunError, Runner, Timer};
use crate::block::{BlockDevice, CounterRow};
use crate::engine::SimTime;
use crate::os::vm::{Backing, VmCtx};
use crate::os::{Host, IoTag};

impl Runner {
    pub(super) fn run_phase<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        observe: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<(), RunError> {
        loop {
            let t_host = host.poll_at();
            let t_run = self.timers.peek_time();
            let t = t_host.min(t_run);
            if t == SimTime::NEVER {
                if self.unfinished > 0 {
                    return Err(RunError::Stalled { time_ns: host.now().as_ns(), in_flight: host.target_in_flight() });
                }
                break;
            }
            if t >= self.next_sample {
                self.sample_series_until(host, t, false);
                if self.series.len() > MAX_SERIES_ROWS {
                    return Err(RunError::SeriesTooLong {
                        rows: MAX_SERIES_ROWS,
                        window_ns: self.series_window.as_ns(),
                    });
                }
            }
            if t_host <= t_run {
                if let Some(done) = host.poll_early() {
                    let IoTag { clone: i, io: id } = IoTag::from_caller_tag(done.tag);
                    if done.visible > t {
                        // Posted now, seen when its interrupt handler ends.
                        self.on_posted(host, done);
                    } else {
                        if std::mem::take(&mut self.ios[id].handed_back) {
                            // Its handler has ended. (Not every completion seen after its
                            // device time was handed back: a coalesced one comes from the
                            // host at its handler's end.)
                            self.clones[i].thread.handlers_pending -= 1;
                        }
                        // The next completion's thread is warmed while this one is handled.
                        if let Some(next) = host.next_visible()
                            && let Some(c) = self.clones.get(IoTag::from_caller_tag(next).clone.index())
                        {
                            crate::engine::prefetch_ref(&c.thread.step);
                            crate::engine::prefetch_ref(&c.thread.in_device);
                        }
                        self.on_visible(host, i, id, done.visible);
                        self.drive(host, i, done.visible);
                        self.check_finished(host, i, done.visible)?;
                    }
                }
            } else {
                let (now, timer) = self.timers.pop().expect("peeked a timer");
                self.on_timer(host, now, timer)?;
            }
            self.steps += 1;
            if self.steps.trailing_zeros() >= 16 && !observe(&self.progress(host)) {
                return Err(RunError::Cancelled);
            }
            if self.unfinished == 0 {
                // Background work (GC) may go on; the next phase or whoever drives the
                // target next finishes it.
                break;
            }
        }
        Ok(())
    }

    /// The time of the last event processed, by the runner or the target.
    pub(super) fn last_event<D: BlockDevice>(&self, host: &Host<D>) -> SimTime {
        let clones_end = self.clones.iter().map(|c| SimTime(self.run_start.as_ns() + c.result.end_ns)).max();
        host.now().max(clones_end.unwrap_or(self.run_start))
    }

    pub(super) fn progress<D: BlockDevice>(&self, host: &Host<D>) -> Progress {
        let deadlines: Option<Vec<SimTime>> =
            self.clones.iter().map(|c| (c.deadline != SimTime::NEVER).then_some(c.deadline)).collect();
        let budgets: Option<u64> = self.clones.iter().map(|c| c.budget_bytes).sum();
        Progress {
            elapsed_ns: host.now().since(self.run_start).as_ns(),
            expected_ns: deadlines.and_then(|d| d.into_iter().max()).map(|t| t.since(self.run_start).as_ns()),
            bytes_done: self.bytes_done,
            bytes_expected: budgets,
        }
    }

    pub(super) fn sample_series_until<D: BlockDevice>(&mut self, host: &Host<D>, t: SimTime, include_end: bool) {
        while self.next_sample <= t && self.series.len() <= MAX_SERIES_ROWS {
            let time_ns = self.next_sample.since(self.run_start).as_ns();
            self.series.push(counter_row(host, time_ns));
            self.windows.push(self.io_windows.take(time_ns));
            self.next_sample += self.series_window;
        }
        let end_ns = t.since(self.run_start).as_ns();
        if include_end && self.series.last().is_none_or(|s| s.time_ns < end_ns) {
            self.series.push(counter_row(host, end_ns));
            self.windows.push(self.io_windows.take(end_ns));
        }
    }

    pub(super) fn on_timer<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        now: SimTime,
        timer: Timer,
    ) -> Result<(), RunError> {
        let i = match timer {
            Timer::Start(i) => {
                let c = &mut self.clones[i];
                c.started = true;
                c.result.start_ns = now.since(self.run_start).as_ns();
                c.result.ramp_end_ns = c.ramp_end.since(self.run_start).as_ns();
                c.thread.last_think = now;
                if let Some(control) = c.control.as_deref_mut()
                    && let Some(spec) = control.flow_spec
                {
                    control.flow = Some(self.flows.join(&spec));
                }
                if c.thread.engine.mmap {
                    // fio's mmap engine maps each file whole, then advises the mapping.
                    let hint = c.thread.mmap_hint;
                    let extents: Vec<(u64, u64)> = c.file_extents().collect();
                    for (start, end) in extents {
                        let page = host.config().vm.as_ref().expect("the engine checked").page_bytes;
                        let backing = Backing::File { offset_bytes: start, sparse: false };
                        let m = host.vm_map((end - start).div_ceil(page), backing);
                        if let Some(advice) = hint {
                            let ctx = VmCtx { core: c.thread.core, tag: 0, resumed: false };
                            host.vm_madvise(now, now, ctx, m, 0, (end - start).div_ceil(page), advice);
                        }
                        c.thread.mmaps.push((start, end, m));
                    }
                }
                if c.thread.engine.buffered.is_some() {
                    // fio opens the file: it reads it in (`pre_read`) or drops what the
                    // cache holds of it (`invalidate`, the default).
                    for (start, end) in c.file_regions() {
                        if c.thread.pre_read {
                            host.pre_read(start, end);
                        } else if c.thread.invalidate {
                            host.invalidate(start, end);
                        }
                    }
                }
                let g = c.group;
                let (ramp_end, deadline) = (c.ramp_end, c.deadline);
                self.groups[g].start.get_or_insert(now);
                if ramp_end == now {
                    // No ramp: the group's counters start before its first command.
                    self.snapshot_group_start(host, g, now);
                } else {
                    self.timers.push(ramp_end, Timer::RampEnd(i));
                }
                if deadline != SimTime::NEVER {
                    self.timers.push(deadline, Timer::Deadline(i));
                }
                let c = &mut self.clones[i];
                // A replaying clone takes its I/O from its trace, never decided ahead.
                if !c.replaying() {
                    let first = c.decide();
                    c.ahead.push_back(first);
                }
                self.drive(host, i, now);
                i
            }
            Timer::Resume { clone, generation } => {
                self.resume(host, clone, generation, now);
                clone
            }
            Timer::RampEnd(i) => {
                let g = self.clones[i].group;
                self.snapshot_group_start(host, g, now);
                return Ok(());
            }
            Timer::Deadline(i) => {
                if now < self.clones[i].deadline {
                    // The deadline moved later (a latency target's final run restarted it).
                    return Ok(());
                }
                self.clones[i].stopped = true;
                self.interrupt_sleep(host, i, now);
                i
            }
            Timer::Steady(n) => {
                self.sample_steady_state(n as usize, now);
                return Ok(());
            }
        };
        self.check_finished(host, i, now)
    }

    /// Records the counters a group's statistics start from (its first ramp end).
    pub(super) fn snapshot_group_start<D: BlockDevice>(&mut self, host: &Host<D>, g: usize, now: SimTime) {
        if self.groups[g].counters_start.is_none() {
            let s = counter_row(host, now.since(self.run_start).as_ns());
            self.groups[g].counters_start = Some(s);
        }
    }
}

/// The target's counters, then the host's (none for the bare twin), taken at `time_ns`
/// since the run started.
pub(super) fn counter_row<D: BlockDevice>(host: &Host<D>, time_ns: u64) -> CounterRow {
    let mut row = CounterRow::at(time_ns);
    host.target_counters("", &mut row);
    host.counters("host", &mut row);
    row
}
