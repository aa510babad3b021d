//! A phase set up: the clones of the jobs between two `stonewall`s made (each with its
//! thread, files, logs and trace), their starts armed, and the threads that may see their
//! completions ahead marked.

use super::super::files::PlacedFile;
use super::super::logs::JobLogs;
use super::super::trace::IologWriter;
use super::super::{JobError, JobSet, JobSpec};
use super::clone::{CloneSetup, JobClone};
use super::engine_run::EngineRun;
use super::jitter::CpuDraws;
use super::placement::pick_core;
use super::replay::ReplayCursor;
use super::thread::ThreadState;
use super::{Group, RunError, RunOptions, Runner, Timer, clone_ids};
use crate::block::BlockDevice;
use crate::engine::{SimDuration, SimTime};
use crate::os::Host;
use std::ops::Range;

impl Runner {
    /// Marks the clones of the phase from `first_clone` that see their completions ahead
    /// ([`ThreadState::sees_ahead`]): each with a plain loop whose wakeup costs CPU time,
    /// alone on its core, in a phase with no mmap clone, while virtual memory is not in use
    /// (kswapd books work on a core of its own choosing), and in a run without `exitall` or
    /// steady-state tracking (which stop clones at times of their own).
    ///
    /// Why a wakeup booked ahead is the same: the thread's work is the only task work on
    /// its core, so it starts when its handler ends; handlers that arrive before then on
    /// that core queue behind that one and take their time from the booking (`Cpu::irq`,
    /// `Cpu::settle`), so the work ends when it would have started after them and run; and
    /// nothing else the thread's wakeup reads changes meanwhile (its earlier completions
    /// are counted in `handlers_pending`, its deadline is checked against the work's end).
    pub(super) fn mark_sees_ahead<D: BlockDevice>(&mut self, host: &Host<D>, first_clone: usize) {
        let phase = &mut self.clones[first_clone..];
        if self.exitall || !self.steady.is_empty() || host.vm_in_use() || phase.iter().any(|c| c.thread.engine.mmap) {
            return;
        }
        let mut on_core = vec![0u32; host.config().cores as usize];
        for c in phase.iter() {
            on_core[c.thread.core.0 as usize] += 1;
        }
        for c in phase {
            // Work that costs nothing would take effect when booked, ahead of its time.
            let (user, sys) = c.thread.wakeup_work.cpu();
            let costs = user + sys > SimDuration::ZERO;
            c.thread.sees_ahead = c.thread.plain_loop && costs && on_core[c.thread.core.0 as usize] == 1;
        }
    }
}

/// How a run numbers its clones as it makes them: fio's thread numbers (from 1, across
/// the run) and the first random stream of each clone's files.
#[derive(Default)]
pub(super) struct Numbering {
    pub thread_number: u32,
    pub next_stream: u32,
}

impl Runner {
    /// Makes the clones of jobs `jobs` (one phase), with their files `placed` (one entry per
    /// clone, in order), at the host's present.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add_clones<D: BlockDevice>(
        &mut self,
        host: &Host<D>,
        set: &JobSet,
        jobs: Range<usize>,
        engines: &[EngineRun],
        groupids: &[u32],
        placed: Vec<Vec<PlacedFile>>,
        opts: &RunOptions,
        numbering: &mut Numbering,
    ) -> Result<(), RunError> {
        let ns_bytes = host.geometry().capacity_bytes();
        let mut placed = placed.into_iter();
        let now = host.now();
        for j in jobs {
            let spec = &set.jobs[j];
            let g = groupids[j] as usize;
            while self.groups.len() <= g {
                self.groups.push(Group { clones_left: 0, start: None, counters_start: None, result: None });
            }
            for k in 0..spec.numjobs {
                numbering.thread_number += 1;
                let thread_number = numbering.thread_number;
                let core = pick_core(spec, k, thread_number, host.config());
                let mut thread = ThreadState::new(engines[j].clone(), spec, core, host.irq_core(core));
                thread.flush_sync_writes = opts.fs_syncs && spec.sync_writes && thread.engine.buffered.is_none();
                let h = host.config();
                thread.cpu_draws = CpuDraws::new(h.wakeup, h.cpu_jitter, opts.seed, thread_number);
                let logs =
                    JobLogs::open(spec, thread_number, &opts.log_dir, !super::super::is_sync_engine(&spec.ioengine))?;
                let files = placed.next().expect("one placement per clone");
                let stream_base = numbering.next_stream;
                numbering.next_stream += files.len() as u32;
                let replay = open_replay(spec, k, now)?;
                let iolog = open_iolog(spec, k, opts)?;
                let mut clone = JobClone::new(CloneSetup {
                    spec,
                    job: j,
                    clone: k,
                    group: g,
                    thread_number,
                    seed: opts.seed,
                    namespace_bytes: ns_bytes,
                    files,
                    stream_base,
                    sample_window: self.sample_window,
                    now,
                    logs,
                    thread,
                    host: host.config(),
                    replay,
                    iolog,
                    placement_handles: host.geometry().placement_handles,
                });
                if let Some(l) = clone.control.as_ref().and_then(|c| c.latency.as_ref()) {
                    clone.thread.depth_cap = l.depth();
                    clone.result.latency_depth = l.reported_depth();
                }
                clone.thread.plain_loop = clone.plain_loop();
                self.groups[g].clones_left += 1;
                self.job_clones_left[j] += 1;
                self.unfinished += 1;
                self.clones.push(clone);
            }
        }
        Ok(())
    }

    /// Arms the starts of the clones from `first_clone` (the phase's, whose first job is
    /// `phase_start_job`): at their start time, or when the job they wait for ends.
    pub(super) fn arm_starts(&mut self, set: &JobSet, first_clone: usize, phase_start_job: usize) {
        for i in clone_ids(first_clone..self.clones.len()) {
            if self.terminate_all {
                self.clones[i].end_at_start();
            }
            // A clone waiting for a job of this phase starts when that job's last clone ends.
            let spec = &set.jobs[self.clones[i].result.job];
            let waitee = spec.wait_for.as_ref().and_then(|name| set.jobs.iter().position(|s| &s.name == name));
            match waitee {
                Some(w) if w >= phase_start_job && self.job_clones_left[w] > 0 => self.waiters[w].push(i),
                _ => {
                    let start = self.clones[i].start;
                    self.timers.push(start, Timer::Start(i));
                }
            }
        }
    }
}

/// Clone `k` of `spec`'s trace cursor, if it replays one (clones take the traces in turn),
/// starting when the clone does.
fn open_replay(spec: &JobSpec, k: u32, now: SimTime) -> Result<Option<ReplayCursor>, RunError> {
    Ok(match &spec.replay {
        Some(r) => {
            let path = &r.paths[k as usize % r.paths.len()];
            let start = now + SimDuration(spec.startdelay_ns);
            let cursor = ReplayCursor::open(path, r.options, start)
                .map_err(|problem| JobError::Invalid { job: spec.name.clone(), problem })?;
            Some(cursor)
        }
        None => None,
    })
}

/// Clone `k` of `spec`'s `write_iolog` writer, if it writes one.
fn open_iolog(spec: &JobSpec, k: u32, opts: &RunOptions) -> Result<Option<IologWriter>, RunError> {
    Ok(match &spec.write_iolog {
        // Clone k > 0 writes its own log beside the first (`PATH.k`).
        Some(path) => {
            let path = if k == 0 { path.clone() } else { format!("{path}.{k}") };
            let file = spec.filename.clone().unwrap_or_else(|| format!("/dev/{}", opts.device_name));
            let w = IologWriter::create(std::path::Path::new(&path), &file, true).map_err(|e| RunError::LogFile {
                path: path.clone(),
                reason: e.to_string(),
                kind: e.kind(),
            })?;
            Some(w)
        }
        None => None,
    })
}
