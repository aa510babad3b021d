//! The map cache at work: lookups for reads, translation-page loads through the dies, and
//! map updates written to flash (journal pages or evicted segments).
//!
//! A read whose segment misses waits for the load, as does a write that must merge a
//! partial map unit (it needs the unit's old location); at most `max_map_loads` loads are in
//! flight and the rest queue in order, so a controller that serialises loads (one at a
//! time) is limited to one miss per load time. A load is a die read of the translation
//! page in the map blocks' cell mode, a channel transfer of one map unit, ECC, then
//! `map_load_fw` of firmware on a core; two reads missing the same segment share one load.

use super::Ssd;
use crate::block::Opcode;
use crate::controller::map_cache::{Lookup, MapLocation};
use crate::engine::{SimDuration, SimTime};
use crate::nand::{DieId, DieOp, DieOpKind};

impl Ssd {
    /// Looks up every segment a read of `units` from `first_unit` touches; returns the core
    /// time the lookups cost and pushes missed segments to `misses`.
    pub(super) fn map_lookups(
        &mut self,
        first_unit: u64,
        units: u32,
        at: SimTime,
        misses: &mut Vec<u32>,
    ) -> SimDuration {
        if self.map_cache.config().location == MapLocation::Dram || units == 0 {
            return SimDuration::ZERO;
        }
        let first = self.map_cache.segment_of(first_unit);
        let last = self.map_cache.segment_of(first_unit + u64::from(units) - 1);
        let mut cost = self.map_cache.read_overhead();
        for s in first..=last {
            match self.map_cache.lookup(s) {
                Lookup::Free => {}
                Lookup::Hmb(core) => {
                    cost += core;
                    let bytes = u64::from(self.map_cache.config().hmb_access_bytes);
                    let t = self.link_time(bytes);
                    self.link_down.book(at, t);
                }
                Lookup::Miss => misses.push(s),
            }
        }
        cost + self.pay_hmb_fills(at)
    }

    /// Books the segments the map cache copied down into the HMB since it was last asked:
    /// their bytes on the upstream link (device writes into host memory) from `at`; returns
    /// the core time they cost.
    fn pay_hmb_fills(&mut self, at: SimTime) -> SimDuration {
        let fills = self.map_cache.take_fills();
        if fills == 0 {
            return SimDuration::ZERO;
        }
        let bytes = u64::from(fills) * u64::from(self.map_cache.config().segment_entries) * 4;
        let t = self.link_time(bytes);
        self.link_up.book(at, t);
        SimDuration(self.map_cache.config().hmb_fill.as_ns() * u64::from(fills))
    }

    /// Asks for segment `s` to be loaded, for `slot` (a read waiting on it) or for nobody (a
    /// dirty-in-hmb update), no earlier than `ready`.
    pub(super) fn request_map(&mut self, s: u32, slot: Option<u32>, ready: SimTime) {
        if let Some(slot) = slot {
            self.slots[slot as usize].pending_maps += 1;
            self.map_waiters.push((s, slot));
        }
        if self.map_cache.is_loading(s) {
            return;
        }
        self.map_cache.start_load(s);
        if self.map_loads_in_flight < self.map_cache.config().max_map_loads {
            self.issue_map_read(s, ready);
        } else {
            self.map_queue.push_back((s, ready));
        }
    }

    fn issue_map_read(&mut self, s: u32, ready: SimTime) {
        self.map_loads_in_flight += 1;
        let die = self.map_page_die(s);
        let mode = self.map_cache.config().map_mode;
        self.submit_die_op(die, DieOp::nominal(DieOpKind::MapRead, mode, s, 1, ready));
    }

    /// A translation page was read: transfer, decode, firmware insert; then the next queued
    /// load may start and the reads waiting on it proceed.
    pub(super) fn map_read_done(&mut self, die: DieId, op: DieOp) {
        let s = op.token;
        let decoded = self.nand.transfer_out(die, self.now, 1);
        let (_, inserted) = self.cores.book(decoded, self.map_cache.config().map_load_fw);
        let writeback = self.map_cache.loaded(s);
        // The firmware copies SRAM's victim down into the HMB before it takes the next load.
        let fill = self.pay_hmb_fills(inserted);
        let inserted = if fill > SimDuration::ZERO { self.cores.book(inserted, fill).1 } else { inserted };
        if let Some((victim, updates)) = writeback {
            let die = self.map_page_die(victim);
            self.write_map_page(die, updates, inserted);
        }
        self.map_loads_in_flight -= 1;
        if let Some((next, ready)) = self.map_queue.pop_front() {
            self.issue_map_read(next, ready.max(inserted));
        }
        let mut woken = std::mem::take(&mut self.woken_scratch);
        self.map_waiters.retain(|&(seg, slot)| {
            if seg == s {
                woken.push(slot);
                false
            } else {
                true
            }
        });
        for &slot in &woken {
            let sl = &mut self.slots[slot as usize];
            sl.pending_maps -= 1;
            if sl.pending_maps == 0 {
                let ready = sl.ready.max(inserted);
                match sl.command.opcode {
                    Opcode::Write => self.continue_write(slot, ready),
                    _ => self.start_read(slot, ready),
                }
            }
        }
        woken.clear();
        self.woken_scratch = woken;
    }

    /// Records map updates for `units` units from `first_unit` (written if `mapping`, else
    /// trimmed), writing full journal pages and loading segments as the policy requires.
    pub(super) fn map_updates(&mut self, first_unit: u64, units: u32, mapping: bool, ready: SimTime) {
        if self.map_cache.config().location == MapLocation::Dram || units == 0 {
            return;
        }
        let entries = self.map_cache.config().segment_entries;
        let mut lpn = first_unit;
        let end = first_unit + u64::from(units);
        while lpn < end {
            let s = self.map_cache.segment_of(lpn);
            let seg_end = ((u64::from(s) + 1) * u64::from(entries)).min(end);
            // A trim is one range record per segment; a write one entry per unit.
            let n = if mapping { (seg_end - lpn) as u32 } else { 1 };
            let update = self.map_cache.update(s, n, mapping);
            let segment_start = u64::from(s) * u64::from(entries);
            let whole_segment = lpn == segment_start
                && (seg_end == segment_start + u64::from(entries) || seg_end == self.config.logical_units);
            if !mapping && whole_segment {
                self.map_cache.unmap_segment(s);
            }
            if update.hmb_write {
                // The changed entries go up the link into the cached copy in host memory.
                let t = self.link_time(u64::from(self.map_cache.config().hmb_access_bytes));
                self.link_up.book(ready, t);
            }
            for _ in 0..update.journal_pages {
                let die = self.next_journal_die();
                let per_page = self.map_cache.journal_entries();
                self.write_map_page(die, per_page, ready);
            }
            if update.load {
                self.request_map(s, None, ready);
            }
            if let Some((victim, updates)) = update.writeback {
                let die = self.map_page_die(victim);
                self.write_map_page(die, updates, ready);
            }
            lpn = seg_end;
        }
    }

    /// The die that holds segment `s`'s translation page.
    fn map_page_die(&self, s: u32) -> DieId {
        DieId(s % self.config.geometry.dies())
    }

    fn next_journal_die(&mut self) -> DieId {
        let die = self.journal_die;
        self.journal_die = DieId((die.get() + 1) % self.config.geometry.dies());
        die
    }

    /// Programs one map page carrying `updates` updates on `die`.
    pub(super) fn write_map_page(&mut self, die: DieId, updates: u32, ready: SimTime) {
        let mode = self.map_cache.config().map_mode;
        let units = self.config.geometry.units_per_page();
        self.submit_die_op(die, DieOp::nominal(DieOpKind::MapWrite, mode, updates, units, ready));
    }

    /// Writes out a partly filled journal page; true if one was queued. Only
    /// [`Ssd::quiesce`] calls it: a Flush command does not write the journal.
    pub(super) fn flush_journal(&mut self) -> bool {
        let updates = self.map_cache.take_journal();
        if updates == 0 {
            return false;
        }
        let die = self.next_journal_die();
        let now = self.now;
        self.write_map_page(die, updates, now);
        true
    }
}
