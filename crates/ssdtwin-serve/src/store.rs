//! What clients wrote, so that they read it back: sparse in memory (4 KiB pages, bounded by
//! a limit) or in a backing file. Bytes never written, trimmed or zeroed read as zeros.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

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

    /// Makes `bytes` from `offset` read as zeros (TRIM, `WRITE_ZEROES`): whole pages are
    /// dropped, partial ones zeroed.
    pub fn zero(&mut self, offset: u64, bytes: u64) -> io::Result<()> {
        match self {
            Store::Memory { pages, .. } => {
                for (at, chunk) in page_chunks(offset, bytes as usize) {
                    if chunk as u64 == PAGE {
                        pages.remove(&(at / PAGE));
                    } else if let Some(page) = pages.get_mut(&(at / PAGE)) {
                        let from = (at % PAGE) as usize;
                        page[from..from + chunk].fill(0);
                    }
                }
            }
            Store::File(f) => {
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
        s.zero(2000, 4096).unwrap();
        let back = s.read(1000, data.len()).unwrap();
        assert_eq!(&back[..1000], &data[..1000]);
        assert_eq!(&back[1000..5096], &[0; 4096][..]);
        assert_eq!(&back[5096..], &data[5096..]);
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
        s.zero(4096, 2).unwrap();
        assert_eq!(s.read(4096, 5).unwrap(), b"\0\0llo");
        std::fs::remove_file(path).unwrap();
    }
}
