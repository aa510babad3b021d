//! Arrays too large for any cache (the L2P and P2L maps, verify tags, fio's random map),
//! in anonymous memory that the kernel is asked to back with huge pages.
//!
//! Random accesses to a 256 MiB map with 4 KiB pages miss the TLB on nearly every lookup;
//! with 2 MiB pages the whole map needs 128 TLB entries. `bench/speed.py` measured random
//! reads at 3.3 M I/O/s with ordinary pages and 4.3 M with huge pages (docs/performance.md).
//! Where the kernel does not grant huge pages the advice is ignored and nothing else
//! changes. Memory is the same as a `Vec`: `len × size_of::<T>()` bytes, touched lazily.

use bytemuck::Pod;
use memmap2::{Advice, MmapMut, MmapOptions};
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

/// Memory backed by one step of [`BigArray::populate`]: a multiple of the huge page size, and
/// about a tenth of a second of the kernel's zeroing where that is slowest (memory the
/// hypervisor backs on first touch, 0.49 GB/s on this project's machine).
const POPULATE_CHUNK_BYTES: usize = 64 << 20;

/// True if `bytes` of anonymous memory can be mapped now (and they are unmapped again):
/// the model's arrays are mapped when the drive is built, so a process whose address space
/// or memory is limited is refused before it starts building, with an error, not midway
/// with a failed mapping.
pub fn can_map(bytes: u64) -> bool {
    let Ok(len) = usize::try_from(bytes) else { return false };
    len == 0 || MmapOptions::new().len(len).no_reserve_swap().map_anon().is_ok()
}

/// A fixed-length array of plain values in its own mapping.
pub struct BigArray<T: Pod> {
    map: Option<MmapMut>,
    len: usize,
    _values: PhantomData<T>,
}

impl<T: Pod> BigArray<T> {
    /// `len` copies of `value`.
    pub fn filled(len: usize, value: T) -> Self {
        let bytes = len * std::mem::size_of::<T>();
        let map = (bytes > 0).then(|| {
            // No swap reserved: the model's memory is estimated and refused up front
            // (`config::model_memory_bytes`), and most of a large map may never be touched.
            let map = MmapOptions::new()
                .len(bytes)
                .no_reserve_swap()
                .map_anon()
                .unwrap_or_else(|e| panic!("cannot map {bytes} bytes of memory for the model: {e}"));
            // Advice only: where huge pages are unavailable the kernel ignores it.
            let _ = map.advise(Advice::HugePage);
            map
        });
        let mut array = BigArray { map, len, _values: PhantomData };
        // Anonymous memory starts zeroed; write only when the value is not all zeros.
        if bytemuck::bytes_of(&value).iter().any(|&b| b != 0) {
            array.fill(value);
        }
        array
    }

    /// Backs the whole array with memory now (`MADV_POPULATE_WRITE`), before it is written
    /// all over in random order: the kernel zeroes it in bulk instead of page fault by page
    /// fault, and stores and prefetches then find their pages. It goes a chunk at a time and
    /// stops early once `stop` is set (another thread may be doing this, and its owner may
    /// no longer want the array). Where the kernel lacks the advice, nothing happens and
    /// pages come on first touch as before.
    pub fn populate(&self, stop: &AtomicBool) {
        let Some(map) = &self.map else { return };
        for offset in (0..map.len()).step_by(POPULATE_CHUNK_BYTES) {
            let len = POPULATE_CHUNK_BYTES.min(map.len() - offset);
            if stop.load(Ordering::Relaxed) || map.advise_range(Advice::PopulateWrite, offset, len).is_err() {
                return;
            }
        }
    }

    /// Copies `values` into a new array.
    pub fn from_slice(values: &[T]) -> Self {
        let mut array = Self::filled(values.len(), T::zeroed());
        array.copy_from_slice(values);
        array
    }
}

impl<T: Pod> Deref for BigArray<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match &self.map {
            Some(m) => &bytemuck::cast_slice(&m[..])[..self.len],
            None => &[],
        }
    }
}

impl<T: Pod> DerefMut for BigArray<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        let len = self.len;
        match &mut self.map {
            Some(m) => &mut bytemuck::cast_slice_mut(&mut m[..])[..len],
            None => &mut [],
        }
    }
}

impl<T: Pod> Clone for BigArray<T> {
    fn clone(&self) -> Self {
        Self::from_slice(self)
    }
}

impl<T: Pod + PartialEq> PartialEq for BigArray<T> {
    fn eq(&self, other: &Self) -> bool {
        self[..] == other[..]
    }
}

impl<T: Pod + Eq> Eq for BigArray<T> {}

impl<T: Pod> fmt::Debug for BigArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BigArray[{} × {} bytes]", self.len, std::mem::size_of::<T>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_like_a_slice() {
        let mut a = BigArray::filled(1000, u32::MAX);
        assert!(a.iter().all(|&v| v == u32::MAX));
        a[7] = 3;
        let b = a.clone();
        assert_eq!(b[7], 3);
        assert_eq!(a, b);
        assert_eq!(BigArray::<u64>::filled(0, 1).len(), 0);
        assert_eq!(BigArray::filled(5, 0u64)[..], [0; 5]);
    }
}
