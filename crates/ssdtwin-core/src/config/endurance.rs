//! `[endurance]`, checked: rated P/E cycles per cell mode (typical figures where the profile
//! gives none), spare blocks, block wear-out and the bit-error law.

use super::device::RatedEndurance;
use super::profile::Profile;
use crate::ftl::{BitErrorLaw, Endurance, MAX_RETRY_CHANCE, MAX_UBER_PER_BIT, ReadRetryLaw, WearLevelling};
use crate::nand::{CellMode, Geometry};
use crate::profile_file::{Checker, ProfileError};

/// Typical rated P/E cycles of `mode` on NAND built for `native` when the profile gives
/// none [INF]: 3D TLC 3,000 and QLC 1,000 (the upper ends of the 1,000–3,000 and 100–1,000
/// cited by Tom's Hardware, "YMTC: our 3D QLC NAND matches endurance of 3D TLC NAND", 2024),
/// MLC 3,000 (consumer planar MLC, TweakTown 2014: "3000 to 10,000"), native SLC 100,000; a
/// multi-bit die's SLC mode ten times its native rating.
pub(super) fn default_pe_cycles(mode: CellMode, native: CellMode) -> u32 {
    match (mode, native) {
        (CellMode::Slc, CellMode::Slc) => 100_000,
        (CellMode::Slc, other) => 10 * default_pe_cycles(other, other),
        (CellMode::Mlc | CellMode::Tlc, _) => 3_000,
        (CellMode::Qlc, _) => 1_000,
    }
}

/// UBER at the rated endurance when a profile gives none: JEDEC JESD218's requirement of a
/// client drive, 1 error per 10^15 bits read.
const DEFAULT_UBER_PER_BIT: f64 = 1e-15;

/// Wear past the rating, percent of it, over which the UBER grows tenfold when a profile
/// gives none [INF]: the UBER grows as the raw bit error rate to the power `t + 1` for an ECC
/// correcting `t` bits (Mielke et al., IRPS 2008), so with 25 nm MLC's 24-bit BCH a tenfold
/// rise over 10 % of the rating is the raw rate rising 10 % over it, a modest slope beside
/// the cycle dependency Cai et al. (DATE 2012) measure.
const DEFAULT_UBER_TENFOLD_PCT: f64 = 10.0;

pub(super) fn build_endurance(
    c: &Checker,
    profile: &Profile,
    geometry: &Geometry,
    serial: &str,
    min_superblocks: u32,
) -> Result<(Endurance, RatedEndurance), ProfileError> {
    let s = &profile.endurance;
    let native = geometry.native;
    let given = [s.slc_pe_cycles, s.mlc_pe_cycles, s.tlc_pe_cycles, s.qlc_pe_cycles];
    let mut rated_pe_cycles = [0; 4];
    for mode in CellMode::ALL {
        let cycles = given[mode.index()].unwrap_or_else(|| default_pe_cycles(mode, native));
        let field = format!("endurance.{}_pe_cycles", mode.name());
        rated_pe_cycles[mode.index()] = c.range(&field, cycles, 1, 10_000_000)?;
    }
    c.range("endurance.spare_blocks_per_plane", s.spare_blocks_per_plane, 0, 1 << 20)?;
    let spread = s.block_spread_pct.unwrap_or(10.0);
    if !spread.is_finite() || !(0.0..=100.0).contains(&spread) {
        return Err(c.bad("endurance.block_spread_pct", &spread, "allowed 0 to 100"));
    }
    let spare_threshold_pct =
        c.range("endurance.available_spare_threshold_pct", s.available_spare_threshold_pct.unwrap_or(10), 0, 100)?;
    let positive = |field: &str, v: Option<f64>| -> Result<Option<f64>, ProfileError> {
        match v {
            Some(x) if !x.is_finite() || x <= 0.0 || x > 1e9 => Err(c.bad(field, &x, "a positive number up to 1e9")),
            other => Ok(other),
        }
    };
    let rated = RatedEndurance {
        tb_written: positive("endurance.rated_tb_written", s.rated_tb_written)?,
        tb_written_sequential: positive("endurance.rated_tb_written_sequential", s.rated_tb_written_sequential)?,
        dwpd: positive("endurance.rated_dwpd", s.rated_dwpd)?,
        warranty_years: positive("endurance.warranty_years", s.warranty_years)?,
    };
    let uber_per_bit = s.uber_per_bit.unwrap_or(DEFAULT_UBER_PER_BIT);
    if !uber_per_bit.is_finite() || !(0.0..=MAX_UBER_PER_BIT).contains(&uber_per_bit) {
        let allowed = format!("allowed 0 to {MAX_UBER_PER_BIT:.3e} (one error per 4 KiB read)");
        return Err(c.bad("endurance.uber_per_bit", &uber_per_bit, &allowed));
    }
    let tenfold_pct = s.uber_tenfold_pct.unwrap_or(DEFAULT_UBER_TENFOLD_PCT);
    if !tenfold_pct.is_finite() || tenfold_pct <= 0.0 || tenfold_pct > 1000.0 {
        return Err(c.bad("endurance.uber_tenfold_pct", &tenfold_pct, "allowed above 0 up to 1000"));
    }
    let bit_errors = BitErrorLaw { uber_per_bit, tenfold_life: tenfold_pct / 100.0 };
    let share = |field: &str, v: Option<f64>, most: f64| -> Result<f64, ProfileError> {
        let v = v.unwrap_or(0.0);
        if !v.is_finite() || !(0.0..=most).contains(&v) {
            return Err(c.bad(field, &v, &format!("allowed 0 to {most}")));
        }
        Ok(v)
    };
    let read_retry = ReadRetryLaw {
        fresh: share("endurance.read_retry_fresh", s.read_retry_fresh, MAX_RETRY_CHANCE)?,
        rated: share("endurance.read_retry_rated", s.read_retry_rated, MAX_RETRY_CHANCE)?,
        again: share("endurance.read_retry_again", s.read_retry_again, 0.9)?,
    };
    if read_retry.rated < read_retry.fresh {
        return Err(c.bad(
            "endurance.read_retry_rated",
            &read_retry.rated,
            &format!("at least endurance.read_retry_fresh ({}): wear does not make reads cleaner", read_retry.fresh),
        ));
    }
    let levelling = c.choice(
        "ftl.wear_levelling",
        &profile.ftl.wear_levelling,
        &[("fifo", WearLevelling::Fifo), ("dynamic", WearLevelling::Dynamic), ("static", WearLevelling::Static)],
    )?;
    let static_spread_cycles =
        c.range("ftl.static_wl_spread_cycles", profile.ftl.static_wl_spread_cycles, 1, 10_000_000)?;
    // FNV-1a of the serial number: drives of one model wear out differently, each the same
    // way every run.
    let seed = serial.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let endurance = Endurance {
        rated_pe_cycles,
        spare_blocks_per_plane: s.spare_blocks_per_plane,
        block_spread: spread / 100.0,
        seed,
        levelling,
        static_spread_cycles,
        spare_threshold_pct,
        min_superblocks,
        bit_errors,
        read_retry,
    };
    Ok((endurance, rated))
}
