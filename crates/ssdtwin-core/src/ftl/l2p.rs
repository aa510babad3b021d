//! The L2P's storage: one entry per logical unit, in stored form (location + 1, 0 when
//! unmapped), up to 34 bits.
//!
//! * The low 32 bits of each entry sit in a `u32` array; bits 32–33, needed only by arrays
//!   of 2³² physical units or more (16 TiB of raw NAND), in a side array four entries per
//!   byte (0.25 B per logical unit). Fresh arrays are untouched zeroed memory: what is never
//!   written costs neither time nor resident memory.
//! * **Sequential chunks.** The entries are grouped in chunks of 2¹⁹ (2 MiB of low words:
//!   one huge page). A chunk written from its start by sequential runs, as a fill writes a
//!   fresh drive, maps its first entries to consecutive locations and the rest nowhere: it
//!   is held as one number (the stored value of its first entry and how many follow), and
//!   its part of the arrays is not touched. The first other write into such a chunk writes
//!   it out to the arrays (2 MiB, about a millisecond). So a sequential fill costs a few
//!   operations per 2 MiB of map, and a filled drive's reads look the chunk up in a table
//!   of 8 bytes per chunk (32 KiB for 8 TiB), which stays in cache.
//!
//! Memory: 4 bytes per logical unit (4.25 on the largest arrays) where written, plus 9
//! bytes per chunk.

use crate::engine::BigArray;
use std::sync::atomic::AtomicBool;

/// Entries per chunk, as a power of two.
const CHUNK_SHIFT: u32 = 19;
/// Entries per chunk.
pub(crate) const CHUNK_UNITS: u64 = 1 << CHUNK_SHIFT;
/// A sequential chunk packs its first stored value (34 bits) and its length (20 bits).
const SEQ_LEN_SHIFT: u32 = 34;
const SEQ_FIRST_MASK: u64 = (1 << SEQ_LEN_SHIFT) - 1;

/// A sequential chunk's first stored value and length, packed.
#[inline]
fn seq(first: u64, len: u64) -> u64 {
    debug_assert!(first != 0 && first <= SEQ_FIRST_MASK && len <= CHUNK_UNITS);
    first | (len << SEQ_LEN_SHIFT)
}

/// Unpacks [`seq`].
#[inline]
fn unseq(packed: u64) -> (u64, u64) {
    (packed & SEQ_FIRST_MASK, packed >> SEQ_LEN_SHIFT)
}

/// Stored L2P entries.
#[derive(Clone, Debug)]
pub(crate) struct L2p {
    low: BigArray<u32>,
    /// Bits 32–33 of each entry, four entries per byte (only with 2³² physical units or more).
    high: Option<BigArray<u8>>,
    /// Per chunk: 0, or ([`seq`]) the stored value `first` of its first entry and a length
    /// `len` when entry `k` holds `first + k` below `len` and is unmapped from there (the
    /// arrays' part is then stale or untouched and unread).
    seq: Vec<u64>,
    /// Per chunk: whether the arrays were ever written there (else they are zero and untouched).
    touched: Vec<bool>,
}

impl L2p {
    /// `len` unmapped entries; `high` if locations need more than 32 bits.
    pub(crate) fn new(len: u64, high: bool) -> Self {
        let chunks = len.div_ceil(CHUNK_UNITS) as usize;
        L2p {
            low: BigArray::filled(len as usize, 0),
            high: high.then(|| BigArray::filled(len.div_ceil(4) as usize, 0)),
            seq: vec![0; chunks],
            touched: vec![false; chunks],
        }
    }

    /// Entries.
    #[inline]
    pub(crate) fn len(&self) -> u64 {
        self.low.len() as u64
    }

    /// True if entries need bits above 32.
    pub(crate) fn has_high(&self) -> bool {
        self.high.is_some()
    }

    /// Entry `lpn` as the arrays hold it.
    #[inline]
    fn array(&self, lpn: u64) -> u64 {
        let low = u64::from(self.low[lpn as usize]);
        match &self.high {
            None => low,
            Some(h) => low | (u64::from((h[(lpn / 4) as usize] >> (2 * (lpn % 4))) & 3) << 32),
        }
    }

    #[inline]
    fn set_array(&mut self, lpn: u64, stored: u64) {
        self.low[lpn as usize] = stored as u32;
        if let Some(h) = self.high.as_mut() {
            let (byte, shift) = ((lpn / 4) as usize, 2 * (lpn % 4));
            h[byte] = (h[byte] & !(3 << shift)) | (((stored >> 32) as u8 & 3) << shift);
        }
    }

    /// Stored entry of `lpn`.
    #[inline]
    pub(crate) fn get(&self, lpn: u64) -> u64 {
        let packed = self.seq[(lpn >> CHUNK_SHIFT) as usize];
        if packed == 0 {
            return self.array(lpn);
        }
        let (first, len) = unseq(packed);
        let k = lpn & (CHUNK_UNITS - 1);
        if k < len { first + k } else { 0 }
    }

    /// Sets the stored entry of `lpn`.
    #[inline]
    pub(crate) fn set(&mut self, lpn: u64, stored: u64) {
        let c = (lpn >> CHUNK_SHIFT) as usize;
        if self.seq[c] != 0 {
            self.write_out(c);
        }
        self.touched[c] = true;
        self.set_array(lpn, stored);
    }

    /// Prefetches the entry of `lpn`; a sequential chunk has nothing to fetch and gives the
    /// stored entry at once instead.
    #[inline]
    pub(crate) fn touch(&self, lpn: u64) -> Option<u64> {
        if self.seq[(lpn >> CHUNK_SHIFT) as usize] != 0 {
            return Some(self.get(lpn));
        }
        crate::engine::prefetch(&self.low, lpn as usize);
        if let Some(h) = &self.high {
            crate::engine::prefetch(h, (lpn / 4) as usize);
        }
        None
    }

    /// The entries of chunk `c`.
    fn chunk_range(&self, c: usize) -> std::ops::Range<u64> {
        let start = (c as u64) << CHUNK_SHIFT;
        start..(start + CHUNK_UNITS).min(self.len())
    }

    /// Writes sequential chunk `c` out to the arrays.
    fn write_out(&mut self, c: usize) {
        let (first, len) = unseq(std::mem::take(&mut self.seq[c]));
        let start = self.chunk_range(c).start;
        let range = start..start + len;
        if self.high.is_none() {
            for (k, s) in self.low[range.start as usize..range.end as usize].iter_mut().enumerate() {
                *s = first as u32 + k as u32;
            }
        } else {
            for lpn in range {
                self.set_array(lpn, first + (lpn - start));
            }
        }
        if self.touched[c] {
            // Stale entries from before the chunk became sequential.
            let end = self.chunk_range(c).end;
            for lpn in start + len..end {
                self.set_array(lpn, 0);
            }
        }
        self.touched[c] = true;
    }

    /// Sets entries `lpn..lpn + count` to `first, first + 1, ...`; calls `old(stored)` for
    /// every entry that was mapped before. Whole chunks become sequential chunks.
    pub(crate) fn set_seq(&mut self, lpn: u64, first: u64, count: u64, mut old: impl FnMut(u64)) {
        let end = lpn + count;
        let mut at = lpn;
        while at < end {
            let c = (at >> CHUNK_SHIFT) as usize;
            let chunk = self.chunk_range(c);
            let upto = end.min(chunk.end);
            let value = first + (at - lpn);
            let (seq_first, seq_len) = unseq(self.seq[c]);
            let fresh = !self.touched[c] && self.seq[c] == 0;
            if at == chunk.start && upto == chunk.end {
                // A whole chunk: its old entries are reported, then it is one number.
                if self.seq[c] != 0 {
                    (0..seq_len).for_each(|k| old(seq_first + k));
                } else if self.touched[c] {
                    for l in at..upto {
                        let s = self.array(l);
                        if s != 0 {
                            old(s);
                        }
                    }
                }
                self.seq[c] = seq(value, upto - at);
            } else if (fresh && at == chunk.start)
                || (self.seq[c] != 0 && at == chunk.start + seq_len && value == seq_first + seq_len)
            {
                // The start of an unmapped chunk, or the continuation of a sequential one:
                // nothing was mapped there before.
                let first = if fresh { value } else { seq_first };
                self.seq[c] = seq(first, upto - chunk.start);
            } else {
                if self.seq[c] != 0 {
                    self.write_out(c);
                }
                self.touched[c] = true;
                if fresh && self.high.is_none() {
                    // Never written: nothing to report, and plain 32-bit values.
                    for (k, s) in self.low[at as usize..upto as usize].iter_mut().enumerate() {
                        *s = value as u32 + k as u32;
                    }
                } else {
                    for l in at..upto {
                        let s = self.array(l);
                        if s != 0 {
                            old(s);
                        }
                        self.set_array(l, value + (l - at));
                    }
                }
            }
            at = upto;
        }
    }

    /// True if every entry of `range` is mapped: a sequential chunk answers from its length,
    /// an untouched one at once, the others by reading their entries.
    pub(crate) fn all_mapped(&self, range: std::ops::Range<u64>) -> bool {
        let mut at = range.start;
        while at < range.end {
            let c = (at >> CHUNK_SHIFT) as usize;
            let chunk = self.chunk_range(c);
            let upto = range.end.min(chunk.end);
            let mapped = if self.seq[c] != 0 {
                upto - chunk.start <= unseq(self.seq[c]).1
            } else if !self.touched[c] {
                false
            } else if self.high.is_none() {
                self.low[at as usize..upto as usize].iter().all(|&s| s != 0)
            } else {
                (at..upto).all(|l| self.array(l) != 0)
            };
            if !mapped {
                return false;
            }
            at = upto;
        }
        true
    }

    /// Calls `f` with each chunk's entries in stored form, low words and high bytes (for
    /// snapshots), in order.
    pub(crate) fn for_each_chunk(&self, mut f: impl FnMut(&[u32], Option<&[u8]>)) {
        let mut low = Vec::new();
        let mut high = Vec::new();
        for c in 0..self.seq.len() {
            let range = self.chunk_range(c);
            let (s, e) = (range.start as usize, range.end as usize);
            if self.seq[c] == 0 {
                f(&self.low[s..e], self.high.as_deref().map(|h| &h[s / 4..e.div_ceil(4)]));
                continue;
            }
            let entry = |k: u64| self.get(range.start + k);
            low.clear();
            low.extend((0..(e - s) as u64).map(|k| entry(k) as u32));
            if self.high.is_some() {
                high.clear();
                high.resize((e - s).div_ceil(4), 0u8);
                for k in 0..(e - s) {
                    high[k / 4] |= ((entry(k as u64) >> 32) as u8 & 3) << (2 * (k % 4));
                }
            }
            f(&low, self.high.is_some().then_some(&high[..]));
        }
    }

    /// Replaces every entry, chunk by chunk: `read(low, high)` fills a chunk's low words and
    /// high bytes. Chunks all zero stay untouched, sequential ones become one number.
    pub(crate) fn restore<E>(
        &mut self,
        mut read: impl FnMut(&mut [u32], Option<&mut [u8]>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut low = vec![0u32; CHUNK_UNITS as usize];
        let mut high = vec![0u8; (CHUNK_UNITS / 4) as usize];
        self.clear();
        for c in 0..self.seq.len() {
            let range = self.chunk_range(c);
            let n = (range.end - range.start) as usize;
            let (low, high) = (&mut low[..n], &mut high[..n.div_ceil(4)]);
            read(low, self.high.is_some().then_some(&mut *high))?;
            let has_high = self.high.is_some();
            let stored = |k: usize| {
                let h = if has_high { u64::from((high[k / 4] >> (2 * (k % 4))) & 3) } else { 0 };
                u64::from(low[k]) | (h << 32)
            };
            let first = stored(0);
            let len = if first == 0 { 0 } else { (0..n).take_while(|&k| stored(k) == first + k as u64).count() };
            if (len..n).all(|k| stored(k) == 0) {
                if len > 0 {
                    self.seq[c] = seq(first, len as u64);
                }
                continue;
            }
            let s = range.start as usize;
            self.low[s..s + n].copy_from_slice(low);
            if let Some(h) = self.high.as_mut() {
                // Chunks hold a multiple of four entries, except perhaps the last.
                h[s / 4..(s + n).div_ceil(4)].copy_from_slice(high);
            }
            self.touched[c] = true;
        }
        Ok(())
    }

    /// Backs the arrays with memory now, before they are written all over in random order
    /// ([`BigArray::populate`]).
    pub(crate) fn populate(&self, stop: &AtomicBool) {
        self.low.populate(stop);
        if let Some(h) = &self.high {
            h.populate(stop);
        }
    }

    /// Everything unmapped, in fresh arrays (untouched pages cost neither time nor memory).
    pub(crate) fn clear(&mut self) {
        self.low = BigArray::filled(self.low.len(), 0);
        self.high = self.high.as_ref().map(|h| BigArray::filled(h.len(), 0));
        self.seq.fill(0);
        self.touched.fill(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(l: &L2p) -> Vec<u64> {
        (0..l.len()).map(|k| l.get(k)).collect()
    }

    #[test]
    fn whole_chunks_are_one_number_until_written() {
        let n = 2 * CHUNK_UNITS + 100;
        let mut l = L2p::new(n, false);
        let mut old = Vec::new();
        l.set_seq(10, 1000, n - 10, |s| old.push(s));
        assert!(old.is_empty());
        // Chunk 0 is partly covered (written to the arrays); chunks 1 and 2 (the short last
        // one) are sequential and untouched.
        assert_eq!(l.seq[0], 0);
        assert_eq!(
            (unseq(l.seq[1]), unseq(l.seq[2])),
            ((1000 + CHUNK_UNITS - 10, CHUNK_UNITS), (1000 + 2 * CHUNK_UNITS - 10, 100))
        );
        assert_eq!((l.touched[0], l.touched[1], l.touched[2]), (true, false, false));
        assert_eq!((l.get(9), l.get(10), l.get(n - 1)), (0, 1000, 1000 + n - 11));
        // One write brings chunk 1 out to the arrays, every other entry as it was.
        let before = entries(&l);
        l.set(CHUNK_UNITS + 5, 7);
        assert_eq!(l.seq[1], 0);
        let after = entries(&l);
        let changed: Vec<usize> = (0..n as usize).filter(|&k| before[k] != after[k]).collect();
        assert_eq!(changed, [CHUNK_UNITS as usize + 5]);
        // Rewriting everything reports every mapped entry once.
        l.set_seq(0, 1, n, |s| old.push(s));
        assert_eq!(old.len() as u64, n - 10);
        assert_eq!(entries(&l), (1..=n).collect::<Vec<_>>());
    }

    #[test]
    fn touch_gives_a_sequential_chunk_s_entries_and_only_those() {
        let n = 4 * CHUNK_UNITS;
        let mut l = L2p::new(n, true);
        let first = (1 << 33) + 1000;
        l.set_seq(10, first, 3 * CHUNK_UNITS - 10 + 100, |_| {});
        l.set(CHUNK_UNITS + 5, 7);
        // Chunk 0 (partly covered) and chunk 1 (written since) are in the arrays: a prefetch.
        for lpn in [0, 9, 10, CHUNK_UNITS - 1, CHUNK_UNITS, CHUNK_UNITS + 5] {
            assert_eq!(l.touch(lpn), None, "lpn {lpn}");
        }
        // Chunk 2 is one number, and chunk 3 one run of 100 from its start: their entries at
        // once, unmapped (0) past the run.
        let stored = |lpn: u64| first + lpn - 10;
        assert_eq!(l.touch(2 * CHUNK_UNITS), Some(stored(2 * CHUNK_UNITS)));
        assert_eq!(l.touch(3 * CHUNK_UNITS + 99), Some(stored(3 * CHUNK_UNITS + 99)));
        assert_eq!(l.touch(3 * CHUNK_UNITS + 100), Some(0));
        assert_eq!(l.touch(n - 1), Some(0));
    }

    #[test]
    fn runs_from_a_chunk_start_grow_a_sequential_chunk() {
        let mut l = L2p::new(CHUNK_UNITS + 50, false);
        let none = |_| panic!("nothing was mapped");
        l.set_seq(0, 9, 1000, none);
        l.set_seq(1000, 1009, 3000, none);
        assert_eq!(unseq(l.seq[0]), (9, 4000));
        assert!(!l.touched[0]);
        assert_eq!((l.get(3999), l.get(4000)), (4008, 0));
        // A run that does not continue it brings the chunk out to the arrays.
        l.set_seq(5000, 77, 10, none);
        assert_eq!((l.seq[0], l.touched[0]), (0, true));
        assert_eq!((l.get(3999), l.get(4000), l.get(5000), l.get(5009)), (4008, 0, 77, 86));
        // So does a single write: the chunk after it, written whole, is sequential again.
        l.set_seq(CHUNK_UNITS, 3, 50, none);
        l.set(CHUNK_UNITS + 60 - 20, 1);
        assert_eq!((l.seq[1], l.get(CHUNK_UNITS + 49), l.get(CHUNK_UNITS + 40)), (0, 52, 1));
    }

    #[test]
    fn all_mapped_reads_sequential_chunks_from_their_length() {
        let mut l = L2p::new(2 * CHUNK_UNITS + 10, true);
        assert!(!l.all_mapped(0..1) && l.all_mapped(5..5));
        l.set_seq(0, 1, CHUNK_UNITS + 100, |_| {});
        assert!(l.all_mapped(0..CHUNK_UNITS + 100));
        assert!(!l.all_mapped(0..CHUNK_UNITS + 101));
        // An entry whose low 32 bits are 0 is mapped all the same.
        l.set(CHUNK_UNITS + 100, 1 << 32);
        assert!(l.all_mapped(CHUNK_UNITS..CHUNK_UNITS + 101));
        l.set(7, 0);
        assert!(!l.all_mapped(0..10) && l.all_mapped(8..CHUNK_UNITS));
    }

    #[test]
    fn chunks_go_out_and_come_back_as_they_were() {
        for high in [false, true] {
            let n = 4 * CHUNK_UNITS - 6;
            let mut l = L2p::new(n, high);
            let base = if high { (1 << 33) + 3 } else { 5 };
            l.set_seq(CHUNK_UNITS, base, CHUNK_UNITS, |_| {});
            // A chunk partly sequential and unmapped after.
            l.set_seq(3 * CHUNK_UNITS, base + CHUNK_UNITS + 10, 100, |_| {});
            l.set(2 * CHUNK_UNITS + 1, base + 77);
            l.set(3, 9);
            let mut stored = Vec::new();
            l.for_each_chunk(|low, h| stored.push((low.to_vec(), h.map(<[u8]>::to_vec))));
            let mut back = L2p::new(n, high);
            let mut chunks = stored.into_iter();
            back.restore(|low, h| {
                let (sl, sh) = chunks.next().unwrap();
                low.copy_from_slice(&sl);
                if let (Some(h), Some(sh)) = (h, sh) {
                    h.copy_from_slice(&sh);
                }
                Ok::<(), ()>(())
            })
            .unwrap();
            assert_eq!(entries(&back), entries(&l), "high bits: {high}");
            assert_eq!((back.seq[1] != 0, back.touched[0], back.touched[2]), (true, true, true));
            assert_eq!(unseq(back.seq[3]), (base + CHUNK_UNITS + 10, 100));
        }
    }
}
