//! fio's value syntax (HOWTO "Parameter types"): sizes with `k m g t p` suffixes and
//! `kb_base`, percentages, times with units, booleans, ranges, float lists, and the
//! comma-separated per-direction lists (`read,write,trim`) many options take.
//!
//! Every parser returns `Err(allowed)`, a short text saying what would have been accepted;
//! the caller adds the place, option and value to make a [`JobError::BadValue`](crate::workload::JobError::BadValue)
//! (`crate::workload::JobError`). Nothing here panics, whatever the input.
//!
//! ssdtwin is stricter than fio 3.33 where fio silently misreads a value: fio reads
//! `runtime=1.5` as 1 s, `io_size=12.5%` as 12 bytes, `runtime=10sec` as 10 µs and
//! `bs=4kx` as 4 KiB; ssdtwin refuses each of them and says what to write instead.

use super::arith;

/// Largest block size ssdtwin accepts (256 MiB): larger I/Os exceed any real device's
/// maximum transfer size by orders of magnitude.
pub(super) const MAX_BLOCK_BYTES: u64 = 256 << 20;

/// Multiplier of a size suffix (`k`, `mi`, `GiB`, ...), fio 3.33's rules exactly.
///
/// fio's `kb_base` (1024 by default) is the base of the plain suffixes `k`, `kb` and — by
/// fio 3.33's code, though not its HOWTO — `ki`; only the full IEC spelling `kib` switches
/// to the other base. So with the default `kb_base=1024`, `4k` = `4ki` = 4096 and
/// `4kib` = 4000 (the "legacy inversion"); with `kb_base=1000`, `4k` = `4ki` = 4000 and
/// `4kib` = 4096. Checked against Debian's fio 3.33; the HOWTO's claim that `4ki` means
/// 4000 under `kb_base=1024` is fio issue #1618 (open in 3.33 through 3.41).
fn suffix_multiplier(suffix: &str, kb_base: u64) -> Option<u64> {
    let lower = suffix.to_ascii_lowercase();
    let mut chars = lower.chars();
    let Some(first) = chars.next() else { return Some(1) };
    let power = match first {
        'b' if lower.len() == 1 => return Some(1),
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        'p' => 5,
        _ => return None,
    };
    let base = match chars.as_str() {
        "" | "b" | "i" => kb_base,
        "ib" => {
            if kb_base == 1000 {
                1024
            } else {
                1000
            }
        }
        _ => return None,
    };
    base.checked_pow(power)
}

/// What a size may look like, for error messages.
fn size_help(kb_base: u64) -> String {
    format!("expected a whole number of bytes with an optional suffix k, m, g, t, p (kb_base={kb_base}), e.g. 4k")
}

/// A size in bytes: `4096`, `4k`, `1MiB`, `0x1000`, or an integer expression in
/// parentheses, `(2*4096)`.
pub(super) fn size(text: &str, kb_base: u64) -> Result<u64, String> {
    if text.starts_with('(') {
        return arith::evaluate(text, kb_base);
    }
    let (digits, rest, radix) = if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        let end = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
        (&hex[..end], &hex[end..], 16)
    } else {
        let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
        (&text[..end], &text[end..], 10)
    };
    if digits.is_empty() {
        return Err(size_help(kb_base));
    }
    if rest.starts_with('.') {
        return Err("fio reads only whole numbers here; use a smaller unit instead (e.g. 1536k for 1.5m)".into());
    }
    let number = u64::from_str_radix(digits, radix).map_err(|_| "number too large".to_string())?;
    let multiplier = suffix_multiplier(rest, kb_base).ok_or_else(|| size_help(kb_base))?;
    number.checked_mul(multiplier).ok_or_else(|| "number too large".to_string())
}

/// A size that may be a whole percentage of the device instead: `20%`.
pub(super) enum SizeOrPercent {
    /// Bytes.
    Bytes(u64),
    /// Whole percent, 0–100.
    Percent(u8),
    /// Zones of a zoned drive (`8z`, fio 3.26+).
    Zones(u64),
}

/// A size or a whole percentage (`size=20%`, `offset=10%`).
pub(super) fn size_or_percent(text: &str, kb_base: u64) -> Result<SizeOrPercent, String> {
    if let Some(zones) = text.strip_suffix('z')
        && !zones.is_empty()
        && zones.bytes().all(|b| b.is_ascii_digit())
    {
        return zones.parse().map(SizeOrPercent::Zones).map_err(|_| "number too large".into());
    }
    let Some(number) = text.strip_suffix('%') else {
        return size(text, kb_base).map(SizeOrPercent::Bytes);
    };
    if number.contains('.') {
        // fio 3.33 reads `12.5%` as 12 bytes; refuse rather than guess.
        return Err("percentages must be whole numbers (fio 3.33 misreads fractions)".into());
    }
    match number.parse::<u8>() {
        Ok(p) if p <= 100 => Ok(SizeOrPercent::Percent(p)),
        _ => Err("expected a size or a whole percentage 0%..100%".into()),
    }
}

/// A non-negative integer count (`iodepth`, `numjobs`, `number_ios`, `rate_iops`, ...).
///
/// fio reads these with the size parser, so `number_ios=1k` means 1024 (with
/// `kb_base=1024`); ssdtwin keeps that.
pub(super) fn count(text: &str, kb_base: u64) -> Result<u64, String> {
    size(text, kb_base).map_err(|_| "expected a whole number (suffixes k, m, g allowed)".into())
}

/// A count within `lo..=hi`.
pub(super) fn count_in(text: &str, kb_base: u64, lo: u64, hi: u64) -> Result<u64, String> {
    let allowed = || format!("allowed {lo}..={hi}");
    let n = count(text, kb_base).map_err(|_| allowed())?;
    if (lo..=hi).contains(&n) { Ok(n) } else { Err(allowed()) }
}

/// A plain decimal integer without suffixes (`log_avg_msec`, `kb_base`).
pub(super) fn plain_integer(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a whole number".into());
    }
    text.parse().map_err(|_| "number too large".into())
}

/// The unit a time value has when written without one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DefaultTimeUnit {
    /// `runtime`, `ramp_time`, `startdelay`.
    Seconds,
    /// `thinktime`.
    Microseconds,
}

/// A time, in nanoseconds: a whole number with an optional unit `d h m s ms msec us usec`
/// (case-insensitive; `m` is minutes). fio keeps times in microseconds, so every result
/// is a multiple of 1000.
pub(super) fn time_ns(text: &str, default_unit: DefaultTimeUnit) -> Result<u64, String> {
    const US: u64 = 1_000;
    const S: u64 = 1_000_000_000;
    let allowed = || {
        let unit = match default_unit {
            DefaultTimeUnit::Seconds => "seconds",
            DefaultTimeUnit::Microseconds => "microseconds",
        };
        format!("expected a whole number with an optional unit d, h, m, s, ms, us (default {unit}), e.g. 500ms")
    };
    let end = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (digits, unit) = text.split_at(end);
    if digits.is_empty() {
        return Err(allowed());
    }
    if unit.starts_with('.') {
        return Err("fio reads only whole numbers here; use a smaller unit instead (e.g. 1500ms)".into());
    }
    let per_unit_ns = match unit.to_ascii_lowercase().as_str() {
        "" => match default_unit {
            DefaultTimeUnit::Seconds => S,
            DefaultTimeUnit::Microseconds => US,
        },
        "us" | "usec" => US,
        "ms" | "msec" => 1_000 * US,
        "s" => S,
        "m" => 60 * S,
        "h" => 3_600 * S,
        "d" => 86_400 * S,
        _ => return Err(allowed()),
    };
    let number: u64 = digits.parse().map_err(|_| "number too large".to_string())?;
    number.checked_mul(per_unit_ns).ok_or_else(|| "time too large".to_string())
}

/// A boolean: `0` or `1`, as fio accepts (it has no `true`/`false`).
pub(super) fn boolean(text: &str) -> Result<bool, String> {
    match text {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err("expected 0 or 1 (fio does not accept true/false or yes/no)".into()),
    }
}

/// An inclusive size range `1k-4k` or `1k:4k`; a reversed range is swapped, as fio does.
pub(super) fn size_range(text: &str, kb_base: u64) -> Result<(u64, u64), String> {
    let Some((lo, hi)) = text.split_once('-').or_else(|| text.split_once(':')) else {
        return Err("expected a range like 1k-4k or 1k:4k".into());
    };
    let (a, b) = (size(lo, kb_base)?, size(hi, kb_base)?);
    Ok((a.min(b), a.max(b)))
}

/// A decimal number such as `99.9` (digits and at most one point; no signs, exponents
/// or `inf`).
pub(super) fn decimal(text: &str) -> Result<f64, String> {
    let well_formed = text.bytes().any(|b| b.is_ascii_digit())
        && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && text.bytes().filter(|&b| b == b'.').count() <= 1;
    if !well_formed {
        return Err("expected a decimal number such as 99.9".into());
    }
    text.parse().map_err(|_| "expected a decimal number such as 99.9".into())
}

/// Splits fio's per-direction list `read[,write][,trim]`.
///
/// fio 3.33's rules (checked with `bs`): one value sets all three directions; `a,b` sets
/// reads to `a` and writes and trims to `b`; `a,b,c` sets each; an empty part leaves its
/// direction as it was, so `bs=,8k,` changes only writes. `None` means "unchanged".
pub(super) fn per_direction(text: &str) -> Result<[Option<&str>; 3], String> {
    fn non_empty(s: &str) -> Option<&str> {
        if s.is_empty() { None } else { Some(s) }
    }
    let parts: Vec<&str> = text.split(',').collect();
    let dirs = match parts.as_slice() {
        [all] => [non_empty(all); 3],
        [read, write] => [non_empty(read), non_empty(write), non_empty(write)],
        [read, write, trim] => [non_empty(read), non_empty(write), non_empty(trim)],
        _ => return Err("at most three comma-separated values: read,write,trim".into()),
    };
    if dirs.iter().all(Option::is_none) {
        return Err("expected a value".into());
    }
    Ok(dirs)
}

/// Most CPUs a CPU list may name (fio's own limit is the machine's; ours is the host
/// profile's, checked when the job runs).
const MAX_CPU: u32 = 4095;

/// A CPU list `0,5,8-15` (`cpus_allowed=`), sorted and without repeats.
pub(super) fn cpu_list(text: &str) -> Result<Vec<u32>, String> {
    let allowed = || format!("expected CPU numbers and ranges such as 0,5,8-15 (CPUs 0..={MAX_CPU})");
    let cpu = |s: &str| s.parse::<u32>().ok().filter(|&c| c <= MAX_CPU).ok_or_else(allowed);
    let mut cpus = Vec::new();
    for part in text.split(',') {
        match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi) = (cpu(lo)?, cpu(hi)?);
                if lo > hi {
                    return Err(format!("range {part} runs backwards"));
                }
                cpus.extend(lo..=hi);
            }
            None => cpus.push(cpu(part)?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

/// A CPU bit mask (`cpumask=`, decimal or `0x` hex): the CPUs whose bits are set.
pub(super) fn cpu_mask(text: &str) -> Result<Vec<u32>, String> {
    let allowed = || "expected a non-zero bit mask of CPUs, decimal or 0x hex (e.g. 34 or 0x22 for CPUs 1 and 5)";
    let mask = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse::<u64>(),
    }
    .map_err(|_| allowed())?;
    if mask == 0 {
        return Err(allowed().into());
    }
    Ok((0..64).filter(|bit| mask & (1 << bit) != 0).collect())
}

/// One of `allowed` (fio's enumerated values are case-sensitive).
pub(super) fn one_of<'a>(text: &str, allowed: &[&'a str]) -> Result<&'a str, String> {
    allowed.iter().find(|&&a| a == text).copied().ok_or_else(|| format!("allowed {}", allowed.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- sizes and kb_base ----

    #[test]
    fn plain_suffixes_use_kb_base() {
        assert_eq!(size("4096", 1024), Ok(4096));
        assert_eq!(size("4k", 1024), Ok(4096));
        assert_eq!(size("4K", 1024), Ok(4096));
        assert_eq!(size("4kb", 1024), Ok(4096));
        assert_eq!(size("4KB", 1024), Ok(4096));
        assert_eq!(size("1m", 1024), Ok(1 << 20));
        assert_eq!(size("1g", 1024), Ok(1 << 30));
        assert_eq!(size("1t", 1024), Ok(1 << 40));
        assert_eq!(size("1p", 1024), Ok(1 << 50));
        assert_eq!(size("4096b", 1024), Ok(4096));
        assert_eq!(size("4096B", 1024), Ok(4096));
        assert_eq!(size("4k", 1000), Ok(4000));
        assert_eq!(size("1m", 1000), Ok(1_000_000));
    }

    #[test]
    fn kb_base_inversion_matches_fio_3_33() {
        // Default kb_base=1024: the IEC spelling means powers of 1000 (legacy inversion).
        assert_eq!(size("4kib", 1024), Ok(4000));
        assert_eq!(size("4KiB", 1024), Ok(4000));
        assert_eq!(size("1mib", 1024), Ok(1_000_000));
        // ... but fio 3.33 reads a bare `ki` like `k` (fio issue #1618), not as the HOWTO says.
        assert_eq!(size("4ki", 1024), Ok(4096));
        assert_eq!(size("1mi", 1024), Ok(1 << 20));
        // kb_base=1000: SI suffixes are powers of 1000, `kib` powers of 1024.
        assert_eq!(size("4kib", 1000), Ok(4096));
        assert_eq!(size("4KiB", 1000), Ok(4096));
        assert_eq!(size("4ki", 1000), Ok(4000));
    }

    #[test]
    fn hex_and_expressions() {
        assert_eq!(size("0x1000", 1024), Ok(4096));
        assert_eq!(size("0X10k", 1024), Ok(16 * 1024));
        assert_eq!(size("(2*4096)", 1024), Ok(8192));
    }

    #[test]
    fn malformed_sizes_are_refused() {
        let help = "expected a whole number of bytes with an optional suffix k, m, g, t, p (kb_base=1024), e.g. 4k";
        assert_eq!(size("4kx", 1024), Err(help.into()));
        assert_eq!(size("4 k", 1024), Err(help.into()));
        assert_eq!(size("k", 1024), Err(help.into()));
        assert_eq!(size("", 1024), Err(help.into()));
        assert_eq!(size("-4k", 1024), Err(help.into()));
        assert_eq!(
            size("1.5m", 1024),
            Err("fio reads only whole numbers here; use a smaller unit instead (e.g. 1536k for 1.5m)".into())
        );
        assert_eq!(size("99999999999999999999", 1024), Err("number too large".into()));
        assert_eq!(size("16384p", 1024), Err("number too large".into()));
    }

    #[test]
    fn percentages() {
        assert!(matches!(size_or_percent("20%", 1024), Ok(SizeOrPercent::Percent(20))));
        assert!(matches!(size_or_percent("8m", 1024), Ok(SizeOrPercent::Bytes(8_388_608))));
        assert_eq!(
            size_or_percent("12.5%", 1024).err(),
            Some("percentages must be whole numbers (fio 3.33 misreads fractions)".into())
        );
        assert_eq!(size_or_percent("101%", 1024).err(), Some("expected a size or a whole percentage 0%..100%".into()));
    }

    // ---- counts ----

    #[test]
    fn counts_take_size_suffixes_like_fio() {
        assert_eq!(count("32", 1024), Ok(32));
        assert_eq!(count("1k", 1024), Ok(1024));
        assert_eq!(count_in("0", 1024, 1, 65536), Err("allowed 1..=65536".into()));
        assert_eq!(count_in("65537", 1024, 1, 65536), Err("allowed 1..=65536".into()));
        assert_eq!(count_in("x", 1024, 1, 65536), Err("allowed 1..=65536".into()));
        assert_eq!(plain_integer("500"), Ok(500));
        assert_eq!(plain_integer("1k"), Err("expected a whole number".into()));
    }

    // ---- times ----

    #[test]
    fn time_suffixes_convert_to_ns() {
        use DefaultTimeUnit::{Microseconds, Seconds};
        assert_eq!(time_ns("2", Seconds), Ok(2_000_000_000));
        assert_eq!(time_ns("2", Microseconds), Ok(2_000));
        assert_eq!(time_ns("1d", Seconds), Ok(86_400_000_000_000));
        assert_eq!(time_ns("1h", Seconds), Ok(3_600_000_000_000));
        assert_eq!(time_ns("1m", Seconds), Ok(60_000_000_000));
        assert_eq!(time_ns("3s", Microseconds), Ok(3_000_000_000));
        assert_eq!(time_ns("500ms", Seconds), Ok(500_000_000));
        assert_eq!(time_ns("500msec", Seconds), Ok(500_000_000));
        assert_eq!(time_ns("250us", Seconds), Ok(250_000));
        assert_eq!(time_ns("250USEC", Seconds), Ok(250_000));
        assert_eq!(time_ns("10M", Seconds), Ok(600_000_000_000));
    }

    #[test]
    fn malformed_times_are_refused() {
        let help = "expected a whole number with an optional unit d, h, m, s, ms, us (default seconds), e.g. 500ms";
        // fio 3.33 reads `10sec` as 10 µs and `5ns` as 5 µs.
        assert_eq!(time_ns("10sec", DefaultTimeUnit::Seconds), Err(help.into()));
        assert_eq!(time_ns("5ns", DefaultTimeUnit::Seconds), Err(help.into()));
        assert_eq!(time_ns("", DefaultTimeUnit::Seconds), Err(help.into()));
        assert_eq!(
            time_ns("1.5", DefaultTimeUnit::Seconds),
            Err("fio reads only whole numbers here; use a smaller unit instead (e.g. 1500ms)".into())
        );
        assert_eq!(time_ns("999999999999d", DefaultTimeUnit::Seconds), Err("time too large".into()));
    }

    // ---- booleans, ranges, decimals ----

    #[test]
    fn cpu_lists_and_masks_name_the_same_cpus() {
        assert_eq!(cpu_list("0,5,8-10"), Ok(vec![0, 5, 8, 9, 10]));
        assert_eq!(cpu_list("3,1-2,2"), Ok(vec![1, 2, 3]));
        assert!(cpu_list("4-2").unwrap_err().contains("backwards"));
        assert!(cpu_list("a").unwrap_err().contains("0,5,8-15"));
        assert!(cpu_list("").is_err());
        assert_eq!(cpu_mask("34"), Ok(vec![1, 5]));
        assert_eq!(cpu_mask("0x22"), Ok(vec![1, 5]));
        assert!(cpu_mask("0").is_err());
    }

    #[test]
    fn booleans_are_0_or_1() {
        assert_eq!(boolean("0"), Ok(false));
        assert_eq!(boolean("1"), Ok(true));
        assert_eq!(boolean("true"), Err("expected 0 or 1 (fio does not accept true/false or yes/no)".into()));
    }

    #[test]
    fn ranges_accept_dash_or_colon_and_swap() {
        assert_eq!(size_range("1k-4k", 1024), Ok((1024, 4096)));
        assert_eq!(size_range("1k:4k", 1024), Ok((1024, 4096)));
        assert_eq!(size_range("4k-1k", 1024), Ok((1024, 4096)));
        assert_eq!(size_range("4k", 1024), Err("expected a range like 1k-4k or 1k:4k".into()));
    }

    #[test]
    fn decimals_are_plain() {
        assert_eq!(decimal("99.9"), Ok(99.9));
        assert_eq!(decimal("50"), Ok(50.0));
        for bad in ["", ".", "1e3", "inf", "-1", "1.2.3", "NaN"] {
            assert_eq!(decimal(bad), Err("expected a decimal number such as 99.9".into()), "{bad}");
        }
    }

    // ---- per-direction lists ----

    #[test]
    fn per_direction_follows_fio() {
        assert_eq!(per_direction("8k"), Ok([Some("8k"), Some("8k"), Some("8k")]));
        assert_eq!(per_direction("8k,32k"), Ok([Some("8k"), Some("32k"), Some("32k")]));
        assert_eq!(per_direction(",8k,"), Ok([None, Some("8k"), None]));
        assert_eq!(per_direction("8k,"), Ok([Some("8k"), None, None]));
        assert_eq!(per_direction("8k,16k,"), Ok([Some("8k"), Some("16k"), None]));
        assert_eq!(per_direction(",,2k"), Ok([None, None, Some("2k")]));
        assert_eq!(per_direction("1,2,3,4"), Err("at most three comma-separated values: read,write,trim".into()));
        assert_eq!(per_direction(",,"), Err("expected a value".into()));
    }
}
