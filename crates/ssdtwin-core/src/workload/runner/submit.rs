//! A thread's I/O reaching the host: queued I/Os committed, fsync calls, and each request
//! sent through the mapping (mmap), the page cache (buffered) or the block layer (direct).

use super::super::Direction;
use super::{InFlightIo, Runner, SyncCall};
use crate::block::ZoneAction;
use crate::block::{BlockDevice, Opcode};
use crate::engine::SimTime;
use crate::os::{BufferedIo, BufferedStart, CloneId, CompletionPath, EngineKind, Host, IoRequest, IoTag};

impl Runner {
    /// Clone `i`'s fsync reaches the kernel at `now`: through the page cache (its dirty
    /// pages written back, then a device flush), or, for direct I/O, a device flush.
    pub(super) fn send_sync<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime, end: bool) {
        let sync = if end { SyncCall::End } else { SyncCall::Periodic };
        let io = InFlightIo {
            dir: Direction::Write,
            offset: 0,
            bytes: 0,
            start: now,
            issue: now,
            sync,
            read_back: false,
            prio: 0,
            handed_back: false,
        };
        let id = self.ios.insert(io);
        let t = &mut self.clones[i].thread;
        if t.engine.null {
            t.visible.push_back(id);
            return;
        }
        let path = CompletionPath::Interrupt { core: t.irq_core, work: t.engine.irq_work };
        let flush = IoRequest { opcode: Opcode::Flush, offset_bytes: 0, bytes: 0, placement: None };
        self.submit_request(host, i, id, flush, path, now);
    }

    /// Request `id` of clone `i` reaches the host at `now`: through the page cache for a
    /// buffered job (its completion visible at once if the call finished when made),
    /// otherwise to the block layer.
    #[inline]
    pub(super) fn submit_request<D: BlockDevice>(
        &mut self,
        host: &mut Host<D>,
        i: CloneId,
        id: u32,
        request: IoRequest,
        path: CompletionPath,
        now: SimTime,
    ) {
        let c = &mut self.clones[i];
        if c.thread.engine.mmap {
            let core = c.thread.core;
            let direct = c.thread.mmap_direct;
            let (mapping, start) = c.thread.mapping_at(request.offset_bytes);
            if request.opcode == Opcode::Flush {
                host.submit_mmap_sync(now, core, mapping, IoTag { clone: i, io: id }.caller_tag());
            } else {
                let io = crate::os::vm::MmapIo {
                    core,
                    mapping,
                    offset_bytes: request.offset_bytes - start,
                    bytes: request.bytes,
                    write: request.opcode == Opcode::Write,
                    direct,
                    tag: IoTag { clone: i, io: id }.caller_tag(),
                };
                host.submit_mmap(now, io);
            }
            c.thread.in_device += 1;
            return;
        }
        if c.thread.engine.buffered.is_some() {
            let (stream, file) = c.file_at(request.offset_bytes);
            let b = BufferedIo {
                stream,
                core: c.thread.core,
                io: request,
                file,
                sync: c.thread.sync_writes,
                path,
                tag: IoTag { clone: i, io: id }.caller_tag(),
            };
            if host.submit_buffered(now, b) == BufferedStart::Done {
                c.thread.visible.push_back(id);
                return;
            }
        } else {
            host.submit(now, now, request, IoTag { clone: i, io: id }.caller_tag(), path);
        }
        c.thread.in_device += 1;
    }

    /// The queued I/Os of clone `i` reach the block layer at `now`.
    pub(super) fn commit<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, now: SimTime) {
        for k in 0..self.clones[i].thread.queued.len() {
            let id = self.clones[i].thread.queued[k];
            self.send_io(host, i, id, now);
        }
        self.clones[i].thread.queued.clear();
    }

    /// I/O `id` of clone `i` reaches the block layer at `now`.
    #[inline]
    pub(super) fn send_io<D: BlockDevice>(&mut self, host: &mut Host<D>, i: CloneId, id: u32, now: SimTime) {
        let t = &mut self.clones[i].thread;
        let e = &t.engine;
        let io = &mut self.ios[id];
        // A synchronous engine's I/O is issued when its call starts; an asynchronous one's
        // when the submit call returns.
        io.issue = if e.kind == EngineKind::Sync { now.saturating_sub(e.submit_call + e.submit_io) } else { now };
        if e.null {
            t.visible.push_back(id);
            return;
        }
        let path = if e.polled {
            CompletionPath::Polled
        } else {
            CompletionPath::Interrupt { core: t.irq_core, work: e.irq_work }
        };
        let mut opcode = io.dir.opcode();
        if let (Some(zbd), Some(job)) = (self.zbd.as_mut(), self.clones[i].zbd.as_mut())
            && !self.ios[id].read_back
        {
            let io = &mut self.ios[id];
            let z = match io.dir {
                Direction::Write => zbd.write(job, io.offset, io.bytes),
                Direction::Read => zbd.read(job, io.offset, io.bytes),
                Direction::Trim => {
                    opcode = Opcode::ZoneSend { action: ZoneAction::Reset, all: false };
                    zbd.trim(job, io.offset)
                }
            };
            (io.offset, io.bytes) = (z.offset, z.bytes);
            let (dir, offset, bytes) = (io.dir, io.offset, io.bytes);
            if z.eof {
                self.clones[i].stopped = true;
            }
            if dir == Direction::Write
                && let Some(v) = self.clones[i].verify_mut()
            {
                v.log_write(offset, bytes);
            }
            if let Some(zone) = z.reset_first {
                // The zone's reset goes just before the write, as a command of its own whose
                // completion counts in no statistics; the drive places the write after it.
                let reset_io = InFlightIo { sync: SyncCall::ZoneReset, bytes: 0, offset: zone, ..*io };
                let rid = self.ios.insert(reset_io);
                let reset = Opcode::ZoneSend { action: ZoneAction::Reset, all: false };
                let request = IoRequest { opcode: reset, offset_bytes: zone, bytes: 0, placement: None };
                self.submit_request(host, i, rid, request, path, now);
                // Not one of the thread's I/Os: its depth and reaping never count it (it
                // completes before the write sent after it).
                self.clones[i].thread.in_device -= 1;
            }
        }
        let io = &self.ios[id];
        let placement = if io.dir == Direction::Write { self.clones[i].next_placement() } else { None };
        let bytes = if opcode.is_zoned() { 0 } else { io.bytes };
        let request = IoRequest { opcode, offset_bytes: io.offset, bytes, placement };
        self.submit_request(host, i, id, request, path, now);
    }
}

impl Direction {
    /// The block command that moves data in this direction.
    pub(crate) fn opcode(self) -> Opcode {
        match self {
            Direction::Read => Opcode::Read,
            Direction::Write => Opcode::Write,
            Direction::Trim => Opcode::Trim,
        }
    }
}
