//! The special-vdev planner: how big a special vdev must be for metadata alone and for each
//! `special_small_blocks` choice, and when one of a given size would stop taking small
//! blocks and start spilling metadata.
//!
//! Its input is what would go to the special class, measured one of two ways:
//!
//! * from a real pool's `zdb -bbb` (or `-bb`, `-Lbbbs`, `-P`) output: the "Metadata Total"
//!   row's ASIZE (every copy, at the pool's ashift) and the block-size histogram. The
//!   histogram bins *every* block by physical size, so small blocks below a threshold
//!   include small metadata blocks too: the estimate counts them twice and errs large (the
//!   recipe of the allocation-classes PR #5182 and the `Level1Techs` forum thread);
//! * from the model: a tree created on a pool ([`Plan::from_pool`]), every block's physical
//!   size and copies known exactly, rounded to the special vdev's allocation unit.
//!
//! Then for each threshold T (0 = metadata only): small data `S(T)` = allocated bytes of
//! data blocks with physical size ≤ T, metadata `M`, and
//!
//! ```text
//! size needed = M                              (T = 0: metadata may fill the class)
//!             = (M + S(T)) / (1 − reserve)     (T > 0: small blocks stop at 75 % full)
//! ```
//!
//! For a special vdev of `V` bytes, and more data of the same make-up (data × k): small
//! blocks stop when `k·(M + S) = (1 − reserve)·V`, and metadata spills when the special
//! class is full, `k_stop·S + k·M = V` (`spa_preferred_class`, `zio_dva_allocate`).

use super::error::OpError;
use super::objects::{self, Psize};
use super::vdev::Dva;
use super::{AllocClass, Pool};

/// What would go to the special class.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Where the figures come from.
    pub source: String,
    /// Metadata bytes allocated on special (every copy).
    pub metadata_bytes: u64,
    /// Data blocks by physical size: `(psize, count, allocated bytes on special)`, rising.
    pub data_blocks: Vec<(u64, u64, u64)>,
    /// Bytes of data allocated in all (the growth measure).
    pub data_bytes: u64,
    /// Whether small sizes include metadata blocks (a zdb histogram).
    pub includes_metadata: bool,
}

/// One `special_small_blocks` choice.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanRow {
    /// The threshold, bytes (0: metadata only).
    pub special_small_blocks_bytes: u64,
    /// Metadata, bytes.
    pub metadata_bytes: u64,
    /// Small data blocks, bytes.
    pub small_data_bytes: u64,
    /// The smallest special vdev that holds it all without redirecting small blocks, bytes.
    pub needed_bytes: u64,
    /// For the special vdev given: data written (of this make-up) when small blocks stop
    /// going to special, bytes.
    pub small_blocks_stop_at_data_bytes: Option<u64>,
    /// … and when metadata starts to spill to the normal class, bytes.
    pub metadata_spills_at_data_bytes: Option<u64>,
}

impl Plan {
    /// The plan of what a tree created on `pool` put (or would put) on a special vdev of
    /// 2^`special_ashift`-byte sectors: every metadata block's copies and every data block,
    /// each rounded to that unit.
    pub fn from_pool(pool: &Pool, special_ashift: u8) -> Plan {
        let unit = 1u64 << special_ashift;
        let round = |p: u64| p.div_ceil(unit) * unit;
        let mut metadata = 0;
        let mut data: std::collections::BTreeMap<u64, (u64, u64)> = std::collections::BTreeMap::new();
        let mut data_bytes = 0;
        let copies_of = |dva: &[Dva; 3]| dva.iter().filter(|d| d.is_allocated()).count() as u64;
        for b in &pool.mos {
            metadata += copies_of(&b.dva) * round(u64::from(b.psize));
        }
        for (dva, psize) in &pool.txg.log_spacemaps {
            metadata += copies_of(dva) * round(*psize);
        }
        for d in &pool.datasets {
            for b in &d.meta {
                metadata += copies_of(&b.dva) * round(u64::from(b.psize));
            }
            if let Some(t) = &d.tree {
                for f in 0..t.tree.files() {
                    let (n, lsize) = objects::file_blocks(t.tree.file_bytes[f], d.cfg.recordsize_bytes);
                    for blk in 0..n {
                        let content = (t.tree.file_bytes[f] - blk * lsize).min(lsize);
                        let class = &t.tree.classes[t.tree.file_class[f] as usize];
                        let (compress, compressed) = objects::compressed_data(&d.cfg, class, content);
                        if let Psize::Bytes(p) = pool.sizing.psize(lsize, compressed, compress, true) {
                            let e = data.entry(p).or_default();
                            e.0 += t.copies as u64;
                            e.1 += t.copies as u64 * round(p);
                            data_bytes += t.copies as u64 * p;
                        }
                    }
                }
            }
        }
        Plan {
            source: format!("model of pool '{}'", pool.config.name),
            metadata_bytes: metadata,
            data_blocks: data.into_iter().map(|(p, (n, b))| (p, n, b)).collect(),
            data_bytes,
            includes_metadata: false,
        }
    }

    /// Reads `zdb -bb`/`-bbb` output (human-readable or `-P`); each small block takes at
    /// least one 2^`special_ashift`-byte sector on the special vdev. `source` labels errors.
    pub fn from_zdb(text: &str, source: &str, special_ashift: u8) -> Result<Plan, OpError> {
        let bad = |line: usize, problem: &str| OpError::Input { file: source.into(), line, problem: problem.into() };
        let mut metadata = None;
        let mut hist_at = None;
        for (i, line) in text.lines().enumerate() {
            if line.trim_end().ends_with("Metadata Total") {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let asize = fields.get(3).and_then(|f| parse_nicenum(f)).ok_or_else(|| {
                    bad(i + 1, "the Metadata Total row needs its Blocks, LSIZE, PSIZE and ASIZE columns")
                })?;
                metadata = Some(asize);
            }
            if line.trim() == "Block Size Histogram" {
                hist_at = Some(i);
            }
        }
        let metadata = metadata.ok_or_else(|| {
            bad(1, "no 'Metadata Total' row: give the output of zdb -bb or -bbb (zdb -Lbbbs POOL is fastest)")
        })?;
        let start = hist_at.ok_or_else(|| {
            bad(1, "no 'Block Size Histogram': give zdb -bb or -bbb output from OpenZFS 2.1 or later")
        })?;
        let mut data = Vec::new();
        let mut data_bytes = 0;
        for (i, line) in text.lines().enumerate().skip(start + 1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let Some(label) = fields.first() else { continue };
            let Some(size) = parse_nicenum(label.trim_end_matches(':')) else { continue };
            if !size.is_power_of_two() || fields.len() < 10 {
                continue;
            }
            let num = |k: usize| {
                parse_nicenum(fields[k]).ok_or_else(|| bad(i + 1, &format!("'{}' is not a number", fields[k])))
            };
            let (count, bytes) = (num(1)?, num(2)?);
            let abytes = num(8)?;
            if count > 0 {
                data.push((size, count, bytes.max(count.saturating_mul(1 << special_ashift))));
            }
            data_bytes += abytes;
        }
        if data.is_empty() && data_bytes == 0 {
            return Err(bad(start + 1, "the histogram has no rows of the form 'SIZE: count size cum ...'"));
        }
        Ok(Plan {
            source: source.into(),
            metadata_bytes: metadata,
            data_blocks: data,
            data_bytes,
            includes_metadata: true,
        })
    }

    /// The plan for each threshold in `thresholds` (0 = metadata only), for a special vdev
    /// of `special_bytes` if one is given.
    pub fn rows(&self, thresholds: &[u64], special_bytes: Option<u64>, reserve_pct: u64) -> Vec<PlanRow> {
        let keep = 100 - reserve_pct.min(99);
        thresholds
            .iter()
            .map(|&t| {
                let small: u64 =
                    if t == 0 { 0 } else { self.data_blocks.iter().filter(|b| b.0 <= t).map(|b| b.2).sum() };
                let m = self.metadata_bytes;
                let needed = if t == 0 { m } else { (u128::from(m + small) * 100).div_ceil(u128::from(keep)) as u64 };
                let (stop, spill) = match special_bytes {
                    Some(v) if m + small > 0 => {
                        let v = v as f64;
                        let (m, s) = (m as f64, small as f64);
                        let k_stop = if t == 0 || s == 0.0 { None } else { Some(v * keep as f64 / 100.0 / (m + s)) };
                        let k_spill = match k_stop {
                            Some(k) => (v - k * s) / m.max(1.0),
                            None => v / m.max(1.0),
                        };
                        let data = self.data_bytes as f64;
                        (k_stop.map(|k| (k * data) as u64), Some((k_spill * data) as u64))
                    }
                    _ => (None, None),
                };
                PlanRow {
                    special_small_blocks_bytes: t,
                    metadata_bytes: m,
                    small_data_bytes: small,
                    needed_bytes: needed,
                    small_blocks_stop_at_data_bytes: stop,
                    metadata_spills_at_data_bytes: spill,
                }
            })
            .collect()
    }
}

/// The special class's size of `pool`, if it has one.
pub fn special_bytes(pool: &Pool) -> Option<u64> {
    let s = pool.class_space(AllocClass::Special);
    (s > 0).then_some(s)
}

/// Reads a number as zdb prints it: plain digits, or `zfs_nicenum`'s `1.04M`, `416M`, `50.2T`
/// (powers of 1024); `-` is 0.
pub fn parse_nicenum(text: &str) -> Option<u64> {
    if text == "-" {
        return Some(0);
    }
    super::config::parse_size(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZDB: &str = "\
Traversing all blocks to verify nothing leaked ...

\tbp count:              14213
Blocks\tLSIZE\tPSIZE\tASIZE\t  avg\t comp\t%Total\tType
  1.2K\t 15.6M\t 4.80M\t 9.61M\t8.00K\t 3.25\t  1.00\tMetadata Total

Block Size Histogram
(note: all categories are binned separately)

  block   psize                lsize                asize
   size   Count   Size   Cum.  Count   Size   Cum.  Count   Size   Cum.
    512:      0      0      0      0      0      0      0      0      0
     4K:  1.00K  4.00M  4.00M      0      0      0  1.00K  4.00M  4.00M
    16K:    100  1.56M  5.56M      0      0      0    100  1.56M  5.56M
   128K:  1.00K   125M   131M  1.10K   138M   138M  1.00K   125M   131M
";

    #[test]
    fn zdb_output_gives_metadata_and_the_size_histogram() {
        let p = Plan::from_zdb(ZDB, "zdb.txt", 12).unwrap();
        assert_eq!(p.metadata_bytes, (9.61 * 1_048_576.0_f64).round() as u64);
        assert_eq!(p.data_blocks, vec![(4096, 1024, 4 << 20), (16384, 100, 1_635_779), (131_072, 1024, 125 << 20)]);
        let rows = p.rows(&[0, 4096, 16384], None, 25);
        assert_eq!(rows[0].needed_bytes, p.metadata_bytes, "metadata alone may fill the class");
        // 4K: (M + 4 MiB) / 0.75.
        assert_eq!(rows[1].needed_bytes, ((p.metadata_bytes + (4 << 20)) * 4).div_ceil(3));
        assert!(rows[2].needed_bytes > rows[1].needed_bytes);
    }

    #[test]
    fn spill_points_follow_the_reserve() {
        let p = Plan {
            source: String::new(),
            metadata_bytes: 100,
            data_blocks: vec![(4096, 1, 200)],
            data_bytes: 10_000,
            includes_metadata: false,
        };
        // A 1000-byte special vdev: small blocks stop when 3 x data reaches 750 (k = 2.5),
        // then metadata alone grows to the rest: 2.5 x 200 + k x 100 = 1000, k = 5.
        let r = &p.rows(&[4096], Some(1000), 25)[0];
        assert_eq!(r.small_blocks_stop_at_data_bytes, Some(25_000));
        assert_eq!(r.metadata_spills_at_data_bytes, Some(50_000));
        let r = &p.rows(&[0], Some(1000), 25)[0];
        assert_eq!((r.small_blocks_stop_at_data_bytes, r.metadata_spills_at_data_bytes), (None, Some(100_000)));
    }

    #[test]
    fn bad_zdb_output_names_the_line() {
        let e = Plan::from_zdb("nothing here\n", "zdb.txt", 12).unwrap_err().to_string();
        assert!(e.starts_with("zdb.txt:1: no 'Metadata Total' row"), "{e}");
        let text = ZDB.replace("1.00K  4.00M  4.00M      0", "1.00K  4.0xM  4.00M      0");
        let e = Plan::from_zdb(&text, "z", 12).unwrap_err();
        assert!(e.to_string().starts_with("z:13: '4.0xM' is not a number"), "{e}");
    }
}
