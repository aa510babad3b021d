//! fio's `zonemode=zbd` (its `zbd.c`, as of 3.33 to 3.42): writes are moved to the write
//! pointer of a zone, a full zone is reset before it is written again, reads stay below the
//! write pointer, a trim resets its zone.
//!
//! fio tracks each zone's write pointer itself, advanced when a write is queued; every job
//! on the drive shares one set of **write target** zones of at most `max_open_zones` (the
//! drive's open limit unless given). A write whose zone is not a target joins the set if
//! there is room (and the job is under `job_max_open_zones`), else goes to a target chosen
//! "quasi-randomly" from its offset (`(offset - start) × targets / range`). A zone leaves
//! the set when it is full. With `zone_reset_threshold` and `zone_reset_frequency`, once the
//! data in the job's zones reaches the threshold share of its `io_size`, one write in every
//! `1 / frequency` resets its zone first. Each reset is counted (the job's `zone resets`).
//!
//! The twin issues a reset as a Zone Management Send before the write that needed it, on
//! the same I/O (its latency counts the reset's); fio makes it a blocking ioctl before it
//! issues the write.

use crate::block::{ZoneConfig, ZoneState};
use crate::workload::{JobError, JobSpec, ZbdSpec};

/// fio's view of the drive's zones, shared by every job of the run.
#[derive(Debug)]
pub(super) struct Zbd {
    /// Zone size and capacity, bytes.
    size: u64,
    capacity: u64,
    /// Bytes written in each zone (the write pointer less the zone's start).
    written: Vec<u64>,
    /// The write targets.
    targets: Vec<u32>,
    /// `max_open_zones` in force.
    max_targets: u32,
}

/// One clone's zbd state.
#[derive(Clone, Debug)]
pub(super) struct ZbdJob {
    spec: ZbdSpec,
    /// The clone's region, bytes.
    start: u64,
    end: u64,
    /// The smallest block, bytes.
    min_bs: u64,
    /// Its targets now.
    targets: u32,
    /// Writes left before the next threshold reset (`1 / frequency`).
    countdown: u64,
    /// The threshold in bytes of zone data (`io_size × zone_reset_threshold`).
    threshold_bytes: Option<u64>,
    /// A sequential job (reads look for data in the next zones, not the nearest; writes go
    /// zone after zone).
    seq: bool,
    /// A sequential job's zone being written.
    cursor: Option<u32>,
    /// Resets it made.
    pub resets: u64,
}

/// What a zoned I/O becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ZbdIo {
    /// Where and how much.
    pub offset: u64,
    pub bytes: u64,
    /// Reset the zone at this offset first.
    pub reset_first: Option<u64>,
    /// No zone in the job's range has data to read: fio's end of file (the job ends after
    /// this I/O).
    pub eof: bool,
}

impl Zbd {
    /// fio's set-up against the drive's zones (`zones`: each zone's state and LBAs
    /// written) for the jobs in `jobs`: the checks and messages of `zbd_setup_files` and
    /// `zbd_set_max_write_zones`.
    pub(super) fn new(
        config: ZoneConfig,
        lba_bytes: u64,
        zones: &[(ZoneState, u64)],
        jobs: &[&JobSpec],
    ) -> Result<Self, JobError> {
        let size = config.size_lbas * lba_bytes;
        let mut max_targets = config.max_open;
        for job in jobs {
            let spec = job.zbd.as_ref().expect("zbd jobs");
            let invalid = |problem: String| JobError::Invalid { job: job.name.clone(), problem };
            if let Some(z) = spec.zone_size.filter(|&z| z != size) {
                return Err(invalid(format!("job parameter zonesize {z} does not match disk zone size {size}")));
            }
            if spec.max_open_zones > config.max_open && !spec.ignore_zone_limits {
                return Err(invalid(format!(
                    "Specified --max_open_zones ({}) is larger than max ({})",
                    spec.max_open_zones, config.max_open
                )));
            }
            if spec.max_open_zones > config.max_active {
                return Err(invalid(format!(
                    "max_open_zones ({}) is above the drive's active zone limit ({}): its writes would fail \
                     (Exceeded max_active_zones limit)",
                    spec.max_open_zones, config.max_active
                )));
            }
            let capacity = config.capacity_lbas * lba_bytes;
            // (A trim's block is a whole zone: it resets it.)
            let data = [crate::workload::Direction::Read, crate::workload::Direction::Write];
            let used = data.into_iter().filter(|&d| job.rw.uses(d));
            if let Some(bs) = used.map(|d| job.bs[d.index()].max()).find(|&bs| bs > capacity) {
                return Err(invalid(format!("I/O buflen {bs} exceeds zone capacity {capacity}")));
            }
            if spec.max_open_zones > 0 {
                if max_targets != config.max_open && max_targets != spec.max_open_zones {
                    return Err(invalid("Different 'max_open_zones' values".into()));
                }
                max_targets = spec.max_open_zones;
            }
        }
        // Zones left active by earlier runs are targets from the start (the drive counts
        // them against its limits).
        let targets: Vec<u32> = zones
            .iter()
            .enumerate()
            .filter(|(_, (state, _))| {
                matches!(state, ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened | ZoneState::Closed)
            })
            .map(|(z, _)| z as u32)
            .collect();
        if targets.len() > max_targets as usize {
            let name = jobs.first().map_or(String::new(), |j| j.name.clone());
            return Err(JobError::Invalid {
                job: name,
                problem: format!(
                    "Number of open zones exceeds max_open_zones limit ({} zones active, limit {max_targets}): reset or finish them first",
                    targets.len()
                ),
            });
        }
        Ok(Zbd {
            size,
            capacity: config.capacity_lbas * lba_bytes,
            written: zones
                .iter()
                .map(
                    |&(state, w)| {
                        if state == ZoneState::Full { config.capacity_lbas * lba_bytes } else { w * lba_bytes }
                    },
                )
                .collect(),
            targets,
            max_targets,
        })
    }

    fn zone_of(&self, offset: u64) -> u32 {
        (offset / self.size) as u32
    }

    /// Data in the zones of `[start, end)`, bytes (fio's valid data bytes).
    fn data_in(&self, start: u64, end: u64) -> u64 {
        (self.zone_of(start)..=self.zone_of(end - 1)).map(|z| self.written[z as usize]).sum()
    }

    /// A write of `bytes` the job decided at `offset`.
    pub(super) fn write(&mut self, job: &mut ZbdJob, offset: u64, bytes: u64) -> ZbdIo {
        let mut zone = self.zone_of(offset);
        if job.seq {
            // A sequential job writes zone after zone at their write pointers, from the zone
            // of its first offset, wrapping to its range's first (where full zones are reset).
            let (first, last) = (self.zone_of(job.start), self.zone_of(job.end - 1));
            let at = *job.cursor.get_or_insert(zone);
            let full = self.capacity - self.written[at as usize] < job.min_bs;
            zone = if !full {
                at
            } else if at >= last {
                first
            } else {
                at + 1
            };
            job.cursor = Some(zone);
        }
        if !self.targets.contains(&zone) {
            let job_room = job.spec.job_max_open_zones == 0 || job.targets < job.spec.job_max_open_zones;
            if self.targets.len() < self.max_targets as usize && job_room {
                self.targets.push(zone);
                job.targets += 1;
            } else if let Some(z) = self.pick_target(job, offset) {
                zone = z;
            } else {
                self.targets.push(zone);
                job.targets += 1;
            }
        }
        let z = zone as usize;
        let mut reset_first = None;
        let full = self.capacity - self.written[z] < job.min_bs;
        // fio's zbd_dec_and_reset_write_cnt: every write counts down (reloading at 0); a
        // write that reaches 0 with the zones above the threshold resets its zone.
        job.countdown = job.countdown.saturating_sub(1);
        let counted_out = job.countdown == 0;
        if counted_out {
            job.countdown = job.reload();
        }
        let due = counted_out && job.threshold_bytes.is_some_and(|t| self.data_in(job.start, job.end) >= t);
        if full || (due && self.written[z] > 0) {
            reset_first = Some(u64::from(zone) * self.size);
            self.written[z] = 0;
            job.resets += 1;
        }
        let len = (bytes.min(self.capacity - self.written[z]) / job.min_bs * job.min_bs).max(job.min_bs);
        let at = u64::from(zone) * self.size + self.written[z];
        self.written[z] += len;
        if self.written[z] >= self.capacity {
            self.targets.retain(|&t| t != zone);
            job.targets = job.targets.saturating_sub(1);
        }
        ZbdIo { offset: at, bytes: len, reset_first, eof: false }
    }

    /// A target in the job's range, chosen from `offset` as fio does.
    fn pick_target(&self, job: &ZbdJob, offset: u64) -> Option<u32> {
        let n = self.targets.len() as u64;
        if n == 0 {
            return None;
        }
        let span = (job.end - job.start).max(1);
        let first = ((offset - job.start) * n / span) as usize;
        let (lo, hi) = (self.zone_of(job.start), self.zone_of(job.end - 1));
        (0..n as usize).map(|k| self.targets[(first + k) % n as usize]).find(|&z| (lo..=hi).contains(&z))
    }

    /// A read of `bytes` the job decided at `offset`: kept below its zone's write pointer,
    /// or moved to a zone with data (the next for a sequential job, the nearest for a
    /// random one); with no data anywhere in its range, its zone's first block (fio would
    /// end the job).
    pub(super) fn read(&self, job: &ZbdJob, offset: u64, bytes: u64) -> ZbdIo {
        let zone = self.zone_of(offset);
        let limit = |z: u32| if job.spec.read_beyond_wp { self.capacity } else { self.written[z as usize] };
        let (lo, hi) = (self.zone_of(job.start), self.zone_of(job.end - 1));
        let has = |z: u32| limit(z) >= bytes;
        let chosen = if has(zone) {
            Some(zone)
        } else if job.seq {
            (zone + 1..=hi).chain(lo..zone).find(|&z| has(z))
        } else {
            (1..=hi - lo)
                .flat_map(|d| [zone.checked_sub(d), Some(zone + d)])
                .flatten()
                .find(|&z| (lo..=hi).contains(&z) && has(z))
        };
        let Some(z) = chosen else {
            return ZbdIo { offset: u64::from(zone) * self.size, bytes: job.min_bs, reset_first: None, eof: true };
        };
        let start = u64::from(z) * self.size;
        let within = if z == zone { offset - start } else { 0 };
        let room = limit(z) - bytes;
        let within = if within > room { within % (room + 1) / job.min_bs * job.min_bs } else { within };
        ZbdIo { offset: start + within, bytes, reset_first: None, eof: false }
    }

    /// A trim: fio resets its zone (its block size is the zone size).
    pub(super) fn trim(&mut self, job: &mut ZbdJob, offset: u64) -> ZbdIo {
        let zone = self.zone_of(offset);
        self.written[zone as usize] = 0;
        self.targets.retain(|&t| t != zone);
        job.resets += 1;
        ZbdIo { offset: u64::from(zone) * self.size, bytes: self.size, reset_first: None, eof: false }
    }
}

impl ZbdJob {
    /// The zbd state of a clone of `spec` over `[start, end)`.
    pub(super) fn new(spec: &JobSpec, start: u64, end: u64, io_size: u64) -> Self {
        let zbd = spec.zbd.clone().expect("a zbd job");
        let min_bs = (0..3).map(|d| spec.bs[d].min()).filter(|&b| b > 0).min().unwrap_or(4096);
        let threshold_bytes = zbd.reset_threshold.filter(|&t| t > 0.0).map(|t| (io_size as f64 * t) as u64);
        let seq = !spec.rw.is_random();
        let mut job = ZbdJob {
            spec: zbd,
            start,
            end,
            min_bs,
            targets: 0,
            countdown: 0,
            threshold_bytes,
            seq,
            cursor: None,
            resets: 0,
        };
        job.countdown = job.reload();
        job
    }

    fn reload(&self) -> u64 {
        match self.spec.reset_frequency {
            Some(f) if f > 0.0 => (1.0 / f).round() as u64,
            _ => u64::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{BlockSize, RwPattern};

    const CAP: u64 = 384 * 4096;
    const SIZE: u64 = 512 * 4096;

    fn config(max_open: u32) -> ZoneConfig {
        ZoneConfig { zones: 8, size_lbas: 512, capacity_lbas: 384, max_open, max_active: max_open }
    }

    fn job(zbd: ZbdSpec) -> JobSpec {
        let mut j = JobSpec::new("z");
        j.rw = RwPattern::RandWrite;
        j.bs = std::array::from_fn(|_| BlockSize::Fixed(65536));
        j.zbd = Some(zbd);
        j
    }

    fn spec() -> ZbdSpec {
        ZbdSpec::default()
    }

    #[test]
    fn writes_go_to_the_write_pointer_of_at_most_max_open_zones_and_full_zones_are_reset() {
        let j = job(ZbdSpec { max_open_zones: 2, ..spec() });
        let mut zbd = Zbd::new(config(4), 4096, &[(ZoneState::Empty, 0); 8], &[&j]).unwrap();
        let mut zj = ZbdJob::new(&j, 0, 8 * SIZE, 8 * SIZE);
        let a = zbd.write(&mut zj, 3 * SIZE + 12345, 65536);
        assert_eq!(
            a,
            ZbdIo { offset: 3 * SIZE, bytes: 65536, reset_first: None, eof: false },
            "moved to the write pointer"
        );
        zbd.write(&mut zj, 5 * SIZE, 65536);
        // A third zone finds the target set full: it goes to a target.
        let c = zbd.write(&mut zj, 7 * SIZE, 65536);
        assert!([3 * SIZE + 65536, 5 * SIZE + 65536].contains(&c.offset), "{c:?}");
        // Zone 3 filled to its capacity leaves the set, and is reset before it is written again.
        while zbd.written[3] < CAP {
            zbd.write(&mut zj, 3 * SIZE, 65536);
        }
        assert!(!zbd.targets.contains(&3));
        let again = zbd.write(&mut zj, 3 * SIZE, 65536);
        assert_eq!(again.reset_first, Some(3 * SIZE));
        assert_eq!((again.offset, zj.resets), (3 * SIZE, 1));
    }

    #[test]
    fn setup_refuses_what_fio_refuses() {
        let zones = [(ZoneState::Empty, 0); 8];
        let big = job(ZbdSpec { max_open_zones: 9, ..spec() });
        let e = Zbd::new(config(4), 4096, &zones, &[&big]).unwrap_err().to_string();
        assert!(e.contains("Specified --max_open_zones (9) is larger than max (4)"), "{e}");
        let sized = job(ZbdSpec { zone_size: Some(SIZE / 2), ..spec() });
        let e = Zbd::new(config(4), 4096, &zones, &[&sized]).unwrap_err().to_string();
        assert!(e.contains(&format!("does not match disk zone size {SIZE}")), "{e}");
        let ignoring = job(ZbdSpec { max_open_zones: 9, ignore_zone_limits: true, ..spec() });
        let e = Zbd::new(config(4), 4096, &zones, &[&ignoring]).unwrap_err().to_string();
        assert!(e.contains("above the drive's active zone limit (4)"), "{e}");
        let mut big_blocks = job(spec());
        big_blocks.bs = std::array::from_fn(|_| BlockSize::Fixed(2 * CAP));
        let e = Zbd::new(config(4), 4096, &zones, &[&big_blocks]).unwrap_err().to_string();
        assert!(e.contains("exceeds zone capacity"), "{e}");
        let mut busy = zones;
        for z in &mut busy[..5] {
            *z = (ZoneState::Closed, 8);
        }
        let e = Zbd::new(config(4), 4096, &busy, &[&job(spec())]).unwrap_err().to_string();
        assert!(e.contains("Number of open zones exceeds max_open_zones limit"), "{e}");
    }

    #[test]
    fn the_threshold_resets_one_write_in_frequency_once_the_zones_hold_enough() {
        let j = job(ZbdSpec { reset_threshold: Some(0.5), reset_frequency: Some(0.25), ..spec() });
        let mut zbd = Zbd::new(config(8), 4096, &[(ZoneState::Empty, 0); 8], &[&j]).unwrap();
        let mut zj = ZbdJob::new(&j, 0, 2 * SIZE, 2 * CAP);
        let mut resets = Vec::new();
        for k in 0..40 {
            let io = zbd.write(&mut zj, (k % 2) * SIZE, 65536);
            resets.push(io.reset_first.is_some());
        }
        // Every fourth write counts out; it resets its zone once the two zones hold half the
        // io_size (one zone's capacity), never before, and no other write does.
        let first = resets.iter().position(|&r| r).unwrap();
        assert!(first as u64 * 65536 >= CAP, "no reset before the zones hold half the io_size");
        assert!(first as u64 * 65536 < CAP + 4 * 65536, "the first count-out past the threshold resets");
        assert!(resets.iter().enumerate().all(|(k, &r)| !r || k % 4 == 3), "only writes that count out reset");
    }

    #[test]
    fn reads_stay_below_the_write_pointer() {
        let j = job(spec());
        let mut zbd = Zbd::new(config(4), 4096, &[(ZoneState::Empty, 0); 8], &[&j]).unwrap();
        let mut zj = ZbdJob::new(&j, 0, 8 * SIZE, 8 * SIZE);
        zbd.write(&mut zj, 2 * SIZE, 65536);
        zbd.write(&mut zj, 2 * SIZE, 65536);
        let r = zbd.read(&zj, 2 * SIZE + 300_000, 65536);
        assert!(r.offset + r.bytes <= 2 * SIZE + 2 * 65536, "{r:?}");
        let moved = zbd.read(&zj, 4 * SIZE, 65536);
        assert_eq!(moved.offset / SIZE, 2, "a read of an empty zone goes to the nearest with data");
    }
}
