//! fio's files on the host's file system: which files a clone opens, how big each is, where
//! each lies on the namespace, and which must be laid out (written) before the job starts.
//!
//! A job addresses the namespace itself when it names a device (`filename=/dev/…`) or no
//! file at all (ssdtwin's convention: fio would make `jobname.0.0` in the working
//! directory); any other `filename`, or `directory`, `nrfiles`, `filesize` or
//! `filename_format`, makes it a job on files. Sizes and layout follow fio 3.33's
//! `setup_files` and `extend_file` (`filesetup.c`):
//!
//! - without `filesize`, each of `nrfiles` files gets `size / nrfiles` bytes of I/O; with
//!   it, each file is that size (a random size in a range) and its I/O region runs from `offset` to its end;
//! - a file that does not exist yet, or is shorter than the job's region, is *laid out*: for
//!   a job that reads, or writes with `overwrite=1`, fio writes all of it before the job
//!   starts; for a job that only writes it is allocated and left unwritten;
//! - files are shared by path between jobs and clones (`filename=` with `numjobs` > 1 gives
//!   every clone the same file); without `filename` each clone has its own
//!   (`$jobname.$jobnum.$filenum`).
//!
//! The file system is a simple one: each file is one extent, allocated in order on 1 MiB
//! boundaries from the start of the namespace, as ext4 and XFS allocate a file written in
//! one go; a file re-created larger gets a new extent. Its cost per I/O is the host
//! profile's `[fs]` entry.

use super::{Direction, JobSpec, SizeSpec};
use crate::engine::SimRng;
use std::collections::HashMap;

/// Files start on this boundary on the namespace.
const EXTENT_ALIGN_BYTES: u64 = 1 << 20;

/// Whether `spec` does its I/O on files of the host's file system rather than on the block
/// device itself.
pub(crate) fn on_files(spec: &JobSpec) -> bool {
    if let Some(names) = spec.filename.as_deref() {
        return !is_device_path(names.split(':').next().unwrap_or(names));
    }
    let f = &spec.files;
    f.directory.is_some() || f.nrfiles > 1 || f.filesize.is_some() || f.filename_format.is_some()
}

/// A device node rather than a file: `/dev/…` or Windows' `\\.\…`.
fn is_device_path(name: &str) -> bool {
    name.starts_with("/dev/") || name.starts_with(r"\\.\")
}

/// One file of a clone, placed on the namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlacedFile {
    /// Where the file lies on the namespace, bytes `(start, end)`.
    pub extent: (u64, u64),
    /// The clone's I/O region in it, namespace bytes `(start, end)`.
    pub region: (u64, u64),
}

/// A byte range to write before the job starts.
pub(crate) type Layout = (u64, u64);

/// The files made so far in one run, by path.
#[derive(Debug)]
pub(crate) struct FileTable {
    extents: HashMap<String, (u64, u64)>,
    next_free: u64,
    capacity: u64,
}

impl FileTable {
    /// An empty file system on a namespace of `capacity` bytes.
    pub(crate) fn new(capacity: u64) -> Self {
        FileTable { extents: HashMap::new(), next_free: 0, capacity }
    }

    /// Opens the files clone `clone` of `spec` works on, making or growing them as fio
    /// would; returns them with the ranges to lay out first. `Err` is a one-line reason.
    pub(crate) fn open(&mut self, spec: &JobSpec, clone: u32) -> Result<(Vec<PlacedFile>, Vec<Layout>), String> {
        let names = file_names(spec, clone);
        let sizes = self.file_sizes(spec, clone, &names)?;
        let lays_out = lays_out(spec);
        let mut files = Vec::with_capacity(names.len());
        let mut layout = Vec::new();
        for (name, (offset, io_bytes)) in names.iter().zip(sizes) {
            let needed = offset + io_bytes;
            let extent = match self.extents.get(name) {
                Some(&(start, end)) if end - start >= needed => (start, end),
                _ => {
                    let extent = self.allocate(name, needed)?;
                    if lays_out {
                        layout.push(extent);
                    }
                    extent
                }
            };
            files.push(PlacedFile { extent, region: (extent.0 + offset, extent.0 + offset + io_bytes) });
        }
        Ok((files, layout))
    }

    /// Removes the files of clone `clone` of `spec` (`unlink=1`); their blocks are freed
    /// without a trim, as ext4 and XFS do unless mounted with `discard`.
    pub(crate) fn unlink(&mut self, spec: &JobSpec, clone: u32) {
        for name in file_names(spec, clone) {
            self.extents.remove(&name);
        }
    }

    /// `(file offset, I/O bytes)` of each file, as fio's `setup_files` works them out.
    fn file_sizes(&self, spec: &JobSpec, clone: u32, names: &[String]) -> Result<Vec<(u64, u64)>, String> {
        let n = names.len() as u64;
        let min_bs = spec.bs.iter().map(super::BlockSize::min).min().unwrap_or(4096).max(1);
        let mut rng = SimRng::stream(spec.randseed.unwrap_or(0x66_69_6c_65), u64::from(clone));
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let existing = self.extents.get(name).map(|&(start, end)| end - start);
            let file_bytes = match spec.files.filesize {
                Some((low, high)) if low == high => Some(low),
                Some((low, high)) => {
                    let bytes = low + rng.below(high - low + 1);
                    Some((bytes - bytes % min_bs).max(low))
                }
                None => None,
            };
            let offset = resolve(spec.offset, file_bytes.or(existing), "offset")?
                + resolve(spec.offset_increment, file_bytes.or(existing), "offset_increment")? * u64::from(clone);
            let io_bytes = match (file_bytes, spec.size) {
                (Some(bytes), size) => {
                    if offset >= bytes {
                        return Err(format!("offset {offset} is at or beyond the end of file {name} ({bytes} bytes)"));
                    }
                    let region = bytes - offset;
                    match size {
                        Some(SizeSpec::Percent(p)) => ((bytes as f64 * p / 100.0) as u64).min(region),
                        _ => region,
                    }
                }
                // Without filesize, fio shares size= out evenly. (It gives the first files one
                // block more for each whole block the division leaves, which needs more files
                // than bytes in a block.)
                (None, Some(SizeSpec::Bytes(total))) => total / n,
                (None, Some(SizeSpec::Zones(n))) => {
                    return Err(format!("size={n}z counts zones of a zoned drive, not of file {name}"));
                }
                (None, Some(SizeSpec::Percent(p))) => match existing {
                    Some(bytes) => (bytes as f64 * p / 100.0) as u64,
                    None => return Err(format!("size={p}% of file {name}, which does not exist: give filesize=")),
                },
                (None, None) => match existing {
                    Some(bytes) if bytes > offset => bytes - offset,
                    // fill_device: a new file grows until the file system is full.
                    None if spec.files.fill_device => {
                        let free = self.capacity.saturating_sub(self.next_free.next_multiple_of(EXTENT_ALIGN_BYTES));
                        let bytes = free.saturating_sub(offset);
                        bytes - bytes % min_bs
                    }
                    _ => return Err(format!("file {name} does not exist: give size= or filesize= (fio needs one)")),
                },
            };
            if io_bytes < min_bs {
                return Err(format!("file {name} has no room for one {min_bs}-byte block; raise size= or filesize="));
            }
            out.push((offset, io_bytes));
        }
        Ok(out)
    }

    /// A new extent for `name` of at least `bytes`, after every extent made so far.
    fn allocate(&mut self, name: &str, bytes: u64) -> Result<(u64, u64), String> {
        let start = self.next_free.next_multiple_of(EXTENT_ALIGN_BYTES);
        let end = start + bytes.next_multiple_of(4096);
        if end > self.capacity {
            return Err(format!(
                "file {name} ({bytes} bytes) does not fit: files need {end} bytes of the namespace's {}",
                self.capacity
            ));
        }
        self.next_free = end;
        self.extents.insert(name.to_string(), (start, end));
        Ok((start, end))
    }
}

/// `size=`/`offset=` in bytes; a percentage is of the file's size, which must be known.
fn resolve(spec: SizeSpec, file_bytes: Option<u64>, option: &str) -> Result<u64, String> {
    match (spec, file_bytes) {
        (SizeSpec::Bytes(b), _) => Ok(b),
        (SizeSpec::Percent(p), Some(bytes)) => Ok((bytes as f64 * p / 100.0) as u64),
        (SizeSpec::Percent(p), None) => Err(format!("{option}={p}% needs the file's size: give filesize=")),
        (SizeSpec::Zones(n), _) => Err(format!("{option}={n}z counts zones of a zoned drive, not of a file")),
    }
}

/// Whether fio writes a new file whole before the job (`extend_file`'s `new_layout`):
/// for jobs that read, or that write with `overwrite=1`.
fn lays_out(spec: &JobSpec) -> bool {
    if spec.files.create_on_open {
        return false;
    }
    let reads = spec.rw.uses(Direction::Read);
    let writes = spec.rw.uses(Direction::Write);
    reads || (writes && spec.files.overwrite) || spec.files.create_only
}

/// The paths clone `clone` of `spec` opens, in fio's order.
pub(crate) fn file_names(spec: &JobSpec, clone: u32) -> Vec<String> {
    let f = &spec.files;
    let dirs: Vec<&str> = f.directory.as_deref().map_or_else(Vec::new, |d| d.split(':').collect());
    let in_dir = |i: usize, name: String| match dirs.as_slice() {
        [] => name,
        _ if name.starts_with('/') => name,
        _ => format!("{}/{name}", dirs[i % dirs.len()].trim_end_matches('/')),
    };
    if let Some(list) = spec.filename.as_deref() {
        return list.split(':').enumerate().map(|(i, name)| in_dir(i, name.to_string())).collect();
    }
    let format = f.filename_format.as_deref().unwrap_or("$jobname.$jobnum.$filenum");
    (0..f.nrfiles.max(1) as usize)
        .map(|i| {
            let name = format
                .replace("$jobname", &spec.name)
                .replace("$jobnum", &clone.to_string())
                .replace("$filenum", &i.to_string())
                .replace("$clientuid", "");
            in_dir(i, name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RwPattern;

    fn job(name: &str) -> JobSpec {
        let mut spec = JobSpec::new(name);
        spec.files.directory = Some("/data".into());
        spec
    }

    #[test]
    fn device_paths_and_unnamed_jobs_address_the_namespace() {
        let mut spec = JobSpec::new("j");
        assert!(!on_files(&spec));
        spec.filename = Some("/dev/nvme0n1".into());
        assert!(!on_files(&spec));
        spec.filename = Some(r"\\.\PhysicalDrive1".into());
        assert!(!on_files(&spec));
        spec.filename = Some("fiotest".into());
        assert!(on_files(&spec));
        assert!(on_files(&job("j")));
    }

    #[test]
    fn names_follow_fios_format_and_spread_over_directories() {
        let mut spec = job("w");
        spec.files.nrfiles = 3;
        spec.files.directory = Some("/a:/b/".into());
        assert_eq!(file_names(&spec, 2), ["/a/w.2.0", "/b/w.2.1", "/a/w.2.2"]);
        spec.filename = Some("x:/abs/y".into());
        assert_eq!(file_names(&spec, 0), ["/a/x", "/abs/y"]);
    }

    #[test]
    fn size_is_shared_by_the_files() {
        let mut spec = job("j");
        spec.files.nrfiles = 3;
        spec.size = Some(SizeSpec::Bytes(3 * 1_048_576 + 2));
        let mut table = FileTable::new(1 << 30);
        let (files, layout) = table.open(&spec, 0).unwrap();
        let bytes: Vec<u64> = files.iter().map(|f| f.region.1 - f.region.0).collect();
        assert_eq!(bytes, [1_048_576; 3]);
        // A read job lays every new file out; each extent starts on a 1 MiB boundary.
        assert_eq!(layout.len(), 3);
        assert!(files.iter().all(|f| f.extent.0 % EXTENT_ALIGN_BYTES == 0));
        assert!(files.windows(2).all(|w| w[0].extent.1 <= w[1].extent.0));
    }

    #[test]
    fn a_shared_file_is_laid_out_once_and_a_write_job_does_not_lay_out() {
        let mut spec = job("j");
        spec.filename = Some("data".into());
        spec.size = Some(SizeSpec::Bytes(8 << 20));
        spec.rw = RwPattern::Write;
        let mut table = FileTable::new(1 << 30);
        let (first, layout) = table.open(&spec, 0).unwrap();
        assert!(layout.is_empty(), "a pure write job allocates, fio writes nothing first");
        spec.rw = RwPattern::RandRead;
        let (second, layout) = table.open(&spec, 1).unwrap();
        assert_eq!(first, second);
        assert!(layout.is_empty(), "the file exists and is large enough");
        spec.size = Some(SizeSpec::Bytes(16 << 20));
        let (grown, layout) = table.open(&spec, 0).unwrap();
        assert_eq!(layout, vec![grown[0].extent]);
        assert!(grown[0].extent.0 >= first[0].extent.1);
    }

    #[test]
    fn filesize_sets_each_file_and_offset_starts_the_region_in_it() {
        let mut spec = job("j");
        spec.files.nrfiles = 2;
        spec.files.filesize = Some((4 << 20, 4 << 20));
        spec.offset = SizeSpec::Percent(50.0);
        let (files, _) = FileTable::new(1 << 30).open(&spec, 0).unwrap();
        assert_eq!(files[1].extent.1 - files[1].extent.0, 4 << 20);
        assert_eq!(files[1].region, (files[1].extent.0 + (2 << 20), files[1].extent.1));
    }

    #[test]
    fn errors_name_the_file_and_what_to_give() {
        let spec = job("j");
        let e = FileTable::new(1 << 30).open(&spec, 0).unwrap_err();
        assert_eq!(e, "file /data/j.0.0 does not exist: give size= or filesize= (fio needs one)");
        let mut big = job("j");
        big.size = Some(SizeSpec::Bytes(2 << 30));
        let e = FileTable::new(1 << 30).open(&big, 0).unwrap_err();
        assert!(e.starts_with("file /data/j.0.0 (2147483648 bytes) does not fit"), "{e}");
    }
}
