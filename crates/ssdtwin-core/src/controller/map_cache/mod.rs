//! The L2P map cache of a controller that cannot hold the whole map in DRAM.
//!
//! Read Gupta et al., "DFTL" (ASPLOS 2009) for demand-cached page maps, Kim & Kim, "HMB in
//! DRAM-less NVMe SSDs" (PLOS ONE 2020) for what DRAM-less controllers keep in the Host
//! Memory Buffer, and `docs/model.md` § "Map cache" for what is simplified.
//!
//! The full map lives on flash in translation pages of `segment_entries` entries (a
//! *segment*: 1024 entries of 4 B cover 4 MiB of LBA space). The cache holds segments in
//! two tiers: controller SRAM, and (with HMB) host memory reached over PCIe. Tiers are
//! exclusive: a segment found in HMB moves up to SRAM and SRAM's victim moves down; a
//! segment loaded from flash enters SRAM. Each tier uses the replacement policy the profile
//! names ([`Replacement`], one file each).
//!
//! * **Residency**: when SRAM plus HMB hold every segment, firmware indexes the map directly
//!   ([`Residency::Full`]): no misses, no search. Otherwise ([`Residency::Partial`]) each
//!   read pays `partial_cmd` for cache search and eviction.
//! * **Lookup cost** ([`Lookup`]): an SRAM hit is free; an HMB hit costs the firmware core a
//!   PCIe round trip (`hmb_lookup`, or `hmb_direct_lookup` in full residency) and link bytes;
//!   a miss loads the translation page from flash (the device does that).
//! * **Dirty entries** ([`DirtyPolicy`]): `clean-only` keeps map updates in an SRAM journal
//!   written to flash every `journal_entries` updates, so writes never touch the cache;
//!   `dirty-in-hmb` updates cached segments in place and writes a segment back only when it
//!   leaves the cache. Updates not yet on flash are counted as lost on sudden power loss.

mod clock;
mod lru;

use crate::engine::SimDuration;
use crate::nand::CellMode;
use crate::nvme::HmbRequest;
use clock::Clock;
use lru::Lru;
use serde::{Deserialize, Serialize};

/// Where the map lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MapLocation {
    /// The whole map in controller DRAM.
    Dram,
    /// Controller SRAM only.
    Sram,
    /// SRAM plus the Host Memory Buffer.
    Hmb,
}

/// Replacement policy of each tier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Replacement {
    /// Least recently used.
    Lru,
    /// Second chance.
    Clock,
}

/// Where dirty map entries may live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirtyPolicy {
    /// Dirty entries stay in an SRAM journal written to flash promptly; HMB holds clean
    /// segments only.
    CleanOnly,
    /// Cached segments (in SRAM or HMB) are updated in place and written back on eviction.
    DirtyInHmb,
}

/// Map-cache parameters (validated).
#[derive(Clone, Debug, PartialEq)]
pub struct MapCacheConfig {
    /// Where the map lives.
    pub location: MapLocation,
    /// L2P entries per segment (translation page).
    pub segment_entries: u32,
    /// SRAM bytes holding map segments.
    pub sram_bytes: u64,
    /// Replacement policy.
    pub replacement: Replacement,
    /// Dirty-entry policy.
    pub dirty_policy: DirtyPolicy,
    /// Translation-page loads in flight at once.
    pub max_map_loads: u32,
    /// Cell mode of map blocks.
    pub map_mode: CellMode,
    /// Firmware time per map load (locate the page, issue, parse, insert, evict).
    pub map_load_fw: SimDuration,
    /// Core time of a lookup that hits in HMB while the map is partly resident.
    pub hmb_lookup: SimDuration,
    /// Core time of a lookup in a fully resident HMB map (direct index).
    pub hmb_direct_lookup: SimDuration,
    /// Bytes read over the link per HMB lookup.
    pub hmb_access_bytes: u32,
    /// Extra firmware time per read while the map is partly resident.
    pub partial_cmd: SimDuration,
    /// Updates per journal page (clean-only).
    pub journal_entries: u32,
    /// Share of the granted HMB used for map segments.
    pub hmb_map_share: f64,
    /// The controller's HMB request (Identify Controller).
    pub hmb: HmbRequest,
}

/// Whether the cache holds every segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Residency {
    /// Every segment resident: direct lookups, no misses.
    Full,
    /// Only part resident: searches, misses.
    Partial,
}

/// What a lookup costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// Resident where lookups cost nothing extra (DRAM, SRAM).
    Free,
    /// Resident in host memory: this much core time and `hmb_access_bytes` on the link.
    Hmb(SimDuration),
    /// Not resident: the translation page must be read from flash.
    Miss,
}

/// Map-cache activity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct MapCacheCounters {
    /// Segment lookups by reads.
    pub lookups: u64,
    /// Lookups served from SRAM (or DRAM).
    pub sram_hits: u64,
    /// Lookups served from HMB.
    pub hmb_hits: u64,
    /// Lookups that needed a translation-page load.
    pub misses: u64,
    /// Translation pages loaded from flash.
    pub map_loads: u64,
    /// Map updates (one per written or trimmed unit range per segment).
    pub updates: u64,
    /// Updates written through to a copy of their segment cached in the HMB (one PCIe write
    /// of `hmb_access_bytes` per segment a command updates).
    pub hmb_updates: u64,
    /// Journal pages written (clean-only).
    pub journal_pages: u64,
    /// Segments written back on eviction (dirty-in-hmb).
    pub segment_writebacks: u64,
    /// Updates that would be lost on a sudden power loss now.
    pub updates_at_risk: u64,
    /// The largest `updates_at_risk` seen.
    pub updates_at_risk_peak: u64,
}

const ON_FLASH: u8 = 0;
const IN_SRAM: u8 = 1;
const IN_HMB: u8 = 2;
const LOADING: u8 = 3;

#[derive(Clone, Debug)]
enum Tier {
    Lru(Lru),
    Clock(Clock),
}

impl Tier {
    fn new(policy: Replacement, segments: u32, capacity: u32) -> Self {
        match policy {
            Replacement::Lru => Tier::Lru(Lru::new(segments, capacity)),
            Replacement::Clock => Tier::Clock(Clock::new(segments, capacity)),
        }
    }
    fn touch(&mut self, s: u32) {
        match self {
            Tier::Lru(t) => t.touch(s),
            Tier::Clock(t) => t.touch(s),
        }
    }
    fn insert(&mut self, s: u32) -> Option<u32> {
        match self {
            Tier::Lru(t) => t.insert(s),
            Tier::Clock(t) => t.insert(s),
        }
    }
    fn remove(&mut self, s: u32) {
        match self {
            Tier::Lru(t) => t.remove(s),
            Tier::Clock(t) => t.remove(s),
        }
    }
}

/// The two-tier cache over all segments of the map.
#[derive(Clone, Debug)]
pub struct MapCache {
    cfg: MapCacheConfig,
    segments: u32,
    residency: Residency,
    sram_segments: u32,
    hmb_segments: u32,
    location: Vec<u8>,
    sram: Tier,
    hmb: Tier,
    /// Segments that have ever held a mapping (others need no load: firmware knows they are
    /// empty from its directory).
    ever_mapped: Vec<bool>,
    /// Updates per segment not yet on flash (dirty-in-hmb).
    dirty: Vec<u32>,
    /// Updates in the SRAM journal (clean-only).
    journal: u32,
    /// Activity counters.
    pub counters: MapCacheCounters,
}

impl MapCache {
    /// A cold cache over `logical_units`, with `hmb_bytes` granted by the host.
    pub fn new(cfg: MapCacheConfig, logical_units: u64, hmb_bytes: u64) -> Self {
        let segments = logical_units.div_ceil(u64::from(cfg.segment_entries)).max(1) as u32;
        let segment_bytes = u64::from(cfg.segment_entries) * 4;
        let (sram_segments, hmb_segments) = match cfg.location {
            MapLocation::Dram => (segments, 0),
            MapLocation::Sram => ((cfg.sram_bytes / segment_bytes) as u32, 0),
            MapLocation::Hmb => {
                let usable = (hmb_bytes as f64 * cfg.hmb_map_share) as u64;
                ((cfg.sram_bytes / segment_bytes) as u32, (usable / segment_bytes) as u32)
            }
        };
        let residency = if u64::from(sram_segments) + u64::from(hmb_segments) >= u64::from(segments) {
            Residency::Full
        } else {
            Residency::Partial
        };
        let partial = residency == Residency::Partial;
        MapCache {
            sram: Tier::new(
                cfg.replacement,
                if partial { segments } else { 0 },
                if partial { sram_segments } else { 0 },
            ),
            hmb: Tier::new(cfg.replacement, if partial { segments } else { 0 }, if partial { hmb_segments } else { 0 }),
            location: if partial { vec![ON_FLASH; segments as usize] } else { Vec::new() },
            ever_mapped: vec![false; segments as usize],
            dirty: if cfg.dirty_policy == DirtyPolicy::DirtyInHmb { vec![0; segments as usize] } else { Vec::new() },
            journal: 0,
            counters: MapCacheCounters::default(),
            cfg,
            segments,
            residency,
            sram_segments,
            hmb_segments,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &MapCacheConfig {
        &self.cfg
    }

    /// Whether every segment is resident.
    pub fn residency(&self) -> Residency {
        self.residency
    }

    /// Segment capacity of (SRAM, HMB).
    pub fn capacity_segments(&self) -> (u32, u32) {
        (self.sram_segments, self.hmb_segments)
    }

    /// Segments in the map.
    pub fn segments(&self) -> u32 {
        self.segments
    }

    /// Segment of logical unit `lpn`.
    #[inline]
    pub fn segment_of(&self, lpn: u64) -> u32 {
        (lpn / u64::from(self.cfg.segment_entries)) as u32
    }

    /// Extra firmware time per read command for the current residency.
    #[inline]
    pub fn read_overhead(&self) -> SimDuration {
        match self.residency {
            Residency::Partial => self.cfg.partial_cmd,
            Residency::Full => SimDuration::ZERO,
        }
    }

    /// Looks up segment `s` for a read and updates recency. A miss leaves the segment
    /// marked as loading; the caller must load it and call [`MapCache::loaded`].
    pub fn lookup(&mut self, s: u32) -> Lookup {
        self.counters.lookups += 1;
        if self.residency == Residency::Full {
            return match self.cfg.location {
                MapLocation::Hmb if self.hmb_segments > 0 => {
                    self.counters.hmb_hits += 1;
                    Lookup::Hmb(self.cfg.hmb_direct_lookup)
                }
                _ => {
                    self.counters.sram_hits += 1;
                    Lookup::Free
                }
            };
        }
        match self.location[s as usize] {
            IN_SRAM => {
                self.counters.sram_hits += 1;
                self.sram.touch(s);
                Lookup::Free
            }
            IN_HMB => {
                self.counters.hmb_hits += 1;
                self.hmb.remove(s);
                self.location[s as usize] = ON_FLASH;
                self.place_in_sram(s);
                Lookup::Hmb(self.cfg.hmb_lookup)
            }
            // A load in flight: wait for it like a miss, without counting another load.
            LOADING => {
                self.counters.misses += 1;
                Lookup::Miss
            }
            _ if !self.ever_mapped[s as usize] => {
                // Firmware's directory says the segment holds no mapping: nothing to load.
                self.counters.sram_hits += 1;
                Lookup::Free
            }
            _ => {
                self.counters.misses += 1;
                Lookup::Miss
            }
        }
    }

    /// True if a load of `s` is already under way (a lookup said Miss and it has not
    /// arrived).
    pub fn is_loading(&self, s: u32) -> bool {
        self.residency == Residency::Partial && self.location[s as usize] == LOADING
    }

    /// Marks `s` as being loaded.
    pub fn start_load(&mut self, s: u32) {
        self.location[s as usize] = LOADING;
        self.counters.map_loads += 1;
    }

    /// A translation page arrived: it enters SRAM. Returns a segment pushed out of the
    /// cache whose updates must be written back, with their count.
    pub fn loaded(&mut self, s: u32) -> Option<(u32, u32)> {
        debug_assert_eq!(self.location[s as usize], LOADING);
        self.location[s as usize] = ON_FLASH;
        self.place_in_sram(s)
    }

    /// Puts `s` in SRAM, moving SRAM's victim to HMB and HMB's victim out.
    fn place_in_sram(&mut self, s: u32) -> Option<(u32, u32)> {
        self.location[s as usize] = IN_SRAM;
        let down = self.sram.insert(s)?;
        if down == s {
            // No SRAM at all: the segment goes straight to HMB.
            self.location[s as usize] = ON_FLASH;
        }
        self.location[down as usize] = IN_HMB;
        let out = self.hmb.insert(down)?;
        self.location[out as usize] = ON_FLASH;
        self.take_dirty(out)
    }

    fn take_dirty(&mut self, s: u32) -> Option<(u32, u32)> {
        let n = std::mem::take(self.dirty.get_mut(s as usize)?);
        (n > 0).then(|| {
            self.counters.segment_writebacks += 1;
            (s, n)
        })
    }

    /// Records `n` map updates in segment `s` (writes or trims). Returns what must happen:
    /// journal pages to write, or (dirty-in-hmb) whether the segment must be loaded first,
    /// and whether a copy cached in the HMB is written through.
    ///
    /// A cached copy is never left stale: in SRAM it is updated in place for free; in the
    /// HMB the controller writes the changed entries to host memory (`hmb_write`), which
    /// costs the link, not a reload. Recency does not change (an update is not a lookup). A
    /// segment not cached, or being loaded, keeps its updates in the journal (clean-only),
    /// which firmware merges into the page when it arrives.
    pub fn update(&mut self, s: u32, n: u32, mapping: bool) -> Update {
        self.counters.updates += u64::from(n);
        let was_mapped = self.ever_mapped[s as usize];
        if mapping {
            self.ever_mapped[s as usize] = true;
        }
        if self.cfg.location == MapLocation::Dram {
            return Update::default();
        }
        self.add_at_risk(u64::from(n));
        let hmb_write = match self.residency {
            Residency::Full => self.cfg.location == MapLocation::Hmb && self.hmb_segments > 0,
            Residency::Partial => self.location[s as usize] == IN_HMB,
        };
        if hmb_write {
            self.counters.hmb_updates += 1;
        }
        Update { hmb_write, ..self.record_update(s, n, was_mapped) }
    }

    /// The journal or dirty-entry side of [`MapCache::update`].
    fn record_update(&mut self, s: u32, n: u32, was_mapped: bool) -> Update {
        match self.cfg.dirty_policy {
            DirtyPolicy::CleanOnly => {
                self.journal += n;
                let pages = self.journal / self.cfg.journal_entries;
                self.journal %= self.cfg.journal_entries;
                self.counters.journal_pages += u64::from(pages);
                Update { journal_pages: pages, ..Update::default() }
            }
            DirtyPolicy::DirtyInHmb => {
                self.dirty[s as usize] += n;
                let absent = self.residency == Residency::Partial && self.location[s as usize] == ON_FLASH;
                if absent && !was_mapped {
                    // An empty segment is created in the cache; nothing to read from flash.
                    let writeback = self.place_in_sram(s);
                    return Update { writeback, ..Update::default() };
                }
                Update { load: absent, ..Update::default() }
            }
        }
    }

    fn add_at_risk(&mut self, n: u64) {
        let c = &mut self.counters;
        c.updates_at_risk += n;
        c.updates_at_risk_peak = c.updates_at_risk_peak.max(c.updates_at_risk);
    }

    /// `n` updates reached flash (a journal page or a segment write-back was programmed).
    pub fn persisted(&mut self, n: u32) {
        self.counters.updates_at_risk = self.counters.updates_at_risk.saturating_sub(u64::from(n));
    }

    /// Empties the SRAM journal for a partial page write; returns its updates.
    pub fn take_journal(&mut self) -> u32 {
        let n = std::mem::take(&mut self.journal);
        if n > 0 {
            self.counters.journal_pages += 1;
        }
        n
    }

    /// Updates per journal page.
    pub fn journal_entries(&self) -> u32 {
        self.cfg.journal_entries
    }

    /// Forgets every mapping (Format NVM); cached segments stay, holding empty maps.
    pub fn format(&mut self) {
        self.ever_mapped.fill(false);
    }

    /// Marks the segments of the logical units `mapped_units` as mapped (after a restore).
    pub fn mark_mapped(&mut self, mapped_units: impl Iterator<Item = u64>) {
        for lpn in mapped_units {
            let s = self.segment_of(lpn);
            self.ever_mapped[s as usize] = true;
        }
    }

    /// Marks the segments of the logical units `units` as mapped (after a bulk fill): one
    /// step per segment.
    pub fn mark_range_mapped(&mut self, units: std::ops::Range<u64>) {
        if units.is_empty() {
            return;
        }
        let (first, last) = (self.segment_of(units.start), self.segment_of(units.end - 1));
        self.ever_mapped[first as usize..=last as usize].fill(true);
    }
}

/// What a map update requires of the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Update {
    /// Journal pages that filled and must be programmed.
    pub journal_pages: u32,
    /// The segment must be loaded before it can be updated in place.
    pub load: bool,
    /// A dirty segment pushed out of the cache, with its updates: write it back.
    pub writeback: Option<(u32, u32)>,
    /// The segment's copy in the HMB is written through (a PCIe write to host memory).
    pub hmb_write: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(location: MapLocation, sram_segments: u64, replacement: Replacement) -> MapCacheConfig {
        MapCacheConfig {
            location,
            segment_entries: 1024,
            sram_bytes: sram_segments * 4096,
            replacement,
            dirty_policy: DirtyPolicy::CleanOnly,
            max_map_loads: 1,
            map_mode: CellMode::Slc,
            map_load_fw: SimDuration::ZERO,
            hmb_lookup: SimDuration::from_us(11),
            hmb_direct_lookup: SimDuration::from_us(4),
            hmb_access_bytes: 64,
            partial_cmd: SimDuration::from_us(5),
            journal_entries: 100,
            hmb_map_share: 1.0,
            hmb: HmbRequest::default(),
        }
    }

    fn mapped(mut c: MapCache) -> MapCache {
        let units = u64::from(c.segments) * 1024;
        c.mark_range_mapped(0..units);
        c
    }

    /// Hand-computed: 2 SRAM slots + 2 HMB slots over 8 segments, LRU, accesses
    /// 0 1 2 0 3 4 1 0: misses 0 1 2; 0 hits HMB (SRAM held 1 2, 0 had moved down);
    /// 3 and 4 miss; 1 has left the cache (pushed out of HMB by 4) and misses; 0 is in HMB.
    #[test]
    fn lru_two_tier_hits_and_misses_by_hand() {
        let mut c = mapped(MapCache::new(cfg(MapLocation::Hmb, 2, Replacement::Lru), 8 * 1024, 2 * 4096));
        assert_eq!(c.residency(), Residency::Partial);
        let mut trace = Vec::new();
        for s in [0, 1, 2, 0, 3, 4, 1, 0] {
            let r = c.lookup(s);
            if r == Lookup::Miss {
                c.start_load(s);
                c.loaded(s);
            }
            trace.push(match r {
                Lookup::Free => 'S',
                Lookup::Hmb(_) => 'H',
                Lookup::Miss => 'M',
            });
        }
        // 0 M [0|], 1 M [1 0|], 2 M [2 1|0], 0 H [0 2|1], 3 M [3 0|2 1], 4 M [4 3|0 2] (1 out),
        // 1 M [1 4|3 0] (2 out), 0 H [0 1|4 3].
        assert_eq!(trace.iter().collect::<String>(), "MMMHMMMH");
        let k = c.counters;
        assert_eq!((k.lookups, k.sram_hits, k.hmb_hits, k.misses, k.map_loads), (8, 0, 2, 6, 6));
    }

    #[test]
    fn clock_gives_a_second_chance() {
        // One tier of 2 slots (no HMB): 0 1 0 2 -> 2 evicts 1 (0 was referenced again).
        let mut c = mapped(MapCache::new(cfg(MapLocation::Sram, 2, Replacement::Clock), 4 * 1024, 0));
        for s in [0, 1] {
            assert_eq!(c.lookup(s), Lookup::Miss);
            c.start_load(s);
            c.loaded(s);
        }
        assert_eq!(c.lookup(0), Lookup::Free);
        assert_eq!(c.lookup(2), Lookup::Miss);
        c.start_load(2);
        c.loaded(2);
        assert_eq!(c.lookup(0), Lookup::Free);
    }

    #[test]
    fn a_cache_covering_the_map_is_fully_resident() {
        let mut c = MapCache::new(cfg(MapLocation::Hmb, 2, Replacement::Lru), 8 * 1024, 6 * 4096);
        assert_eq!(c.residency(), Residency::Full);
        assert_eq!(c.read_overhead(), SimDuration::ZERO);
        assert_eq!(c.lookup(7), Lookup::Hmb(SimDuration::from_us(4)));
    }

    #[test]
    fn never_written_segments_need_no_load() {
        let mut c = MapCache::new(cfg(MapLocation::Sram, 1, Replacement::Lru), 8 * 1024, 0);
        assert_eq!(c.lookup(5), Lookup::Free);
        c.update(5, 1, true);
        assert_eq!(c.lookup(5), Lookup::Miss);
    }

    #[test]
    fn clean_only_journal_bounds_what_power_loss_would_take() {
        let mut c = MapCache::new(cfg(MapLocation::Hmb, 2, Replacement::Lru), 8 * 1024, 2 * 4096);
        assert_eq!(c.update(0, 60, true), Update { journal_pages: 0, load: false, writeback: None, hmb_write: false });
        assert_eq!(c.update(3, 60, true), Update { journal_pages: 1, load: false, writeback: None, hmb_write: false });
        assert_eq!(c.counters.updates_at_risk, 120);
        c.persisted(100);
        assert_eq!((c.counters.updates_at_risk, c.counters.updates_at_risk_peak), (20, 120));
    }

    #[test]
    fn dirty_in_hmb_writes_a_segment_back_when_it_leaves() {
        let mut config = cfg(MapLocation::Hmb, 1, Replacement::Lru);
        config.dirty_policy = DirtyPolicy::DirtyInHmb;
        let mut c = mapped(MapCache::new(config, 8 * 1024, 4096));
        // Segment 0 holds mappings but is not cached: updating it needs a load first.
        assert_eq!(c.update(0, 5, true), Update { journal_pages: 0, load: true, writeback: None, hmb_write: false });
        for s in [0, 1] {
            c.lookup(s);
            c.start_load(s);
            assert_eq!(c.loaded(s), None);
        }
        c.lookup(2);
        c.start_load(2);
        // 2 enters SRAM, 1 moves to HMB, 0 (dirty, 5 updates) leaves.
        assert_eq!(c.loaded(2), Some((0, 5)));
        assert_eq!(c.counters.segment_writebacks, 1);
    }
}
