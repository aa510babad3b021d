//! Flexible Data Placement at the command level: the handle a write's placement directive
//! names, the events the controller logs, and what the host reads back — the FDP log pages
//! (configurations, reclaim unit handle usage, statistics, events) and the reclaim unit
//! handle status of I/O Management Receive. The FTL keeps the handles' frontiers and who
//! owns each reclaim unit (`ftl::placement`).
//!
//! With one reclaim group, a placement identifier is the placement handle, and handle `h`
//! is reclaim unit handle `h`. A write without a directive goes on handle 0 (the controller
//! chooses it). A write naming an identifier beyond the configuration still completes, on
//! handle 0, and the controller logs an Invalid Placement Identifier event, as the
//! specification has it.

use super::Ssd;
use crate::block::PlacementId;
use crate::engine::SimTime;
use crate::ftl::{FdpConfig, HandleId, Stream};
use crate::nand::UNIT_BYTES;
use std::collections::VecDeque;

/// FDP events the controller keeps, newest last; older ones are dropped.
pub const MAX_FDP_EVENTS: usize = 64;

/// What an FDP event reports (the Event Type of the FDP Events log page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FdpEventKind {
    /// A write named a placement identifier the configuration does not have (type 03h).
    InvalidPlacementId,
}

impl FdpEventKind {
    /// The Event Type code.
    pub const fn code(self) -> u8 {
        match self {
            FdpEventKind::InvalidPlacementId => 0x03,
        }
    }

    /// nvme-cli's name of the event type.
    pub const fn name(self) -> &'static str {
        match self {
            FdpEventKind::InvalidPlacementId => "Invalid Placement Identifier",
        }
    }
}

/// One FDP event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FdpEvent {
    /// What happened.
    pub kind: FdpEventKind,
    /// When (the drive's clock).
    pub at: SimTime,
    /// The placement identifier the command named.
    pub placement: PlacementId,
}

/// How a reclaim unit handle has been used (the RUH Usage log page's attributes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HandleUse {
    /// No write has gone on it.
    #[default]
    Unused,
    /// A write named it.
    HostSpecified,
    /// The controller put writes on it that named no identifier.
    ControllerSpecified,
}

impl HandleUse {
    /// The attribute's code.
    pub const fn code(self) -> u8 {
        match self {
            HandleUse::Unused => 0,
            HandleUse::HostSpecified => 1,
            HandleUse::ControllerSpecified => 2,
        }
    }
}

/// The FDP Statistics log page, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FdpStats {
    /// Host Bytes with Metadata Written.
    pub host_bytes_written: u64,
    /// Media Bytes with Metadata Written: host data, GC's moves and padding, counted as they
    /// are placed (a program still running has written them as far as the host can tell).
    pub media_bytes_written: u64,
    /// Media Bytes Erased.
    pub media_bytes_erased: u64,
}

/// One reclaim unit handle's status (I/O Management Receive, Reclaim Unit Handle Status).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandleStatus {
    /// The placement identifier that names it.
    pub placement: PlacementId,
    /// The handle.
    pub handle: HandleId,
    /// Logical blocks that can be written before the reclaim unit it references is full.
    pub available_lbas: u64,
}

/// The controller's FDP log: events and each handle's use.
#[derive(Clone, Debug, Default)]
pub(super) struct FdpLog {
    events: VecDeque<FdpEvent>,
    usage: Vec<HandleUse>,
}

impl Ssd {
    /// The handle a write goes on (module doc); logs an event for an identifier the
    /// configuration does not have.
    pub(super) fn placement_handle(&mut self, placement: Option<PlacementId>, at: SimTime) -> HandleId {
        let handles = self.config.fdp.map_or(0, |f| f.handles);
        let log = &mut self.fdp_log;
        log.usage.resize(usize::from(handles), HandleUse::Unused);
        match placement {
            Some(pid) if pid.0 < handles => {
                log.usage[usize::from(pid.0)] = HandleUse::HostSpecified;
                HandleId(pid.0)
            }
            Some(pid) => {
                if log.events.len() == MAX_FDP_EVENTS {
                    log.events.pop_front();
                }
                log.events.push_back(FdpEvent { kind: FdpEventKind::InvalidPlacementId, at, placement: pid });
                HandleId(0)
            }
            None => {
                if log.usage[0] == HandleUse::Unused {
                    log.usage[0] = HandleUse::ControllerSpecified;
                }
                HandleId(0)
            }
        }
    }

    /// The FDP configuration, if the drive has Flexible Data Placement.
    pub fn fdp(&self) -> Option<FdpConfig> {
        self.config.fdp
    }

    /// The reclaim unit's nominal size, bytes: one superblock of the native mode.
    pub fn reclaim_unit_bytes(&self) -> u64 {
        u64::from(self.config.geometry.sb_units()) * UNIT_BYTES
    }

    /// FDP events, oldest first (empty on a drive without FDP).
    pub fn fdp_events(&self) -> impl Iterator<Item = &FdpEvent> {
        self.fdp_log.events.iter()
    }

    /// How each handle has been used, handle 0 first (empty on a drive without FDP). The
    /// log is not saved with a state; a handle a loaded drive's data was written on counts
    /// as host specified.
    pub fn handle_usage(&self) -> Vec<HandleUse> {
        let Some(placement) = self.ftl.placement() else { return Vec::new() };
        let mut usage = self.fdp_log.usage.clone();
        usage.resize(placement.handles().len(), HandleUse::Unused);
        for (u, h) in usage.iter_mut().zip(placement.handles()) {
            if *u == HandleUse::Unused && h.host_units > 0 {
                *u = HandleUse::HostSpecified;
            }
        }
        usage
    }

    /// The FDP Statistics log page (`None` on a drive without FDP).
    pub fn fdp_stats(&self) -> Option<FdpStats> {
        self.config.fdp?;
        let c = &self.ftl.counters;
        let format = self.config.namespace.format();
        let per_lba = u64::from(format.data_bytes) + u64::from(format.metadata_bytes);
        let host_lbas = self.counters.bytes_written / u64::from(format.data_bytes);
        Some(FdpStats {
            host_bytes_written: host_lbas * per_lba,
            media_bytes_written: (c.host_units_written + c.gc_units_moved + c.folded_units + c.padding_units)
                * UNIT_BYTES,
            media_bytes_erased: c.superblock_erases * self.reclaim_unit_bytes(),
        })
    }

    /// Each handle's status (empty on a drive without FDP).
    pub fn handle_status(&self) -> Vec<HandleStatus> {
        let Some(fdp) = self.config.fdp else { return Vec::new() };
        let lba_bytes = self.config.namespace.lba_bytes();
        (0..fdp.handles)
            .map(|h| {
                let frontier = self.ftl.frontier(Stream::Placed(HandleId(h)));
                let units = if frontier.superblock().is_some() {
                    u64::from(frontier.room())
                } else {
                    u64::from(self.config.geometry.sb_units())
                };
                HandleStatus {
                    placement: PlacementId(h),
                    handle: HandleId(h),
                    available_lbas: units * UNIT_BYTES / lba_bytes,
                }
            })
            .collect()
    }
}
