//! Readahead on page faults: swap-in windows and mmap read-around.
//!
//! Read first: `mm/swap_state.c` (`swapin_readahead`, `swap_cluster_readahead`,
//! `__swapin_nr_pages`, `swap_ra_info`, `swap_vma_readahead`) and `mm/filemap.c`
//! (`do_sync_mmap_readahead`, `do_async_mmap_readahead`, `MMAP_LOTSAMISS`);
//! `docs/model.md` § "Swap-in readahead" and § "File mmap".
//!
//! Swap-in ([`SwapReadahead`]):
//!
//! * `ClusterFixed` (3.6 `swapin_readahead`): every major fault reads the aligned block of
//!   `1 << page_cluster` slots around the faulting one, in slot order.
//! * `ClusterAdaptive` (3.15+ `swap_cluster_readahead`): the block is `swapin_nr_pages`
//!   long — `hits + 2` rounded up to a power of two (at least 4), where `hits` counts faults
//!   that found a readahead page since the last decision; with no hits, 2 if the fault is
//!   next to the previous one, else 1 — capped at `1 << page_cluster` and never below half
//!   the previous window. Random faults therefore converge to single-page reads.
//! * `Vma` (4.14+ `swap_vma_readahead`): the same window, per mapping, over the pages next
//!   to the fault in virtual-address order (forward after a fault one page up, backward
//!   after one a page down, centred otherwise), clipped to the mapping and to its 2 MiB
//!   page-table block.
//!
//! File pages use [`crate::os::page_cache::readahead::Readahead`] (the on-demand state) with
//! the mmap rules: `MADV_RANDOM` reads only the faulting page; `MADV_SEQUENTIAL` starts a
//! synchronous window of `ra_pages` from the fault; otherwise `mmap_miss` counts faults
//! (down by one for each fault that finds its page cached) and above `MMAP_LOTSAMISS` (100)
//! read-around stops; below it a fault reads `ra_pages` centred on itself with the last
//! quarter asynchronous.

/// `MMAP_LOTSAMISS`: above this many net misses a file gets no read-around.
pub const MMAP_LOTSAMISS: u32 = 100;

/// How swap-ins read ahead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwapReadahead {
    /// 3.6: the aligned `1 << page_cluster` block, always.
    ClusterFixed,
    /// 3.15+: the block, sized by readahead hits.
    ClusterAdaptive,
    /// 4.14+: by virtual address, sized by readahead hits per mapping.
    Vma,
}

/// `__swapin_nr_pages`: the window after a fault at `offset` (the previous one at
/// `prev_offset`), with `hits` readahead hits, at most `max` pages, never below half of
/// `prev_win`.
pub fn swapin_nr_pages(prev_offset: u64, offset: u64, hits: u32, max: u32, prev_win: u32) -> u32 {
    let mut pages = hits + 2;
    if pages == 2 {
        // No hits to judge by: an adjacent fault earns a window of two.
        if offset != prev_offset + 1 && offset + 1 != prev_offset {
            pages = 1;
        }
    } else {
        pages = pages.next_power_of_two().max(4);
    }
    pages.min(max).max(prev_win / 2)
}

/// The swap-in readahead state (the global one of cluster readahead, or one mapping's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwapRaState {
    /// Readahead hits since the last window was decided (`swapin_readahead_hits`; the
    /// kernel starts it at 4).
    pub hits: u32,
    /// Where the last fault without hits was (slot, or virtual page for `Vma`).
    pub prev: u64,
    /// The last window, pages.
    pub prev_win: u32,
}

impl Default for SwapRaState {
    fn default() -> Self {
        SwapRaState { hits: 4, prev: 0, prev_win: 0 }
    }
}

impl SwapRaState {
    /// The window for a fault at `offset` (`swapin_nr_pages`, which also moves the state).
    pub fn window(&mut self, offset: u64, max: u32) -> u32 {
        if max <= 1 {
            return 1;
        }
        let hits = std::mem::take(&mut self.hits);
        let pages = swapin_nr_pages(self.prev, offset, hits, max, self.prev_win);
        if hits == 0 {
            self.prev = offset;
        }
        self.prev_win = pages;
        pages
    }

    /// `swap_ra_info`: the window for a fault at virtual page `page` of a mapping, which
    /// always records the fault's place.
    pub fn vma_window(&mut self, page: u64, max: u32) -> u32 {
        if max <= 1 {
            return 1;
        }
        let hits = std::mem::take(&mut self.hits);
        let pages = swapin_nr_pages(self.prev, page, hits, max, self.prev_win);
        self.prev = page;
        self.prev_win = pages;
        pages
    }
}

/// The aligned block of `win` slots holding `offset` (`offset & ~mask ..= offset | mask`).
pub fn cluster_block(offset: u64, win: u32) -> (u64, u64) {
    let mask = u64::from(win.max(1)) - 1;
    (offset & !mask, (offset | mask) + 1)
}

/// `swap_ra_info`'s pages around virtual page `fault`, after the previous fault at `prev`,
/// for a window of `win`, clipped to `lo..hi` (the mapping and its 2 MiB block).
pub fn vma_block(fault: u64, prev: u64, win: u32, lo: u64, hi: u64) -> (u64, u64) {
    let win = u64::from(win);
    let (start, end) = if fault == prev + 1 {
        (fault, fault + win)
    } else if prev == fault + 1 {
        ((fault + 1).saturating_sub(win), fault + 1)
    } else {
        let left = (win - 1) / 2;
        (fault.saturating_sub(left), fault.saturating_sub(left) + win)
    };
    (start.max(lo), end.min(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adaptive_window_follows_the_kernels_table() {
        // No hits: 2 if adjacent, else 1.
        assert_eq!(swapin_nr_pages(10, 11, 0, 8, 0), 2);
        assert_eq!(swapin_nr_pages(10, 50, 0, 8, 0), 1);
        // Hits: hits + 2 rounded up to a power of two, at least 4, at most the max.
        assert_eq!([1, 2, 3, 6, 9].map(|h| swapin_nr_pages(0, 50, h, 8, 0)), [4, 4, 8, 8, 8]);
        // Never below half the previous window.
        assert_eq!(swapin_nr_pages(10, 50, 0, 8, 8), 4);
    }

    #[test]
    fn random_faults_shrink_the_window_to_one_page() {
        let mut ra = SwapRaState::default();
        let wins: Vec<u32> = [1000, 5000, 9000, 13000, 17000, 21000].iter().map(|&o| ra.window(o, 8)).collect();
        assert_eq!(wins, [8, 4, 2, 1, 1, 1], "4 initial hits, then halving down to one page");
    }

    #[test]
    fn blocks_are_aligned_and_vma_windows_follow_the_direction() {
        assert_eq!(cluster_block(13, 8), (8, 16));
        assert_eq!(cluster_block(13, 1), (13, 14));
        assert_eq!(vma_block(100, 99, 8, 0, 1000), (100, 108), "forward");
        assert_eq!(vma_block(100, 101, 8, 0, 1000), (93, 101), "backward");
        assert_eq!(vma_block(100, 500, 8, 0, 1000), (97, 105), "centred");
        assert_eq!(vma_block(100, 99, 8, 0, 104), (100, 104), "clipped");
    }
}
