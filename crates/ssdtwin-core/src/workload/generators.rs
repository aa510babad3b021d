//! Generators of block sizes and offsets, following fio's `io_u.c`, `lib/zipf.c`,
//! `lib/gauss.c` and `lib/axmap.c`.
//!
//! Offsets are chosen in units of an alignment (the direction's smallest block size, as fio
//! does) over a region of `blocks` such units. Uniform random offsets use fio's random map
//! unless `norandommap` is set or the distribution is not uniform: every block is visited
//! once per pass, and a block already visited is replaced by the next free one after it.
//! Skewed distributions draw a rank and scatter it over the region with a hash, as fio does,
//! so hot blocks are not all at the start (unless a centre is given).

use super::random_map::RandomMap;
use super::{BlockSize, Distribution, ZoneSize};
use crate::engine::SimRng;

/// Chooses block sizes for one direction.
#[derive(Clone, Debug)]
pub(crate) enum BsChooser {
    Fixed(u64),
    Range { min: u64, steps: u64 },
    Split { sizes: Vec<u64>, cumulative: Vec<f64> },
}

impl BsChooser {
    pub(crate) fn new(bs: &BlockSize) -> Self {
        match bs {
            BlockSize::Fixed(b) => BsChooser::Fixed(*b),
            BlockSize::Range { min, max } => BsChooser::Range { min: *min, steps: max / min },
            BlockSize::Split(entries) => {
                let mut acc = 0.0;
                let cumulative = entries
                    .iter()
                    .map(|(_, pct)| {
                        acc += pct;
                        acc
                    })
                    .collect();
                BsChooser::Split { sizes: entries.iter().map(|(b, _)| *b).collect(), cumulative }
            }
        }
    }

    #[inline]
    pub(crate) fn next(&self, rng: &mut SimRng) -> u64 {
        match self {
            BsChooser::Fixed(b) => *b,
            BsChooser::Range { min, steps } => min * (1 + rng.below(*steps)),
            BsChooser::Split { sizes, cumulative } => {
                let total = cumulative.last().copied().unwrap_or(100.0);
                let x = rng.unit_f64() * total;
                let i = cumulative.iter().position(|&c| x < c).unwrap_or(sizes.len() - 1);
                sizes[i]
            }
        }
    }
}

/// A 64-bit mixer (splitmix64's finaliser) used to scatter ranks over the region, in the
/// role of fio's `__hash_u64`.
#[inline]
fn scatter(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Zipf ranks by rejection-inversion (Hörmann & Derflinger, "Rejection-inversion to generate
/// variates from monotone discrete distributions", 1996): O(1) per draw for any exponent.
#[derive(Clone, Debug)]
pub(crate) struct Zipf {
    n: f64,
    s: f64,
    h_x1: f64,
    h_n: f64,
    cut: f64,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Self {
        let n = n as f64;
        let h = |x: f64| Self::h(x, s);
        let h_x1 = h(1.5) - 1.0;
        let h_n = h(n + 0.5);
        let cut = 2.0 - Self::h_inv(h(2.5) - 2f64.powf(-s), s);
        Zipf { n, s, h_x1, h_n, cut }
    }

    /// Integral of x^-s, shifted so that it is well defined at s = 1.
    fn h(x: f64, s: f64) -> f64 {
        let l = x.ln();
        if (s - 1.0).abs() < 1e-9 { l } else { ((1.0 - s) * l).exp_m1() / (1.0 - s) }
    }

    /// Inverse of [`Zipf::h`].
    fn h_inv(x: f64, s: f64) -> f64 {
        if (s - 1.0).abs() < 1e-9 { x.exp() } else { (((1.0 - s) * x).ln_1p() / (1.0 - s)).exp() }
    }

    /// A rank in `0..n` (0 is the most popular).
    fn next(&self, rng: &mut SimRng) -> u64 {
        loop {
            let u = self.h_n + rng.unit_f64() * (self.h_x1 - self.h_n);
            let x = Self::h_inv(u, self.s);
            let k = (x + 0.5).floor().clamp(1.0, self.n);
            if k - x <= self.cut || u >= Self::h(k + 0.5, self.s) - k.powf(-self.s) {
                return k as u64 - 1;
            }
        }
    }
}

/// Chooses random block indices in `0..blocks` for one direction.
#[derive(Clone, Debug)]
pub(crate) enum OffsetChooser {
    Uniform { blocks: u64, map: Option<RandomMap> },
    Zipf { blocks: u64, zipf: Zipf, offset: Option<u64> },
    Pareto { blocks: u64, pow: f64, offset: Option<u64> },
    Normal { blocks: u64, center: f64, sigma: f64 },
    Zoned { zones: Vec<(f64, u64, u64)> },
}

impl OffsetChooser {
    /// `blocks` units of `align` bytes in the region; absolute zones (`zoned_abs`) are given
    /// in bytes and converted with `align`; `random_map` enables fio's random map for
    /// uniform offsets.
    pub(crate) fn new(dist: &Distribution, blocks: u64, align: u64, random_map: bool) -> Self {
        let blocks = blocks.max(1);
        let center_off = |c: Option<f64>| c.map(|c| (c * blocks as f64) as u64 % blocks);
        match dist {
            Distribution::Random => OffsetChooser::Uniform { blocks, map: random_map.then(|| RandomMap::new(blocks)) },
            Distribution::Zipf { theta, center } => {
                OffsetChooser::Zipf { blocks, zipf: Zipf::new(blocks, *theta), offset: center_off(*center) }
            }
            Distribution::Pareto { h, center } => {
                // fio: n = (nranges - 1) * rand^(log(h) / log(1 - h)).
                OffsetChooser::Pareto { blocks, pow: h.ln() / (1.0 - h).ln(), offset: center_off(*center) }
            }
            Distribution::Normal { sigma_pct, center } => OffsetChooser::Normal {
                blocks,
                center: center * blocks as f64,
                sigma: sigma_pct / 100.0 * blocks as f64,
            },
            Distribution::Zoned(zones) => {
                let mut start = 0u64;
                let mut acc = 0.0;
                let mut out = Vec::with_capacity(zones.len());
                for z in zones {
                    let len = match z.size {
                        ZoneSize::Percent(p) => (blocks as f64 * p / 100.0).round() as u64,
                        ZoneSize::Bytes(b) => b / align,
                    }
                    .clamp(1, blocks.saturating_sub(start).max(1));
                    acc += z.access_pct;
                    out.push((acc, start.min(blocks - 1), len));
                    start += len;
                }
                OffsetChooser::Zoned { zones: out }
            }
        }
    }

    /// Forgets which blocks the random map has visited (fio's `axmap_reset`).
    pub(crate) fn reset_map(&mut self) {
        if let OffsetChooser::Uniform { blocks, map: Some(m) } = self {
            *m = RandomMap::new(*blocks);
        }
    }

    /// The next block index: [`OffsetChooser::draw`] then [`OffsetChooser::settle`].
    #[cfg(test)]
    pub(crate) fn next(&mut self, rng: &mut SimRng) -> u64 {
        let raw = self.draw(rng);
        self.settle(raw)
    }

    /// Turns a drawn value into a block: under the random map, the drawn block or the next
    /// free one. Drawing and settling are split so the runner can draw one I/O ahead and
    /// touch the map early ([`OffsetChooser::touch`]), hiding a cache miss.
    #[inline]
    pub(crate) fn settle(&mut self, raw: u64) -> u64 {
        match self {
            OffsetChooser::Uniform { map: Some(m), .. } => m.claim(raw),
            _ => raw,
        }
    }

    /// Loads the random-map memory `raw` will consult (a slot of the set or a word of the
    /// bitmap), so it is cached when settled.
    #[inline]
    pub(crate) fn touch(&self, raw: u64) {
        if let OffsetChooser::Uniform { map: Some(m), .. } = self {
            m.touch(raw);
        }
    }

    /// Draws the next value (a block, before the random map is consulted).
    #[inline]
    pub(crate) fn draw(&mut self, rng: &mut SimRng) -> u64 {
        match self {
            OffsetChooser::Uniform { blocks, .. } => rng.below(*blocks),
            OffsetChooser::Zipf { blocks, zipf, offset } => place(zipf.next(rng), *blocks, *offset),
            OffsetChooser::Pareto { blocks, pow, offset } => {
                let rank = ((*blocks - 1) as f64 * rng.unit_f64().powf(*pow)) as u64;
                place(rank, *blocks, *offset)
            }
            OffsetChooser::Normal { blocks, center, sigma } => {
                // Box–Muller; values outside the region wrap, as fio's gauss does by modulo.
                let u1 = rng.unit_f64().max(f64::MIN_POSITIVE);
                let u2 = rng.unit_f64();
                let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                let v = (*center + z * *sigma).round() as i64;
                v.rem_euclid(i64::try_from(*blocks).expect("a region holds fewer than 2^63 blocks")) as u64
            }
            OffsetChooser::Zoned { zones } => {
                let total = zones.last().map_or(100.0, |z| z.0);
                let x = rng.unit_f64() * total;
                let &(_, start, len) = zones.iter().find(|z| x < z.0).unwrap_or(&zones[zones.len() - 1]);
                start + rng.below(len)
            }
        }
    }
}

/// A rank placed in the region: scattered by hash, or counted from a centre.
#[inline]
fn place(rank: u64, blocks: u64, offset: Option<u64>) -> u64 {
    match offset {
        Some(o) => (rank + o) % blocks,
        None => scatter(rank) % blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_rank_frequencies_follow_the_power_law() {
        let z = Zipf::new(1000, 1.2);
        let mut rng = SimRng::stream(2, 1);
        let mut counts = [0u64; 3];
        let n = 200_000;
        for _ in 0..n {
            let r = z.next(&mut rng);
            if r < 3 {
                counts[r as usize] += 1;
            }
        }
        // P(rank k) ∝ k^-1.2, so count(1)/count(2) ≈ 2^1.2 and count(1)/count(3) ≈ 3^1.2.
        let r12 = counts[0] as f64 / counts[1] as f64;
        let r13 = counts[0] as f64 / counts[2] as f64;
        assert!((r12 - 2f64.powf(1.2)).abs() < 0.1, "{r12}");
        assert!((r13 - 3f64.powf(1.2)).abs() < 0.2, "{r13}");
    }

    #[test]
    fn zoned_puts_the_access_share_in_each_zone() {
        let zones = vec![
            super::super::Zone { access_pct: 80.0, size: ZoneSize::Percent(10.0) },
            super::super::Zone { access_pct: 20.0, size: ZoneSize::Percent(90.0) },
        ];
        let mut c = OffsetChooser::new(&Distribution::Zoned(zones), 1000, 4096, false);
        let mut rng = SimRng::stream(3, 1);
        let hot = (0..100_000).filter(|_| c.next(&mut rng) < 100).count();
        assert!((hot as f64 / 100_000.0 - 0.8).abs() < 0.01, "{hot}");
    }

    #[test]
    fn split_block_sizes_follow_their_weights() {
        let c = BsChooser::new(&BlockSize::Split(vec![(4096, 75.0), (65536, 25.0)]));
        let mut rng = SimRng::stream(4, 1);
        let small = (0..100_000).filter(|_| c.next(&mut rng) == 4096).count();
        assert!((small as f64 / 100_000.0 - 0.75).abs() < 0.01);
    }
}
