//! fio's `num2str` (lib/num2str.c): how fio shortens a number to a few significant digits
//! with a unit prefix, e.g. `104k`, `44.4k`, `406MiB/s`, `426MB/s`.
//!
//! The algorithm, kept with its quirks ("complete with carry rounding error", as fio's
//! comment says): divide by 1000 (or 1024) until the integer part has at most `maxlen`
//! digits, remembering the last remainder. If nothing was divided, print the number. If the
//! integer part leaves at most one character of room, round up when the remainder was at
//! least half a unit. Otherwise print the remainder as a fraction of the unit with
//! `maxlen - digits - 1` decimals (and carry into the integer part if that rounds to 1).

/// Unit suffixes (`enum n2s_unit`; the bit units are not used by ssdtwin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// No suffix (IOPS, latencies).
    None,
    /// `B` (amounts of data).
    Byte,
    /// `B/s` (bandwidth; fio's default `unit_base`).
    BytePerSec,
}

impl Unit {
    fn suffix(self) -> &'static str {
        match self {
            Unit::None => "",
            Unit::Byte => "B",
            Unit::BytePerSec => "B/s",
        }
    }
}

/// SI and IEC prefixes, in fio's order.
const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// `num2str(num, maxlen, base, pow2, units)`: `num` counts units of `base` (1 for plain
/// numbers, 1024 for KiB...), `maxlen` is the number of significant characters (fio's
/// `sig_figs`, 4 by default; 6 for latencies), `pow2` picks 1024 and IEC prefixes.
pub(crate) fn num2str(mut num: u64, maxlen: usize, mut base: u64, pow2: bool, unit: Unit) -> String {
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let prefixes = if pow2 { &IEC } else { &SI };

    let mut post_index = 0;
    while base > 1 {
        base /= thousand;
        post_index += 1;
    }

    let digits = |n: u64| n.to_string().len();
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post_index < prefixes.len() {
        if digits(num) <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post_index += 1;
    }
    if post_index >= prefixes.len() {
        post_index = 0;
    }
    let suffix = format!("{}{}", prefixes[post_index], unit.suffix());

    let Some(modulo) = modulo else {
        return format!("{num}{suffix}");
    };
    // Room for a point and at least one decimal?
    let int_digits = digits(num);
    if maxlen <= int_digits + 1 {
        if carry {
            num += 1;
        }
        return format!("{num}{suffix}");
    }
    let decimals = maxlen - int_digits - 1;
    let fraction = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    if fraction.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{suffix}", &fraction[2..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shortened number in fio-3.33/randread-normal.txt, from the exact values behind
    /// it (104047 reads and 44408 writes of 4 KiB in 1001 ms).
    #[test]
    fn reference_output_values() {
        let read_bytes = 104_047u64 * 4096;
        let write_bytes = 44_408u64 * 4096;
        let read_bw = read_bytes * 1000 / 1001;
        let write_bw = write_bytes * 1000 / 1001;
        assert_eq!(num2str(104_047 * 1000 / 1001, 4, 1, false, Unit::None), "104k");
        assert_eq!(num2str(44_408 * 1000 / 1001, 4, 1, false, Unit::None), "44.4k");
        assert_eq!(num2str(read_bw, 4, 1, true, Unit::BytePerSec), "406MiB/s");
        assert_eq!(num2str(read_bw, 4, 1, false, Unit::BytePerSec), "426MB/s");
        assert_eq!(num2str(write_bw, 4, 1, true, Unit::BytePerSec), "173MiB/s");
        assert_eq!(num2str(write_bw, 4, 1, false, Unit::BytePerSec), "182MB/s");
        assert_eq!(num2str(read_bytes, 4, 1, true, Unit::Byte), "406MiB");
        assert_eq!(num2str(read_bytes, 4, 1, false, Unit::Byte), "426MB");
        assert_eq!(num2str(write_bytes, 4, 1, true, Unit::Byte), "173MiB");
        assert_eq!(num2str(write_bytes, 4, 1, false, Unit::Byte), "182MB");
        assert_eq!(num2str(4096, 4, 1, true, Unit::Byte), "4096B");
        // Latency minima and maxima print with six significant characters.
        assert_eq!(num2str(855, 6, 1, false, Unit::None), "855");
        assert_eq!(num2str(72_544, 6, 1, false, Unit::None), "72544");
        assert_eq!(num2str(2161, 6, 1, false, Unit::None), "2161");
    }

    #[test]
    fn decimals_carry_and_base() {
        assert_eq!(num2str(896_090_123, 6, 1, false, Unit::None), "896090k");
        assert_eq!(num2str(1_234_567, 6, 1, false, Unit::None), "1234.6k");
        assert_eq!(num2str(65_536, 4, 1, true, Unit::Byte), "64.0KiB");
        assert_eq!(num2str(131_072, 4, 1, true, Unit::Byte), "128KiB");
        assert_eq!(num2str(1_048_576, 4, 1, true, Unit::Byte), "1024KiB");
        // 99 996 -> 99k remainder 996 -> one decimal rounds to 1.0: the integer part carries.
        assert_eq!(num2str(99_996, 4, 1, false, Unit::None), "100.0k");
        // A value already in KiB.
        assert_eq!(num2str(2048, 4, 1024, true, Unit::Byte), "2048KiB");
        assert_eq!(num2str(0, 4, 1, false, Unit::None), "0");
        assert_eq!(num2str(u64::MAX, 4, 1, false, Unit::None), "18.4E");
    }
}
