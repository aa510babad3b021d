//! Swap areas: slot maps, the slot allocators of two kernel eras, and the swap cache index.
//!
//! Read first: `mm/swapfile.c` at v3.6 (`scan_swap_map`, `get_swap_page`, `swap_entry_free`)
//! and the 3.12–3.14 changes by Shaohua Li ("swap: change block allocation algorithm for
//! SSD", 2a8f9449: per-cluster counters and a free-cluster list; "swap: make cluster
//! allocation per-cpu", ebc2a1a6); `docs/model.md` § "Swap". Each area is one block device
//! (or partition) given to `swapon`; slot 0 holds the swap header and is never allocated.
//! Areas of equal priority are used in turn, one allocation each (3.6's `swap_list.next`
//! moves on after every page), which stripes swap across devices page by page.
//!
//! Allocators ([`SwapAllocator`]):
//!
//! * `Scan` (3.6): slots are handed out in runs of `SWAPFILE_CLUSTER` (256) from
//!   `cluster_next`; when a run is used up, the byte map is scanned from the current
//!   position (an SSD's; a disk's from `lowest_bit`) for 256 free slots in a row, then, if
//!   none, for the first free slot. Every byte examined is counted: the scan is the CPU cost
//!   that grew to "20~30 % CPU time" on fragmented SSD swap (2a8f9449's message).
//! * `Clusters` (3.12): per-256-slot counters and a FIFO of free clusters replace the scan;
//!   the area allocates through one current cluster.
//! * `PerCpuClusters` (3.14): each CPU has its own current cluster, so each reclaiming CPU
//!   writes a run of adjacent slots that the block layer merges into large requests.
//!
//! A slot is in use from `add_to_swap` until nothing refers to it (no PTE, no swap-cache
//! page); the swap count and `SWAP_HAS_CACHE` are folded into one used byte here.
//! Memory: one byte per slot for the map and four for the swap-cache index, both zeroed
//! lazily by the OS, plus 2 bytes per cluster of 256.

use std::collections::VecDeque;

/// `SWAPFILE_CLUSTER`: slots allocated in a row before a new run is looked for.
pub const SWAPFILE_CLUSTER: u32 = 256;

/// How slots are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapAllocator {
    /// 3.6's `scan_swap_map` over the byte map.
    Scan,
    /// 3.12's cluster counters and free-cluster list, one current cluster per area.
    Clusters,
    /// 3.14's per-CPU current cluster.
    PerCpuClusters,
}

/// A slot handed out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocated {
    /// Global slot number.
    pub slot: u32,
    /// The area it is in.
    pub area: usize,
    /// Bytes of the slot map the allocator examined.
    pub scanned: u64,
}

#[derive(Clone, Copy, Debug)]
struct CpuCluster {
    /// Current cluster, or `u32::MAX` for none.
    cluster: u32,
    /// Next slot to try within it.
    next: u32,
}

const NO_CLUSTER: CpuCluster = CpuCluster { cluster: u32::MAX, next: 0 };

/// One swap area.
pub struct SwapArea {
    /// Global number of this area's slot 0.
    pub base: u32,
    /// Slots, header included.
    pub slots: u32,
    /// Where slot 0 is on the host's block target, bytes.
    pub offset_bytes: u64,
    map: Vec<u8>,
    inuse: u32,
    lowest: u32,
    highest: u32,
    cluster_next: u32,
    cluster_nr: u32,
    cluster_used: Vec<u16>,
    free_clusters: VecDeque<u32>,
    current: Vec<CpuCluster>,
    /// The swap cache: frame + 1 of the page a slot's data is in, 0 for none.
    pub cache: Vec<u32>,
}

impl SwapArea {
    fn new(base: u32, slots: u32, offset_bytes: u64, allocator: SwapAllocator, cpus: u32) -> Self {
        let clusters = slots.div_ceil(SWAPFILE_CLUSTER);
        let clustered = allocator != SwapAllocator::Scan;
        let mut cluster_used = if clustered { vec![0u16; clusters as usize] } else { Vec::new() };
        let mut free_clusters = VecDeque::new();
        if clustered {
            // The header occupies slot 0: cluster 0 is never free; a short last cluster
            // counts its missing slots as used.
            cluster_used[0] = 1;
            let tail = clusters * SWAPFILE_CLUSTER - slots;
            cluster_used[clusters as usize - 1] += tail as u16;
            free_clusters.extend((0..clusters).filter(|&c| cluster_used[c as usize] == 0));
        }
        let current = match allocator {
            SwapAllocator::PerCpuClusters => vec![NO_CLUSTER; cpus as usize],
            _ => vec![NO_CLUSTER],
        };
        SwapArea {
            base,
            slots,
            offset_bytes,
            map: vec![0; slots as usize],
            inuse: 1,
            lowest: 1,
            highest: slots - 1,
            cluster_next: 1,
            cluster_nr: 0,
            cluster_used,
            free_clusters,
            current,
            cache: vec![0; slots as usize],
        }
    }

    /// Slots in use (the header counts as one).
    pub fn inuse(&self) -> u32 {
        self.inuse
    }

    fn full(&self) -> bool {
        self.inuse >= self.slots
    }

    fn take(&mut self, offset: u32) {
        debug_assert_eq!(self.map[offset as usize], 0);
        self.map[offset as usize] = 1;
        self.inuse += 1;
        if offset == self.lowest {
            self.lowest += 1;
        }
        if offset == self.highest {
            self.highest -= 1;
        }
        if self.inuse == self.slots {
            self.lowest = self.slots;
            self.highest = 0;
        }
        if let Some(c) = self.cluster_used.get_mut((offset / SWAPFILE_CLUSTER) as usize) {
            *c += 1;
        }
    }

    fn release(&mut self, offset: u32) {
        debug_assert_eq!(self.map[offset as usize], 1, "slot {offset} freed twice");
        self.map[offset as usize] = 0;
        self.inuse -= 1;
        self.lowest = self.lowest.min(offset);
        self.highest = self.highest.max(offset);
        let c = offset / SWAPFILE_CLUSTER;
        if let Some(used) = self.cluster_used.get_mut(c as usize) {
            *used -= 1;
            if *used == 0 {
                self.free_clusters.push_back(c);
            }
        }
    }

    /// The first `SWAPFILE_CLUSTER` free slots in a row (unaligned) from `offset`, whose last
    /// slot comes before `end`; `scanned` counts the map bytes examined.
    fn first_free_cluster(&self, mut offset: u32, end: u32, scanned: &mut u64) -> Option<u32> {
        let mut last_in_cluster = offset + SWAPFILE_CLUSTER - 1;
        while last_in_cluster < end {
            *scanned += 1;
            if self.map[offset as usize] != 0 {
                last_in_cluster = offset + SWAPFILE_CLUSTER;
            } else if offset == last_in_cluster {
                return Some(offset + 1 - SWAPFILE_CLUSTER);
            }
            offset += 1;
        }
        None
    }

    /// `scan_swap_map` (3.6, the SSD path): the slot, and the map bytes examined.
    fn scan(&mut self) -> Option<(u32, u64)> {
        if self.full() {
            return None;
        }
        let mut scanned = 0u64;
        let mut offset = self.cluster_next;
        let scan_base = offset;
        if self.cluster_nr == 0 {
            self.cluster_nr = SWAPFILE_CLUSTER - 1;
            if self.slots - self.inuse >= SWAPFILE_CLUSTER {
                // Locate the first empty (unaligned) cluster, from here to the end, then
                // from the start to here.
                let found = self
                    .first_free_cluster(scan_base, self.highest + 1, &mut scanned)
                    .or_else(|| self.first_free_cluster(self.lowest, scan_base, &mut scanned));
                offset = found.unwrap_or(scan_base);
            }
        } else {
            self.cluster_nr -= 1;
        }
        // checks:
        if offset > self.highest || offset < self.lowest {
            offset = self.lowest;
        }
        if self.map[offset as usize] != 0 {
            // First free slot after here, then from the start.
            let from = offset;
            let mut hit = None;
            let mut o = from + 1;
            while o <= self.highest {
                scanned += 1;
                if self.map[o as usize] == 0 {
                    hit = Some(o);
                    break;
                }
                o += 1;
            }
            if hit.is_none() {
                let mut o = self.lowest;
                while o < from {
                    scanned += 1;
                    if self.map[o as usize] == 0 {
                        hit = Some(o);
                        break;
                    }
                    o += 1;
                }
            }
            offset = hit?;
        }
        self.take(offset);
        self.cluster_next = offset + 1;
        Some((offset, scanned))
    }

    /// The cluster allocators (3.12/3.14): the next free slot of `cpu`'s current cluster,
    /// a new cluster from the free list when it is used up, the scan when none is free.
    fn clustered(&mut self, cpu: usize) -> Option<(u32, u64)> {
        let cpu = cpu.min(self.current.len() - 1);
        loop {
            let cur = self.current[cpu];
            if cur.cluster == u32::MAX {
                match self.free_clusters.pop_front() {
                    // A cluster can be on the list while another CPU took slots from it
                    // (it was freed again, then reused): take it only if still empty.
                    Some(c) if self.cluster_used[c as usize] == 0 => {
                        self.current[cpu] = CpuCluster { cluster: c, next: c * SWAPFILE_CLUSTER };
                    }
                    Some(_) => continue,
                    None => return self.scan(),
                }
                continue;
            }
            let end = ((cur.cluster + 1) * SWAPFILE_CLUSTER).min(self.slots);
            let mut o = cur.next;
            let mut scanned = 0;
            while o < end && self.map[o as usize] != 0 {
                o += 1;
                scanned += 1;
            }
            if o >= end {
                self.current[cpu] = NO_CLUSTER;
                continue;
            }
            self.current[cpu].next = o + 1;
            self.take(o);
            return Some((o, scanned));
        }
    }
}

/// Every swap area, used in turn.
pub struct Swap {
    /// The areas, in `swapon` order, all of one priority.
    pub areas: Vec<SwapArea>,
    allocator: SwapAllocator,
    next_area: usize,
    total_slots: u32,
}

impl Swap {
    /// No swap yet.
    pub fn new(allocator: SwapAllocator) -> Self {
        Swap { areas: Vec::new(), allocator, next_area: 0, total_slots: 0 }
    }

    /// `swapon` of `slots` page slots at `offset_bytes` on the target, for `cpus` CPUs.
    pub fn add_area(&mut self, slots: u32, offset_bytes: u64, cpus: u32) {
        let base = self.total_slots;
        self.areas.push(SwapArea::new(base, slots, offset_bytes, self.allocator, cpus));
        self.total_slots += slots;
    }

    /// Slots in every area.
    pub fn total_slots(&self) -> u64 {
        u64::from(self.total_slots)
    }

    /// Slots in use (headers excluded).
    pub fn used_slots(&self) -> u64 {
        self.areas.iter().map(|a| u64::from(a.inuse - 1)).sum()
    }

    /// The area holding global slot `slot`.
    #[inline]
    pub fn area_of(&self, slot: u32) -> usize {
        // Few areas: a short linear search.
        self.areas.iter().rposition(|a| a.base <= slot).expect("a slot belongs to an area")
    }

    /// `get_swap_page` for a page reclaimed on `cpu`: the next area in turn with room.
    pub fn alloc(&mut self, cpu: usize) -> Option<Allocated> {
        let n = self.areas.len();
        for k in 0..n {
            let area = (self.next_area + k) % n;
            let a = &mut self.areas[area];
            let got = match self.allocator {
                SwapAllocator::Scan => a.scan(),
                SwapAllocator::Clusters => a.clustered(0),
                SwapAllocator::PerCpuClusters => a.clustered(cpu),
            };
            if let Some((offset, scanned)) = got {
                self.next_area = (area + 1) % n;
                return Some(Allocated { slot: a.base + offset, area, scanned });
            }
        }
        None
    }

    /// The slot is no longer referred to.
    #[inline]
    pub fn free(&mut self, slot: u32) {
        let area = self.area_of(slot);
        let a = &mut self.areas[area];
        a.release(slot - a.base);
    }

    /// Whether global slot `slot` is in use.
    #[inline]
    pub fn in_use(&self, slot: u32) -> bool {
        let a = &self.areas[self.area_of(slot)];
        a.map[(slot - a.base) as usize] != 0
    }

    /// The swap-cache frame of `slot`, if its data is in memory.
    #[inline]
    pub fn cached(&self, slot: u32) -> Option<u32> {
        let a = &self.areas[self.area_of(slot)];
        a.cache[(slot - a.base) as usize].checked_sub(1)
    }

    /// Records (or with `None`, removes) `slot`'s swap-cache frame.
    #[inline]
    pub fn set_cached(&mut self, slot: u32, frame: Option<u32>) {
        let area = self.area_of(slot);
        let a = &mut self.areas[area];
        a.cache[(slot - a.base) as usize] = frame.map_or(0, |f| f + 1);
    }

    /// Where `slot` is on the target, bytes, for pages of `page_bytes`.
    #[inline]
    pub fn offset_bytes(&self, slot: u32, page_bytes: u64) -> u64 {
        let a = &self.areas[self.area_of(slot)];
        a.offset_bytes + u64::from(slot - a.base) * page_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(swap: &mut Swap, cpu: usize, n: usize) -> Vec<u32> {
        (0..n).map(|_| swap.alloc(cpu).unwrap().slot).collect()
    }

    // ---- the 3.6 scan ----

    #[test]
    fn a_fresh_area_hands_out_slots_in_order_after_the_header() {
        let mut s = Swap::new(SwapAllocator::Scan);
        s.add_area(1024, 0, 8);
        assert_eq!(slots(&mut s, 0, 4), [1, 2, 3, 4]);
        // Finding the first run of 256 free slots examined exactly 256 bytes.
        let mut fresh = Swap::new(SwapAllocator::Scan);
        fresh.add_area(1024, 0, 8);
        assert_eq!(fresh.alloc(0).unwrap().scanned, u64::from(SWAPFILE_CLUSTER));
        assert_eq!(fresh.alloc(0).unwrap().scanned, 0, "within a run nothing is scanned");
    }

    #[test]
    fn the_scan_grows_with_fragmentation() {
        let mut s = Swap::new(SwapAllocator::Scan);
        s.add_area(4096, 0, 1);
        let all = slots(&mut s, 0, 4095);
        assert_eq!(s.alloc(0), None, "full");
        // Free every other slot: no run of 256 is free, so each new run falls back to the
        // first-free search.
        for &slot in all.iter().step_by(2) {
            s.free(slot);
        }
        let mut scanned = 0;
        for _ in 0..300 {
            scanned += s.alloc(0).unwrap().scanned;
        }
        // Every run of 256 allocations starts with a fruitless search for a free cluster
        // over the whole map (~4094 bytes), where a fresh area examines 256.
        assert!((4000..=3 * 4096).contains(&scanned), "{scanned} bytes");
    }

    #[test]
    fn equal_priority_areas_are_used_in_turn() {
        let mut s = Swap::new(SwapAllocator::Scan);
        s.add_area(1000, 0, 1);
        s.add_area(1000, 1 << 30, 1);
        let got: Vec<(usize, u32)> = (0..4)
            .map(|_| {
                let a = s.alloc(0).unwrap();
                (a.area, a.slot)
            })
            .collect();
        assert_eq!(got, [(0, 1), (1, 1001), (0, 2), (1, 1002)]);
        assert_eq!(s.offset_bytes(1001, 4096), (1 << 30) + 4096);
    }

    // ---- clusters ----

    #[test]
    fn per_cpu_clusters_give_each_cpu_its_own_run() {
        let mut s = Swap::new(SwapAllocator::PerCpuClusters);
        s.add_area(4096, 0, 2);
        let a = slots(&mut s, 0, 3);
        let b = slots(&mut s, 1, 3);
        assert_eq!(a, [256, 257, 258], "cluster 0 holds the header: the first free cluster is 1");
        assert_eq!(b, [512, 513, 514]);
        assert_eq!(s.alloc(0).unwrap().scanned, 0, "no map scan");
    }

    #[test]
    fn an_emptied_cluster_goes_to_the_back_of_the_free_list() {
        let mut s = Swap::new(SwapAllocator::Clusters);
        s.add_area(3 * 256, 0, 1);
        let first = slots(&mut s, 0, 256);
        assert_eq!((first[0], first[255]), (256, 511));
        for slot in first {
            s.free(slot);
        }
        // Cluster 2 was already on the list; cluster 1 comes after it.
        assert_eq!(slots(&mut s, 0, 1), [512]);
        assert!(s.cached(512).is_none());
        s.set_cached(512, Some(7));
        assert_eq!(s.cached(512), Some(7));
        assert_eq!(s.used_slots(), 1);
    }
}
