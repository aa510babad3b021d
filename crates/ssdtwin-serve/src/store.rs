//! What clients wrote, so that they read it back: sparse in memory (4 KiB pages, bounded by
//! a limit) or in a backing file. Bytes never written, trimmed or zeroed read as zeros.
//!
//! The store is also the source of block status: which ranges hold data and which are holes
//! (never written, or trimmed or zeroed, and so reading as zeros). In memory a hole is a page
//! that is not there; in a file it is the file system's own hole, found with `SEEK_DATA` and
//! `SEEK_HOLE` (TRIM and `WRITE_ZEROES` punch holes), so a file written in an earlier run
//! answers truthfully too.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use rustix::fs::{FallocateFlags, SeekFrom};
use rustix::io::Errno;

const PAGE: u64 = 4096;

/// The data behind the export.
pub enum Store {
    /// Pages written, by page number; at most `limit_pages` of them.
    Memory { pages: HashMap<u64, Box<[u8]>>, limit_pages: u64 },
    /// A file as large as the export (sparse where the file system allows).
    File(File),
}

/// A write did not fit in the memory limit.
#[derive(Debug)]
pub struct Full;

/// A run of bytes that are all data, or all hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub bytes: u64,
    /// Not allocated: reads as zeros (and a write there may find no room).
    pub hole: bool,
}

/// Appends a run to `out`, merged with the last one if that is of the same kind.
fn push(out: &mut Vec<Extent>, bytes: u64, hole: bool) {
    match out.last_mut() {
        Some(last) if last.hole == hole => last.bytes += bytes,
        _ => out.push(Extent { bytes, hole }),
    }
}

impl Store {
    /// An empty in-memory store holding at most `limit_bytes` of written pages.
    pub fn memory(limit_bytes: u64) -> Self {
        Store::Memory { pages: HashMap::new(), limit_pages: limit_bytes / PAGE }
    }

    /// `bytes` read from `offset`.
    pub fn read(&self, offset: u64, bytes: usize) -> io::Result<Vec<u8>> {
        let mut out = vec![0; bytes];
        match self {
            Store::Memory { pages, .. } => {
                for (at, chunk) in page_chunks(offset, bytes) {
                    if let Some(page) = pages.get(&(at / PAGE)) {
                        let from = (at % PAGE) as usize;
                        let into = (at - offset) as usize;
                        out[into..into + chunk].copy_from_slice(&page[from..from + chunk]);
                    }
                }
            }
            Store::File(f) => f.read_exact_at(&mut out, offset)?,
        }
        Ok(out)
    }

    /// Writes `data` at `offset`.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> io::Result<Result<(), Full>> {
        match self {
            Store::Memory { pages, limit_pages } => {
                let new = page_chunks(offset, data.len()).filter(|(at, _)| !pages.contains_key(&(at / PAGE))).count();
                if pages.len() as u64 + new as u64 > *limit_pages {
                    return Ok(Err(Full));
                }
                for (at, chunk) in page_chunks(offset, data.len()) {
                    let page = pages.entry(at / PAGE).or_insert_with(|| vec![0; PAGE as usize].into_boxed_slice());
                    let from = (at % PAGE) as usize;
                    let src = (at - offset) as usize;
                    page[from..from + chunk].copy_from_slice(&data[src..src + chunk]);
                }
            }
            Store::File(f) => f.write_all_at(data, offset)?,
        }
        Ok(Ok(()))
    }

    /// Makes `bytes` from `offset` read as zeros (TRIM, `WRITE_ZEROES`). With `punch`, what
    /// can be deallocated is: whole pages are dropped, a file gets a hole (where its file
    /// system makes them). Without (`WRITE_ZEROES` with `NO_HOLE`), pages and file blocks
    /// are zeroed in place.
    pub fn zero(&mut self, offset: u64, bytes: u64, punch: bool) -> io::Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        match self {
            Store::Memory { pages, .. } => {
                for (at, chunk) in page_chunks(offset, bytes as usize) {
                    if punch && chunk as u64 == PAGE {
                        pages.remove(&(at / PAGE));
                    } else if let Some(page) = pages.get_mut(&(at / PAGE)) {
                        let from = (at % PAGE) as usize;
                        page[from..from + chunk].fill(0);
                    }
                }
            }
            Store::File(f) => {
                if punch {
                    let mode = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
                    match rustix::fs::fallocate(&*f, mode, offset, bytes) {
                        Ok(()) => return Ok(()),
                        // A file system without holes: write the zeros.
                        Err(Errno::OPNOTSUPP | Errno::NOSYS) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                let zeros = vec![0; (64 << 10).min(bytes as usize)];
                let mut at = offset;
                while at < offset + bytes {
                    let n = zeros.len().min((offset + bytes - at) as usize);
                    f.write_all_at(&zeros[..n], at)?;
                    at += n as u64;
                }
            }
        }
        Ok(())
    }

    /// The data and holes of `[offset, offset + bytes)`, in order, at most `max` runs (and at
    /// least one if `bytes > 0`); the last run ends at the range's end, or the runs stop
    /// early at `max`. Memory answers by 4 KiB page; a file by its file system's blocks (one
    /// whose file system cannot tell reports all data, which is always safe).
    pub fn extents(&self, offset: u64, bytes: u64, max: usize) -> Vec<Extent> {
        let end = offset + bytes;
        let mut out = Vec::new();
        if bytes == 0 || max == 0 {
            return out;
        }
        let mut at = offset;
        match self {
            Store::Memory { pages, .. } => {
                let (first, last) = (offset / PAGE, (end - 1) / PAGE);
                // Look the range's pages up, or sort the pages there are: whichever is fewer.
                let present: Vec<u64> = if last - first < pages.len() as u64 {
                    (first..=last).filter(|p| pages.contains_key(p)).collect()
                } else {
                    let mut v: Vec<u64> = pages.keys().copied().filter(|p| (first..=last).contains(p)).collect();
                    v.sort_unstable();
                    v
                };
                for page in present {
                    let (start, stop) = ((page * PAGE).max(offset), ((page + 1) * PAGE).min(end));
                    if start > at {
                        push(&mut out, start - at, true);
                    }
                    push(&mut out, stop - start, false);
                    at = stop;
                    if out.len() > max {
                        break;
                    }
                }
            }
            Store::File(f) => {
                while at < end && out.len() <= max {
                    let data = match rustix::fs::seek(f, SeekFrom::Data(at)) {
                        Ok(data) => data,
                        // No data from `at` to the end of the file.
                        Err(Errno::NXIO) => end,
                        Err(_) => at,
                    };
                    if data > at {
                        let stop = data.min(end);
                        push(&mut out, stop - at, true);
                        at = stop;
                        continue;
                    }
                    // Data at `at`: up to the next hole (the end of the file is one).
                    let hole = rustix::fs::seek(f, SeekFrom::Hole(at)).map_or(end, |h| if h > at { h } else { end });
                    let stop = hole.min(end);
                    push(&mut out, stop - at, false);
                    at = stop;
                }
            }
        }
        if at < end {
            push(&mut out, end - at, true);
        }
        out.truncate(max);
        out
    }

    /// Bytes of written pages held in memory (0 for a file).
    pub fn memory_bytes(&self) -> u64 {
        match self {
            Store::Memory { pages, .. } => pages.len() as u64 * PAGE,
            Store::File(_) => 0,
        }
    }
}

/// `(offset, length)` of the pieces of `[offset, offset + bytes)` within one page each.
fn page_chunks(offset: u64, bytes: usize) -> impl Iterator<Item = (u64, usize)> {
    let end = offset + bytes as u64;
    let mut at = offset;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let chunk = (PAGE - at % PAGE).min(end - at);
        let piece = (at, chunk as usize);
        at += chunk;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_and_the_rest_is_zeros() {
        let mut s = Store::memory(1 << 20);
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        s.write(1000, &data).unwrap().unwrap();
        assert_eq!(s.read(1000, data.len()).unwrap(), data);
        assert_eq!(s.read(0, 1000).unwrap(), vec![0; 1000]);
        assert_eq!(s.memory_bytes(), 3 * 4096);
        s.zero(2000, 4096, true).unwrap();
        let back = s.read(1000, data.len()).unwrap();
        assert_eq!(&back[..1000], &data[..1000]);
        assert_eq!(&back[1000..5096], &[0; 4096][..]);
        assert_eq!(&back[5096..], &data[5096..]);
    }

    fn runs(list: &[(u64, bool)]) -> Vec<Extent> {
        list.iter().map(|&(bytes, hole)| Extent { bytes, hole }).collect()
    }

    #[test]
    fn memory_extents_are_the_pages_present() {
        let mut s = Store::memory(1 << 20);
        assert_eq!(s.extents(0, 1 << 16, 100), runs(&[(1 << 16, true)]));
        s.write(8192, &[1; 8192]).unwrap().unwrap();
        s.write(32768, &[1; 512]).unwrap().unwrap();
        let all = s.extents(0, 1 << 16, 100);
        assert_eq!(all, runs(&[(8192, true), (8192, false), (16384, true), (4096, false), (28672, true)]));
        // From inside a run, cut at the range's end, and at most `max` runs.
        assert_eq!(s.extents(9216, 8192, 100), runs(&[(7168, false), (1024, true)]));
        assert_eq!(s.extents(512, 1 << 16, 1), runs(&[(7680, true)]));
        assert_eq!(s.extents(0, 1 << 16, 2), runs(&[(8192, true), (8192, false)]));
        // Trimming whole pages makes holes; a partial page stays data; NO_HOLE keeps pages.
        s.zero(8192, 4096, true).unwrap();
        s.zero(32768, 512, true).unwrap();
        s.zero(12288, 4096, false).unwrap();
        assert_eq!(s.read(12288, 4096).unwrap(), vec![0; 4096]);
        assert_eq!(
            s.extents(0, 40960, 100),
            runs(&[(12288, true), (4096, false), (16384, true), (4096, false), (4096, true)])
        );
    }

    #[test]
    fn file_extents_follow_the_file_systems_holes_and_zeroing_punches_them() {
        let path = std::env::temp_dir().join(format!("ssdtwin-extents-{}", std::process::id()));
        let f = File::options().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
        f.set_len(4 << 20).unwrap();
        let mut s = Store::File(f);
        assert_eq!(s.extents(0, 4 << 20, 100), runs(&[(4 << 20, true)]));
        s.write(1 << 20, &vec![7; 1 << 16]).unwrap().unwrap();
        let got = s.extents(0, 4 << 20, 100);
        // File systems allocate in blocks of up to 64 KiB: the data run holds the write.
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got[0].hole && !got[1].hole && got[2].hole);
        assert!(got[0].bytes <= 1 << 20 && got[0].bytes + got[1].bytes >= (1 << 20) + (1 << 16), "{got:?}");
        s.zero(1 << 20, 1 << 16, true).unwrap();
        assert_eq!(s.read(1 << 20, 1 << 16).unwrap(), vec![0; 1 << 16]);
        assert_eq!(s.extents(0, 4 << 20, 100), runs(&[(4 << 20, true)]));
        // NO_HOLE: zeros are written, the blocks stay allocated.
        s.write(0, &[7; 4096]).unwrap().unwrap();
        s.zero(0, 4096, false).unwrap();
        assert_eq!(s.read(0, 4096).unwrap(), vec![0; 4096]);
        assert!(!s.extents(0, 4096, 1)[0].hole);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn the_memory_limit_refuses_new_pages_but_not_rewrites() {
        let mut s = Store::memory(8192);
        s.write(0, &[1; 8192]).unwrap().unwrap();
        assert!(s.write(8192, &[1; 1]).unwrap().is_err());
        assert!(s.write(100, &[2; 100]).unwrap().is_ok());
    }

    #[test]
    fn a_file_store_keeps_data_at_its_offsets() {
        let path = std::env::temp_dir().join(format!("ssdtwin-store-{}", std::process::id()));
        let f = File::options().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
        f.set_len(1 << 20).unwrap();
        let mut s = Store::File(f);
        s.write(4096, b"hello").unwrap().unwrap();
        assert_eq!(s.read(4094, 8).unwrap(), b"\0\0hello\0");
        s.zero(4096, 2, true).unwrap();
        assert_eq!(s.read(4096, 5).unwrap(), b"\0\0llo");
        std::fs::remove_file(path).unwrap();
    }
}
