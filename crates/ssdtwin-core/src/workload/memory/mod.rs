//! Workloads that run on memory, not on a block device: R6's memcpy sweep, STREAM and
//! Himeno, as page-access streams over the host's virtual memory.
//!
//! Read first: `benches.rs` (what each thread touches) and [`crate::os::vm`] (what a touch
//! costs); `docs/model.md` § "Memory workloads". [`run_memory`] maps the benchmark's arrays
//! (anonymous memory for `malloc`, a shared mapping of a file on the target for `mmap`),
//! fills them as their initialisation loop does ([`Host::vm_populate`], untimed), applies the
//! `madvise` advice to the whole region, then runs the threads — one per core — in simulated
//! time: each thread touches its rows' pages (faults and the waits they bring) and computes
//! between them at the host's per-core DRAM rate and flop rate, the threads computing at a
//! time sharing the socket's DRAM bandwidth equally. It runs on the host it is handed;
//! [`crate::setup::run_memory_on_drive`] builds a drive or card behind a host for it.
//!
//! The same engine as the fio runner drives it: the host's event queue (its block target,
//! the VM's reads and writes, kswapd) and the threads' timers, host first on ties. A thread
//! runs in steps of at most [`STEP_NS`] of CPU work; within a step its touches and lock
//! acquisitions are made ahead of other threads' events of the same span, which bounds how
//! far out of order contention is resolved.
//!
//! ```
//! use ssdtwin_core::config::{build, load_profile};
//! use ssdtwin_core::os::{Host, load_host};
//! use ssdtwin_core::ssd::Ssd;
//! use ssdtwin_core::workload::memory::{Advice, Alloc, Bench, MemorySpec, run_memory};
//!
//! let dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
//! let sets = ["cpu.dram_gib=0.25", "page_cache.memory_gib=0.2", "vm.kernel_reserved_mib=0"];
//! let host = load_host("linux-6.1", &sets.map(String::from)).unwrap();
//! let mut host = Host::new(dev, host);
//! let spec = MemorySpec {
//!     bench: Bench::Memcpy { bytes: 64 << 20, unit_bytes: 1 << 20 },
//!     alloc: Alloc::Malloc,
//!     advice: Advice::None,
//!     sequential: true,
//!     threads: 1,
//!     seed: 1,
//!     swap_areas: vec![(0, 1 << 30)],
//!     file_offset_bytes: 0,
//! };
//! let r = run_memory(&mut host, &spec, &mut |_| true).unwrap();
//! // 64 MiB fit in 256 MiB of DRAM: no page comes from swap.
//! assert_eq!(r.counter("host.major_faults"), 0);
//! assert!(r.seconds > 0.0);
//! ```

mod benches;

pub use benches::{Bench, HIMENO_BYTES_PER_POINT, HIMENO_FLOPS_PER_POINT};

use crate::block::{BlockDevice, CounterRow};
use crate::engine::{EventQueue, SimDuration, SimTime};
use crate::os::vm::{Backing, Madvise, MappingId, Touch, VmCtx};
use crate::os::{CoreId, Host, MemoryConfig};
use benches::{Next, Program, Row};
use thiserror::Error;

/// How the benchmark gets its memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alloc {
    /// Anonymous memory, paged to swap.
    Malloc,
    /// A shared mapping of a file on the target.
    Mmap,
}

/// `madvise` on the whole region before the timed part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    /// None.
    None,
    /// `MADV_SEQUENTIAL`.
    Sequential,
    /// `MADV_RANDOM`.
    Random,
    /// `MADV_WILLNEED`: reads ahead what the kernel allows (swapped pages on 3.9+; a file's
    /// first pages up to the era's cap) before the timed part; the sweep waits for none of it.
    WillNeed,
}

/// A memory workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemorySpec {
    /// The benchmark and its size.
    pub bench: Bench,
    /// `malloc` or `mmap`.
    pub alloc: Alloc,
    /// `madvise` on the region.
    pub advice: Advice,
    /// memcpy units in order (true) or in a random permutation.
    pub sequential: bool,
    /// Threads, one per core from core 0.
    pub threads: u32,
    /// Seed of the random unit order.
    pub seed: u64,
    /// Swap areas on the target, `(offset, bytes)`, all of one priority (malloc).
    pub swap_areas: Vec<(u64, u64)>,
    /// Where the file starts on the target (mmap), bytes.
    pub file_offset_bytes: u64,
}

/// What a memory workload did.
#[derive(Clone, Debug)]
pub struct MemoryResult {
    /// Simulated seconds of the timed part.
    pub seconds: f64,
    /// Bytes the benchmark counts over the timed part.
    pub bytes: u64,
    /// Floating-point operations over the timed part.
    pub flops: u64,
    /// Simulated seconds between consecutive barriers (STREAM: one per kernel and
    /// iteration; Himeno: one per sweep).
    pub phase_seconds: Vec<f64>,
    /// Counters of the target and the host when the advice was given (before the timed part).
    pub counters_start: CounterRow,
    /// The same when it ended.
    pub counters_end: CounterRow,
    /// The host's clock when the last thread finished (setup included, from the clock's
    /// start): the simulated time the whole run took on a fresh host.
    pub ended_at: SimTime,
}

impl MemoryResult {
    /// Counter `name` over the timed part (a level: its value at the end); 0 if absent.
    pub fn counter(&self, name: &str) -> u64 {
        let end = self.counters_end.entries.iter().find(|c| c.name == name);
        match end {
            Some(c) if c.level => c.value,
            Some(c) => c.value - self.counters_start.get(name).unwrap_or(0),
            None => 0,
        }
    }
}

/// A memory workload could not run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// The host profile lacks what the workload needs.
    #[error("host {host}: memory workloads need its profile's [{section}] section")]
    HostLacks {
        /// Host profile name.
        host: String,
        /// The missing section.
        section: &'static str,
    },
    /// The workload does not fit the machine or the target.
    #[error("{problem}")]
    Invalid {
        /// What is wrong, and what is allowed.
        problem: String,
    },
    /// The observer asked to stop.
    #[error("interrupted")]
    Cancelled,
    /// Threads wait but nothing will ever wake them: a bug in the model.
    #[error(
        "internal error: the memory workload stalled at {time_ns} ns; please report it with the profiles and options"
    )]
    Stalled {
        /// Simulated time.
        time_ns: u64,
    },
}

/// The longest a thread's step runs before other events are processed, ns of CPU work.
pub const STEP_NS: u64 = 20_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Runnable (a step is scheduled).
    Running,
    /// Waiting for the VM; its CPU work lasts until `until`.
    Waiting {
        until: SimTime,
    },
    /// At a barrier, arrived at `at`.
    Barrier {
        at: SimTime,
    },
    Done {
        at: SimTime,
    },
}

struct Thread {
    core: CoreId,
    program: Program,
    row: Row,
    /// The row is loaded and `touched` of its pages are done.
    loaded: bool,
    touched: usize,
    resumed: bool,
    state: State,
}

/// Progress, every few thousand rows: rows done and expected.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemoryProgress {
    /// Simulated time since the timed part began, ns.
    pub elapsed_ns: u64,
    /// Rows done by every thread.
    pub rows_done: u64,
}

/// Runs `spec` on `host`; `observe` may return false to stop ([`MemoryError::Cancelled`]).
pub fn run_memory<D: BlockDevice>(
    host: &mut Host<D>,
    spec: &MemorySpec,
    observe: &mut dyn FnMut(&MemoryProgress) -> bool,
) -> Result<MemoryResult, MemoryError> {
    let memory = validate(host, spec)?;
    let page_bytes = host.config().vm.as_ref().expect("validated").page_bytes;
    let (frames, (_, _, high)) = host.vm_frames();
    if frames < 4 * high {
        return Err(MemoryError::Invalid {
            problem: format!(
                "{} MiB of memory is left for pages after the drivers' {} MiB: at least {} MiB are needed (four times the high watermark)",
                (frames * page_bytes) >> 20,
                host.driver_memory_bytes() >> 20,
                (4 * high * page_bytes).div_ceil(1 << 20)
            ),
        });
    }
    let pages = spec.bench.footprint_bytes(page_bytes).div_ceil(page_bytes);
    let m = match spec.alloc {
        Alloc::Malloc => {
            for &(offset, bytes) in &spec.swap_areas {
                host.vm_swapon(offset, bytes);
            }
            host.vm_map(pages, Backing::Anon)
        }
        Alloc::Mmap => host.vm_map(pages, Backing::File { offset_bytes: spec.file_offset_bytes, sparse: false }),
    };
    // The initialisation loop writes every page; then the region is advised.
    host.vm_populate(m);
    let start = host.device().now();
    let ctx = VmCtx { core: CoreId(0), tag: 0, resumed: false };
    let advice = match spec.advice {
        Advice::None => None,
        Advice::Sequential => Some(Madvise::Sequential),
        Advice::Random => Some(Madvise::Random),
        Advice::WillNeed => Some(Madvise::WillNeed),
    };
    // The counters include what the advice reads (MADV_WILLNEED), not what filling took.
    let counters_start = counter_row(host, 0);
    if let Some(a) = advice {
        host.vm_madvise(start, start, ctx, m, 0, pages, a);
    }
    let mut run = Runner {
        timers: EventQueue::with_capacity(64),
        threads: (0..spec.threads)
            .map(|t| Thread {
                core: CoreId(t),
                program: Program::new(spec.bench, spec.sequential, t, spec.threads, page_bytes, spec.seed),
                row: Row::default(),
                loaded: false,
                touched: 0,
                resumed: false,
                state: State::Running,
            })
            .collect(),
        mapping: m,
        page_bytes,
        memory,
        barriers: Vec::new(),
        rows: 0,
    };
    for t in 0..spec.threads {
        run.timers.push(start, t);
    }
    run.run(host, start, observe)?;
    let end =
        run.threads.iter().map(|t| if let State::Done { at } = t.state { at } else { start }).max().unwrap_or(start);
    let seconds = end.since(start).as_secs_f64();
    let mut marks = vec![start];
    marks.extend(run.barriers.iter().copied());
    let phase_seconds = marks.windows(2).map(|w| w[1].since(w[0]).as_secs_f64()).collect();
    let (bytes, flops) = counted(spec.bench);
    Ok(MemoryResult {
        seconds,
        bytes,
        flops,
        phase_seconds,
        counters_start,
        counters_end: counter_row(host, end.since(start).as_ns()),
        ended_at: end,
    })
}

/// Bytes and flops the benchmark counts for its whole timed part.
fn counted(bench: Bench) -> (u64, u64) {
    match bench {
        Bench::Memcpy { bytes, .. } => (bytes, 0),
        Bench::Stream { elements, ntimes } => {
            ((16 + 16 + 24 + 24) * elements * u64::from(ntimes), 4 * elements * u64::from(ntimes))
        }
        Bench::Himeno { grid, iterations } => {
            let points: u64 = grid.iter().map(|n| n.saturating_sub(2)).product();
            (
                HIMENO_BYTES_PER_POINT * points * u64::from(iterations),
                HIMENO_FLOPS_PER_POINT * points * u64::from(iterations),
            )
        }
    }
}

fn counter_row<D: BlockDevice>(host: &Host<D>, time_ns: u64) -> CounterRow {
    let mut row = CounterRow::at(time_ns);
    host.device().counters("", &mut row);
    host.counters("host", &mut row);
    row
}

/// Checks `spec` against the host and its target before anything runs.
fn validate<D: BlockDevice>(host: &Host<D>, spec: &MemorySpec) -> Result<MemoryConfig, MemoryError> {
    let c = host.config();
    let lacks = |section| MemoryError::HostLacks { host: c.name.clone(), section };
    let vm = c.vm.as_ref().ok_or_else(|| lacks("vm"))?;
    let memory = c.memory.ok_or_else(|| lacks("memory"))?;
    let invalid = |problem: String| MemoryError::Invalid { problem };
    if spec.threads == 0 || spec.threads > c.cores {
        return Err(invalid(format!("threads {}: allowed 1 to the host's {} cores", spec.threads, c.cores)));
    }
    let page = vm.page_bytes;
    let footprint = spec.bench.footprint_bytes(page);
    if footprint == 0 || footprint.div_ceil(page) >= 1 << 30 {
        return Err(invalid(format!("a footprint of {footprint} bytes: allowed 1 byte to 4 TiB")));
    }
    match spec.bench {
        Bench::Memcpy { unit_bytes, .. } if unit_bytes < page => {
            return Err(invalid(format!("memcpy unit of {unit_bytes} bytes: at least a page ({page} bytes)")));
        }
        Bench::Stream { ntimes: 0, .. } | Bench::Himeno { iterations: 0, .. } => {
            return Err(invalid("at least one iteration".into()));
        }
        Bench::Himeno { grid, .. } if grid.iter().any(|&n| n < 3) => {
            return Err(invalid(format!("Himeno grid {grid:?}: at least 3 points in each dimension")));
        }
        _ => {}
    }
    let capacity = host.device().geometry().capacity_bytes();
    match spec.alloc {
        Alloc::Malloc => {
            let swap: u64 = spec.swap_areas.iter().map(|a| a.1).sum();
            if spec.swap_areas.iter().any(|&(o, b)| o % page != 0 || b < 2 * page || o + b > capacity) {
                return Err(invalid(format!(
                    "swap areas must be page-aligned, at least two pages, within the target's {capacity} bytes"
                )));
            }
            if swap < footprint {
                return Err(invalid(format!(
                    "{footprint} bytes of memory need at least as much swap; the areas hold {swap}"
                )));
            }
        }
        Alloc::Mmap => {
            let o = spec.file_offset_bytes;
            if o % page != 0 || o + footprint.div_ceil(page) * page > capacity {
                return Err(invalid(format!(
                    "a file of {footprint} bytes at {o} does not fit the target's {capacity} bytes (page-aligned)"
                )));
            }
        }
    }
    Ok(memory)
}

struct Runner {
    timers: EventQueue<u32>,
    threads: Vec<Thread>,
    mapping: MappingId,
    page_bytes: u64,
    memory: MemoryConfig,
    /// When each barrier was passed.
    barriers: Vec<SimTime>,
    rows: u64,
}

impl Runner {
    fn run<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        start: SimTime,
        observe: &mut dyn FnMut(&MemoryProgress) -> bool,
    ) -> Result<(), MemoryError> {
        let mut next_report = 0u64;
        loop {
            if self.threads.iter().all(|t| matches!(t.state, State::Done { .. })) {
                return Ok(());
            }
            let host_at = host.poll_at();
            let timer_at = self.timers.peek_time();
            if host_at == SimTime::NEVER && timer_at == SimTime::NEVER {
                return Err(MemoryError::Stalled { time_ns: host.device().now().as_ns() });
            }
            if host_at <= timer_at {
                if let Some(done) = host.poll() {
                    let t = &mut self.threads[done.tag as usize];
                    if let State::Waiting { until } = t.state {
                        t.state = State::Running;
                        t.resumed = true;
                        self.timers.push(done.visible.max(until), done.tag as u32);
                    }
                }
                continue;
            }
            let (now, i) = self.timers.pop().expect("peeked");
            self.step(host, i as usize, now);
            if self.rows >= next_report {
                next_report = self.rows + 65_536;
                let p = MemoryProgress { elapsed_ns: now.since(start).as_ns(), rows_done: self.rows };
                if !observe(&p) {
                    return Err(MemoryError::Cancelled);
                }
            }
        }
    }

    /// Runs thread `i` from `now` for up to a step of CPU work.
    fn step<D: BlockDevice>(&mut self, host: &mut Host<D>, i: usize, now: SimTime) {
        let core = self.threads[i].core;
        let begin = host.cpu().available(core, now);
        let mut t = begin;
        let quantum = SimDuration(STEP_NS);
        loop {
            let th = &mut self.threads[i];
            if !th.loaded {
                match th.program.next(&mut th.row, self.page_bytes) {
                    Next::Row => {
                        th.loaded = true;
                        th.touched = 0;
                    }
                    Next::Barrier => {
                        th.state = State::Barrier { at: t };
                        host.cpu_mut().task(core, now, t.since(begin));
                        self.arrive();
                        return;
                    }
                    Next::Done => {
                        th.state = State::Done { at: t };
                        host.cpu_mut().task(core, now, t.since(begin));
                        return;
                    }
                }
            }
            while th.touched < th.row.n {
                let (page, write) = th.row.touches[th.touched];
                let ctx = VmCtx { core, tag: i as u64, resumed: th.resumed };
                match host.vm_touch(now, t, ctx, self.mapping, page, write) {
                    Touch::Ready(after) => {
                        t = after;
                        th.touched += 1;
                        th.resumed = false;
                    }
                    Touch::Wait(after) => {
                        t = after;
                        th.state = State::Waiting { until: t };
                        host.cpu_mut().task(core, now, t.since(begin));
                        return;
                    }
                }
            }
            let (bytes, flops) = (th.row.bytes, th.row.flops);
            th.loaded = false;
            t = self.compute(t, bytes, flops);
            self.rows += 1;
            if t.since(begin) >= quantum {
                host.cpu_mut().task(core, now, t.since(begin));
                self.timers.push(t, i as u32);
                return;
            }
        }
    }

    /// `bytes` through DRAM and `flops` of arithmetic from `t`: at the core's rate, or its
    /// equal share of the socket's bandwidth among the threads computing now (processor
    /// sharing; a thread waiting for a fault or a barrier uses none).
    fn compute(&self, t: SimTime, bytes: u64, flops: u64) -> SimTime {
        let m = &self.memory;
        let computing = self.threads.iter().filter(|th| th.state == State::Running).count().max(1) as f64;
        let rate = m.core_bytes_per_sec.min(m.socket_bytes_per_sec / computing);
        // A row that moves no bytes or does no arithmetic skips that division (0 / x is 0).
        let moving = if bytes == 0 { 0.0 } else { bytes as f64 / rate };
        let arithmetic = if flops == 0 { 0.0 } else { flops as f64 / m.core_flops_per_sec };
        t + SimDuration::from_ns_f64(moving.max(arithmetic) * 1e9)
    }

    /// A thread reached a barrier at `t`; the last one releases everybody.
    fn arrive(&mut self) {
        let live = self.threads.iter().filter(|t| !matches!(t.state, State::Done { .. })).count();
        let arrived: Vec<SimTime> = self
            .threads
            .iter()
            .filter_map(|t| if let State::Barrier { at } = t.state { Some(at) } else { None })
            .collect();
        if arrived.len() < live {
            return;
        }
        let at = arrived.into_iter().max().expect("someone arrived");
        self.barriers.push(at);
        for (k, th) in self.threads.iter_mut().enumerate() {
            if matches!(th.state, State::Barrier { .. }) {
                th.state = State::Running;
                self.timers.push(at, k as u32);
            }
        }
    }
}
