//! Relocation jobs: choosing a victim superblock (GC or folding) and moving its valid data
//! out.
//!
//! The map changes at once when a job starts: every valid unit of the victim is remapped to
//! the destination stream's frontier, so the FTL never holds two live copies. The physical
//! work follows in time: one read per victim program unit that held valid data, issued a
//! window at a time by the device; each destination program unit is programmed once the
//! reads that supplied it have finished (`Frontier::deps`); the victim is erased once all its
//! reads are done and every program holding its data has finished (`ssd/background.rs`),
//! since until then host reads of that data are served from the victim.

use super::frontier::PuDeps;
use super::{Ftl, SbState, Stream, UNMAPPED, gc};
use crate::nand::{CellMode, DieId, Ppa, PuId};
use serde::{Deserialize, Serialize};

/// How many units ahead a relocation prefetches the L2P entry of the unit it will move:
/// enough to cover a DRAM miss with the work of moving the units before.
const RELOCATION_AHEAD: u64 = 96;

/// One die read of a relocation job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelocRead {
    /// Die to read.
    pub die: DieId,
    /// Mode of the victim (selects tR).
    pub mode: CellMode,
    /// Valid units read (moved over the channel).
    pub units: u32,
    /// Destination program units it feeds, as frontier sequence numbers (inclusive).
    pub dst_seq_first: u64,
    /// Last destination sequence number fed.
    pub dst_seq_last: u64,
}

/// A relocation in progress: the victim and its remaining reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelocationJob {
    /// Superblock being emptied.
    pub victim: u32,
    /// Reads still to issue or finish (issued in order).
    pub reads: Vec<RelocRead>,
    /// Next read to issue.
    pub next_read: usize,
    /// Reads issued and not finished.
    pub outstanding: u32,
}

impl RelocationJob {
    /// True once every read has been issued and finished.
    pub fn reads_finished(&self) -> bool {
        self.next_read == self.reads.len() && self.outstanding == 0
    }
}

impl Ftl {
    /// True if free space is low enough that GC should run. Superblocks already being
    /// reclaimed (relocated or erasing) count as free: starting another job for them would
    /// collect fuller victims than needed.
    pub fn wants_gc(&self) -> bool {
        self.sbs.free_count() + self.sbs.reclaiming() < self.gc.bg_threshold_sb
    }

    /// Chooses a GC victim among full superblocks, if GC can make progress with it.
    pub fn pick_gc_victim(&self) -> Option<u32> {
        let g = &self.geometry;
        let candidates =
            (0..self.sbs.len()).filter(|&sb| self.sbs.state(sb) == SbState::Full).map(|sb| gc::Candidate {
                sb,
                valid: self.sbs.valid(sb),
                capacity: g.sb_units_in(self.sbs.mode(sb)),
                last_write_seq: self.sbs.last_write_seq[sb as usize],
            });
        let victim = self.gc.policy.pick(candidates, self.write_seq)?;
        // Collecting frees space only if the victim's data fits in less than a superblock of
        // the mode GC writes (a full native superblock frees nothing; an SLC one packs into
        // a fraction of one). GC may use the reserve, but must have room for what it moves.
        let gains = self.sbs.valid(victim) < g.sb_units_in(self.mode_for(Stream::Gc));
        (gains && self.can_take(self.gc_stream(victim), self.sbs.valid(victim), 0)).then_some(victim)
    }

    /// Where GC writes `victim`'s valid data: GC's own frontier, or, for a persistently
    /// isolated FDP handle's data, that handle's GC frontier.
    #[inline]
    pub fn gc_stream(&self, victim: u32) -> Stream {
        self.placement.as_ref().map_or(Stream::Gc, |p| p.gc_stream(victim))
    }

    /// The oldest full SLC superblock, if folding it can make progress (room in the
    /// native fold frontier for its valid data).
    pub fn pick_fold_victim(&mut self) -> Option<u32> {
        while let Some(&sb) = self.slc_full.front() {
            if self.sbs.state(sb) == SbState::Full && self.sbs.mode(sb) == CellMode::Slc {
                return self.can_take(Stream::Fold, self.sbs.valid(sb), 0).then_some(sb);
            }
            // Collected by GC meanwhile.
            self.slc_full.pop_front();
        }
        None
    }

    /// Starts relocating the valid units of `victim` to `stream`: remaps them now and fills
    /// `job` with the reads to perform. Returns the number of units moved.
    pub fn start_relocation(&mut self, victim: u32, stream: Stream, job: &mut RelocationJob) -> u32 {
        debug_assert_eq!(self.sbs.state(victim), SbState::Full);
        if self.slc_full.front() == Some(&victim) {
            self.slc_full.pop_front();
        }
        self.sbs.state[victim as usize] = SbState::Victim;
        self.sbs.reclaiming += 1;
        job.victim = victim;
        job.reads.clear();
        job.next_read = 0;
        job.outstanding = 0;
        let g = self.geometry.clone();
        let mode = self.sbs.mode(victim);
        let base = g.sb_base(victim);
        let pu_units = g.pu_units();
        let pus = g.sb_units_in(mode) / pu_units;
        let mut moved = 0;
        let si = stream.index();
        for pu in 0..pus {
            let start = base + u64::from(pu * pu_units);
            let mut read: Option<RelocRead> = None;
            // A superblock holds whole rows, so a program unit's die is the same counted
            // inside its superblock as across the array.
            let source_die = g.die_of_pu(PuId(pu));
            for ppa in start..start + u64::from(pu_units) {
                // Fetch the L2P entry the remap below will need some units ahead.
                if ppa + RELOCATION_AHEAD < base + u64::from(pus * pu_units) {
                    self.map.touch_owner(ppa + RELOCATION_AHEAD);
                }
                let lpn = self.map.owner(ppa);
                if lpn == UNMAPPED {
                    continue;
                }
                let (new_ppa, filled) = self.advance(stream);
                self.map.remap(lpn, new_ppa);
                self.sbs.valid[victim as usize] -= 1;
                if mode == CellMode::Slc {
                    self.slc_valid -= 1;
                }
                if let Some(tags) = self.tags.as_mut() {
                    tags[new_ppa as usize] = tags[ppa as usize];
                }
                let f = &mut self.frontiers[si];
                let dst = Ppa(new_ppa);
                f.set_source(g.sb_of(dst), g.pu_in_sb(dst), source_die, mode);
                let seq = f.pu_seq;
                if f.deps.back().is_none_or(|d| d.seq != seq) {
                    let dst_pu = g.pu_of(dst);
                    f.deps.push_back(PuDeps { seq, pu: dst_pu, pending_reads: 0, filled: false, emitted: false });
                }
                let r = read.get_or_insert(RelocRead {
                    die: source_die,
                    mode,
                    units: 0,
                    dst_seq_first: seq,
                    dst_seq_last: seq - 1,
                });
                r.units += 1;
                let deps = f.deps.back_mut().expect("pushed above");
                if r.dst_seq_last != seq {
                    r.dst_seq_last = seq;
                    deps.pending_reads += 1;
                }
                if filled {
                    deps.filled = true;
                }
                moved += 1;
            }
            if let Some(r) = read {
                self.counters.reloc_units_read += u64::from(r.units);
                job.reads.push(r);
            }
        }
        debug_assert_eq!(self.sbs.valid(victim), 0);
        if stream == Stream::Fold {
            self.counters.folded_units += u64::from(moved);
            self.counters.fold_jobs += 1;
        } else {
            self.counters.gc_units_moved += u64::from(moved);
            self.counters.gc_jobs += 1;
            if let Some(p) = self.placement.as_mut() {
                p.moved(victim, moved);
            }
        }
        moved
    }

    /// A relocation read of `stream` finished: destination program units that are now
    /// complete and fully fed are pushed to `ready`. Touches only the units this read fed.
    pub fn reloc_read_done(&mut self, stream: Stream, read: &RelocRead, ready: &mut Vec<PuId>) {
        let f = &mut self.frontiers[stream.index()];
        let front = f.deps.front().map_or(0, |d| d.seq);
        for seq in read.dst_seq_first..=read.dst_seq_last {
            let d = &mut f.deps[(seq - front) as usize];
            d.pending_reads -= 1;
            Self::try_emit(d, ready);
        }
        while f.deps.front().is_some_and(|d| d.emitted) {
            f.deps.pop_front();
        }
    }

    #[inline]
    pub(super) fn try_emit(d: &mut PuDeps, ready: &mut Vec<PuId>) {
        if d.filled && d.pending_reads == 0 && !d.emitted {
            d.emitted = true;
            ready.push(d.pu);
        }
    }

    /// The destination program unit of relocation stream `stream` that holds data but
    /// waits for more to fill it, if any.
    pub fn open_relocation_pu(&self, stream: Stream) -> Option<PuId> {
        self.frontiers[stream.index()].deps.back().filter(|d| !d.emitted).map(|d| d.pu)
    }
}
