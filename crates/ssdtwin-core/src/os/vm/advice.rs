//! `madvise`, `msync`, and the flusher's writeback of dirty file pages.
//!
//! Read first: `mm/madvise.c` (`madvise_behavior` for `MADV_SEQUENTIAL`/`MADV_RANDOM`,
//! `madvise_willneed` — `force_page_cache_readahead` for files, `swapin_walk_pmd_entry` for
//! swap since 3.9 — and `madvise_dontneed` → `zap_page_range`), `mm/msync.c`
//! (`MS_SYNC` runs `vfs_fsync_range` on the shared file mapping; `MS_ASYNC` does nothing),
//! `mm/page-writeback.c` and `fs/fs-writeback.c` (background writeback above
//! `dirty_background_ratio`, in file order).
//!
//! Simplified: the flusher writes while dirty pages are above the background threshold
//! (of free plus file pages) or reclaim found dirty file pages; data dirty longer than
//! `dirty_expire` is not written early (the study's working sets put it over the threshold
//! first). The flusher's CPU is not booked; its requests' interrupts are.

use super::frames::{self, Lru};
use super::{
    Hint, IoKind, MAPPED, Madvise, MappingId, NO_WAIT, OUT, SyncWait, TAG, Touch, UNTOUCHED, VALUE, VmCtx, VmIo,
    WaitNode,
};
use crate::block::{BlockDevice, Opcode};
use crate::engine::SimTime;
use crate::os::page_cache::readahead::Window;
use crate::os::{CompletionPath, CoreId, Host, IoRequest};

impl<D: BlockDevice> Host<D> {
    /// `madvise(advice)` on pages `lo..hi` of mapping `m` by the thread `ctx` at `t` (its
    /// step began at `now`); returns when the call ends (reads it starts are not waited for).
    #[allow(clippy::too_many_arguments)]
    pub fn vm_madvise(
        &mut self,
        now: SimTime,
        t: SimTime,
        ctx: VmCtx,
        m: MappingId,
        lo: u64,
        hi: u64,
        advice: Madvise,
    ) -> SimTime {
        let mut t = t + self.config.syscall;
        let vm = self.vm.as_mut().expect("madvise needs a VM");
        let mi = m.0 as usize;
        let hi = hi.min(u64::from(vm.mappings[mi].pages));
        match advice {
            Madvise::Normal => vm.mappings[mi].hint = Hint::Normal,
            Madvise::Sequential => vm.mappings[mi].hint = Hint::Sequential,
            Madvise::Random => vm.mappings[mi].hint = Hint::Random,
            Madvise::WillNeed if vm.mappings[mi].file.is_some() => {
                // force_page_cache_readahead of the range's first pages, up to the era's cap.
                let fault = super::fault::Fault { ctx, now, g: u32::MAX, write: false };
                let w = Window { start: lo, size: vm.willneed_file_pages(hi - lo), marker: None };
                t = self.file_readahead(t, fault, mi, w, u32::MAX).1;
            }
            Madvise::WillNeed => {
                if vm.cfg.willneed_swap {
                    t = self.willneed_swap(now, t, ctx.core, mi, lo, hi);
                }
            }
            Madvise::DontNeed => t = self.dontneed(t, ctx.core, mi, lo, hi),
        }
        t
    }

    /// `MADV_WILLNEED` on anonymous pages (3.9+, `swapin_walk_pmd_entry`):
    /// `read_swap_cache_async` for every swapped page of the range in address order, each
    /// allocation reclaiming if it must (so a range larger than memory evicts what it read
    /// first); the swap plug merges reads of adjacent slots.
    fn willneed_swap(&mut self, now: SimTime, t: SimTime, core: CoreId, mi: usize, lo: u64, hi: u64) -> SimTime {
        let base = self.vm.as_ref().expect("checked").mappings[mi].base;
        let mut t = t;
        let mut run: Option<(u32, u32)> = None;
        for p in lo..hi {
            let vm = self.vm.as_mut().expect("checked");
            let st = vm.pages[(base + p as u32) as usize];
            if st & TAG != OUT || vm.swap.cached(st & VALUE).is_some() {
                continue;
            }
            let s = st & VALUE;
            let flags = frames::ANON | frames::SWAPCACHE | frames::LOCKED;
            let Some((f, t2)) = self.vm_alloc_readahead(now, t, core, u32::MAX, flags) else { break };
            let vm = self.vm.as_mut().expect("checked");
            t = vm.locks.acquire(vm.swap_lock(s), t2, core, vm.cfg.swap_lock_hold);
            t = vm.locks.acquire(vm.cache_lock(s), t, core, vm.cfg.swap_cache_hold);
            vm.frames.slot[f as usize] = s;
            vm.swap.set_cached(s, Some(f));
            vm.frames.push_head(Lru::InactiveAnon, f);
            run = match run {
                Some((first, len)) if vm.extends_run(first, len, s) => Some((first, len + 1)),
                Some((first, len)) => {
                    t = self.willneed_read(now, t, core, first, len);
                    Some((s, 1))
                }
                None => Some((s, 1)),
            };
        }
        if let Some((first, len)) = run {
            t = self.willneed_read(now, t, core, first, len);
        }
        t
    }

    /// The read of `len` swap slots from `first` that `MADV_WILLNEED` sends.
    fn willneed_read(&mut self, now: SimTime, t: SimTime, core: CoreId, first: u32, len: u32) -> SimTime {
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.swap_in_pages += u64::from(len);
        vm.counters.swap_readahead_pages += u64::from(len);
        let offset = vm.swap.offset_bytes(first, vm.cfg.page_bytes);
        self.vm_read(now, t, core, IoKind::SwapRead, first, len, offset)
    }

    /// `MADV_DONTNEED` (`zap_page_range`): anonymous pages and their swap slots are freed;
    /// file pages are unmapped and stay cached. Pages with I/O in flight stay as they are.
    fn dontneed(&mut self, t: SimTime, core: CoreId, mi: usize, lo: u64, hi: u64) -> SimTime {
        let vm = self.vm.as_mut().expect("checked");
        let base = vm.mappings[mi].base;
        let file = vm.mappings[mi].file.is_some();
        let mut t = t;
        for p in lo..hi {
            let vm = self.vm.as_mut().expect("checked");
            let g = base + p as u32;
            let st = vm.pages[g as usize];
            match st & TAG {
                MAPPED if file => {
                    let f = st & VALUE;
                    vm.frames.clear(f, frames::MAPPED);
                    vm.pages[g as usize] = super::CACHED | f;
                    t += vm.cfg.unmap_page;
                }
                MAPPED => {
                    let f = st & VALUE;
                    if vm.frames.flags[f as usize] & (frames::WRITEBACK | frames::LOCKED) != 0 {
                        continue;
                    }
                    t += vm.cfg.unmap_page;
                    if vm.frames.has(f, frames::SWAPCACHE) {
                        let s = vm.frames.slot[f as usize];
                        t = vm.locks.acquire(vm.cache_lock(s), t, core, vm.cfg.swap_cache_hold);
                        t = vm.locks.acquire(vm.swap_lock(s), t, core, vm.cfg.swap_lock_hold);
                        vm.swap.set_cached(s, None);
                        vm.swap.free(s);
                    }
                    vm.frames.unlink(f);
                    vm.pages[g as usize] = UNTOUCHED;
                    self.release_frame(t, f);
                }
                OUT if !file => {
                    // free_swap_and_cache.
                    let s = st & VALUE;
                    let cached = vm.swap.cached(s);
                    if cached.is_some_and(|f| vm.frames.flags[f as usize] & (frames::WRITEBACK | frames::LOCKED) != 0) {
                        continue;
                    }
                    t = vm.locks.acquire(vm.swap_lock(s), t, core, vm.cfg.swap_lock_hold);
                    if let Some(f) = cached {
                        t = vm.locks.acquire(vm.cache_lock(s), t, core, vm.cfg.swap_cache_hold);
                        vm.swap.set_cached(s, None);
                        if vm.frames.has(f, frames::ON_LRU) {
                            vm.frames.unlink(f);
                        }
                        self.release_frame(t, f);
                    }
                    let vm = self.vm.as_mut().expect("checked");
                    vm.swap.free(s);
                    vm.pages[g as usize] = UNTOUCHED;
                }
                _ => {}
            }
        }
        t
    }

    /// `msync(MS_SYNC)` of pages `lo..hi` of file mapping `m`: their dirty pages are written,
    /// writeback already under way there is waited for, then the device's cache is flushed;
    /// the thread waits for all of it.
    pub fn vm_msync(&mut self, now: SimTime, t: SimTime, ctx: VmCtx, m: MappingId, lo: u64, hi: u64) -> Touch {
        let t = t + self.config.syscall;
        let vm = self.vm.as_mut().expect("msync needs a VM");
        let mi = m.0 as usize;
        let Some(file_offset) = vm.mappings[mi].file else {
            // Anonymous memory has nothing to sync.
            return Touch::Ready(t);
        };
        let base = vm.mappings[mi].base;
        let hi = hi.min(u64::from(vm.mappings[mi].pages));
        let (glo, ghi) = (base + lo as u32, base + hi as u32);
        let sync = vm.syncs.insert(SyncWait { tag: ctx.tag, writes_left: 0 });
        let mut left = 0;
        // filemap_fdatawait_range: writes already at the device in the range.
        let pending: Vec<u32> = vm
            .file_writes
            .range(..ghi)
            .filter(|&(&first, &id)| first + vm.ios[id].n > glo)
            .map(|(_, &id)| id)
            .collect();
        for id in pending {
            let head = vm.ios[id].waiters;
            vm.ios[id].waiters = vm.waits.insert(WaitNode { tag: u64::from(sync), next: head });
            left += 1;
        }
        let limit = vm.request_pages() as u32;
        let mut t = t;
        loop {
            let vm = self.vm.as_mut().expect("checked");
            let Some(&first) = vm.dirty.range(glo..ghi).next() else { break };
            let mut len = 0;
            while len < limit && first + len < ghi && vm.dirty.remove(&(first + len)) {
                let f = vm.pages[(first + len) as usize] & VALUE;
                vm.frames.clear(f, frames::DIRTY);
                vm.frames.set(f, frames::WRITEBACK);
                len += 1;
            }
            vm.file_writeback += u64::from(len);
            vm.writeback_in_flight += 1;
            left += 1;
            let offset = file_offset + u64::from(first - base) * vm.cfg.page_bytes;
            t = self.vm_write(now, t, ctx.core, IoKind::FileWrite, first, len, offset, sync);
        }
        let vm = self.vm.as_mut().expect("checked");
        vm.syncs[sync].writes_left = left;
        self.in_flight += 1;
        if left == 0 {
            self.vm_flush(now, t, sync);
        }
        Touch::Wait(t)
    }

    /// One of msync `sync`'s writes ended; after the last, the device's cache is flushed.
    pub(super) fn sync_write_done(&mut self, at: SimTime, sync: u32) {
        let vm = self.vm.as_mut().expect("checked");
        let s = &mut vm.syncs[sync];
        s.writes_left -= 1;
        if s.writes_left == 0 {
            self.vm_flush(at, at, sync);
        }
    }

    fn vm_flush(&mut self, now: SimTime, t: SimTime, sync: u32) {
        let vm = self.vm.as_mut().expect("checked");
        let id = vm.ios.insert(VmIo { kind: IoKind::Flush, first: 0, n: 0, waiters: NO_WAIT, sync });
        let io = IoRequest { opcode: Opcode::Flush, offset_bytes: 0, bytes: 0, placement: None };
        let path = CompletionPath::Interrupt { core: CoreId(0), work: self.config.block_complete };
        self.submit(now, t.max(now), io, super::super::buffered::INTERNAL | super::super::buffered::vm_tag(id), path);
    }

    /// The flusher: while dirty file pages are over the background threshold (or reclaim
    /// wants them written), writes runs of them in page order from where it left off.
    pub(super) fn kick_file_writeback(&mut self, now: SimTime, t: SimTime) {
        loop {
            let vm = self.vm.as_mut().expect("checked");
            if vm.writeback_in_flight >= vm.cfg.writeback_depth {
                return;
            }
            if vm.dirty.is_empty() {
                vm.reclaim_wants_writeback = false;
                return;
            }
            let limits = vm.dirty_limits();
            if vm.dirty.len() as u64 <= limits.background && !vm.reclaim_wants_writeback {
                return;
            }
            let first =
                *vm.dirty.range(vm.writeback_cursor..).next().or_else(|| vm.dirty.iter().next()).expect("not empty");
            let mi = vm.mapping_of(first);
            let (base, end) = (vm.mappings[mi].base, vm.mappings[mi].base + vm.mappings[mi].pages);
            let file_offset = vm.mappings[mi].file.expect("dirty pages are file pages");
            let limit = vm.request_pages() as u32;
            let mut len = 0;
            while len < limit && first + len < end && vm.dirty.remove(&(first + len)) {
                let f = vm.pages[(first + len) as usize] & VALUE;
                vm.frames.clear(f, frames::DIRTY);
                vm.frames.set(f, frames::WRITEBACK);
                len += 1;
            }
            vm.writeback_cursor = first + len;
            vm.file_writeback += u64::from(len);
            vm.writeback_in_flight += 1;
            let offset = file_offset + u64::from(first - base) * vm.cfg.page_bytes;
            self.vm_write(now, t, CoreId(0), IoKind::FileWrite, first, len, offset, NO_WAIT);
        }
    }
}
