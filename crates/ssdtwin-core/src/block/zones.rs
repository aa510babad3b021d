//! Zoned block devices (the NVMe Zoned Namespace Command Set 1.1): the zones of a namespace, their
//! write pointers and states, and the open and active limits. Pure bookkeeping: the device
//! (`ssd/zones.rs`) asks it whether a command may run and what it changes, and does the
//! work.
//!
//! ```text
//!            write / append                 zone full
//!   Empty ───────────────▶ Implicitly ─────────────────────┐
//!     │ open                Opened ◀── write ── Closed      ▼
//!     ▼                       │ close ──────────▶  ▲      Full ── reset ──▶ Empty
//!   Explicitly Opened ────────┴── close ───────────┘       ▲
//!     every state but Empty and Full ── finish ────────────┘  (finish of Empty too)
//! ```
//!
//! A zone is **open** while implicitly or explicitly opened and **active** while open or
//! closed; at most `max_open` and `max_active` of each. A write or append to an empty or
//! closed zone opens it implicitly; with the open limit reached, the controller closes the
//! implicitly opened zone opened longest ago (never an explicitly opened one), as QEMU and
//! Linux's `null_blk` do. A write must start at the write pointer and end within the zone's
//! capacity. Each active zone holds one of `max_active` **slots**: the write frontier its
//! data goes to, kept until the zone is full and all its writes are placed, or reset.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use thiserror::Error;

/// A zone's state (the Zone State field, nvme-cli's names in [`ZoneState::name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ZoneState {
    /// ZSE: nothing written.
    Empty,
    /// ZSIO: opened by a write.
    ImplicitlyOpened,
    /// ZSEO: opened by Zone Open.
    ExplicitlyOpened,
    /// ZSC: closed with data, still active.
    Closed,
    /// ZSF: written to capacity or finished.
    Full,
}

impl ZoneState {
    /// The state's code (the high nibble of the Zone State byte).
    pub const fn code(self) -> u8 {
        match self {
            ZoneState::Empty => 0x1,
            ZoneState::ImplicitlyOpened => 0x2,
            ZoneState::ExplicitlyOpened => 0x3,
            ZoneState::Closed => 0x4,
            ZoneState::Full => 0xE,
        }
    }

    /// nvme-cli's name.
    pub const fn name(self) -> &'static str {
        match self {
            ZoneState::Empty => "EMPTY",
            ZoneState::ImplicitlyOpened => "IMP_OPENED",
            ZoneState::ExplicitlyOpened => "EXP_OPENED",
            ZoneState::Closed => "CLOSED",
            ZoneState::Full => "FULL",
        }
    }

    const fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened)
    }

    const fn is_active(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened | ZoneState::Closed)
    }
}

/// Zone Send actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ZoneAction {
    /// Close (01h).
    Close,
    /// Finish (02h).
    Finish,
    /// Open (03h).
    Open,
    /// Reset (04h).
    Reset,
}

impl ZoneAction {
    /// The action's code.
    pub const fn code(self) -> u8 {
        match self {
            ZoneAction::Close => 1,
            ZoneAction::Finish => 2,
            ZoneAction::Open => 3,
            ZoneAction::Reset => 4,
        }
    }
}

/// Why a zoned command is refused, with the status nvme-cli would print.
#[derive(Debug, Error, Clone, Copy, PartialEq, Eq)]
pub enum ZoneError {
    /// 0x1BC: the write does not start at the write pointer.
    #[error("Zone Invalid Write: the write to zone {zone} starts at LBA {slba}, not at its write pointer {wp}")]
    InvalidWrite {
        /// Zone.
        zone: u32,
        /// The write's first LBA.
        slba: u64,
        /// The write pointer.
        wp: u64,
    },
    /// 0x1B9: the zone is full.
    #[error("Zone Is Full: zone {zone} is in ZSF:Full state")]
    Full {
        /// Zone.
        zone: u32,
    },
    /// 0x1B8: the command crosses a zone's boundary or its capacity.
    #[error("Zoned Boundary Error: LBAs {slba}+{blocks} cross the end of zone {zone}'s writable capacity")]
    Boundary {
        /// Zone.
        zone: u32,
        /// First LBA.
        slba: u64,
        /// LBAs.
        blocks: u32,
    },
    /// 0x1BD: no more zones may be active.
    #[error("Too Many Active Zones: {limit} zones are active already")]
    TooManyActive {
        /// The limit.
        limit: u32,
    },
    /// 0x1BE: no more zones may be open, and none can be closed implicitly.
    #[error("Too Many Open Zones: {limit} zones are open already, none implicitly")]
    TooManyOpen {
        /// The limit.
        limit: u32,
    },
    /// 0x002 (Invalid Field in Command): a Zone Send without Select All names an LBA that
    /// does not start a zone.
    #[error("Invalid Field in Command: LBA {slba} does not start a zone")]
    NotZoneStart {
        /// The LBA.
        slba: u64,
    },
    /// 0x1BF: the action does not apply to the zone's state.
    #[error("Invalid Zone State Transition: {action:?} of zone {zone} in state {state}")]
    InvalidTransition {
        /// Zone.
        zone: u32,
        /// Action.
        action: ZoneAction,
        /// Its state.
        state: &'static str,
    },
}

impl ZoneError {
    /// The status (SCT 1h, its code) nvme-cli prints.
    pub const fn status(self) -> u16 {
        match self {
            ZoneError::Boundary { .. } => 0x1B8,
            ZoneError::Full { .. } => 0x1B9,
            ZoneError::InvalidWrite { .. } => 0x1BC,
            ZoneError::TooManyActive { .. } => 0x1BD,
            ZoneError::TooManyOpen { .. } => 0x1BE,
            ZoneError::InvalidTransition { .. } => 0x1BF,
            ZoneError::NotZoneStart { .. } => 0x002,
        }
    }
}

/// The zones' shape and limits (validated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneConfig {
    /// Zones in the namespace.
    pub zones: u32,
    /// LBAs from one zone's start to the next's (a power of two).
    pub size_lbas: u64,
    /// Writable LBAs of each zone.
    pub capacity_lbas: u64,
    /// Most open zones.
    pub max_open: u32,
    /// Most active zones (the slots).
    pub max_active: u32,
}

/// One zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    /// Its state.
    pub state: ZoneState,
    /// LBAs written (the write pointer less the zone's start).
    pub written: u64,
    /// Its slot while active (and while full with writes not yet placed).
    pub slot: Option<u16>,
    /// The superblock its data is in, once the device placed some (kept by the device).
    pub superblock: Option<u32>,
}

/// What a write did to the zones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// The zone written.
    pub zone: u32,
    /// Its slot (the frontier its data goes to).
    pub slot: u16,
    /// The LBA written first (an append's assigned LBA).
    pub slba: u64,
    /// A zone closed to make room for this one, if any.
    pub closed: Option<u32>,
}

/// The zones of a namespace. A saved state keeps all but the configuration, which the
/// profile gives.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Zones {
    #[serde(skip, default = "ZoneConfig::none")]
    config: ZoneConfig,
    list: Vec<Zone>,
    /// Implicitly opened zones, oldest first.
    implicit: VecDeque<u32>,
    free_slots: Vec<u16>,
    /// Per slot: LBAs accepted and not yet placed by the device.
    unplaced: Vec<u64>,
    /// Per slot: its zone was reset with writes not yet placed; free once they are.
    draining: Vec<bool>,
    /// Per slot: the zone holding it (derived from the zones; rebuilt on a restore).
    #[serde(skip)]
    owner: Vec<Option<u32>>,
}

impl ZoneConfig {
    fn none() -> Self {
        ZoneConfig { zones: 0, size_lbas: 1, capacity_lbas: 0, max_open: 0, max_active: 0 }
    }
}

impl Zones {
    /// Every zone empty.
    pub fn new(config: ZoneConfig) -> Self {
        let empty = Zone { state: ZoneState::Empty, written: 0, slot: None, superblock: None };
        Zones {
            list: vec![empty; config.zones as usize],
            implicit: VecDeque::new(),
            free_slots: (0..config.max_active as u16).rev().collect(),
            unplaced: vec![0; config.max_active as usize],
            draining: vec![false; config.max_active as usize],
            owner: vec![None; config.max_active as usize],
            config,
        }
    }

    /// A restored state under `config`, if it fits it.
    pub fn restored(mut self, config: ZoneConfig) -> Option<Self> {
        let slots = config.max_active as usize;
        let fits = self.list.len() == config.zones as usize
            && self.unplaced.len() >= slots
            && self.list.iter().all(|z| {
                z.written <= config.capacity_lbas && z.slot.is_none_or(|s| usize::from(s) < self.unplaced.len())
            });
        self.config = config;
        self.draining.resize(self.unplaced.len(), false);
        self.owner = vec![None; self.unplaced.len()];
        if fits {
            for (zone, z) in self.list.iter().enumerate() {
                if let Some(s) = z.slot {
                    self.owner[usize::from(s)] = Some(zone as u32);
                }
            }
        }
        fits.then_some(self)
    }

    /// Records the superblock `zone`'s data went to.
    pub fn set_superblock(&mut self, zone: u32, sb: u32) {
        self.list[zone as usize].superblock = Some(sb);
    }

    /// The zone whose slot is `slot`, if any.
    pub fn zone_of_slot(&self, slot: u16) -> Option<u32> {
        self.owner[usize::from(slot)]
    }

    /// The configuration.
    pub fn config(&self) -> ZoneConfig {
        self.config
    }

    /// Every zone, zone 0 first.
    pub fn zones(&self) -> &[Zone] {
        &self.list
    }

    /// The zone holding `lba`, and the LBA's offset in it.
    #[inline]
    pub fn zone_of(&self, lba: u64) -> (u32, u64) {
        ((lba / self.config.size_lbas) as u32, lba % self.config.size_lbas)
    }

    /// The zone's first LBA.
    pub fn start(&self, zone: u32) -> u64 {
        u64::from(zone) * self.config.size_lbas
    }

    /// Open zones now.
    pub fn open_count(&self) -> u32 {
        self.list.iter().filter(|z| z.state.is_open()).count() as u32
    }

    /// Active zones now.
    pub fn active_count(&self) -> u32 {
        self.list.iter().filter(|z| z.state.is_active()).count() as u32
    }

    /// Checks that a read of `blocks` at `slba` stays in one zone's size.
    pub fn check_read(&self, slba: u64, blocks: u32) -> Result<(), ZoneError> {
        let (zone, offset) = self.zone_of(slba);
        if offset + u64::from(blocks) > self.config.size_lbas {
            return Err(ZoneError::Boundary { zone, slba, blocks });
        }
        Ok(())
    }

    /// A write of `blocks` at `slba` (`append`: at the write pointer of the zone starting at
    /// `slba`): checks it, opens the zone if it must (closing another implicitly opened
    /// one if the open limit says), moves the write pointer. Nothing changes on an error.
    pub fn write(&mut self, slba: u64, blocks: u32, append: bool) -> Result<Placed, ZoneError> {
        let (zone, offset) = self.zone_of(slba);
        let z = self.list[zone as usize];
        if append && offset != 0 {
            return Err(ZoneError::InvalidWrite { zone, slba, wp: self.start(zone) + z.written });
        }
        if z.state == ZoneState::Full {
            return Err(ZoneError::Full { zone });
        }
        let at = if append { z.written } else { offset };
        if at != z.written {
            return Err(ZoneError::InvalidWrite { zone, slba, wp: self.start(zone) + z.written });
        }
        if at + u64::from(blocks) > self.config.capacity_lbas {
            return Err(ZoneError::Boundary { zone, slba, blocks });
        }
        let closed = match z.state {
            ZoneState::Empty | ZoneState::Closed => self.make_open(zone, ZoneState::ImplicitlyOpened)?,
            _ => None,
        };
        let z = &mut self.list[zone as usize];
        z.written += u64::from(blocks);
        let (slot, full) = (z.slot.expect("an open zone holds a slot"), z.written == self.config.capacity_lbas);
        self.unplaced[usize::from(slot)] += u64::from(blocks);
        if full {
            self.set_state(zone, ZoneState::Full);
        }
        Ok(Placed { zone, slot, slba: self.start(zone) + at, closed })
    }

    /// The device placed `blocks` LBAs of writes to `slot`; returns the slot if it is now
    /// free (its zone full, everything placed).
    pub fn placed(&mut self, slot: u16, blocks: u64) -> Option<u16> {
        let s = usize::from(slot);
        self.unplaced[s] -= blocks;
        if self.draining[s] && self.unplaced[s] == 0 {
            self.draining[s] = false;
            self.free_slots.push(slot);
            return Some(slot);
        }
        self.release_if_done(slot)
    }

    /// Slots in use or kept: the frontiers the device needs.
    pub fn slots(&self) -> usize {
        self.unplaced.len()
    }

    /// LBAs written to `slot` the device has not placed yet.
    pub fn slot_unplaced(&self, slot: u16) -> u64 {
        self.unplaced[usize::from(slot)]
    }

    /// Zone Send `action` on `zone`. Returns the slot the zone held, if the action ended
    /// its use (finish: to pad to the end; reset: to abandon), and the zone closed to open
    /// this one.
    pub fn send(&mut self, zone: u32, action: ZoneAction) -> Result<(Option<u16>, Option<u32>), ZoneError> {
        let state = self.list[zone as usize].state;
        let invalid = || ZoneError::InvalidTransition { zone, action, state: state.name() };
        match (action, state) {
            (ZoneAction::Open, ZoneState::Empty | ZoneState::Closed) => {
                let closed = self.make_open(zone, ZoneState::ExplicitlyOpened)?;
                Ok((None, closed))
            }
            (ZoneAction::Open, ZoneState::ImplicitlyOpened) => {
                self.set_state(zone, ZoneState::ExplicitlyOpened);
                Ok((None, None))
            }
            (ZoneAction::Open, ZoneState::ExplicitlyOpened)
            | (ZoneAction::Close, ZoneState::Closed)
            | (ZoneAction::Finish, ZoneState::Full)
            | (ZoneAction::Reset, ZoneState::Empty) => Ok((None, None)),
            (ZoneAction::Close, ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened) => {
                self.set_state(zone, ZoneState::Closed);
                Ok((None, None))
            }
            (ZoneAction::Finish, _) => {
                let slot = self.list[zone as usize].slot;
                self.set_state(zone, ZoneState::Full);
                self.list[zone as usize].written = self.config.capacity_lbas;
                Ok((slot, None))
            }
            (ZoneAction::Reset, _) => {
                let slot = self.list[zone as usize].slot.take();
                if let Some(s) = slot {
                    self.owner[usize::from(s)] = None;
                }
                self.set_state(zone, ZoneState::Empty);
                let z = &mut self.list[zone as usize];
                z.written = 0;
                z.superblock = None;
                if let Some(s) = slot {
                    // Writes still to place keep the slot's frontier until they are.
                    if self.unplaced[usize::from(s)] == 0 {
                        self.free_slots.push(s);
                    } else {
                        self.draining[usize::from(s)] = true;
                    }
                }
                Ok((slot, None))
            }
            (ZoneAction::Close, ZoneState::Empty | ZoneState::Full) | (ZoneAction::Open, ZoneState::Full) => {
                Err(invalid())
            }
        }
    }

    /// Frees `slot` if its zone is full and everything written to it is placed.
    pub fn release_if_done(&mut self, slot: u16) -> Option<u16> {
        let zone = self.owner[usize::from(slot)]?;
        let z = &mut self.list[zone as usize];
        if z.state != ZoneState::Full || self.unplaced[usize::from(slot)] != 0 {
            return None;
        }
        z.slot = None;
        self.owner[usize::from(slot)] = None;
        self.free_slots.push(slot);
        Some(slot)
    }

    /// Opens `zone` (empty or closed) in `to`, taking a slot for an empty one; may close the
    /// oldest implicitly opened zone to stay within the open limit.
    fn make_open(&mut self, zone: u32, to: ZoneState) -> Result<Option<u32>, ZoneError> {
        let c = self.config;
        let from = self.list[zone as usize].state;
        if from == ZoneState::Empty && self.active_count() >= c.max_active {
            return Err(ZoneError::TooManyActive { limit: c.max_active });
        }
        let mut closed = None;
        if self.open_count() >= c.max_open {
            let victim = self.implicit.front().copied().ok_or(ZoneError::TooManyOpen { limit: c.max_open })?;
            self.set_state(victim, ZoneState::Closed);
            closed = Some(victim);
        }
        if from == ZoneState::Empty {
            // Slots beyond the active limit: a full zone keeps its slot until all its writes
            // are placed, and a reset one until its earlier writes are; the next zone must
            // not wait for either, so the device opens another frontier (the caller gives
            // the FTL one, `slots`).
            let slot = self.free_slots.pop().unwrap_or_else(|| {
                self.unplaced.push(0);
                self.draining.push(false);
                self.owner.push(None);
                (self.unplaced.len() - 1) as u16
            });
            self.list[zone as usize].slot = Some(slot);
            self.owner[usize::from(slot)] = Some(zone);
        }
        self.set_state(zone, to);
        Ok(closed)
    }

    fn set_state(&mut self, zone: u32, to: ZoneState) {
        if self.list[zone as usize].state == ZoneState::ImplicitlyOpened {
            self.implicit.retain(|&z| z != zone);
        }
        if to == ZoneState::ImplicitlyOpened {
            self.implicit.push_back(zone);
        }
        self.list[zone as usize].state = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones(max_open: u32, max_active: u32) -> Zones {
        Zones::new(ZoneConfig { zones: 8, size_lbas: 1024, capacity_lbas: 1000, max_open, max_active })
    }

    #[test]
    fn writes_go_at_the_write_pointer_and_fill_a_zone() {
        let mut z = zones(4, 4);
        assert!(matches!(z.write(8, 8, false), Err(ZoneError::InvalidWrite { zone: 0, wp: 0, .. })));
        let p = z.write(0, 8, false).unwrap();
        assert_eq!((p.zone, p.slba, z.zones()[0].state), (0, 0, ZoneState::ImplicitlyOpened));
        assert!(matches!(z.write(0, 8, false), Err(ZoneError::InvalidWrite { wp: 8, .. })));
        assert!(matches!(z.write(8, 993, false), Err(ZoneError::Boundary { .. })), "past the capacity");
        let p = z.write(1024, 8, true).unwrap();
        assert_eq!(p.slba, 1024, "an append lands at the write pointer");
        assert_eq!(z.write(1024, 4, true).unwrap().slba, 1032);
        z.write(8, 992, false).unwrap();
        assert_eq!(z.zones()[0].state, ZoneState::Full);
        assert!(matches!(z.write(1000, 1, false), Err(ZoneError::Full { zone: 0 })));
        assert_eq!(z.placed(p.slot, 12), None, "zone 1 is not full");
        assert_eq!(z.release_if_done(0), None, "zone 0's writes are not placed yet");
        assert_eq!(z.placed(0, 1000), Some(0), "full and placed: the slot is free");
    }

    #[test]
    fn the_open_limit_closes_the_oldest_implicitly_opened_zone_never_an_explicit_one() {
        let mut z = zones(2, 4);
        z.send(0, ZoneAction::Open).unwrap();
        z.write(1024, 1, false).unwrap();
        let p = z.write(2048, 1, false).unwrap();
        assert_eq!(p.closed, Some(1), "zone 1 was opened by a write");
        assert_eq!(z.zones()[1].state, ZoneState::Closed);
        assert_eq!(z.zones()[0].state, ZoneState::ExplicitlyOpened);
        assert_eq!(z.send(3, ZoneAction::Open).unwrap(), (None, Some(2)), "zone 2 closed for it");
        // Both open zones are explicit now: a closed zone cannot be opened, and an empty one
        // finds every active resource taken first.
        assert!(matches!(z.send(1, ZoneAction::Open), Err(ZoneError::TooManyOpen { limit: 2 })));
        assert!(matches!(z.write(4096, 1, false), Err(ZoneError::TooManyActive { limit: 4 })));
        assert_eq!((z.open_count(), z.active_count()), (2, 4));
    }

    #[test]
    fn finish_and_reset_follow_the_state_machine() {
        let mut z = zones(4, 4);
        assert!(matches!(z.send(0, ZoneAction::Close), Err(ZoneError::InvalidTransition { .. })));
        z.write(0, 10, false).unwrap();
        let (slot, _) = z.send(0, ZoneAction::Finish).unwrap();
        assert_eq!((slot, z.zones()[0].state, z.zones()[0].written), (Some(0), ZoneState::Full, 1000));
        assert!(matches!(z.send(0, ZoneAction::Close), Err(ZoneError::InvalidTransition { .. })));
        let (slot, _) = z.send(0, ZoneAction::Reset).unwrap();
        assert_eq!((slot, z.zones()[0].state, z.zones()[0].written), (Some(0), ZoneState::Empty, 0));
        assert_eq!(z.active_count(), 0);
        assert_eq!(z.send(0, ZoneAction::Reset).unwrap(), (None, None), "resetting an empty zone is no-op");
    }
}
