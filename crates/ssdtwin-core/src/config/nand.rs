//! `[nand]`, checked: the array's geometry (whose addresses must fit the map's widths) and
//! each cell mode's timings.

use super::profile::NandSection;
use crate::engine::SimDuration;
use crate::nand::{CellMode, CellTiming, DieScheduler, Geometry, NandTiming, SuspendPolicy, SuspendTiming};
use crate::profile_file::{Checker, ProfileError};

/// The array's geometry, if its addresses fit in the map's and the program units' widths.
pub(super) fn nand_geometry(c: &Checker, s: &NandSection, native: CellMode) -> Result<Geometry, ProfileError> {
    // Addresses inside a superblock are numbered in 32 bits.
    let sb_units = [s.channels, s.dies_per_channel, s.planes, s.page_bytes / 4096]
        .into_iter()
        .fold(u64::from(s.pages_per_block), |units, n| units * u64::from(n));
    if sb_units > u64::from(u32::MAX) {
        return Err(c.bad(
            "nand.pages_per_block",
            &s.pages_per_block,
            &format!(
                "a superblock (a block of every plane of every die) must hold at most 2^32 - 1 map units \
                 of 4 KiB; this geometry has {sb_units}"
            ),
        ));
    }
    let geometry = Geometry::new(
        s.channels,
        s.dies_per_channel,
        s.planes,
        s.blocks_per_plane,
        s.pages_per_block,
        s.page_bytes,
        native,
    );
    // The map addresses 2^34 - 1 units of 4 KiB (64 TiB of raw NAND, ftl::PageMap); program
    // units are numbered in 32 bits.
    if geometry.total_units() > crate::ftl::MAX_PHYSICAL_UNITS || geometry.total_pus() > u64::from(u32::MAX) {
        return Err(c.bad(
            "nand.blocks_per_plane",
            &s.blocks_per_plane,
            &format!(
                "the array must hold at most 2^34 - 1 map units of 4 KiB (64 TiB) and 2^32 - 1 program units; \
                 this geometry has {} and {}",
                geometry.total_units(),
                geometry.total_pus()
            ),
        ));
    }
    Ok(geometry)
}

pub(super) fn build_nand(c: &Checker, s: &NandSection) -> Result<(Geometry, NandTiming), ProfileError> {
    let modes = [("slc", CellMode::Slc), ("mlc", CellMode::Mlc), ("tlc", CellMode::Tlc), ("qlc", CellMode::Qlc)];
    let native = c.choice("nand.cell", &s.cell, &modes)?;
    c.range("nand.channels", s.channels, 1, 64)?;
    c.range("nand.dies_per_channel", s.dies_per_channel, 1, 64)?;
    c.range("nand.planes", s.planes, 1, 16)?;
    c.range("nand.pages_per_block", s.pages_per_block, 1, 65536)?;
    if s.pages_per_block % native.bits() != 0 {
        return Err(c.bad(
            "nand.pages_per_block",
            &s.pages_per_block,
            &format!(
                "a multiple of {} (the bits per cell of {}), so a block can be used in SLC mode",
                native.bits(),
                native.name()
            ),
        ));
    }
    if s.page_bytes == 0 || s.page_bytes % 4096 != 0 || s.page_bytes > 65536 {
        return Err(c.bad("nand.page_bytes", &s.page_bytes, "a multiple of 4096 from 4096 to 65536"));
    }
    c.range("nand.blocks_per_plane", s.blocks_per_plane, 8, 1 << 20)?;
    c.range("nand.channel_mts", s.channel_mts, 1, 100_000)?;
    let geometry = nand_geometry(c, s, native)?;
    let tables = [s.slc, s.mlc, s.tlc, s.qlc];
    if tables[native.index()].is_none() {
        return Err(ProfileError::Missing {
            file: c.file.to_string(),
            field: format!("nand.{}", native.name()),
            why: "timings of the native cell mode".into(),
        });
    }
    let zero = SimDuration::ZERO;
    let mut cell =
        [CellTiming { t_read: zero, t_read_spread: zero, t_prog: zero, t_prog_spread: zero, t_erase: zero }; 4];
    for mode in CellMode::ALL {
        if let Some(t) = tables[mode.index()] {
            let f = |n: &str| format!("nand.{}.{n}", mode.name());
            let t_read = c.positive_us(&f("t_read_us"), t.t_read_us)?;
            let t_read_spread = c.us(&f("t_read_spread_us"), t.t_read_spread_us)?;
            if t_read_spread >= t_read {
                let allowed = format!("below t_read_us ({}): the fastest page type still takes time", t.t_read_us);
                return Err(c.bad(&f("t_read_spread_us"), &t.t_read_spread_us, &allowed));
            }
            let t_prog = c.positive_us(&f("t_prog_us"), t.t_prog_us)?;
            let t_prog_spread = c.us(&f("t_prog_spread_us"), t.t_prog_spread_us)?;
            if t_prog_spread >= t_prog {
                let allowed = format!("below t_prog_us ({}): the fastest page type still takes time", t.t_prog_us);
                return Err(c.bad(&f("t_prog_spread_us"), &t.t_prog_spread_us, &allowed));
            }
            cell[mode.index()] = CellTiming {
                t_read,
                t_read_spread,
                t_prog,
                t_prog_spread,
                t_erase: c.positive_us(&f("t_erase_us"), t.t_erase_us)?,
            };
        }
    }
    if !s.die_cv.is_finite() || !(0.0..=0.5).contains(&s.die_cv) {
        return Err(c.bad("nand.die_cv", &s.die_cv, "allowed 0 to 0.5"));
    }
    let scheduler = c.choice(
        "nand.scheduler",
        &s.scheduler,
        &[("read-priority", DieScheduler::ReadPriority), ("fifo", DieScheduler::Fifo)],
    )?;
    let policy = c.choice(
        "nand.suspend",
        &s.suspend,
        &[
            ("none", SuspendPolicy::None),
            ("program", SuspendPolicy::Program),
            ("program-erase", SuspendPolicy::ProgramErase),
        ],
    )?;
    if policy != SuspendPolicy::None && scheduler == DieScheduler::Fifo {
        return Err(c.bad(
            "nand.suspend",
            &format!("\"{}\"", s.suspend),
            "suspend needs scheduler = \"read-priority\" (a FIFO die never lets a read overtake)",
        ));
    }
    let timing = NandTiming {
        cell,
        channel_bytes_per_sec: u64::from(s.channel_mts) * 1_000_000,
        channel_cmd: SimDuration(c.range("nand.channel_cmd_ns", s.channel_cmd_ns, 0, 1_000_000)?),
        ecc_decode: SimDuration(c.range("nand.ecc_decode_ns", s.ecc_decode_ns, 0, 1_000_000)?),
        scheduler,
        suspend: SuspendTiming {
            policy,
            t_suspend: c.us("nand.suspend_us", s.suspend_us)?,
            t_resume: c.us("nand.resume_us", s.resume_us)?,
            max_per_op: s.max_suspends,
        },
        die_cv: s.die_cv,
    };
    Ok((geometry, timing))
}
