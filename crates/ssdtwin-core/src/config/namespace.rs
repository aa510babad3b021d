//! `[namespace]`, checked: LBA formats and the namespace's size, which the geometry, GC's
//! reserve and the SLC cache bound.

use super::fdp::build_fdp;
use super::ftl::{build_gc, build_slc};
use super::nand::build_nand;
use super::profile::Profile;
use crate::ftl::{GcConfig, SlcCacheConfig, Stream};
use crate::nand::{Geometry, UNIT_BYTES};
use crate::nvme::{LbaFormat, Namespace};
use crate::profile_file::{Checker, LoadedProfile, ProfileError, parse_error};

/// The largest namespace a geometry can hold, and the superblocks kept back for it: GC's
/// reserve, every open frontier (one per write stream, `streams`), the static SLC cache and
/// the native room to fold it.
pub(super) fn namespace_limit(g: &Geometry, gc: &GcConfig, slc: &SlcCacheConfig, streams: usize) -> (u64, u32) {
    let static_fold_sb = slc.static_sb.div_ceil(g.native.bits());
    let reserve_sb = gc.bg_threshold_sb + streams as u32 + 1 + slc.static_sb + static_fold_sb;
    let max_units = u64::from(g.superblocks().saturating_sub(reserve_sb)) * u64::from(g.sb_units());
    (max_units * UNIT_BYTES, reserve_sb)
}

/// The largest namespace, in bytes, that `loaded`'s geometry, GC reserve and SLC cache
/// allow (whatever capacity the profile asks for).
pub fn max_namespace_bytes(loaded: &LoadedProfile) -> Result<u64, ProfileError> {
    let file = loaded.source.as_str();
    let p: Profile = toml::Value::Table(loaded.table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| parse_error(file, &e.to_string()))?;
    let c = Checker { file };
    let (geometry, nand) = build_nand(&c, &p.nand)?;
    let gc = build_gc(&c, &p.ftl)?;
    let slc = build_slc(&c, p.slc_cache.as_ref(), &geometry, &nand)?;
    let fdp = build_fdp(&c, p.fdp.as_ref(), &slc)?;
    let zns = super::zns::build_zns(&c, &p, &geometry, &slc, fdp.as_ref())?;
    let streams = Stream::count(super::placement_handles(fdp.as_ref(), zns.as_ref()));
    Ok(namespace_limit(&geometry, &gc, &slc, streams).0)
}

pub(super) fn build_namespace(
    c: &Checker,
    p: &Profile,
    g: &Geometry,
    gc: &GcConfig,
    slc: &SlcCacheConfig,
    streams: usize,
) -> Result<Namespace, ProfileError> {
    let n = &p.namespace;
    if n.lba_formats.is_empty() || n.lba_formats.len() > 16 {
        return Err(c.bad("namespace.lba_formats", &n.lba_formats.len(), "1 to 16 formats"));
    }
    let mut formats = Vec::with_capacity(n.lba_formats.len());
    for (i, f) in n.lba_formats.iter().enumerate() {
        let field = |name: &str| format!("namespace.lba_formats[{i}].{name}");
        if !f.data_bytes.is_power_of_two() || !(512..=65536).contains(&f.data_bytes) {
            return Err(c.bad(&field("data_bytes"), &f.data_bytes, "a power of two from 512 to 65536"));
        }
        c.range(&field("metadata_bytes"), f.metadata_bytes, 0, 65535)?;
        c.range(&field("relative_performance"), f.relative_performance, 0, 3)?;
        formats.push(LbaFormat {
            data_bytes: f.data_bytes,
            metadata_bytes: f.metadata_bytes,
            relative_performance: f.relative_performance,
        });
    }
    if n.current_format >= formats.len() {
        return Err(c.bad(
            "namespace.current_format",
            &n.current_format,
            &format!("allowed 0 to {}", formats.len() - 1),
        ));
    }
    let (max_bytes, reserve_sb) = namespace_limit(g, gc, slc, streams);
    let capacity_bytes = match (p.identity.capacity_bytes, p.ftl.overprovisioning_pct) {
        (Some(_), Some(_)) => {
            return Err(c.bad(
                "ftl.overprovisioning_pct",
                &"set",
                "give identity.capacity_bytes or ftl.overprovisioning_pct, not both",
            ));
        }
        (None, None) => {
            return Err(ProfileError::Missing {
                file: c.file.to_string(),
                field: "identity.capacity_bytes".into(),
                why: "or ftl.overprovisioning_pct, to size the namespace".into(),
            });
        }
        (Some(bytes), None) => bytes,
        (None, Some(op)) => {
            if !op.is_finite() || !(0.0..100.0).contains(&op) {
                return Err(c.bad("ftl.overprovisioning_pct", &op, "allowed 0 to less than 100"));
            }
            let bytes = (g.raw_bytes() as f64 * (1.0 - op / 100.0)) as u64;
            bytes / UNIT_BYTES * UNIT_BYTES
        }
    };
    if capacity_bytes == 0 || capacity_bytes % UNIT_BYTES != 0 {
        return Err(c.bad("identity.capacity_bytes", &capacity_bytes, "a positive multiple of 4096"));
    }
    if let Some(f) = formats.iter().find(|f| capacity_bytes % u64::from(f.data_bytes) != 0) {
        return Err(c.bad(
            "identity.capacity_bytes",
            &capacity_bytes,
            &format!("a multiple of every LBA data size ({})", f.data_bytes),
        ));
    }
    if capacity_bytes > max_bytes {
        let field =
            if p.identity.capacity_bytes.is_some() { "identity.capacity_bytes" } else { "ftl.overprovisioning_pct" };
        let value = p.ftl.overprovisioning_pct.map_or_else(|| capacity_bytes.to_string(), |op| op.to_string());
        return Err(c.bad(
            field,
            &value,
            &format!(
                "the namespace may hold at most {max_bytes} bytes: raw {} bytes less {reserve_sb} superblocks for GC reserve, open frontiers and the static SLC cache",
                g.raw_bytes()
            ),
        ));
    }
    Ok(Namespace { formats, current: n.current_format, capacity_bytes })
}
