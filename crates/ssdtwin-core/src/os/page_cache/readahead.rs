//! Linux's on-demand readahead, per open file (`mm/readahead.c`).
//!
//! Read first: `page_cache_sync_ra`, `page_cache_async_ra`, `get_init_ra_size` and
//! `get_next_ra_size` in `mm/readahead.c` (6.x), summarised in `docs/model.md`
//! § "Page cache". A [`Readahead`] is `struct file_ra_state`: the current window
//! (`start`, `size`, `async_size`) and the previous read position. On a miss the sync path
//! decides a window; on touching the window's marker page (`PG_readahead`) the async path
//! decides the next one, so a sequential reader keeps one window ahead of itself.
//!
//! Simplified: the backwards history scan of a non-sequential miss (`page_cache_prev_miss`)
//! is done by the caller through `cached_before`; folio orders are not modelled (a window
//! is read as runs of missing pages, each split by the block layer).

/// A window of pages to read, and where its marker goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// First page.
    pub start: u64,
    /// Pages.
    pub size: u64,
    /// The page that gets `PG_readahead`, if any (`start + size - async_size`).
    pub marker: Option<u64>,
}

/// `struct file_ra_state`, in pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Readahead {
    start: u64,
    size: u64,
    async_size: u64,
    /// Page after the last one read (`prev_pos` in pages, rounded up).
    prev_end: Option<u64>,
    /// A fresh window no larger than its request is all asynchronous (its marker on its
    /// first page), as before the kernel marked half of it (`ra->size >> 1`).
    whole_async: bool,
}

/// `get_init_ra_size`: the first window for a request of `req` pages.
pub fn init_size(req: u64, max: u64) -> u64 {
    let size = req.max(1).next_power_of_two();
    if size <= max / 32 {
        size * 4
    } else if size <= max / 4 {
        size * 2
    } else {
        max
    }
}

/// `get_next_ra_size`: the window after one of `cur` pages.
pub fn next_size(cur: u64, max: u64) -> u64 {
    if cur < max / 16 {
        4 * cur
    } else if cur <= max / 2 {
        2 * cur
    } else {
        max
    }
}

impl Readahead {
    /// A state for a kernel whose fresh windows no larger than their request are all
    /// asynchronous (`ra->async_size = ra->size`: the marker on the window's first page).
    pub fn whole_async() -> Self {
        Readahead { whole_async: true, ..Readahead::default() }
    }

    /// `page_cache_sync_ra`: a read of `req` pages from `index` missed the cache.
    /// `max` is the window limit (`ra_pages`, raised to the request for large reads up to
    /// `io_pages`); `cached_before` counts the contiguous cached pages just below `index`
    /// (at most `max`). Returns what to read.
    pub fn on_miss(&mut self, index: u64, req: u64, max: u64, cached_before: u64) -> Window {
        let sequential = index == 0 || self.prev_end.is_some_and(|p| index.abs_diff(p) <= 1) || req > max;
        if sequential {
            // A fresh window: from the request, the init size, the part beyond the
            // request read asynchronously.
            self.start = index;
            self.size = init_size(req, max).max(req);
            self.async_size = match (self.size > req, self.whole_async) {
                (true, _) => self.size - req,
                (false, true) => self.size,
                (false, false) => self.size / 2,
            };
            return self.window();
        }
        if cached_before <= req {
            // A standalone small random read: exactly the request, no window kept.
            return Window { start: index, size: req, marker: None };
        }
        // Context readahead: a cached history below the miss looks like an interleaved
        // sequential stream.
        let history = if cached_before >= index { 2 * cached_before } else { cached_before };
        self.start = index;
        self.size = (history + req).min(max).max(req);
        self.async_size = 1;
        self.window()
    }

    /// `page_cache_async_ra`: the reader touched the marker page `index`. Returns the next
    /// window to read (one window ahead).
    pub fn on_marker(&mut self, index: u64, max: u64) -> Window {
        if index == self.start + self.size - self.async_size {
            // The expected marker: ramp up from the current window.
            self.start += self.size;
        } else {
            // A marker from an older window (or another reader's): restart from here.
            self.start = index + 1;
        }
        self.size = next_size(self.size.max(1), max).max(self.size);
        self.async_size = self.size;
        self.window()
    }

    /// mmap read-around (`do_sync_mmap_readahead`): `ra_pages` centred on the faulting
    /// page `index`, the last quarter read asynchronously (its first page the marker).
    pub fn read_around(&mut self, index: u64, ra_pages: u64) -> Window {
        self.start = index.saturating_sub(ra_pages / 2);
        self.size = ra_pages;
        self.async_size = ra_pages / 4;
        self.window()
    }

    /// Remembers where the last read ended (`ra->prev_pos`).
    pub fn read_done(&mut self, end_page: u64) {
        self.prev_end = Some(end_page);
    }

    fn window(&self) -> Window {
        let marker = (self.async_size > 0).then(|| self.start + self.size - self.async_size);
        Window { start: self.start, size: self.size, marker }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: u64 = 32; // read_ahead_kb = 128 with 4 KiB pages

    #[test]
    fn init_and_next_sizes_follow_the_kernel_table() {
        // Rounded up to a power of two: up to max/32 pages ×4, up to max/4 ×2, above: the max.
        assert_eq!([1, 2, 3, 4, 8, 9, 32].map(|r| init_size(r, MAX)), [4, 4, 8, 8, 16, 32, 32]);
        assert_eq!([1, 2, 4, 16, 17, 32].map(|c| next_size(c, MAX)), [4, 4, 8, 32, 32, 32]);
    }

    #[test]
    fn a_sequential_4k_reader_ramps_its_window_from_16k_to_128k() {
        let mut ra = Readahead::default();
        let first = ra.on_miss(0, 1, MAX, 0);
        assert_eq!(first, Window { start: 0, size: 4, marker: Some(1) });
        ra.read_done(1);
        let second = ra.on_marker(1, MAX);
        assert_eq!(second, Window { start: 4, size: 8, marker: Some(4) });
        let third = ra.on_marker(4, MAX);
        assert_eq!(third, Window { start: 12, size: 16, marker: Some(12) });
        let fourth = ra.on_marker(12, MAX);
        assert_eq!(fourth, Window { start: 28, size: 32, marker: Some(28) });
        let fifth = ra.on_marker(28, MAX);
        assert_eq!((fifth.start, fifth.size), (60, 32), "the window stays at read_ahead_kb");
    }

    #[test]
    fn a_random_miss_without_history_reads_exactly_the_request() {
        let mut ra = Readahead::default();
        ra.read_done(100);
        assert_eq!(ra.on_miss(5000, 1, MAX, 0), Window { start: 5000, size: 1, marker: None });
        assert_eq!(ra.on_miss(9000, 2, MAX, 1), Window { start: 9000, size: 2, marker: None });
    }

    #[test]
    fn read_around_centres_the_window_and_its_marker_continues_the_stream() {
        let mut ra = Readahead::default();
        assert_eq!(ra.read_around(100, MAX), Window { start: 84, size: 32, marker: Some(108) });
        // Touching the marker continues where the window ends, a full window at a time.
        assert_eq!(ra.on_marker(108, MAX), Window { start: 116, size: 32, marker: Some(116) });
        assert_eq!(ra.read_around(3, MAX).start, 0, "clipped at the file's start");
    }

    #[test]
    fn a_large_request_is_read_whole_and_not_clipped() {
        let mut ra = Readahead::default();
        ra.read_done(7);
        let w = ra.on_miss(4096, 256, 256, 0);
        assert_eq!((w.start, w.size), (4096, 256));
    }
}
