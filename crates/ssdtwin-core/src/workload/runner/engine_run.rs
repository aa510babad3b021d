//! An engine as one job runs it: fio's batching options resolved and the host's costs
//! combined per step of the thread's loop ([`EngineRun`]).
//!
//! Read first: fio's `init.c` (the option fix-ups quoted below) and the host profile's
//! `[engines.NAME]` tables (`os::HostConfig`); `docs/model.md` § "Host stack".

use super::super::{Direction, JobError, JobSpec};
use super::super::{FioEngine, Support, fio_engine, modelled_engine_names};
use crate::engine::SimDuration;
use crate::os::{EngineCosts, EngineKind, HostConfig};

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
    /// replaced on the spot, the one path [`Runner::on_visible`](super::Runner::on_visible) takes without going
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

/// The CPU work of a thread's common wakeup at its mean: the reap of the one completion that
/// woke it, with the wakeup, then the issue of one I/O, as one piece (fixed for an engine).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WakeupWork {
    pub reap_user: SimDuration,
    pub reap_sys: SimDuration,
    /// The wakeup, paid with the reap call.
    pub wake: SimDuration,
    /// The issue's part, which ends the work.
    pub issue_user: SimDuration,
    pub issue_sys: SimDuration,
}

impl WakeupWork {
    /// CPU time (user, system) of the whole piece.
    pub(super) fn cpu(&self) -> (SimDuration, SimDuration) {
        (self.reap_user + self.issue_user, self.reap_sys + self.wake + self.issue_sys)
    }

    /// The issue's part.
    pub(super) fn issue(&self) -> SimDuration {
        self.issue_user + self.issue_sys
    }
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
    pub(super) fn call(&self, dir: Direction, bytes: u64) -> SimDuration {
        let pages = bytes.div_ceil(self.page_bytes);
        let per_page = if dir == Direction::Write { self.write_page } else { self.read_page };
        SimDuration(self.copy_per_kib.as_ns() * bytes / 1024) + per_page.times(pages)
    }
}

impl EngineRun {
    /// CPU time (user, system) of a reap call that finds `n` completions (a thread that
    /// slept pays the wakeup on top, and buffered copies and verification checks).
    #[inline]
    pub(super) fn reap_cpu(&self, n: u32) -> (SimDuration, SimDuration) {
        (self.account.times(u64::from(n)), self.reap_call + self.reap_io.times(u64::from(n)))
    }

    /// CPU time (user, system) of preparing one I/O and submitting it alone.
    #[inline]
    pub(super) fn issue_one_cpu(&self) -> (SimDuration, SimDuration) {
        (self.prep, self.submit_call + self.submit_io + self.lookaside)
    }

    /// The common wakeup's work (`Runner::wake_to_reap_one_and_issue`).
    pub(super) fn wakeup_work(&self) -> WakeupWork {
        let (reap_user, reap_sys) = self.reap_cpu(1);
        let (issue_user, issue_sys) = self.issue_one_cpu();
        WakeupWork { reap_user, reap_sys, wake: self.wake, issue_user, issue_sys }
    }

    /// The engine `spec` names on `host`, or why it cannot run there.
    pub(crate) fn resolve(spec: &JobSpec, host: &HostConfig, on_file: bool) -> Result<Self, JobError> {
        let (fio, costs) = engine_on_host(spec, host)?;
        let kind = match costs {
            Some(c) => c.kind,
            None if fio.kernel_callback => EngineKind::KernelCallback,
            None if fio.sync => EngineKind::Sync,
            None => EngineKind::Async,
        };
        if !spec.direct && kind == EngineKind::KernelCallback {
            return Err(invalid(spec, format!("ioengine={} does no buffered I/O; use direct=1", spec.ioengine)));
        }
        // Linux's native AIO queues only O_DIRECT I/O: buffered, io_submit does the I/O
        // before it returns (host-facts §1.2).
        let kind = if !spec.direct && fio.queues_direct_only { EngineKind::Sync } else { kind };
        let batch = Batching::of(spec, kind);
        let Some(c) = costs else {
            let zero = SimDuration::ZERO;
            let direct = kind != EngineKind::KernelCallback
                && batch.submit == 1
                && batch.low == batch.depth
                && !fio.no_device_io;
            return Ok(EngineRun {
                direct,
                free: true,
                kind,
                depth: batch.depth,
                batch_submit: batch.submit,
                complete_min: batch.complete_min,
                complete_max: batch.complete_max,
                low: batch.low,
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
        Ok(Self::with_costs(spec, host, on_file, c, kind, &batch, fio))
    }

    /// The engine on a host that charges `c` for it: the host's costs combined per step.
    fn with_costs(
        spec: &JobSpec,
        host: &HostConfig,
        on_file: bool,
        c: &EngineCosts,
        kind: EngineKind,
        batch: &Batching,
        fio: &FioEngine,
    ) -> Self {
        let zero = SimDuration::ZERO;
        let mmap = fio.maps_file;
        let file_system = if on_file { host.default_fs.as_deref().and_then(|f| host.fs(f)) } else { None };
        let page_cache = host.page_cache.as_ref();
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
        EngineRun {
            direct: false,
            free: false,
            kind,
            depth: batch.depth,
            batch_submit: batch.submit,
            complete_min: batch.complete_min,
            complete_max: batch.complete_max,
            low: batch.low,
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
        }
    }
}

/// fio's batching options after its `init.c` fix-ups, for an engine of `kind`.
struct Batching {
    /// Queue depth (1 for synchronous engines).
    depth: u32,
    /// I/Os per submit call: a batch of 0 or above the depth is the depth.
    submit: u32,
    /// The low-water mark: 0 or above the depth is the depth.
    low: u32,
    /// The least and most completions reaped at once: the most is at least the least.
    complete_min: u32,
    complete_max: u32,
}

impl Batching {
    fn of(spec: &JobSpec, kind: EngineKind) -> Self {
        let depth = if kind == EngineKind::Async { spec.iodepth } else { 1 };
        let submit = if spec.iodepth_batch_submit == 0 || spec.iodepth_batch_submit > depth {
            depth
        } else {
            spec.iodepth_batch_submit
        };
        let low = if spec.iodepth_low == 0 || spec.iodepth_low > depth { depth } else { spec.iodepth_low };
        Batching {
            depth,
            submit,
            low,
            complete_min: spec.iodepth_batch_complete_min,
            complete_max: spec.iodepth_batch_complete_max.max(spec.iodepth_batch_complete_min),
        }
    }
}

fn invalid(spec: &JobSpec, problem: String) -> JobError {
    JobError::Invalid { job: spec.name.clone(), problem }
}

/// The engine `spec` names and, off the bare host, what `host` charges for it; or why
/// it cannot run there (an engine fio does not know or ssdtwin refuses, one the host does
/// not offer, mmap without virtual memory, buffered I/O without a page cache, polling an
/// engine cannot do).
fn engine_on_host<'h>(
    spec: &JobSpec,
    host: &'h HostConfig,
) -> Result<(&'static FioEngine, Option<&'h EngineCosts>), JobError> {
    let name = spec.ioengine.as_str();
    let fio = fio_engine(name).ok_or_else(|| {
        invalid(
            spec,
            format!("ioengine={name} is not an I/O engine fio knows; allowed {}", modelled_engine_names().join(", ")),
        )
    })?;
    if let Support::Refused(why) = fio.support {
        return Err(invalid(spec, format!("ioengine={name} is not supported by ssdtwin: {why}")));
    }
    let mmap = fio.maps_file;
    if mmap && !host.is_none() && host.vm.is_none() {
        return Err(invalid(
            spec,
            format!(
                "ioengine=mmap needs a host with virtual memory ([vm]); host {} has none (linux-3.6, linux-4.15 and linux-6.1 do)",
                host.name
            ),
        ));
    }
    if mmap && host.is_none() {
        return Err(invalid(
            spec,
            "ioengine=mmap needs a host with virtual memory; the bare twin (--host none) has none".into(),
        ));
    }
    if !spec.direct && host.page_cache.is_none() && !mmap {
        return Err(invalid(
            spec,
            format!(
                "direct=0 (buffered I/O) needs a host with a page cache; host {} has none (linux-4.15 and linux-6.1 do)",
                host.name
            ),
        ));
    }
    if host.is_none() {
        return Ok((fio, None));
    }
    let costs = host.engine(name).ok_or_else(|| {
        invalid(
            spec,
            format!(
                "ioengine={name} is not available on host {} ({}); it offers {}",
                host.name,
                host.os,
                host.engine_names().join(", ")
            ),
        )
    })?;
    if spec.hipri && costs.poll_io.is_none() {
        return Err(invalid(
            spec,
            format!("ioengine={name} cannot poll for completions (hipri) on host {}", host.name),
        ));
    }
    Ok((fio, Some(costs)))
}
