//! fio's mmap engine on the host: an I/O is a `memcpy` to or from a shared file mapping,
//! its pages faulted in as the copy reaches them.
//!
//! Read first: fio's `engines/mmap.c` (`fio_mmapio_queue`: `memcpy` for reads and writes,
//! `msync(MS_SYNC)` of the whole mapping for a sync, and with `direct=1` an `msync` and
//! `posix_madvise(POSIX_MADV_DONTNEED)` of the I/O's range after it). The call runs on the
//! thread's core: each page is touched through the VM ([`Host::vm_touch`]) and copied at
//! the host's `copy_ns_per_kib`; a fault that waits suspends the call, which goes on from
//! that page when the VM wakes it. Its [`IoDone`](crate::os::IoDone) comes from
//! [`Host::poll`](crate::os::Host::poll) when the copy (or the `msync` after it) ends.

use super::{Madvise, MappingId, Touch, VmCtx};
use crate::block::BlockDevice;
use crate::engine::{SimDuration, SimTime};
use crate::os::{CoreId, Host};

/// The tag bit of an mmap call's own waits (its pages' faults), beside the call's id.
pub(super) const MMAP_CALL: u64 = 1 << 61;

/// One call of fio's mmap engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmapIo {
    /// The calling thread's core.
    pub core: CoreId,
    /// The file's mapping.
    pub mapping: MappingId,
    /// Where the copy starts in the mapping, bytes.
    pub offset_bytes: u64,
    /// Bytes copied.
    pub bytes: u64,
    /// A write (a copy into the mapping) or a read.
    pub write: bool,
    /// fio's `direct=1`: `msync` and `MADV_DONTNEED` of the range afterwards.
    pub direct: bool,
    /// Comes back in the call's completion.
    pub tag: u64,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct MmapCall {
    io: MmapIo,
    /// The pages it touches, and how many are done.
    first_page: u64,
    pages: u64,
    done: u64,
}

impl<D: BlockDevice> Host<D> {
    /// Makes the mmap engine's call `io` at `now`.
    pub fn submit_mmap(&mut self, now: SimTime, io: MmapIo) {
        let vm = self.vm();
        let page = vm.cfg.page_bytes;
        let first_page = io.offset_bytes / page;
        let pages = (io.offset_bytes + io.bytes).div_ceil(page) - first_page;
        let id = vm.mmap_calls.insert(MmapCall { io, first_page, pages, done: 0 });
        // The call is in flight until its completion is handed back.
        self.in_flight += 1;
        self.mmap_step(now, id, false);
    }

    /// `msync(MS_SYNC)` of all of `mapping` for the thread on `core` at `now` (fio's sync
    /// on the mmap engine); its completion carries `tag`.
    pub fn submit_mmap_sync(&mut self, now: SimTime, core: CoreId, mapping: MappingId, tag: u64) {
        let start = self.cpu.available(core, now);
        let pages = self.vm_mapping_pages(mapping);
        let ctx = VmCtx { core, tag, resumed: false };
        let end = match self.vm_msync(now, start, ctx, mapping, 0, pages) {
            Touch::Wait(t) | Touch::Ready(t) => t,
        };
        self.cpu.task(core, now, end.since(start));
    }

    /// Goes on with call `id` from its next page at `now`.
    pub(super) fn mmap_step(&mut self, now: SimTime, id: u32, resumed: bool) {
        let vm = self.vm.as_mut().expect("mmap calls need a VM");
        let MmapCall { io, first_page, pages, mut done } = vm.mmap_calls[id];
        let copy = self.config.page_cache.as_ref().map_or(SimDuration::ZERO, |pc| pc.copy_per_kib);
        let page_kib = vm.cfg.page_bytes / 1024;
        let start = self.cpu.available(io.core, now);
        let mut t = start;
        let mut ctx = VmCtx { core: io.core, tag: MMAP_CALL | u64::from(id), resumed };
        while done < pages {
            match self.vm_touch(now, t, ctx, io.mapping, first_page + done, io.write) {
                Touch::Ready(after) => t = after + copy.times(page_kib),
                Touch::Wait(after) => {
                    self.vm.as_mut().expect("checked").mmap_calls[id].done = done;
                    self.cpu.task(io.core, now, after.since(start));
                    return;
                }
            }
            done += 1;
            ctx.resumed = false;
        }
        self.vm.as_mut().expect("checked").mmap_calls.free(id);
        if io.direct {
            // msync and MADV_DONTNEED of the range: the msync's completion ends the call.
            let user = VmCtx { core: io.core, tag: io.tag, resumed: false };
            t = self.vm_madvise(now, t, user, io.mapping, first_page, first_page + pages, Madvise::DontNeed);
            // The msync counts itself in flight in place of the call.
            self.in_flight -= 1;
            let (Touch::Wait(after) | Touch::Ready(after)) =
                self.vm_msync(now, t, user, io.mapping, first_page, first_page + pages);
            t = after;
            self.cpu.task(io.core, now, t.since(start));
            return;
        }
        self.cpu.task(io.core, now, t.since(start));
        self.vm_wake(t, io.tag);
    }
}
