//! Software prefetch of one slice element.
//!
//! A random 4 KiB read touches two arrays too large for any cache: the random map (which
//! block is next) and the L2P map (where it lives). Each is a DRAM miss of ~100 ns, the
//! whole per-I/O budget at 5 M I/Os per second. The runner knows the next I/O one completion
//! ahead and prefetches both, so the misses overlap other work. A plain early load does not
//! help: its value must be produced, so the miss still stalls the pipeline.
//!
//! This is the crate's only `unsafe`: PREFETCHT0 is a hint that never faults and has no
//! architectural effect, and the address comes from a live reference.

/// Asks the CPU to bring `slice[index]` into cache; does nothing if `index` is out of range
/// or the target has no prefetch instruction.
// Always inlined: a call would cost more than the hint saves.
#[allow(clippy::inline_always)]
#[inline(always)]
pub fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(element) = slice.get(index) {
        let address = std::ptr::from_ref(element).cast::<i8>();
        #[allow(unsafe_code)]
        // SAFETY: a prefetch cannot fault or change memory; `address` is a valid reference.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(address);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}

/// Asks the CPU to bring the cache line holding `value` into cache.
#[allow(clippy::inline_always)]
#[inline(always)]
pub fn prefetch_ref<T>(value: &T) {
    prefetch(std::slice::from_ref(value), 0);
}
