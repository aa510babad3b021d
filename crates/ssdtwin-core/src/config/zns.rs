//! `[zns]`, checked: a zoned namespace's limits, and what a zoned namespace needs of the rest
//! of the profile.

use super::profile::{Profile, ZnsSection};
use crate::ftl::{FdpConfig, SlcCacheConfig};
use crate::nand::{Geometry, UNIT_BYTES};
use crate::profile_file::{Checker, ProfileError};

/// A zoned namespace's limits (validated); the zone geometry follows from the superblock
/// and the LBA format (`Ssd`'s zones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZnsConfig {
    /// Most open zones.
    pub max_open: u32,
    /// Most active zones: each holds a write frontier.
    pub max_active: u32,
}

/// The most active zones a profile may give: each is a write frontier holding an open
/// superblock, kept out of the namespace.
pub const MAX_ACTIVE_ZONES: u32 = 128;

pub(super) fn build_zns(
    c: &Checker,
    p: &Profile,
    g: &Geometry,
    slc: &SlcCacheConfig,
    fdp: Option<&FdpConfig>,
) -> Result<Option<ZnsConfig>, ProfileError> {
    let Some(s): Option<&ZnsSection> = p.zns.as_ref() else { return Ok(None) };
    let max_active = c.range("zns.max_active", s.max_active, 1, MAX_ACTIVE_ZONES)?;
    let max_open = c.range("zns.max_open", s.max_open, 1, max_active)?;
    if slc.enabled() {
        return Err(c.bad("zns", &"set", "a zoned drive has no SLC cache here: remove [slc_cache]"));
    }
    if fdp.is_some() {
        return Err(c.bad("zns", &"set", "a namespace is zoned or takes placement directives, not both: remove [fdp]"));
    }
    if let Some(f) = p.namespace.lba_formats.iter().find(|f| u64::from(f.data_bytes) != UNIT_BYTES) {
        return Err(c.bad(
            "namespace.lba_formats",
            &f.data_bytes,
            "4096-byte LBAs only on a zoned namespace (a zone's capacity is whole 4 KiB map units)",
        ));
    }
    let zone_bytes = u64::from(g.sb_units()) * UNIT_BYTES;
    if let Some(bytes) = p.identity.capacity_bytes
        && bytes % zone_bytes != 0
    {
        return Err(c.bad(
            "identity.capacity_bytes",
            &bytes,
            &format!("a whole number of zones of {zone_bytes} bytes (one superblock each)"),
        ));
    }
    if p.identity.capacity_bytes.is_none() {
        return Err(c.bad(
            "ftl.overprovisioning_pct",
            &"set",
            "a zoned namespace is sized in zones: give identity.capacity_bytes, a whole number of superblocks",
        ));
    }
    Ok(Some(ZnsConfig { max_open, max_active }))
}
