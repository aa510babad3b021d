//! The host stack: a machine and its kernel between the workload and a block target.
//!
//! Read first: Linux `block/blk-mq.c` (submission, completion), `drivers/nvme/host/pci.c`
//! (`nvme_queue_rq`, `nvme_irq`, `nvme_poll`), fio's `backend.c` and `ioengines.c` for the
//! loop that drives it, and `docs/model.md` § "Host stack", which lists what is simplified.
//!
//! [`Host`] owns the block target it wraps (any [`BlockDevice`], by value or as `&mut`), the
//! [`Cpu`] its threads and interrupt handlers run on, and the block layer's request table
//! (for split I/O and the host's own; an I/O of one command carries what its completion
//! needs in the command's tag: `tag.rs` names the bits).
//! The workload runner books thread work on cores ([`Host::cpu_mut`]), submits I/Os with
//! [`Host::submit`] (split at the largest request the block layer sends, each part a
//! device command) and learns of finished I/Os from [`Host::poll`] once their interrupt
//! handler has run on the submitting CPU's queue's core. A [`HostConfig`] from a host
//! profile ([`load_host`]) gives every cost; the `none` profile gives none, and then the
//! host adds nothing to what the target does and schedules nothing of its own.
//!
//! The host is not itself a block target (it does not implement [`BlockDevice`]): it is
//! the workload's only target, the one seam between the workload and the block targets.
//! The fio runner reaches its target only through it, including its unmeasured I/O
//! (laying out files before a phase, [`Host::lay_out`]; draining leftovers,
//! [`Host::drain`]) and the target's clock, geometry and counters. Callers' tags are
//! opaque `u64`s, the runner's an [`IoTag`]; the tag the host gives each command is a
//! `CommandTag` (`tag.rs`), built and read in one place.
//!
//! Call protocol, as [`BlockDevice`]'s: [`Host::poll_at`] says when the host next needs
//! [`Host::poll`]; every `now` passed in is at or after the last event processed.

mod apst;
mod buffered;
mod coalesce;
mod cpu;
mod hmb;
mod md;
pub mod page_cache;
mod profile;
mod tag;
mod unmeasured;
pub mod vm;

pub use buffered::{BufferedIo, BufferedStart, PageCacheConfig};
pub use tag::{CloneId, IoTag};
pub use unmeasured::UnmeasuredError;

pub use apst::configure_apst;
pub use cpu::{Booking, CoreId, CoreTime, Cpu};
pub use hmb::{HmbSetting, negotiate_hmb};
pub use md::{Md, MdLayout};
pub use profile::{
    CpuJitter, DriverCosts, EngineCosts, EngineKind, FsCosts, HostApst, HostConfig, HostProfile, IntCoalescing,
    MemoryConfig, OsFamily, SHIPPED_HOSTS, SleepTimer, build_host, ideal_host_overrides, load_host, shipped_host_names,
};

use crate::block::{BlockDevice, BlockGeometry, Command, CounterRow, Opcode, PlacementId};
use crate::engine::{EventQueue, SimDuration, SimTime, Slab};
use strength_reduce::StrengthReducedU64;
use tag::CommandTag;

/// One I/O as the workload asks for it: bytes on the target, before any splitting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    /// Read, write, trim or flush.
    pub opcode: Opcode,
    /// First byte.
    pub offset_bytes: u64,
    /// Length (0 for a flush).
    pub bytes: u64,
    /// A write's placement directive, passed to every command it becomes (FDP drives).
    pub placement: Option<PlacementId>,
}

/// How an I/O's completion is noticed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionPath {
    /// An interrupt on `core` runs `work` (block layer and engine completion).
    Interrupt {
        /// The core whose queue's vector takes the interrupt.
        core: CoreId,
        /// Handler work per I/O, beyond the interrupt entry.
        work: SimDuration,
    },
    /// The submitter polls for it: it is visible as soon as the target posts it.
    Polled,
}

/// An I/O whose completion the submitter can now see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoDone {
    /// The tag given to [`Host::submit`].
    pub tag: u64,
    /// When the target posted the last part's completion.
    pub device_done: SimTime,
    /// When the submitter can see it (after the interrupt handler, if any).
    pub visible: SimTime,
}

/// The block device's statistics as the kernel keeps them (`/proc/diskstats`, what fio's
/// `disk_util` reads): per command, counted when it completes; times in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskStats {
    /// Read commands completed.
    pub read_ios: u64,
    /// Write commands completed.
    pub write_ios: u64,
    /// Time read commands spent at the device, summed.
    pub read_ns: u64,
    /// Time write commands spent at the device, summed.
    pub write_ns: u64,
    /// Time every command spent at the device, summed (`time_in_queue`).
    pub in_queue_ns: u64,
    /// Time with at least one command at the device (`io_ticks`).
    pub busy_ns: u64,
}

impl DiskStats {
    /// The statistics of the span since `earlier`.
    #[must_use]
    pub fn since(&self, earlier: &DiskStats) -> DiskStats {
        DiskStats {
            read_ios: self.read_ios - earlier.read_ios,
            write_ios: self.write_ios - earlier.write_ios,
            read_ns: self.read_ns - earlier.read_ns,
            write_ns: self.write_ns - earlier.write_ns,
            in_queue_ns: self.in_queue_ns - earlier.in_queue_ns,
            busy_ns: self.busy_ns - earlier.busy_ns,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Request {
    tag: u64,
    io: IoRequest,
    parts_left: u32,
    path: CompletionPath,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// A request reaches the block target.
    Submit { request: u32 },
    /// A request's completion becomes visible to its submitter: `command_tag` is the tag
    /// its (last) command carried.
    Visible { command_tag: CommandTag, device_done: SimTime },
    /// A caller's I/O that [`Host::poll_early`] returned ahead of its visible time, handed
    /// back with [`Host::defer`]: it comes back now.
    Seen { tag: u64, device_done: SimTime },
    /// Buffered I/O: a waiting call completes, a throttled writer wakes, the flusher runs.
    Buffered(buffered::BufferedEvent),
    /// Virtual memory: kswapd's next batch, a waiting thread's wakeup.
    Vm(vm::VmEvent),
    /// Interrupt coalescing: the aggregation time of `core`'s window `generation` ran out.
    CoalesceTimer { core: CoreId, generation: u32 },
}

/// A host over block target `D`. See the module documentation.
pub struct Host<D: BlockDevice> {
    config: HostConfig,
    device: D,
    cpu: Cpu,
    /// Largest command the block layer sends: its limit and the target's, bytes.
    request_bytes: u64,
    /// The target's block size (fixed while the host holds it), as a divisor by
    /// multiplication: each I/O's offset and length are divided by it.
    lba_bytes: StrengthReducedU64,
    /// The bare host: nothing costs time, so no interrupt is ever booked.
    free: bool,
    /// CPUs per hardware queue: a queue's interrupt runs on its group's first CPU.
    cpus_per_queue: u32,
    requests: Slab<Request>,
    /// The completion paths direct commands name by index, each once, and per core the
    /// interrupt path last seen there (a thread's I/O takes the same one each time).
    paths: Vec<CompletionPath>,
    last_path_on_core: Vec<(SimDuration, u32)>,
    events: EventQueue<Event>,
    in_flight: u32,
    /// Commands at the target, and since when there has been at least one.
    commands_at_device: u32,
    busy_from: SimTime,
    disk: DiskStats,
    /// The page cache, on hosts that have one.
    buffered: Option<Box<buffered::BufferedState>>,
    /// Virtual memory, made on first use on hosts that have it.
    vm: Option<Box<vm::VmState>>,
    /// Host DRAM the target's drivers keep for themselves (a host-side FTL's tables).
    driver_memory_bytes: u64,
    /// Memory the kernel leaves for pages, if set instead of the profile's.
    vm_memory_bytes: Option<u64>,
    /// Completion entries held back by interrupt coalescing, where the driver set it.
    coalescer: Option<Box<coalesce::Coalescer>>,
}

impl<D: BlockDevice> Host<D> {
    /// `device` behind the host `config`. A target whose host interface names a driver the
    /// profile gives costs for (`[drivers.NAME]`) pays those instead of `[block]`'s, and the
    /// host DRAM its driver keeps is taken from what virtual memory may use.
    pub fn new(device: D, mut config: HostConfig) -> Self {
        let geometry = device.geometry();
        let interface = device.host_interface();
        if let Some(d) = interface.as_ref().and_then(|i| config.driver(&i.driver)).cloned() {
            config.block_submit = d.submit;
            config.block_complete = d.complete;
            config.block_unit = d.unit;
        }
        let driver_memory_bytes = interface.as_ref().map_or(0, |i| i.host_memory_bytes);
        let request_bytes = if config.is_none() {
            geometry.max_transfer_bytes
        } else {
            let lba = geometry.lba_bytes;
            (config.max_request_bytes / lba * lba).max(lba).min(geometry.max_transfer_bytes)
        };
        let queues = geometry.hardware_queues.clamp(1, config.cores);
        // The drivers' own memory comes off the page cache's too.
        let buffered = config.page_cache.clone().map(|mut pc| {
            pc.memory_bytes = pc.memory_bytes.saturating_sub(driver_memory_bytes).max(pc.page_bytes);
            Box::new(buffered::BufferedState::new(pc, geometry.capacity_bytes(), request_bytes))
        });
        Host {
            buffered,
            cpu: Cpu::new(config.cores),
            cpus_per_queue: config.cores.div_ceil(queues),
            request_bytes,
            lba_bytes: StrengthReducedU64::new(geometry.lba_bytes),
            free: config.is_none(),
            requests: Slab::default(),
            paths: vec![CompletionPath::Polled],
            last_path_on_core: vec![(SimDuration::ZERO, u32::MAX); config.cores as usize],
            events: EventQueue::with_capacity(256),
            in_flight: 0,
            commands_at_device: 0,
            busy_from: SimTime::ZERO,
            disk: DiskStats::default(),
            vm: None,
            driver_memory_bytes,
            vm_memory_bytes: None,
            coalescer: config
                .nvme_int_coalescing
                .filter(|_| !config.is_none())
                .map(|c| Box::new(coalesce::Coalescer::new(c, config.cores))),
            config,
            device,
        }
    }

    /// The host's configuration.
    pub fn config(&self) -> &HostConfig {
        &self.config
    }

    /// The block target.
    pub fn device(&self) -> &D {
        &self.device
    }

    /// The block target, to drive it directly between runs.
    pub fn device_mut(&mut self) -> &mut D {
        &mut self.device
    }

    /// The simulated present: the block target's clock.
    pub fn now(&self) -> SimTime {
        self.device.now()
    }

    /// The block target's geometry.
    pub fn geometry(&self) -> BlockGeometry {
        self.device.geometry()
    }

    /// The name of the block target's profile.
    pub fn target_profile(&self) -> &str {
        self.device.profile()
    }

    /// Commands at the block target, as it counts them.
    pub fn target_in_flight(&self) -> u32 {
        self.device.in_flight()
    }

    /// Appends the block target's counters under `prefix` (the host's own are
    /// [`Self::counters`]).
    pub fn target_counters(&self, prefix: &str, out: &mut CounterRow) {
        self.device.counters(prefix, out);
    }

    /// Seeds the block target's variability streams from a run's seed.
    pub fn reseed_target(&mut self, seed: u64) {
        self.device.reseed(seed);
    }

    /// Gives the block target back.
    pub fn into_device(self) -> D {
        self.device
    }

    /// The cores.
    pub fn cpu(&self) -> &Cpu {
        &self.cpu
    }

    /// The cores, to book thread and handler work.
    pub fn cpu_mut(&mut self) -> &mut Cpu {
        &mut self.cpu
    }

    /// The core whose queue takes the completion interrupts of I/O submitted on `core`:
    /// blk-mq maps groups of CPUs to each hardware queue, and a queue's vector fires on
    /// the first CPU of its group.
    pub fn irq_core(&self, core: CoreId) -> CoreId {
        CoreId(core.0 / self.cpus_per_queue * self.cpus_per_queue)
    }

    /// Largest request the block layer sends to the target, bytes.
    pub fn request_bytes(&self) -> u64 {
        self.request_bytes
    }

    /// Requests the block layer makes of an I/O of `bytes` (a deallocate is never split).
    #[inline]
    pub fn parts(&self, opcode: Opcode, bytes: u64) -> u32 {
        match opcode {
            Opcode::Trim | Opcode::Flush | Opcode::ZoneSend { .. } | Opcode::ZoneAppend => 1,
            _ if bytes <= self.request_bytes => 1,
            _ => bytes.div_ceil(self.request_bytes) as u32,
        }
    }

    /// I/Os submitted and not yet seen complete.
    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The block device's statistics so far (the current busy period counted to the
    /// target's clock).
    pub fn disk(&self) -> DiskStats {
        let mut d = self.disk;
        if self.commands_at_device > 0 {
            d.busy_ns += self.device.now().since(self.busy_from).as_ns();
        }
        d
    }

    /// Appends the host's counters under `prefix` (none for the bare twin): CPU time of
    /// thread work and of interrupt handlers, in all and per core.
    pub fn counters(&self, prefix: &str, out: &mut CounterRow) {
        if self.config.is_none() {
            return;
        }
        let mut total = CoreTime::default();
        for c in 0..self.cpu.len() {
            let t = self.cpu.time(CoreId(c));
            total.task_ns += t.task_ns;
            total.irq_ns += t.irq_ns;
        }
        out.total(prefix, "cpu_task_ns", total.task_ns);
        out.total(prefix, "cpu_irq_ns", total.irq_ns);
        for c in 0..self.cpu.len() {
            let t = self.cpu.time(CoreId(c));
            let core = format!("{prefix}.cpu{c}");
            out.total(&core, "task_ns", t.task_ns);
            out.total(&core, "irq_ns", t.irq_ns);
        }
        self.page_cache_counters(prefix, out);
        self.vm_counters_into(prefix, out);
    }

    /// Submits `io` so that it reaches the target at `at` (`now` is the caller's present;
    /// `at` may be later, when the submitting thread's system call ends then). `tag` comes
    /// back in its [`IoDone`].
    #[inline]
    pub fn submit(&mut self, now: SimTime, at: SimTime, io: IoRequest, tag: u64, path: CompletionPath) {
        let parts = self.parts(io.opcode, io.bytes);
        if parts == 1
            && let Some(command_tag) = self.direct_tag(now, at, tag, path)
        {
            // One command, sent now: its tag says all the completion needs.
            self.in_flight += 1;
            self.command_sent(now);
            let lba = self.lba_bytes;
            let command = Command {
                placement: io.placement,
                ..Command::new(io.opcode, io.offset_bytes / lba, (io.bytes / lba) as u32)
            };
            self.device
                .submit(now, command, command_tag.user())
                .expect("the runner validates I/O against the geometry");
            return;
        }
        let request = Request { tag, io, parts_left: parts, path };
        let r = self.requests.insert(request);
        self.in_flight += 1;
        if at <= now {
            self.send(now, r);
        } else {
            self.events.push(at, Event::Submit { request: r });
        }
    }

    /// The tag of a direct command, which carries what its I/O's completion needs so that
    /// the I/O keeps no request record (see [`CommandTag`]); `None` if it must keep one
    /// (sent later, a tag too large, the path table full).
    #[inline]
    fn direct_tag(&mut self, now: SimTime, at: SimTime, tag: u64, path: CompletionPath) -> Option<CommandTag> {
        if self.free {
            // The bare host books nothing on completion (and sends at once): the caller's
            // tag alone.
            return Some(CommandTag::bare(tag));
        }
        if at > now || tag > CommandTag::MAX_CALLER {
            return None;
        }
        let p = self.path_index(path)?;
        Some(CommandTag::direct(tag, p))
    }

    /// The index of `path` in [`Self::paths`], added if new; `None` once the table is
    /// full (then I/Os on new paths take request records).
    #[inline]
    fn path_index(&mut self, path: CompletionPath) -> Option<u32> {
        let CompletionPath::Interrupt { core, work } = path else { return Some(0) };
        let last = self.last_path_on_core.get_mut(core.0 as usize)?;
        if last.0 == work && last.1 != u32::MAX {
            return Some(last.1);
        }
        let p = match self.paths.iter().position(|&q| q == path) {
            Some(p) => p,
            None if self.paths.len() < CommandTag::PATHS => {
                self.paths.push(path);
                self.paths.len() - 1
            }
            None => return None,
        };
        *last = (work, p as u32);
        Some(p as u32)
    }

    /// Hands request `r` to the target as commands of at most `request_bytes`.
    fn send(&mut self, at: SimTime, r: u32) {
        let io = self.requests[r].io;
        let tag = CommandTag::request(r).user();
        for _ in 0..self.requests[r].parts_left {
            self.command_sent(at);
        }
        let lba = self.lba_bytes;
        if matches!(io.opcode, Opcode::Trim | Opcode::Flush) {
            let blocks = (io.bytes / lba) as u32;
            let command = Command::new(io.opcode, io.offset_bytes / lba, blocks);
            self.device.submit(at, command, tag).expect("the runner validates I/O against the geometry");
            return;
        }
        let end = io.offset_bytes + io.bytes;
        let mut offset = io.offset_bytes;
        while offset < end {
            let len = self.request_bytes.min(end - offset);
            let command =
                Command { placement: io.placement, ..Command::new(io.opcode, offset / lba, (len / lba) as u32) };
            self.device.submit(at, command, tag).expect("the runner validates I/O against the geometry");
            offset += len;
        }
    }

    /// A hint that an I/O at `offset_bytes` will come soon (see [`BlockDevice::prefetch`]).
    #[inline]
    pub fn prefetch(&self, offset_bytes: u64) {
        self.device.prefetch(offset_bytes / self.lba_bytes);
    }

    /// When the host or its target next needs [`Host::poll`].
    #[inline]
    pub fn poll_at(&self) -> SimTime {
        self.device.poll_at().min(self.events.peek_time())
    }

    /// Processes the next event; returns an I/O whose completion became visible with it.
    #[inline]
    pub fn poll(&mut self) -> Option<IoDone> {
        self.next_done::<false>()
    }

    /// As [`Self::poll`], but a caller's I/O comes back as soon as the target posts its
    /// (last) completion, with `visible` when its interrupt handler will end: the caller
    /// sees it then, or hands it back with [`Self::defer`] to have it from a poll at that
    /// time.
    #[inline]
    pub fn poll_early(&mut self) -> Option<IoDone> {
        self.next_done::<true>()
    }

    /// Queues `done`, which [`Self::poll_early`] returned ahead of its `visible` time, to come
    /// back from a poll at that time (counted in flight until then).
    #[inline]
    pub fn defer(&mut self, done: IoDone) {
        self.in_flight += 1;
        // Handlers end a fixed time after completions that come in time order, unless one
        // waits for another on its core: mostly in order.
        self.events.push_in_order(done.visible, Event::Seen { tag: done.tag, device_done: done.device_done });
    }

    /// [`Self::poll`], and with `EARLY` [`Self::poll_early`].
    #[inline]
    fn next_done<const EARLY: bool>(&mut self) -> Option<IoDone> {
        // With no event pending, `peek_time` is never: the target goes first.
        if self.device.poll_at() <= self.events.peek_time() {
            let done = self.device.poll()?;
            self.command_done(&done);
            let at = done.completed;
            let command_tag = CommandTag::from_user(done.user);
            let path = if let Some(r) = command_tag.record() {
                let request = &mut self.requests[r];
                request.parts_left -= 1;
                if request.parts_left > 0 {
                    return None;
                }
                request.path
            } else if self.free {
                self.in_flight -= 1;
                return Some(IoDone { tag: command_tag.bare_caller(), device_done: at, visible: at });
            } else {
                self.paths[command_tag.path()]
            };
            let visible = match path {
                CompletionPath::Interrupt { core, work } if !self.free => {
                    if let Some(c) = self.coalescer.as_deref_mut() {
                        let held = coalesce::Held { command_tag, device_done: at, work };
                        match c.post(core, held) {
                            coalesce::Posted::Held(timer) => {
                                if let Some((time, generation)) = timer {
                                    self.events.push(time, Event::CoalesceTimer { core, generation });
                                }
                            }
                            coalesce::Posted::Fire(entries) => self.interrupt(core, at, &entries),
                        }
                        return None;
                    }
                    self.cpu.irq(core, at, self.config.irq, work)
                }
                _ => at,
            };
            if visible > at {
                if EARLY && command_tag.is_direct() {
                    // The caller's (the host's own never go direct), with nothing to free.
                    self.in_flight -= 1;
                    return Some(IoDone { tag: command_tag.caller(), device_done: at, visible });
                }
                if EARLY && self.caller_tag(command_tag) & buffered::INTERNAL == 0 {
                    return self.finish(command_tag, at, visible);
                }
                // Handlers end a fixed time after completions that come in time order,
                // unless one waits for another on its core: mostly in order.
                self.events.push_in_order(visible, Event::Visible { command_tag, device_done: at });
                return None;
            }
            return self.finish(command_tag, at, visible);
        }
        let (at, event) = self.events.pop()?;
        match event {
            Event::Submit { request } => {
                self.send(at, request);
                None
            }
            Event::Visible { command_tag, device_done } => self.finish(command_tag, device_done, at),
            Event::Seen { tag, device_done } => {
                self.in_flight -= 1;
                Some(IoDone { tag, device_done, visible: at })
            }
            Event::Buffered(e) => self.buffered_event(at, e),
            Event::Vm(e) => self.vm_event(at, e),
            Event::CoalesceTimer { core, generation } => {
                let entries = self.coalescer.as_deref_mut().and_then(|c| c.expire(core, generation));
                if let Some(entries) = entries {
                    self.interrupt(core, at, &entries);
                }
                None
            }
        }
    }

    /// One interrupt at `at` on `core` for coalesced `entries`: each handler's work runs
    /// in it, and each completion becomes visible when its work ends.
    fn interrupt(&mut self, core: CoreId, at: SimTime, entries: &[coalesce::Held]) {
        for e in entries {
            let visible = self.cpu.irq(core, at, self.config.irq, e.work);
            self.events
                .push_in_order(visible, Event::Visible { command_tag: e.command_tag, device_done: e.device_done });
        }
    }

    /// The tag of the caller's I/O whose completion becomes visible next, if the host's
    /// next event is that (a hint: the caller may warm the I/O's state meanwhile).
    #[inline]
    pub fn next_visible(&self) -> Option<u64> {
        if self.free {
            // The bare host's completions are visible as the target posts them.
            return None;
        }
        match self.events.peek()? {
            Event::Visible { command_tag, .. } => {
                Some(self.caller_tag(*command_tag)).filter(|tag| tag & buffered::INTERNAL == 0)
            }
            Event::Seen { tag, .. } => Some(*tag),
            _ => None,
        }
    }

    /// The caller's tag of the I/O whose (last) command carried `command_tag`, on a host that
    /// is not bare: in the tag itself if direct, else in its request record.
    #[inline]
    fn caller_tag(&self, command_tag: CommandTag) -> u64 {
        match command_tag.record() {
            Some(r) => self.requests[r].tag,
            None => command_tag.caller(),
        }
    }

    /// A command reached the target at `at` (for the disk statistics).
    #[inline]
    fn command_sent(&mut self, at: SimTime) {
        if self.commands_at_device == 0 {
            self.busy_from = at;
        }
        self.commands_at_device += 1;
    }

    /// A command completed: the kernel's per-device accounting.
    #[inline]
    fn command_done(&mut self, done: &crate::block::Completion) {
        let at_device = done.completed.since(done.submitted).as_ns();
        match done.command.opcode {
            Opcode::Read => {
                self.disk.read_ios += 1;
                self.disk.read_ns += at_device;
            }
            Opcode::Write | Opcode::ZoneAppend => {
                self.disk.write_ios += 1;
                self.disk.write_ns += at_device;
            }
            Opcode::Trim | Opcode::Flush | Opcode::ZoneSend { .. } => {}
        }
        self.disk.in_queue_ns += at_device;
        self.commands_at_device -= 1;
        if self.commands_at_device == 0 {
            self.disk.busy_ns += done.completed.since(self.busy_from).as_ns();
        }
    }

    /// The I/O whose (last) command carried `command_tag` is over; the host's own requests
    /// go on inside it.
    fn finish(&mut self, command_tag: CommandTag, device_done: SimTime, visible: SimTime) -> Option<IoDone> {
        self.in_flight -= 1;
        let tag = self.caller_tag(command_tag);
        let Some(r) = command_tag.record() else {
            return Some(IoDone { tag, device_done, visible });
        };
        self.requests.free(r);
        if tag & buffered::INTERNAL != 0 {
            return self.internal_done(tag, visible);
        }
        Some(IoDone { tag, device_done, visible })
    }
}

pub use crate::defaults::DEFAULT_HOST;

/// A host that adds nothing: the bare twin.
pub fn bare_host() -> HostConfig {
    load_host("none", &[]).expect("the shipped none profile builds")
}
