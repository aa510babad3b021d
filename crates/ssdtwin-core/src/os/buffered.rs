//! Buffered I/O (`direct=0`): reads and writes through the page cache, readahead,
//! writeback by the flusher, the writer throttle, and fsync.
//!
//! Read first: `mm/filemap.c` (`filemap_read`, `filemap_get_pages`), `mm/readahead.c`,
//! `mm/page-writeback.c` (`balance_dirty_pages`, `wb_over_bg_thresh`), `fs/fs-writeback.c`
//! (`wb_workfn`, `wb_check_old_data_flush`) and `block/blk-wbt.c` (`calc_wb_limits`);
//! `docs/model.md` § "Page cache" lists what is simplified.
//!
//! A buffered call ([`Host::submit_buffered`]) either finishes at once (every page it needs
//! is in memory and the writer is under the dirty limits: [`BufferedStart::Done`]) or waits
//! ([`BufferedStart::Waiting`]) for reads it started or joined, for the throttle's pause,
//! or (fsync, `O_SYNC`) for writeback and a device flush; its [`IoDone`] then comes from
//! [`Host::poll`] like a direct I/O's. The pages' copy to or from the caller is CPU work
//! of the calling thread, which the workload books when the call returns.
//!
//! The host's own I/O (readahead, writeback, flushes) goes through the same block layer as
//! the workload's, tagged [`INTERNAL`]: reads are submitted from the reading thread's core
//! and pay its block-layer cost there; writeback is the flusher's, whose CPU time is not
//! booked (its completions' interrupts are).

use super::page_cache::dirty::{self, DirtyLimits, MAX_PAUSE, WriteBandwidth};
use super::page_cache::readahead::{Readahead, Window};
use super::page_cache::{Lookup, PageCache, PageNo};
use super::{CompletionPath, CoreId, Host, IoDone, IoRequest};
use crate::block::{BlockDevice, CounterRow, Opcode};
use crate::engine::{SimDuration, SimTime, Slab};
use std::collections::{BTreeMap, VecDeque};

/// The tag bit of the host's own requests (readahead, writeback, flush).
pub(super) const INTERNAL: u64 = super::tag::HOST_OWN;
const KIND_SHIFT: u32 = 40;
const KIND_READ: u64 = 1;
const KIND_WRITEBACK: u64 = 2;
const KIND_FLUSH: u64 = 3;
/// The virtual-memory model's requests (see [`crate::os::vm`]).
const KIND_VM: u64 = 4;

/// The tag of the VM's request `id` (beside [`INTERNAL`]).
pub(super) fn vm_tag(id: u32) -> u64 {
    (KIND_VM << KIND_SHIFT) | u64::from(id)
}

/// The page cache's settings, from the host profile.
#[derive(Clone, Debug, PartialEq)]
pub struct PageCacheConfig {
    /// Page size, bytes.
    pub page_bytes: u64,
    /// Memory the page cache may use (free plus file pages), bytes.
    pub memory_bytes: u64,
    /// Largest readahead window (`read_ahead_kb`), bytes.
    pub read_ahead_bytes: u64,
    /// `dirty_background_ratio`, percent.
    pub dirty_background_ratio: u32,
    /// `dirty_ratio`, percent.
    pub dirty_ratio: u32,
    /// The flusher's periodic wakeup (`dirty_writeback_centisecs`).
    pub writeback_interval: SimDuration,
    /// Age at which dirty data is written back regardless (`dirty_expire_centisecs`).
    pub dirty_expire: SimDuration,
    /// Background writeback requests in flight (writeback throttling's background limit).
    pub writeback_background_depth: u32,
    /// Writeback requests in flight for fsync and `O_SYNC` writes.
    pub writeback_sync_depth: u32,
    /// CPU time of copying one KiB to or from user memory.
    pub copy_per_kib: SimDuration,
    /// CPU time per page found or added by a read (lookup, LRU).
    pub read_page: SimDuration,
    /// CPU time per page written (`write_begin`/`write_end`, dirty accounting).
    pub write_page: SimDuration,
}

/// One buffered call as the workload makes it.
#[derive(Clone, Copy, Debug)]
pub struct BufferedIo {
    /// The open file it is made on: each has its own readahead state.
    pub stream: u32,
    /// The calling thread's core.
    pub core: CoreId,
    /// Read, write, or flush (fsync of the file).
    pub io: IoRequest,
    /// The file's extent on the target, bytes `(start, end)`: readahead stops at its end,
    /// fsync covers all of it.
    pub file: (u64, u64),
    /// An `O_SYNC` write: written back and flushed before the call returns.
    pub sync: bool,
    /// How a trim's completion is noticed (trims bypass the cache).
    pub path: CompletionPath,
    /// Comes back in the [`IoDone`].
    pub tag: u64,
}

/// How a buffered call went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferedStart {
    /// It finished when it was made.
    Done,
    /// It waits; its [`IoDone`] comes from [`Host::poll`].
    Waiting,
}

#[derive(Clone, Copy, Debug, Default)]
struct Stream {
    ra: Readahead,
    last_write: Option<SimTime>,
}

/// A call waiting for reads, the throttle, or writeback.
#[derive(Clone, Debug)]
struct Waiter {
    tag: u64,
    reads_left: u32,
    /// The write to do once the pages it partly covers are read.
    write: Option<BufferedIo>,
}

#[derive(Clone, Debug, Default)]
struct DeviceRead {
    first: PageNo,
    pages: u64,
    waiters: Vec<u32>,
}

#[derive(Clone, Debug, Default)]
struct Writeback {
    first: PageNo,
    pages: u64,
    sync: bool,
    syncs: Vec<u32>,
}

/// An fsync (or `O_SYNC` write) waiting for its pages' writeback, then for a flush.
#[derive(Clone, Debug)]
struct SyncWait {
    tag: u64,
    writebacks_left: u32,
}

/// The page cache and everything buffered I/O keeps in flight.
pub(super) struct BufferedState {
    cfg: PageCacheConfig,
    cache: PageCache,
    limits: DirtyLimits,
    ra_pages: u64,
    io_pages: u64,
    target_pages: u64,
    streams: Vec<Stream>,
    waiters: Slab<Waiter>,
    reads: Slab<DeviceRead>,
    /// In-flight reads by first page.
    reads_at: BTreeMap<PageNo, u32>,
    writebacks: Slab<Writeback>,
    /// In-flight writeback by first page.
    writebacks_at: BTreeMap<PageNo, u32>,
    /// Sync writeback waiting for a slot: (first, pages, sync id).
    sync_queue: VecDeque<(PageNo, u64, u32)>,
    syncs: Slab<SyncWait>,
    background_in_flight: u32,
    sync_in_flight: u32,
    cursor: PageNo,
    /// When the oldest dirty data still dirty was written (`inode->dirtied_when`).
    dirtied_when: Option<SimTime>,
    /// Pages the periodic (kupdate) writeback still has to write.
    expired_pages: u64,
    kupdate_armed: bool,
    written_bytes: u64,
    bandwidth: WriteBandwidth,
    throttled_ns: u64,
}

/// Host events of buffered I/O.
#[derive(Clone, Copy, Debug)]
pub(super) enum BufferedEvent {
    /// A waiting call's pause or reads are over: it completes now.
    Done { waiter: u32 },
    /// A throttled writer's pause is over.
    Throttled { waiter: u32 },
    /// The flusher's periodic wakeup.
    Kupdate,
}

impl BufferedState {
    pub(super) fn new(cfg: PageCacheConfig, target_bytes: u64, request_bytes: u64) -> Self {
        let page = cfg.page_bytes;
        let capacity = cfg.memory_bytes / page;
        BufferedState {
            limits: DirtyLimits::new(capacity, cfg.dirty_background_ratio, cfg.dirty_ratio),
            cache: PageCache::new(capacity),
            ra_pages: (cfg.read_ahead_bytes / page).max(1),
            io_pages: (request_bytes / page).max(1),
            target_pages: target_bytes / page,
            streams: Vec::new(),
            waiters: Slab::default(),
            reads: Slab::default(),
            reads_at: BTreeMap::new(),
            writebacks: Slab::default(),
            writebacks_at: BTreeMap::new(),
            sync_queue: VecDeque::new(),
            syncs: Slab::default(),
            background_in_flight: 0,
            sync_in_flight: 0,
            cursor: 0,
            dirtied_when: None,
            expired_pages: 0,
            kupdate_armed: false,
            written_bytes: 0,
            bandwidth: WriteBandwidth::default(),
            throttled_ns: 0,
            cfg,
        }
    }

    /// The page cache's settings.
    pub(super) fn config(&self) -> &PageCacheConfig {
        &self.cfg
    }

    fn pages(&self, offset: u64, bytes: u64) -> (PageNo, PageNo) {
        let page = self.cfg.page_bytes;
        (offset / page, (offset + bytes).div_ceil(page).min(self.target_pages))
    }

    fn dirty_and_writeback(&self) -> u64 {
        self.cache.dirty() + self.cache.under_writeback()
    }

    fn stream(&mut self, s: u32) -> &mut Stream {
        let s = s as usize;
        if self.streams.len() <= s {
            self.streams.resize(s + 1, Stream::default());
        }
        &mut self.streams[s]
    }

    /// The in-flight read that holds locked `page`: reads never overlap, so it is the one
    /// starting closest below it.
    fn read_covering(&self, page: PageNo) -> Option<u32> {
        self.reads_at.range(..=page).next_back().map(|(_, &r)| r)
    }

    /// Makes call `tag` wait for `reads` (each once), then do `write` if any.
    fn wait_for_reads(&mut self, tag: u64, reads: &[u32], write: Option<BufferedIo>) {
        let w = self.waiters.insert(Waiter { tag, reads_left: reads.len() as u32, write });
        for &r in reads {
            self.reads[r].waiters.push(w);
        }
    }

    /// Writers that dirtied pages in the last bandwidth interval (at least one).
    fn active_writers(&self, now: SimTime) -> u32 {
        let recent = |s: &&Stream| s.last_write.is_some_and(|t| now.since(t) < dirty::BANDWIDTH_INTERVAL);
        (self.streams.iter().filter(recent).count() as u32).max(1)
    }
}

impl<D: BlockDevice> Host<D> {
    /// Whether this host has a page cache (buffered I/O is possible).
    pub fn has_page_cache(&self) -> bool {
        self.buffered.is_some()
    }

    /// The page cache's settings, if the host has one.
    pub fn page_cache_config(&self) -> Option<&PageCacheConfig> {
        self.buffered.as_ref().map(|b| b.config())
    }

    /// Drops the clean pages of bytes `start..end` from the page cache (fio's `invalidate`).
    pub fn invalidate(&mut self, start: u64, end: u64) {
        if let Some(b) = self.buffered.as_mut() {
            let (lo, hi) = b.pages(start, end - start);
            b.cache.invalidate(lo, hi);
        }
    }

    /// Reads bytes `start..end` into the page cache before a job starts (fio's `pre_read`):
    /// untimed, and only as much as memory holds (the end of the range stays).
    pub fn pre_read(&mut self, start: u64, end: u64) {
        if let Some(b) = self.buffered.as_mut() {
            let (lo, hi) = b.pages(start, end - start);
            let keep = b.cfg.memory_bytes / b.cfg.page_bytes;
            for page in hi.saturating_sub(keep).max(lo)..hi {
                if !b.cache.contains(page) {
                    b.cache.insert_locked(page, false);
                    b.cache.read_done(page);
                }
            }
        }
    }

    /// Makes a buffered call at `now` (the host must have a page cache). Reads it starts
    /// are submitted from `b.core`, whose CPU they book.
    pub fn submit_buffered(&mut self, now: SimTime, b: BufferedIo) -> BufferedStart {
        let start = match b.io.opcode {
            Opcode::Read => self.buffered_read(now, b),
            Opcode::Write => self.buffered_write(now, b),
            Opcode::Flush => self.buffered_sync(now, b, b.file),
            Opcode::ZoneAppend | Opcode::ZoneSend { .. } => {
                unreachable!("zoned commands are direct: the runner refuses buffered zoned jobs")
            }
            Opcode::Trim => {
                // A discard goes to the device; the cache drops what it held there.
                self.invalidate(b.io.offset_bytes, b.io.offset_bytes + b.io.bytes);
                self.submit(now, now, b.io, b.tag, b.path);
                return BufferedStart::Waiting;
            }
        };
        if start == BufferedStart::Waiting {
            self.in_flight += 1;
        }
        start
    }

    fn buffered_read(&mut self, now: SimTime, b: BufferedIo) -> BufferedStart {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        let (p0, p1) = state.pages(b.io.offset_bytes, b.io.bytes);
        let file_end = (b.file.1 / state.cfg.page_bytes).max(p1);
        let req = p1 - p0;
        let max = if req > state.ra_pages { req.min(state.io_pages).max(state.ra_pages) } else { state.ra_pages };
        let mut waiting_on: Vec<u32> = Vec::new();
        for page in p0..p1 {
            let state = self.buffered.as_mut().expect("checked");
            let lookup = state.cache.touch(page);
            match lookup {
                Lookup::Uptodate { .. } => state.cache.counters.hit_pages += 1,
                _ => state.cache.counters.miss_pages += 1,
            }
            match lookup {
                Lookup::Uptodate { marker: true } | Lookup::Locked { marker: true } => {
                    let w = state.stream(b.stream).ra.on_marker(page, max);
                    self.read_window(now, &b, w, (p0, p1), file_end);
                }
                Lookup::Absent => {
                    let history = state.cache.cached_before(page, max);
                    let w = state.stream(b.stream).ra.on_miss(page, p1 - page, max, history);
                    self.read_window(now, &b, w, (p0, p1), file_end);
                }
                _ => {}
            }
            if !matches!(lookup, Lookup::Uptodate { .. }) {
                let state = self.buffered.as_mut().expect("checked");
                if let Some(r) = state.read_covering(page) {
                    if waiting_on.last() != Some(&r) {
                        waiting_on.push(r);
                    }
                }
            }
        }
        let state = self.buffered.as_mut().expect("checked");
        state.stream(b.stream).ra.read_done(p1);
        if waiting_on.is_empty() {
            return BufferedStart::Done;
        }
        state.wait_for_reads(b.tag, &waiting_on, None);
        BufferedStart::Waiting
    }

    /// Reads the pages of `w` not yet in memory, clipped to the file, as block requests
    /// submitted from the caller's core; `asked` is the caller's own page range.
    fn read_window(&mut self, now: SimTime, b: &BufferedIo, w: Window, asked: (PageNo, PageNo), file_end: PageNo) {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        let end = (w.start + w.size).min(file_end).min(state.target_pages);
        let run_max = state.io_pages;
        let mut runs: Vec<(PageNo, u64)> = Vec::new();
        for page in w.start..end {
            if state.cache.contains(page) {
                continue;
            }
            state.cache.insert_locked(page, w.marker == Some(page));
            state.cache.counters.read_pages += 1;
            if !(asked.0..asked.1).contains(&page) {
                state.cache.counters.readahead_pages += 1;
            }
            match runs.last_mut() {
                Some((first, n)) if *first + *n == page && *n < run_max => *n += 1,
                _ => runs.push((page, 1)),
            }
        }
        let page_bytes = state.cfg.page_bytes;
        let path = CompletionPath::Interrupt { core: self.irq_core(b.core), work: self.config.block_complete };
        for (first, pages) in runs {
            let state = self.buffered.as_mut().expect("checked");
            let read = DeviceRead { first, pages, waiters: Vec::new() };
            let r = state.reads.insert(read);
            state.reads_at.insert(first, r);
            let at = self.cpu.task(b.core, now, self.config.block_submit).end;
            let io = IoRequest {
                opcode: Opcode::Read,
                offset_bytes: first * page_bytes,
                bytes: pages * page_bytes,
                placement: None,
            };
            self.submit(now, at, io, INTERNAL | (KIND_READ << KIND_SHIFT) | u64::from(r), path);
        }
    }

    fn buffered_write(&mut self, now: SimTime, b: BufferedIo) -> BufferedStart {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        let page = state.cfg.page_bytes;
        let (p0, p1) = state.pages(b.io.offset_bytes, b.io.bytes);
        // A page the write covers only in part must be read first (`write_begin`).
        let end = b.io.offset_bytes + b.io.bytes;
        let mut partial = Vec::new();
        if b.io.offset_bytes % page != 0 || (p1 - p0 == 1 && b.io.bytes < page) {
            partial.push(p0);
        }
        if end % page != 0 && p1 - 1 != p0 {
            partial.push(p1 - 1);
        }
        let mut waiting_on = Vec::new();
        for p in partial {
            let state = self.buffered.as_mut().expect("checked");
            match state.cache.touch(p) {
                Lookup::Uptodate { .. } => continue,
                Lookup::Absent => {
                    let w = Window { start: p, size: 1, marker: None };
                    self.read_window(now, &b, w, (p, p + 1), p + 1);
                }
                Lookup::Locked { .. } => {}
            }
            let state = self.buffered.as_mut().expect("checked");
            if let Some(r) = state.read_covering(p) {
                waiting_on.push(r);
            }
        }
        if waiting_on.is_empty() {
            return self.write_pages(now, b, None);
        }
        let state = self.buffered.as_mut().expect("checked");
        state.wait_for_reads(b.tag, &waiting_on, Some(b));
        BufferedStart::Waiting
    }

    /// Dirties the pages of write `b`, starts background writeback if due, and throttles
    /// the writer. `waiter` is the call's record if it already waited for reads.
    fn write_pages(&mut self, now: SimTime, b: BufferedIo, waiter: Option<u32>) -> BufferedStart {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        let (p0, p1) = state.pages(b.io.offset_bytes, b.io.bytes);
        for p in p0..p1 {
            state.cache.write(p);
        }
        state.dirtied_when.get_or_insert(now);
        state.stream(b.stream).last_write = Some(now);
        self.arm_kupdate(now);
        self.kick_writeback(now);
        if b.sync {
            if let Some(w) = waiter {
                self.buffered.as_mut().expect("checked").waiters.free(w);
            }
            return self.buffered_sync(now, b, (b.io.offset_bytes, b.io.offset_bytes + b.io.bytes));
        }
        let state = self.buffered.as_mut().expect("checked");
        let dirty = state.dirty_and_writeback();
        let writers = state.active_writers(now);
        let pause = dirty::pause(&state.limits, dirty, p1 - p0, state.cfg.page_bytes, &state.bandwidth, writers);
        if pause == SimDuration::ZERO {
            if let Some(w) = waiter {
                self.events.push(now, super::Event::Buffered(BufferedEvent::Done { waiter: w }));
                return BufferedStart::Waiting;
            }
            return BufferedStart::Done;
        }
        state.throttled_ns += pause.as_ns();
        let w = waiter.unwrap_or_else(|| state.waiters.insert(Waiter { tag: b.tag, reads_left: 0, write: None }));
        self.events.push(now + pause, super::Event::Buffered(BufferedEvent::Throttled { waiter: w }));
        BufferedStart::Waiting
    }

    /// fsync of bytes `range.0..range.1`: writes back what is dirty there, waits for that
    /// and for writeback already under way there, then flushes the device's cache.
    fn buffered_sync(&mut self, now: SimTime, b: BufferedIo, range: (u64, u64)) -> BufferedStart {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        let (lo, hi) = state.pages(range.0, range.1 - range.0);
        let sync = SyncWait { tag: b.tag, writebacks_left: 0 };
        let id = state.syncs.insert(sync);
        // Writeback already at the device in the range is waited for too
        // (`filemap_fdatawait_range`).
        let before: Vec<u32> = state
            .writebacks_at
            .range(..hi)
            .filter(|(first, w)| **first + state.writebacks[**w].pages > lo)
            .map(|(_, &w)| w)
            .collect();
        for w in &before {
            state.writebacks[*w].syncs.push(id);
        }
        let mut runs = 0;
        while let Some((first, pages)) = state.cache.take_dirty_run(lo, state.io_pages, lo, hi) {
            state.sync_queue.push_back((first, pages, id));
            runs += 1;
        }
        state.syncs[id].writebacks_left = (before.len() + runs) as u32;
        self.kick_writeback(now);
        let state = self.buffered.as_mut().expect("checked");
        if state.syncs[id].writebacks_left == 0 {
            self.send_flush(now, id);
        }
        BufferedStart::Waiting
    }

    fn send_flush(&mut self, now: SimTime, sync: u32) {
        let io = IoRequest { opcode: Opcode::Flush, offset_bytes: 0, bytes: 0, placement: None };
        let path = CompletionPath::Interrupt { core: CoreId(0), work: self.config.block_complete };
        self.submit(now, now, io, INTERNAL | (KIND_FLUSH << KIND_SHIFT) | u64::from(sync), path);
    }

    /// Arms the flusher's periodic wakeup if dirty data waits and none is armed.
    fn arm_kupdate(&mut self, now: SimTime) {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        if state.kupdate_armed || state.dirtied_when.is_none() {
            return;
        }
        state.kupdate_armed = true;
        let interval = state.cfg.writeback_interval.as_ns().max(1);
        let next = SimTime((now.as_ns() / interval + 1) * interval);
        self.events.push(next, super::Event::Buffered(BufferedEvent::Kupdate));
    }

    /// Sends writeback while slots are free: sync writeback first, then the flusher's
    /// background writeback above the background threshold or of expired data.
    fn kick_writeback(&mut self, now: SimTime) {
        let page_bytes = self.buffered.as_ref().expect("buffered I/O needs a page cache").cfg.page_bytes;
        let path = CompletionPath::Interrupt { core: CoreId(0), work: self.config.block_complete };
        loop {
            let state = self.buffered.as_mut().expect("checked");
            let run = if state.sync_in_flight < state.cfg.writeback_sync_depth
                && let Some((first, pages, id)) = state.sync_queue.pop_front()
            {
                state.sync_in_flight += 1;
                Some(Writeback { first, pages, sync: true, syncs: vec![id] })
            } else if state.background_in_flight < state.cfg.writeback_background_depth
                && (state.cache.dirty() > state.limits.background || state.expired_pages > 0)
                && let Some((first, pages)) = state.cache.take_dirty_run(state.cursor, state.io_pages, 0, PageNo::MAX)
            {
                state.cursor = first + pages;
                state.expired_pages = state.expired_pages.saturating_sub(pages);
                state.background_in_flight += 1;
                Some(Writeback { first, pages, sync: false, syncs: Vec::new() })
            } else {
                None
            };
            let Some(wb) = run else { return };
            let io = IoRequest {
                opcode: Opcode::Write,
                offset_bytes: wb.first * page_bytes,
                bytes: wb.pages * page_bytes,
                placement: None,
            };
            let first = wb.first;
            let w = state.writebacks.insert(wb);
            state.writebacks_at.insert(first, w);
            self.submit(now, now, io, INTERNAL | (KIND_WRITEBACK << KIND_SHIFT) | u64::from(w), path);
        }
    }

    /// One of the host's own requests completed (its interrupt handled) at `at`; returns
    /// the call an fsync's flush completes.
    pub(super) fn internal_done(&mut self, tag: u64, at: SimTime) -> Option<IoDone> {
        let id = (tag & 0xFFFF_FFFF) as u32;
        match (tag & !INTERNAL) >> KIND_SHIFT {
            KIND_READ => self.read_done(id, at),
            KIND_WRITEBACK => self.writeback_done(id, at),
            KIND_VM => return self.vm_io_done(id, at),
            _ => {
                let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
                let tag = state.syncs[id].tag;
                state.syncs.free(id);
                return Some(self.call_done(tag, at));
            }
        }
        None
    }

    fn read_done(&mut self, r: u32, at: SimTime) {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        let DeviceRead { first, pages, waiters } = std::mem::take(&mut state.reads[r]);
        state.reads_at.remove(&first);
        state.reads.free(r);
        for p in first..first + pages {
            state.cache.read_done(p);
        }
        for w in waiters {
            let state = self.buffered.as_mut().expect("checked");
            let waiter = &mut state.waiters[w];
            waiter.reads_left -= 1;
            if waiter.reads_left > 0 {
                continue;
            }
            match waiter.write.take() {
                Some(write) => {
                    // With its record given, the write completes through an event.
                    self.write_pages(at, write, Some(w));
                }
                None => self.events.push(at, super::Event::Buffered(BufferedEvent::Done { waiter: w })),
            }
        }
    }

    fn writeback_done(&mut self, w: u32, at: SimTime) {
        let state = self.buffered.as_mut().expect("buffered I/O needs a page cache");
        let Writeback { first, pages, sync, syncs } = std::mem::take(&mut state.writebacks[w]);
        state.writebacks_at.remove(&first);
        state.writebacks.free(w);
        state.cache.end_writeback(first, pages);
        if sync {
            state.sync_in_flight -= 1;
        } else {
            state.background_in_flight -= 1;
        }
        state.written_bytes += pages * state.cfg.page_bytes;
        state.bandwidth.update(at, state.written_bytes, true);
        if state.dirty_and_writeback() == 0 {
            state.dirtied_when = None;
        }
        let mut flush = Vec::new();
        for s in syncs {
            let sw = &mut state.syncs[s];
            sw.writebacks_left -= 1;
            if sw.writebacks_left == 0 {
                flush.push(s);
            }
        }
        for s in flush {
            self.send_flush(at, s);
        }
        self.kick_writeback(at);
    }

    /// Buffered call `tag` returns at `at`.
    fn call_done(&mut self, tag: u64, at: SimTime) -> IoDone {
        self.in_flight -= 1;
        IoDone { tag, device_done: at, visible: at }
    }

    /// A buffered event at `at`; returns the call it completes, if any.
    pub(super) fn buffered_event(&mut self, at: SimTime, event: BufferedEvent) -> Option<IoDone> {
        let state = self.buffered.as_mut().expect("buffered events need a page cache");
        match event {
            BufferedEvent::Done { waiter } => {
                state.waiters.free(waiter);
                let tag = state.waiters[waiter].tag;
                Some(self.call_done(tag, at))
            }
            BufferedEvent::Throttled { waiter } => {
                // Over the limit the writer sleeps again (`balance_dirty_pages` loops while
                // dirty pages exceed it).
                if state.dirty_and_writeback() >= state.limits.thresh && state.cache.under_writeback() > 0 {
                    state.throttled_ns += MAX_PAUSE.as_ns();
                    self.events.push(at + MAX_PAUSE, super::Event::Buffered(BufferedEvent::Throttled { waiter }));
                    return None;
                }
                state.waiters.free(waiter);
                let tag = state.waiters[waiter].tag;
                Some(self.call_done(tag, at))
            }
            BufferedEvent::Kupdate => {
                state.kupdate_armed = false;
                if let Some(since) = state.dirtied_when {
                    if at.since(since) >= state.cfg.dirty_expire {
                        state.expired_pages = state.cache.dirty();
                        state.dirtied_when = (state.cache.dirty() > 0).then_some(at);
                    }
                }
                if state.cache.dirty() > 0 {
                    state.dirtied_when.get_or_insert(at);
                    self.arm_kupdate(at);
                }
                self.kick_writeback(at);
                None
            }
        }
    }

    /// The page cache's counters under `prefix`.
    pub(super) fn page_cache_counters(&self, prefix: &str, out: &mut CounterRow) {
        let Some(state) = self.buffered.as_ref() else { return };
        let page = state.cfg.page_bytes;
        let c = &state.cache.counters;
        out.total(prefix, "page_cache_hit_bytes", c.hit_pages * page);
        out.total(prefix, "page_cache_miss_bytes", c.miss_pages * page);
        out.total(prefix, "page_cache_read_bytes", c.read_pages * page);
        out.total(prefix, "readahead_bytes", c.readahead_pages * page);
        out.total(prefix, "writeback_bytes", c.writeback_pages * page);
        out.total(prefix, "page_cache_evicted_bytes", c.evicted_pages * page);
        out.total(prefix, "dirty_throttle_ns", state.throttled_ns);
        out.level(prefix, "page_cache_bytes", state.cache.resident() * page);
        out.level(prefix, "dirty_bytes", state.cache.dirty() * page);
        out.level(prefix, "under_writeback_bytes", state.cache.under_writeback() * page);
    }
}
