//! A completed I/O counted: its clone's statistics, logs, rate and latency checks.

use super::super::Direction;
use super::latency::{self, Verdict};
use super::{InFlightIo, Runner, SyncCall, Timer};
use crate::engine::SimTime;
use crate::os::CloneId;

impl Runner {
    /// Records the completion of I/O `id` of clone `i`, seen by fio at `at`.
    #[inline]
    pub(super) fn complete(&mut self, i: CloneId, id: u32, at: SimTime) {
        let InFlightIo { dir, offset, bytes, start, issue, sync, prio, .. } = self.ios[id];
        self.ios.free(id);
        let sample_window = self.sample_window;
        let c = &mut self.clones[i];
        if dir == Direction::Write
            && let Some(v) = c.verify_mut()
        {
            v.write_completed(offset);
        }
        if matches!(sync, SyncCall::Periodic | SyncCall::End) {
            if sync == SyncCall::Periodic && at >= c.ramp_end && at <= c.deadline {
                c.result.sync_lat.record(at.since(start).as_ns());
            }
            return;
        }
        if !c.thread.think_on_issue {
            c.thread.think_counter += 1;
        }
        c.done_ios += 1;
        c.done_bytes += bytes;
        self.io_windows.record(dir, bytes, at.since(start).as_ns());
        if at < c.ramp_end || at > c.deadline {
            return;
        }
        let clat = at.since(issue).as_ns();
        let slat = issue.since(start).as_ns();
        let stats = &mut c.result.dirs[dir.index()];
        stats.io_bytes += bytes;
        stats.total_ios += 1;
        if c.sync_engine {
            stats.latency.record_without_slat(slat + clat, clat);
        } else {
            stats.latency.record(slat, clat);
        }
        if let Some(p) = stats.prios.get_mut(usize::from(prio)) {
            p.record(clat);
        }
        c.close_sample_windows(at, sample_window);
        let window = &mut c.windows[dir.index()];
        window.bytes += bytes;
        window.ios += 1;
        if let Some(check) = c.rate_check.as_mut()
            && c.result.error.is_none()
            && let Some(failure) = check.on_completion(dir.index(), bytes, at, c.start, &c.result.name)
        {
            // fio's do_io: the job ends with EIO, and under exitall ends others too.
            c.result.error = Some(failure);
            if at < c.deadline {
                c.deadline = at;
                self.timers.push(at, Timer::Deadline(i));
            }
            if self.exitall {
                let (group, what) = (self.clones[i].group, self.clones[i].exit_what);
                self.terminate_others(i, group, what, at);
            }
        }
        if self.clones[i].control.as_ref().is_some_and(|c| c.latency.is_some()) {
            self.check_latency(i, dir, at.since(start).as_ns(), at);
        }
        let c = &mut self.clones[i];
        let since = at.since(c.ramp_end).as_ns();
        // The log is borrowed only after the clone has given the offset and priority.
        #[allow(clippy::unnecessary_unwrap)]
        if c.logs.is_some() {
            // fio logs the offset in the file (on a device, the device is the file).
            let in_file = offset - c.file_at(offset).1.0;
            let logged_slat = if c.sync_engine { 0 } else { slat };
            let priority = c.priority().map_or(c.own_priority, |p| p.priority(dir, prio));
            // A log file that cannot be written ends the run when the clone finishes.
            let logs = c.logs.as_mut().expect("checked above");
            logs.record(since, dir, logged_slat, clat, bytes, in_file, priority).ok();
        }
        self.bytes_done += bytes;
    }

    /// Clone `i`'s measured I/O in `dir` completed at `at` after `total_ns`: its latency
    /// limits fail the job or move its depth.
    #[cold]
    pub(super) fn check_latency(&mut self, i: CloneId, dir: Direction, total_ns: u64, at: SimTime) {
        let c = &mut self.clones[i];
        let control = c.control.as_deref_mut().and_then(|c| c.latency.as_mut()).expect("checked by the caller");
        match control.on_completion(dir.index(), total_ns, at, c.done_ios, &c.result.name) {
            Ok(Verdict::Continue) => {}
            Ok(Verdict::Quiesce) => c.thread.quiesce = true,
            Ok(Verdict::FinalRun) => {
                c.thread.quiesce = true;
                let runtime = self.runtimes[c.result.job];
                c.restart_measurement(at, runtime, self.sample_window);
                if c.deadline != SimTime::NEVER {
                    self.timers.push(c.deadline, Timer::Deadline(i));
                }
            }
            Ok(Verdict::Done) => {
                if at < c.deadline {
                    c.deadline = at;
                    self.timers.push(at, Timer::Deadline(i));
                }
            }
            Err(failure) => {
                if c.result.error.is_none() {
                    c.result.error = Some(failure);
                    if at < c.deadline {
                        c.deadline = at;
                        self.timers.push(at, Timer::Deadline(i));
                    }
                }
            }
        }
        let c = &mut self.clones[i];
        let latency = c.control.as_deref().and_then(|c| c.latency.as_ref());
        c.thread.depth_cap = latency.map_or(u32::MAX, latency::LatencyControl::depth);
        c.result.latency_depth = latency.and_then(latency::LatencyControl::reported_depth);
    }
}
