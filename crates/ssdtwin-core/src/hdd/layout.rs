//! Where a logical block lies on the platters: zones, cylinders, heads and the angle of each
//! sector.
//!
//! Modern disks record at a near-constant linear density, so a track holds more sectors the
//! farther it lies from the spindle: the surface is cut into *zones* of equal cylinder count,
//! the outermost holding the most per track (Ruemmler & Wilkes 1994; DiskSim's `g1`
//! layout). Logical blocks run from the outer edge inwards, track by track: every head of a
//! cylinder, then the next cylinder. Each track starts `skew` later in angle than the one
//! before, so a transfer that runs onto the next track finds its first sector under the head
//! just as the head (or cylinder) switch ends.
//!
//! Left out: serpentine band layouts, spare sectors and defect slipping (they shift blocks
//! by a few tracks, which no figure here resolves).
//!
//! The table holds one entry per zone (tens), so a lookup is a binary search.

use crate::engine::SimDuration;

/// What a layout is made from (checked by the profile).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LayoutSpec {
    pub capacity_bytes: u64,
    pub lba_bytes: u64,
    pub physical_sector_bytes: u64,
    pub heads: u32,
    pub zones: u32,
    /// Sustained rates at the outer and inner edge, track switches included.
    pub outer_bytes_per_sec: f64,
    pub inner_bytes_per_sec: f64,
    pub revolution: SimDuration,
    /// Head or cylinder switch: the angle each track starts after the previous one.
    pub skew: SimDuration,
}

/// One recording zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Zone {
    first_lba: u64,
    end_lba: u64,
    first_cylinder: u32,
    /// Global index of the zone's first track.
    first_track: u64,
    lbas_per_track: u32,
}

/// A block's place on the platters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    /// Cylinder (0 at the outer edge).
    pub cylinder: u32,
    /// Head (surface).
    pub head: u32,
    /// Global index of the track (cylinder × heads + head).
    pub track: u64,
    /// Block index within the track.
    pub sector: u32,
    /// Blocks on this track.
    pub lbas_per_track: u32,
}

/// The zoned layout of one disk.
#[derive(Clone, Debug)]
pub struct Layout {
    zones: Vec<Zone>,
    heads: u32,
    cylinders: u32,
    revolution_ns: u64,
    skew_ns: u64,
}

impl Layout {
    /// Lays `spec.capacity_bytes` out over equal-cylinder zones whose track sizes fall
    /// linearly from the outer to the inner rate. `Err` says what cannot be laid out.
    pub(crate) fn new(spec: LayoutSpec) -> Result<Self, String> {
        let zones = spec.zones as usize;
        let rev = spec.revolution.as_ns();
        let skew = spec.skew.as_ns();
        if skew >= rev {
            return Err("the head switch must be shorter than one revolution".into());
        }
        // Bytes a track holds so that one track per (revolution + switch) gives the rate.
        let track_bytes = |z: usize| {
            let f = if zones == 1 { 0.0 } else { z as f64 / (zones - 1) as f64 };
            let rate = spec.outer_bytes_per_sec + (spec.inner_bytes_per_sec - spec.outer_bytes_per_sec) * f;
            let bytes = (rate * (rev + skew) as f64 * 1e-9) as u64;
            bytes / spec.physical_sector_bytes * spec.physical_sector_bytes
        };
        let per_cylinder: Vec<u64> = (0..zones).map(|z| track_bytes(z) * u64::from(spec.heads)).collect();
        if per_cylinder.contains(&0) {
            return Err("a track would hold less than one physical sector: raise the rates or the rpm".into());
        }
        let mean = per_cylinder.iter().sum::<u64>() / zones as u64;
        let cylinders_total = spec.capacity_bytes.div_ceil(mean);
        let per_zone = cylinders_total.div_ceil(zones as u64).max(1);
        if cylinders_total > u64::from(u32::MAX) {
            return Err("more than 2^32 cylinders".into());
        }
        let lbas = spec.capacity_bytes / spec.lba_bytes;
        let mut out = Vec::with_capacity(zones);
        let (mut lba, mut cylinder, mut track) = (0u64, 0u32, 0u64);
        for (z, &cylinder_bytes) in per_cylinder.iter().enumerate() {
            if lba >= lbas {
                break;
            }
            let lbas_per_track = (cylinder_bytes / u64::from(spec.heads) / spec.lba_bytes) as u32;
            // The last zone takes whatever is left, however many cylinders that needs.
            let span = if z + 1 == zones {
                lbas - lba
            } else {
                (per_zone * u64::from(spec.heads) * u64::from(lbas_per_track)).min(lbas - lba)
            };
            out.push(Zone {
                first_lba: lba,
                end_lba: lba + span,
                first_cylinder: cylinder,
                first_track: track,
                lbas_per_track,
            });
            let tracks = span.div_ceil(u64::from(lbas_per_track));
            track += tracks;
            cylinder += tracks.div_ceil(u64::from(spec.heads)) as u32;
            lba += span;
        }
        Ok(Layout { zones: out, heads: spec.heads, cylinders: cylinder, revolution_ns: rev, skew_ns: skew })
    }

    /// Cylinders in use.
    pub fn cylinders(&self) -> u32 {
        self.cylinders
    }

    /// Heads.
    pub fn heads(&self) -> u32 {
        self.heads
    }

    fn zone_of(&self, lba: u64) -> &Zone {
        let i = self.zones.partition_point(|z| z.end_lba <= lba).min(self.zones.len() - 1);
        &self.zones[i]
    }

    /// Where `lba` lies. `lba` must be on the disk (the caller checks commands).
    pub fn locate(&self, lba: u64) -> Position {
        let z = self.zone_of(lba);
        let in_zone = lba - z.first_lba;
        let lpt = u64::from(z.lbas_per_track);
        let track_in_zone = in_zone / lpt;
        let track = z.first_track + track_in_zone;
        Position {
            cylinder: z.first_cylinder + (track_in_zone / u64::from(self.heads)) as u32,
            head: (track % u64::from(self.heads)) as u32,
            track,
            sector: (in_zone % lpt) as u32,
            lbas_per_track: z.lbas_per_track,
        }
    }

    /// The spindle phase (ns into a revolution, from phase 0 at time 0) at which the start of
    /// block `sector` of `track` passes under the head.
    pub fn phase_ns(&self, track: u64, sector: u32, lbas_per_track: u32) -> u64 {
        let start = (u128::from(track) * u128::from(self.skew_ns) % u128::from(self.revolution_ns)) as u64;
        let into = u64::from(sector) * self.revolution_ns / u64::from(lbas_per_track);
        (start + into) % self.revolution_ns
    }

    /// Time to read or write `blocks` blocks from `lba` once the head is on its first one:
    /// the rotation under each track's part, plus a switch for every track boundary crossed.
    pub fn transfer(&self, lba: u64, blocks: u64) -> SimDuration {
        let (mut at, end, mut ns) = (lba, lba + blocks, 0u64);
        while at < end {
            let z = self.zone_of(at);
            let lpt = u64::from(z.lbas_per_track);
            let into = (at - z.first_lba) % lpt;
            let run = (lpt - into).min(end - at);
            ns += run * self.revolution_ns / lpt;
            at += run;
            if at < end {
                ns += self.skew_ns;
            }
        }
        SimDuration(ns)
    }

    /// The first block of `head`'s track on `cylinder`, if the disk has that track.
    pub fn lba_at(&self, cylinder: u32, head: u32) -> Option<u64> {
        if head >= self.heads {
            return None;
        }
        let track = u64::from(cylinder) * u64::from(self.heads) + u64::from(head);
        let z = self.zones.iter().rev().find(|z| z.first_track <= track)?;
        let lba = z.first_lba + (track - z.first_track) * u64::from(z.lbas_per_track);
        (lba < z.end_lba).then_some(lba)
    }

    /// Blocks per track at the outer and inner edge.
    pub fn lbas_per_track_range(&self) -> (u32, u32) {
        (self.zones[0].lbas_per_track, self.zones[self.zones.len() - 1].lbas_per_track)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Layout {
        Layout::new(LayoutSpec {
            capacity_bytes: 1 << 30,
            lba_bytes: 512,
            physical_sector_bytes: 4096,
            heads: 2,
            zones: 4,
            outer_bytes_per_sec: 100e6,
            inner_bytes_per_sec: 50e6,
            revolution: SimDuration::from_us(8333),
            skew: SimDuration::from_us(1000),
        })
        .unwrap()
    }

    #[test]
    fn blocks_run_outside_in_track_by_track() {
        let l = small();
        let (outer, inner) = l.lbas_per_track_range();
        assert!(outer > inner, "outer tracks hold more");
        let p = l.locate(0);
        assert_eq!((p.cylinder, p.head, p.track, p.sector), (0, 0, 0, 0));
        let next = l.locate(u64::from(outer));
        assert_eq!((next.cylinder, next.head, next.track), (0, 1, 1), "the next track is the other head");
        let next = l.locate(2 * u64::from(outer));
        assert_eq!((next.cylinder, next.head), (1, 0));
        let last = l.locate((1 << 30) / 512 - 1);
        assert_eq!(last.cylinder + 1, l.cylinders());
        for (c, h) in [(0, 1), (7, 0), (l.cylinders() - 1, 0)] {
            let p = l.locate(l.lba_at(c, h).unwrap());
            assert_eq!((p.cylinder, p.head, p.sector), (c, h, 0));
        }
        assert_eq!(l.lba_at(l.cylinders(), 0), None);
    }

    #[test]
    fn a_sequential_run_costs_rotation_plus_one_switch_per_track() {
        let l = small();
        let (outer, _) = l.lbas_per_track_range();
        let t = l.transfer(0, 2 * u64::from(outer));
        assert_eq!(t.as_ns(), 2 * 8_333_000 + 1_000_000);
        // The next track starts one skew later, so the run continues without a lost turn.
        assert_eq!(l.phase_ns(1, 0, outer), 1_000_000);
    }

    #[test]
    fn the_outer_edge_sustains_its_rate() {
        let l = small();
        let (outer, _) = l.lbas_per_track_range();
        let bytes = u64::from(outer) * 512;
        let rate = bytes as f64 / ((8_333_000 + 1_000_000) as f64 * 1e-9);
        assert!((rate / 100e6 - 1.0).abs() < 0.01, "{rate}");
    }
}
