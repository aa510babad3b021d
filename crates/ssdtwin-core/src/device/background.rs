//! Background work: GC jobs driven through the same dies and channels as host I/O.
//!
//! One GC job runs at a time. Its reads are issued a window at a time (two per die), so GC
//! interleaves with host work instead of flooding the die queues; each read's data becomes a
//! program once every read feeding that destination program unit is done; the victim is
//! erased die by die once all its reads are done.

use super::Device;
use crate::ftl::Stream;
use crate::nand::{DieOp, DieOpKind};

impl Device {
    /// Starts a GC job if free space is low and none is running.
    pub(super) fn maybe_start_gc(&mut self) {
        if self.gc_active || !self.ftl.wants_gc() {
            return;
        }
        let Some(victim) = self.ftl.pick_gc_victim() else {
            return;
        };
        let mut job = std::mem::take(&mut self.gc_job);
        self.ftl.start_relocation(victim, Stream::Gc, &mut job);
        self.gc_job = job;
        self.gc_active = true;
        self.issue_reloc_reads();
        if self.gc_job.reads_finished() {
            self.finish_gc_reads();
        }
    }

    fn issue_reloc_reads(&mut self) {
        let window = 2 * self.config.geometry.dies();
        while self.gc_job.outstanding < window && self.gc_job.next_read < self.gc_job.reads.len() {
            let index = self.gc_job.next_read;
            let r = self.gc_job.reads[index];
            self.gc_job.next_read += 1;
            self.gc_job.outstanding += 1;
            let op = DieOp {
                kind: DieOpKind::RelocRead,
                mode: r.mode,
                token: index as u32,
                units: r.units,
                ready: self.now,
            };
            self.submit_die_op(r.die, op);
        }
    }

    /// A relocation read finished: its data crosses the channel into controller memory, and
    /// destination program units it completes are queued.
    pub(super) fn reloc_read_done(&mut self, die: u32, op: DieOp) {
        let read = self.gc_job.reads[op.token as usize];
        let in_memory = self.nand.transfer_out(die, self.now, op.units);
        let mut ready = std::mem::take(&mut self.ready_scratch);
        self.ftl.reloc_read_done(Stream::Gc, &read, &mut ready);
        for &pu in &ready {
            self.enqueue_program(pu, 0, in_memory);
        }
        ready.clear();
        self.ready_scratch = ready;
        self.gc_job.outstanding -= 1;
        self.issue_reloc_reads();
        if self.gc_job.reads_finished() {
            self.finish_gc_reads();
        }
    }

    fn finish_gc_reads(&mut self) {
        let victim = self.gc_job.victim;
        let mode = self.ftl.sbs.mode(victim);
        let dies = self.ftl.begin_erase(victim);
        self.gc_active = false;
        for die in 0..dies {
            let op = DieOp { kind: DieOpKind::Erase, mode, token: victim, units: 0, ready: self.now };
            self.submit_die_op(die, op);
        }
        self.maybe_start_gc();
    }

    /// One die of a victim is erased; once all are, the superblock is free and waiting
    /// writes may proceed.
    pub(super) fn erase_done(&mut self, op: DieOp) {
        if self.ftl.erase_done(op.token) {
            self.admit_waiting();
            self.maybe_start_gc();
        }
    }
}
