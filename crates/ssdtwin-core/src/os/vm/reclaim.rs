//! Page allocation and reclaim: the watermarks, kswapd, direct reclaim, and what happens
//! when the VM's reads and writes end.
//!
//! Read first: `mm/page_alloc.c` (`__alloc_pages_slowpath`: wake kswapd below the low
//! watermark, reclaim directly below min), `mm/vmscan.c` (`kswapd` → `balance_pgdat`,
//! `shrink_lruvec`, `get_scan_count`, `shrink_active_list`, `shrink_inactive_list`,
//! `shrink_page_list`, `page_check_references`, `inactive_list_is_low`), `mm/swap_state.c`
//! (`add_to_swap`), `mm/page_io.c` (`swap_writepage`) and `mm/swap.c`
//! (`rotate_reclaimable_page`).
//!
//! A reclaim batch takes up to `SWAP_CLUSTER_MAX` (32) pages from the tail of one inactive
//! list — anonymous or file, in proportion to `swappiness` and the lists' sizes — after
//! refilling the inactive lists from the active ones when they are low. For each page:
//! in I/O, it goes back; referenced (its accessed bit, unless its mapping's hint says to
//! ignore it), an anonymous page is activated and a file page kept once then activated;
//! otherwise it is reclaimed: an anonymous page gets a swap slot (`add_to_swap`, under the
//! swap locks) and is unmapped and written (`pageout`), adjacent slots merged into one
//! request; a clean swap-cache page or a clean file page is dropped at once; a dirty file
//! page is left to the flusher. Pages written by reclaim are freed when their write ends
//! (the kernel rotates them to the tail with `PG_reclaim` and frees them on the next scan).
//!
//! kswapd is a kernel thread on the least busy core: woken when free memory falls to the
//! low watermark, it runs batches until free memory (counting pages whose reclaim write is
//! in flight) reaches the high one. A fault that finds memory at the min watermark reclaims
//! a batch itself, on its own CPU, and waits for a frame if that freed none.

use super::frames::{self, FrameId, Lru, NIL};
use super::{
    CACHED, Hint, IoKind, LockScope, MAPPED, NO_WAIT, OUT, SWAP_CLUSTER_MAX, TAG, VALUE, VmCtx, VmEvent, VmIo,
};
use crate::block::{BlockDevice, Opcode};
use crate::engine::SimTime;
use crate::os::{CompletionPath, CoreId, Host, IoDone, IoRequest};

impl<D: BlockDevice> Host<D> {
    /// A frame for page `owner` with `flags`, for the thread `ctx` at `t` (its step began at
    /// `now`): at once above the min watermark (waking kswapd at the low one), else after
    /// reclaiming a batch itself. `Err(t)`: none to be had; the thread waits for one.
    pub(super) fn vm_alloc(
        &mut self,
        now: SimTime,
        t: SimTime,
        ctx: VmCtx,
        owner: u32,
        flags: u16,
    ) -> Result<(FrameId, SimTime), SimTime> {
        let vm = self.vm.as_mut().expect("checked");
        let free = vm.frames.free_count();
        if free <= vm.wmark_low {
            self.wake_kswapd(t);
        }
        let vm = self.vm.as_mut().expect("checked");
        if free > vm.wmark_min {
            let f = vm.frames.alloc(owner, flags).expect("free frames were counted");
            return Ok((f, t));
        }
        vm.counters.direct_reclaims += 1;
        let (t, _) = self.shrink(now, t, ctx.core);
        let vm = self.vm.as_mut().expect("checked");
        if let Some(f) = vm.frames.alloc(owner, flags) {
            return Ok((f, t));
        }
        vm.frame_waiters.push_back((ctx.tag, t));
        self.in_flight += 1;
        Err(t)
    }

    /// A frame for a page read ahead: as [`Host::vm_alloc`] (it may reclaim, as
    /// `page_cache_alloc_readahead`'s `__GFP_NORETRY` allocation does once), but with none
    /// to be had the page is skipped rather than waited for.
    pub(super) fn vm_alloc_readahead(
        &mut self,
        now: SimTime,
        t: SimTime,
        core: CoreId,
        owner: u32,
        flags: u16,
    ) -> Option<(FrameId, SimTime)> {
        let vm = self.vm.as_mut().expect("checked");
        let free = vm.frames.free_count();
        if free <= vm.wmark_low {
            self.wake_kswapd(t);
        }
        let vm = self.vm.as_mut().expect("checked");
        if free > vm.wmark_min {
            return vm.frames.alloc(owner, flags).map(|f| (f, t));
        }
        vm.counters.direct_reclaims += 1;
        let (t, _) = self.shrink(now, t, core);
        let vm = self.vm.as_mut().expect("checked");
        vm.frames.alloc(owner, flags).map(|f| (f, t))
    }

    /// Wakes kswapd if it sleeps.
    fn wake_kswapd(&mut self, t: SimTime) {
        let vm = self.vm.as_mut().expect("checked");
        if vm.kswapd_running {
            return;
        }
        vm.kswapd_running = true;
        vm.kswapd_stalled = false;
        vm.counters.kswapd_wakeups += 1;
        self.events.push(t, super::super::Event::Vm(VmEvent::Kswapd));
    }

    /// kswapd's next batch, at `at`.
    pub(super) fn kswapd_batch(&mut self, at: SimTime) {
        let vm = self.vm.as_mut().expect("kswapd runs only with a VM");
        if vm.frames.free_count() + vm.reclaim_pending >= vm.wmark_high {
            vm.kswapd_running = false;
            return;
        }
        let core = vm.kswapd_core;
        let start = self.cpu.available(core, at);
        let (end, scanned) = self.shrink(at, start, core);
        self.cpu.task(core, at, end.since(start));
        let vm = self.vm.as_mut().expect("checked");
        if scanned == 0 {
            // Nothing to scan (all in flight): sleep until a write ends or memory is asked for.
            vm.kswapd_running = false;
            vm.kswapd_stalled = true;
            return;
        }
        self.events.push(end, super::super::Event::Vm(VmEvent::Kswapd));
    }

    /// One reclaim batch on `core` at `t` (its caller's step began at `now`); returns when
    /// its CPU work ends and how many pages it scanned.
    pub(super) fn shrink(&mut self, now: SimTime, t: SimTime, core: CoreId) -> (SimTime, u64) {
        let vm = self.vm.as_mut().expect("checked");
        let mut t = t;
        // inactive_list_is_low: refill the inactive lists from the active ones.
        let (ia, aa) = (vm.frames.len(Lru::InactiveAnon), vm.frames.len(Lru::ActiveAnon));
        if ia * vm.inactive_anon_ratio < aa {
            t = self.shrink_active(t, Lru::ActiveAnon);
        }
        let vm = self.vm.as_mut().expect("checked");
        if vm.frames.len(Lru::InactiveFile) < vm.frames.len(Lru::ActiveFile) {
            t = self.shrink_active(t, Lru::ActiveFile);
        }
        let vm = self.vm.as_mut().expect("checked");
        // get_scan_count without its rotation feedback: anonymous pages weigh swappiness,
        // file pages 200 - swappiness, each times the list's size; no swap, no anon scan.
        let swap_left = vm.swap.total_slots() > vm.swap.used_slots() + vm.swap.areas.len() as u64;
        let anon = if swap_left { vm.frames.len(Lru::InactiveAnon) } else { 0 };
        let file = vm.frames.len(Lru::InactiveFile);
        let wa = u64::from(vm.cfg.swappiness) * anon;
        let wf = u64::from(200 - vm.cfg.swappiness.min(200)) * file;
        let pick_anon = if wa == 0 || wf == 0 {
            wa > 0
        } else {
            vm.scan_balance += wa;
            if vm.scan_balance >= wa + wf {
                vm.scan_balance -= wa + wf;
                true
            } else {
                false
            }
        };
        if anon == 0 && file == 0 {
            return (t, 0);
        }
        let lru = if pick_anon { Lru::InactiveAnon } else { Lru::InactiveFile };
        self.shrink_inactive(now, t, core, lru)
    }

    /// `shrink_active_list`: up to a batch of the oldest active pages go to the inactive
    /// list, their accessed bits cleared (`page_referenced`).
    fn shrink_active(&mut self, t: SimTime, active: Lru) -> SimTime {
        let vm = self.vm.as_mut().expect("checked");
        let inactive = if active == Lru::ActiveAnon { Lru::InactiveAnon } else { Lru::InactiveFile };
        let mut t = t;
        for _ in 0..SWAP_CLUSTER_MAX {
            let f = vm.frames.tail(active);
            if f == NIL {
                break;
            }
            vm.frames.unlink(f);
            vm.frames.clear(f, frames::YOUNG | frames::REFERENCED);
            vm.frames.push_head(inactive, f);
            t += vm.cfg.scan_page;
            vm.counters.scanned_pages += 1;
        }
        t
    }

    /// `shrink_inactive_list` + `shrink_page_list` over up to a batch of `lru`'s tail.
    fn shrink_inactive(&mut self, now: SimTime, t: SimTime, core: CoreId, lru: Lru) -> (SimTime, u64) {
        let mut t = t;
        let mut scanned = 0;
        // Slots written by this batch, for the merged requests.
        let mut writes = [0u32; SWAP_CLUSTER_MAX as usize];
        let mut n_writes = 0;
        for _ in 0..SWAP_CLUSTER_MAX {
            let vm = self.vm.as_mut().expect("checked");
            let f = vm.frames.tail(lru);
            if f == NIL {
                break;
            }
            vm.frames.unlink(f);
            scanned += 1;
            vm.counters.scanned_pages += 1;
            t += vm.cfg.scan_page;
            let flags = vm.frames.flags[f as usize];
            let anon = flags & frames::ANON != 0;
            if flags & frames::LOCKED != 0 {
                vm.frames.push_head(lru, f);
                continue;
            }
            if flags & frames::WRITEBACK != 0 {
                // Freed when its write ends (it stays off the list meanwhile).
                vm.frames.set(f, frames::RECLAIM);
                continue;
            }
            // page_check_references.
            let owner = vm.frames.owner[f as usize];
            let mapped = flags & frames::MAPPED != 0;
            let hint = if mapped { vm.mappings[vm.mapping_of(owner)].hint } else { Hint::Normal };
            let ignore = (hint == Hint::Sequential && vm.cfg.sequential_ignores_references)
                || (hint == Hint::Random && vm.cfg.random_ignores_references);
            let young = vm.frames.clear(f, frames::YOUNG) && mapped && !ignore;
            let referenced = vm.frames.clear(f, frames::REFERENCED);
            if young {
                if anon || referenced {
                    vm.frames.push_head(Lru::of(anon, true), f);
                } else {
                    vm.frames.set(f, frames::REFERENCED);
                    vm.frames.push_head(lru, f);
                }
                continue;
            }
            if anon {
                let (t2, written) = self.reclaim_anon(t, core, f);
                t = t2;
                if let Some(slot) = written {
                    writes[n_writes] = slot;
                    n_writes += 1;
                }
            } else {
                t = self.reclaim_file(t, f);
            }
        }
        t = self.send_swap_writes(now, t, core, &mut writes[..n_writes]);
        // Dirty file pages met: wake the flusher (`wakeup_flusher_threads`).
        if self.vm.as_ref().expect("checked").reclaim_wants_writeback {
            self.kick_file_writeback(now, t);
        }
        (t, scanned)
    }

    /// Reclaims anonymous frame `f` (isolated): a swap slot if it has none, then unmapped;
    /// dirty, it is written (returns its slot); clean, it is dropped. With no swap left it
    /// is activated.
    fn reclaim_anon(&mut self, t: SimTime, core: CoreId, f: FrameId) -> (SimTime, Option<u32>) {
        let vm = self.vm.as_mut().expect("checked");
        let mut t = t;
        if !vm.frames.has(f, frames::SWAPCACHE) {
            // add_to_swap: get_swap_page (the list lock; in 3.6 the one swap_lock, else
            // the area's), then the swap cache.
            let hold = vm.cfg.swap_lock_hold;
            if vm.cfg.swap_lock == LockScope::PerDevice {
                t = vm.locks.acquire(super::LockId(0), t, core, hold);
            }
            let Some(a) = vm.swap.alloc(core.0 as usize) else {
                vm.frames.push_head(Lru::ActiveAnon, f);
                return (t, None);
            };
            t = vm.locks.acquire(vm.swap_lock(a.slot), t, core, hold);
            vm.counters.swap_map_scanned_bytes += a.scanned;
            t += crate::engine::SimDuration(vm.cfg.swap_map_scan_per_kib.as_ns() * a.scanned / 1024);
            t = vm.locks.acquire(vm.cache_lock(a.slot), t, core, vm.cfg.swap_cache_hold);
            vm.frames.slot[f as usize] = a.slot;
            vm.frames.set(f, frames::SWAPCACHE);
            vm.swap.set_cached(a.slot, Some(f));
        }
        let slot = vm.frames.slot[f as usize];
        if vm.frames.clear(f, frames::MAPPED) {
            // try_to_unmap: the PTE now holds the swap entry.
            t += vm.cfg.unmap_page;
            let owner = vm.frames.owner[f as usize];
            vm.pages[owner as usize] = OUT | slot;
        }
        if vm.frames.clear(f, frames::DIRTY) {
            vm.frames.set(f, frames::WRITEBACK | frames::RECLAIM);
            vm.reclaim_pending += 1;
            vm.counters.swap_out_pages += 1;
            return (t, Some(slot));
        }
        // A clean swap-cache page: __remove_mapping and swapcache_free.
        t = vm.locks.acquire(vm.cache_lock(slot), t, core, vm.cfg.swap_cache_hold);
        t = vm.locks.acquire(vm.swap_lock(slot), t, core, vm.cfg.swap_lock_hold);
        vm.swap.set_cached(slot, None);
        vm.counters.reclaimed_pages += 1;
        self.release_frame(t, f);
        (t, None)
    }

    /// Reclaims file frame `f` (isolated): clean, it is unmapped and dropped; dirty, it goes
    /// back for the flusher to write.
    fn reclaim_file(&mut self, t: SimTime, f: FrameId) -> SimTime {
        let vm = self.vm.as_mut().expect("checked");
        if vm.frames.has(f, frames::DIRTY) {
            vm.reclaim_wants_writeback = true;
            vm.frames.push_head(Lru::InactiveFile, f);
            return t;
        }
        let mut t = t;
        if vm.frames.has(f, frames::MAPPED) {
            t += vm.cfg.unmap_page;
        }
        let owner = vm.frames.owner[f as usize];
        vm.pages[owner as usize] = OUT;
        vm.counters.reclaimed_pages += 1;
        self.release_frame(t, f);
        t
    }

    /// Sends reclaim's writes of `slots`, adjacent ones merged (the plug), from `core`.
    fn send_swap_writes(&mut self, now: SimTime, t: SimTime, core: CoreId, slots: &mut [u32]) -> SimTime {
        slots.sort_unstable();
        let mut t = t;
        let mut k = 0;
        while k < slots.len() {
            let vm = self.vm.as_mut().expect("checked");
            let first = slots[k];
            let len = vm.slot_run(&slots[k..]);
            let offset = vm.swap.offset_bytes(first, vm.cfg.page_bytes);
            t = self.vm_write(now, t, core, IoKind::SwapWrite, first, len, offset, NO_WAIT);
            k += len as usize;
        }
        t
    }

    /// Sends a write of `n` pages at `offset` from `core` (whose CPU pays the submission);
    /// `sync` is the msync it belongs to.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vm_write(
        &mut self,
        now: SimTime,
        t: SimTime,
        core: CoreId,
        kind: IoKind,
        first: u32,
        n: u32,
        offset: u64,
        sync: u32,
    ) -> SimTime {
        let t = t + self.config.block_submit + self.config.block_unit.times(self.vm_units(n));
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.write_requests += 1;
        let id = vm.ios.insert(VmIo { kind, first, n, waiters: NO_WAIT, sync });
        if kind == IoKind::FileWrite {
            vm.file_writes.insert(first, id);
        }
        let io = IoRequest {
            opcode: Opcode::Write,
            offset_bytes: offset,
            bytes: u64::from(n) * vm.cfg.page_bytes,
            placement: None,
        };
        let path = CompletionPath::Interrupt { core: self.irq_core(core), work: self.config.block_complete };
        self.submit(now, t.max(now), io, super::super::buffered::INTERNAL | super::super::buffered::vm_tag(id), path);
        t
    }

    /// Frees `f` (off every list) at `t`; a thread waiting for a frame gets it.
    pub(super) fn release_frame(&mut self, t: SimTime, f: FrameId) {
        let vm = self.vm.as_mut().expect("checked");
        vm.frames.release(f);
        if let Some((tag, since)) = vm.frame_waiters.pop_front() {
            vm.counters.alloc_stall_ns += t.max(since).since(since).as_ns();
            // Already counted in flight when it began to wait; the wake event ends that.
            self.events.push(t.max(since), super::super::Event::Vm(VmEvent::Wake { tag }));
        }
    }

    /// VM request `id` completed (its interrupt handled) at `at`.
    pub(in crate::os) fn vm_io_done(&mut self, id: u32, at: SimTime) -> Option<IoDone> {
        let vm = self.vm.as_mut().expect("VM I/O needs a VM");
        let io = vm.ios[id];
        vm.ios.free(id);
        match io.kind {
            IoKind::SwapRead | IoKind::FileRead => {
                for k in io.first..io.first + io.n {
                    let f = if io.kind == IoKind::SwapRead {
                        vm.swap.cached(k).expect("a page being read is in the swap cache")
                    } else {
                        vm.pages[k as usize] & VALUE
                    };
                    vm.frames.clear(f, frames::LOCKED);
                }
                if io.kind == IoKind::SwapRead {
                    vm.swap_reads.remove(&io.first);
                } else {
                    vm.file_reads.remove(&io.first);
                }
                let mut w = io.waiters;
                while w != NO_WAIT {
                    let node = vm.waits[w];
                    vm.waits.free(w);
                    self.events.push(at, super::super::Event::Vm(VmEvent::Wake { tag: node.tag }));
                    w = node.next;
                }
            }
            IoKind::SwapWrite => self.swap_write_done(at, io),
            IoKind::FileWrite => self.file_write_done(at, io),
            IoKind::Flush => {
                let vm = self.vm.as_mut().expect("checked");
                let tag = vm.syncs[io.sync].tag;
                vm.syncs.free(io.sync);
                self.in_flight -= 1;
                return Some(IoDone { tag, device_done: at, visible: at });
            }
        }
        None
    }

    /// Reclaim's swap write ended: its pages are clean; the ones nobody touched meanwhile
    /// are freed (their swap-cache entries dropped, under the locks, on kswapd's CPU's
    /// behalf), the others go back on the list.
    fn swap_write_done(&mut self, at: SimTime, io: VmIo) {
        let vm = self.vm.as_mut().expect("checked");
        let core = vm.kswapd_core;
        let mut t = at;
        for s in io.first..io.first + io.n {
            let vm = self.vm.as_mut().expect("checked");
            let f = vm.swap.cached(s).expect("a page under writeback stays in the swap cache");
            vm.frames.clear(f, frames::WRITEBACK);
            vm.reclaim_pending -= 1;
            let flags = vm.frames.flags[f as usize];
            if flags & frames::RECLAIM != 0 && flags & (frames::MAPPED | frames::DIRTY) == 0 {
                vm.frames.clear(f, frames::RECLAIM);
                t = vm.locks.acquire(vm.cache_lock(s), t, core, vm.cfg.swap_cache_hold);
                t = vm.locks.acquire(vm.swap_lock(s), t, core, vm.cfg.swap_lock_hold);
                vm.swap.set_cached(s, None);
                vm.counters.reclaimed_pages += 1;
                self.release_frame(at, f);
            } else {
                vm.frames.clear(f, frames::RECLAIM);
                if !vm.frames.has(f, frames::ON_LRU) {
                    vm.frames.push_head(Lru::InactiveAnon, f);
                }
            }
        }
        let vm = self.vm.as_mut().expect("checked");
        if vm.kswapd_stalled {
            vm.kswapd_stalled = false;
            self.wake_kswapd(at);
        }
    }

    /// A writeback of file pages ended: they are clean (or dirty again, back in the dirty
    /// set); reclaim's are freed; an msync waiting for it counts down.
    fn file_write_done(&mut self, at: SimTime, io: VmIo) {
        let vm = self.vm.as_mut().expect("checked");
        vm.file_writes.remove(&io.first);
        vm.writeback_in_flight -= 1;
        for g in io.first..io.first + io.n {
            let vm = self.vm.as_mut().expect("checked");
            let st = vm.pages[g as usize];
            if st & TAG != MAPPED && st & TAG != CACHED {
                continue;
            }
            let f = st & VALUE;
            vm.frames.clear(f, frames::WRITEBACK);
            vm.file_writeback -= 1;
            if vm.frames.has(f, frames::DIRTY) {
                // Written again meanwhile: dirty once more, and back on its list.
                vm.dirty.insert(g);
                vm.frames.clear(f, frames::RECLAIM);
                if !vm.frames.has(f, frames::ON_LRU) {
                    vm.frames.push_head(Lru::InactiveFile, f);
                }
            } else if vm.frames.clear(f, frames::RECLAIM) && !vm.frames.has(f, frames::MAPPED) {
                vm.pages[g as usize] = OUT;
                vm.counters.reclaimed_pages += 1;
                self.release_frame(at, f);
            } else {
                let vm = self.vm.as_mut().expect("checked");
                if !vm.frames.has(f, frames::ON_LRU) {
                    vm.frames.push_head(Lru::InactiveFile, f);
                }
            }
        }
        let vm = self.vm.as_mut().expect("checked");
        vm.counters.file_writeback_pages += u64::from(io.n);
        vm.written_bytes += u64::from(io.n) * vm.cfg.page_bytes;
        let written = vm.written_bytes;
        vm.bandwidth.update(at, written, true);
        // The msyncs waiting for it (a file write's waiters are msync ids).
        let mut w = io.waiters;
        while w != NO_WAIT {
            let vm = self.vm.as_mut().expect("checked");
            let node = vm.waits[w];
            vm.waits.free(w);
            self.sync_write_done(at, node.tag as u32);
            w = node.next;
        }
        if io.sync != NO_WAIT {
            self.sync_write_done(at, io.sync);
        }
        self.kick_file_writeback(at, at);
    }
}
