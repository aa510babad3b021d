//! Named counters of a block target at one instant, for time series and per-group reports.
//!
//! A target appends its counters to a [`CounterRow`] under a prefix; a target built of
//! targets (a pool, a stripe) appends its own totals under its prefix and each part's under
//! a longer one, so one row describes a whole tree. Rows are taken a few times per simulated
//! second, never per I/O: a `String` per name is cheap enough.

/// One counter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counter {
    /// Name, prefixed by the targets above it (`special0.nand_write_bytes`).
    pub name: String,
    /// Value now.
    pub value: u64,
    /// A level at an instant (free superblocks, bytes cached) rather than a running total:
    /// over a span it is reported as its value at the end, not as a difference.
    pub level: bool,
}

/// Every counter of a target at simulated time `time_ns`, in the order the target gives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterRow {
    /// Simulated time the row was taken, ns (relative to whatever the taker chooses: the
    /// runner uses the run's start).
    pub time_ns: u64,
    /// The counters.
    pub entries: Vec<Counter>,
}

impl CounterRow {
    /// An empty row at `time_ns`.
    pub fn at(time_ns: u64) -> Self {
        CounterRow { time_ns, entries: Vec::new() }
    }

    /// Appends a running total.
    pub fn total(&mut self, prefix: &str, name: &str, value: u64) {
        self.entries.push(Counter { name: join(prefix, name), value, level: false });
    }

    /// Appends a level.
    pub fn level(&mut self, prefix: &str, name: &str, value: u64) {
        self.entries.push(Counter { name: join(prefix, name), value, level: true });
    }

    /// The value of counter `name`, if the row has it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.entries.iter().find(|c| c.name == name).map(|c| c.value)
    }

    /// Every counter over the span from `earlier` to `self`, by name, in this row's order:
    /// the difference for running totals (0 if `earlier` lacks it, so a counter that
    /// appeared counts from zero), the value now for levels.
    pub fn delta_since(&self, earlier: &CounterRow) -> Vec<(String, u64)> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let value = if c.level {
                    c.value
                } else {
                    // Rows of one target list their counters in the same order: try the same
                    // position before searching.
                    let before = match earlier.entries.get(i) {
                        Some(e) if e.name == c.name => Some(e.value),
                        _ => earlier.get(&c.name),
                    };
                    c.value.saturating_sub(before.unwrap_or(0))
                };
                (c.name.clone(), value)
            })
            .collect()
    }

    /// NAND (or media) bytes written per host byte written over the span from `earlier` to
    /// `self`, from the top-level `host_write_bytes` and `nand_write_bytes`; `None` if the
    /// host wrote nothing or the target counts no media writes.
    pub fn write_amplification_since(&self, earlier: &CounterRow) -> Option<f64> {
        self.ratio_since(earlier, "nand_write_bytes", "host_write_bytes")
    }

    /// Share of the bytes read over the span from `earlier` that were never written (read
    /// as zeros without touching the media), from the top-level `host_read_bytes` and
    /// `unmapped_read_bytes`; `None` if nothing was read or the target counts no such reads.
    pub fn unmapped_read_share_since(&self, earlier: &CounterRow) -> Option<f64> {
        self.ratio_since(earlier, "unmapped_read_bytes", "host_read_bytes")
    }

    /// The growth of running total `part` over that of `whole` since `earlier`; `None` if
    /// the row lacks either or `whole` did not grow.
    fn ratio_since(&self, earlier: &CounterRow, part: &str, whole: &str) -> Option<f64> {
        let delta = |name| Some(self.get(name)?.saturating_sub(earlier.get(name).unwrap_or(0)));
        let (part, whole) = (delta(part)?, delta(whole)?);
        (whole > 0).then(|| part as f64 / whole as f64)
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_string() } else { format!("{prefix}.{name}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t: u64, host: u64, nand: u64, free: u64) -> CounterRow {
        let mut r = CounterRow::at(t);
        r.total("", "host_write_bytes", host);
        r.total("", "nand_write_bytes", nand);
        r.level("", "free_superblocks", free);
        r
    }

    #[test]
    fn totals_are_differences_and_levels_are_end_values() {
        let d = row(2, 300, 900, 4).delta_since(&row(1, 100, 100, 9));
        assert_eq!(
            d,
            vec![("host_write_bytes".into(), 200), ("nand_write_bytes".into(), 800), ("free_superblocks".into(), 4)]
        );
    }

    #[test]
    fn write_amplification_needs_host_writes() {
        assert_eq!(row(2, 300, 900, 4).write_amplification_since(&row(1, 100, 100, 9)), Some(4.0));
        assert_eq!(row(2, 100, 900, 4).write_amplification_since(&row(1, 100, 100, 9)), None);
    }

    #[test]
    fn prefixes_name_the_part() {
        let mut r = CounterRow::at(0);
        r.total("special0", "nand_write_bytes", 5);
        assert_eq!(r.get("special0.nand_write_bytes"), Some(5));
        assert_eq!(r.get("nand_write_bytes"), None);
    }

    #[test]
    fn a_counter_that_appeared_counts_from_zero() {
        let mut later = row(2, 1, 1, 1);
        later.total("", "erases", 7);
        let d = later.delta_since(&row(1, 0, 0, 0));
        assert_eq!(d.last(), Some(&("erases".into(), 7)));
    }
}
