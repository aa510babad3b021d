//! Wear: program/erase cycles of every block, the rated budget of each cell mode, the spare
//! blocks that replace worn-out ones, the retirement of superblocks, and wear levelling.
//!
//! Read Grupp et al., "Characterizing Flash Memory: Anomalies, Observations, and
//! Applications" (MICRO 2009) for how blocks wear and fail, and Chang, "On Efficient Wear
//! Leveling for Large-Scale Flash-Memory Storage Systems" (SAC 2007) for dynamic and static
//! wear levelling; `docs/model.md` § "Wear and endurance" lists what is simplified.
//!
//! Blocks are erased a superblock at a time (`ftl::blocks`), so every block of a superblock
//! shares its erases, except where a spare block has replaced a worn one. [`BlockWear`]
//! keeps, per physical block, its erases in SLC mode and in the native mode (struct of
//! arrays: 8 bytes per block, plus 4 per superblock slot for which block serves it):
//!
//! ```text
//!  plane p of die d:  block 0 … block B−1 │ spare B … spare B+S−1
//!                     (superblock slots)  │ (spare_blocks_per_plane, unused until needed)
//! ```
//!
//! A block's *life used* is `slc_erases / rated(slc) + native_erases / rated(native)`: the
//! rated P/E cycles of each mode are its budget, and a block programmed one bit per cell
//! wears far less per cycle. Each block's endurance, in multiples of its rated life, is
//! drawn once from a normal distribution around 1 (`block_spread`, seeded by the drive's
//! serial number), as blocks of one die fail at different cycle counts. A block whose life
//! used reaches its endurance fails at that erase (erase status fail, the usual end of a
//! NAND block): it is marked bad and the first spare of its plane takes its slot; with no
//! spare in the plane, its superblock is retired when the erase ends, and the superblock's
//! good blocks become spares of their planes. A drive that would drop below the superblocks
//! its namespace needs keeps the worn block in service instead ([`BlockWear::end_of_life`]).
//!
//! Wear levelling is a policy file selected by [`WearLevelling`]: which free superblock a
//! stream opens (`fifo.rs`, `dynamic.rs`), and when cold data moves off young blocks
//! (`cold_data.rs`). Nothing here runs per I/O: the arrays change once per erase.
//!
//! Worn blocks also read with more uncorrectable errors (`bit_errors.rs`): every erase
//! refreshes the uncorrectable bit error rate of the blocks it wore, kept per superblock and
//! die ([`BlockWear::uber`]), so a read looks its rate up instead of computing it.

mod bit_errors;
mod cold_data;
mod dynamic;
mod error;
mod fifo;

use crate::nand::{CellMode, DieId};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

pub use bit_errors::{
    BITS_PER_UNIT, BitErrorLaw, MAX_RETRY_CHANCE, MAX_UBER_PER_BIT, MediaErrorState, MediaErrors, ReadRetryLaw,
};
pub use error::WearStateError;

/// How the FTL spreads wear.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WearLevelling {
    /// Free superblocks open in the order they were freed (round robin, no wear awareness).
    Fifo,
    /// Dynamic: a stream opens the least-worn free superblock.
    Dynamic,
    /// Static: dynamic, plus cold data moves off the least-worn superblock holding it when
    /// the spread of wear exceeds a threshold; relocated (cold) data goes to the most-worn
    /// free superblock.
    Static,
}

/// Validated endurance parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Endurance {
    /// Rated program/erase cycles of a block programmed in each cell mode, indexed by
    /// [`CellMode::index`] (SLC mode of a multi-bit die included).
    pub rated_pe_cycles: [u32; 4],
    /// Spare blocks in every plane beyond the superblock slots.
    pub spare_blocks_per_plane: u32,
    /// Standard deviation of block endurance, as a share of the rated life.
    pub block_spread: f64,
    /// Seed of the per-block endurance draw (from the serial number).
    pub seed: u64,
    /// Wear-levelling policy.
    pub levelling: WearLevelling,
    /// Static wear levelling moves cold data once the spread of wear between superblocks
    /// exceeds this many native-mode P/E cycles.
    pub static_spread_cycles: u32,
    /// Available Spare Threshold, percent (the SMART warning level).
    pub spare_threshold_pct: u8,
    /// Superblocks the drive needs in service: the namespace plus GC's reserve, the open
    /// frontiers and the static SLC cache. Fewer would lose data, so the drive keeps worn
    /// blocks rather than retire below this.
    pub min_superblocks: u32,
    /// How the uncorrectable bit error rate grows with a block's wear.
    pub bit_errors: BitErrorLaw,
    /// How often reads retry as blocks wear.
    pub read_retry: ReadRetryLaw,
}

/// What a superblock a block serves is called when it has none.
const NO_BLOCK: u32 = u32::MAX;

/// Per-block wear, spare pools and failures (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockWear {
    dies: u32,
    planes: u32,
    superblocks: u32,
    /// Physical blocks per plane: the superblock slots, then the spares.
    blocks_per_plane: u32,
    /// Per physical block (`plane * blocks_per_plane + block`, plane = die × planes + p).
    slc_erases: Vec<u32>,
    native_erases: Vec<u32>,
    /// Per superblock slot (`(sb * dies + die) * planes + plane`): the block in its plane
    /// that serves it, or [`NO_BLOCK`] once the superblock is retired.
    serving: Vec<u32>,
    /// Per plane: spare blocks, the first used first.
    spares: Vec<VecDeque<u32>>,
    /// Bad blocks (physical indices), in the order they failed.
    bad: Vec<u32>,
    /// Superblocks to retire when their erase ends (a block failed with no spare).
    retire: Vec<u32>,
    /// Bad blocks left in service because retiring their superblock would leave the
    /// namespace short.
    kept: Vec<u32>,
    /// Most erases any block has had.
    max_block_erases: u32,
    /// Per superblock and die (`sb * dies + die`): the mean uncorrectable bit error rate of
    /// the blocks serving it, one per plane (a die read covers the planes of a program unit).
    uber: Vec<f64>,
    /// Per superblock and die: the chance a read retries (planes' mean, as `uber`).
    retry_chance: Vec<f64>,
}

/// A block's part in the drive, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockRole {
    /// Serves a superblock slot.
    InService,
    /// Waits in its plane's spare pool.
    Spare,
    /// Failed; serves nothing (or, past end of life, still serves its slot).
    Bad,
}

/// One block's wear, for reports ([`BlockWear::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BlockInfo {
    /// Die.
    pub die: u32,
    /// Plane in the die.
    pub plane: u32,
    /// Physical block in the plane (slots first, then spares).
    pub block: u32,
    /// Superblock it serves, if any.
    pub superblock: Option<u32>,
    /// Erases in SLC mode.
    pub slc_erases: u32,
    /// Erases in the native mode.
    pub native_erases: u32,
    /// Life used, as a share of the rated life.
    pub life_used: f64,
    /// The endurance it fails at, as a share of the rated life.
    pub endurance: f64,
    /// Its role.
    pub role: BlockRole,
}

/// The wear state as saved: per-block erases go in the binary part of a state file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WearState {
    /// Slots served by a block other than the one at their own index: (slot, block).
    pub remapped: Vec<(u32, u32)>,
    /// Per plane, its spare blocks in order of use.
    pub spares: Vec<Vec<u32>>,
    /// Bad blocks.
    pub bad: Vec<u32>,
    /// Bad blocks kept in service past end of life.
    pub kept: Vec<u32>,
}

impl BlockWear {
    /// A new array rated as `e` says (its spares, the error rate of an unworn block): every
    /// block unworn, every slot served by its own block.
    pub fn new(dies: u32, planes: u32, superblocks: u32, e: &Endurance) -> Self {
        let blocks_per_plane = superblocks + e.spare_blocks_per_plane;
        let plane_count = (dies * planes) as usize;
        let blocks = plane_count * blocks_per_plane as usize;
        let slots = (superblocks * dies * planes) as usize;
        let mut serving = vec![0; slots];
        for sb in 0..superblocks {
            for plane in 0..dies * planes {
                serving[(sb * dies * planes + plane) as usize] = sb;
            }
        }
        BlockWear {
            dies,
            planes,
            superblocks,
            blocks_per_plane,
            slc_erases: vec![0; blocks],
            native_erases: vec![0; blocks],
            serving,
            spares: (0..plane_count).map(|_| (superblocks..blocks_per_plane).collect()).collect(),
            bad: Vec::new(),
            retire: Vec::new(),
            kept: Vec::new(),
            max_block_erases: 0,
            uber: vec![e.bit_errors.uber(0.0); (superblocks * dies) as usize],
            retry_chance: vec![e.read_retry.chance(0.0); (superblocks * dies) as usize],
        }
    }

    /// The uncorrectable bit error rate of a read from superblock `sb` on `die`.
    #[inline]
    pub fn uber(&self, sb: u32, die: DieId) -> f64 {
        self.uber[(sb * self.dies + die.get()) as usize]
    }

    /// The chance a read from superblock `sb` on `die` retries (its planes' mean).
    #[inline]
    pub fn retry_chance(&self, sb: u32, die: DieId) -> f64 {
        self.retry_chance[(sb * self.dies + die.get()) as usize]
    }

    /// Prefetches the error rate [`Self::uber`] will read for `sb` and `die`.
    #[inline]
    pub fn touch_uber(&self, sb: u32, die: DieId) {
        crate::engine::prefetch(&self.uber, (sb * self.dies + die.get()) as usize);
    }

    /// Recomputes every superblock's error rates from the blocks' wear (a restored array).
    fn refresh_bit_errors(&mut self, e: &Endurance, native: CellMode) {
        for sb in 0..self.superblocks {
            for die in 0..self.dies {
                self.refresh_uber(sb, die, e, native);
            }
        }
    }

    /// The error rate of `sb` on `die`: the mean over its planes' serving blocks (a retired
    /// superblock serves no reads and keeps 0).
    fn refresh_uber(&mut self, sb: u32, die: u32, e: &Endurance, native: CellMode) {
        let (mut sum, mut retry) = (0.0, 0.0);
        for p in 0..self.planes {
            let block = self.serving[self.slot(sb, die, p)];
            if block != NO_BLOCK {
                let i = self.index(die * self.planes + p, block);
                let life = self.life_used(i, e, native);
                sum += e.bit_errors.uber(life);
                retry += e.read_retry.chance(life);
            }
        }
        self.uber[(sb * self.dies + die) as usize] = sum / f64::from(self.planes);
        self.retry_chance[(sb * self.dies + die) as usize] = retry / f64::from(self.planes);
    }

    /// Physical blocks (superblock slots and spares) in the whole array.
    pub fn block_count(&self) -> usize {
        self.slc_erases.len()
    }

    /// Index of `block` of `plane` (die × planes + plane) in the per-block arrays.
    #[inline]
    fn index(&self, plane: u32, block: u32) -> usize {
        (plane * self.blocks_per_plane + block) as usize
    }

    #[inline]
    fn slot(&self, sb: u32, die: u32, plane: u32) -> usize {
        ((sb * self.dies + die) * self.planes + plane) as usize
    }

    /// Spare blocks left in every plane together.
    pub fn spare_blocks(&self) -> u64 {
        self.spares.iter().map(|s| s.len() as u64).sum()
    }

    /// Blocks that have failed.
    pub fn bad_blocks(&self) -> u64 {
        self.bad.len() as u64
    }

    /// True once a worn block had to stay in service (no spare and no superblock to spare).
    pub fn end_of_life(&self) -> bool {
        !self.kept.is_empty()
    }

    /// Worn blocks kept in service.
    pub fn worn_in_service(&self) -> u64 {
        self.kept.len() as u64
    }

    /// Most erases any block has had.
    pub fn max_block_erases(&self) -> u32 {
        self.max_block_erases
    }

    /// Erases of every block, SLC mode and native mode, in physical order.
    pub fn erase_arrays(&self) -> (&[u32], &[u32]) {
        (&self.slc_erases, &self.native_erases)
    }

    /// Life used by block `i` (physical index), as a share of its rated life.
    fn life_used(&self, i: usize, e: &Endurance, native: CellMode) -> f64 {
        f64::from(self.slc_erases[i]) / f64::from(e.rated_pe_cycles[CellMode::Slc.index()])
            + f64::from(self.native_erases[i]) / f64::from(e.rated_pe_cycles[native.index()])
    }

    /// The erases of superblock `sb`'s blocks on `die`, in `mode`: each block counts one
    /// erase, and one that reaches its endurance fails and is replaced by a spare of its
    /// plane (or marks the superblock for retirement). Returns the blocks that failed.
    pub fn erase(&mut self, sb: u32, die: DieId, mode: CellMode, e: &Endurance, native: CellMode) -> u32 {
        let die = die.get();
        let mut failed = 0;
        for p in 0..self.planes {
            let slot = self.slot(sb, die, p);
            let block = self.serving[slot];
            if block == NO_BLOCK {
                continue;
            }
            let plane = die * self.planes + p;
            let i = self.index(plane, block);
            if mode == CellMode::Slc {
                self.slc_erases[i] += 1;
            } else {
                self.native_erases[i] += 1;
            }
            self.max_block_erases = self.max_block_erases.max(self.slc_erases[i] + self.native_erases[i]);
            // A block kept in service past end of life has failed already.
            if self.life_used(i, e, native) < endurance(e, i as u32) || self.bad.contains(&(i as u32)) {
                continue;
            }
            failed += 1;
            self.bad.push(i as u32);
            if let Some(spare) = self.spares[plane as usize].pop_front() {
                self.serving[slot] = spare;
            } else if !self.retire.contains(&sb) {
                self.retire.push(sb);
            }
        }
        self.refresh_uber(sb, die, e, native);
        failed
    }

    /// `sb`'s last erase ended: true if it must be retired (a block failed with no spare
    /// in its plane) and the drive can spare it with `in_service` superblocks now in
    /// service. A retired superblock's good blocks join their planes' spare pools. If the
    /// drive cannot spare it, its worn blocks stay in service (end of life).
    pub fn take_retirement(&mut self, sb: u32, in_service: u32, e: &Endurance) -> bool {
        let Some(k) = self.retire.iter().position(|&s| s == sb) else { return false };
        self.retire.swap_remove(k);
        if in_service <= e.min_superblocks {
            for die in 0..self.dies {
                for p in 0..self.planes {
                    let i = self.index(die * self.planes + p, self.serving[self.slot(sb, die, p)]) as u32;
                    if self.bad.contains(&i) && !self.kept.contains(&i) {
                        self.kept.push(i);
                    }
                }
            }
            return false;
        }
        for die in 0..self.dies {
            for p in 0..self.planes {
                let slot = self.slot(sb, die, p);
                let block = std::mem::replace(&mut self.serving[slot], NO_BLOCK);
                let plane = die * self.planes + p;
                let i = self.index(plane, block) as u32;
                if !self.bad.contains(&i) {
                    self.spares[plane as usize].push_back(block);
                }
            }
            // Retired, it serves no reads (as a restored array computes it).
            self.uber[(sb * self.dies + die) as usize] = 0.0;
            self.retry_chance[(sb * self.dies + die) as usize] = 0.0;
        }
        true
    }

    /// Every block's wear and role, in physical order (die, plane, block).
    pub fn blocks(&self, e: &Endurance, native: CellMode) -> Vec<BlockInfo> {
        let mut serves = vec![None; self.block_count()];
        for sb in 0..self.superblocks {
            for die in 0..self.dies {
                for p in 0..self.planes {
                    let block = self.serving[self.slot(sb, die, p)];
                    if block != NO_BLOCK {
                        serves[self.index(die * self.planes + p, block)] = Some(sb);
                    }
                }
            }
        }
        let mut spare = vec![false; self.block_count()];
        for (plane, pool) in self.spares.iter().enumerate() {
            for &b in pool {
                spare[self.index(plane as u32, b)] = true;
            }
        }
        (0..self.block_count())
            .map(|i| {
                let plane = i as u32 / self.blocks_per_plane;
                let role = if self.bad.contains(&(i as u32)) {
                    BlockRole::Bad
                } else if spare[i] {
                    BlockRole::Spare
                } else {
                    BlockRole::InService
                };
                BlockInfo {
                    die: plane / self.planes,
                    plane: plane % self.planes,
                    block: i as u32 % self.blocks_per_plane,
                    superblock: serves[i],
                    slc_erases: self.slc_erases[i],
                    native_erases: self.native_erases[i],
                    life_used: self.life_used(i, e, native),
                    endurance: endurance(e, i as u32),
                    role,
                }
            })
            .collect()
    }

    /// The state to save; the per-block erase arrays are saved separately
    /// ([`BlockWear::erase_arrays`]).
    pub fn export_state(&self) -> WearState {
        let mut remapped = Vec::new();
        for sb in 0..self.superblocks {
            for die in 0..self.dies {
                for p in 0..self.planes {
                    let slot = self.slot(sb, die, p);
                    if self.serving[slot] != sb {
                        remapped.push((slot as u32, self.serving[slot]));
                    }
                }
            }
        }
        WearState {
            remapped,
            spares: self.spares.iter().map(|s| s.iter().copied().collect()).collect(),
            bad: self.bad.clone(),
            kept: self.kept.clone(),
        }
    }

    /// Restores a saved state over a new array of the same geometry, with the per-block
    /// erases (`None` for a state saved before they were kept: every block then takes its
    /// superblock's erases, `sb_erases` as (total, SLC) per superblock). Fails, naming the
    /// problem, if the pieces do not fit together: each block serves at most one slot or
    /// waits in one spare pool of its own plane. The error rates follow from the restored
    /// wear, rated as `e` says.
    pub fn import_state(
        &mut self,
        state: WearState,
        erases: Option<(Vec<u32>, Vec<u32>)>,
        sb_erases: (&[u32], &[u32]),
        e: &Endurance,
        native: CellMode,
    ) -> Result<(), WearStateError> {
        self.import_arrays(state, erases, sb_erases)?;
        self.refresh_bit_errors(e, native);
        Ok(())
    }

    /// [`BlockWear::import_state`] but for the error rates.
    fn import_arrays(
        &mut self,
        state: WearState,
        erases: Option<(Vec<u32>, Vec<u32>)>,
        sb_erases: (&[u32], &[u32]),
    ) -> Result<(), WearStateError> {
        let planes = (self.dies * self.planes) as usize;
        if state.spares.is_empty() && state.remapped.is_empty() && state.bad.is_empty() && erases.is_none() {
            // A state from before per-block wear: every slot served by its own block, the
            // spares untouched.
            for sb in 0..self.superblocks {
                for die in 0..self.dies {
                    for p in 0..self.planes {
                        let i = self.index(die * self.planes + p, sb);
                        let (total, slc) = (sb_erases.0[sb as usize], sb_erases.1[sb as usize]);
                        self.slc_erases[i] = slc;
                        self.native_erases[i] = total.saturating_sub(slc);
                        self.max_block_erases = self.max_block_erases.max(total);
                    }
                }
            }
            return Ok(());
        }
        if state.spares.len() != planes {
            return Err(WearStateError::SparePools { pools: state.spares.len(), planes });
        }
        let blocks = self.block_count();
        let (slc, native) = erases.ok_or(WearStateError::ErasesMissing)?;
        if slc.len() != blocks || native.len() != blocks {
            return Err(WearStateError::EraseCounts { stored: slc.len(), blocks });
        }
        for &(slot, block) in &state.remapped {
            if slot as usize >= self.serving.len() || (block >= self.blocks_per_plane && block != NO_BLOCK) {
                return Err(WearStateError::SlotOutside { slot, block });
            }
            self.serving[slot as usize] = block;
        }
        let per_sb = (self.dies * self.planes) as usize;
        if let Some(sb) = self.serving.chunks(per_sb).position(|slots| {
            let retired = slots.iter().filter(|&&b| b == NO_BLOCK).count();
            retired != 0 && retired != per_sb
        }) {
            return Err(WearStateError::PartlyRetired { sb });
        }
        // Every block of a plane is in exactly one place: a slot, a spare pool, or bad.
        let mut seen = vec![false; blocks];
        let mut claim = |i: usize, role: &'static str| {
            if std::mem::replace(&mut seen[i], true) {
                return Err(WearStateError::TwoPlaces { block: i, role });
            }
            Ok(())
        };
        for sb in 0..self.superblocks {
            for die in 0..self.dies {
                for p in 0..self.planes {
                    let block = self.serving[self.slot(sb, die, p)];
                    if block != NO_BLOCK {
                        let i = self.index(die * self.planes + p, block);
                        if !state.bad.contains(&(i as u32)) {
                            claim(i, "in service")?;
                        }
                    }
                }
            }
        }
        for (plane, pool) in state.spares.iter().enumerate() {
            for &b in pool {
                if b >= self.blocks_per_plane {
                    return Err(WearStateError::SpareOutside { block: b });
                }
                claim(self.index(plane as u32, b), "a spare")?;
            }
        }
        for &i in &state.bad {
            if i as usize >= blocks {
                return Err(WearStateError::BadOutside { block: i });
            }
            claim(i as usize, "bad")?;
        }
        if let Some(i) = state.kept.iter().find(|i| !state.bad.contains(i)) {
            return Err(WearStateError::KeptNotBad { block: *i });
        }
        self.spares = state.spares.into_iter().map(VecDeque::from).collect();
        self.bad = state.bad;
        self.kept = state.kept;
        self.max_block_erases = slc.iter().zip(&native).map(|(s, n)| s + n).max().unwrap_or(0);
        self.slc_erases = slc;
        self.native_erases = native;
        Ok(())
    }

    /// Superblocks every one of whose slots is served (the rest are retired).
    pub fn serves(&self, sb: u32) -> bool {
        self.serving[self.slot(sb, 0, 0)] != NO_BLOCK
    }
}

/// Block `i`'s endurance, as a multiple of its rated life: a normal draw around 1 with
/// standard deviation `block_spread`, fixed by the seed and the block (Box–Muller on two
/// hashed uniforms), never below 5 % of the rating.
pub(crate) fn endurance(e: &Endurance, i: u32) -> f64 {
    if e.block_spread == 0.0 {
        return 1.0;
    }
    let h1 = splitmix(e.seed ^ u64::from(i).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let h2 = splitmix(h1);
    // Uniforms in (0, 1]: the logarithm stays finite.
    let u1 = ((h1 >> 11) + 1) as f64 / (1u64 << 53) as f64;
    let u2 = (h2 >> 11) as f64 / (1u64 << 53) as f64;
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    (1.0 + e.block_spread * z).max(0.05)
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Wear of a superblock in integer units, comparable across modes: one native-mode cycle
/// is `rated(slc)` units and one SLC-mode cycle `rated(native)` units, so units / (rated
/// slc × rated native) is the life used.
#[inline]
pub(crate) fn wear_units(total_erases: u32, slc_erases: u32, e: &Endurance, native: CellMode) -> u64 {
    let native_erases = u64::from(total_erases - slc_erases);
    native_erases * u64::from(e.rated_pe_cycles[CellMode::Slc.index()])
        + u64::from(slc_erases) * u64::from(e.rated_pe_cycles[native.index()])
}

impl WearLevelling {
    /// Which free superblock (an index into `free`) a stream opens: `cold` for relocated
    /// data, which static wear levelling places on the most-worn block.
    pub(crate) fn pick(self, free: &VecDeque<u32>, wear: impl Fn(u32) -> u64, cold: bool) -> usize {
        match self {
            WearLevelling::Fifo => fifo::pick(),
            WearLevelling::Dynamic => dynamic::pick(free, wear),
            WearLevelling::Static => cold_data::pick(free, wear, cold),
        }
    }
}

pub(crate) use cold_data::pick_cold_victim;

#[cfg(test)]
mod tests {
    use super::*;

    fn endurance_of(rated_tlc: u32, spread: f64, spares: u32) -> Endurance {
        Endurance {
            rated_pe_cycles: [30_000, 10_000, rated_tlc, 1_000],
            spare_blocks_per_plane: spares,
            block_spread: spread,
            seed: 7,
            levelling: WearLevelling::Dynamic,
            static_spread_cycles: 100,
            spare_threshold_pct: 10,
            min_superblocks: 2,
            bit_errors: BitErrorLaw { uber_per_bit: 1e-15, tenfold_life: 0.1 },
            read_retry: ReadRetryLaw::default(),
        }
    }

    // --- unworn ---------------------------------------------------------------------

    #[test]
    fn every_slot_starts_on_its_own_block_with_the_spares_pooled() {
        let e = endurance_of(10, 0.0, 3);
        let w = BlockWear::new(2, 2, 6, &e);
        assert_eq!(w.block_count(), 2 * 2 * 9);
        assert_eq!(w.spare_blocks(), 12);
        assert!((0..6).all(|sb| w.serves(sb)));
        let blocks = w.blocks(&e, CellMode::Tlc);
        assert_eq!(blocks.iter().filter(|b| b.role == BlockRole::InService).count(), 24);
        assert_eq!(blocks[7].superblock, None);
        assert_eq!(blocks[4].superblock, Some(4));
    }

    // --- wearing --------------------------------------------------------------------

    #[test]
    fn slc_cycles_cost_their_share_of_the_native_budget() {
        let e = endurance_of(3000, 0.0, 0);
        let mut w = BlockWear::new(1, 1, 4, &e);
        for _ in 0..30 {
            w.erase(0, DieId(0), CellMode::Slc, &e, CellMode::Tlc);
        }
        w.erase(0, DieId(0), CellMode::Tlc, &e, CellMode::Tlc);
        let b = w.blocks(&e, CellMode::Tlc)[0];
        assert_eq!((b.slc_erases, b.native_erases), (30, 1));
        // 30 / 30,000 + 1 / 3,000 of the rated life.
        assert!((b.life_used - (0.001 + 1.0 / 3000.0)).abs() < 1e-12);
        assert_eq!(wear_units(31, 30, &e, CellMode::Tlc), 30_000 + 30 * 3000);
    }

    #[test]
    fn a_worn_block_is_replaced_by_its_planes_spare() {
        let e = endurance_of(5, 0.0, 1);
        let mut w = BlockWear::new(1, 2, 4, &e);
        let failed: u32 = (0..5).map(|_| w.erase(2, DieId(0), CellMode::Tlc, &e, CellMode::Tlc)).sum();
        // Both planes' blocks of superblock 2 reach 5 cycles on the fifth erase.
        assert_eq!(failed, 2);
        assert_eq!(w.bad_blocks(), 2);
        assert_eq!(w.spare_blocks(), 0);
        assert!(!w.take_retirement(2, 4, &e));
        let blocks = w.blocks(&e, CellMode::Tlc);
        // The spare (block 4 of each plane) now serves superblock 2, unworn.
        assert_eq!(blocks[4].superblock, Some(2));
        assert_eq!(blocks[4].native_erases, 0);
        assert_eq!(blocks[2].role, BlockRole::Bad);
    }

    #[test]
    fn a_read_meets_the_mean_error_rate_of_the_blocks_it_reads() {
        let e = endurance_of(10, 0.0, 1);
        let law = e.bit_errors;
        let mut w = BlockWear::new(1, 2, 4, &e);
        assert_eq!(w.uber(1, DieId(0)).to_bits(), law.uber(0.0).to_bits());
        // Ten cycles: both blocks of superblock 1 at their rating, which they fail at; each
        // plane's spare, unworn, takes over.
        for k in 1..=9 {
            w.erase(1, DieId(0), CellMode::Tlc, &e, CellMode::Tlc);
            assert_eq!(w.uber(1, DieId(0)).to_bits(), law.uber(f64::from(k) / 10.0).to_bits());
        }
        w.erase(1, DieId(0), CellMode::Tlc, &e, CellMode::Tlc);
        assert_eq!(w.uber(1, DieId(0)).to_bits(), law.uber(0.0).to_bits());
        // One more cycle on the spares; superblock 2 was never erased.
        w.erase(1, DieId(0), CellMode::Tlc, &e, CellMode::Tlc);
        assert_eq!(w.uber(1, DieId(0)).to_bits(), law.uber(0.1).to_bits());
        assert_eq!(w.uber(2, DieId(0)).to_bits(), law.uber(0.0).to_bits());
    }

    #[test]
    fn with_no_spare_the_superblock_retires_and_gives_its_good_blocks_to_the_pools() {
        let e = endurance_of(3, 0.0, 0);
        let mut w = BlockWear::new(2, 1, 4, &e);
        // Wear only die 0's block of superblock 1.
        for _ in 0..3 {
            w.erase(1, DieId(0), CellMode::Tlc, &e, CellMode::Tlc);
        }
        assert_eq!(w.bad_blocks(), 1);
        assert!(w.take_retirement(1, 4, &e));
        assert!(!w.serves(1));
        assert_eq!(w.uber(1, DieId(1)).to_bits(), 0f64.to_bits(), "a retired superblock serves no reads");
        // Die 1's good block of superblock 1 is now a spare of its plane.
        assert_eq!(w.spare_blocks(), 1);
        assert_eq!(w.blocks(&e, CellMode::Tlc)[4 + 1].role, BlockRole::Spare);
    }

    #[test]
    fn a_drive_at_its_minimum_keeps_worn_blocks() {
        let e = endurance_of(1, 0.0, 0);
        let mut w = BlockWear::new(1, 1, 4, &e);
        w.erase(0, DieId(0), CellMode::Tlc, &e, CellMode::Tlc);
        assert!(!w.take_retirement(0, 2, &e));
        assert!(w.end_of_life());
        assert!(w.serves(0));
    }

    #[test]
    fn block_endurance_spreads_around_the_rating_and_is_repeatable() {
        let e = endurance_of(3000, 0.1, 0);
        let draws: Vec<f64> = (0..20_000).map(|i| endurance(&e, i)).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd = (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / draws.len() as f64).sqrt();
        assert!((mean - 1.0).abs() < 0.005, "{mean}");
        assert!((sd - 0.1).abs() < 0.005, "{sd}");
        assert_eq!(endurance(&e, 17).to_bits(), endurance(&e, 17).to_bits());
        assert_ne!(endurance(&e, 17).to_bits(), endurance(&Endurance { seed: 8, ..e }, 17).to_bits());
    }

    // --- saved states ---------------------------------------------------------------

    #[test]
    fn a_state_round_trips_and_a_block_in_two_places_is_refused() {
        let e = endurance_of(2, 0.0, 1);
        let mut w = BlockWear::new(1, 1, 4, &e);
        for _ in 0..2 {
            w.erase(3, DieId(0), CellMode::Tlc, &e, CellMode::Tlc);
        }
        let state = w.export_state();
        assert_eq!(state.remapped, vec![(3, 4)]);
        let (s, n) = w.erase_arrays();
        let mut back = BlockWear::new(1, 1, 4, &e);
        back.import_state(state.clone(), Some((s.to_vec(), n.to_vec())), (&[0; 4], &[0; 4]), &e, CellMode::Tlc)
            .unwrap();
        assert_eq!(back, w);
        let mut twice = state;
        twice.spares[0].push(0);
        let e = BlockWear::new(1, 1, 4, &e)
            .import_state(twice, Some((s.to_vec(), n.to_vec())), (&[0; 4], &[0; 4]), &e, CellMode::Tlc)
            .unwrap_err();
        assert_eq!(e.to_string(), "wear: block 0 is a spare and somewhere else too");
    }
}
