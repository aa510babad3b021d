//! Page faults: what a touch of an unmapped (or write-protected) page costs and starts.
//!
//! Read first: `mm/memory.c` (`handle_pte_fault`, `do_anonymous_page`, `do_swap_page`,
//! `do_wp_page`, `do_read_fault`, `do_shared_fault`, `do_fault_around`), `mm/swapfile.c`
//! (`reuse_swap_page`, `swap_free`), `mm/swap_state.c` (`lookup_swap_cache`,
//! `read_swap_cache_async`) and `mm/filemap.c` (`filemap_fault`, `filemap_map_pages`).
//!
//! A touch of a mapped page costs nothing here (the workload's own time covers it) beyond
//! setting its accessed bit; a write to a clean page is a write-protect fault. Otherwise:
//!
//! ```text
//! untouched anon ─▶ allocate, zero, map (minor)
//! swapped anon   ─▶ in the swap cache? map it (minor; a readahead hit if it was read ahead)
//!                   else read the readahead window around it, wait for its page (major)
//! file page      ─▶ cached? async readahead if it is the marker, map it (+ fault-around)
//!                   else do_sync_mmap_readahead by the mapping's hint, wait (major)
//! ```
//!
//! A thread that waits comes back with `resumed` set and finishes the same fault (the
//! fault's entry is not paid twice, nor counted as a second fault).

use super::frames::{self, FrameId, Lru};
use super::readahead::{MMAP_LOTSAMISS, SwapReadahead, cluster_block, vma_block};
use super::{
    CACHED, Hint, IoKind, MAPPED, MappingId, NO_WAIT, OUT, TAG, Touch, UNTOUCHED, VALUE, VmCtx, VmIo, WaitNode,
};
use crate::block::{BlockDevice, Opcode};
use crate::engine::{SimDuration, SimTime};
use crate::os::page_cache::readahead::Window;
use crate::os::{CompletionPath, Host, IoRequest};

/// The page a thread touches and how.
#[derive(Clone, Copy)]
pub(super) struct Fault {
    pub ctx: VmCtx,
    /// The event time the thread's step began (I/O is sent no earlier).
    pub now: SimTime,
    /// Global page number.
    pub g: u32,
    pub write: bool,
}

/// The largest swap readahead window, pages (`page_cluster` is clamped to its log).
pub(super) const MAX_SWAP_WINDOW: usize = 64;

impl<D: BlockDevice> Host<D> {
    /// Touches page `page` of mapping `m` at `t` (the thread's CPU time so far in its step,
    /// which began at the event time `now`), for a write or a read. See the module
    /// documentation of [`crate::os::vm`].
    #[inline]
    pub fn vm_touch(&mut self, now: SimTime, t: SimTime, ctx: VmCtx, m: MappingId, page: u64, write: bool) -> Touch {
        let vm = self.vm.as_mut().expect("vm_touch needs a host with [vm] and a mapping");
        let g = vm.mappings[m.0 as usize].base + page as u32;
        let st = vm.pages[g as usize];
        if st & TAG == MAPPED {
            let f = (st & VALUE) as usize;
            let flags = vm.frames.flags[f];
            vm.frames.flags[f] = flags | frames::YOUNG;
            if !write || flags & frames::DIRTY != 0 {
                return Touch::Ready(t);
            }
        }
        self.vm_fault(t, Fault { ctx, now, g, write }, st)
    }

    #[cold]
    fn vm_fault(&mut self, t: SimTime, fault: Fault, st: u32) -> Touch {
        let vm = self.vm.as_mut().expect("checked by vm_touch");
        let t = if fault.ctx.resumed { t } else { t + vm.cfg.fault };
        let file = vm.mappings[vm.mapping_of(fault.g)].file.is_some();
        match (st & TAG, file) {
            (MAPPED, _) => self.write_protect_fault(t, fault, st & VALUE),
            (UNTOUCHED, _) => self.new_page(t, fault, file),
            (OUT, false) => self.swap_fault(t, fault, st & VALUE),
            (OUT, true) => self.file_major(t, fault),
            (_, _) => self.file_cached(t, fault, st & VALUE),
        }
    }

    /// A write to a mapped clean page: a swapped-in anonymous page gives up its slot
    /// (`do_wp_page` → `reuse_swap_page`); a file page is dirtied (`page_mkwrite`).
    fn write_protect_fault(&mut self, t: SimTime, fault: Fault, f: FrameId) -> Touch {
        let core = fault.ctx.core;
        let vm = self.vm.as_mut().expect("checked");
        if !fault.ctx.resumed {
            vm.counters.minor_faults += 1;
        }
        if vm.frames.has(f, frames::ANON) {
            let t = self.reuse_swap_page(t, core, f);
            return Touch::Ready(t);
        }
        let t = t + vm.cfg.file_fault;
        self.dirty_file_page(t, fault, f)
    }

    /// `reuse_swap_page` for a write to anonymous frame `f`: its slot is freed (the copy
    /// on swap will never be read) unless the page is being written out.
    fn reuse_swap_page(&mut self, t: SimTime, core: crate::os::CoreId, f: FrameId) -> SimTime {
        let vm = self.vm.as_mut().expect("checked");
        vm.frames.set(f, frames::DIRTY);
        if !vm.frames.has(f, frames::SWAPCACHE) {
            return t;
        }
        let slot = vm.frames.slot[f as usize];
        // page_swapcount under the swap lock.
        let hold = vm.cfg.swap_lock_hold;
        let mut t = vm.locks.acquire(vm.swap_lock(slot), t, core, hold);
        if vm.frames.has(f, frames::WRITEBACK) {
            // Not while its write is at the device: it stays, dirty, in the swap cache.
            vm.frames.clear(f, frames::RECLAIM);
            return t;
        }
        // delete_from_swap_cache: the tree lock, then swapcache_free under the swap lock.
        t = vm.locks.acquire(vm.cache_lock(slot), t, core, vm.cfg.swap_cache_hold);
        t = vm.locks.acquire(vm.swap_lock(slot), t, core, hold);
        vm.swap.set_cached(slot, None);
        vm.swap.free(slot);
        vm.frames.clear(f, frames::SWAPCACHE);
        t
    }

    /// First touch of an anonymous page (`do_anonymous_page`: a zeroed page) or of a hole
    /// in a sparse file (the file system zero-fills it without I/O).
    fn new_page(&mut self, t: SimTime, fault: Fault, file: bool) -> Touch {
        let flags = frames::MAPPED | frames::YOUNG | if file { 0 } else { frames::ANON | frames::DIRTY };
        let (f, t) = match self.vm_alloc(fault.now, t, fault.ctx, fault.g, flags) {
            Ok(got) => got,
            Err(t) => return Touch::Wait(t),
        };
        let vm = self.vm.as_mut().expect("checked");
        let mut t = t + vm.cfg.zero_page;
        if file {
            // filemap_fault counts a page it had to add as a major fault, I/O or not.
            vm.counters.major_faults += 1;
            t += vm.cfg.file_fault;
            vm.frames.push_head(Lru::InactiveFile, f);
        } else {
            vm.counters.minor_faults += 1;
            vm.frames.push_head(Lru::of(true, vm.cfg.new_anon_active), f);
        }
        vm.pages[fault.g as usize] = MAPPED | f;
        if file && fault.write {
            return self.dirty_file_page(t, fault, f);
        }
        Touch::Ready(t)
    }

    /// A touch of a swapped-out anonymous page (`do_swap_page`).
    fn swap_fault(&mut self, t: SimTime, fault: Fault, slot: u32) -> Touch {
        let vm = self.vm.as_mut().expect("checked");
        let Some(f) = vm.swap.cached(slot) else {
            return self.swap_major(t, fault, slot);
        };
        if vm.frames.has(f, frames::LOCKED) {
            // Its read is in flight (our readahead or another thread's): wait for it.
            if !fault.ctx.resumed {
                vm.counters.minor_faults += 1;
            }
            self.wait_on_read(IoKind::SwapRead, slot, fault.ctx.tag);
            return Touch::Wait(t);
        }
        if !fault.ctx.resumed {
            vm.counters.minor_faults += 1;
        }
        // lookup_swap_cache: a page read ahead counts a hit for the window's sizing; with
        // VMA readahead every page found also records where the mapping was last faulted.
        let hit = vm.frames.clear(f, frames::READAHEAD);
        if hit {
            vm.counters.swap_readahead_hits += 1;
        }
        if vm.cfg.swap_readahead == SwapReadahead::Vma {
            let m = vm.mapping_of(fault.g);
            let mp = &mut vm.mappings[m];
            mp.swap_ra.prev = u64::from(fault.g - mp.base);
            if hit {
                mp.swap_ra.hits = (mp.swap_ra.hits + 1).min(SWAP_RA_HITS_MAX);
            }
        } else if hit {
            vm.swap_ra.hits += 1;
        }
        let core = fault.ctx.core;
        let mut t = t + vm.cfg.swapin_fault;
        vm.frames.owner[f as usize] = fault.g;
        vm.frames.set(f, frames::MAPPED | frames::YOUNG);
        vm.pages[fault.g as usize] = MAPPED | f;
        // swap_free: the PTE's reference to the slot goes (the swap cache keeps it).
        t = vm.locks.acquire(vm.swap_lock(slot), t, core, vm.cfg.swap_lock_hold);
        if fault.write {
            t = self.reuse_swap_page(t, core, f);
        }
        Touch::Ready(t)
    }

    /// A swapped-out page not in the swap cache: read the readahead window's slots that are
    /// in use and not cached, the faulting page first, and wait for it.
    fn swap_major(&mut self, t: SimTime, fault: Fault, slot: u32) -> Touch {
        let core = fault.ctx.core;
        let flags = frames::ANON | frames::SWAPCACHE | frames::LOCKED;
        let (f0, mut t) = match self.vm_alloc(fault.now, t, fault.ctx, u32::MAX, flags) {
            Ok(got) => got,
            Err(t) => return Touch::Wait(t),
        };
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.major_faults += 1;
        let mut window = [0u32; MAX_SWAP_WINDOW];
        let n = vm.swapin_window(fault.g, slot, &mut window);
        // The faulting page's frame is taken; readahead pages get one if reclaim finds it
        // (read_swap_cache_async allocates as the fault does), else they are skipped.
        let (swap_hold, cache_hold) = (vm.cfg.swap_lock_hold, vm.cfg.swap_cache_hold);
        let mut got = [u32::MAX; MAX_SWAP_WINDOW];
        for k in 0..n {
            let s = window[k];
            let f = if s == slot {
                f0
            } else {
                match self.vm_alloc_readahead(fault.now, t, core, u32::MAX, flags | frames::READAHEAD) {
                    Some((f, t2)) => {
                        t = t2;
                        f
                    }
                    None => continue,
                }
            };
            let vm = self.vm.as_mut().expect("checked");
            // swapcache_prepare under the swap lock; add_to_swap_cache under the tree lock.
            t = vm.locks.acquire(vm.swap_lock(s), t, core, swap_hold);
            t = vm.locks.acquire(vm.cache_lock(s), t, core, cache_hold);
            vm.frames.slot[f as usize] = s;
            vm.swap.set_cached(s, Some(f));
            vm.frames.push_head(Lru::InactiveAnon, f);
            got[k] = s;
        }
        // Adjacent slots merge into one request (the plug), up to the request size.
        let page_bytes = self.vm.as_ref().expect("checked").cfg.page_bytes;
        let mut k = 0;
        let mut read = 0u64;
        while k < n {
            if got[k] == u32::MAX {
                k += 1;
                continue;
            }
            let vm = self.vm.as_mut().expect("checked");
            let first = got[k];
            let len = vm.slot_run(&got[k..n]);
            let offset = vm.swap.offset_bytes(first, page_bytes);
            read += u64::from(len);
            t = self.vm_read(fault.now, t, core, IoKind::SwapRead, first, len, offset);
            k += len as usize;
        }
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.swap_in_pages += read;
        vm.counters.swap_readahead_pages += read - 1;
        self.wait_on_read(IoKind::SwapRead, slot, fault.ctx.tag);
        Touch::Wait(t)
    }

    /// A file page in the page cache, not mapped: `do_async_mmap_readahead`, then map it
    /// (with fault-around for reads) once its read, if any, is done.
    fn file_cached(&mut self, t: SimTime, fault: Fault, f: FrameId) -> Touch {
        let vm = self.vm.as_mut().expect("checked");
        let m = vm.mapping_of(fault.g);
        let mut t = t;
        if !fault.ctx.resumed {
            vm.counters.minor_faults += 1;
            if vm.cfg.fault_around_bytes > vm.cfg.page_bytes && !fault.write && !vm.frames.has(f, frames::READAHEAD) {
                // do_read_fault maps what is cached around the fault first; if that mapped
                // the page itself, filemap_fault is never called.
                t = self.fault_around(t, m, fault.g);
                let vm = self.vm.as_mut().expect("checked");
                if vm.pages[fault.g as usize] & TAG == MAPPED {
                    return Touch::Ready(t);
                }
            }
            let vm = self.vm.as_mut().expect("checked");
            if vm.mappings[m].hint != Hint::Random {
                let ra_pages = vm.ra_pages();
                let mp = &mut vm.mappings[m];
                mp.mmap_miss = mp.mmap_miss.saturating_sub(1);
                if vm.frames.clear(f, frames::READAHEAD) {
                    let index = u64::from(fault.g - mp.base);
                    let w = mp.ra.on_marker(index, ra_pages);
                    t = self.file_readahead(t, fault, m, w, u32::MAX).1;
                }
            }
        }
        let vm = self.vm.as_mut().expect("checked");
        if vm.frames.has(f, frames::LOCKED) {
            self.wait_on_read(IoKind::FileRead, fault.g, fault.ctx.tag);
            return Touch::Wait(t);
        }
        let t = t + vm.cfg.file_fault;
        vm.frames.set(f, frames::MAPPED | frames::YOUNG);
        vm.pages[fault.g as usize] = MAPPED | f;
        if fault.write && !vm.frames.has(f, frames::DIRTY) {
            return self.dirty_file_page(t, fault, f);
        }
        Touch::Ready(t)
    }

    /// `do_fault_around`: maps the cached, read, unmarked pages of the aligned
    /// `fault_around_bytes` block around `g` within mapping `m`, without I/O.
    fn fault_around(&mut self, t: SimTime, m: usize, page: u32) -> SimTime {
        let vm = self.vm.as_mut().expect("checked");
        let block = (vm.cfg.fault_around_bytes / vm.cfg.page_bytes) as u32;
        let mp = &vm.mappings[m];
        let index = page - mp.base;
        let lo = mp.base + index / block * block;
        let hi = (lo + block).min(mp.base + mp.pages);
        let mut t = t;
        for p in lo..hi {
            let st = vm.pages[p as usize];
            if st & TAG != CACHED {
                continue;
            }
            let f = st & VALUE;
            if vm.frames.flags[f as usize] & (frames::LOCKED | frames::READAHEAD) != 0 {
                continue;
            }
            vm.frames.set(f, frames::MAPPED);
            vm.pages[p as usize] = MAPPED | f;
            let mp = &mut vm.mappings[m];
            mp.mmap_miss = mp.mmap_miss.saturating_sub(1);
            t += vm.cfg.map_page;
        }
        t
    }

    /// A file page not in the page cache: `do_sync_mmap_readahead` by the mapping's hint,
    /// then wait for the page's read.
    fn file_major(&mut self, t: SimTime, fault: Fault) -> Touch {
        let vm = self.vm.as_mut().expect("checked");
        let m = vm.mapping_of(fault.g);
        let ra_pages = vm.ra_pages();
        let mp = &mut vm.mappings[m];
        let index = u64::from(fault.g - mp.base);
        let window = match mp.hint {
            Hint::Random => Window { start: index, size: 1, marker: None },
            Hint::Sequential => {
                let cached = Self::cached_before(&vm.pages, mp.base, index, ra_pages);
                mp.ra.on_miss(index, ra_pages, ra_pages, cached)
            }
            Hint::Normal => {
                mp.mmap_miss = (mp.mmap_miss + 1).min(MMAP_LOTSAMISS * 10);
                if mp.mmap_miss > MMAP_LOTSAMISS {
                    Window { start: index, size: 1, marker: None }
                } else {
                    mp.ra.read_around(index, ra_pages)
                }
            }
        };
        let (ok, t) = self.file_readahead(t, fault, m, window, fault.g);
        if !ok {
            return Touch::Wait(t);
        }
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.major_faults += 1;
        self.wait_on_read(IoKind::FileRead, fault.g, fault.ctx.tag);
        Touch::Wait(t)
    }

    /// Contiguous cached pages just below `index` of the mapping at `base`, at most `limit`.
    fn cached_before(pages: &[u32], base: u32, index: u64, limit: u64) -> u64 {
        (1..=limit.min(index)).take_while(|&k| pages[(u64::from(base) + index - k) as usize] & TAG != OUT).count()
            as u64
    }

    /// Reads the pages of `window` of `mapping` that are on the target and not cached,
    /// as requests of contiguous pages from the thread's core. `need` is the faulting page
    /// (`u32::MAX` for none): its frame is taken first and may reclaim; if none is to be had
    /// the thread waits for one and this returns false.
    pub(super) fn file_readahead(
        &mut self,
        t: SimTime,
        fault: Fault,
        mapping: usize,
        window: Window,
        need: u32,
    ) -> (bool, SimTime) {
        let vm = self.vm.as_mut().expect("checked");
        let mp = &vm.mappings[mapping];
        let (base, pages) = (mp.base, u64::from(mp.pages));
        let file_offset = mp.file.expect("a file mapping");
        let page_bytes = vm.cfg.page_bytes;
        let limit = vm.request_pages();
        let end = (window.start + window.size).min(pages);
        let mut t = t;
        let mut need_read = false;
        if need != u32::MAX && vm.pages[need as usize] & TAG == OUT {
            let marker = window.marker.is_some_and(|p| base + p as u32 == need);
            let flags = frames::LOCKED | if marker { frames::READAHEAD } else { 0 };
            match self.vm_alloc(fault.now, t, fault.ctx, need, flags) {
                Ok((f, t2)) => {
                    t = t2;
                    let vm = self.vm.as_mut().expect("checked");
                    vm.pages[need as usize] = CACHED | f;
                    vm.frames.push_head(Lru::InactiveFile, f);
                    need_read = true;
                }
                Err(t) => return (false, t),
            }
        }
        let mut run: Option<(u32, u32)> = None;
        let mut read = 0u64;
        for p in window.start..end {
            let page = base + p as u32;
            let vm = self.vm.as_mut().expect("checked");
            let include = if page == need && need_read {
                need_read = false;
                true
            } else if vm.pages[page as usize] & TAG == OUT {
                // A readahead page gets a frame if reclaim finds one, else it is skipped.
                let flags = frames::LOCKED | if window.marker == Some(p) { frames::READAHEAD } else { 0 };
                match self.vm_alloc_readahead(fault.now, t, fault.ctx.core, page, flags) {
                    Some((f, t2)) => {
                        t = t2;
                        let vm = self.vm.as_mut().expect("checked");
                        vm.pages[page as usize] = CACHED | f;
                        vm.frames.push_head(Lru::InactiveFile, f);
                        true
                    }
                    None => false,
                }
            } else {
                false
            };
            let extends = run.is_some_and(|(first, len)| include && first + len == page && u64::from(len) < limit);
            if let Some((first, len)) = run.filter(|_| !extends) {
                let offset = file_offset + u64::from(first - base) * page_bytes;
                t = self.vm_read(fault.now, t, fault.ctx.core, IoKind::FileRead, first, len, offset);
                run = None;
            }
            if include {
                read += 1;
                run = Some(run.map_or((page, 1), |(first, len)| (first, len + 1)));
            }
        }
        if let Some((first, len)) = run {
            let offset = file_offset + u64::from(first - base) * page_bytes;
            t = self.vm_read(fault.now, t, fault.ctx.core, IoKind::FileRead, first, len, offset);
        }
        if need_read {
            // The faulting page was outside the window: read it alone.
            let offset = file_offset + u64::from(need - base) * page_bytes;
            read += 1;
            t = self.vm_read(fault.now, t, fault.ctx.core, IoKind::FileRead, need, 1, offset);
        }
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.file_read_pages += read;
        vm.counters.file_readahead_pages += read.saturating_sub(u64::from(need != u32::MAX));
        (true, t)
    }

    /// The in-flight read of `map` that covers `key`, if any.
    pub(super) fn read_covering(
        map: &std::collections::BTreeMap<u32, u32>,
        ios: &crate::engine::Slab<VmIo>,
        key: u32,
    ) -> Option<u32> {
        let (&first, &id) = map.range(..=key).next_back()?;
        (first + ios[id].n > key).then_some(id)
    }

    /// Sends a read of `n` pages at `offset` on the target for the thread on `core`, whose
    /// CPU pays the block layer's submission; returns the thread's time after it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vm_read(
        &mut self,
        now: SimTime,
        t: SimTime,
        core: crate::os::CoreId,
        kind: IoKind,
        first: u32,
        n: u32,
        offset: u64,
    ) -> SimTime {
        let t = t + self.config.block_submit + self.config.block_unit.times(self.vm_units(n));
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.read_requests += 1;
        let id = vm.ios.insert(VmIo { kind, first, n, waiters: NO_WAIT, sync: NO_WAIT });
        match kind {
            IoKind::SwapRead => vm.swap_reads.insert(first, id),
            _ => vm.file_reads.insert(first, id),
        };
        let bytes = u64::from(n) * vm.cfg.page_bytes;
        let io = IoRequest { opcode: Opcode::Read, offset_bytes: offset, bytes, placement: None };
        let path = CompletionPath::Interrupt { core: self.irq_core(core), work: self.config.block_complete };
        self.submit(now, t.max(now), io, super::super::buffered::INTERNAL | super::super::buffered::vm_tag(id), path);
        t
    }

    /// 4 KiB units in `n` pages (what a host-side FTL's driver maps per request).
    pub(super) fn vm_units(&self, n: u32) -> u64 {
        let page = self.vm.as_ref().map_or(4096, |v| v.cfg.page_bytes);
        u64::from(n) * page / 4096
    }

    /// Makes the thread `tag` wait for the in-flight read covering `key`.
    pub(super) fn wait_on_read(&mut self, kind: IoKind, key: u32, tag: u64) {
        let vm = self.vm.as_mut().expect("checked");
        let map = if kind == IoKind::SwapRead { &vm.swap_reads } else { &vm.file_reads };
        let id = Self::read_covering(map, &vm.ios, key).expect("a locked page has its read in flight");
        let head = vm.ios[id].waiters;
        vm.ios[id].waiters = vm.waits.insert(WaitNode { tag, next: head });
        self.in_flight += 1;
    }

    /// File frame `f` becomes dirty (a write fault); the writer is throttled every
    /// `ratelimit` pages it dirties if dirty pages are over the limits
    /// (`balance_dirty_pages_ratelimited`).
    fn dirty_file_page(&mut self, t: SimTime, fault: Fault, f: FrameId) -> Touch {
        const RATELIMIT_PAGES: u32 = 32;
        let vm = self.vm.as_mut().expect("checked");
        if !vm.frames.has(f, frames::DIRTY) {
            vm.frames.set(f, frames::DIRTY);
            if !vm.frames.has(f, frames::WRITEBACK) {
                vm.dirty.insert(fault.g);
            }
        }
        let c = fault.ctx.core.0 as usize;
        vm.dirtied[c] += 1;
        if vm.dirtied[c] < RATELIMIT_PAGES {
            return Touch::Ready(t);
        }
        let pages = u64::from(std::mem::take(&mut vm.dirtied[c]));
        let limits = vm.dirty_limits();
        let dirty = vm.dirty.len() as u64 + vm.file_writeback;
        self.kick_file_writeback(fault.now, t);
        let vm = self.vm.as_mut().expect("checked");
        let pause = crate::os::page_cache::dirty::pause(&limits, dirty, pages, vm.cfg.page_bytes, &vm.bandwidth, 1);
        if pause == SimDuration::ZERO {
            return Touch::Ready(t);
        }
        vm.counters.dirty_throttle_ns += pause.as_ns();
        self.in_flight += 1;
        self.vm_wake(t + pause, fault.ctx.tag);
        Touch::Wait(t)
    }
}

impl super::VmState {
    /// `swapin_readahead`'s window for a fault on page `g` whose slot is `slot`: the slots
    /// to read (in use, not cached; the faulting one always), in slot order, into
    /// `window`; returns how many.
    fn swapin_window(&mut self, g: u32, slot: u32, window: &mut [u32; MAX_SWAP_WINDOW]) -> usize {
        let max = 1u32 << self.cfg.page_cluster;
        let mut n = 0;
        match self.cfg.swap_readahead {
            SwapReadahead::ClusterFixed | SwapReadahead::ClusterAdaptive => {
                let area = &self.swap.areas[self.swap.area_of(slot)];
                let (base, slots) = (area.base, area.slots);
                let local = u64::from(slot - base);
                let win = if self.cfg.swap_readahead == SwapReadahead::ClusterFixed {
                    max
                } else {
                    self.swap_ra.window(local, max)
                };
                let (lo, hi) = cluster_block(local, win);
                // The swap header (slot 0) is never read.
                for s in lo.max(1)..hi.min(u64::from(slots)) {
                    let s = base + s as u32;
                    if s == slot || (self.swap.in_use(s) && self.swap.cached(s).is_none()) {
                        window[n] = s;
                        n += 1;
                    }
                }
            }
            SwapReadahead::Vma => {
                let m = self.mapping_of(g);
                let mp = &mut self.mappings[m];
                let page = u64::from(g - mp.base);
                let prev = mp.swap_ra.prev;
                let win = mp.swap_ra.vma_window(page, max);
                // Clipped to the mapping and to the 2 MiB the faulting PTE's table covers.
                let per_table = (2 << 20) / self.cfg.page_bytes;
                let table = page / per_table * per_table;
                let (lo, hi) = vma_block(page, prev, win, table, (table + per_table).min(u64::from(mp.pages)));
                let base = mp.base;
                for p in lo..hi {
                    let st = self.pages[(base + p as u32) as usize];
                    if st & TAG == OUT {
                        let s = st & VALUE;
                        if s == slot || self.swap.cached(s).is_none() {
                            window[n] = s;
                            n += 1;
                        }
                    }
                }
                // The reads go out in slot order so that adjacent slots merge.
                window[..n].sort_unstable();
            }
        }
        n
    }
}

/// `SWAP_RA_HITS_MAX`: the most hits a mapping's VMA readahead state holds.
const SWAP_RA_HITS_MAX: u32 = (1 << 6) - 1;
