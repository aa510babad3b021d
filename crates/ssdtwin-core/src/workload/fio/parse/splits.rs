//! fio's weighted lists, `A/B:A/B:...`, for one direction: `bssplit=4k/10:64k/50:32k/40`
//! (block sizes with shares of I/Os) and the zones of
//! `random_distribution=zoned:60/10:30/20:10/70` (share of accesses / share of region) or
//! `zoned_abs:60/20g:40/100g` (share of accesses / bytes).
//!
//! fio 3.33's rules (`options.c`, `split_parse_ddir`, `bssplit_ddir`, `zone_split_ddir`):
//! a share left empty (or 0) gets an equal part of what the others leave, in integer
//! percent; shares must not add up to more than 100. For `bssplit`, whatever integer
//! division leaves over (`a/:b/:c/` gives 33 each) falls, in fio's selection loop, to the
//! entry that sorts last by share, so ssdtwin adds it there and keeps fio's order (sorted
//! by share, ascending). Zone access shares must add up to exactly 100. Where fio silently
//! clamps a share above 100 or drops the entries after an empty one, ssdtwin refuses.

use super::values::{self, MAX_BLOCK_BYTES};
use crate::workload::{Zone, ZoneSize};

/// Most entries in one direction's `bssplit` (fio's `BSSPLIT_MAX`).
const MAX_BSSPLIT_ENTRIES: usize = 64;
/// Most zones in one direction (fio's `ZONESPLIT_MAX`).
const MAX_ZONES: usize = 256;

/// Splits `a:b:c` into entries; a trailing `:` is allowed, an empty entry elsewhere is not.
fn entries(list: &str, max: usize) -> Result<Vec<&str>, String> {
    let mut parts: Vec<&str> = list.split(':').collect();
    if parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.iter().any(|p| p.is_empty()) {
        return Err("empty entry in the list".into());
    }
    if parts.len() > max {
        return Err(format!("at most {max} entries"));
    }
    Ok(parts)
}

/// A whole percentage 0..=100; `None` for an empty or zero share (fio's "share the rest").
fn share(text: &str) -> Result<Option<u32>, String> {
    if text.is_empty() {
        return Ok(None);
    }
    match values::plain_integer(text) {
        Ok(0) => Ok(None),
        Ok(p) if p <= 100 => Ok(Some(p as u32)),
        _ => Err(format!("share '{text}' must be a whole percentage 0..100")),
    }
}

/// Fills empty shares with equal integer parts of what the given ones leave.
fn fill_shares(shares: &[Option<u32>]) -> Result<Vec<u32>, String> {
    let given: u32 = shares.iter().flatten().sum();
    if given > 100 {
        return Err(format!("shares add up to {given}%, more than 100%"));
    }
    let missing = shares.iter().filter(|s| s.is_none()).count() as u32;
    let each = (100 - given).checked_div(missing).unwrap_or(0);
    Ok(shares.iter().map(|s| s.unwrap_or(each)).collect())
}

/// One direction of `bssplit`: (block size in bytes, percent of I/Os), sorted by percent
/// as fio keeps it, percents adding up to 100.
pub(super) fn bssplit(list: &str, kb_base: u64) -> Result<Vec<(u64, f64)>, String> {
    let mut sizes = Vec::new();
    let mut shares = Vec::new();
    for entry in entries(list, MAX_BSSPLIT_ENTRIES)? {
        let (size_text, share_text) = entry.split_once('/').unwrap_or((entry, ""));
        let bytes = values::size(size_text, kb_base)?;
        if !(1..=MAX_BLOCK_BYTES).contains(&bytes) {
            return Err(format!("block size '{size_text}' must be 1 byte to 256 MiB"));
        }
        sizes.push(bytes);
        shares.push(share(share_text)?);
    }
    let mut split: Vec<(u64, u32)> = sizes.into_iter().zip(fill_shares(&shares)?).collect();
    split.sort_by_key(|&(_, percent)| percent);
    let total: u32 = split.iter().map(|&(_, p)| p).sum();
    if let Some(last) = split.last_mut() {
        last.1 += 100 - total;
    }
    Ok(split.into_iter().map(|(bytes, percent)| (bytes, f64::from(percent))).collect())
}

/// One direction of `zoned` (`absolute == false`, sizes in percent of the region) or
/// `zoned_abs` (sizes in bytes).
pub(super) fn zones(list: &str, kb_base: u64, absolute: bool) -> Result<Vec<Zone>, String> {
    let mut access = Vec::new();
    let mut size_shares = Vec::new();
    let mut size_bytes = Vec::new();
    for entry in entries(list, MAX_ZONES)? {
        let Some((access_text, size_text)) = entry.split_once('/') else {
            return Err(format!("zone '{entry}' must be ACCESS%/SIZE, e.g. 60/10"));
        };
        match values::plain_integer(access_text) {
            Ok(p) if p <= 100 => access.push(p as u32),
            _ => return Err(format!("access share '{access_text}' must be a whole percentage 0..100")),
        }
        if absolute {
            match values::size(size_text, kb_base)? {
                0 => return Err(format!("zone '{entry}' needs a size in bytes, e.g. 60/20g")),
                bytes => size_bytes.push(bytes),
            }
        } else {
            size_shares.push(share(size_text)?);
        }
    }
    let access_total: u32 = access.iter().sum();
    if access_total != 100 {
        return Err(format!("access shares add up to {access_total}%, must be 100%"));
    }
    let sizes: Vec<ZoneSize> = if absolute {
        size_bytes.into_iter().map(ZoneSize::Bytes).collect()
    } else {
        fill_shares(&size_shares)?.into_iter().map(|p| ZoneSize::Percent(f64::from(p))).collect()
    };
    Ok(access.into_iter().zip(sizes).map(|(a, size)| Zone { access_pct: f64::from(a), size }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- bssplit ----

    #[test]
    fn bssplit_keeps_given_shares_sorted_like_fio() {
        assert_eq!(bssplit("4k/10:64k/50:32k/40", 1024), Ok(vec![(4096, 10.0), (32768, 40.0), (65536, 50.0)]));
    }

    #[test]
    fn bssplit_empty_shares_split_the_remainder() {
        assert_eq!(bssplit("4k/50:1k/:32k/", 1024), Ok(vec![(1024, 25.0), (32768, 25.0), (4096, 50.0)]));
        // A zero share counts as empty, as in fio.
        assert_eq!(bssplit("4k/0:8k/50", 1024), Ok(vec![(4096, 50.0), (8192, 50.0)]));
        // 100/3 leaves 1%, which fio's selection loop gives to the entry sorted last.
        assert_eq!(bssplit("4k:8k:16k", 1024), Ok(vec![(4096, 33.0), (8192, 33.0), (16384, 34.0)]));
        assert_eq!(bssplit("4k", 1024), Ok(vec![(4096, 100.0)]));
        assert_eq!(bssplit("4k/100:", 1024), Ok(vec![(4096, 100.0)]));
    }

    #[test]
    fn bssplit_short_of_100_gives_the_rest_to_the_largest_share() {
        assert_eq!(bssplit("4k/20:8k/30", 1024), Ok(vec![(4096, 20.0), (8192, 80.0)]));
    }

    #[test]
    fn bssplit_errors() {
        assert_eq!(bssplit("4k/60:8k/50", 1024), Err("shares add up to 110%, more than 100%".into()));
        assert_eq!(bssplit("4k/150", 1024), Err("share '150' must be a whole percentage 0..100".into()));
        assert_eq!(bssplit("4k/50::8k/50", 1024), Err("empty entry in the list".into()));
        assert_eq!(bssplit("0/100", 1024), Err("block size '0' must be 1 byte to 256 MiB".into()));
        assert_eq!(bssplit(&vec!["4k"; 65].join(":"), 1024), Err("at most 64 entries".into()));
        assert!(bssplit(&vec!["4k"; 64].join(":"), 1024).is_ok());
    }

    // ---- zones ----

    #[test]
    fn zoned_shares() {
        let z = zones("60/10:30/20:8/30:2/40", 1024, false).unwrap();
        assert_eq!(z.len(), 4);
        assert_eq!(z[0], Zone { access_pct: 60.0, size: ZoneSize::Percent(10.0) });
        assert_eq!(z[3], Zone { access_pct: 2.0, size: ZoneSize::Percent(40.0) });
        // Empty region shares split what is left.
        let z = zones("50/:50/", 1024, false).unwrap();
        assert_eq!(z[1], Zone { access_pct: 50.0, size: ZoneSize::Percent(50.0) });
    }

    #[test]
    fn zoned_abs_sizes() {
        let z = zones("60/20g:30/100g:10/500g", 1024, true).unwrap();
        assert_eq!(z[0], Zone { access_pct: 60.0, size: ZoneSize::Bytes(20 << 30) });
        assert_eq!(z[2], Zone { access_pct: 10.0, size: ZoneSize::Bytes(500 << 30) });
    }

    #[test]
    fn zone_errors() {
        assert_eq!(zones("60/10:30/20", 1024, false), Err("access shares add up to 90%, must be 100%".into()));
        assert_eq!(zones("60/50:40/60", 1024, false), Err("shares add up to 110%, more than 100%".into()));
        assert_eq!(zones("101/10", 1024, false), Err("access share '101' must be a whole percentage 0..100".into()));
        assert_eq!(zones("100", 1024, false), Err("zone '100' must be ACCESS%/SIZE, e.g. 60/10".into()));
        assert_eq!(zones("100/0", 1024, true), Err("zone '100/0' needs a size in bytes, e.g. 60/20g".into()));
    }
}
