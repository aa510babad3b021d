//! Bulk preconditioning: fill the device without simulating time.
//!
//! A sequential fill of a fresh device places units in the same order a timed run of
//! sequential writes does (writes are admitted in submission order), programs them, and
//! pads the last program unit as the final quiesce would, so without an SLC cache it leaves
//! exactly the state the timed path leaves (a test compares the two). Without an SLC cache
//! it writes a superblock's worth of units at a time: the L2P in one sequential pass, the
//! reverse map left implicit (`ftl::PageMap`), so a fill runs at about the speed of writing
//! the L2P once and touches no other memory. A random fill adds random 4 KiB overwrites:
//! sampled superblock by superblock (`Ftl::steady_fill`) where the drive holds exactly the
//! span and has no SLC cache, unless `exact`; else one by one with GC run untimed, whose
//! choices can differ from a timed run's, since those depend on when erases finish, but the
//! process is the same. An overwrite fill is a random fill's overwrites alone, over whatever
//! the drive holds. With an SLC cache, writes fill the cache, then fold it (or collect
//! garbage) when a unit has no room, as writes waiting for space make a drive fold; at the
//! end every full SLC superblock is folded to the native mode, ignoring `fold_low_gib` (a
//! timed idle session stops there), while the superblock the SLC frontier is still filling
//! keeps its data.

use super::Ssd;
use crate::engine::SimRng;
use crate::ftl::{SteadyRefusal, Stream};
use crate::nand::UNIT_BYTES;
use thiserror::Error;

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FillPattern {
    /// The first `percent` of the namespace, in order, in commands of `command_bytes`.
    Sequential {
        /// Share of the namespace, 0–100.
        percent: f64,
        /// Bytes per simulated write command (for the command counters).
        command_bytes: u64,
    },
    /// `sequential_passes` sequential fills of the first `percent`, then uniform random
    /// 4 KiB overwrites of it, `overwrite_passes` times its size, to GC's steady state.
    /// Unless `exact`, the overwrites are sampled superblock by superblock
    /// (`Ftl::steady_fill`) where the drive allows (no SLC cache, nothing mapped beyond
    /// the span); else every one is placed, and collected after, unit by unit.
    Random {
        /// Share of the namespace, 0–100.
        percent: f64,
        /// Sequential passes over the span first (at least 1; SNIA's workload-independent
        /// preconditioning writes it twice).
        sequential_passes: u32,
        /// Overwrites as a multiple of the span.
        overwrite_passes: f64,
        /// Random stream seed.
        seed: u64,
        /// Place every overwrite unit by unit (the slow path) instead of sampling.
        exact: bool,
    },
    /// Random 4 KiB overwrites of the first `percent`, `overwrite_passes` times its size,
    /// over what the drive holds now: the random part of [`FillPattern::Random`] alone, to
    /// continue a preconditioning (a round of SNIA PTS random writes) without writing the
    /// span in order again. Sampled unless `exact`, as a random fill's are, where the drive
    /// holds the whole span and nothing else (and has no SLC cache).
    Overwrite {
        /// Share of the namespace, 0–100.
        percent: f64,
        /// Overwrites as a multiple of the span.
        overwrite_passes: f64,
        /// Random stream seed.
        seed: u64,
        /// Place every overwrite unit by unit (the slow path) instead of sampling.
        exact: bool,
    },
}

/// The most random overwrites a fill does, as a multiple of its span: GC reaches its steady
/// state within a few passes, and more than this would run for hours.
const MAX_OVERWRITE_PASSES: f64 = 100.0;

/// Units between two progress reports of a fill (1 GiB).
const REPORT_UNITS: u64 = 1 << 18;

/// How many writes ahead a unit-by-unit overwrite draws its units, to prefetch their map
/// entries: enough to cover a DRAM miss with the work of placing the writes before.
const AHEAD: usize = 16;

/// Why a fill stopped early. The messages are what the user sees.
#[derive(Clone, Debug, PartialEq, Error)]
#[non_exhaustive]
pub enum FillError {
    /// The device had work pending; it changed nothing.
    #[error("fill needs an idle device")]
    NotIdle,
    /// The share of the namespace to fill is not a percentage; it changed nothing.
    #[error("fill percentage {percent} is outside 0 to 100")]
    Percent {
        /// The share asked for.
        percent: f64,
    },
    /// Too many random overwrites asked for; it changed nothing.
    #[error("overwrite passes {passes}: allowed 0 to {MAX_OVERWRITE_PASSES} (times the filled span)")]
    OverwritePasses {
        /// The passes asked for.
        passes: f64,
    },
    /// No room for logical unit `lpn`, and nothing to fold or collect (blocks worn out):
    /// the units before it stay written.
    #[error("fill stopped at 4 KiB unit {lpn}: no free space and nothing to fold or collect")]
    NoRoom {
        /// The logical unit that found no room.
        lpn: u64,
    },
    /// A sampled fill (`Ftl::steady_fill`) ran out of room midway: it leaves the drive
    /// empty, as a cancelled one does.
    #[error("steady-state fill: no free space and nothing to collect")]
    SteadyNoRoom,
    /// The observer asked to stop; the units written so far stay written, except in a
    /// sampled fill (`Ftl::steady_fill`), which lays its map out only at its end and so
    /// leaves the drive empty (the erases it did stay counted in the drive's wear).
    #[error("fill interrupted")]
    Cancelled,
    /// A zoned namespace is written zone by zone at write pointers, which a bulk fill does
    /// not follow.
    #[error("a zoned drive is filled by writing its zones: run fio with zonemode=zbd (e.g. --rw=write --zonemode=zbd)")]
    Zoned,
}

impl Ssd {
    /// Fills the device as `pattern` says, with no simulated time passing. The device must
    /// be quiet; it is quiet afterwards.
    pub fn fill(&mut self, pattern: FillPattern) -> Result<(), FillError> {
        self.fill_observed(pattern, &mut |_, _| true)
    }

    /// [`Ssd::fill`], calling `observe(units_done, units_total)` before the first unit and
    /// after every 1 GiB; it returning false stops the fill ([`FillError::Cancelled`]).
    pub fn fill_observed(
        &mut self,
        pattern: FillPattern,
        observe: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(), FillError> {
        if !self.is_quiet() {
            return Err(FillError::NotIdle);
        }
        if self.zones.is_some() {
            return Err(FillError::Zoned);
        }
        let (percent, command_bytes) = match pattern {
            FillPattern::Sequential { percent, command_bytes } => (percent, command_bytes),
            FillPattern::Random { percent, .. } | FillPattern::Overwrite { percent, .. } => (percent, 128 * 1024),
        };
        if !(0.0..=100.0).contains(&percent) {
            return Err(FillError::Percent { percent });
        }
        if let FillPattern::Random { overwrite_passes, .. } | FillPattern::Overwrite { overwrite_passes, .. } = pattern
            && !(0.0..=MAX_OVERWRITE_PASSES).contains(&overwrite_passes)
        {
            return Err(FillError::OverwritePasses { passes: overwrite_passes });
        }
        let span = (self.ftl.logical_units() as f64 * percent / 100.0).round() as u64;
        // Sequential passes over the span first (none for an overwrite), then overwrites.
        let (passes, overwrites, random) = match pattern {
            FillPattern::Sequential { .. } => (1, 0, None),
            FillPattern::Random { sequential_passes, overwrite_passes, seed, exact, .. } => (
                u64::from(sequential_passes.max(1)),
                (span as f64 * overwrite_passes).round() as u64,
                Some((seed, exact)),
            ),
            FillPattern::Overwrite { overwrite_passes, seed, exact, .. } => {
                (0, (span as f64 * overwrite_passes).round() as u64, Some((seed, exact)))
            }
        };
        let total = passes * span + overwrites;
        let mut scratch = Vec::new();
        let mut job = crate::ftl::RelocationJob::default();
        for pass in 0..passes {
            self.sequential_pass(span, pass * span, total, &mut job, &mut scratch, observe)?;
            let bytes = span * UNIT_BYTES;
            self.counters.write_cmds += bytes.div_ceil(command_bytes.max(UNIT_BYTES));
            self.counters.bytes_written += bytes;
            self.counters.units_programmed += span;
            self.host_units_admitted += span;
        }
        // The logical units the fill leaves mapped for certain: the span, when it was written
        // in order or is exactly what the drive holds (a sampled overwrite); else an
        // overwrite maps only what it writes.
        let mut mapped_span = if passes > 0 { span } else { 0 };
        if let Some((seed, exact)) = random {
            let done = passes * span;
            // No overwrites: nothing to sample, and the layout stays what it was.
            let sampled = !exact && overwrites > 0 && self.ftl.can_sample_steady(span);
            if sampled {
                mapped_span = span;
                self.sampled_overwrites(span, overwrites, seed, done, total, observe)?;
            } else {
                let mut rng = SimRng::stream(seed, 0x46_49_4c_4c);
                // Each write misses the cache twice, on its L2P entry and on the P2L entry of
                // the location it overwrites: the units are drawn AHEAD writes early (the
                // same draws in the same order) so both can be fetched while earlier writes
                // are placed, the L2P entry at once and the P2L entry halfway.
                let mut ahead = std::collections::VecDeque::with_capacity(AHEAD + 1);
                for i in 0..overwrites {
                    if (done + i) % REPORT_UNITS == 0 && !observe(done + i, total) {
                        return Err(FillError::Cancelled);
                    }
                    while ahead.len() <= AHEAD && i + (ahead.len() as u64) < overwrites {
                        let lpn = rng.below(span);
                        self.ftl.map.touch(lpn);
                        ahead.push_back(lpn);
                    }
                    if let Some(&soon) = ahead.get(AHEAD / 2) {
                        self.ftl.map.touch_old(soon);
                    }
                    let lpn = ahead.pop_front().expect("drawn above");
                    if !self.ftl.make_room_untimed(&mut job, &mut scratch) {
                        return Err(FillError::NoRoom { lpn });
                    }
                    let version = self.verifier.as_mut().map_or(0, |v| v.on_write(lpn));
                    self.ftl.write_untimed(lpn, version, &mut scratch);
                    self.ftl.gc_untimed(&mut job, &mut scratch);
                    if passes == 0 {
                        self.map_cache.mark_mapped(std::iter::once(lpn));
                    }
                }
            }
            self.counters.write_cmds += overwrites;
            self.counters.bytes_written += overwrites * UNIT_BYTES;
            self.counters.units_programmed += overwrites;
            self.host_units_admitted += overwrites;
        }
        self.ftl.pad_untimed(&mut scratch);
        // Fold every full SLC superblock: more than an idle session would, which stops at
        // the low watermark.
        self.ftl.fold_untimed(&mut job, &mut scratch);
        self.map_cache.mark_range_mapped(0..mapped_span);
        observe(total, total);
        Ok(())
    }

    /// `overwrites` random overwrites of the span `0..span`, which is exactly what the drive
    /// holds, sampled superblock by superblock (`Ftl::steady_fill`); `observe` hears of every
    /// 1 GiB crossed, counted from `done` of `total`, as in the other paths. A cancelled fill,
    /// or one that runs out of room (its blocks worn out), leaves the drive empty.
    fn sampled_overwrites(
        &mut self,
        span: u64,
        overwrites: u64,
        seed: u64,
        done: u64,
        total: u64,
        observe: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(), FillError> {
        let verifier = &mut self.verifier;
        let version = |lpn| verifier.as_mut().map_or(0, |v| v.on_write(lpn));
        let mut reported = done / REPORT_UNITS;
        let mut each = |written: u64| {
            let at = done + written;
            at / REPORT_UNITS == reported || {
                reported = at / REPORT_UNITS;
                observe(at, total)
            }
        };
        let error = match self.ftl.steady_fill(span, overwrites, seed, version, &mut each) {
            Ok(()) => return Ok(()),
            Err(SteadyRefusal::Cancelled) => FillError::Cancelled,
            Err(SteadyRefusal::NoRoom) => FillError::SteadyNoRoom,
            Err(SteadyRefusal::SlcCache | SteadyRefusal::NotTheSpan) => unreachable!("can_sample_steady checked"),
        };
        // The FTL is empty: so is what the rest of the drive remembers of its data.
        if let Some(v) = self.verifier.as_mut() {
            v.clear();
        }
        self.map_cache.format();
        Err(error)
    }

    /// Writes logical units `0..span` in order with no timing, making room and collecting
    /// as a drive does (`observe` hears of every 1 GiB, counted from `done` of `total`).
    fn sequential_pass(
        &mut self,
        span: u64,
        done: u64,
        total: u64,
        job: &mut crate::ftl::RelocationJob,
        scratch: &mut Vec<crate::nand::PuId>,
        observe: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<(), FillError> {
        // Without an SLC cache every unit goes to the host frontier in order: a superblock's
        // worth at a time, as one run (`Ftl::write_seq_untimed`). GC can only be wanted once
        // a superblock opens, so runs start there, one unit long, and GC follows, exactly
        // as after each unit of the unit-by-unit loop (which an SLC cache still needs).
        let in_runs = !self.ftl.slc.enabled();
        let mut lpn = 0;
        while lpn < span {
            if (done + lpn) % REPORT_UNITS == 0 && !observe(done + lpn, total) {
                return Err(FillError::Cancelled);
            }
            if !self.ftl.make_room_untimed(job, scratch) {
                return Err(FillError::NoRoom { lpn });
            }
            if in_runs {
                let room = u64::from(self.ftl.frontier(Stream::Host).room());
                let next_report = ((done + lpn) / REPORT_UNITS + 1) * REPORT_UNITS - done;
                let count = if room == 0 || self.ftl.wants_gc() { 1 } else { room.min(span.min(next_report) - lpn) };
                let verifier = &mut self.verifier;
                self.ftl.write_seq_untimed(lpn, count as u32, |l| verifier.as_mut().map_or(0, |v| v.on_write(l)));
                lpn += count;
            } else {
                let version = self.verifier.as_mut().map_or(0, |v| v.on_write(lpn));
                self.ftl.write_untimed(lpn, version, scratch);
                lpn += 1;
            }
            self.ftl.gc_untimed(job, scratch);
        }
        Ok(())
    }
}
