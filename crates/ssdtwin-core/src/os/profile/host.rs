//! The validated host, [`HostConfig`], and its built parts: costs already divided by the
//! CPU's speed factor, policies as enums.

use crate::engine::{SimDuration, SimTime};
use crate::nvme::ApstPolicy;

/// How a thread's CPU work varies: a log-normal factor on each I/O call's work and on each
/// wakeup's cost, and now and then a wait for a core that is busy with something else (an
/// interrupt or softirq in the middle of a call, another task when a thread wakes) (`[kernel]
/// call_cv`, `call_preempt_chance`, `wakeup_cv`, `preempt_chance`, `preempt_us`). All zero:
/// every call and every wakeup costs the same.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CpuJitter {
    /// Coefficient of variation of one I/O call's CPU work (fio's preparation or
    /// accounting, the system call, the block layer).
    pub call_cv: f64,
    /// Chance a call is held up by other work on its core.
    pub call_preempt_chance: f64,
    /// Coefficient of variation of the wakeup's cost.
    pub wakeup_cv: f64,
    /// Chance a wakeup waits for a busy core.
    pub preempt_chance: f64,
    /// Mean of a wait for a busy core, a call's or a wakeup's.
    pub preempt_mean: SimDuration,
}

impl CpuJitter {
    /// True if every call and every wakeup costs the same.
    pub fn is_none(&self) -> bool {
        !self.calls_vary()
            && self.wakeup_cv == 0.0
            && (self.preempt_chance == 0.0 || self.preempt_mean == SimDuration::ZERO)
    }

    /// True if one call's work may differ from the next.
    pub fn calls_vary(&self) -> bool {
        self.call_cv > 0.0 || (self.call_preempt_chance > 0.0 && self.preempt_mean > SimDuration::ZERO)
    }
}

/// NVMe interrupt coalescing as the driver set it (Feature 08h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntCoalescing {
    /// Aggregation time: the longest an entry waits for others.
    pub time: SimDuration,
    /// Aggregation threshold: entries that raise the interrupt at once.
    pub threshold: u32,
}

/// When a sleeping thread's timer fires (`[kernel] timer_slack_us`, `timer_tick_us`): a
/// high-resolution timer fires up to its slack late (Linux lets the kernel batch expiries
/// within it, and a quiet core has nothing to batch with, so the whole slack is paid); a
/// tick-based one fires on the first tick at or after its time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SleepTimer {
    /// How late a timer fires beyond its time.
    pub slack: SimDuration,
    /// The timer tick sleeps end on (`ZERO`: high-resolution timers).
    pub tick: SimDuration,
}

impl SleepTimer {
    /// How long the shortest sleep takes, as fio measures it when it starts (a 1 µs
    /// `nanosleep`, the longest of ten): up to a tick, the slack, and the wakeup.
    pub fn granularity(&self, wakeup: SimDuration) -> SimDuration {
        self.tick + self.slack + wakeup
    }

    /// When the timer of a sleep asked to end at `until` fires (ticks count from the run's
    /// start).
    pub fn fires(&self, until: SimTime) -> SimTime {
        let on_tick = match self.tick.as_ns() {
            0 => until,
            tick => SimTime(until.0.div_ceil(tick) * tick),
        };
        on_tick + self.slack
    }
}

/// The operating system family a host profile describes (`host.os`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OsFamily {
    /// `linux`.
    Linux,
    /// `freebsd`.
    FreeBsd,
    /// `windows`.
    Windows,
    /// `none`: no host software at all, the bare twin.
    Bare,
}

impl OsFamily {
    /// Every family, by the name a profile gives it.
    pub const NAMES: [(&'static str, OsFamily); 4] = [
        ("linux", OsFamily::Linux),
        ("freebsd", OsFamily::FreeBsd),
        ("windows", OsFamily::Windows),
        ("none", OsFamily::Bare),
    ];

    /// The name a profile gives it.
    pub fn name(self) -> &'static str {
        match self {
            OsFamily::Linux => "linux",
            OsFamily::FreeBsd => "freebsd",
            OsFamily::Windows => "windows",
            OsFamily::Bare => "none",
        }
    }
}

impl std::fmt::Display for OsFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How an engine's thread waits for its I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// One I/O at a time; the thread blocks in the system call.
    Sync,
    /// A queue of I/Os submitted and reaped in batches.
    Async,
    /// Kernel threads whose completion handler issues the next command itself.
    KernelCallback,
}

/// One engine, built: costs already divided by the speed factor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCosts {
    /// fio's name.
    pub name: String,
    /// How it waits.
    pub kind: EngineKind,
    /// Goes through the block layer.
    pub block_layer: bool,
    /// Runs in a user-space program (fio's own costs apply).
    pub user_space: bool,
    /// Per submit call.
    pub submit_call: SimDuration,
    /// Per I/O submitted (engine part).
    pub submit_io: SimDuration,
    /// Per reap call.
    pub reap_call: SimDuration,
    /// Per I/O reaped.
    pub reap_io: SimDuration,
    /// Per completion in interrupt context (engine part).
    pub complete_io: SimDuration,
    /// Per dispatch lookaside reap call.
    pub lookaside_call: SimDuration,
    /// Per completion found by polling, if the engine can poll.
    pub poll_io: Option<SimDuration>,
    /// Saved per I/O with `fixedbufs`.
    pub fixedbufs_saving: SimDuration,
    /// Saved per I/O with `registerfiles`.
    pub registerfiles_saving: SimDuration,
}

/// A file system, built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FsCosts {
    /// Name.
    pub name: String,
    /// Per direct I/O.
    pub direct_io: SimDuration,
    /// Per buffered call.
    pub buffered_io: SimDuration,
}

/// A validated host.
#[derive(Clone, Debug, PartialEq)]
pub struct HostConfig {
    /// Profile name (`none` for the bare twin).
    pub name: String,
    /// Where it came from.
    pub source: String,
    /// The resolved profile as TOML.
    pub profile_toml: String,
    /// Description.
    pub description: String,
    /// OS family.
    pub os: OsFamily,
    /// Cores.
    pub cores: u32,
    /// Speed of a core relative to the reference core; every cost is already divided by it.
    pub speed_factor: f64,
    /// NUMA nodes; node `n` has cores `n·cores/nodes` to `(n+1)·cores/nodes − 1`.
    pub numa_nodes: u32,
    /// DRAM, bytes.
    pub dram_bytes: u64,
    /// System call entry and exit.
    pub syscall: SimDuration,
    /// Interrupt entry and exit.
    pub irq: SimDuration,
    /// Wakeup of a blocked thread.
    pub wakeup: SimDuration,
    /// How I/O calls and wakeups vary around their costs.
    pub cpu_jitter: CpuJitter,
    /// When sleeps end.
    pub sleep_timer: SleepTimer,
    /// HMB cap, bytes (`None`: no cap).
    pub nvme_hmb_cap_bytes: Option<u64>,
    /// How the NVMe driver builds the APST table.
    pub nvme_apst: HostApst,
    /// Interrupt coalescing the NVMe driver sets (`None`: off, the reset value).
    pub nvme_int_coalescing: Option<IntCoalescing>,
    /// Block-layer submit per request.
    pub block_submit: SimDuration,
    /// Block-layer completion per request.
    pub block_complete: SimDuration,
    /// Largest request the block layer sends, bytes.
    pub max_request_bytes: u64,
    /// fio per I/O before submission.
    pub fio_prep: SimDuration,
    /// fio per I/O after completion.
    pub fio_complete: SimDuration,
    /// Engines by name, in name order.
    pub engines: Vec<EngineCosts>,
    /// File systems by name, in name order.
    pub file_systems: Vec<FsCosts>,
    /// The file system job files live on.
    pub default_fs: Option<String>,
    /// The page cache, if the host models one.
    pub page_cache: Option<crate::os::PageCacheConfig>,
    /// Virtual memory, if the host models it.
    pub vm: Option<crate::os::vm::VmConfig>,
    /// DRAM and compute rates, if given.
    pub memory: Option<MemoryConfig>,
    /// Block-layer submission per 4 KiB unit of a request (a host-side FTL's driver; zero
    /// for the default path).
    pub block_unit: SimDuration,
    /// Drivers by name, in name order.
    pub drivers: Vec<DriverCosts>,
}

/// `[memory]`, built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryConfig {
    /// One core streaming through DRAM, bytes per second.
    pub core_bytes_per_sec: f64,
    /// Every core together, bytes per second.
    pub socket_bytes_per_sec: f64,
    /// One core's sustained flops per second on stencil code.
    pub core_flops_per_sec: f64,
}

/// A block driver, built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverCosts {
    /// Name.
    pub name: String,
    /// Per request submitted.
    pub submit: SimDuration,
    /// Per request completed.
    pub complete: SimDuration,
    /// Per 4 KiB unit of a request.
    pub unit: SimDuration,
}

impl HostConfig {
    /// True for the bare twin: no host software at all.
    pub fn is_none(&self) -> bool {
        self.os == OsFamily::Bare
    }

    /// The engine fio calls `name`, if this host offers it.
    pub fn engine(&self, name: &str) -> Option<&EngineCosts> {
        self.engines.iter().find(|e| e.name == name)
    }

    /// The cores of NUMA node `node`.
    pub fn node_cores(&self, node: u32) -> std::ops::Range<u32> {
        let per = |n: u32| (u64::from(n) * u64::from(self.cores) / u64::from(self.numa_nodes)) as u32;
        per(node)..per(node + 1)
    }

    /// Names of the engines this host offers.
    pub fn engine_names(&self) -> Vec<&str> {
        self.engines.iter().map(|e| e.name.as_str()).collect()
    }

    /// The driver `name`, if this host's profile gives its costs.
    pub fn driver(&self, name: &str) -> Option<&DriverCosts> {
        self.drivers.iter().find(|d| d.name == name)
    }

    /// The file system `name`, if this host has it.
    pub fn fs(&self, name: &str) -> Option<&FsCosts> {
        self.file_systems.iter().find(|f| f.name == name)
    }
}

/// How a host's NVMe driver sets up APST.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostApst {
    /// Its rules for the table.
    pub policy: ApstPolicy,
    /// States with a longer exit latency are not used (`default_ps_max_latency_us`).
    pub max_exit_latency: SimDuration,
}
