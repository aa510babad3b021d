//! The device: host link, controller, FTL and NAND composed into one state machine.
//!
//! ```text
//!  submit(cmd) ─▶ host software (slat) ─▶ SQE fetch ─▶ firmware core ─┬─ read:  map lookup ─▶ die reads ─▶ channel ─▶ ECC ─▶ link ↑
//!                                                                     ├─ write: [partial units: read-modify-write reads] ─▶ buffer admission
//!                                                                     │         (waits when full) ─▶ link ↓ ─▶ ack
//!                                                                     │         program units filled ─▶ channel ─▶ tPROG (background)
//!                                                                     └─ trim/flush
//!  GC and folding (background): victim chosen ─▶ remap now ─▶ relocation reads ─▶ programs ─▶ erases ─▶ free superblock
//! ```
//!
//! Call protocol, as in smoltcp's `poll`/`poll_at`: the driver calls [`Ssd::submit`] for
//! each command at the time it is issued, and repeatedly [`Ssd::poll_at`] to learn when the
//! device next needs attention and [`Ssd::poll`] to advance to it; `poll` returns a
//! [`Completion`] when a command finishes. Time only moves forward: every `now` passed in
//! must be at or after the last event the device processed. Nothing here allocates per
//! command once the slot tables have grown to the queue depth in use.
//!
//! Events are three: a die finished its operation, a command's completion reaches the host,
//! or the idle timer of SLC folding fires. Everything else (cores, channels, link
//! directions) is a busy-until resource, booked as soon as the work is known, often for a
//! later start: a command's core time at submission, for its arrival after the SQE fetch.
//! See `docs/model.md` for each mechanism.

mod background;
mod counters;
mod error;
mod fill;
mod gc_pace;
mod health;
mod map;
mod placement;
mod power;
mod read;
mod snapshot;
mod staging;
mod verify;
mod write;
mod zones;

pub use counters::{CounterSnapshot, HostCounters, LEVEL_COUNTERS};
pub use error::DeviceError;
pub use fill::{FillError, FillPattern};
pub use health::{DATA_UNIT_BYTES, HealthLog, Shutdown};
pub use placement::{FdpEvent, FdpEventKind, FdpStats, HandleStatus, HandleUse, MAX_FDP_EVENTS};
pub use snapshot::SnapshotError;
pub use verify::Verifier;

use crate::block::{BlockDevice, BlockGeometry, Command, Completion, CounterRow, Opcode, SubmitError};
use crate::config::DeviceConfig;
use crate::controller::map_cache::MapCacheCounters;
use crate::controller::thermal::Thermal;
use crate::controller::{MapCache, WriteBuffer};
use crate::defaults::DEFAULT_RUN_SEED;
use crate::engine::{BusyResource, EventQueue, ServerPool, SimDuration, SimRng, SimTime, UnitLognormal};

/// Stream labels of the run's variability sources.
const RETRY_STREAM: u64 = 0x0052_4554_5259;
const FIRMWARE_STREAM: u64 = 0x4657_5449_4d45;
use crate::block::Zones;
use crate::ftl::{FdpConfig, Ftl, HandleId, Isolation, MediaErrors, RelocationJob, Stream};
use crate::nand::{CellMode, DieId, DieOp, DieOpKind, DieWake, NandArray, PuId, UNIT_BYTES};
use crate::nvme::{HmbGrant, PowerStates};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug)]
enum Event {
    /// A die's running operation ends (stale if `generation` moved on).
    Die { die: DieId, generation: u32 },
    /// A command's completion reaches the host.
    Complete { slot: u32 },
    /// The host has been idle since the timer was armed (stale if `generation` moved on).
    Idle { generation: u32 },
}

/// An in-flight command.
#[derive(Clone, Copy, Debug)]
struct Slot {
    command: Command,
    user: u64,
    submitted: SimTime,
    first_unit: u64,
    units: u32,
    /// Bytes the command moves over the link.
    bytes: u64,
    /// Link bytes not yet booked (reads hand them out per die op).
    bytes_left: u64,
    /// When the firmware finished processing the command (for a write that reads partial
    /// units first, when the last of that data is in controller memory).
    ready: SimTime,
    /// Die reads still outstanding (a read's data reads, or a write's read-modify-write
    /// reads).
    pending: u32,
    /// Map segments still loading before the die reads can be issued.
    pending_maps: u32,
    /// Latest data arrival at the host.
    data_end: SimTime,
    /// The reclaim unit handle a write is placed on (FDP drives), or its zone's slot.
    handle: Option<HandleId>,
    /// A write's first LBA on a zoned namespace (an append's assigned LBA).
    assigned_lba: u64,
    /// The command's first LBA in the FTL's space (on a zoned namespace, zones packed to
    /// their capacity; else the command's own).
    ftl_slba: u64,
}

/// A program in flight: which program unit, how much write-buffer space it frees, and the
/// kind of relocation job whose data it holds, if any.
#[derive(Clone, Copy, Debug)]
struct ProgramRec {
    pu: PuId,
    buffer_units: u32,
    job: Option<background::JobKind>,
}

/// A simulated SSD. A clone is an independent drive in the same state (events, caches and
/// all), which is how a study preconditions once and runs each point on a copy.
#[derive(Clone)]
pub struct Ssd {
    config: DeviceConfig,
    now: SimTime,
    queue: EventQueue<Event>,
    nand: NandArray,
    ftl: Ftl,
    cores: ServerPool,
    link_up: BusyResource,
    link_down: BusyResource,
    buffer: WriteBuffer,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    in_flight: u32,
    host_waiting: VecDeque<(Command, u64, SimTime, Option<Box<zones::ZoneRoute>>)>,
    programs: Vec<ProgramRec>,
    free_programs: Vec<u32>,
    /// Relocation jobs by [`background::JobKind`]: GC, folding.
    jobs: [RelocationJob; 2],
    /// The stream each kind's current (or last) job writes.
    job_streams: [Stream; 2],
    /// FDP events and each handle's use (not saved with the drive's state).
    fdp_log: placement::FdpLog,
    /// A zoned namespace's zones.
    zones: Option<Zones>,
    /// Zone Sends waiting for their zones' writes to be placed, or for their programs.
    zone_sends: Vec<zones::PendingSend>,
    /// Zones whose reset has work still to do: writes to them wait.
    resetting: Vec<u32>,
    /// Writes waiting for their zone's reset work (`resetting`), by slot.
    zone_waiters: Vec<u32>,
    jobs_active: [bool; 2],
    /// Host writes paced by the GC job under way (see `gc_pace`).
    gc_pace: gc_pace::GcPace,
    /// Relocation programs queued or running, by job kind: data read and not yet written,
    /// held in controller memory, which bounds how far a job's reads run ahead.
    reloc_programs: [u32; 2],
    /// Per program (indexed like `programs`): the victims whose data it holds, which are
    /// erased only after it.
    program_victims: Vec<Vec<u32>>,
    /// By job kind: the destination program unit that the next job fills, and the victims
    /// of finished jobs whose data waits in it.
    held: [(Option<PuId>, Vec<u32>); 2],
    /// A folding session is under way.
    folding: bool,
    /// The cached units the folding session under way stops at (its trigger's watermark).
    session_low_units: u64,
    /// Bumped by every host command; the idle timer carries it.
    idle_generation: u32,
    /// Per superblock: relocation programs of its data still outstanding.
    victim_programs: Vec<u32>,
    /// Per superblock: all relocation reads done (erase once its programs are done too).
    victim_reads_done: Vec<bool>,
    ready_scratch: Vec<PuId>,
    /// Stale SLC superblocks handed over for erasing (`reclaim_stale_slc`).
    stale_scratch: Vec<u32>,
    flush_waiters: Vec<(u32, u64)>,
    host_units_admitted: u64,
    /// Programs in flight that will free write-buffer space.
    host_programs_in_flight: u32,
    /// Host programs each die holds, and those kept for it until it takes them.
    staging: staging::HostStaging,
    map_cache: MapCache,
    hmb: HmbGrant,
    map_loads_in_flight: u32,
    map_queue: VecDeque<(u32, SimTime)>,
    map_waiters: Vec<(u32, u32)>,
    woken_scratch: Vec<u32>,
    miss_scratch: Vec<u32>,
    journal_die: DieId,
    counters: HostCounters,
    /// The run's draws of read retries (see [`Ssd::reseed`]).
    retry_rng: SimRng,
    /// The run's draws of firmware time per command.
    firmware_rng: SimRng,
    /// The firmware time's factor (`controller.cmd_cv`), worked out once.
    firmware_jitter: UnitLognormal,
    verifier: Option<Verifier>,
    /// Power states and the APST table the host programmed.
    power: PowerStates,
    /// Temperature, throttling and their histories.
    thermal: Thermal,
    /// When the host last went idle (no command in flight), while it stays idle.
    idle_since: Option<SimTime>,
    /// Energy not drawn in non-operational states since the last sensor reading, J.
    idle_savings_j: f64,
    /// When commands were last outstanding without a break (Controller Busy Time).
    busy_start: SimTime,
    wake_scratch: Vec<DieWake>,
    /// Uncorrectable errors met by reads (SMART's Media and Data Integrity Errors).
    media: MediaErrors,
}

impl Ssd {
    /// A fresh device (everything unmapped, every block erased).
    pub fn new(config: DeviceConfig) -> Self {
        Self::with_verify(config, false)
    }

    /// A fresh device; with `verify`, every read checks the data version it finds.
    pub fn with_verify(config: DeviceConfig, verify: bool) -> Self {
        let geometry = config.geometry.clone();
        let mut ftl =
            Ftl::new(geometry.clone(), config.logical_units, config.gc, config.endurance, verify).with_slc(config.slc);
        if let Some(fdp) = config.fdp {
            ftl = ftl.with_placement(fdp);
        }
        if let Some(zns) = config.zns {
            // Each active zone writes through a frontier of its own, as an FDP handle does.
            ftl = ftl.with_placement(FdpConfig { handles: zns.max_active as u16, isolation: Isolation::Persistently });
        }
        let nand = NandArray::new(geometry, config.nand.clone(), config.endurance.seed);
        // No host has granted a buffer yet (os::negotiate_hmb decides one).
        let hmb = HmbGrant::none();
        let map_cache = MapCache::new(config.map_cache.clone(), config.logical_units, hmb.bytes);
        let mut ssd = Ssd {
            now: SimTime::ZERO,
            queue: EventQueue::with_capacity(1024),
            cores: ServerPool::new(config.controller.cores as usize),
            link_up: BusyResource::default(),
            link_down: BusyResource::default(),
            buffer: WriteBuffer::new(config.controller.buffer_units),
            slots: Vec::new(),
            free_slots: Vec::new(),
            in_flight: 0,
            host_waiting: VecDeque::new(),
            programs: Vec::new(),
            free_programs: Vec::new(),
            jobs: Default::default(),
            job_streams: [Stream::Gc, Stream::Fold],
            fdp_log: placement::FdpLog::default(),
            zones: None,
            zone_sends: Vec::new(),
            resetting: Vec::new(),
            zone_waiters: Vec::new(),
            jobs_active: [false; 2],
            gc_pace: gc_pace::GcPace::default(),
            reloc_programs: [0; 2],
            program_victims: Vec::new(),
            held: Default::default(),
            folding: false,
            session_low_units: 0,
            idle_generation: 0,
            victim_programs: vec![0; config.geometry.superblocks() as usize],
            victim_reads_done: vec![false; config.geometry.superblocks() as usize],
            ready_scratch: Vec::with_capacity(64),
            stale_scratch: Vec::new(),
            flush_waiters: Vec::new(),
            host_units_admitted: 0,
            host_programs_in_flight: 0,
            staging: staging::HostStaging::new(config.geometry.dies()),
            map_cache,
            hmb,
            map_loads_in_flight: 0,
            map_queue: VecDeque::new(),
            map_waiters: Vec::new(),
            woken_scratch: Vec::new(),
            miss_scratch: Vec::new(),
            journal_die: DieId(0),
            counters: HostCounters { power_cycles: 1, ..HostCounters::default() },
            retry_rng: SimRng::stream(DEFAULT_RUN_SEED, RETRY_STREAM),
            firmware_rng: SimRng::stream(DEFAULT_RUN_SEED, FIRMWARE_STREAM),
            firmware_jitter: UnitLognormal::with_cv(config.controller.cmd_cv),
            verifier: verify.then(|| Verifier::new(config.logical_units)),
            power: config.power.clone(),
            thermal: Thermal::new(&config.thermal, SimTime::ZERO, [0; 3], 0),
            idle_since: Some(SimTime::ZERO),
            idle_savings_j: 0.0,
            busy_start: SimTime::ZERO,
            wake_scratch: Vec::new(),
            media: MediaErrors::new(config.endurance.seed),
            nand,
            ftl,
            config,
        };
        ssd.zones = ssd.zone_config().map(Zones::new);
        ssd
    }

    /// The validated configuration.
    pub fn config(&self) -> &DeviceConfig {
        &self.config
    }

    /// The FTL (for reports and invariant checks).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// The NAND array (for reports).
    pub fn nand(&self) -> &NandArray {
        &self.nand
    }

    /// The map cache.
    pub fn map_cache(&self) -> &MapCache {
        &self.map_cache
    }

    /// What the host granted as Host Memory Buffer.
    pub fn hmb(&self) -> &HmbGrant {
        &self.hmb
    }

    /// Takes the Host Memory Buffer a host granted (a controller reset: the map cache starts
    /// cold). The device must be quiet.
    pub fn set_hmb(&mut self, grant: HmbGrant) -> Result<&HmbGrant, DeviceError> {
        if !self.is_quiet() {
            return Err(DeviceError::NotIdle { action: "changing the HMB" });
        }
        self.hmb = grant;
        self.rebuild_map_cache();
        Ok(&self.hmb)
    }

    /// A cold map cache for the current grant, knowing which segments hold mappings.
    pub(super) fn rebuild_map_cache(&mut self) {
        let mut cache = MapCache::new(self.config.map_cache.clone(), self.config.logical_units, self.hmb.bytes);
        let map = &self.ftl.map;
        cache.mark_mapped((0..map.logical_units()).filter(|&l| map.is_mapped(l)));
        self.map_cache = cache;
    }

    /// The verifier, in verify mode.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.verifier.as_ref()
    }

    fn check_command(&self, c: &Command) -> Result<(), SubmitError> {
        if matches!(c.opcode, Opcode::Flush | Opcode::ZoneSend { all: true, .. }) {
            return Ok(());
        }
        if let Opcode::ZoneSend { .. } = c.opcode {
            let lbas = self.lbas();
            return if c.slba < lbas { Ok(()) } else { Err(SubmitError::OutOfRange { slba: c.slba, blocks: 0, lbas }) };
        }
        if let Some(pid) = c.placement
            && self.config.fdp.is_none()
        {
            return Err(SubmitError::NoPlacement { placement: pid.0 });
        }
        if c.blocks == 0 {
            return Err(SubmitError::Empty { opcode: c.opcode });
        }
        let lbas = self.lbas();
        if c.slba.checked_add(u64::from(c.blocks)).is_none_or(|end| end > lbas) {
            return Err(SubmitError::OutOfRange { slba: c.slba, blocks: c.blocks, lbas });
        }
        let mdts = self.config.identity.mdts;
        if mdts > 0 && c.opcode != Opcode::Trim {
            let mdts_bytes = UNIT_BYTES << mdts;
            let bytes = u64::from(c.blocks) * self.config.namespace.lba_bytes();
            if bytes > mdts_bytes {
                return Err(SubmitError::TooLarge { bytes, mdts_bytes });
            }
        }
        Ok(())
    }

    /// LBAs the namespace spans: its capacity, or on a zoned namespace every zone's size.
    fn lbas(&self) -> u64 {
        self.zones.as_ref().map_or(self.config.namespace.lbas(), |z| {
            let c = z.config();
            u64::from(c.zones) * c.size_lbas
        })
    }

    /// Processes every event up to and including `until`, then sets the clock to `until`.
    /// Completions that occur are returned in order (normally none: use for idle periods).
    pub fn advance_to(&mut self, until: SimTime) -> Vec<Completion> {
        let mut done = Vec::new();
        while self.poll_at() <= until {
            if let Some(c) = self.poll() {
                done.push(c);
            }
        }
        self.now = self.now.max(until);
        self.update_thermal(self.now);
        done
    }

    /// Programs every partly filled program unit, writes out the map journal, and runs until
    /// nothing is pending: no command, program, GC job, erase or timer. A pending idle timer
    /// fires too, so a drive that folds when idle folds (and its clock moves on) before this
    /// returns. Returns completions of commands still in flight.
    pub fn quiesce(&mut self) -> Vec<Completion> {
        let mut done = Vec::new();
        loop {
            while self.poll_at() != SimTime::NEVER {
                if let Some(c) = self.poll() {
                    done.push(c);
                }
            }
            if !self.pad_all() {
                break;
            }
        }
        debug_assert!(self.is_quiet(), "quiesce leaves no work behind");
        self.update_thermal(self.now);
        // A quiet drive owes GC nothing: a saved and a running drive pace the same.
        self.gc_pace = gc_pace::GcPace::default();
        done
    }

    /// True when no command, die operation or GC job is pending.
    pub fn is_quiet(&self) -> bool {
        self.queue.is_empty() && self.in_flight == 0 && self.jobs_active == [false; 2] && self.nand.is_quiet()
    }

    /// Pads every stream's open program unit and writes out the map journal; returns true if
    /// any program was queued.
    fn pad_all(&mut self) -> bool {
        let mut any = self.flush_journal();
        for stream in self.ftl.streams() {
            let mut ready = std::mem::take(&mut self.ready_scratch);
            let pad = self.ftl.pad(stream, &mut ready);
            let pu_units = self.config.geometry.pu_units();
            for &pu in &ready {
                let buffer_units = if stream.is_host() { pu_units - pad } else { 0 };
                self.enqueue_program(pu, buffer_units, self.now);
                any = true;
            }
            ready.clear();
            self.ready_scratch = ready;
        }
        any
    }

    /// Unmaps everything (Format NVM, SES=0) and switches to LBA format `lbaf`. The device
    /// must be quiet.
    pub fn format(&mut self, lbaf: Option<usize>) -> Result<(), DeviceError> {
        if !self.is_quiet() {
            return Err(DeviceError::NotIdle { action: "format" });
        }
        if let Some(i) = lbaf {
            let n = self.config.namespace.formats.len();
            if i >= n {
                return Err(DeviceError::NoSuchLbaFormat { index: i, formats: n });
            }
            self.config.namespace.current = i;
        }
        self.ftl.format();
        self.map_cache.format();
        self.zones = self.zone_config().map(Zones::new);
        // Nothing is cached any more: a session a read or the idle timer opened (and that
        // stayed open waiting for the filling superblock) has nothing left to fold, and must
        // not fold what is written after the format.
        self.folding = false;
        if let Some(v) = self.verifier.as_mut() {
            v.clear();
        }
        Ok(())
    }

    /// All counters, flattened.
    pub fn counters(&self) -> CounterSnapshot {
        let f = &self.ftl.counters;
        let unit = UNIT_BYTES;
        let programmed: u64 = f.units_programmed.iter().sum();
        let native = self.config.geometry.native;
        let m: MapCacheCounters = self.map_cache.counters;
        let map_page_bytes = u64::from(self.config.geometry.page_bytes);
        let map_write_bytes = (m.journal_pages + m.segment_writebacks) * map_page_bytes;
        let map_slc = if self.config.map_cache.map_mode == CellMode::Slc { map_write_bytes } else { 0 };
        CounterSnapshot {
            time_ns: self.now.as_ns(),
            host_read_bytes: self.counters.bytes_read,
            host_write_bytes: self.counters.bytes_written,
            host_trim_bytes: self.counters.bytes_trimmed,
            host_read_cmds: self.counters.read_cmds,
            host_write_cmds: self.counters.write_cmds,
            host_flush_cmds: self.counters.flush_cmds,
            nand_host_read_bytes: self.counters.nand_units_read * unit,
            nand_gc_read_bytes: f.reloc_units_read * unit,
            nand_write_bytes: programmed * unit + map_write_bytes,
            nand_slc_write_bytes: f.units_programmed[CellMode::Slc.index()] * unit + map_slc,
            nand_native_write_bytes: f.units_programmed[native.index()] * unit,
            nand_padding_bytes: f.padding_units * unit,
            gc_units_moved: f.gc_units_moved,
            gc_jobs: f.gc_jobs,
            erases: f.superblock_erases,
            free_superblocks: u64::from(self.ftl.sbs.free_count()),
            unmapped_units_read: self.counters.unmapped_units_read,
            unmapped_read_bytes: self.counters.unmapped_bytes_read,
            buffered_units_read: self.counters.buffered_units_read,
            write_stalls: self.counters.write_stalls,
            suspensions: self.counters.suspensions_before_restore
                + self.nand.dies().iter().map(|d| d.suspensions).sum::<u64>(),
            write_buffer_bytes: u64::from(self.buffer.used_units()) * unit,
            verify_errors: self.verifier.as_ref().map_or(0, |v| v.errors),
            map_lookups: m.lookups,
            map_sram_hits: m.sram_hits,
            map_hmb_hits: m.hmb_hits,
            map_hmb_updates: m.hmb_updates,
            map_hmb_fills: m.hmb_fills,
            map_hmb_invalidations: m.hmb_invalidations,
            map_misses: m.misses,
            map_loads: m.map_loads,
            // A load reads one map unit over the channel (ssd/map.rs), whatever the segment size.
            nand_map_read_bytes: m.map_loads * unit,
            nand_map_write_bytes: map_write_bytes,
            map_updates_at_risk: m.updates_at_risk,
            map_updates_at_risk_peak: m.updates_at_risk_peak,
            host_slc_write_bytes: f.host_units_slc * unit,
            slc_cached_bytes: self.ftl.slc_valid_units() * unit,
            slc_superblocks: u64::from(self.ftl.slc_superblocks()),
            folded_bytes: f.folded_units * unit,
            fold_jobs: f.fold_jobs,
            nand_rmw_read_bytes: self.counters.rmw_units_read * unit,
            nand_read_retries: self.counters.read_retries,
            partial_units_written: self.counters.partial_units_written,
            slc_erases: f.slc_superblock_erases,
            block_erases: f.block_erases,
            bad_blocks: self.ftl.wear.bad_blocks(),
            spare_blocks: self.ftl.wear.spare_blocks(),
            retired_superblocks: u64::from(self.ftl.sbs.len() - self.ftl.sbs.in_service()),
            block_pe_cycles_max: u64::from(self.ftl.wear.max_block_erases()),
            life_used_ppm: self.ftl.life_used_ppm(),
            life_programmed_ppb: self.ftl.life_programmed_ppb(),
            wl_jobs: f.wl_jobs,
            wl_moved_bytes: f.wl_units_moved * unit,
            temperature_mk: (self.temperature_k() * 1000.0).round() as u64,
            power_mw: (self.thermal.power_w() * 1000.0).round() as u64,
            energy_mj: (self.thermal.totals.energy_j * 1000.0) as u64,
            throttle_level: self.thermal.level() as u64,
            throttled_ns: self.thermal.totals.throttled_ns,
            warning_temp_ns: self.thermal.totals.warning_ns,
            critical_temp_ns: self.thermal.totals.critical_ns,
            tmt1_ns: self.thermal.totals.tmt1_ns,
            tmt2_ns: self.thermal.totals.tmt2_ns,
            tmt1_transitions: self.thermal.totals.tmt1_transitions,
            tmt2_transitions: self.thermal.totals.tmt2_transitions,
            power_state: u64::from(self.power_state()),
            apst_transitions: self.counters.apst_transitions,
            apst_wakeups: self.counters.apst_wakeups,
            controller_busy_ns: self.counters.controller_busy_ns,
            media_errors: self.media.errors(),
        }
    }

    /// Host-side counters.
    pub fn host_counters(&self) -> &HostCounters {
        &self.counters
    }

    // --- command life cycle -------------------------------------------------------------

    fn start_command(&mut self, command: Command, user: u64, submitted: SimTime, route: Option<Box<zones::ZoneRoute>>) {
        self.idle_generation = self.idle_generation.wrapping_add(1);
        let at = submitted.max(self.now);
        if self.in_flight == 0 {
            self.busy_start = at;
        }
        // A drive APST put to sleep first wakes up.
        let arrive = at + self.wake(at) + self.config.link.command_fetch;
        let (first_unit, units) = match command.opcode {
            Opcode::Flush | Opcode::ZoneSend { .. } => (0, 0),
            _ => self.config.namespace.units_of(route.as_ref().map_or(command.slba, |r| r.ftl_slba), command.blocks),
        };
        let bytes = u64::from(command.blocks) * self.config.namespace.lba_bytes();
        let transfer = self.config.namespace.transfer_bytes(command.blocks);
        let slot = self.alloc_slot(Slot {
            command,
            user,
            submitted,
            first_unit,
            units,
            bytes: transfer,
            bytes_left: transfer,
            ready: arrive,
            pending: 0,
            pending_maps: 0,
            data_end: arrive,
            handle: route.as_ref().and_then(|r| r.handle),
            assigned_lba: route.as_ref().map_or(0, |r| r.assigned_lba),
            ftl_slba: route.as_ref().map_or(command.slba, |r| r.ftl_slba),
        });
        if command.opcode == Opcode::Write && self.config.fdp.is_some() {
            self.slots[slot as usize].handle = Some(self.placement_handle(command.placement, at));
        }
        let ctrl = &self.config.controller;
        match command.opcode {
            Opcode::Read => {
                self.counters.read_cmds += 1;
                self.counters.bytes_read += bytes;
                if self.ftl.slc.fold_on_read && !self.folding {
                    self.start_fold_session(self.ftl.slc.fold_low_units);
                }
                let mut misses = std::mem::take(&mut self.miss_scratch);
                let lookups = self.map_lookups(first_unit, units, arrive, &mut misses);
                let command_fw = self.firmware_time(self.config.controller.read_cmd);
                let ctrl = &self.config.controller;
                let (_, ready) = self.cores.book(arrive, command_fw + ctrl.unit.times(u64::from(units)) + lookups);
                self.slots[slot as usize].ready = ready;
                if misses.is_empty() {
                    self.start_read(slot, ready);
                } else {
                    for &s in &misses {
                        self.request_map(s, Some(slot), ready);
                    }
                }
                misses.clear();
                self.miss_scratch = misses;
            }
            Opcode::Write | Opcode::ZoneAppend => {
                self.counters.write_cmds += 1;
                self.counters.bytes_written += bytes;
                // Merging a partial unit needs its old location: look up its segment.
                let mut misses = std::mem::take(&mut self.miss_scratch);
                let lookups = match self.partial_units(slot) {
                    [Some(head), Some(tail)] if self.map_cache.segment_of(head) != self.map_cache.segment_of(tail) => {
                        self.map_lookups(head, 1, arrive, &mut misses) + self.map_lookups(tail, 1, arrive, &mut misses)
                    }
                    [Some(head), Some(tail)] => self.map_lookups(head, (tail - head + 1) as u32, arrive, &mut misses),
                    [Some(lpn), None] | [None, Some(lpn)] => self.map_lookups(lpn, 1, arrive, &mut misses),
                    [None, None] => SimDuration::ZERO,
                };
                let command_fw = self.firmware_time(self.config.controller.write_cmd);
                let ctrl = &self.config.controller;
                let (_, ready) = self.cores.book(arrive, command_fw + ctrl.unit.times(u64::from(units)) + lookups);
                self.slots[slot as usize].ready = ready;
                if misses.is_empty() {
                    self.continue_write(slot, ready);
                } else {
                    for &s in &misses {
                        self.request_map(s, Some(slot), ready);
                    }
                }
                misses.clear();
                self.miss_scratch = misses;
            }
            Opcode::Trim => {
                self.counters.trim_cmds += 1;
                self.counters.bytes_trimmed += bytes;
                let (_, ready) = self.cores.book(arrive, ctrl.write_cmd + ctrl.trim_unit.times(u64::from(units)));
                self.trim(slot);
                self.finish_at(slot, ready);
            }
            Opcode::Flush => {
                self.counters.flush_cmds += 1;
                let (_, ready) = self.cores.book(arrive, ctrl.write_cmd);
                self.slots[slot as usize].ready = ready;
                self.start_flush(slot, ready);
            }
            Opcode::ZoneSend { .. } => {
                let (_, ready) = self.cores.book(arrive, ctrl.write_cmd);
                let work = route.map(|r| r.work).unwrap_or_default();
                self.start_zone_send(slot, work, ready);
            }
        }
    }

    /// A command's firmware time: `nominal` times a log-normal factor of mean 1 and the
    /// profile's `controller.cmd_cv` (interrupts, cache misses and background firmware
    /// tasks vary it on a real controller).
    #[inline]
    fn firmware_time(&mut self, nominal: SimDuration) -> SimDuration {
        let cv = self.config.controller.cmd_cv;
        if cv == 0.0 {
            return nominal;
        }
        let factor = self.firmware_jitter.sample(&mut self.firmware_rng);
        nominal.scaled(factor)
    }

    /// Seeds the run's variability streams (read retries, firmware time) from the run's
    /// seed: the same seed draws the same values, and each source has its own stream, so
    /// switching one off leaves the others' draws as they were.
    pub fn reseed(&mut self, seed: u64) {
        self.retry_rng = SimRng::stream(seed, RETRY_STREAM);
        self.firmware_rng = SimRng::stream(seed, FIRMWARE_STREAM);
    }

    fn alloc_slot(&mut self, s: Slot) -> u32 {
        self.in_flight += 1;
        if let Some(i) = self.free_slots.pop() {
            self.slots[i as usize] = s;
            i
        } else {
            self.slots.push(s);
            self.slots.len() as u32 - 1
        }
    }

    /// Schedules the completion of `slot` once its data is done at `data_end`.
    #[inline]
    fn finish_at(&mut self, slot: u32, data_end: SimTime) {
        let t = data_end + self.config.link.completion_post;
        // Completions leave over one link, so they mostly come in time order.
        self.queue.push_in_order(t, Event::Complete { slot });
    }

    fn on_complete(&mut self, slot: u32) -> Completion {
        let s = self.slots[slot as usize];
        self.free_slots.push(slot);
        self.in_flight -= 1;
        if let Some((command, user, submitted, route)) = self.host_waiting.pop_front() {
            self.start_command(command, user, submitted, route);
        }
        if self.in_flight == 0 {
            self.counters.controller_busy_ns += self.now.since(self.busy_start).as_ns();
            self.idle_since = Some(self.now);
            self.host_went_idle();
        }
        Completion {
            user: s.user,
            command: s.command,
            submitted: s.submitted,
            completed: self.now,
            assigned_lba: s.assigned_lba,
        }
    }

    // --- dies -----------------------------------------------------------------------------

    #[inline]
    fn submit_die_op(&mut self, die: DieId, op: DieOp) {
        if let Some(w) = self.nand.submit(die, op, self.now) {
            self.schedule_die(w);
        }
    }

    #[inline]
    fn schedule_die(&mut self, w: DieWake) {
        self.queue.push(w.end, Event::Die { die: w.die, generation: w.generation });
    }

    fn on_die(&mut self, die: DieId, generation: u32) {
        let (op, wakes) = self.nand.complete(die, generation, self.now);
        for w in wakes.into_iter().flatten() {
            self.schedule_die(w);
        }
        let Some(op) = op else { return };
        match op.kind {
            DieOpKind::HostRead => self.host_read_done(die, op),
            DieOpKind::MapRead => self.map_read_done(die, op),
            DieOpKind::MapWrite => self.map_cache.persisted(op.token),
            DieOpKind::RelocRead => self.reloc_read_done(die, op),
            DieOpKind::Program | DieOpKind::BackgroundProgram | DieOpKind::UrgentProgram => self.program_done(op),
            DieOpKind::Erase => self.erase_done(die, op),
        }
    }

    /// Transfer time of `bytes` over one link direction.
    #[inline]
    fn link_time(&self, bytes: u64) -> SimDuration {
        SimDuration::for_bytes(bytes, self.config.link.bytes_per_sec)
    }
}

impl BlockDevice for Ssd {
    fn geometry(&self) -> BlockGeometry {
        let ns = &self.config.namespace;
        let mdts = self.config.identity.mdts;
        BlockGeometry {
            lba_bytes: ns.lba_bytes(),
            lbas: self.lbas(),
            max_transfer_bytes: if mdts == 0 { u64::MAX } else { UNIT_BYTES << mdts },
            hardware_queues: self.config.link.io_queues,
            placement_handles: self.config.fdp.map_or(0, |f| f.handles),
            zones: self.zones.as_ref().map(Zones::config),
        }
    }

    fn profile(&self) -> &str {
        &self.config.name
    }

    fn host_interface(&self) -> Option<crate::block::HostInterface> {
        self.config.host_interface.clone()
    }

    #[inline]
    fn now(&self) -> SimTime {
        self.now
    }

    fn submit(&mut self, now: SimTime, command: Command, user: u64) -> Result<(), SubmitError> {
        self.check_command(&command)?;
        // Last: a zoned command that passes changes the zones.
        let route = self.route(&command)?;
        debug_assert!(now >= self.now, "time moved backwards: {now} < {}", self.now);
        self.now = self.now.max(now);
        if self.now >= self.thermal.next_update() {
            self.update_thermal(self.now);
        }
        if self.in_flight >= self.config.link.max_outstanding() {
            self.host_waiting.push_back((command, user, now, route));
            return Ok(());
        }
        self.start_command(command, user, now, route);
        Ok(())
    }

    #[inline]
    fn poll_at(&self) -> SimTime {
        self.queue.peek_time()
    }

    #[inline]
    fn poll(&mut self) -> Option<Completion> {
        let (time, event) = self.queue.pop()?;
        self.now = time;
        if time >= self.thermal.next_update() {
            self.update_thermal(time);
        }
        match event {
            Event::Die { die, generation } => {
                self.on_die(die, generation);
                None
            }
            Event::Complete { slot } => Some(self.on_complete(slot)),
            Event::Idle { generation } => {
                self.idle_timer(generation);
                None
            }
        }
    }

    fn in_flight(&self) -> u32 {
        self.in_flight + self.host_waiting.len() as u32
    }

    fn counters(&self, prefix: &str, out: &mut CounterRow) {
        self.counters().append_to(prefix, out);
    }

    fn reseed(&mut self, seed: u64) {
        Ssd::reseed(self, seed);
    }

    fn zone_states(&self) -> Vec<(crate::block::ZoneState, u64)> {
        self.zones.as_ref().map_or_else(Vec::new, |z| z.zones().iter().map(|z| (z.state, z.written)).collect())
    }

    /// Loads the map entry of `lba` so a command to it soon finds it in cache.
    #[inline]
    fn prefetch(&self, lba: u64) {
        let lpn = lba * self.config.namespace.lba_bytes() / UNIT_BYTES;
        if lpn < self.config.logical_units {
            self.ftl.touch(lpn);
        }
    }
}
