//! Background work: GC and SLC folding, driven through the same dies and channels as host
//! I/O.
//!
//! Both are relocation jobs (one superblock each): the map changes at once, then the
//! victim's reads are issued a window at a time, so background work interleaves with host
//! work instead of flooding the die queues. Each read's data becomes a program once every
//! read feeding that destination program unit is done; until that program finishes, host
//! reads of the data go to the victim. Data read and not yet programmed sits in controller
//! memory, so a job of each kind has at most `2 × dies` reads outstanding and issues no
//! read while `2 × dies` of its kind's programs are queued or running: it moves data at the
//! pace its programs allow. One GC job and one fold job may read at a time.
//!
//! The victim is erased, die by die, once all its reads and all programs of its data are
//! done. A job that ends with its last destination program unit partly filled leaves that
//! unit to the next job of its kind (or pads it if none starts), and its victim's erase also
//! waits for that unit's program (`held`, `program_victims`).
//!
//! GC runs while free space is below its threshold, or when the first waiting write needs
//! more superblocks than are free or being reclaimed beyond GC's reserve. Folding runs in
//! *sessions*: a session starts when at least the high watermark is cached, after the host
//! has been idle for the idle delay, on a host read (if the profile says so), or when a
//! write waits for space (the cache full under fold-then-write, or no free superblock
//! beyond GC's reserve); it folds the oldest full SLC superblocks until no more than the
//! low watermark is cached and no write waits for space.
//!
//! Fold programs queued while at least `slc_cache.fold_urgent_gib` is cached are urgent:
//! they queue with host programs and no read suspends them.

use super::{Event, Ssd};
use crate::ftl::Stream;
use crate::nand::{DieId, DieOp, DieOpKind, PuId};

/// Which relocation job: GC or folding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JobKind {
    Gc = 0,
    Fold = 1,
}

/// Fold reads carry this bit in their die-op token.
const FOLD_TOKEN: u32 = 1 << 31;

impl Ssd {
    /// The die-queue class of a job's programs: GC cannot yield to host work, or free space
    /// would run out; folding is urgent while the cache is above its urgent watermark, and
    /// otherwise yields if the profile says so.
    fn program_class(&self, kind: JobKind) -> DieOpKind {
        let slc = &self.ftl.slc;
        match kind {
            JobKind::Fold if self.ftl.slc_valid_units() >= slc.fold_urgent_units => DieOpKind::UrgentProgram,
            JobKind::Fold if slc.fold_in_background => DieOpKind::BackgroundProgram,
            JobKind::Gc | JobKind::Fold => DieOpKind::Program,
        }
    }

    /// Starts a GC job if free space is low, or a waiting write cannot be placed, and none
    /// is running.
    pub(super) fn maybe_start_gc(&mut self) {
        if self.jobs_active[JobKind::Gc as usize] {
            return;
        }
        // A write needing more superblocks than the background threshold keeps free must
        // not wait for GC that the threshold alone would never start.
        let starved = self.buffer.front().is_some_and(|slot| {
            let s = &self.slots[slot as usize];
            self.ftl.space_short_for(s.handle, s.units)
        });
        if !self.ftl.wants_gc() && !starved {
            self.maybe_level_wear();
            return;
        }
        if let Some(victim) = self.ftl.pick_gc_victim() {
            self.start_job(JobKind::Gc, victim);
        }
    }

    /// With no GC needed, moves cold data off a young superblock if static wear levelling
    /// asks (a GC job on a victim chosen for its wear, not its valid count).
    fn maybe_level_wear(&mut self) {
        if !self.jobs_active[JobKind::Gc as usize]
            && let Some(victim) = self.ftl.take_wear_victim()
        {
            self.start_job(JobKind::Gc, victim);
        }
    }

    /// Starts a folding session down to `low_units` cached, if the SLC cache holds more
    /// (a session already running goes on to the lower of its watermark and this one).
    pub(super) fn start_fold_session(&mut self, low_units: u64) {
        let slc = self.ftl.slc;
        if slc.enabled() && self.ftl.slc_valid_units() > low_units {
            self.session_low_units = if self.folding { self.session_low_units.min(low_units) } else { low_units };
            self.folding = true;
            self.maybe_start_fold();
        }
    }

    /// Writes waiting for space (the SLC cache full under fold-then-write, or no free
    /// superblock GC could make) start folding whatever the watermarks say.
    pub(super) fn maybe_fold_for_space(&mut self) {
        if self.writes_wait_for_space() && self.ftl.slc_valid_units() > 0 {
            if !self.folding {
                self.session_low_units = self.ftl.slc.fold_low_units;
            }
            self.folding = true;
            self.maybe_start_fold();
        }
    }

    /// True if the first waiting write could not be placed even with buffer room.
    fn writes_wait_for_space(&self) -> bool {
        self.buffer.front().is_some_and(|slot| {
            let s = &self.slots[slot as usize];
            !self.ftl.host_can_take(s.handle, s.units)
        })
    }

    /// Continues a folding session: the next fold job, or the end of the session (below
    /// the low watermark, unless writes still wait for space).
    pub(super) fn maybe_start_fold(&mut self) {
        if !self.folding || self.jobs_active[JobKind::Fold as usize] {
            return;
        }
        if self.ftl.slc_valid_units() <= self.session_low_units && !self.writes_wait_for_space() {
            self.folding = false;
            return;
        }
        if let Some(victim) = self.ftl.pick_fold_victim() {
            self.start_job(JobKind::Fold, victim);
        }
    }

    /// Erases the SLC superblocks whose data all went stale (overwritten or trimmed) once
    /// their programs are done, so they return to the cache.
    /// (And the superblocks of reset zones: erased as soon as their programs are done.)
    pub(super) fn reclaim_stale_slc(&mut self) {
        if !self.ftl.has_stale_slc() && !self.ftl.has_discarded() {
            return;
        }
        let mut stale = std::mem::take(&mut self.stale_scratch);
        self.ftl.take_stale_slc(&mut stale);
        self.ftl.take_discarded(&mut stale);
        for &sb in &stale {
            self.erase_victim(sb);
        }
        stale.clear();
        self.stale_scratch = stale;
    }

    /// Host-side triggers of folding, checked after host writes are placed.
    pub(super) fn after_host_writes(&mut self) {
        self.reclaim_stale_slc();
        self.maybe_start_gc();
        if self.ftl.slc_valid_units() >= self.ftl.slc.fold_high_units {
            self.start_fold_session(self.ftl.slc.fold_low_units);
        } else {
            self.maybe_start_fold();
        }
    }

    fn start_job(&mut self, kind: JobKind, victim: u32) {
        let k = kind as usize;
        let mut job = std::mem::take(&mut self.jobs[k]);
        let stream = match kind {
            JobKind::Gc => self.ftl.gc_stream(victim),
            JobKind::Fold => Stream::Fold,
        };
        self.job_streams[k] = stream;
        self.ftl.start_relocation(victim, stream, &mut job);
        if kind == JobKind::Gc {
            let valid: u64 = job.reads.iter().map(|r| u64::from(r.units)).sum();
            let capacity = self.config.geometry.sb_units_in(self.ftl.sbs.mode(victim));
            self.gc_pace.start(valid, u64::from(capacity));
        }
        self.jobs[k] = job;
        self.jobs_active[k] = true;
        self.issue_reloc_reads(kind);
        if self.jobs[k].reads_finished() {
            self.finish_job_reads(kind);
        }
    }

    fn issue_reloc_reads(&mut self, kind: JobKind) {
        let k = kind as usize;
        let window = 2 * self.config.geometry.dies();
        let tag = if kind == JobKind::Fold { FOLD_TOKEN } else { 0 };
        while self.jobs[k].outstanding < window
            && self.reloc_programs[k] < window
            && self.jobs[k].next_read < self.jobs[k].reads.len()
        {
            let index = self.jobs[k].next_read;
            let r = self.jobs[k].reads[index];
            self.jobs[k].next_read += 1;
            self.jobs[k].outstanding += 1;
            let op = DieOp::nominal(DieOpKind::RelocRead, r.mode, index as u32 | tag, r.units, self.now);
            self.submit_die_op(r.die, op);
        }
    }

    /// A relocation read finished: its data crosses the channel into controller memory, and
    /// destination program units it completes are queued.
    pub(super) fn reloc_read_done(&mut self, die: DieId, op: DieOp) {
        let kind = if op.token & FOLD_TOKEN != 0 { JobKind::Fold } else { JobKind::Gc };
        let k = kind as usize;
        let read = self.jobs[k].reads[(op.token & !FOLD_TOKEN) as usize];
        let in_memory = self.nand.transfer_out(die, self.now, op.units);
        let mut ready = std::mem::take(&mut self.ready_scratch);
        self.ftl.reloc_read_done(self.job_streams[k], &read, &mut ready);
        let victim = self.jobs[k].victim;
        for &pu in &ready {
            self.enqueue_relocation(kind, pu, Some(victim), in_memory);
        }
        ready.clear();
        self.ready_scratch = ready;
        self.jobs[k].outstanding -= 1;
        self.issue_reloc_reads(kind);
        if self.jobs[k].reads_finished() {
            self.finish_job_reads(kind);
        }
    }

    /// Queues the program of destination unit `pu`, which holds data from `victim` (if the
    /// current job has any in it) and from finished jobs' victims held for it.
    fn enqueue_relocation(&mut self, kind: JobKind, pu: PuId, victim: Option<u32>, ready: crate::engine::SimTime) {
        let k = kind as usize;
        let token = self.enqueue_program_as(self.program_class(kind), pu, 0, Some(kind), ready);
        let list = &mut self.program_victims[token as usize];
        if self.held[k].0 == Some(pu) {
            self.held[k].0 = None;
            list.append(&mut self.held[k].1);
        }
        if let Some(v) = victim {
            list.push(v);
            self.victim_programs[v as usize] += 1;
        }
    }

    /// Every read of a job is done. If another job of its kind follows, it fills the last
    /// destination program unit, and the victim's erase waits for that unit too; otherwise
    /// the unit is closed with padding. A job on a handle's own GC stream (persistently
    /// isolated FDP) closes it at once: the next job may write another handle's stream.
    fn finish_job_reads(&mut self, kind: JobKind) {
        let k = kind as usize;
        let victim = self.jobs[k].victim;
        let stream = self.job_streams[k];
        self.jobs_active[k] = false;
        self.victim_reads_done[victim as usize] = true;
        if !self.jobs[k].reads.is_empty()
            && let Some(pu) = self.ftl.open_relocation_pu(stream)
        {
            // Jobs with less data than a program unit leave several victims waiting on one.
            let held = &mut self.held[k];
            debug_assert!(held.0.is_none_or(|p| p == pu), "a held unit is filled before the next one opens");
            held.0 = Some(pu);
            held.1.push(victim);
            self.victim_programs[victim as usize] += 1;
        }
        let shared = matches!(stream, Stream::Gc | Stream::Fold);
        if !shared {
            self.pad_relocation(kind, stream);
        }
        match kind {
            JobKind::Gc => self.maybe_start_gc(),
            JobKind::Fold => self.maybe_start_fold(),
        }
        if shared && !self.jobs_active[k] {
            self.pad_relocation(kind, stream);
        }
        self.release_victim_if_done(victim);
    }

    /// Closes the open destination program unit of a job's `stream` with padding and
    /// queues its program (with the victims held for it).
    fn pad_relocation(&mut self, kind: JobKind, stream: Stream) {
        let mut ready = std::mem::take(&mut self.ready_scratch);
        self.ftl.pad(stream, &mut ready);
        let now = self.now;
        for &pu in &ready {
            self.enqueue_relocation(kind, pu, None, now);
        }
        ready.clear();
        self.ready_scratch = ready;
    }

    /// One program holding `victim`'s data finished.
    pub(super) fn release_victim(&mut self, victim: u32) {
        self.victim_programs[victim as usize] -= 1;
        self.release_victim_if_done(victim);
    }

    /// Erases `victim` once its reads and every program of its data are done.
    fn release_victim_if_done(&mut self, victim: u32) {
        if self.victim_reads_done[victim as usize] && self.victim_programs[victim as usize] == 0 {
            self.erase_victim(victim);
        }
    }

    /// A relocation program finished: its memory is free for the next reads of its job.
    pub(super) fn reloc_program_done(&mut self, kind: JobKind) {
        self.reloc_programs[kind as usize] -= 1;
        if kind == JobKind::Gc {
            // Data written out of the victim earns waiting writes their credit.
            self.gc_pace.moved(u64::from(self.config.geometry.pu_units()));
            if self.buffer.waiting() > 0 {
                self.admit_waiting();
            }
        }
        if self.jobs_active[kind as usize] {
            self.issue_reloc_reads(kind);
            if self.jobs[kind as usize].reads_finished() {
                self.finish_job_reads(kind);
            }
        }
    }

    /// Queues the erase of `victim` on every die.
    pub(super) fn erase_victim(&mut self, victim: u32) {
        self.victim_reads_done[victim as usize] = false;
        let mode = self.ftl.sbs.mode(victim);
        let dies = self.ftl.begin_erase(victim);
        for die in 0..dies {
            self.submit_die_op(DieId(die), DieOp::nominal(DieOpKind::Erase, mode, victim, 0, self.now));
        }
    }

    /// `die`'s blocks of a victim are erased; once all dies are, the superblock is free (or
    /// retired) and waiting writes may proceed.
    pub(super) fn erase_done(&mut self, die: DieId, op: DieOp) {
        if self.ftl.erase_done(op.token, die) {
            if self.ftl.reserve_whole() {
                self.gc_pace.borrowing = false;
            }
            self.admit_waiting();
            self.maybe_start_gc();
            self.maybe_start_fold();
        }
    }

    /// The host just went idle: arm the idle-fold timer.
    pub(super) fn host_went_idle(&mut self) {
        if let Some(delay) = self.ftl.slc.fold_idle
            && self.ftl.slc_valid_units() > self.ftl.slc.fold_idle_low_units
        {
            self.queue.push(self.now + delay, Event::Idle { generation: self.idle_generation });
        }
    }

    /// The idle timer fired: fold if the host has stayed idle since it was armed.
    pub(super) fn idle_timer(&mut self, generation: u32) {
        if generation == self.idle_generation && self.in_flight == 0 {
            self.start_fold_session(self.ftl.slc.fold_idle_low_units);
        }
    }
}
