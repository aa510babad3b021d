//! The benchmarks of R6 as page-access streams: what each thread touches, in what order,
//! and how much memory traffic and arithmetic comes between touches.
//!
//! Read first: host-facts.md §3.5 (STREAM v5.10's kernels and byte counting; Himeno's
//! `himenoBMTxps.c`: 14 float arrays, the 19-point Jacobi sweep, `nn` iterations), and R6
//! in measurements.md (the memcpy sweep). A thread's program is a sequence of *rows*: the
//! pages a stretch of the loop touches (reads and writes, in loop order) followed by the
//! compute it does on them (bytes through DRAM, floating-point operations). Barriers sit
//! where OpenMP's parallel loops end. Arrays of one benchmark are laid out one after
//! another in a single mapping, as the static arrays of the originals are in `.bss`.
//!
//! * memcpy (R6): the region is cut in `unit_bytes` units, split evenly between threads;
//!   each thread copies its units out, in order or in a random permutation, a page at a
//!   time (4 KiB read from the region, the destination buffer staying in cache).
//! * STREAM: Copy (`c=a`), Scale (`b=s·c`), Add (`c=a+b`), Triad (`a=b+s·c`) over N
//!   doubles, each thread a contiguous share, a barrier after each kernel, `ntimes` times.
//!   STREAM counts 16 B per element for Copy and Scale and 24 for Add and Triad.
//! * Himeno: per iteration, the Jacobi sweep over i (split between threads), j, k reads
//!   a0–a3, b0–b2, c0–c2, wrk1, bnd and the planes i−1, i, i+1 of p, writes wrk2 (34 flops
//!   a point); then wrk2 is copied to p. Each (i, j) row of an array is `K × 4` bytes.

use crate::engine::SimRng;

/// Which benchmark, with its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bench {
    /// R6's sweep: `bytes` copied out in `unit_bytes` units.
    Memcpy {
        /// Region, bytes.
        bytes: u64,
        /// Unit of one memcpy call, bytes.
        unit_bytes: u64,
    },
    /// STREAM on `elements` doubles per array, `ntimes` iterations.
    Stream {
        /// N.
        elements: u64,
        /// NTIMES.
        ntimes: u32,
    },
    /// Himeno on a grid of `grid` points (MIMAX, MJMAX, MKMAX), `iterations` Jacobi steps.
    Himeno {
        /// (I, J, K).
        grid: [u64; 3],
        /// Iterations timed (the driver's 3-iteration rehearsal, by default).
        iterations: u32,
    },
}

/// Himeno's arrays in `.bss` order.
const HIMENO_ARRAYS: u64 = 14;
const P: u64 = 0;
const BND: u64 = 11;
const WRK1: u64 = 12;
const WRK2: u64 = 13;
/// Floating-point operations per grid point of a Jacobi sweep (`fflop`).
pub const HIMENO_FLOPS_PER_POINT: u64 = 34;
/// Bytes a Jacobi iteration moves per point: 13 arrays read and wrk2 written in the sweep,
/// wrk2 read and p written in the copy, 4 bytes each.
pub const HIMENO_BYTES_PER_POINT: u64 = 16 * 4;

impl Bench {
    /// Bytes the benchmark allocates, in pages of `page_bytes`: STREAM's three arrays each
    /// start on a page (arrays this large are mapped, so page-aligned), the others are one
    /// region.
    pub fn footprint_bytes(&self, page_bytes: u64) -> u64 {
        match *self {
            Bench::Memcpy { bytes, .. } => bytes,
            Bench::Stream { elements, .. } => 3 * (elements * 8).div_ceil(page_bytes) * page_bytes,
            Bench::Himeno { grid, .. } => HIMENO_ARRAYS * grid.iter().product::<u64>() * 4,
        }
    }
}

/// The most page touches one row holds.
pub const ROW_TOUCHES: usize = 64;

/// A stretch of a thread's loop: pages touched, then compute.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// (page of the mapping, write) in loop order.
    pub touches: [(u64, bool); ROW_TOUCHES],
    /// Touches used.
    pub n: usize,
    /// Bytes through DRAM.
    pub bytes: u64,
    /// Floating-point operations.
    pub flops: u64,
}

impl Default for Row {
    fn default() -> Self {
        Row { touches: [(0, false); ROW_TOUCHES], n: 0, bytes: 0, flops: 0 }
    }
}

impl Row {
    fn clear(&mut self) {
        self.n = 0;
        self.bytes = 0;
        self.flops = 0;
    }

    /// Touches every page of bytes `start..start + len`.
    fn span(&mut self, start: u64, len: u64, page: u64, write: bool) {
        for p in start / page..(start + len).div_ceil(page) {
            if self.n > 0 && self.touches[self.n - 1] == (p, write) {
                continue;
            }
            self.touches[self.n] = (p, write);
            self.n += 1;
        }
    }
}

/// What a thread does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// A row (filled in).
    Row,
    /// Wait for every thread.
    Barrier,
    /// Nothing more.
    Done,
}

/// One thread's program.
#[derive(Clone, Debug)]
pub enum Program {
    /// memcpy units.
    Memcpy {
        /// The thread's units, in the order it copies them.
        units: Vec<u64>,
        /// Pages per unit.
        unit_pages: u64,
        /// Pages of the region.
        pages: u64,
        next_unit: usize,
        next_page: u64,
    },
    /// STREAM.
    Stream {
        /// Pages per array.
        array_pages: u64,
        /// This thread's pages of each array.
        lo: u64,
        /// End of this thread's pages.
        hi: u64,
        elements_per_page: u64,
        /// Kernel steps done (4 per iteration), and the page within the current one.
        kernel: u32,
        kernels: u32,
        page: u64,
    },
    /// Himeno.
    Himeno {
        grid: [u64; 3],
        /// This thread's planes `i`.
        i_lo: u64,
        i_hi: u64,
        /// Sweep steps done (2 per iteration).
        sweep: u32,
        sweeps: u32,
        i: u64,
        j: u64,
        page_bytes: u64,
    },
}

impl Program {
    /// Thread `t` of `threads`'s program for `bench` on pages of `page_bytes`.
    pub fn new(bench: Bench, sequential: bool, t: u32, threads: u32, page_bytes: u64, seed: u64) -> Self {
        let share = |n: u64| (n * u64::from(t) / u64::from(threads), n * u64::from(t + 1) / u64::from(threads));
        match bench {
            Bench::Memcpy { bytes, unit_bytes } => {
                let unit_pages = (unit_bytes / page_bytes).max(1);
                let pages = bytes.div_ceil(page_bytes);
                let (lo, hi) = share(pages.div_ceil(unit_pages));
                let mut units: Vec<u64> = (lo..hi).collect();
                if !sequential {
                    // Fisher–Yates with the thread's own stream.
                    let mut rng = SimRng::stream(seed, 0x6d65_6d63_7079 + u64::from(t));
                    for k in (1..units.len()).rev() {
                        let j = rng.below(k as u64 + 1) as usize;
                        units.swap(k, j);
                    }
                }
                Program::Memcpy { units, unit_pages, pages, next_unit: 0, next_page: 0 }
            }
            Bench::Stream { elements, ntimes } => {
                let per_page = page_bytes / 8;
                let array_pages = elements.div_ceil(per_page);
                let (lo, hi) = share(elements);
                Program::Stream {
                    array_pages,
                    lo: lo / per_page,
                    hi: hi.div_ceil(per_page),
                    elements_per_page: per_page,
                    kernel: 0,
                    kernels: 4 * ntimes,
                    page: lo / per_page,
                }
            }
            Bench::Himeno { grid, iterations } => {
                // The parallel loop runs over i = 1 .. I-1.
                let inner = grid[0].saturating_sub(2);
                let (lo, hi) = share(inner);
                Program::Himeno {
                    grid,
                    i_lo: 1 + lo,
                    i_hi: 1 + hi,
                    sweep: 0,
                    sweeps: 2 * iterations,
                    i: 1 + lo,
                    j: 1,
                    page_bytes,
                }
            }
        }
    }

    /// Fills `row` with the next stretch, or says to wait at a barrier, or that the program
    /// is over.
    pub fn next(&mut self, row: &mut Row, page_bytes: u64) -> Next {
        row.clear();
        match self {
            Program::Memcpy { units, unit_pages, pages, next_unit, next_page } => {
                let Some(&unit) = units.get(*next_unit) else { return Next::Done };
                let page = unit * *unit_pages + *next_page;
                row.touches[0] = (page, false);
                row.n = 1;
                row.bytes = page_bytes;
                *next_page += 1;
                if *next_page == *unit_pages || page + 1 >= *pages {
                    *next_page = 0;
                    *next_unit += 1;
                }
                Next::Row
            }
            Program::Stream { array_pages, lo, hi, elements_per_page, kernel, kernels, page } => {
                if *kernel >= *kernels {
                    return Next::Done;
                }
                if *page >= *hi {
                    *kernel += 1;
                    *page = *lo;
                    return Next::Barrier;
                }
                let (a, b, c) = (*page, *array_pages + *page, 2 * *array_pages + *page);
                let (touches, bytes, flops): (&[(u64, bool)], u64, u64) = match *kernel % 4 {
                    0 => (&[(a, false), (c, true)], 16, 0),
                    1 => (&[(c, false), (b, true)], 16, 1),
                    2 => (&[(a, false), (b, false), (c, true)], 24, 1),
                    _ => (&[(b, false), (c, false), (a, true)], 24, 2),
                };
                row.touches[..touches.len()].copy_from_slice(touches);
                row.n = touches.len();
                row.bytes = bytes * *elements_per_page;
                row.flops = flops * *elements_per_page;
                *page += 1;
                Next::Row
            }
            Program::Himeno { grid, i_lo, i_hi, sweep, sweeps, i, j, page_bytes } => {
                if *sweep >= *sweeps {
                    return Next::Done;
                }
                let [ni, nj, nk] = *grid;
                if *i >= *i_hi || nj < 3 {
                    *sweep += 1;
                    *i = *i_lo;
                    *j = 1;
                    return Next::Barrier;
                }
                let array = ni * nj * nk * 4;
                let row_bytes = nk * 4;
                let at = |x: u64, i: u64, j: u64| x * array + (i * nj + j) * row_bytes;
                let points = nk.saturating_sub(2);
                if *sweep % 2 == 0 {
                    // Jacobi: coefficients, bnd and wrk1 at (i, j); p at i-1, i, i+1.
                    for x in 1..=10 {
                        row.span(at(x, *i, *j), row_bytes, *page_bytes, false);
                    }
                    row.span(at(WRK1, *i, *j), row_bytes, *page_bytes, false);
                    row.span(at(BND, *i, *j), row_bytes, *page_bytes, false);
                    for di in [*i - 1, *i, *i + 1] {
                        row.span(at(P, di, *j), row_bytes, *page_bytes, false);
                    }
                    row.span(at(WRK2, *i, *j), row_bytes, *page_bytes, true);
                    row.bytes = 14 * 4 * points;
                    row.flops = HIMENO_FLOPS_PER_POINT * points;
                } else {
                    row.span(at(WRK2, *i, *j), row_bytes, *page_bytes, false);
                    row.span(at(P, *i, *j), row_bytes, *page_bytes, true);
                    row.bytes = 2 * 4 * points;
                }
                *j += 1;
                if *j >= nj - 1 {
                    *j = 1;
                    *i += 1;
                }
                Next::Row
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(p: &mut Program) -> (Vec<Vec<(u64, bool)>>, u32) {
        let mut row = Row::default();
        let mut out = Vec::new();
        let mut barriers = 0;
        loop {
            match p.next(&mut row, 4096) {
                Next::Row => out.push(row.touches[..row.n].to_vec()),
                Next::Barrier => barriers += 1,
                Next::Done => return (out, barriers),
            }
        }
    }

    #[test]
    fn memcpy_threads_split_the_region_and_random_permutes_units() {
        let bench = Bench::Memcpy { bytes: 4 << 20, unit_bytes: 1 << 20 };
        let (seq, _) = rows(&mut Program::new(bench, true, 1, 2, 4096, 7));
        assert_eq!(seq.len(), 512, "half of 1024 pages");
        assert_eq!(seq[0], [(512, false)]);
        let (rnd, _) = rows(&mut Program::new(bench, false, 0, 1, 4096, 7));
        let mut pages: Vec<u64> = rnd.iter().map(|r| r[0].0).collect();
        assert!(pages.windows(256).step_by(256).all(|w| w[255] == w[0] + 255), "units are read in order inside");
        pages.sort_unstable();
        assert_eq!(pages, (0..1024).collect::<Vec<_>>(), "every page once");
    }

    #[test]
    fn stream_touches_two_or_three_arrays_per_page_with_a_barrier_per_kernel() {
        // 1024 doubles: 2 pages per array.
        let (r, barriers) = rows(&mut Program::new(Bench::Stream { elements: 1024, ntimes: 1 }, true, 0, 1, 4096, 0));
        assert_eq!(barriers, 4);
        assert_eq!(r.len(), 8);
        assert_eq!(r[0], [(0, false), (4, true)], "copy: c = a");
        assert_eq!(r[6], [(2, false), (4, false), (0, true)], "triad: a = b + s c");
    }

    #[test]
    fn stream_arrays_that_end_inside_a_page_stay_within_the_footprint() {
        // 1000 doubles: each array ends inside its second page, and the next starts on a page.
        let bench = Bench::Stream { elements: 1000, ntimes: 1 };
        let (r, _) = rows(&mut Program::new(bench, true, 0, 1, 4096, 0));
        let highest = r.iter().flatten().map(|t| t.0).max().unwrap();
        assert_eq!(bench.footprint_bytes(4096), 3 * 2 * 4096);
        assert_eq!(highest, 3 * 2 - 1, "c's last page is the footprint's last");
    }

    #[test]
    fn himeno_rows_read_twelve_arrays_and_three_planes_of_p() {
        // K = 2048 floats: each (i, j) row is two pages; 14 arrays of 4x4x2048 floats.
        let bench = Bench::Himeno { grid: [4, 4, 2048], iterations: 1 };
        let (r, barriers) = rows(&mut Program::new(bench, true, 0, 1, 4096, 0));
        assert_eq!(barriers, 2);
        assert_eq!(r.len(), 2 * 2 * 2, "(I-2)(J-2) rows per sweep, two sweeps");
        assert_eq!(r[0].len(), 2 * 16, "12 arrays, 3 rows of p, wrk2");
        assert_eq!(r[0].iter().filter(|t| t.1).count(), 2, "wrk2's two pages are written");
        assert_eq!(bench.footprint_bytes(4096), 14 * 4 * 4 * 2048 * 4);
    }
}
