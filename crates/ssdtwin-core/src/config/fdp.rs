//! `[fdp]`, checked: Flexible Data Placement's reclaim unit handles.

use super::profile::FdpSection;
use crate::ftl::{FdpConfig, Isolation, SlcCacheConfig};
use crate::profile_file::{Checker, ProfileError};

/// The most handles a profile may give: each is a write frontier (two when persistently
/// isolated) holding an open superblock, kept out of the namespace.
pub const MAX_HANDLES: u16 = 128;

pub(super) fn build_fdp(
    c: &Checker,
    s: Option<&FdpSection>,
    slc: &SlcCacheConfig,
) -> Result<Option<FdpConfig>, ProfileError> {
    let Some(s) = s else { return Ok(None) };
    if s.reclaim_groups != 1 {
        return Err(c.bad("fdp.reclaim_groups", &s.reclaim_groups, "allowed 1 (a reclaim unit spans every die)"));
    }
    let handles = c.range("fdp.handles", s.handles, 1, MAX_HANDLES)?;
    let isolation = c.choice("fdp.handle_type", &s.handle_type, &Isolation::NAMES)?;
    if slc.enabled() {
        return Err(c.bad(
            "fdp",
            &"set",
            "an FDP drive has no SLC cache here: remove [slc_cache] (the drives that ship FDP are enterprise TLC without one)",
        ));
    }
    Ok(Some(FdpConfig { handles, isolation }))
}
