//! A hard disk: one actuator over zoned platters, with a queue it reorders, a segmented read
//! cache with read-ahead, and a write-back cache.
//!
//! Read first: Ruemmler & Wilkes, "An introduction to disk drive modeling" (IEEE Computer,
//! 1994), DiskSim 4.0's `diskmodel` (layouts, seek models, caches, queueing), the disk's
//! own OEM specification for the figures, and `docs/model.md` § "Hard disks", which lists
//! what is simplified.
//!
//! [`Hdd`] implements [`BlockDevice`]. A command goes through these stages:
//!
//! ```text
//!  submit ──► NCQ (queue_depth commands) ──► read hit in a segment? ── yes ──► done after
//!               │                                                            overhead + interface
//!               │ write, write cache on and room in it ──► done after overhead + interface;
//!               │                                          a destage joins the media queue
//!               ▼
//!            media queue ──(SPTF: least seek + rotation first)──► the actuator:
//!               overhead, seek (settle longer for writes) or head switch, rotational wait,
//!               transfer (a switch per track crossed); reads fill a segment and, when the
//!               queue is empty, read ahead until the next command arrives
//! ```
//!
//! Every media operation holds the actuator, so seeks, rotation and transfers of all
//! commands (and of destages) serialise on it. A flush completes once every write accepted
//! before it is on the media; meanwhile the actuator writes back only those (a SATA flush
//! is not queued), so writes that follow do not delay it. Contract as [`BlockDevice`]'s; the model allocates only when its queues
//! grow past their largest size so far.
//!
//! ```
//! use ssdtwin_core::block::{BlockDevice, Command, Opcode};
//! use ssdtwin_core::hdd::{Hdd, build_hdd, load_hdd};
//! use ssdtwin_core::engine::SimTime;
//!
//! let mut disk = Hdd::new(build_hdd(&load_hdd("exos-x18-16tb").unwrap()).unwrap());
//! disk.submit(SimTime::ZERO, Command::new(Opcode::Read, 1 << 30, 8), 1).unwrap();
//! let done = loop {
//!     if let Some(c) = disk.poll() { break c; }
//! };
//! // A cold random read: overhead, a seek and part of a revolution, all in milliseconds.
//! assert!(done.completed.since(done.submitted).as_ns() > 1_000_000);
//! ```

mod layout;
mod profile;
mod seek;

pub use layout::{Layout, Position};
pub use profile::{HddConfig, SHIPPED_HDDS, build_hdd, is_hdd_profile, load_hdd, shipped_hdd_names};
pub use seek::SeekCurve;

use crate::block::{BlockDevice, BlockGeometry, Command, Completion, CounterRow, Opcode, SubmitError};
use crate::engine::{EventQueue, SimDuration, SimTime, Slab};
use std::collections::VecDeque;

/// A command the drive has accepted.
#[derive(Clone, Copy, Debug)]
struct Cmd {
    user: u64,
    command: Command,
    submitted: SimTime,
}

/// What the actuator does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MediaKind {
    /// Read for command `cmd`.
    Read { cmd: u32 },
    /// Write for command `cmd`, completing it (write cache off or full).
    Write { cmd: u32 },
    /// Write a cached block range back to the media.
    Destage,
}

/// One operation waiting for the actuator.
#[derive(Clone, Copy, Debug)]
struct MediaOp {
    kind: MediaKind,
    lba: u64,
    blocks: u64,
    queued: SimTime,
    /// For writes: their place in arrival order (a flush covers the writes before it).
    seq: u64,
}

/// A flush waiting for the writes that arrived before it.
#[derive(Clone, Copy, Debug)]
struct FlushWait {
    cmd: u32,
    /// The last write it covers, and how many of those are still not on the media.
    last_seq: u64,
    left: u32,
}

/// A range of blocks held in the read cache.
#[derive(Clone, Copy, Debug)]
struct Segment {
    start: u64,
    end: u64,
    used: SimTime,
}

/// The drive reading ahead of the last read while nothing else is queued.
#[derive(Clone, Copy, Debug)]
struct ReadAhead {
    segment: usize,
    from: u64,
    limit: u64,
    since: SimTime,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// The actuator finished `op`.
    MediaDone { op: MediaOp },
    /// Command `cmd` completes (a cache hit, a cached write, a flush, a trim).
    Complete { cmd: u32 },
}

/// Running totals of one disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HddCounters {
    /// Bytes the host read.
    pub host_read_bytes: u64,
    /// Bytes the host wrote.
    pub host_write_bytes: u64,
    /// Bytes read from the platters (read-ahead included).
    pub media_read_bytes: u64,
    /// Bytes written to the platters.
    pub media_write_bytes: u64,
    /// Read bytes served from the read cache.
    pub cache_hit_bytes: u64,
    /// Seeks of at least one cylinder.
    pub seeks: u64,
    /// Time spent seeking and settling, ns.
    pub seek_ns: u64,
    /// Time spent waiting for the sector to come round, ns.
    pub rotation_ns: u64,
    /// Time spent transferring to or from the media, ns.
    pub transfer_ns: u64,
    /// Writes that were read-modify-write of a physical sector.
    pub rmw_writes: u64,
    /// Flushes completed.
    pub flushes: u64,
}

/// A simulated hard disk. See the module documentation.
#[derive(Clone)]
pub struct Hdd {
    config: Box<HddConfig>,
    now: SimTime,
    cylinder: u32,
    head: u32,
    /// The actuator is doing a media operation (reads ahead do not count: any command stops them).
    media_busy: bool,
    /// The block the head reads next without any positioning, while it streams.
    stream_next: Option<u64>,
    commands: Slab<Cmd>,
    /// Commands in the drive (at most `queue_depth`).
    accepted: u32,
    waiting: VecDeque<(Command, u64, SimTime)>,
    media: Vec<MediaOp>,
    events: EventQueue<Event>,
    segments: Vec<Segment>,
    read_ahead: Option<ReadAhead>,
    /// Cached write bytes not yet on the media.
    dirty_bytes: u64,
    /// Destages and write-throughs queued or in progress.
    writes_pending: u32,
    /// Writes accepted so far: the last one's sequence number.
    write_seq: u64,
    flush_waiters: Vec<FlushWait>,
    counters: HddCounters,
}

impl Hdd {
    /// A disk at rest: heads over cylinder 0, caches empty.
    pub fn new(config: HddConfig) -> Self {
        let segments = config.read_segments as usize;
        Hdd {
            config: Box::new(config),
            now: SimTime::ZERO,
            cylinder: 0,
            head: 0,
            media_busy: false,
            stream_next: None,
            commands: Slab::default(),
            accepted: 0,
            waiting: VecDeque::new(),
            media: Vec::with_capacity(64),
            events: EventQueue::with_capacity(64),
            segments: Vec::with_capacity(segments),
            read_ahead: None,
            dirty_bytes: 0,
            writes_pending: 0,
            write_seq: 0,
            flush_waiters: Vec::new(),
            counters: HddCounters::default(),
        }
    }

    /// The disk's configuration.
    pub fn config(&self) -> &HddConfig {
        &self.config
    }

    /// Totals so far.
    pub fn totals(&self) -> HddCounters {
        self.counters
    }

    fn check(&self, c: &Command) -> Result<(), SubmitError> {
        if c.opcode.is_zoned() {
            return Err(SubmitError::NotZoned { opcode: c.opcode });
        }
        if matches!(c.opcode, Opcode::Flush) {
            return Ok(());
        }
        if c.blocks == 0 {
            return Err(SubmitError::Empty { opcode: c.opcode });
        }
        if c.slba.checked_add(u64::from(c.blocks)).is_none_or(|end| end > self.config.lbas) {
            return Err(SubmitError::OutOfRange { slba: c.slba, blocks: c.blocks, lbas: self.config.lbas });
        }
        let bytes = u64::from(c.blocks) * self.config.lba_bytes;
        if !matches!(c.opcode, Opcode::Trim) && bytes > self.config.max_transfer_bytes {
            return Err(SubmitError::TooLarge { bytes, mdts_bytes: self.config.max_transfer_bytes });
        }
        Ok(())
    }

    /// Time to move `blocks` over the interface.
    fn interface(&self, blocks: u64) -> SimDuration {
        SimDuration::for_bytes(blocks * self.config.lba_bytes, self.config.interface_bytes_per_sec)
    }

    fn accept(&mut self, now: SimTime, command: Command, user: u64) {
        self.stop_read_ahead(now);
        self.accepted += 1;
        let cmd = self.commands.insert(Cmd { user, command, submitted: now });
        let (lba, blocks) = (command.slba, u64::from(command.blocks));
        let overhead = self.config.command_overhead;
        match command.opcode {
            Opcode::Read => {
                self.counters.host_read_bytes += blocks * self.config.lba_bytes;
                let cached_to = self.cached_prefix_end(now, lba, blocks);
                if cached_to >= lba + blocks {
                    self.counters.cache_hit_bytes += blocks * self.config.lba_bytes;
                    self.events.push(now + overhead + self.interface(blocks), Event::Complete { cmd });
                } else {
                    self.counters.cache_hit_bytes += (cached_to - lba) * self.config.lba_bytes;
                    let rest = lba + blocks - cached_to;
                    self.media.push(MediaOp {
                        kind: MediaKind::Read { cmd },
                        lba: cached_to,
                        blocks: rest,
                        queued: now,
                        seq: 0,
                    });
                }
            }
            Opcode::Write => {
                let bytes = blocks * self.config.lba_bytes;
                self.counters.host_write_bytes += bytes;
                self.invalidate(lba, lba + blocks);
                self.writes_pending += 1;
                self.write_seq += 1;
                let seq = self.write_seq;
                if self.config.write_cache && self.dirty_bytes + bytes <= self.config.write_cache_bytes {
                    self.dirty_bytes += bytes;
                    self.media.push(MediaOp { kind: MediaKind::Destage, lba, blocks, queued: now, seq });
                    self.events.push(now + overhead + self.interface(blocks), Event::Complete { cmd });
                } else {
                    self.media.push(MediaOp { kind: MediaKind::Write { cmd }, lba, blocks, queued: now, seq });
                }
            }
            Opcode::Trim => self.events.push(now + overhead, Event::Complete { cmd }),
            Opcode::ZoneAppend | Opcode::ZoneSend { .. } => unreachable!("`check` refuses zoned commands"),
            Opcode::Flush => {
                // A flush covers the writes accepted before it, not those that follow.
                if self.writes_pending == 0 {
                    self.events.push(now + overhead, Event::Complete { cmd });
                } else {
                    let wait = FlushWait { cmd, last_seq: self.write_seq, left: self.writes_pending };
                    self.flush_waiters.push(wait);
                }
            }
        }
        self.start_media(now);
    }

    /// End of the cached run that starts at `lba` (at most `lba + blocks`), or `lba` on a miss.
    fn cached_prefix_end(&mut self, now: SimTime, lba: u64, blocks: u64) -> u64 {
        for s in &mut self.segments {
            if s.start <= lba && lba < s.end {
                s.used = now;
                return s.end.min(lba + blocks);
            }
        }
        lba
    }

    /// Forgets cached reads of blocks now being written.
    fn invalidate(&mut self, start: u64, end: u64) {
        self.segments.retain(|s| s.end <= start || s.start >= end);
    }

    /// Keeps `start..end` in a segment: extends the one it continues, else replaces the
    /// least recently used. Returns the segment's index.
    fn remember(&mut self, now: SimTime, start: u64, end: u64) -> usize {
        if let Some(i) = self.segments.iter().position(|s| s.start <= start && start <= s.end) {
            let s = &mut self.segments[i];
            s.end = s.end.max(end);
            s.used = now;
            return i;
        }
        let segment = Segment { start, end, used: now };
        if self.segments.len() < self.config.read_segments as usize {
            self.segments.push(segment);
            return self.segments.len() - 1;
        }
        let lru = (0..self.segments.len()).min_by_key(|&i| self.segments[i].used).expect("at least one segment");
        self.segments[lru] = segment;
        lru
    }

    /// A command arrived: the drive stops reading ahead; what it read so far stays cached and
    /// the head is where the read-ahead left it, streaming.
    fn stop_read_ahead(&mut self, now: SimTime) {
        let Some(ra) = self.read_ahead.take() else { return };
        let layout = &self.config.layout;
        let pos = layout.locate(ra.from);
        // Sustained: a track per revolution plus a switch.
        let per_track = self.config.revolution.as_ns() + self.config.head_switch.as_ns();
        let read =
            (u128::from(now.since(ra.since).as_ns()) * u128::from(pos.lbas_per_track) / u128::from(per_track)) as u64;
        let end = (ra.from + read).min(ra.limit);
        if end > ra.from {
            self.counters.media_read_bytes += (end - ra.from) * self.config.lba_bytes;
            if let Some(s) = self.segments.get_mut(ra.segment) {
                s.end = s.end.max(end);
            }
            let p = layout.locate(end.min(self.config.lbas - 1));
            self.cylinder = p.cylinder;
            self.head = p.head;
        }
        self.stream_next = (end < self.config.lbas).then_some(end);
    }

    /// Positioning time of `op` from where the head is, starting at `at`: seek (or head
    /// switch) and rotational wait; with the physical sector size, whether it is a RMW write.
    fn positioning(&self, op: &MediaOp, at: SimTime) -> (SimDuration, SimDuration, Position) {
        let layout = &self.config.layout;
        let p = layout.locate(op.lba);
        if self.stream_next == Some(op.lba) {
            return (SimDuration::ZERO, SimDuration::ZERO, p);
        }
        let distance = p.cylinder.abs_diff(self.cylinder);
        let mut seek = if distance > 0 {
            self.config.seek.time(distance)
        } else if p.head != self.head {
            self.config.head_switch
        } else {
            SimDuration::ZERO
        };
        if !matches!(op.kind, MediaKind::Read { .. }) && distance > 0 {
            seek += self.config.write_settle;
        }
        let rev = self.config.revolution.as_ns();
        let arrive = (at + seek).as_ns() % rev;
        let target = layout.phase_ns(p.track, p.sector, p.lbas_per_track);
        let wait = (target + rev - arrive) % rev;
        (seek, SimDuration(wait), p)
    }

    /// Starts the next media operation if the actuator is free: shortest positioning time
    /// first, unless one has waited beyond a bound (then the oldest).
    fn start_media(&mut self, now: SimTime) {
        if self.media_busy || self.media.is_empty() {
            return;
        }
        let at = now + self.config.command_overhead;
        // While a flush waits, the drive writes back what it covers first (a SATA flush is
        // not queued: nothing else runs until it is done).
        let covered = self.flush_waiters.iter().map(|w| w.last_seq).min();
        let eligible =
            |op: &MediaOp| covered.is_none_or(|last| !matches!(op.kind, MediaKind::Read { .. }) && op.seq <= last);
        let candidates = || (0..self.media.len()).filter(|&i| eligible(&self.media[i]));
        let Some(oldest) = candidates().min_by_key(|&i| self.media[i].queued) else { return };
        let pick = if now.since(self.media[oldest].queued) > self.config.revolution.times(MAX_WAIT_REVOLUTIONS) {
            oldest
        } else {
            candidates()
                .min_by_key(|&i| {
                    let (seek, wait, _) = self.positioning(&self.media[i], at);
                    (seek + wait, self.media[i].queued)
                })
                .expect("not empty")
        };
        let op = self.media.swap_remove(pick);
        let (seek, wait, _) = self.positioning(&op, at);
        let transfer = self.config.layout.transfer(op.lba, op.blocks);
        // A command that continues the stream under the head is decoded while the head
        // keeps reading: its overhead overlaps the media.
        let overhead = if self.stream_next == Some(op.lba) { SimDuration::ZERO } else { self.config.command_overhead };
        let mut busy = overhead + seek + wait + transfer;
        let writes = !matches!(op.kind, MediaKind::Read { .. });
        if writes && self.unaligned(op.lba, op.blocks) {
            // Read the physical sector first, write it one revolution later.
            busy += self.config.revolution;
            self.counters.rmw_writes += 1;
        }
        if self.stream_next != Some(op.lba) && self.config.layout.locate(op.lba).cylinder != self.cylinder {
            self.counters.seeks += 1;
        }
        self.counters.seek_ns += seek.as_ns();
        self.counters.rotation_ns += wait.as_ns();
        self.counters.transfer_ns += transfer.as_ns();
        self.stream_next = None;
        self.media_busy = true;
        self.events.push(now + busy, Event::MediaDone { op });
    }

    fn unaligned(&self, lba: u64, blocks: u64) -> bool {
        let per = self.config.physical_sector_bytes / self.config.lba_bytes;
        lba % per != 0 || blocks % per != 0
    }

    fn media_done(&mut self, now: SimTime, op: MediaOp) -> Option<Completion> {
        self.media_busy = false;
        let end = op.lba + op.blocks;
        let last = self.config.layout.locate(end - 1);
        self.cylinder = last.cylinder;
        self.head = last.head;
        let bytes = op.blocks * self.config.lba_bytes;
        let done = match op.kind {
            MediaKind::Read { cmd } => {
                self.counters.media_read_bytes += bytes;
                let first = self.commands[cmd].command.slba;
                let segment = self.remember(now, first, end);
                if self.media.is_empty() && self.config.read_ahead_lbas > 0 && end < self.config.lbas {
                    let limit = (end + self.config.read_ahead_lbas).min(self.config.lbas);
                    self.read_ahead = Some(ReadAhead { segment, from: end, limit, since: now });
                } else {
                    self.stream_next = (end < self.config.lbas).then_some(end);
                }
                Some(self.complete(now, cmd))
            }
            MediaKind::Write { cmd } => {
                self.counters.media_write_bytes += bytes;
                self.write_on_media(now, op.seq);
                Some(self.complete(now, cmd))
            }
            MediaKind::Destage => {
                self.counters.media_write_bytes += bytes;
                self.dirty_bytes -= bytes;
                self.write_on_media(now, op.seq);
                None
            }
        };
        self.start_media(now);
        done
    }

    /// Write number `seq` reached the media: a flush completes once every write before it has.
    fn write_on_media(&mut self, now: SimTime, seq: u64) {
        self.writes_pending -= 1;
        let mut i = 0;
        while i < self.flush_waiters.len() {
            let w = &mut self.flush_waiters[i];
            if seq <= w.last_seq {
                w.left -= 1;
            }
            if w.left == 0 {
                let cmd = self.flush_waiters.swap_remove(i).cmd;
                self.events.push(now, Event::Complete { cmd });
            } else {
                i += 1;
            }
        }
    }

    fn complete(&mut self, now: SimTime, cmd: u32) -> Completion {
        let c = self.commands[cmd];
        self.commands.free(cmd);
        self.accepted -= 1;
        if c.command.opcode == Opcode::Flush {
            self.counters.flushes += 1;
        }
        if let Some((command, user, _)) = self.waiting.pop_front() {
            self.accept(now, command, user);
        }
        Completion { user: c.user, command: c.command, submitted: c.submitted, completed: now, assigned_lba: 0 }
    }
}

/// A queued media operation older than this many revolutions goes next, whatever SPTF would
/// pick: drives bound how long a command can be passed over (the bound is not published;
/// about a second at 7200 rpm) [U].
const MAX_WAIT_REVOLUTIONS: u64 = 120;

impl BlockDevice for Hdd {
    fn geometry(&self) -> BlockGeometry {
        BlockGeometry {
            lba_bytes: self.config.lba_bytes,
            lbas: self.config.lbas,
            max_transfer_bytes: self.config.max_transfer_bytes,
            hardware_queues: 1,
            placement_handles: 0,
            zones: None,
        }
    }

    fn profile(&self) -> &str {
        &self.config.name
    }

    fn now(&self) -> SimTime {
        self.now
    }

    fn submit(&mut self, now: SimTime, command: Command, tag: u64) -> Result<(), SubmitError> {
        self.check(&command)?;
        debug_assert!(now >= self.now, "time moved backwards: {now} < {}", self.now);
        self.now = self.now.max(now);
        if self.accepted >= self.config.queue_depth {
            self.waiting.push_back((command, tag, now));
        } else {
            self.accept(now, command, tag);
        }
        Ok(())
    }

    fn poll_at(&self) -> SimTime {
        self.events.peek_time()
    }

    fn poll(&mut self) -> Option<Completion> {
        let (at, event) = self.events.pop()?;
        self.now = at;
        match event {
            Event::MediaDone { op } => self.media_done(at, op),
            Event::Complete { cmd } => Some(self.complete(at, cmd)),
        }
    }

    fn in_flight(&self) -> u32 {
        self.accepted + self.waiting.len() as u32
    }

    fn counters(&self, prefix: &str, out: &mut CounterRow) {
        let c = &self.counters;
        out.total(prefix, "host_read_bytes", c.host_read_bytes);
        out.total(prefix, "host_write_bytes", c.host_write_bytes);
        out.total(prefix, "media_read_bytes", c.media_read_bytes);
        out.total(prefix, "media_write_bytes", c.media_write_bytes);
        out.total(prefix, "cache_hit_bytes", c.cache_hit_bytes);
        out.total(prefix, "seeks", c.seeks);
        out.total(prefix, "seek_ns", c.seek_ns);
        out.total(prefix, "rotation_ns", c.rotation_ns);
        out.total(prefix, "transfer_ns", c.transfer_ns);
        out.total(prefix, "rmw_writes", c.rmw_writes);
        out.total(prefix, "flushes", c.flushes);
        out.level(prefix, "write_cache_dirty_bytes", self.dirty_bytes);
    }
}
