//! `[ftl]` and `[slc_cache]`, checked: garbage collection and the SLC cache with its folding.

use super::profile::{FtlSection, SlcCacheSection};
use crate::engine::SimDuration;
use crate::ftl::{GcConfig, SlcCacheConfig, VictimPolicy, WhenFull};
use crate::nand::{CellMode, Geometry, NandTiming, UNIT_BYTES};
use crate::profile_file::{Checker, ProfileError};

pub(super) fn build_slc(
    c: &Checker,
    s: Option<&SlcCacheSection>,
    g: &Geometry,
    nand: &NandTiming,
) -> Result<SlcCacheConfig, ProfileError> {
    let Some(s) = s else { return Ok(SlcCacheConfig::NONE) };
    let gib = |field: &str, v: f64| -> Result<f64, ProfileError> {
        if !v.is_finite() || !(0.0..=1e6).contains(&v) {
            return Err(c.bad(field, &v, "allowed 0 to 1e6 GiB"));
        }
        Ok(v * f64::from(1 << 30))
    };
    if g.native == CellMode::Slc {
        return Err(c.bad("slc_cache", &"set", "an SLC cache needs a multi-bit native cell mode (nand.cell)"));
    }
    if nand.cell[CellMode::Slc.index()].t_read.as_ns() == 0 {
        return Err(ProfileError::Missing {
            file: c.file.to_string(),
            field: "nand.slc".into(),
            why: "timings of SLC mode, used by the SLC cache".into(),
        });
    }
    let slc_sb_bytes = f64::from(g.sb_units_in(CellMode::Slc)) * UNIT_BYTES as f64;
    let static_sb = (gib("slc_cache.static_gib", s.static_gib)? / slc_sb_bytes).ceil() as u32;
    let dynamic_max_sb = (gib("slc_cache.dynamic_max_gib", s.dynamic_max_gib)? / slc_sb_bytes).ceil() as u32;
    if static_sb >= g.superblocks() / 2 {
        return Err(c.bad(
            "slc_cache.static_gib",
            &s.static_gib,
            &format!(
                "less than half the drive in SLC mode ({} superblocks of {:.3} GiB)",
                g.superblocks() / 2,
                slc_sb_bytes / f64::from(1 << 30)
            ),
        ));
    }
    if !(0.0..=100.0).contains(&s.dynamic_min_free_pct) {
        return Err(c.bad("slc_cache.dynamic_min_free_pct", &s.dynamic_min_free_pct, "allowed 0 to 100"));
    }
    let when_full =
        c.choice("slc_cache.when_full", &s.when_full, &[("direct", WhenFull::Direct), ("fold", WhenFull::Fold)])?;
    let fold_in_background =
        c.choice("slc_cache.fold_priority", &s.fold_priority, &[("background", true), ("host", false)])?;
    let units = |bytes: f64| (bytes / UNIT_BYTES as f64) as u64;
    let fold_low_units = units(gib("slc_cache.fold_low_gib", s.fold_low_gib)?);
    let fold_high_units = match s.fold_high_gib {
        Some(h) => units(gib("slc_cache.fold_high_gib", h)?),
        None => u64::MAX,
    };
    if fold_high_units <= fold_low_units {
        return Err(c.bad(
            "slc_cache.fold_high_gib",
            &s.fold_high_gib.unwrap_or(0.0),
            &format!("must exceed fold_low_gib ({})", s.fold_low_gib),
        ));
    }
    let fold_idle_low_units = match s.fold_idle_low_gib {
        Some(l) => units(gib("slc_cache.fold_idle_low_gib", l)?),
        None => fold_low_units,
    };
    let fold_urgent_units = match s.fold_urgent_gib {
        Some(u) => units(gib("slc_cache.fold_urgent_gib", u)?),
        None => u64::MAX,
    };
    let fold_idle = match s.fold_idle_ms {
        Some(ms) if ms.is_finite() && (0.0..=1e9).contains(&ms) => Some(SimDuration((ms * 1e6) as u64)),
        Some(ms) => return Err(c.bad("slc_cache.fold_idle_ms", &ms, "allowed 0 to 1e9 ms")),
        None => None,
    };
    Ok(SlcCacheConfig {
        static_sb,
        dynamic_max_sb,
        dynamic_min_free_sb: (f64::from(g.superblocks()) * s.dynamic_min_free_pct / 100.0).ceil() as u32,
        when_full,
        fold_high_units,
        fold_low_units,
        fold_idle,
        fold_idle_low_units,
        fold_on_read: s.fold_on_read,
        fold_in_background,
        fold_urgent_units,
    })
}

pub(super) fn build_gc(c: &Checker, s: &FtlSection) -> Result<GcConfig, ProfileError> {
    let policy = c.choice(
        "ftl.gc_policy",
        &s.gc_policy,
        &[("greedy", VictimPolicy::Greedy), ("cost-benefit", VictimPolicy::CostBenefit)],
    )?;
    c.range("ftl.gc_fg_threshold_sb", s.gc_fg_threshold_sb, 2, 1 << 20)?;
    if s.gc_bg_threshold_sb <= s.gc_fg_threshold_sb {
        return Err(c.bad(
            "ftl.gc_bg_threshold_sb",
            &s.gc_bg_threshold_sb,
            &format!("must exceed ftl.gc_fg_threshold_sb ({})", s.gc_fg_threshold_sb),
        ));
    }
    Ok(GcConfig { policy, bg_threshold_sb: s.gc_bg_threshold_sb, fg_threshold_sb: s.gc_fg_threshold_sb })
}
