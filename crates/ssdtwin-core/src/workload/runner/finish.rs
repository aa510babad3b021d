//! Clones ending: their bookkeeping when their thread is done, `exitall`'s terminations,
//! `wait_for`'s waiters started, and the run's result once all are done.

use super::super::{Direction, DiskUtil, ExitWhat, GroupResult, JobFailure, JobResult, RunResult};
use super::event_loop::counter_row;
use super::thread::Step;
use super::{RunError, RunOptions, Runner, Timer, clone_ids};
use crate::block::BlockDevice;
use crate::engine::SimTime;
use crate::os::{CloneId, Host};

impl Runner {
    /// Wakes `clones` waiting for their flow's count to move.
    pub(super) fn wake(&mut self, clones: &[CloneId], now: SimTime) {
        for &j in clones {
            let t = &self.clones[j].thread;
            if matches!(t.step, Step::Sleeping { .. }) {
                let (rank, timer) = Timer::resume(j, t.generation);
                self.timers.push_ranked(now, rank, timer);
            }
        }
    }

    /// fio's `exitall`: clone `i` (of reporting group `g`) finished, so end the clones
    /// `exit_what` names, as fio's `fio_terminate_threads` does: running ones stop issuing
    /// now (their I/O in flight completes), ones not started yet end as they start.
    pub(super) fn terminate_others(&mut self, i: CloneId, g: usize, exit_what: ExitWhat, now: SimTime) {
        if exit_what == ExitWhat::All {
            self.terminate_all = true;
        }
        for j in clone_ids(0..self.clones.len()) {
            let c = &mut self.clones[j];
            let chosen = match exit_what {
                ExitWhat::Group => c.group == g,
                ExitWhat::Stonewall => c.started,
                ExitWhat::All => true,
            };
            if j == i || c.finished || !chosen {
                continue;
            }
            if !c.started {
                c.end_at_start();
            } else if now < c.deadline {
                c.deadline = now;
                self.timers.push(now, Timer::Deadline(j));
            }
        }
    }

    /// Finishes clone `i`'s bookkeeping once its thread is done.
    #[inline]
    pub(super) fn check_finished<D: BlockDevice>(
        &mut self,
        host: &Host<D>,
        i: CloneId,
        now: SimTime,
    ) -> Result<(), RunError> {
        let c = &self.clones[i];
        if !matches!(c.thread.step, Step::Done) || c.finished || !c.started {
            return Ok(());
        }
        self.finish_clone(host, i, now)
    }

    #[cold]
    pub(super) fn finish_clone<D: BlockDevice>(
        &mut self,
        host: &Host<D>,
        i: CloneId,
        now: SimTime,
    ) -> Result<(), RunError> {
        let c = &mut self.clones[i];
        c.finished = true;
        self.unfinished -= 1;
        let end = now.min(c.deadline);
        c.close_sample_windows(end, self.sample_window);
        c.result.end_ns = end.since(self.run_start).as_ns();
        let measured = end.since(c.ramp_end).as_ns();
        let replaying = c.replaying();
        for dir in Direction::ALL {
            // A trace may hold trims beside reads and writes.
            if c.rw.uses(dir) || (replaying && c.result.dirs[dir.index()].io_bytes > 0) {
                c.result.dirs[dir.index()].runtime_ns = measured;
            }
        }
        if let Some(message) = c.control.as_deref_mut().and_then(|x| x.replay.as_mut()).and_then(|r| r.error.take()) {
            c.result.error = Some(JobFailure { errno: 5, func: "read_iolog", message });
        }
        if let Some(log) = c.control.as_deref_mut().and_then(|x| x.iolog.take()) {
            let path = log.path().display().to_string();
            log.finish().map_err(|e| RunError::LogFile { path, reason: e.to_string(), kind: e.kind() })?;
        }
        if let Some(v) = c.control.as_deref_mut().and_then(|c| c.verify.as_mut()).filter(|v| v.logs_writes()) {
            // fio's update_runtime: each direction's time is that of the phases it ran in.
            v.close(c.ramp_end, end);
            for dir in Direction::ALL {
                let d = &mut c.result.dirs[dir.index()];
                d.runtime_ns = match dir {
                    Direction::Read if c.rw.uses(dir) => v.io_ns + v.verify_ns,
                    Direction::Read => v.verify_ns,
                    _ if c.rw.uses(dir) => v.io_ns,
                    _ => 0,
                };
            }
        }
        if let Some(logs) = c.logs.as_mut() {
            logs.finish(measured)?;
        }
        let (g, job, exit_what) = (c.group, c.result.job, c.exit_what);
        if let Some(member) = c.control.as_deref_mut().and_then(|c| c.flow.take()) {
            let woken = self.flows.leave(&member);
            self.wake(&woken, now);
        }
        self.job_clones_left[job] -= 1;
        if self.job_clones_left[job] == 0 {
            for w in std::mem::take(&mut self.waiters[job]) {
                let start = self.clones[w].delay_start(now);
                self.timers.push(start, Timer::Start(w));
            }
        }
        if self.exitall {
            self.terminate_others(i, g, exit_what, now);
        }
        let group = &mut self.groups[g];
        group.clones_left -= 1;
        if group.clones_left == 0 {
            let end_counters = counter_row(host, end.since(self.run_start).as_ns());
            let start = group.start.unwrap_or(now);
            group.result = Some(GroupResult {
                groupid: g as u32,
                start_ns: start.since(self.run_start).as_ns(),
                end_ns: end.since(self.run_start).as_ns(),
                counters_start: group.counters_start.take().unwrap_or_else(|| end_counters.clone()),
                counters_end: end_counters,
            });
        }
        Ok(())
    }

    pub(super) fn finish<D: BlockDevice>(
        self,
        host: &Host<D>,
        end: SimTime,
        disk_start: &crate::os::DiskStats,
        opts: &RunOptions,
    ) -> RunResult {
        let total = end.since(self.run_start).as_ns().max(1);
        let d = host.disk().since(disk_start);
        let disk = DiskUtil {
            name: opts.device_name.clone(),
            read_ios: d.read_ios,
            write_ios: d.write_ios,
            read_ticks_ms: d.read_ns / 1_000_000,
            write_ticks_ms: d.write_ns / 1_000_000,
            in_queue_ms: d.in_queue_ns / 1_000_000,
            util_pct: (d.busy_ns as f64 / total as f64 * 100.0).min(100.0),
        };
        RunResult {
            jobs: self
                .clones
                .into_iter()
                .map(|c| JobResult {
                    usr_ns: c.thread.usr_ns,
                    sys_ns: c.thread.sys_ns,
                    ctx: c.thread.ctx,
                    zone_resets: c.zbd.as_ref().map_or(0, |z| z.resets),
                    ..c.result
                })
                .collect(),
            groups: self.groups.into_iter().filter_map(|g| g.result).collect(),
            disk,
            series: self.series,
            windows: self.windows,
            start_ns: self.run_start.as_ns(),
            end_ns: end.as_ns(),
            profile: host.target_profile().to_string(),
            host: host.config().name.clone(),
        }
    }
}
