//! GC steady state without simulating every write: uniform random overwrites of a span,
//! followed superblock by superblock.
//!
//! Under uniform random overwrites every valid unit of the span is equally likely to be the
//! next one invalidated, whatever it holds, so which *units* go invalid inside a superblock
//! does not matter to GC: only how many each superblock still holds. This module runs the
//! drive's own process on those counts. The host frontier fills a superblock at a time; the
//! `r` writes that fill it invalidate `r` units, of which the host superblock's own loses
//! each with probability (its valid units) / (span) in turn, and the rest are drawn without
//! replacement from the other superblocks' valid units (a multivariate hypergeometric draw,
//! one hypergeometric per superblock). GC runs, as in a drive written as fast as it accepts
//! writes, when a host superblock must open and fewer than one beyond the reserve host
//! writes may borrow (`Ftl::host_can_borrow`: timed GC keeps the free pool there under
//! sustained writes), choosing victims with the configured policy on the counts, moving their
//! valid units to the GC frontier and erasing them. At the end GC collects until free space
//! is back above the background threshold, as a timed drive does before it is quiet, and the
//! open program units are padded.
//!
//! Then a map is laid out that has those counts: in each superblock a uniformly chosen set
//! of its written units is valid (as uniform invalidation leaves it), and the span's logical
//! units are dealt to the valid units in physical order like cards: the deck is the span in
//! blocks of 16 consecutive logical units (one cache line of L2P), taken in a random order
//! (a keyed Feistel permutation, so no table of the order is kept), and each valid unit
//! draws a random card from a hand of 1,024 that is topped up a block at a time. So any
//! range of logical units spreads over the whole drive, consecutive units land on
//! different program units and dies, and the L2P is written in a few hundred cache lines
//! at a time while the P2L is written in order. Counters, erase counts, superblock ages and
//! frontiers are those of the process, and so is wear: superblocks open where the
//! wear-levelling policy picks (`Ftl::open_next`), and every victim is erased through
//! `Ftl::erase_untimed`, die by die, so each of its blocks counts the P/E cycle (in the mode
//! it was written in), and a block reaching its endurance fails into a spare or retires its
//! superblock, as in any erase. Static wear levelling's migrations run at the end, once GC
//! has nothing to do (as `Ftl::gc_untimed` runs them). A cancelled fill leaves the drive
//! formatted (`Ftl::format`), its wear as the erases done so far left it.
//!
//! Cost: O(superblocks) per superblock written, a bisection for each write that lands on
//! the host superblock's own units (the writes between two such are drawn at once), one
//! random draw per physical unit and the map's memory written once, backed by the kernel
//! on a second thread while the counts run; docs/model.md § "Bulk fill and snapshots" says
//! what it leaves out.

use super::map::LayoutArrays;
use super::{Ftl, SbState, Stream};
use crate::engine::SimRng;

/// Logical units dealt out together (see the module doc): 64 bytes of L2P.
const DEAL_BLOCK: u64 = 16;
/// Cards in the dealer's hand.
const HAND: usize = 1024;
/// Blocks whose L2P lines are fetched together, a burst ahead of their deal.
const FETCH_BURST: u64 = 64;

/// Why a steady-state fill cannot run on this drive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SteadyRefusal {
    /// An SLC cache places host writes unit by unit.
    SlcCache,
    /// The drive's mapped data is not exactly the span (write the span first).
    NotTheSpan,
    /// Writes would find no room: GC has nothing to collect.
    NoRoom,
    /// The observer asked to stop.
    Cancelled,
}

impl Ftl {
    /// True if [`Ftl::steady_fill`] can run on `span`: no SLC cache, and the span's units,
    /// all of them, are the only ones mapped.
    pub fn can_sample_steady(&self, span: u64) -> bool {
        !self.slc.enabled() && self.mapped_units() == span && self.map.all_mapped(0..span)
    }

    /// Overwrites the span `0..span` at random `writes` times, as uniform random 4 KiB writes
    /// with GC would, sampled superblock by superblock (module doc); `version(lpn)` gives each
    /// logical unit's data version in verify mode. The span must be exactly what is mapped,
    /// with no SLC cache; `observe(writes_done)` is called after every superblock of writes
    /// and stops the fill (leaving the drive empty) by returning false. A fill that runs out
    /// of room (blocks worn out and retired with their superblocks, nothing left to collect)
    /// leaves the drive empty too, its wear as the erases so far left it.
    pub fn steady_fill(
        &mut self,
        span: u64,
        writes: u64,
        seed: u64,
        mut version: impl FnMut(u64) -> u32,
        observe: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(), SteadyRefusal> {
        if self.slc.enabled() {
            return Err(SteadyRefusal::SlcCache);
        }
        if !self.can_sample_steady(span) {
            return Err(SteadyRefusal::NotTheSpan);
        }
        // The map is laid out whole at the end, and nothing before reads it: its arrays go
        // now, and fresh ones are backed with memory on another thread while the counts run.
        self.map.clear();
        let layout_arrays = self.map.prepare_layout();
        let mut rng = SimRng::stream(seed, 0x5354_4541_4459);
        let mut done = 0;
        while done < writes {
            if self.frontiers[Stream::Host.index()].room() == 0 {
                if let Err(refusal) = self.make_room_for_host() {
                    self.format();
                    return Err(refusal);
                }
                self.open_next(Stream::Host);
            }
            let room = u64::from(self.frontiers[Stream::Host.index()].room());
            let r = room.min(writes - done);
            self.overwrite_at_random(span, r as u32, &mut rng);
            done += r;
            if !observe(done) {
                self.format();
                return Err(SteadyRefusal::Cancelled);
            }
        }
        // A quiet drive: GC has brought free space back, the open program units are padded.
        while self.wants_gc() {
            let Some(victim) = self.pick_gc_victim() else { break };
            self.relocate_counts(victim);
        }
        while let Some(victim) = self.take_wear_victim() {
            self.relocate_counts(victim);
        }
        let data_end: Vec<u32> = self.frontiers.iter().map(|f| f.next).collect();
        let mut scratch = Vec::new();
        for stream in self.streams() {
            self.pad(stream, &mut scratch);
        }
        let native = self.geometry.native;
        let c = &mut self.counters;
        c.host_units_written += writes;
        c.units_programmed[native.index()] = c.host_units_written + c.gc_units_moved + c.padding_units;
        for f in &mut self.frontiers {
            f.restore_flags(&self.geometry);
        }
        self.lay_out_map(span, &data_end, seed, layout_arrays, &mut version);
        Ok(())
    }

    /// Collects, on the counts, until host writes may open a superblock (borrowing down to
    /// GC's last free superblock, as under sustained writes).
    fn make_room_for_host(&mut self) -> Result<(), SteadyRefusal> {
        while !self.host_can_borrow(None, 1) {
            let victim = self.pick_gc_victim().ok_or(SteadyRefusal::NoRoom)?;
            self.relocate_counts(victim);
        }
        Ok(())
    }

    /// Places `units` units of `stream` on the counts, opening superblocks as it fills them.
    fn place_counts(&mut self, stream: Stream, mut units: u32) {
        let pu_units = self.geometry.pu_units();
        while units > 0 {
            if self.frontiers[stream.index()].room() == 0 {
                self.open_next(stream);
            }
            let f = &mut self.frontiers[stream.index()];
            let sb = f.sb.expect("open_next leaves an open superblock");
            let k = units.min(f.room());
            f.pu_seq += u64::from((f.next + k).div_ceil(pu_units) - f.next.div_ceil(pu_units));
            f.next += k;
            self.sbs.valid[sb as usize] += k;
            self.write_seq += u64::from(k);
            units -= k;
        }
    }

    /// GC of `victim` on the counts: its valid units go to the GC frontier, then it is
    /// erased through the same steps as any untimed erase (so erase counts, and whatever
    /// else an erase updates, are those of the process).
    fn relocate_counts(&mut self, victim: u32) {
        let moved = self.sbs.valid[victim as usize];
        self.sbs.state[victim as usize] = SbState::Victim;
        self.sbs.reclaiming += 1;
        self.place_counts(Stream::Gc, moved);
        self.sbs.valid[victim as usize] = 0;
        let c = &mut self.counters;
        c.gc_units_moved += u64::from(moved);
        c.reloc_units_read += u64::from(moved);
        c.gc_jobs += 1;
        self.erase_untimed(victim);
    }

    /// `r` host writes into the open host superblock, each invalidating a uniformly chosen
    /// valid unit of the span.
    fn overwrite_at_random(&mut self, span: u64, r: u32, rng: &mut SimRng) {
        let host_sb = self.frontiers[Stream::Host.index()].sb.expect("the caller opened one");
        // Hits on the host superblock itself, write by write: its valid units before write
        // `t` are `h`, the span's are `span` (each write adds one unit and removes one).
        let mut h = u64::from(self.sbs.valid[host_sb as usize]);
        // Every other superblock's valid units, which the other writes draw from.
        let mut pool = span - h;
        // Each write hits the host superblock with probability h / span; a miss adds one to
        // h (the write's own unit) and a hit leaves it. Hits are rare (h starts at what the
        // superblock held, usually nothing), so the misses between them are drawn at once.
        let mut hits = 0;
        let mut left = u64::from(r);
        while left > 0 {
            let misses = misses_before_a_hit(rng, span, h, left);
            h += misses;
            left -= misses;
            if left > 0 {
                hits += 1;
                left -= 1;
            }
        }
        self.place_counts(Stream::Host, r);
        debug_assert_eq!(self.frontiers[Stream::Host.index()].sb, Some(host_sb), "r fits the room");
        // The host superblock's own hits went invalid again.
        self.sbs.valid[host_sb as usize] -= hits;
        // The rest, without replacement from every other superblock's valid units.
        let mut draws = u64::from(r - hits);
        for sb in 0..self.sbs.len() {
            if draws == 0 {
                break;
            }
            let c = u64::from(self.sbs.valid[sb as usize]);
            if sb == host_sb || c == 0 {
                continue;
            }
            let x = hypergeometric(rng, pool, c, draws);
            self.sbs.valid[sb as usize] -= x as u32;
            draws -= x;
            pool -= c;
        }
        debug_assert_eq!(draws, 0);
    }

    /// Replaces the map with one that has the counts (module doc). `data_end[stream]` is
    /// where each frontier's data ended before padding.
    fn lay_out_map(
        &mut self,
        span: u64,
        data_end: &[u32],
        seed: u64,
        arrays: LayoutArrays,
        version: &mut impl FnMut(u64) -> u32,
    ) {
        self.map.clear_for_layout(arrays);
        let mut rng = SimRng::stream(seed, 0x4d41_5050);
        let blocks = span.div_ceil(DEAL_BLOCK);
        let order = Feistel::new(blocks, &mut rng);
        let mut next_block = 0;
        let mut hand: Vec<u64> = Vec::with_capacity(HAND + DEAL_BLOCK as usize);
        let g = self.geometry.clone();
        for sb in 0..self.sbs.len() {
            let valid = u64::from(self.sbs.valid(sb));
            if valid == 0 {
                continue;
            }
            let written = match self.frontiers.iter().position(|f| f.sb == Some(sb)) {
                Some(k) => u64::from(data_end[k]),
                None => u64::from(g.sb_units_in(self.sbs.mode(sb))),
            };
            // Selection sampling (Knuth's Algorithm S): `valid` of `written` units, uniformly.
            let (mut need, mut left) = (valid, written);
            let base = g.sb_base(sb);
            for offset in 0..written {
                if rng.below(left) < need {
                    while hand.len() < HAND && next_block < blocks {
                        if next_block % FETCH_BURST == 0 {
                            // The L2P lines of the burst after this one (and, at the start,
                            // of this one), fetched together so their misses overlap (one at
                            // a time, each waited alone).
                            let from = if next_block == 0 { 0 } else { next_block + FETCH_BURST };
                            for k in (from..next_block + 2 * FETCH_BURST).take_while(|&k| k < blocks) {
                                self.map.touch(order.apply(k) * DEAL_BLOCK);
                            }
                        }
                        let b = order.apply(next_block);
                        next_block += 1;
                        hand.extend(b * DEAL_BLOCK..((b + 1) * DEAL_BLOCK).min(span));
                    }
                    let k = rng.below(hand.len() as u64) as usize;
                    let lpn = hand.swap_remove(k);
                    let ppa = base + offset;
                    self.map.map_fresh(lpn, ppa);
                    if let Some(tags) = self.tags.as_mut() {
                        tags[ppa as usize] = version(lpn);
                    }
                    need -= 1;
                }
                left -= 1;
            }
        }
        debug_assert!(hand.is_empty() && next_block == blocks);
    }
}

/// A keyed permutation of `0..n`: a four-round Feistel network on the smallest even
/// number of bits that covers `n`, walking the cycle until the value falls below `n`
/// (fewer than four steps on average).
struct Feistel {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Feistel {
    fn new(n: u64, rng: &mut SimRng) -> Self {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(2);
        Feistel { n, half_bits: bits.div_ceil(2), keys: std::array::from_fn(|_| rng.next_u64()) }
    }

    fn apply(&self, mut x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        loop {
            let (mut l, mut r) = (x >> self.half_bits, x & mask);
            for key in self.keys {
                let mut z = r ^ key;
                z = (z ^ (z >> 31)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z ^= z >> 29;
                (l, r) = (r, l ^ (z & mask));
            }
            x = (l << self.half_bits) | r;
            if x < self.n {
                return x;
            }
        }
    }
}

/// The misses before the next hit, capped at `left`, in a run of writes where each hits
/// with probability (valid units) / `span` and a miss adds one valid unit, from `valid`:
/// the largest m ≤ `left` with Q(m) > U for a uniform U, where Q(m), the chance of m misses
/// in a row, is the product of (span − valid − j) / span over j < m (an inversion; Q falls
/// with m, so a bisection finds it).
fn misses_before_a_hit(rng: &mut SimRng, span: u64, valid: u64, left: u64) -> u64 {
    let free = span - valid;
    // A miss needs a unit the host superblock does not hold.
    let most = left.min(free);
    let ln_u = (1.0 - rng.unit_f64()).ln();
    let ln_q = |m: u64| ln_run_of_misses(span, free, m);
    if ln_q(most) > ln_u {
        return most;
    }
    // Q(lo) > U ≥ Q(hi).
    let (mut lo, mut hi) = (0, most);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ln_q(mid) > ln_u { lo = mid } else { hi = mid }
    }
    lo
}

/// ln Q(m) = ln (free! / (free − m)!) − m ln span, the log-chance of `m` misses in a row
/// from `free` units a write may miss among `span`. The two factorials are about 10^10 at
/// the spans the fill runs on, and their difference is wanted to better than one part in
/// 10^9 of 1 (a chance near 1 must not come out as a chance of a hit where none can be), so
/// it is taken in Stirling's form for the difference: with z₁ = free + 1 and
/// z₀ = free − m + 1, ln Γ(z₁) − ln Γ(z₀) = (z₀ − ½) ln(1 + m/z₀) + m ln z₁ − m plus the
/// series' difference, and m ln z₁ − m ln span = m ln(1 + (z₁ − span)/span).
fn ln_run_of_misses(span: u64, free: u64, m: u64) -> f64 {
    let (z1, z0) = ((free + 1) as f64, (free - m + 1) as f64);
    let mf = m as f64;
    if z0 < 10.0 {
        return ln_gamma(z1) - ln_gamma(z0) - mf * (span as f64).ln();
    }
    let span_f = span as f64;
    (z0 - 0.5) * (mf / z0).ln_1p() - mf
        + mf * ((z1 - span_f) / span_f).ln_1p()
        + (stirling_series(z1) - stirling_series(z0))
}

/// Draws from a hypergeometric distribution: successes among `draws` taken without
/// replacement from `total` items of which `good` are successes. Exact inversion, walking
/// out from the mode with the probability ratios of neighbouring values, so the cost grows
/// with the standard deviation (a few tens of steps here).
fn hypergeometric(rng: &mut SimRng, total: u64, good: u64, draws: u64) -> u64 {
    let (lo, hi) = (draws.saturating_sub(total - good), draws.min(good));
    if lo == hi {
        return lo;
    }
    let (n, k, t) = (draws as f64, good as f64, total as f64);
    let mode = (((n + 1.0) * (k + 1.0) / (t + 2.0)).floor() as u64).clamp(lo, hi);
    let ln_p = |x: u64| {
        let x = x as f64;
        ln_choose(k, x) + ln_choose(t - k, n - x) - ln_choose(t, n)
    };
    // P(x + 1) / P(x) and P(x - 1) / P(x).
    let up = |x: f64| (k - x) * (n - x) / ((x + 1.0) * (t - k - n + x + 1.0));
    let down = |x: f64| x * (t - k - n + x) / ((k - x + 1.0) * (n - x + 1.0));
    let p_mode = ln_p(mode).exp();
    let mut u = rng.unit_f64() - p_mode;
    if u < 0.0 {
        return mode;
    }
    let (mut below, mut above) = (mode, mode);
    let (mut p_below, mut p_above) = (p_mode, p_mode);
    loop {
        let can_down = below > lo;
        let can_up = above < hi;
        if !can_down && !can_up {
            // Rounding left a sliver of probability unassigned: the mode takes it.
            return mode;
        }
        if can_down && (!can_up || p_below >= p_above) {
            p_below *= down(below as f64);
            below -= 1;
            u -= p_below;
            if u < 0.0 {
                return below;
            }
        } else {
            p_above *= up(above as f64);
            above += 1;
            u -= p_above;
            if u < 0.0 {
                return above;
            }
        }
    }
}

/// ln C(n, k) for real arguments (via ln Γ).
fn ln_choose(n: f64, k: f64) -> f64 {
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)
}

/// ln Γ(x) for x > 0: Stirling's series beyond 10, shifted up by the recurrence below it
/// (error below 1e-13 relative).
fn ln_gamma(mut x: f64) -> f64 {
    let mut shift = 0.0;
    while x < 10.0 {
        shift -= x.ln();
        x += 1.0;
    }
    shift + (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + stirling_series(x)
}

/// The tail of Stirling's series for ln Γ(x): 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷).
fn stirling_series(x: f64) -> f64 {
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0 - inv2 / 1680.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_feistel_order_is_a_permutation() {
        for n in [1u64, 2, 5, 1000, 4097] {
            let f = Feistel::new(n, &mut SimRng::stream(1, n));
            let mut seen: Vec<u64> = (0..n).map(|x| f.apply(x)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn ln_gamma_matches_factorials() {
        let mut f = 0.0f64;
        for n in 1..30u32 {
            f += f64::from(n).ln();
            assert!((ln_gamma(f64::from(n) + 1.0) - f).abs() < 1e-10 * f.max(1.0), "{n}");
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn misses_before_a_hit_have_the_mean_and_variance_of_write_by_write_trials() {
        let mut rng = SimRng::stream(4, 1);
        for &(span, valid, left) in &[(1000u64, 100u64, 200u64), (1_073_741_824, 0, 290_000), (50, 45, 10)] {
            // Q(m), the chance of m misses in a row, product by product; E[M] = Σ Q(m) and
            // E[M²] = Σ (2m − 1) Q(m) over m = 1..=left.
            let (mut q, mut mean, mut square) = (1.0f64, 0.0, 0.0);
            for m in 1..=left {
                // Zero once the superblock holds every unit a write could miss.
                q *= (span - valid).saturating_sub(m - 1) as f64 / span as f64;
                mean += q;
                square += (2 * m - 1) as f64 * q;
            }
            let var = square - mean * mean;
            let n = 20_000;
            let samples: Vec<f64> = (0..n).map(|_| misses_before_a_hit(&mut rng, span, valid, left) as f64).collect();
            let got = samples.iter().sum::<f64>() / n as f64;
            let got_var = samples.iter().map(|x| (x - got).powi(2)).sum::<f64>() / n as f64;
            let se = (var / n as f64).sqrt();
            assert!((got - mean).abs() <= 5.0 * se + 1e-9, "mean {got} vs {mean} ({span}, {valid}, {left})");
            assert!((got_var - var).abs() <= 0.06 * var + 1e-9, "variance {got_var} vs {var}");
            assert!(samples.iter().all(|&m| m <= left as f64));
        }
        // A superblock that holds nothing cannot be hit: its first write always misses,
        // however large the span (where a difference of two log-factorials of 10^10 would
        // lose the certainty to rounding).
        for span in [1u64 << 20, 1 << 32, 1 << 34] {
            assert!((0..200_000).all(|_| misses_before_a_hit(&mut rng, span, 0, 1) == 1), "{span}");
        }
    }

    #[test]
    fn the_run_of_misses_chance_matches_its_product() {
        for &(span, free, m) in
            &[(1000u64, 900u64, 50u64), (1 << 32, 1 << 32, 1), (1 << 32, (1 << 32) - 290_000, 7_000), (40, 12, 5)]
        {
            let product: f64 = (0..m).map(|j| ((free - j) as f64 / span as f64).ln()).sum();
            let got = ln_run_of_misses(span, free, m);
            assert!((got - product).abs() <= 1e-12 * product.abs().max(1.0), "{span} {free} {m}: {got} vs {product}");
        }
    }

    #[test]
    fn hypergeometric_draws_have_the_textbook_mean_and_variance() {
        let mut rng = SimRng::stream(3, 1);
        for &(t, k, n) in &[(1000u64, 300u64, 50u64), (268_000_000, 290_000, 295_000), (40, 39, 10), (10, 10, 4)] {
            let samples: Vec<f64> = (0..20_000).map(|_| hypergeometric(&mut rng, t, k, n) as f64).collect();
            let mean = samples.iter().sum::<f64>() / samples.len() as f64;
            let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / samples.len() as f64;
            let (t, k, n) = (t as f64, k as f64, n as f64);
            let want_mean = n * k / t;
            let want_var = n * k / t * (1.0 - k / t) * (t - n) / (t - 1.0);
            let se = (want_var / samples.len() as f64).sqrt();
            assert!((mean - want_mean).abs() <= 5.0 * se + 1e-9, "mean {mean} vs {want_mean}");
            assert!((var - want_var).abs() <= 0.05 * want_var + 1e-9, "variance {var} vs {want_var}");
            assert!(samples.iter().all(|&x| x <= n.min(k) && x >= (n - (t - k)).max(0.0)));
        }
    }
}
