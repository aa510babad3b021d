//! The write path: buffer admission with back-pressure, DMA, placement, programs; TRIM and
//! flush.

use super::background::JobKind;
use super::{ProgramRec, Slot, Ssd};
use crate::engine::{SimDuration, SimTime};
use crate::ftl::HandleId;
use crate::nand::{DieOp, DieOpKind, PuId};

impl Ssd {
    /// A write's firmware work and map lookups are done: read the old data of its partial
    /// units if it must, else ask for buffer room.
    pub(super) fn continue_write(&mut self, slot: u32, ready: SimTime) {
        if !self.start_rmw_reads(slot, ready) {
            self.try_admit(slot, ready);
        }
    }

    /// Admits a write whose firmware processing (and read-modify-write reads) end at
    /// `ready`, or queues it until there is buffer space and the FTL can place it: room
    /// beyond GC's reserve of free superblocks, or, under fold-then-write, room in the SLC
    /// cache. A write that waits starts GC or folding if that is what it waits for.
    pub(super) fn try_admit(&mut self, slot: u32, ready: SimTime) {
        let Slot { units, handle, .. } = self.slots[slot as usize];
        if self.waits_for_reset(slot) {
            // Its zone's reset has work to do first; it comes back when that is done.
            self.zone_waiters.push(slot);
            return;
        }
        if let Some(paced) = self.buffer.has_room(units).then(|| self.host_placement(handle, units)).flatten() {
            self.admit(slot, ready, paced);
        } else {
            self.counters.write_stalls += 1;
            self.buffer.wait(slot);
            // A write that waits for a stale SLC superblock's erase makes sure it is under way.
            self.reclaim_stale_slc();
            self.maybe_start_gc();
            self.maybe_fold_for_space();
            self.keep_buffer_draining(ready);
        }
    }

    /// Whether `units` host units may be placed now, and if so whether on GC's credit
    /// (`Some(true)`, see `gc_pace`): the host frontier has room for them beyond GC's
    /// reserve, or a GC job has earned them and the reserve can lend them; and no stale SLC
    /// superblock is about to give the cache space back (see
    /// [`Ftl::host_waits_for_slc_erase`](crate::ftl::Ftl::host_waits_for_slc_erase)).
    /// Folding for space is started only by the first condition (`writes_wait_for_space`).
    fn host_placement(&self, handle: Option<HandleId>, units: u32) -> Option<bool> {
        if self.ftl.host_waits_for_slc_erase() {
            return None;
        }
        if !self.gc_pace.borrowing && self.ftl.host_can_take(handle, units) {
            return Some(false);
        }
        let earned = self.jobs_active[JobKind::Gc as usize] && self.gc_pace.available() >= u64::from(units);
        (earned && self.ftl.host_can_borrow(handle, units)).then_some(true)
    }

    /// Space only comes back when programs finish. If writes are waiting and no host
    /// program is in flight, the buffered data sits in a partly filled program unit that no
    /// further write can complete: program it now with padding, as firmware must.
    fn keep_buffer_draining(&mut self, ready: SimTime) {
        if self.buffer.waiting() == 0 || self.host_programs_in_flight > 0 {
            return;
        }
        self.pad_host_streams(ready);
    }

    /// Pads the open program unit of each host stream and queues its program.
    fn pad_host_streams(&mut self, ready: SimTime) {
        let pu_units = self.config.geometry.pu_units();
        for stream in self.ftl.streams().filter(|s| s.is_host()) {
            let mut filled = std::mem::take(&mut self.ready_scratch);
            let pad = self.ftl.pad(stream, &mut filled);
            for &pu in &filled {
                self.enqueue_program(pu, pu_units - pad, ready);
            }
            filled.clear();
            self.ready_scratch = filled;
        }
    }

    /// Admits waiting writes, in order, while they fit; then makes sure the buffer keeps
    /// draining for those still waiting.
    pub(super) fn admit_waiting(&mut self) {
        loop {
            let slots = &self.slots;
            let Some(slot) = self.buffer.next_admissible(|s| slots[s as usize].units) else {
                break;
            };
            let Slot { units, handle, .. } = self.slots[slot as usize];
            let Some(paced) = self.host_placement(handle, units) else {
                self.maybe_fold_for_space();
                break;
            };
            self.buffer.pop_waiting();
            let ready = self.slots[slot as usize].ready.max(self.now);
            self.admit(slot, ready, paced);
        }
        self.keep_buffer_draining(self.now);
    }

    /// Takes buffer space, moves the data in over the link, places every unit, queues the
    /// program units this filled, and acknowledges; `paced` writes spend GC's credit.
    fn admit(&mut self, slot: u32, ready: SimTime, paced: bool) {
        let s = self.slots[slot as usize];
        if paced {
            self.gc_pace.spend(u64::from(s.units));
        }
        self.buffer.take(s.units);
        self.host_units_admitted += u64::from(s.units);
        let (_, data_in) = self.link_down.book(ready, self.link_time(s.bytes));
        let mut filled = std::mem::take(&mut self.ready_scratch);
        for lpn in s.first_unit..s.first_unit + u64::from(s.units) {
            let version = self.verifier.as_mut().map_or(0, |v| v.on_write(lpn));
            self.ftl.write(s.handle, lpn, version, &mut filled);
        }
        let pu_units = self.config.geometry.pu_units();
        for &pu in &filled {
            self.enqueue_program(pu, pu_units, data_in);
        }
        filled.clear();
        self.ready_scratch = filled;
        if self.zones.is_some() {
            self.zone_units_placed(&s);
        }
        self.map_updates(s.first_unit, s.units, true, data_in);
        self.finish_at(slot, data_in);
        self.after_host_writes();
    }

    /// Queues the program of `pu` on its die, ready once its data is in controller memory.
    pub(super) fn enqueue_program(&mut self, pu: PuId, buffer_units: u32, ready: SimTime) {
        self.enqueue_program_as(DieOpKind::Program, pu, buffer_units, None, ready);
    }

    /// Queues a program of class `kind` (foreground or background) holding host data or
    /// data relocated by a `job`; returns its token.
    pub(super) fn enqueue_program_as(
        &mut self,
        kind: DieOpKind,
        pu: PuId,
        buffer_units: u32,
        job: Option<JobKind>,
        ready: SimTime,
    ) -> u32 {
        let rec = ProgramRec { pu, buffer_units, job };
        if let Some(job) = job {
            self.reloc_programs[job as usize] += 1;
        }
        if buffer_units > 0 {
            self.host_programs_in_flight += 1;
        }
        let token = if let Some(i) = self.free_programs.pop() {
            self.programs[i as usize] = rec;
            i
        } else {
            self.programs.push(rec);
            self.program_victims.push(Vec::new());
            self.programs.len() as u32 - 1
        };
        let (die, mode) = self.ftl.pu_target(pu);
        let units = self.config.geometry.pu_units();
        let mut op = DieOp::nominal(kind, mode, token, units, ready);
        let timing = &self.config.nand.cell[mode.index()];
        if timing.t_prog_spread > SimDuration::ZERO {
            op.t_array = timing.t_prog_of(mode, self.config.geometry.page_type_of_pu(pu, mode));
        }
        if buffer_units == 0 {
            self.submit_die_op(die, op);
        } else if let Some(op) = self.staging.offer(die, op) {
            self.submit_die_op(die, op);
        }
        token
    }

    /// A program finished: its buffer space is free, and waiting writes and flushes may go.
    pub(super) fn program_done(&mut self, op: DieOp) {
        let rec = self.programs[op.token as usize];
        self.free_programs.push(op.token);
        self.ftl.program_done(rec.pu);
        // A stale SLC superblock, or a reset zone's, may have been waiting for this program
        // before its erase; a zone's finish for its padding.
        self.reclaim_stale_slc();
        if !self.zone_sends.is_empty() {
            self.run_zone_sends();
        }
        if let Some(job) = rec.job {
            let victims = std::mem::take(&mut self.program_victims[op.token as usize]);
            for &victim in &victims {
                self.release_victim(victim);
            }
            // Keep the allocation for the token's next program.
            self.program_victims[op.token as usize] = victims;
            self.program_victims[op.token as usize].clear();
            self.reloc_program_done(job);
        }
        if rec.buffer_units > 0 {
            let die = self.ftl.pu_target(rec.pu).0;
            if let Some(next) = self.staging.finished(die) {
                self.submit_die_op(die, next);
            }
            self.host_programs_in_flight -= 1;
            self.buffer.release(rec.buffer_units);
            self.counters.units_programmed += u64::from(rec.buffer_units);
            self.admit_waiting();
            self.finish_flushes();
        }
    }

    /// Unmaps every unit a TRIM covers entirely; partial units keep their data, as the
    /// deallocate attribute is advisory.
    pub(super) fn trim(&mut self, slot: u32) {
        let s = self.slots[slot as usize];
        let lba_bytes = self.config.namespace.lba_bytes();
        let start = s.ftl_slba * lba_bytes;
        let end = start + u64::from(s.command.blocks) * lba_bytes;
        let unit = crate::nand::UNIT_BYTES;
        let (first, last) = (start.div_ceil(unit), end / unit);
        for lpn in first..last {
            self.ftl.trim(lpn);
            if let Some(v) = self.verifier.as_mut() {
                v.on_trim(lpn);
            }
        }
        let ready = self.slots[slot as usize].ready;
        self.map_updates(first, last.saturating_sub(first) as u32, false, ready);
        self.reclaim_stale_slc();
    }

    /// A flush completes at once if the buffer is power-protected or empty; otherwise the
    /// open program unit is padded and the flush waits until everything admitted before it
    /// is programmed.
    pub(super) fn start_flush(&mut self, slot: u32, ready: SimTime) {
        let target = self.host_units_admitted;
        if self.config.controller.power_protected || self.counters.units_programmed >= target {
            self.finish_at(slot, ready);
            return;
        }
        self.pad_host_streams(ready);
        self.flush_waiters.push((slot, target));
    }

    fn finish_flushes(&mut self) {
        let programmed = self.counters.units_programmed;
        let mut i = 0;
        while i < self.flush_waiters.len() {
            let (slot, target) = self.flush_waiters[i];
            if programmed >= target {
                self.flush_waiters.swap_remove(i);
                let now = self.now;
                self.finish_at(slot, now);
            } else {
                i += 1;
            }
        }
    }
}
