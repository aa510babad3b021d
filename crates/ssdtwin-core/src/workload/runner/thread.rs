//! A clone's thread on a host core, running fio's I/O loop with its engine's costs.
//!
//! Read first: fio's `backend.c` (`do_io`, `wait_for_completions`), `ioengines.c`
//! (`td_io_queue`, `td_io_commit`, `td_io_getevents`) and `init.c` (the option fix-ups
//! quoted below); `docs/model.md` § "Host stack" lists what is simplified.
//!
//! The loop, per engine kind ([`EngineKind`]):
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
//! * `Idle`: runnable now; [`Runner::drive`] picks its next action;
//! * `Cpu`: its work is booked and takes effect at the booking's end (`then`);
//! * `Blocked`: waiting for `need` visible completions (asleep, or spinning when polled);
//! * `Sleeping`: thinktime or a rate limit; a timer makes it `Idle`;
//! * `Done`: stopped with nothing in flight.
//!
//! fio's timestamps: an I/O starts when its preparation starts, is issued when the submit
//! call that carried it returns (synchronous engines: when the call starts) and completes
//! when the reap call that found it returns. slat = issue − start, clat = complete − issue.

use super::super::trace::TraceOp;
use super::super::{Direction, JobError, JobSpec};
use super::replay::ReplayCursor;
use super::verify::Phase;
use super::{InFlightIo, Runner, SyncCall, Timer};
use crate::block::{BlockDevice, Opcode};
use crate::engine::{SimDuration, SimTime};
use crate::os::{
    Booking, BufferedIo, BufferedStart, CloneId, CompletionPath, CoreId, EngineKind, Host, HostConfig, IoDone,
    IoRequest, IoTag,
};
use std::collections::VecDeque;

/// An engine as one job runs it: fio's batching options resolved and the host's costs
/// combined per step.
// Each flag is one way an engine runs, as fio and the host decide it.
#[allow(clippy::struct_excessive_bools)]
// Fields in declaration order (`repr(C)`): what each I/O's turns read comes first.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct EngineRun {
    /// Queue depth (1 for synchronous engines).
    pub depth: u32,
    pub batch_submit: u32,
    pub complete_min: u32,
    pub complete_max: u32,
    pub low: u32,
    pub kind: EngineKind,
    /// Completions are polled for (hipri), not interrupts.
    pub polled: bool,
    /// No device I/O at all (fio's null engine).
    pub null: bool,
    /// The bare host: no threads, so nothing sleeps and nothing is counted as a context
    /// switch.
    pub free: bool,
    /// On the bare host, with one I/O per submit and reap: each completion is reaped and
    /// replaced on the spot, the one path [`Runner::on_visible`] takes without going
    /// through the loop (the loop would do the same at no cost; `tests/agreement.rs`
    /// checks they agree).
    pub direct: bool,
    /// fio's mmap engine: each I/O is a copy through the file's mapping (the host's VM).
    pub mmap: bool,
    /// User-space work per I/O before submission.
    pub prep: SimDuration,
    /// User-space work per I/O completed.
    pub account: SimDuration,
    /// Per submit call.
    pub submit_call: SimDuration,
    /// Per I/O submitted: engine, block layer and file system.
    pub submit_io: SimDuration,
    /// Per reap call.
    pub reap_call: SimDuration,
    /// Per I/O reaped.
    pub reap_io: SimDuration,
    /// Per dispatch, a non-blocking extra reap call.
    pub lookaside: SimDuration,
    /// Interrupt handler work per I/O (block layer and engine).
    pub irq_work: SimDuration,
    /// A blocked thread woken; ring-based engines also make the waiting system call.
    pub wake: SimDuration,
    /// Buffered I/O (`direct=0`): the page cache's CPU costs per call.
    pub buffered: Option<BufferedCosts>,
    /// Per completion found by polling.
    pub poll_io: SimDuration,
}

/// The CPU work of a thread's common wakeup: the reap of the one completion that woke it,
/// then the issue of one I/O, as one piece (fixed for an engine, summed once).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WakeupWork {
    pub user: SimDuration,
    pub sys: SimDuration,
    /// The issue's part, which ends the work.
    pub issue: SimDuration,
}

/// What a buffered call costs its thread beyond the engine's system call: the copy and
/// the per-page work, booked when the call returns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BufferedCosts {
    pub page_bytes: u64,
    pub copy_per_kib: SimDuration,
    pub read_page: SimDuration,
    pub write_page: SimDuration,
}

impl BufferedCosts {
    fn call(&self, dir: Direction, bytes: u64) -> SimDuration {
        let pages = bytes.div_ceil(self.page_bytes);
        let per_page = if dir == Direction::Write { self.write_page } else { self.read_page };
        SimDuration(self.copy_per_kib.as_ns() * bytes / 1024) + per_page.times(pages)
    }
}

impl EngineRun {
    /// CPU time (user, system) of a reap call that finds `n` completions, with the wakeup
    /// if the thread slept (`woken`); buffered copies and verification checks come on top.
    #[inline]
    fn reap_cpu(&self, n: u32, woken: bool) -> (SimDuration, SimDuration) {
        let mut sys = self.reap_call + self.reap_io.times(u64::from(n));
        if woken {
            sys += self.wake;
        }
        (self.account.times(u64::from(n)), sys)
    }

    /// CPU time (user, system) of preparing one I/O and submitting it alone.
    #[inline]
    fn issue_one_cpu(&self) -> (SimDuration, SimDuration) {
        (self.prep, self.submit_call + self.submit_io + self.lookaside)
    }

    /// The common wakeup's work (`Runner::wake_to_reap_one_and_issue`).
    fn wakeup_work(&self) -> WakeupWork {
        let (reap_user, reap_sys) = self.reap_cpu(1, true);
        let (issue_user, issue_sys) = self.issue_one_cpu();
        WakeupWork { user: reap_user + issue_user, sys: reap_sys + issue_sys, issue: issue_user + issue_sys }
    }

    /// The engine `spec` names on `host`, or why it cannot run there.
    // One check or cost per engine option, in turn: read top to bottom.
    #[allow(clippy::too_many_lines)]
    pub(crate) fn resolve(spec: &JobSpec, host: &HostConfig, on_file: bool) -> Result<Self, JobError> {
        let invalid = |problem: String| JobError::Invalid { job: spec.name.clone(), problem };
        let name = spec.ioengine.as_str();
        let fio = super::super::fio_engine(name).ok_or_else(|| {
            invalid(format!(
                "ioengine={name} is not an I/O engine fio knows; allowed {}",
                super::super::modelled_engine_names().join(", ")
            ))
        })?;
        if let super::super::Support::Refused(why) = fio.support {
            return Err(invalid(format!("ioengine={name} is not supported by ssdtwin: {why}")));
        }
        let page_cache = host.page_cache.as_ref();
        let mmap = fio.maps_file;
        if mmap && !host.is_none() && host.vm.is_none() {
            return Err(invalid(format!(
                "ioengine=mmap needs a host with virtual memory ([vm]); host {} has none (linux-3.6, linux-4.15 and linux-6.1 do)",
                host.name
            )));
        }
        if mmap && host.is_none() {
            return Err(invalid(
                "ioengine=mmap needs a host with virtual memory; the bare twin (--host none) has none".into(),
            ));
        }
        if !spec.direct && page_cache.is_none() && !mmap {
            return Err(invalid(format!(
                "direct=0 (buffered I/O) needs a host with a page cache; host {} has none (linux-4.15 and linux-6.1 do)",
                host.name
            )));
        }
        let zero = SimDuration::ZERO;
        let (kind, costs) = if host.is_none() {
            let kind = if fio.kernel_callback {
                EngineKind::KernelCallback
            } else if fio.sync {
                EngineKind::Sync
            } else {
                EngineKind::Async
            };
            (kind, None)
        } else {
            let costs = host.engine(name).ok_or_else(|| {
                invalid(format!(
                    "ioengine={name} is not available on host {} ({}); it offers {}",
                    host.name,
                    host.os,
                    host.engine_names().join(", ")
                ))
            })?;
            (costs.kind, Some(costs))
        };
        if spec.hipri && costs.is_some_and(|c| c.poll_io.is_none()) {
            return Err(invalid(format!("ioengine={name} cannot poll for completions (hipri) on host {}", host.name)));
        }
        if !spec.direct && kind == EngineKind::KernelCallback {
            return Err(invalid(format!("ioengine={name} does no buffered I/O; use direct=1")));
        }
        // Linux's native AIO queues only O_DIRECT I/O: buffered, io_submit does the I/O
        // before it returns (host-facts §1.2).
        let kind = if !spec.direct && fio.queues_direct_only { EngineKind::Sync } else { kind };
        let depth = if kind == EngineKind::Async { spec.iodepth } else { 1 };
        // fio's init.c fix-ups: a batch of 0 or above iodepth is iodepth; a low-water mark
        // of 0 or above iodepth is iodepth; the most reaped at once is at least the least.
        let batch_submit = if spec.iodepth_batch_submit == 0 || spec.iodepth_batch_submit > depth {
            depth
        } else {
            spec.iodepth_batch_submit
        };
        let low = if spec.iodepth_low == 0 || spec.iodepth_low > depth { depth } else { spec.iodepth_low };
        let complete_max = spec.iodepth_batch_complete_max.max(spec.iodepth_batch_complete_min);
        let Some(c) = costs else {
            let direct = kind != EngineKind::KernelCallback && batch_submit == 1 && low == depth && !fio.no_device_io;
            return Ok(EngineRun {
                direct,
                free: true,
                kind,
                depth,
                batch_submit,
                complete_min: spec.iodepth_batch_complete_min,
                complete_max,
                low,
                polled: spec.hipri,
                null: fio.no_device_io,
                prep: zero,
                account: zero,
                submit_call: zero,
                submit_io: zero,
                reap_call: zero,
                reap_io: zero,
                lookaside: zero,
                irq_work: zero,
                wake: zero,
                poll_io: zero,
                buffered: None,
                mmap: false,
            });
        };
        let file_system = if on_file { host.default_fs.as_deref().and_then(|f| host.fs(f)) } else { None };
        let buffered = (!spec.direct && !mmap).then(|| page_cache.expect("checked above")).map(|pc| BufferedCosts {
            page_bytes: pc.page_bytes,
            copy_per_kib: pc.copy_per_kib,
            read_page: pc.read_page,
            write_page: pc.write_page,
        });
        // A buffered call's device I/O (readahead, writeback) pays the block layer where
        // the host sends it, not per call.
        let (fs, block_submit) = match buffered {
            Some(_) => (file_system.map_or(zero, |f| f.buffered_io), zero),
            None => (file_system.map_or(zero, |f| f.direct_io), if c.block_layer { host.block_submit } else { zero }),
        };
        let block_complete = if c.block_layer { host.block_complete } else { zero };
        let mut submit_io = c.submit_io + block_submit + fs;
        if spec.fixedbufs {
            submit_io = SimDuration(submit_io.as_ns().saturating_sub(c.fixedbufs_saving.as_ns()));
        }
        if spec.registerfiles {
            submit_io = SimDuration(submit_io.as_ns().saturating_sub(c.registerfiles_saving.as_ns()));
        }
        let (prep, account) = if c.user_space { (host.fio_prep, host.fio_complete) } else { (zero, zero) };
        // The next command of a kernel callback is issued from the handler itself.
        let irq_work =
            block_complete + c.complete_io + if kind == EngineKind::KernelCallback { submit_io } else { zero };
        // Waiting is a system call even where completions are read from a ring.
        let wake = host.wakeup + if c.reap_call == zero { host.syscall } else { zero };
        Ok(EngineRun {
            direct: false,
            free: false,
            kind,
            depth,
            batch_submit,
            complete_min: spec.iodepth_batch_complete_min,
            complete_max,
            low,
            polled: spec.hipri,
            null: fio.no_device_io,
            prep,
            account,
            submit_call: if spec.sqthread_poll { zero } else { c.submit_call },
            submit_io,
            reap_call: c.reap_call,
            reap_io: c.reap_io,
            lookaside: c.lookaside_call,
            irq_work,
            wake,
            poll_io: c.poll_io.unwrap_or(zero),
            buffered,
            mmap,
        })
    }
}

/// What a thread is doing.
#[derive(Clone, Copy, Debug)]
pub(super) enum Step {
    Idle,
    Cpu { booking: Booking, then: Then },
    Blocked { need: u32, since: SimTime },
    Sleeping,
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
}

// The first cache line holds the step and the counts beside it; the queues start the next.
const _: () = assert!(std::mem::offset_of!(ThreadState, visible) == 64);

impl ThreadState {
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
            mmap_hint: super::mmap_hint(spec.fadvise_hint, spec.rw.is_random()),
        }
    }

    /// The mapping holding namespace byte `offset` and where its file starts.
    fn mapping_at(&self, offset: u64) -> (crate::os::vm::MappingId, u64) {
        let k = self.mmaps.iter().position(|&(start, end, _)| (start..end).contains(&offset)).unwrap_or(0);
        let (start, _, m) = self.mmaps[k];
        (m, start)
    }

    /// fio's `get_rw_ddir`: after a write, a sync is due every `fsync` (or `fdatasync`)
    /// writes issued.
    fn sync_due(&self) -> bool {
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
    fn reap_min(&self) -> u32 {
        1.max(self.engine.complete_min.min(self.depth_used()))
    }

    /// fio's `wait_for_completions` on a full queue: the thread drains (reaps until at most
    /// `iodepth_low` are in use); returns the least the first reap waits for.
    #[inline]
    fn start_draining(&mut self) -> u32 {
        self.draining = true;
        self.reap_min()
    }

    /// Whether fio's `handle_thinktime` stalls now.
    fn think_due(&self, now: SimTime) -> bool {
        if self.think_total == SimDuration::ZERO {
            return false;
        }
        if self.think_iotime > SimDuration::ZERO {
            return now.since(self.last_think) >= self.think_iotime;
        }
        self.think_counter >= self.think_mark + self.think_blocks
    }
}

/// The thread's next move.
enum Action {
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
    fn run_thread<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        loop {
            if !matches!(self.clones[i].thread.step, Step::Idle) {
                return;
            }
            match self.next_action(i, now) {
                Action::Issue => self.issue_one(host, i, now),
                Action::Commit => {
                    let e = &self.clones[i].thread.engine;
                    let n = self.clones[i].thread.queued.len() as u64;
                    let sys = e.submit_call + e.submit_io.times(n) + e.lookaside.times(n);
                    self.work(host, i, now, SimDuration::ZERO, sys, Then::Commit);
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
                    let sys = t.engine.submit_call;
                    self.work(host, i, now, SimDuration::ZERO, sys, Then::Sync { end });
                }
                Action::Sleep(until) => {
                    self.sleep(i, until);
                    return;
                }
                Action::BeginVerify => self.begin_verify(host, i, now),
                Action::FlowWait => {
                    let c = &mut self.clones[i];
                    c.thread.step = Step::Sleeping;
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
    fn reap_or_block<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime, min: u32) -> bool {
        let c = &mut self.clones[i];
        let t = &mut c.thread;
        let ready = t.visible.len() as u32;
        if ready < min || ready == 0 {
            self.block(i, min.max(1), now);
            return false;
        }
        let n = ready.min(t.engine.complete_max.max(min));
        let woken = std::mem::take(&mut t.woken);
        let e = &t.engine;
        let (mut user, mut sys) = e.reap_cpu(n, woken);
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
        let issue_cost = issue_user + issue_sys;
        if self.issues_after_reap(i, n, now + user + sys + issue_cost) {
            self.work(host, i, now, user + issue_user, sys + issue_sys, Then::ReapAndIssue { n, issue_cost });
        } else {
            self.work(host, i, now, user, sys, Then::Reap { n });
        }
        true
    }

    // fio's thread loop decisions, in the order it makes them.
    #[allow(clippy::too_many_lines)]
    fn next_action(&mut self, i: CloneId, now: SimTime) -> Action {
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
        // Leftover completions are reaped first (a drained queue, or a reap that took
        // fewer than were visible).
        if c.stopped {
            return if !t.queued.is_empty() {
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
            };
        }
        if t.sync_due() {
            // Simplified: the queue drains before the sync (fio's sync engines do; libaio
            // waits only for what it has not submitted).
            return if !t.queued.is_empty() {
                Action::Commit
            } else if used > 0 {
                Action::Wait { min: used }
            } else {
                Action::Sync { end: false }
            };
        }
        if c.control.is_some()
            && let Some(e) = c.replay().and_then(ReplayCursor::peek)
        {
            match e.op {
                // fio's sync io_u: the queue drains, then the sync call.
                TraceOp::Sync => {
                    return if !t.queued.is_empty() {
                        Action::Commit
                    } else if used > 0 {
                        Action::Wait { min: used }
                    } else {
                        Action::Sync { end: false }
                    };
                }
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
            return if !t.queued.is_empty() {
                Action::Commit
            } else if used > 0 {
                Action::Wait { min: used }
            } else {
                Action::Think
            };
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
            return if !t.queued.is_empty() {
                Action::Commit
            } else if used > 0 {
                Action::Wait { min: used }
            } else {
                Action::Sleep(allowed)
            };
        }
        if !t.queued.is_empty() {
            return Action::Commit;
        }
        // wait_for_completions: a full queue must reap at least one.
        Action::Wait { min: self.clones[i].thread.start_draining() }
    }

    /// Clone `i` is ahead of its flow: with `flow_sleep` it lets its I/O complete and
    /// sleeps, without it waits for the flow's count to move.
    fn hold_for_flow(&self, i: CloneId, now: SimTime) -> Action {
        let c = &self.clones[i];
        let t = &c.thread;
        let sleep_ns = c.flow().map_or(0, |m| m.sleep_ns);
        if sleep_ns == 0 {
            Action::FlowWait
        } else if !t.queued.is_empty() {
            Action::Commit
        } else if t.depth_used() > 0 {
            Action::Wait { min: t.depth_used() }
        } else {
            Action::Sleep(now + SimDuration(sleep_ns))
        }
    }

    /// Decides the next I/O of clone `i` and records it in flight from `now`.
    #[inline]
    fn prepare_io<D: BlockDevice>(&mut self, host: &Host<D>, i: CloneId, now: SimTime) -> u32 {
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
        self.ios.insert(InFlightIo { dir, offset, bytes, start, issue: now, sync: SyncCall::No, read_back, prio })
    }

    /// Prepares one I/O; submits it (a synchronous engine, or a full batch) or queues it.
    fn issue_one<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
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
        self.work(host, i, now, user + make, sys, then);
    }

    /// Books `user` then `sys` CPU time for clone `i`'s thread from `now`; `then` takes
    /// effect when it ends (at once if it costs nothing and the core is free).
    fn work<D: BlockDevice>(
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
    fn begin_verify<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        let c = &mut self.clones[i];
        let v = c.verify_mut().expect("only verifying clones begin a read-back");
        if v.sync_before && !v.synced {
            v.synced = true;
            let sys = c.thread.engine.submit_call;
            self.work(host, i, now, SimDuration::ZERO, sys, Then::Sync { end: true });
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

    fn sleep(&mut self, i: CloneId, until: SimTime) {
        let c = &mut self.clones[i];
        if !c.thread.engine.free {
            c.thread.ctx += 1;
        }
        c.thread.step = Step::Sleeping;
        c.thread.generation = c.thread.generation.wrapping_add(1);
        let (rank, timer) = Timer::resume(i, c.thread.generation);
        self.timers.push_ranked(until, rank, timer);
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
            Step::Sleeping => t.step = Step::Idle,
            _ => return,
        }
        self.drive(host, i, now);
    }

    /// Wakes a sleeping thread early (its clone was stopped).
    pub(super) fn interrupt_sleep<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        let t = &mut self.clones[i].thread;
        if matches!(t.step, Step::Sleeping) {
            t.step = Step::Idle;
            t.generation = t.generation.wrapping_add(1);
            self.drive(host, i, now);
        }
    }

    /// What a thread's finished CPU work does.
    fn apply<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime, then: Then) {
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
                    self.sleep(i, now + sleep);
                }
            }
            Then::Sync { end } => self.send_sync(host, i, now, end),
        }
    }

    /// The issue that ends a reap's work at `now` (`Then::ReapAndIssue`), begun at
    /// `issue_start`: the next I/O, unless the deadline passed while the thread worked.
    fn issue_after_reap<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, issue_start: SimTime, now: SimTime) {
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

    /// Clone `i`'s fsync reaches the kernel at `now`: through the page cache (its dirty
    /// pages written back, then a device flush), or, for direct I/O, a device flush.
    fn send_sync<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime, end: bool) {
        let sync = if end { SyncCall::End } else { SyncCall::Periodic };
        let io = InFlightIo {
            dir: Direction::Write,
            offset: 0,
            bytes: 0,
            start: now,
            issue: now,
            sync,
            read_back: false,
            prio: 0,
        };
        let id = self.ios.insert(io);
        let t = &mut self.clones[i].thread;
        if t.engine.null {
            t.visible.push_back(id);
            return;
        }
        let path = CompletionPath::Interrupt { core: t.irq_core, work: t.engine.irq_work };
        let flush = IoRequest { opcode: Opcode::Flush, offset_bytes: 0, bytes: 0 };
        self.submit_request(host, i, id, flush, path, now);
    }

    /// Request `id` of clone `i` reaches the host at `now`: through the page cache for a
    /// buffered job (its completion visible at once if the call finished when made),
    /// otherwise to the block layer.
    #[inline]
    fn submit_request<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        id: u32,
        request: IoRequest,
        path: CompletionPath,
        now: SimTime,
    ) {
        let c = &mut self.clones[i];
        if c.thread.engine.mmap {
            let core = c.thread.core;
            let direct = c.thread.mmap_direct;
            let (mapping, start) = c.thread.mapping_at(request.offset_bytes);
            if request.opcode == Opcode::Flush {
                host.submit_mmap_sync(now, core, mapping, IoTag { clone: i, io: id }.caller_tag());
            } else {
                let io = crate::os::vm::MmapIo {
                    core,
                    mapping,
                    offset_bytes: request.offset_bytes - start,
                    bytes: request.bytes,
                    write: request.opcode == Opcode::Write,
                    direct,
                    tag: IoTag { clone: i, io: id }.caller_tag(),
                };
                host.submit_mmap(now, io);
            }
            c.thread.in_device += 1;
            return;
        }
        if c.thread.engine.buffered.is_some() {
            let (stream, file) = c.file_at(request.offset_bytes);
            let b = BufferedIo {
                stream,
                core: c.thread.core,
                io: request,
                file,
                sync: c.thread.sync_writes,
                path,
                tag: IoTag { clone: i, io: id }.caller_tag(),
            };
            if host.submit_buffered(now, b) == BufferedStart::Done {
                c.thread.visible.push_back(id);
                return;
            }
        } else {
            host.submit(now, now, request, IoTag { clone: i, io: id }.caller_tag(), path);
        }
        c.thread.in_device += 1;
    }

    /// The queued I/Os of clone `i` reach the block layer at `now`.
    fn commit<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        for k in 0..self.clones[i].thread.queued.len() {
            let id = self.clones[i].thread.queued[k];
            self.send_io(host, i, id, now);
        }
        self.clones[i].thread.queued.clear();
    }

    /// I/O `id` of clone `i` reaches the block layer at `now`.
    #[inline]
    fn send_io<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, id: u32, now: SimTime) {
        let t = &mut self.clones[i].thread;
        let e = &t.engine;
        let io = &mut self.ios[id];
        // A synchronous engine's I/O is issued when its call starts; an asynchronous one's
        // when the submit call returns.
        io.issue = if e.kind == EngineKind::Sync { now.saturating_sub(e.submit_call + e.submit_io) } else { now };
        if e.null {
            t.visible.push_back(id);
            return;
        }
        let path = if e.polled {
            CompletionPath::Polled
        } else {
            CompletionPath::Interrupt { core: t.irq_core, work: e.irq_work }
        };
        let request = IoRequest { opcode: io.dir.opcode(), offset_bytes: io.offset, bytes: io.bytes };
        self.submit_request(host, i, id, request, path, now);
    }

    /// An I/O of clone `i` finished and its completion became visible at `now`. The
    /// caller drives the thread afterwards.
    #[inline]
    pub(super) fn on_visible<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, id: u32, now: SimTime) {
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
            let sys = e.poll_io.times(u64::from(n)) + e.reap_call + e.reap_io.times(u64::from(n));
            let user = e.account.times(u64::from(n));
            let c = &mut self.clones[i];
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
    /// ([`ThreadState::plain_loop`]), blocked for one completion with its whole depth in the
    /// device, woken at `now` by I/O `id`'s, reaps it and issues the next I/O in one piece of
    /// CPU work, as `next_action`, `reap_or_block` and `issues_after_reap` would decide
    /// (checked in debug builds). False, with nothing done, if the case is not that one.
    #[inline]
    fn wake_to_reap_one_and_issue<D: BlockDevice>(
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
        let work = t.wakeup_work;
        let end = now + work.user + work.sys;
        if c.out_of_work(end) {
            return false;
        }
        let t = &mut self.clones[i].thread;
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
        let then = Then::ReapOneAndIssue { id, issue_cost: work.issue };
        self.work(host, i, now, work.user, work.sys, then);
        true
    }

    /// A caller's I/O completed at the device now and becomes visible at `done.visible`, when
    /// its interrupt handler ends: if its thread sees completions ahead
    /// ([`ThreadState::sees_ahead`]), has none whose handler is still running, and this one
    /// wakes it in the common way, that wakeup is booked now; otherwise the host hands the
    /// completion back at its visible time.
    #[inline]
    pub(super) fn on_posted<D: BlockDevice>(&mut self, host: &mut Host<D>, done: IoDone) {
        let IoTag { clone: i, io: id } = IoTag::from_caller_tag(done.tag);
        let t = &self.clones[i].thread;
        if t.sees_ahead && t.handlers_pending == 0 && self.wake_to_reap_one_and_issue(host, i, id, done.visible) {
            return;
        }
        self.clones[i].thread.handlers_pending += 1;
        host.defer(done);
    }

    /// Whether clone `i`'s loop, run at `now`, would find its queue full with nothing else to
    /// do first (the common case of a woken thread): then it reaps (fio's
    /// `wait_for_completions`); otherwise [`Self::next_action`] must decide.
    #[inline]
    fn loop_waits_on_full_queue(&self, i: CloneId, now: SimTime) -> bool {
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
    fn flush_after_write<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, id: u32, now: SimTime) -> bool {
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
        let flush = IoRequest { opcode: Opcode::Flush, offset_bytes: 0, bytes: 0 };
        self.submit_request(host, i, id, flush, path, now);
        true
    }

    /// The bare host's shortcut: a thread blocked on its one completion reaps it and issues
    /// the next I/O at once, as the loop would at no cost. False if the case is not that
    /// simple (the loop then handles it).
    #[inline]
    fn replace_directly<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, id: u32, now: SimTime) -> bool {
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
    fn issues_after_reap(&self, i: CloneId, n: u32, end: SimTime) -> bool {
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
    fn block_if_full(&mut self, i: CloneId, now: SimTime) {
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
    fn block(&mut self, i: CloneId, need: u32, now: SimTime) {
        let c = &mut self.clones[i];
        c.thread.step = Step::Blocked { need, since: now };
        if !c.thread.engine.polled && !c.thread.engine.free {
            c.thread.ctx += 1;
        }
    }

    /// Reaps `n` visible completions of clone `i`; fio timestamps them when the reap
    /// call returned, before its own accounting.
    fn reap(&mut self, i: CloneId, now: SimTime, n: u32) {
        let account = self.clones[i].thread.engine.account.times(u64::from(n));
        let at = now.saturating_sub(account);
        for _ in 0..n {
            let id = self.clones[i].thread.visible.pop_front().expect("reaping only what is visible");
            self.complete(i, id, at);
        }
        self.stop_draining_if_low(i);
    }

    /// After a reap: clone `i` stops draining once at most `iodepth_low` are in use.
    fn stop_draining_if_low(&mut self, i: CloneId) {
        let t = &mut self.clones[i].thread;
        if t.draining && t.depth_used() <= t.engine.low {
            t.draining = false;
        }
    }
}

impl Direction {
    /// The block command that moves data in this direction.
    pub(crate) fn opcode(self) -> Opcode {
        match self {
            Direction::Read => Opcode::Read,
            Direction::Write => Opcode::Write,
            Direction::Trim => Opcode::Trim,
        }
    }
}
