//! The read path: map lookup, die reads grouped by program unit, channel, ECC, link.

use super::{Slot, Ssd};
use crate::block::Opcode;
use crate::engine::{SimDuration, SimTime};
use crate::ftl::Location;
use crate::nand::{CellMode, DieId, DieOp, DieOpKind, PuId, UNIT_BYTES};

/// The most read-retry steps one read takes: past it firmware gives up on retries and
/// decodes softly (as long again, folded into the last step).
const MAX_RETRY_STEPS: u32 = 16;

/// Consecutive units of one command that live in the same program unit: one die read.
struct Group {
    pu: PuId,
    die: DieId,
    mode: CellMode,
    units: u32,
    /// Superblock the data is read from; `None` for data being relocated, whose source the
    /// map no longer names (its errors are not counted).
    sb: Option<u32>,
}

impl Ssd {
    /// Looks up every unit of a read whose firmware processing ends at `ready`, and issues
    /// one die read per program unit touched. Unmapped and buffered units go straight to
    /// the link.
    pub(super) fn start_read(&mut self, slot: u32, ready: SimTime) {
        let Slot { first_unit, units, command, ftl_slba, .. } = self.slots[slot as usize];
        let lba_bytes = self.config.namespace.lba_bytes();
        let (start_byte, end_byte) = (ftl_slba * lba_bytes, (ftl_slba + u64::from(command.blocks)) * lba_bytes);
        let mut group: Option<Group> = None;
        let mut memory_units = 0;
        let mut die_reads = 0;
        for lpn in first_unit..first_unit + u64::from(units) {
            if let Some(v) = self.verifier.as_mut() {
                let found = self.ftl.tag_of(lpn).expect("verify mode keeps tags");
                v.check(lpn, found);
            }
            match self.ftl.locate(lpn) {
                Location::Unmapped => {
                    self.counters.unmapped_units_read += 1;
                    // The command's bytes in the unit: a read smaller than a unit reads
                    // only part of it.
                    let unit_start = lpn * UNIT_BYTES;
                    self.counters.unmapped_bytes_read +=
                        end_byte.min(unit_start + UNIT_BYTES) - start_byte.max(unit_start);
                    memory_units += 1;
                }
                Location::Buffered => {
                    self.counters.buffered_units_read += 1;
                    memory_units += 1;
                }
                location @ (Location::Nand { .. } | Location::Moving { .. }) => {
                    self.counters.nand_units_read += 1;
                    let (pu, die, mode, sb) = match location {
                        Location::Nand { ppa, mode } => {
                            let g = &self.config.geometry;
                            let pu = g.pu_of(ppa);
                            (pu, g.die_of_pu(pu), mode, Some(g.sb_of_pu(pu).0))
                        }
                        Location::Moving { pu, die, mode } => (pu, die, mode, None),
                        _ => unreachable!("matched above"),
                    };
                    match group.as_mut() {
                        Some(g) if g.pu == pu => g.units += 1,
                        _ => {
                            if let Some(g) = group.take() {
                                self.issue_host_read(slot, &g, ready);
                                die_reads += 1;
                            }
                            group = Some(Group { pu, die, mode, units: 1, sb });
                        }
                    }
                }
            }
        }
        if let Some(g) = group.take() {
            self.issue_host_read(slot, &g, ready);
            die_reads += 1;
        }
        let s = &mut self.slots[slot as usize];
        s.pending = die_reads;
        s.ready = ready;
        if memory_units > 0 {
            let bytes = self.take_link_bytes(slot, memory_units);
            let (_, end) = self.link_up.book(ready, self.link_time(bytes));
            let s = &mut self.slots[slot as usize];
            s.data_end = s.data_end.max(end);
        }
        let s = &self.slots[slot as usize];
        if s.pending == 0 {
            let end = s.data_end.max(ready);
            self.finish_at(slot, end);
        }
    }

    #[inline]
    fn issue_host_read(&mut self, slot: u32, g: &Group, ready: SimTime) {
        if let Some(sb) = g.sb {
            self.media.read(g.units, self.ftl.wear.uber(sb, g.die));
        }
        let t_array = self.host_read_time(g.pu, g.die, g.mode, g.sb);
        let op = DieOp { kind: DieOpKind::HostRead, mode: g.mode, token: slot, units: g.units, ready, t_array };
        self.submit_die_op(g.die, op);
    }

    /// Array time of a host read of program unit `pu`: tR of its page type in the word
    /// line, plus one more sense per read-retry step the block's wear makes it need
    /// (`sb`: the superblock read, `None` for data being relocated, which is read clean).
    #[inline]
    fn host_read_time(&mut self, pu: PuId, die: DieId, mode: CellMode, sb: Option<u32>) -> SimDuration {
        let page_type = self.config.geometry.page_type_of_pu(pu, mode);
        let t_read = self.config.nand.cell[mode.index()].t_read_of(mode, page_type);
        let chance = sb.map_or(0.0, |sb| self.ftl.wear.retry_chance(sb, die));
        if chance == 0.0 || !self.retry_rng.chance(chance) {
            return t_read;
        }
        let again = self.config.endurance.read_retry.again;
        let mut steps = 1;
        while steps < MAX_RETRY_STEPS && self.retry_rng.chance(again) {
            steps += 1;
        }
        self.counters.read_retries += u64::from(steps);
        t_read.times(u64::from(1 + steps))
    }

    /// Link bytes for `units` of a command (the command's bytes may be less than its units
    /// when LBAs are smaller than a map unit).
    #[inline]
    fn take_link_bytes(&mut self, slot: u32, units: u32) -> u64 {
        let s = &mut self.slots[slot as usize];
        let bytes = (u64::from(units) * UNIT_BYTES).min(s.bytes_left);
        s.bytes_left -= bytes;
        bytes
    }

    /// The map units a write covers only in part: its head and its tail unit (one unit if
    /// the write lies inside a single one).
    pub(super) fn partial_units(&self, slot: u32) -> [Option<u64>; 2] {
        let s = &self.slots[slot as usize];
        let lba = self.config.namespace.lba_bytes();
        let start = s.ftl_slba * lba;
        let end = start + u64::from(s.command.blocks) * lba;
        let head = (start % UNIT_BYTES != 0).then_some(s.first_unit);
        let tail =
            (end % UNIT_BYTES != 0 && !(s.units == 1 && head.is_some())).then(|| s.first_unit + u64::from(s.units) - 1);
        [head, tail]
    }

    /// A write covering only part of a map unit must merge with the unit's old data: unless
    /// the unit is unmapped (zeros) or still in the write buffer, read it from NAND first.
    /// Issues those reads (the head and tail unit of the command; their map segments are
    /// resident by now) and returns true if the write must wait for them.
    pub(super) fn start_rmw_reads(&mut self, slot: u32, ready: SimTime) -> bool {
        let mut unit_reads = 0;
        for lpn in self.partial_units(slot).into_iter().flatten() {
            self.counters.partial_units_written += 1;
            let (pu, die, mode, sb) = match self.ftl.locate(lpn) {
                Location::Nand { ppa, mode } => {
                    let die = self.config.geometry.die_of(ppa);
                    let sb = self.config.geometry.sb_of(ppa);
                    self.media.read(1, self.ftl.wear.uber(sb, die));
                    (self.config.geometry.pu_of(ppa), die, mode, Some(sb))
                }
                Location::Moving { pu, die, mode } => (pu, die, mode, None),
                Location::Unmapped | Location::Buffered => continue,
            };
            self.counters.rmw_units_read += 1;
            let t_array = self.host_read_time(pu, die, mode, sb);
            let op = DieOp { kind: DieOpKind::HostRead, mode, token: slot, units: 1, ready, t_array };
            self.submit_die_op(die, op);
            unit_reads += 1;
        }
        self.slots[slot as usize].pending = unit_reads;
        unit_reads > 0
    }

    /// A host read's array phase ended: move the data over the channel, decode it and send
    /// it up the link (or, for a write's read-modify-write, into controller memory, after
    /// which the write proceeds).
    pub(super) fn host_read_done(&mut self, die: DieId, op: DieOp) {
        let slot = op.token;
        if self.slots[slot as usize].command.opcode == Opcode::Write {
            let merged = self.nand.transfer_out(die, self.now, op.units);
            let s = &mut self.slots[slot as usize];
            s.ready = s.ready.max(merged);
            s.pending -= 1;
            if s.pending == 0 {
                let ready = s.ready;
                self.try_admit(slot, ready);
            }
            return;
        }
        let decoded = self.nand.transfer_out(die, self.now, op.units);
        let bytes = self.take_link_bytes(slot, op.units);
        let (_, end) = self.link_up.book(decoded, self.link_time(bytes));
        let s = &mut self.slots[slot as usize];
        s.data_end = s.data_end.max(end);
        s.pending -= 1;
        if s.pending == 0 {
            let end = s.data_end;
            self.finish_at(slot, end);
        }
    }
}
