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
//! * **HMB copies under `clean-only`** ([`HmbValidity`]): either written through by every
//!   update, or valid only for one journal epoch: a read that finds a segment in the HMB
//!   checks the SRAM journal for newer entries, so when a journal page is written (its
//!   entries leave SRAM) every HMB copy loaded before it is dropped. Copying a segment down
//!   into the HMB costs `hmb_fill` of core time and the segment's bytes on the link.
//! * **Segments built by writes**: a segment none of whose entries is mapped needs no load
//!   (the firmware's directory says so; a TRIM of the whole segment makes it so again). With
//!   no HMB, a write into such a segment builds it in an SRAM *update area*
//!   (`update_sram_bytes`, the SRAM an HMB's index would take) where later reads find it.

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

/// How long a `clean-only` controller's HMB copy of a segment stays valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HmbValidity {
    /// Every map update is written through to the copy in host memory.
    WriteThrough,
    /// Copies are valid until the SRAM journal's next page is written; reads check the
    /// journal for entries newer than the copy.
    JournalEpoch,
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
    /// How long HMB copies stay valid under `clean-only`.
    pub hmb_validity: HmbValidity,
    /// Core time to copy one segment down into the HMB.
    pub hmb_fill: SimDuration,
    /// SRAM for segments built by writes while there is no HMB.
    pub update_sram_bytes: u64,
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
    /// Segments copied down into the HMB (each `hmb_fill` of core time and a segment's bytes
    /// on the link).
    pub hmb_fills: u64,
    /// HMB copies dropped because the journal epoch they were loaded in ended.
    pub hmb_invalidations: u64,
}

const ON_FLASH: u8 = 0;
const IN_SRAM: u8 = 1;
const IN_HMB: u8 = 2;
const LOADING: u8 = 3;
const IN_UPDATE_AREA: u8 = 4;

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
    fn len(&self) -> u32 {
        match self {
            Tier::Lru(t) => t.len(),
            Tier::Clock(t) => t.len(),
        }
    }
    /// Empties the tier, handing each of its segments to `out`.
    fn drain(&mut self, out: impl FnMut(u32)) {
        match self {
            Tier::Lru(t) => t.drain(out),
            Tier::Clock(t) => t.drain(out),
        }
    }
}

/// The two-tier cache over all segments of the map (plus, without an HMB, the update area).
#[derive(Clone, Debug)]
pub struct MapCache {
    cfg: MapCacheConfig,
    segments: u32,
    residency: Residency,
    sram_segments: u32,
    hmb_segments: u32,
    update_segments: u32,
    /// Where each segment is, once the cache tracks segments (`location` empty until then:
    /// a cache built fully resident indexes the map directly and tracks nothing).
    location: Vec<u8>,
    sram: Tier,
    hmb: Tier,
    update_area: Tier,
    /// Segments that hold a mapping (others need no load: firmware knows they are empty
    /// from its directory).
    ever_mapped: Vec<bool>,
    /// Updates per segment not yet on flash (dirty-in-hmb).
    dirty: Vec<u32>,
    /// Updates in the SRAM journal (clean-only).
    journal: u32,
    /// Segments copied down into the HMB that the device has not yet paid for.
    unpaid_fills: u32,
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
        let update_segments = match cfg.location {
            MapLocation::Sram | MapLocation::Hmb if hmb_segments == 0 => {
                (cfg.update_sram_bytes / segment_bytes).min(u64::from(segments)) as u32
            }
            _ => 0,
        };
        let residency = if u64::from(sram_segments) + u64::from(hmb_segments) >= u64::from(segments) {
            Residency::Full
        } else {
            Residency::Partial
        };
        let mut cache = MapCache {
            sram: Tier::new(cfg.replacement, 0, 0),
            hmb: Tier::new(cfg.replacement, 0, 0),
            update_area: Tier::new(cfg.replacement, 0, 0),
            location: Vec::new(),
            ever_mapped: vec![false; segments as usize],
            dirty: if cfg.dirty_policy == DirtyPolicy::DirtyInHmb { vec![0; segments as usize] } else { Vec::new() },
            journal: 0,
            unpaid_fills: 0,
            counters: MapCacheCounters::default(),
            cfg,
            segments,
            residency,
            sram_segments,
            hmb_segments,
            update_segments,
        };
        if residency == Residency::Partial {
            cache.track();
        }
        cache
    }

    /// Starts tracking where each segment is, with every segment on flash.
    fn track(&mut self) {
        let (policy, n) = (self.cfg.replacement, self.segments);
        self.sram = Tier::new(policy, n, self.sram_segments);
        self.hmb = Tier::new(policy, n, self.hmb_segments);
        self.update_area = Tier::new(policy, n, self.update_segments);
        self.location = vec![ON_FLASH; n as usize];
        self.residency = Residency::Partial;
    }

    fn tracking(&self) -> bool {
        !self.location.is_empty()
    }

    /// The configuration.
    pub fn config(&self) -> &MapCacheConfig {
        &self.cfg
    }

    /// Whether every segment is resident.
    pub fn residency(&self) -> Residency {
        self.residency
    }

    /// Capacity of each tier, in segments (SRAM, HMB).
    pub fn capacity_segments(&self) -> (u32, u32) {
        (self.sram_segments, self.hmb_segments)
    }

    /// Segments in the map.
    pub fn segments(&self) -> u32 {
        self.segments
    }

    /// The segment holding `lpn`'s entry.
    #[inline]
    pub fn segment_of(&self, lpn: u64) -> u32 {
        (lpn / u64::from(self.cfg.segment_entries)) as u32
    }

    /// Firmware time every read pays while the map is partly resident.
    #[inline]
    pub fn read_overhead(&self) -> SimDuration {
        match self.residency {
            Residency::Partial => self.cfg.partial_cmd,
            Residency::Full => SimDuration::ZERO,
        }
    }

    /// Looks up segment `s` for a read.
    pub fn lookup(&mut self, s: u32) -> Lookup {
        self.counters.lookups += 1;
        if !self.tracking() {
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
            IN_UPDATE_AREA => {
                self.counters.sram_hits += 1;
                self.update_area.touch(s);
                Lookup::Free
            }
            // Every segment resident again: indexed directly where it is.
            IN_HMB if self.residency == Residency::Full => {
                self.counters.hmb_hits += 1;
                self.hmb.touch(s);
                Lookup::Hmb(self.cfg.hmb_direct_lookup)
            }
            IN_HMB => {
                self.counters.hmb_hits += 1;
                self.hmb.remove(s);
                self.location[s as usize] = ON_FLASH;
                // The firmware reads the entry it needs (`hmb_access_bytes`), not the whole
                // segment: the swap of tiers is bookkeeping inside `hmb_lookup`, no fill.
                self.place_in_sram(s, false);
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

    /// Whether segment `s` is being loaded.
    pub fn is_loading(&self, s: u32) -> bool {
        self.tracking() && self.location[s as usize] == LOADING
    }

    /// Marks `s` as being loaded.
    pub fn start_load(&mut self, s: u32) {
        self.location[s as usize] = LOADING;
        self.counters.map_loads += 1;
    }

    /// A load finished: `s` enters SRAM. Returns a dirty segment pushed out of the cache, with
    /// its updates, that must be written back.
    pub fn loaded(&mut self, s: u32) -> Option<(u32, u32)> {
        debug_assert_eq!(self.location[s as usize], LOADING);
        self.location[s as usize] = ON_FLASH;
        self.place_in_sram(s, true)
    }

    /// Segments copied down into the HMB since the last call: the device books their core
    /// time and link bytes.
    pub fn take_fills(&mut self) -> u32 {
        std::mem::take(&mut self.unpaid_fills)
    }

    /// Puts `s` in SRAM; SRAM's victim moves down to the HMB, copied there if `copy` (a
    /// segment new to the cache), and the HMB's victim leaves.
    fn place_in_sram(&mut self, s: u32, copy: bool) -> Option<(u32, u32)> {
        self.location[s as usize] = IN_SRAM;
        let down = self.sram.insert(s)?;
        if down == s {
            // No SRAM at all: the segment goes straight to HMB.
            self.location[s as usize] = ON_FLASH;
        }
        self.location[down as usize] = IN_HMB;
        if copy && self.hmb_segments > 0 {
            self.unpaid_fills += 1;
            self.counters.hmb_fills += 1;
        }
        let out = self.hmb.insert(down);
        self.refresh_residency();
        let out = out?;
        self.location[out as usize] = ON_FLASH;
        self.take_dirty(out)
    }

    /// Full again once every segment is resident (a tracked cache).
    fn refresh_residency(&mut self) {
        let resident = self.sram.len() + self.hmb.len() + self.update_area.len();
        self.residency = if resident >= self.segments { Residency::Full } else { Residency::Partial };
    }

    /// Takes a dirty segment's pending updates if it has any, counting a write-back.
    fn take_dirty(&mut self, s: u32) -> Option<(u32, u32)> {
        let n = std::mem::take(self.dirty.get_mut(s as usize)?);
        (n > 0).then(|| {
            self.counters.segment_writebacks += 1;
            (s, n)
        })
    }

    /// Records `n` updates to segment `s` (units written if `mapping`, else trimmed).
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
        let in_hmb = if self.tracking() {
            self.location[s as usize] == IN_HMB
        } else {
            self.cfg.location == MapLocation::Hmb && self.hmb_segments > 0
        };
        let hmb_write = in_hmb
            && (self.cfg.dirty_policy == DirtyPolicy::DirtyInHmb || self.cfg.hmb_validity == HmbValidity::WriteThrough);
        if hmb_write {
            self.counters.hmb_updates += 1;
        }
        Update { hmb_write, ..self.record_update(s, n, was_mapped) }
    }

    fn record_update(&mut self, s: u32, n: u32, was_mapped: bool) -> Update {
        match self.cfg.dirty_policy {
            DirtyPolicy::CleanOnly => {
                if !was_mapped && self.update_segments > 0 && self.location[s as usize] == ON_FLASH {
                    // An empty segment is built in SRAM; the journal carries its entries, so
                    // it leaves the update area with nothing to write.
                    self.location[s as usize] = IN_UPDATE_AREA;
                    if let Some(out) = self.update_area.insert(s) {
                        self.location[out as usize] = ON_FLASH;
                    }
                }
                self.journal += n;
                let pages = self.journal / self.cfg.journal_entries;
                self.journal %= self.cfg.journal_entries;
                self.counters.journal_pages += u64::from(pages);
                if pages > 0 {
                    self.end_journal_epoch();
                }
                Update { journal_pages: pages, ..Update::default() }
            }
            DirtyPolicy::DirtyInHmb => {
                self.dirty[s as usize] += n;
                let absent = self.tracking() && self.location[s as usize] == ON_FLASH;
                if absent && !was_mapped {
                    // An empty segment is created in the cache; nothing to read from flash.
                    let writeback = self.place_in_sram(s, true);
                    return Update { writeback, ..Update::default() };
                }
                Update { load: absent, ..Update::default() }
            }
        }
    }

    /// A journal page left SRAM: under [`HmbValidity::JournalEpoch`] every HMB copy loaded
    /// before it could miss one of its entries, so all of them are dropped.
    fn end_journal_epoch(&mut self) {
        if self.cfg.hmb_validity != HmbValidity::JournalEpoch || self.hmb_segments == 0 {
            return;
        }
        if !self.tracking() {
            // A directly indexed map: every segment was in the cache, the HMB's share goes.
            self.counters.hmb_invalidations += u64::from(self.hmb_segments.min(self.segments));
            self.track();
            return;
        }
        let (location, dropped) = (&mut self.location, &mut self.counters.hmb_invalidations);
        self.hmb.drain(|s| {
            location[s as usize] = ON_FLASH;
            *dropped += 1;
        });
        self.refresh_residency();
    }

    /// A TRIM covered every entry of segment `s`: the directory marks it empty again.
    pub fn unmap_segment(&mut self, s: u32) {
        self.ever_mapped[s as usize] = false;
    }

    fn add_at_risk(&mut self, n: u64) {
        let c = &mut self.counters;
        c.updates_at_risk += n;
        c.updates_at_risk_peak = c.updates_at_risk_peak.max(c.updates_at_risk);
    }

    /// `n` updates reached flash.
    pub fn persisted(&mut self, n: u32) {
        self.counters.updates_at_risk = self.counters.updates_at_risk.saturating_sub(u64::from(n));
    }

    /// Empties the SRAM journal (a partly filled page is being written); returns its updates.
    pub fn take_journal(&mut self) -> u32 {
        let n = std::mem::take(&mut self.journal);
        if n > 0 {
            self.counters.journal_pages += 1;
            self.end_journal_epoch();
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
            hmb_validity: HmbValidity::WriteThrough,
            hmb_fill: SimDuration::ZERO,
            update_sram_bytes: 0,
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

    fn epoch_cfg(sram_segments: u64) -> MapCacheConfig {
        MapCacheConfig {
            hmb_validity: HmbValidity::JournalEpoch,
            ..cfg(MapLocation::Hmb, sram_segments, Replacement::Lru)
        }
    }

    fn load(c: &mut MapCache, s: u32) {
        assert_eq!(c.lookup(s), Lookup::Miss, "segment {s}");
        c.start_load(s);
        c.loaded(s);
    }

    #[test]
    fn a_journal_page_drops_every_hmb_copy_but_keeps_sram_copies() {
        // 1 SRAM slot, 4 HMB slots over 8 segments; 100 updates per journal page.
        let mut c = mapped(MapCache::new(epoch_cfg(1), 8 * 1024, 4 * 4096));
        for s in 0..4 {
            load(&mut c, s);
        }
        // SRAM holds 3; 0, 1 and 2 were copied down into the HMB, one fill each.
        assert_eq!((c.counters.hmb_fills, c.take_fills()), (3, 3));
        // Updates below a page change nothing the reads see (no write-through either).
        assert!(!c.update(7, 99, true).hmb_write);
        assert_eq!(c.lookup(1), Lookup::Hmb(SimDuration::from_us(11)));
        // The 100th update fills a page: the HMB copies (0 and 2, after 1 moved up and 3 down)
        // are dropped; SRAM's copy of 1 stays.
        assert_eq!(c.update(7, 1, true).journal_pages, 1);
        assert_eq!(c.counters.hmb_invalidations, 3);
        assert_eq!(c.lookup(1), Lookup::Free);
        for s in [0, 2, 3] {
            assert_eq!(c.lookup(s), Lookup::Miss, "segment {s}");
        }
    }

    #[test]
    fn write_through_copies_survive_the_journal() {
        let mut c = mapped(MapCache::new(cfg(MapLocation::Hmb, 1, Replacement::Lru), 8 * 1024, 4 * 4096));
        load(&mut c, 0);
        load(&mut c, 1);
        assert!(c.update(0, 100, true).hmb_write);
        assert_eq!(c.counters.hmb_invalidations, 0);
        assert_eq!(c.lookup(0), Lookup::Hmb(SimDuration::from_us(11)));
    }

    #[test]
    fn a_directly_indexed_map_tracks_segments_after_its_first_epoch() {
        // 2 SRAM + 6 HMB slots hold all 8 segments: direct lookups, until a journal page.
        let mut c = mapped(MapCache::new(epoch_cfg(2), 8 * 1024, 6 * 4096));
        assert_eq!(c.lookup(5), Lookup::Hmb(SimDuration::from_us(4)));
        c.update(0, 100, true);
        assert_eq!((c.residency(), c.counters.hmb_invalidations), (Residency::Partial, 6));
        assert_eq!(c.read_overhead(), SimDuration::from_us(5));
        for s in 0..8 {
            load(&mut c, s);
        }
        // Every segment back in the cache: indexed directly again, with no search.
        assert_eq!(c.residency(), Residency::Full);
        assert_eq!(c.lookup(0), Lookup::Hmb(SimDuration::from_us(4)));
    }

    #[test]
    fn without_hmb_writes_build_deallocated_segments_in_the_update_area() {
        let config = MapCacheConfig { update_sram_bytes: 2 * 4096, ..epoch_cfg(1) };
        let mut c = MapCache::new(config.clone(), 8 * 1024, 0);
        // Segments 0..3 were never mapped: writes build them; the update area holds 2.
        for s in 0..3 {
            c.update(s, 1, true);
        }
        assert_eq!((c.lookup(1), c.lookup(2)), (Lookup::Free, Lookup::Free));
        assert_eq!(c.lookup(0), Lookup::Miss);
        // A segment that already holds mappings is not built: the journal carries the write.
        c.update(0, 1, true);
        assert_eq!(c.lookup(0), Lookup::Miss);
        // With an HMB, that SRAM is the HMB's index: nothing is built.
        let mut with_hmb = MapCache::new(config, 8 * 1024, 4096);
        with_hmb.update(4, 1, true);
        assert_eq!(with_hmb.lookup(4), Lookup::Miss);
    }

    #[test]
    fn a_whole_segment_trim_empties_it_again() {
        let mut c = mapped(MapCache::new(cfg(MapLocation::Sram, 1, Replacement::Lru), 8 * 1024, 0));
        assert_eq!(c.lookup(3), Lookup::Miss);
        c.unmap_segment(3);
        assert_eq!(c.lookup(3), Lookup::Free);
    }
}
