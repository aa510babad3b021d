//! A job, as fio defines it, in validated and typed form.
//!
//! The fio parser (`workload::fio`) turns job files and command lines into a [`JobSet`];
//! the runner (`workload::runner`) executes it on a device. Every field has fio's meaning
//! (fio HOWTO, "Job file parameters"); where ssdtwin narrows or interprets one, the field doc
//! says so.

/// Data direction, in fio's order (the index is fio's `ddir`: 0 read, 1 write, 2 trim).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Reads.
    Read = 0,
    /// Writes.
    Write = 1,
    /// Trims (deallocate).
    Trim = 2,
}

impl Direction {
    /// All directions, in fio's order.
    pub const ALL: [Direction; 3] = [Direction::Read, Direction::Write, Direction::Trim];

    /// fio's `ddir` index.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Lower-case name as in fio's JSON (`read`, `write`, `trim`).
    pub const fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Trim => "trim",
        }
    }
}

/// `rw=` / `readwrite=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwPattern {
    /// `read`: sequential reads.
    Read,
    /// `write`: sequential writes.
    Write,
    /// `trim`: sequential trims.
    Trim,
    /// `randread`.
    RandRead,
    /// `randwrite`.
    RandWrite,
    /// `randtrim`.
    RandTrim,
    /// `rw` / `readwrite`: sequential mixed reads and writes.
    ReadWrite,
    /// `randrw`.
    RandRw,
    /// `trimwrite`: trim a block, then write it, sequentially.
    TrimWrite,
}

/// fio's `exit_what`: the clones a finishing job ends under `exitall`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitWhat {
    /// Those of its reporting group (fio's default).
    Group,
    /// Those running now, in any group; jobs not started yet still run.
    Stonewall,
    /// Every other clone, started or not.
    All,
}

/// fio's `rw_sequencer`: the offset of an I/O of a random job that does not draw a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RwSequencer {
    /// Right after the previous I/O.
    Sequential,
    /// The previous I/O's offset again.
    Identical,
}

/// fio's `fadvise_hint=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FadviseHint {
    /// `0`: no advice.
    Off,
    /// `1` (fio's default): sequential or random as the job's `rw=` is.
    Workload,
    /// `sequential`.
    Sequential,
    /// `random`.
    Random,
}

impl RwPattern {
    /// True if offsets are random.
    pub fn is_random(self) -> bool {
        matches!(self, RwPattern::RandRead | RwPattern::RandWrite | RwPattern::RandTrim | RwPattern::RandRw)
    }

    /// fio's spelling.
    pub fn name(self) -> &'static str {
        match self {
            RwPattern::Read => "read",
            RwPattern::Write => "write",
            RwPattern::Trim => "trim",
            RwPattern::RandRead => "randread",
            RwPattern::RandWrite => "randwrite",
            RwPattern::RandTrim => "randtrim",
            RwPattern::ReadWrite => "rw",
            RwPattern::RandRw => "randrw",
            RwPattern::TrimWrite => "trimwrite",
        }
    }

    /// True if the pattern issues I/O in `dir`.
    pub fn uses(self, dir: Direction) -> bool {
        match self {
            RwPattern::Read | RwPattern::RandRead => dir == Direction::Read,
            RwPattern::Write | RwPattern::RandWrite => dir == Direction::Write,
            RwPattern::Trim | RwPattern::RandTrim => dir == Direction::Trim,
            RwPattern::ReadWrite | RwPattern::RandRw => dir != Direction::Trim,
            RwPattern::TrimWrite => dir != Direction::Read,
        }
    }
}

/// Block size of one direction (`bs`, `bsrange`/`blocksize_range`, `bssplit`).
#[derive(Clone, Debug, PartialEq)]
pub enum BlockSize {
    /// Every I/O this many bytes.
    Fixed(u64),
    /// Uniform over `[min, max]`, in multiples of `min` (fio aligns to the minimum).
    Range {
        /// Smallest size, bytes.
        min: u64,
        /// Largest size, bytes.
        max: u64,
    },
    /// Weighted choice: (size in bytes, percent); percents sum to 100.
    Split(Vec<(u64, f64)>),
}

impl BlockSize {
    /// Smallest size this can produce.
    pub fn min(&self) -> u64 {
        match self {
            BlockSize::Fixed(b) => *b,
            BlockSize::Range { min, .. } => *min,
            BlockSize::Split(v) => v.iter().map(|(b, _)| *b).min().unwrap_or(4096),
        }
    }

    /// Largest size this can produce.
    pub fn max(&self) -> u64 {
        match self {
            BlockSize::Fixed(b) => *b,
            BlockSize::Range { max, .. } => *max,
            BlockSize::Split(v) => v.iter().map(|(b, _)| *b).max().unwrap_or(4096),
        }
    }
}

/// A size that may be given as a share of the device (`size=20%`, `offset=10%`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SizeSpec {
    /// Bytes.
    Bytes(u64),
    /// Percent of the namespace, 0–100.
    Percent(f64),
    /// Zones of a zoned drive (fio's `z` suffix): a run turns them into bytes
    /// ([`JobSet::in_zones_of`]) before anything resolves them.
    Zones(u64),
}

impl SizeSpec {
    /// Bytes, given the namespace size.
    pub fn resolve(self, namespace_bytes: u64) -> u64 {
        match self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => (namespace_bytes as f64 * p / 100.0) as u64,
            SizeSpec::Zones(_) => unreachable!("a run turns zone counts into bytes first"),
        }
    }
}

/// One zone of `random_distribution=zoned:` (shares of accesses and of the region) or
/// `zoned_abs:` (region size in bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zone {
    /// Percent of accesses that fall in this zone.
    pub access_pct: f64,
    /// Size of the zone.
    pub size: ZoneSize,
}

/// Size of a zone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ZoneSize {
    /// Percent of the job's region (`zoned`).
    Percent(f64),
    /// Bytes (`zoned_abs`).
    Bytes(u64),
}

/// `random_distribution=`.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    /// Uniform (default).
    Random,
    /// Zipf with exponent `theta`; hot blocks scattered over the region unless `center` is
    /// given (then they start at that fraction of the region).
    Zipf {
        /// Exponent θ (> 0, ≠ 1).
        theta: f64,
        /// Optional placement of the hot spot, 0–1.
        center: Option<f64>,
    },
    /// Pareto with power `h` (0 < h < 1).
    Pareto {
        /// Power h.
        h: f64,
        /// Optional placement of the hot spot, 0–1.
        center: Option<f64>,
    },
    /// Gaussian with standard deviation `sigma_pct` percent of the region, centred at
    /// `center` (0–1, default 0.5).
    Normal {
        /// σ as percent of the region.
        sigma_pct: f64,
        /// Centre, 0–1.
        center: f64,
    },
    /// Access shares per zone, zones laid out from the start of the region.
    Zoned(Vec<Zone>),
}

/// fio's `zonemode=zbd`: writes go to zones' write pointers, full zones are reset before
/// they are written again (fio's `zbd.c`). The default is fio's: no option given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ZbdSpec {
    /// `zonesize=`: must match the drive's zone size if given.
    pub zone_size: Option<u64>,
    /// `max_open_zones=`: zones written at once, over every job (0: the drive's open limit).
    pub max_open_zones: u32,
    /// `job_max_open_zones=`: zones this job writes at once (0: no limit of its own).
    pub job_max_open_zones: u32,
    /// `zone_reset_threshold=` and `zone_reset_frequency=`: once the zones in the job's
    /// range hold this share of its `io_size`, one write in `1 / frequency` resets its zone
    /// first.
    pub reset_threshold: Option<f64>,
    /// `zone_reset_frequency=`.
    pub reset_frequency: Option<f64>,
    /// `read_beyond_wp=1`: reads are not kept below the write pointer.
    pub read_beyond_wp: bool,
    /// `ignore_zone_limits=1`: `max_open_zones` may exceed the drive's open limit.
    pub ignore_zone_limits: bool,
}

/// fio's data placement: the placement identifiers a job's writes name, and how each write
/// picks one (fio's `dp_fill_dspec_data`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementSpec {
    /// `plids=`: indices into the drive's reclaim unit handle status list, sorted (`None`:
    /// every handle the drive reports, up to 128).
    pub indices: Option<Vec<u16>>,
    /// `plid_select=`.
    pub select: PlidSelect,
}

/// `plid_select=`: how each write picks its placement identifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlidSelect {
    /// The next one in the list, wrapping (fio's default).
    RoundRobin,
    /// One drawn uniformly from the list.
    Random,
}

/// One job section (before `numjobs` cloning).
// Each flag is one of fio's boolean options, named as fio names it.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// `name=` or the section name.
    pub name: String,
    /// Options set in the job's own section or after its `--name`, as written (for fio's
    /// `"job options"`). Bare flags are omitted, as fio omits them.
    pub options: Vec<(String, String)>,
    /// `rw=`.
    pub rw: RwPattern,
    /// `rw=PATTERN:N` with a sequential pattern: bytes added to each next offset (fio's
    /// `ddir_seq_add`; negative reads backwards), 0 without a modifier.
    pub rw_seq_add: i64,
    /// `rw=PATTERN:N` with a random pattern: every `N`-th I/O takes a new random offset and
    /// the others follow `rw_sequencer` (fio's `ddir_seq_nr`); 1 without a modifier.
    pub rw_seq_nr: u32,
    /// `rw_sequencer=`: where the I/Os between two random offsets go.
    pub rw_sequencer: RwSequencer,
    /// `rwmixread=` (percent of reads in mixed patterns; `rwmixwrite=` sets 100 − it).
    pub rwmix_read: u32,
    /// Block size per direction.
    pub bs: [BlockSize; 3],
    /// `size=`: region and byte budget per clone. `None`: the whole namespace.
    pub size: Option<SizeSpec>,
    /// `offset=`: start of the region.
    pub offset: SizeSpec,
    /// `offset_increment=`: added to the offset per clone (clone k starts at
    /// `offset + k * offset_increment`).
    pub offset_increment: SizeSpec,
    /// `io_size=`/`io_limit=`: bytes of I/O per clone, independent of the region.
    pub io_size: Option<SizeSpec>,
    /// `number_ios=`: I/Os per clone.
    pub number_ios: Option<u64>,
    /// `loops=`: repeat the whole workload.
    pub loops: u32,
    /// `runtime=`, ns.
    pub runtime_ns: Option<u64>,
    /// `time_based`.
    pub time_based: bool,
    /// `ramp_time=`, ns.
    pub ramp_time_ns: u64,
    /// `startdelay=`, ns.
    pub startdelay_ns: u64,
    /// `iodepth=`.
    pub iodepth: u32,
    /// `numjobs=`.
    pub numjobs: u32,
    /// `group_reporting`.
    pub group_reporting: bool,
    /// `stonewall` / `wait_for_previous`: wait for earlier jobs and start a new group.
    pub stonewall: bool,
    /// `new_group`: start a new reporting group without waiting.
    pub new_group: bool,
    /// `wait_for=NAME`: start only when every clone of the earlier job `NAME` has finished.
    pub wait_for: Option<String>,
    /// `exitall`: when a clone of a job with it finishes, end others (fio sets this for the
    /// whole run as soon as one job has it).
    pub exitall: bool,
    /// `exit_what=`: which clones `exitall` ends when this job finishes.
    pub exit_what: ExitWhat,
    /// `direct=` (`buffered=` negated): `O_DIRECT`, or through the host's page cache.
    pub direct: bool,
    /// `invalidate=`: drop the region's clean cached pages before the job starts (fio's
    /// default; ignored with `pre_read`).
    pub invalidate: bool,
    /// `pre_read=`: read the region into the page cache before the job starts.
    pub pre_read: bool,
    /// `fadvise_hint=`: the access advice fio gives the kernel for its files (the mmap
    /// engine's `posix_madvise` on the mapping; other engines' `posix_fadvise` is not
    /// modelled).
    pub fadvise_hint: FadviseHint,
    /// `fsync=`: an fsync after every this many writes issued (0: none).
    pub fsync_blocks: u64,
    /// `fdatasync=`: an fdatasync after every this many writes issued (0: none).
    pub fdatasync_blocks: u64,
    /// `end_fsync=`, `fsync_on_close=` or `end_syncfs=`: one fsync when a writing job ends
    /// (the job has one file, so the three agree).
    pub end_fsync: bool,
    /// `sync=1|sync|dsync`: writes with `O_SYNC`/`O_DSYNC`, on stable storage when the call
    /// returns.
    pub sync_writes: bool,
    /// `ioengine=`: the host profile gives its costs and how it waits (synchronous engines
    /// keep one I/O in flight whatever `iodepth` says, as fio's do).
    pub ioengine: String,
    /// `iodepth_batch_submit=` (`iodepth_batch`): I/Os queued before a submit call; 0
    /// means `iodepth`.
    pub iodepth_batch_submit: u32,
    /// `iodepth_batch_complete_min=`: completions a reap call waits for (0: none; it
    /// then polls without waiting).
    pub iodepth_batch_complete_min: u32,
    /// `iodepth_batch_complete_max=`: most completions one reap call takes (0: the
    /// minimum).
    pub iodepth_batch_complete_max: u32,
    /// `iodepth_low=`: once the queue filled, fio reaps until at most this many are in
    /// flight before queueing again (0: `iodepth`).
    pub iodepth_low: u32,
    /// `hipri`: poll for completions instead of waiting for interrupts.
    pub hipri: bool,
    /// `fdp=1` / `dataplacement=fdp`: each write names a placement identifier.
    pub placement: Option<PlacementSpec>,
    /// `zonemode=zbd`: the job writes a zoned drive's zones at their write pointers.
    pub zbd: Option<ZbdSpec>,
    /// `fixedbufs`: registered buffers (`io_uring`).
    pub fixedbufs: bool,
    /// `registerfiles`: registered files (`io_uring`).
    pub registerfiles: bool,
    /// `sqthread_poll`: a kernel thread submits (`io_uring`); the job's thread makes no
    /// submit call.
    pub sqthread_poll: bool,
    /// `cpus_allowed=` / `cpumask=`: CPUs the job's threads may run on (`None`: all).
    pub cpus_allowed: Option<Vec<u32>>,
    /// `cpus_allowed_policy=split`: each clone gets one CPU of the set, in order.
    pub cpus_split: bool,
    /// `numa_cpu_nodes=`: the job's threads run on the cores of these NUMA nodes (in place
    /// of `cpus_allowed`, as fio's `numa_run_on_node_mask`); empty: every node (`all`).
    pub numa_cpu_nodes: Option<Vec<u32>>,
    /// The nodes `numa_mem_policy=` names (where buffers live; checked against the host,
    /// no cost modelled).
    pub numa_mem_nodes: Vec<u32>,
    /// `filename=`: a device path (`/dev/…`, `\\.\PhysicalDriveN`) addresses the namespace;
    /// anything else names files on the host's file system (`:`-separated for several).
    pub filename: Option<String>,
    /// The other file options: how many files, how big, where, and how a clone moves
    /// between them.
    pub files: FileOptions,
    /// `steadystate=`/`ss=`, `ss_dur`, `ss_ramp`, `ss_interval`: stop once the job's IOPS or
    /// bandwidth is steady (off while `ss_dur` is 0).
    pub steadystate: SteadyStateSpec,
    /// `norandommap`.
    pub norandommap: bool,
    /// `zonemode=strided` (or `zonesize=` alone): I/O stays in one zone of the file until
    /// `size` bytes have gone to it, then moves on.
    pub strided_zones: Option<StridedZones>,
    /// `blockalign=` (`ba=`) per direction: the boundary random offsets are aligned to
    /// (`None`: the smallest block size). Setting it turns the random map off, as in fio.
    pub blockalign: [Option<u64>; 3],
    /// `randrepeat=`.
    pub randrepeat: bool,
    /// `randseed=`.
    pub randseed: Option<u64>,
    /// `random_distribution=` per direction.
    pub random_distribution: [Distribution; 3],
    /// `rate_iops=` per direction (`None`: unlimited).
    pub rate_iops: [Option<u64>; 3],
    /// `thinktime=`, ns: fio stalls this long (after letting its queue drain) every
    /// `thinktime_blocks` blocks.
    pub thinktime_ns: u64,
    /// `thinktime_spin=`, ns: the part of the stall spent spinning on the CPU.
    pub thinktime_spin_ns: u64,
    /// `thinktime_blocks=`: blocks between stalls.
    pub thinktime_blocks: u64,
    /// `thinktime_blocks_type=issue`: count issued blocks (default: completed).
    pub thinktime_blocks_issue: bool,
    /// `thinktime_iotime=`, ns: stall after this much I/O time instead (with
    /// `thinktime_blocks` unset).
    pub thinktime_iotime_ns: u64,
    /// `rate=` per direction, bytes per second (`None`: unlimited).
    pub rate_bytes: [Option<u64>; 3],
    /// `rate_min=` / `ratemin=` per direction, bytes per second: the job fails if it runs
    /// slower over a `rate_cycle`.
    pub rate_min: [Option<u64>; 3],
    /// `rate_iops_min=` per direction (used where no `rate_min` is set).
    pub rate_iops_min: [Option<u64>; 3],
    /// `rate_cycle=` / `ratecycle=`, ms: the window the minimum rates are judged over.
    pub rate_cycle_ms: u64,
    /// `rate_process=poisson`: exponentially distributed gaps between rate-limited I/Os
    /// (default `linear`: even gaps).
    pub rate_poisson: bool,
    /// `io_submit_mode=offload`: I/Os are queued at their rate schedule to submitting threads,
    /// so a rate-limited I/O's latency runs from its scheduled time (no coordinated omission).
    pub io_submit_offload: bool,
    /// `percentile_list=` (at most 20 values).
    pub percentile_list: Vec<f64>,
    /// Which latencies' percentiles are reported.
    pub percentiles_of: PercentilesOf,
    /// `significant_figures=`: figures of the normal report's IOPS, bandwidths and sizes (1 to 10).
    pub significant_figures: u8,
    /// `unified_rw_reporting`: directions reported apart (fio's default), summed into one
    /// `mixed` direction, or both.
    pub unified_rw_reporting: UnifiedRw,
    /// `write_lat_log=` prefix.
    pub write_lat_log: Option<String>,
    /// `write_bw_log=` prefix.
    pub write_bw_log: Option<String>,
    /// `write_iops_log=` prefix.
    pub write_iops_log: Option<String>,
    /// `log_avg_msec=` (0: one line per I/O).
    pub log_avg_msec: u64,
    /// `log_offset=`.
    pub log_offset: bool,
    /// `write_hist_log=` prefix.
    pub write_hist_log: Option<String>,
    /// `log_hist_msec=` (0: the histogram log stays empty, as in fio).
    pub log_hist_msec: u64,
    /// `log_hist_coarseness=` (0-6): each logged bucket sums 2^coarseness of fio's.
    pub log_hist_coarseness: u32,
    /// `log_prio=1`: logs give each command's priority (`0x` and its value) rather than
    /// whether it was real-time (0 or 1).
    pub log_prio: bool,
    /// `verify=` and its options: written blocks are read back and checked.
    pub verify: VerifySpec,
    /// `latency_target=` and its options: fio searches for the queue depth that meets it.
    pub latency_target: Option<LatencyTarget>,
    /// `max_latency=` per direction, ns: a completion slower than it fails the job.
    pub max_latency_ns: [Option<u64>; 3],
    /// `flow=`, `flow_id=`, `flow_sleep=`: jobs of one flow keep their I/O counts in the
    /// ratio of their weights.
    pub flow: Option<FlowSpec>,
    /// `prio=`, `prioclass=` and the `cmdprio*` options: the I/O priority of each command.
    pub priority: PrioritySpec,
    /// `read_iolog=`: the traces the job replays instead of generating I/O (clone `k` takes
    /// the `k`-th of a `:`-separated list, in turn), and the `replay_*` options.
    pub replay: Option<ReplaySpec>,
    /// `write_iolog=`: the job's I/O is written here as a fio iolog version 3.
    pub write_iolog: Option<String>,
    /// Whether `iodepth=` was given (a blktrace replay otherwise takes the depth it infers).
    pub iodepth_given: bool,
}

/// A job's traces and how they are replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplaySpec {
    /// The trace files.
    pub paths: Vec<String>,
    /// `replay_no_stall`, `replay_time_scale`, `replay_align`, `replay_scale`, `replay_skip`.
    pub options: super::trace::ReplayOptions,
    /// `merge_blktrace_file=`: the blktrace traces are first merged into this file, which
    /// is then replayed.
    pub merge_into: Option<String>,
    /// `merge_blktrace_scalars=`: each trace's times in percent (empty: 100 each).
    pub merge_scalars: Vec<u64>,
    /// `merge_blktrace_iters=`: how many times each trace repeats (empty: once each).
    pub merge_iters: Vec<u64>,
}

/// fio's `verify=` methods (`verify.h`): a checksum over each `verify_interval` of a block,
/// the header alone (`meta`), a pattern compare (`pattern`) or nothing (`null`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyMethod {
    /// `md5`.
    Md5,
    /// `crc64`.
    Crc64,
    /// `crc32`.
    Crc32,
    /// `crc32c` (or `crc32c-intel`: fio picks the hardware instruction when it can).
    Crc32c,
    /// `crc16`.
    Crc16,
    /// `crc7`.
    Crc7,
    /// `sha1`.
    Sha1,
    /// `sha256`.
    Sha256,
    /// `sha512`.
    Sha512,
    /// `sha3-224`.
    Sha3_224,
    /// `sha3-256`.
    Sha3_256,
    /// `sha3-384`.
    Sha3_384,
    /// `sha3-512`.
    Sha3_512,
    /// `xxhash`.
    Xxhash,
    /// `meta`: the block's header (offset, number, checksum of itself) only.
    Meta,
    /// `pattern`: `verify_pattern` compared, no header.
    Pattern,
    /// `null`: blocks are read back and not checked.
    Null,
}

/// `verify=` and the options that shape it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifySpec {
    /// `verify=` (`None`: `verify=0`, fio's default).
    pub method: Option<VerifyMethod>,
    /// `do_verify=` (default 1): a writing job reads back what it wrote after each pass.
    pub do_verify: bool,
    /// `verify_only`: a writing job writes nothing and reads back what it would have written.
    pub only: bool,
    /// `verify_backlog=N`: after every `N` blocks written, read back a batch of them.
    pub backlog: u64,
    /// `verify_backlog_batch=` (0: `verify_backlog`).
    pub backlog_batch: u64,
    /// `verify_async=N` (N > 0): threads other than the job's check the blocks.
    pub offloaded: bool,
    /// `verify_interval=`, bytes (0: fio's default, the write block size).
    pub interval: u64,
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            method: None,
            do_verify: true,
            only: false,
            backlog: 0,
            backlog_batch: 0,
            offloaded: false,
            interval: 0,
        }
    }
}

impl VerifySpec {
    /// Whether a writing job logs its writes and reads them back.
    pub fn reads_back(&self) -> bool {
        self.method.is_some() && self.do_verify
    }
}

/// `latency_target=` with `latency_window=`, `latency_percentile=` and `latency_run=`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyTarget {
    /// `latency_target=`, ns: an I/O's total latency must not exceed it.
    pub target_ns: u64,
    /// `latency_window=`, ns: how long each queue depth is tried.
    pub window_ns: u64,
    /// `latency_percentile=`: the share of I/Os, percent, that must meet the target.
    pub percentile: f64,
    /// `latency_run=1`: keep adjusting the depth for the whole run.
    pub keep_adjusting: bool,
}

/// `flow=` with `flow_id=` and `flow_sleep=` (fio's `flow.c`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowSpec {
    /// `flow_id=`: jobs with the same id share one flow counter.
    pub id: u32,
    /// `flow=`: the job's weight in its flow.
    pub weight: u32,
    /// `flow_sleep=`, ns: how long a job that is ahead of its share waits before it tries
    /// again.
    pub sleep_ns: u64,
}

/// An I/O priority as Linux encodes it (`ioprio`): a class (0 none, 1 real-time, 2
/// best-effort, 3 idle) and a level 0-7 within it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct IoPriority {
    /// 0 none, 1 real-time, 2 best-effort, 3 idle.
    pub class: u8,
    /// 0 (highest) to 7 within the class.
    pub level: u8,
}

/// One `cmdprio_bssplit=` entry: I/Os of `bytes` get `priority` with probability
/// `percent` (of that size's I/Os); `None`: the `cmdprio_class`/`cmdprio` one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrioritySplit {
    /// The I/O size the entry applies to.
    pub bytes: u64,
    /// Share of such I/Os, percent, that get `priority`.
    pub percent: u32,
    /// The priority they get.
    pub priority: Option<IoPriority>,
}

/// `prio=`/`prioclass=` (every command) and `cmdprio_percentage=`/`cmdprio_bssplit=`
/// (some commands) per direction (read, write), as fio's `cmdprio.c` assigns them.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PrioritySpec {
    /// `prioclass=` and `prio=` (0 when unset; fio's `ioprio_value` makes a class of 0 with
    /// a level best-effort).
    pub class: Option<u8>,
    /// `prio=`.
    pub level: Option<u8>,
    /// `cmdprio_class=` per direction (0: fio's default, real-time).
    pub cmd_class: [u8; 2],
    /// `cmdprio=` per direction.
    pub cmd_level: [u8; 2],
    /// `cmdprio_percentage=` per direction: share of I/Os, percent, given the `cmdprio`
    /// priority.
    pub percentage: [u32; 2],
    /// `cmdprio_bssplit=` per direction, entries with a zero share dropped, by size.
    pub bssplit: [Vec<PrioritySplit>; 2],
    /// The `cmdprio*` options that were given (they belong to the libaio and `io_uring`
    /// engines).
    pub cmd_options: Vec<&'static str>,
}

impl PrioritySpec {
    /// The job's own priority (fio's `td->ioprio`): 0 unless `prioclass=` or `prio=` is set.
    pub fn job_priority(&self) -> IoPriority {
        match (self.class, self.level) {
            (None, None) => IoPriority::default(),
            (class, level) => IoPriority { class: class.filter(|&c| c > 0).unwrap_or(2), level: level.unwrap_or(0) },
        }
    }

    /// The priority `cmdprio_class=`/`cmdprio=` give direction `d` (fio's default class:
    /// real-time).
    pub fn cmd_priority(&self, d: usize) -> IoPriority {
        IoPriority { class: if self.cmd_class[d] == 0 { 1 } else { self.cmd_class[d] }, level: self.cmd_level[d] }
    }

    /// Whether some commands of direction `d` get their own priority.
    pub fn splits(&self, d: usize) -> bool {
        self.percentage[d] > 0 || !self.bssplit[d].is_empty()
    }
}

impl IoPriority {
    /// Linux's encoding (`ioprio_value`): class << 13 | level.
    pub fn value(self) -> u32 {
        u32::from(self.class) << 13 | u32::from(self.level)
    }
}

/// fio's file options (HOWTO "Target file/device"), for jobs that do I/O on files.
// Each flag is one of fio's boolean options, named as fio names it.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Debug, PartialEq)]
pub struct FileOptions {
    /// `directory=`: where files are made (`:`-separated: files spread over them in turn).
    pub directory: Option<String>,
    /// `nrfiles=`: files per clone (0: not given, one file or as many as `filename` names).
    pub nrfiles: u32,
    /// `filesize=`: each file's size, bytes (`(low, high)`: a random size between them).
    pub filesize: Option<(u64, u64)>,
    /// `filename_format=` (default `$jobname.$jobnum.$filenum`).
    pub filename_format: Option<String>,
    /// `file_service_type=`.
    pub service: FileService,
    /// `create_on_open=1`: a file is made when opened, so nothing is laid out.
    pub create_on_open: bool,
    /// `overwrite=1`: a writing job lays its files out (writes them) before it starts.
    pub overwrite: bool,
    /// `create_only=1`: the job lays its files out and does no I/O.
    pub create_only: bool,
    /// `unlink=1`: the files are removed when the job ends.
    pub unlink: bool,
    /// `fill_device=1`: a new file without a size grows until the file system is full (a
    /// device without a size is written whole anyway).
    pub fill_device: bool,
}

impl Default for FileOptions {
    fn default() -> Self {
        FileOptions {
            directory: None,
            nrfiles: 0,
            filesize: None,
            filename_format: None,
            service: FileService::RoundRobin { every: 1 },
            create_on_open: false,
            overwrite: false,
            create_only: false,
            unlink: false,
            fill_device: false,
        }
    }
}

/// `file_service_type=`: which of its files a clone's next I/O goes to.
#[derive(Clone, Debug, PartialEq)]
pub enum FileService {
    /// The files in turn, `every` I/Os each (fio's default, `roundrobin`).
    RoundRobin {
        /// I/Os before moving on.
        every: u32,
    },
    /// One file until it is done, then the next (`sequential`).
    Sequential,
    /// A file drawn at random, kept for `every` I/Os (`random`).
    Random {
        /// I/Os before drawing again.
        every: u32,
    },
    /// A file drawn from a skewed distribution over the file numbers (`zipf:`, `pareto:`,
    /// `normal:`/`gauss:`), each I/O.
    Skewed(Distribution),
}

/// fio's steady-state criterion (`steadystate.c`): judged over the last `ss_dur` of
/// per-interval IOPS or bandwidth samples, by their largest deviation from their mean or by
/// their least-squares slope.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteadyStateSpec {
    /// Judge bandwidth (bytes/s) rather than IOPS.
    pub bandwidth: bool,
    /// Judge the slope rather than the largest deviation from the mean.
    pub slope: bool,
    /// The limit: below it the job is steady.
    pub limit: f64,
    /// `limit` is a percentage of the window's mean.
    pub percent: bool,
    /// `ss_dur`, ns: the window (0: steady-state detection off).
    pub dur_ns: u64,
    /// `ss_ramp`, ns: no samples are taken before it has passed (plus one interval).
    pub ramp_ns: u64,
    /// `ss_interval`, ns: the sampling period (fio 3.33: always 1 s).
    pub interval_ns: u64,
}

impl Default for SteadyStateSpec {
    /// fio's default `iops_slope:0.01%`, off until `ss_dur` is given.
    fn default() -> Self {
        SteadyStateSpec {
            bandwidth: false,
            slope: true,
            limit: 0.01,
            percent: true,
            dur_ns: 0,
            ramp_ns: 0,
            interval_ns: 1_000_000_000,
        }
    }
}

impl SteadyStateSpec {
    /// Samples in the window.
    pub fn samples(&self) -> usize {
        (self.dur_ns / self.interval_ns.max(1)) as usize
    }

    /// fio's echo of the criterion, as in its JSON (`iops_slope:0.010000%`).
    pub fn label(&self) -> String {
        format!(
            "{}{}:{:.6}{}",
            if self.bandwidth { "bw" } else { "iops" },
            if self.slope { "_slope" } else { "" },
            self.limit as f32,
            if self.percent { "%" } else { "" }
        )
    }
}

/// `slat_percentiles=`, `clat_percentiles=` and `lat_percentiles=`: which latencies fio
/// reports percentiles of (completion latency only, by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PercentilesOf {
    /// Submission latency.
    pub slat: bool,
    /// Completion latency.
    pub clat: bool,
    /// Total latency.
    pub lat: bool,
}

impl Default for PercentilesOf {
    fn default() -> Self {
        PercentilesOf { slat: false, clat: true, lat: false }
    }
}

/// fio's default percentile list.
pub const DEFAULT_PERCENTILES: [f64; 17] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

impl JobSpec {
    /// A job with fio's defaults (`rw=read`, `bs=4k`, `iodepth=1`, ...) and `direct=1`.
    pub fn new(name: &str) -> Self {
        JobSpec {
            name: name.to_string(),
            options: Vec::new(),
            rw: RwPattern::Read,
            rw_seq_add: 0,
            rw_seq_nr: 1,
            rw_sequencer: RwSequencer::Sequential,
            wait_for: None,
            exitall: false,
            exit_what: ExitWhat::Group,
            rwmix_read: 50,
            bs: [BlockSize::Fixed(4096), BlockSize::Fixed(4096), BlockSize::Fixed(4096)],
            size: None,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            io_size: None,
            number_ios: None,
            loops: 1,
            runtime_ns: None,
            time_based: false,
            ramp_time_ns: 0,
            startdelay_ns: 0,
            iodepth: 1,
            numjobs: 1,
            group_reporting: false,
            stonewall: false,
            new_group: false,
            direct: true,
            invalidate: true,
            fadvise_hint: FadviseHint::Workload,
            pre_read: false,
            fsync_blocks: 0,
            fdatasync_blocks: 0,
            end_fsync: false,
            sync_writes: false,
            ioengine: "psync".to_string(),
            iodepth_batch_submit: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: 0,
            iodepth_low: 0,
            hipri: false,
            placement: None,
            zbd: None,
            fixedbufs: false,
            registerfiles: false,
            sqthread_poll: false,
            cpus_allowed: None,
            cpus_split: false,
            numa_cpu_nodes: None,
            numa_mem_nodes: Vec::new(),
            filename: None,
            files: FileOptions::default(),
            steadystate: SteadyStateSpec::default(),
            norandommap: false,
            strided_zones: None,
            blockalign: [None; 3],
            randrepeat: true,
            randseed: None,
            random_distribution: [Distribution::Random, Distribution::Random, Distribution::Random],
            rate_iops: [None; 3],
            thinktime_ns: 0,
            thinktime_spin_ns: 0,
            thinktime_blocks: 1,
            thinktime_blocks_issue: false,
            thinktime_iotime_ns: 0,
            rate_bytes: [None; 3],
            rate_min: [None; 3],
            rate_iops_min: [None; 3],
            rate_cycle_ms: 1000,
            io_submit_offload: false,
            rate_poisson: false,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            percentiles_of: PercentilesOf::default(),
            significant_figures: 4,
            unified_rw_reporting: UnifiedRw::None,
            write_lat_log: None,
            write_bw_log: None,
            write_iops_log: None,
            log_avg_msec: 0,
            log_offset: false,
            write_hist_log: None,
            log_hist_msec: 0,
            log_hist_coarseness: 0,
            log_prio: false,
            verify: VerifySpec::default(),
            latency_target: None,
            max_latency_ns: [None; 3],
            flow: None,
            priority: PrioritySpec::default(),
            replay: None,
            write_iolog: None,
            iodepth_given: false,
        }
    }
}

/// Everything a job file or command line defines.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct JobSet {
    /// Options from `[global]` sections or before the first `--name`, as written (fio's
    /// `"global options"`).
    pub global_options: Vec<(String, String)>,
    /// Jobs in order.
    pub jobs: Vec<JobSpec>,
}

impl JobSet {
    /// The set with sizes given in zones (`size=8z`, fio's `z` suffix) in bytes of zones of
    /// `zone_bytes` (`None`: the target is not zoned, and such sizes are refused); `None`
    /// if no size is given in zones.
    pub fn in_zones_of(&self, zone_bytes: Option<u64>) -> Result<Option<JobSet>, super::JobError> {
        let zoned = |s: &SizeSpec| matches!(s, SizeSpec::Zones(_));
        let uses = |j: &JobSpec| {
            j.size.as_ref().is_some_and(zoned)
                || j.io_size.as_ref().is_some_and(zoned)
                || zoned(&j.offset)
                || zoned(&j.offset_increment)
        };
        let Some(first) = self.jobs.iter().find(|j| uses(j)) else { return Ok(None) };
        let Some(zone) = zone_bytes else {
            return Err(super::JobError::Invalid {
                job: first.name.clone(),
                problem: "sizes in zones (the z suffix) need a zoned drive (a profile with [zns])".into(),
            });
        };
        let bytes = |s: SizeSpec| match s {
            SizeSpec::Zones(n) => SizeSpec::Bytes(n.saturating_mul(zone)),
            other => other,
        };
        let mut set = self.clone();
        for j in &mut set.jobs {
            j.size = j.size.map(bytes);
            j.io_size = j.io_size.map(bytes);
            j.offset = bytes(j.offset);
            j.offset_increment = bytes(j.offset_increment);
        }
        Ok(Some(set))
    }
}

/// fio's strided zones (`zonemode=strided`): I/O happens in one zone, `range` bytes from its
/// start, until `size` bytes have been transferred there; then the next zone begins `range +
/// skip` bytes further on, from the start of the file again past its end. Random offsets are
/// drawn within the zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StridedZones {
    /// `zonesize`: bytes transferred in a zone before the next.
    pub size: u64,
    /// `zonerange`: a zone's extent (default `zonesize`).
    pub range: u64,
    /// `zoneskip`: bytes skipped between zones.
    pub skip: u64,
}

/// fio's `unified_rw_reporting`: how a job's directions are reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnifiedRw {
    /// `none`: read, write and trim apart.
    #[default]
    None,
    /// `mixed`: all directions summed into one, reported as `mixed`.
    Mixed,
    /// `both`: apart, and summed after them.
    Both,
}
