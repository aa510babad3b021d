//! A zoned namespace on the device: each zone's writable capacity is one superblock, filled
//! in order by the write frontier of the zone's slot (the FTL's placement streams, one per
//! active zone), so a zone's data never shares a superblock and the drive never needs GC.
//!
//! Commands meet the zones (`block::zones`) at submission, in order: a write or append that
//! the zone's state, write pointer or limits refuse is refused there, and one that passes
//! moves the write pointer at once. The LBAs of zone `z`, offset `o`, are the FTL's
//! `z × capacity + o` (the gap between a zone's capacity and its size maps to nothing).
//!
//! Zone Management Send acts on the zones' states at submission too, and does its work once
//! every write to the zone is placed: **reset** closes the zone's frontier if it is still
//! open (its open program unit padded), unmaps the zone and hands its superblock over to be
//! erased when its programs are done (the erase runs in the background, as a free pool's
//! would; the command completes after its map updates); **finish** pads the zone's
//! superblock to its end and completes when those programs are done (the cost `ConfZNS++`
//! measures on real ZNS drives); **open** and **close** change states only.

use super::{Slot, Ssd};
use crate::block::{Command, Opcode, SubmitError};
use crate::block::{ZoneAction, ZoneConfig, ZoneError, Zones};
use crate::engine::SimTime;
use crate::ftl::{HandleId, Stream};
use crate::nand::{PuId, UNIT_BYTES};

/// Where a zoned command goes, worked out at submission.
#[derive(Clone, Debug, Default)]
pub(super) struct ZoneRoute {
    /// The command's first LBA in the FTL's space.
    pub ftl_slba: u64,
    /// The slot (frontier) a write's data goes to.
    pub handle: Option<HandleId>,
    /// A write's first LBA (an append's assigned LBA).
    pub assigned_lba: u64,
    /// A Zone Send's work, per zone: (zone, action, its slot, its superblock).
    pub work: Vec<ZoneWork>,
}

/// The work a Zone Send leaves for one zone.
#[derive(Clone, Copy, Debug)]
pub(super) struct ZoneWork {
    zone: u32,
    action: ZoneAction,
    slot: Option<u16>,
    superblock: Option<u32>,
    /// The slot whose writes, accepted before the command, must be placed first.
    wait: Option<u16>,
}

/// A Zone Send command waiting for its zones' writes to be placed, or for its programs.
#[derive(Clone, Debug)]
pub(super) struct PendingSend {
    command_slot: u32,
    work: Vec<ZoneWork>,
    /// Superblocks padded by a finish, whose programs the command waits for.
    padded: Vec<u32>,
}

impl Ssd {
    /// The zones' shape for the current LBA format (`None` on a conventional namespace).
    pub(super) fn zone_config(&self) -> Option<ZoneConfig> {
        let zns = self.config.zns?;
        let lbas_per_unit = UNIT_BYTES / self.config.namespace.lba_bytes();
        let capacity_lbas = u64::from(self.config.geometry.sb_units()) * lbas_per_unit;
        Some(ZoneConfig {
            zones: (self.config.logical_units / u64::from(self.config.geometry.sb_units())) as u32,
            size_lbas: capacity_lbas.next_power_of_two(),
            capacity_lbas,
            max_open: zns.max_open,
            max_active: zns.max_active,
        })
    }

    /// The zones (`None` on a conventional namespace).
    pub fn zones(&self) -> Option<&Zones> {
        self.zones.as_ref()
    }

    /// Checks a command against the zones and applies it to their states; says where it
    /// goes. A conventional namespace refuses zoned commands.
    /// (Boxed: a conventional drive's commands carry `None` at the size of a pointer.)
    pub(super) fn route(&mut self, c: &Command) -> Result<Option<Box<ZoneRoute>>, SubmitError> {
        let Some(zones) = self.zones.as_mut() else {
            return if c.opcode.is_zoned() { Err(SubmitError::NotZoned { opcode: c.opcode }) } else { Ok(None) };
        };
        let config = zones.config();
        let to_ftl = |lba: u64| {
            let (zone, offset) = (lba / config.size_lbas, lba % config.size_lbas);
            zone * config.capacity_lbas + offset
        };
        let route = match c.opcode {
            Opcode::Read => {
                let (zone, offset) = zones.zone_of(c.slba);
                if offset + u64::from(c.blocks) > config.capacity_lbas {
                    return Err(ZoneError::Boundary { zone, slba: c.slba, blocks: c.blocks }.into());
                }
                ZoneRoute { ftl_slba: to_ftl(c.slba), ..ZoneRoute::default() }
            }
            Opcode::Write | Opcode::ZoneAppend => {
                let placed = zones.write(c.slba, c.blocks, c.opcode == Opcode::ZoneAppend)?;
                let slots = zones.slots();
                self.ftl.ensure_handles(slots as u16);
                ZoneRoute {
                    ftl_slba: to_ftl(placed.slba),
                    handle: Some(HandleId(placed.slot)),
                    assigned_lba: placed.slba,
                    work: Vec::new(),
                }
            }
            Opcode::Trim => return Err(SubmitError::TrimOnZoned),
            Opcode::Flush => ZoneRoute::default(),
            Opcode::ZoneSend { action, all } => {
                let targets: Vec<u32> = if all {
                    (0..config.zones).filter(|&z| all_applies(action, zones.zones()[z as usize].state)).collect()
                } else {
                    let (zone, offset) = zones.zone_of(c.slba);
                    if offset != 0 {
                        return Err(ZoneError::NotZoneStart { slba: c.slba }.into());
                    }
                    vec![zone]
                };
                let mut work = Vec::with_capacity(targets.len());
                for zone in targets {
                    let z = zones.zones()[zone as usize];
                    let wait = z.slot.filter(|&s| zones.slot_unplaced(s) > 0);
                    zones.send(zone, action)?;
                    if action == ZoneAction::Reset && z.superblock.is_some() {
                        // Writes to the zone after the reset are placed after its work.
                        self.resetting.push(zone);
                    }
                    work.push(ZoneWork { zone, action, slot: z.slot, superblock: z.superblock, wait });
                }
                ZoneRoute { work, ..ZoneRoute::default() }
            }
        };
        Ok(Some(Box::new(route)))
    }

    /// A Zone Send's firmware work is done at `ready`: its zones' work runs once their writes
    /// are placed.
    pub(super) fn start_zone_send(&mut self, command_slot: u32, work: Vec<ZoneWork>, ready: SimTime) {
        self.slots[command_slot as usize].ready = ready;
        self.zone_sends.push(PendingSend { command_slot, work, padded: Vec::new() });
        self.run_zone_sends();
    }

    /// True if the write of `slot` goes to a zone whose reset has work still to do (the
    /// write waits: its data must land after the reset unmaps the zone).
    pub(super) fn waits_for_reset(&self, slot: u32) -> bool {
        let (Some(zones), Some(HandleId(zs))) = (self.zones.as_ref(), self.slots[slot as usize].handle) else {
            return false;
        };
        zones.zone_of_slot(zs).is_some_and(|z| self.resetting.contains(&z))
    }

    /// Runs the work of every waiting Zone Send whose zones' writes are all placed, and
    /// completes those whose programs are done.
    pub(super) fn run_zone_sends(&mut self) {
        let mut k = 0;
        while k < self.zone_sends.len() {
            if self.zone_sends[k].work.is_empty() {
                let done = {
                    let p = &self.zone_sends[k];
                    !p.padded.iter().any(|&sb| self.ftl.programs_pending(sb))
                };
                if done {
                    let p = self.zone_sends.swap_remove(k);
                    let ready = self.slots[p.command_slot as usize].ready.max(self.now);
                    self.finish_at(p.command_slot, ready);
                } else {
                    k += 1;
                }
                continue;
            }
            let zones = self.zones.as_ref().expect("Zone Sends only go to a zoned namespace");
            let blocked = self.zone_sends[k].work.iter().any(|w| w.wait.is_some_and(|s| zones.slot_unplaced(s) > 0));
            if blocked {
                k += 1;
                continue;
            }
            let work = std::mem::take(&mut self.zone_sends[k].work);
            let ready = self.slots[self.zone_sends[k].command_slot as usize].ready.max(self.now);
            for w in work {
                if let Some(sb) = self.zone_work(w, ready) {
                    self.zone_sends[k].padded.push(sb);
                }
            }
        }
        self.retry_zone_waiters();
    }

    /// Writes that waited for a reset whose work is now done go on.
    fn retry_zone_waiters(&mut self) {
        if self.zone_waiters.is_empty() {
            return;
        }
        let waiters = std::mem::take(&mut self.zone_waiters);
        for slot in waiters {
            let ready = self.slots[slot as usize].ready.max(self.now);
            // Those still waiting put themselves back.
            self.try_admit(slot, ready);
        }
    }

    /// One zone's share of a Zone Send; returns the superblock a finish padded.
    fn zone_work(&mut self, w: ZoneWork, ready: SimTime) -> Option<u32> {
        if w.action == ZoneAction::Reset {
            self.resetting.retain(|&z| z != w.zone);
        }
        // A zone with no data placed has nothing on NAND to pad or erase.
        let sb = w.superblock?;
        // Its frontier, if the zone still fills its superblock (a full zone's slot is free).
        let stream = w.slot.map(|s| Stream::Placed(HandleId(s)));
        let open_here = stream.is_some_and(|s| self.ftl.frontier(s).superblock() == Some(sb));
        let pu_units = self.config.geometry.pu_units();
        let buffered = stream.map_or(0, |s| self.ftl.frontier(s).placed() % pu_units);
        let mut ready_pus: Vec<PuId> = Vec::new();
        match w.action {
            ZoneAction::Reset => {
                if let Some(stream) = stream.filter(|_| open_here) {
                    self.ftl.close_frontier(stream, &mut ready_pus);
                }
                self.enqueue_padded(&ready_pus, buffered, ready);
                let zone_units = u64::from(self.config.geometry.sb_units());
                let first = u64::from(w.zone) * zone_units;
                for lpn in first..first + zone_units {
                    self.ftl.trim(lpn);
                }
                self.map_updates(first, zone_units as u32, false, ready);
                self.ftl.discard(sb);
                self.reclaim_stale_slc();
                None
            }
            ZoneAction::Finish if open_here => {
                let (stream, slot) = (stream.expect("open here"), w.slot.expect("open here"));
                self.ftl.pad_to_end(stream, &mut ready_pus);
                self.enqueue_padded(&ready_pus, buffered, ready);
                if let Some(freed) = self.zones.as_mut().and_then(|z| z.release_if_done(slot)) {
                    self.close_slot(freed);
                }
                Some(sb)
            }
            ZoneAction::Finish | ZoneAction::Open | ZoneAction::Close => None,
        }
    }

    /// A slot's zone is done with it: its frontier's superblock is full (the zone's whole
    /// capacity), so it is closed now, as full, for a reset to erase, and the slot's next
    /// zone opens another.
    fn close_slot(&mut self, slot: u16) {
        let mut pus = Vec::new();
        self.ftl.close_frontier(Stream::Placed(HandleId(slot)), &mut pus);
        debug_assert!(pus.is_empty(), "a full zone's superblock has nothing left to pad");
    }

    /// Queues the programs of padded program units: the first holds the `buffered` host
    /// units that were waiting in it (and frees their buffer space), the rest padding only.
    fn enqueue_padded(&mut self, pus: &[PuId], buffered: u32, ready: SimTime) {
        for (i, &pu) in pus.iter().enumerate() {
            let host_units = if i == 0 { buffered } else { 0 };
            if host_units > 0 {
                self.enqueue_program(pu, host_units, ready);
            } else {
                self.enqueue_program_as(crate::nand::DieOpKind::Program, pu, 0, None, ready);
            }
        }
    }

    /// A write to a zone's slot placed `units` units: record the zone's superblock, free the
    /// slot if its zone is done, and run Zone Sends that waited for it.
    pub(super) fn zone_units_placed(&mut self, s: &Slot) {
        let (Some(zones), Some(HandleId(slot))) = (self.zones.as_mut(), s.handle) else { return };
        if let Some(zone) = zones.zone_of_slot(slot)
            && zones.zones()[zone as usize].superblock.is_none()
            && let Some(sb) = self.ftl.frontier(Stream::Placed(HandleId(slot))).superblock()
        {
            zones.set_superblock(zone, sb);
        }
        let lbas = u64::from(s.units) * (UNIT_BYTES / self.config.namespace.lba_bytes());
        if let Some(freed) = zones.placed(slot, lbas) {
            self.close_slot(freed);
        }
        if !self.zone_sends.is_empty() {
            self.run_zone_sends();
        }
    }
}

/// Whether Select All applies `action` to a zone in `state` (the zones the specification
/// lists for each action).
fn all_applies(action: ZoneAction, state: crate::block::ZoneState) -> bool {
    use crate::block::ZoneState::{Closed, Empty, ExplicitlyOpened, ImplicitlyOpened};
    match action {
        ZoneAction::Close => matches!(state, ImplicitlyOpened | ExplicitlyOpened),
        ZoneAction::Finish => matches!(state, ImplicitlyOpened | ExplicitlyOpened | Closed),
        ZoneAction::Open => state == Closed,
        ZoneAction::Reset => state != Empty,
    }
}
