//! Writing a fio iolog version 3 (`write_iolog=`, `ssdtwin serve --record`): `fio version 3
//! iolog`, the file's `add` and `open`, one `TIMESTAMP FILE ACTION OFFSET LENGTH` line per
//! I/O (timestamps in µs from the start, as fio's `log_io_u` writes them) and `close`.

use super::TraceOp;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// An iolog being written.
pub struct IologWriter {
    out: BufWriter<File>,
    path: std::path::PathBuf,
    file: String,
    last_us: u64,
    /// The first write error, reported when the log is finished.
    error: Option<io::Error>,
}

impl IologWriter {
    /// Creates `path` (`replace`: even if it exists) for I/O on `file`.
    pub fn create(path: &Path, file: &str, replace: bool) -> io::Result<Self> {
        let handle =
            if replace { File::create(path)? } else { File::options().write(true).create_new(true).open(path)? };
        let mut out = BufWriter::new(handle);
        writeln!(out, "fio version 3 iolog")?;
        writeln!(out, "0 {file} add")?;
        writeln!(out, "0 {file} open")?;
        Ok(IologWriter { out, path: path.to_path_buf(), file: file.to_string(), last_us: 0, error: None })
    }

    /// Where it is written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One I/O at `us` µs from the start (a sync with offset and length 0).
    pub fn record(&mut self, us: u64, op: TraceOp, offset: u64, bytes: u64) {
        let action = match op {
            TraceOp::Read => "read",
            TraceOp::Write => "write",
            TraceOp::Trim => "trim",
            TraceOp::Sync | TraceOp::Wait => "sync",
        };
        self.last_us = self.last_us.max(us);
        if let Err(e) = writeln!(self.out, "{us} {} {action} {offset} {bytes}", self.file) {
            self.error.get_or_insert(e);
        }
    }

    /// The `close` line; the data flushed and synced.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        writeln!(self.out, "{} {} close", self.last_us, self.file)?;
        let file = self.out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ReplayOptions, TraceReader};
    use super::*;

    #[test]
    fn what_is_written_reads_back_as_the_same_entries() {
        let path = std::env::temp_dir().join(format!("ssdtwin-iolog-w-{}", std::process::id()));
        let mut w = IologWriter::create(&path, "/dev/nvme0n1", true).unwrap();
        w.record(0, TraceOp::Write, 4096, 4096);
        w.record(250, TraceOp::Read, 0, 8192);
        w.record(300, TraceOp::Sync, 0, 0);
        w.finish().unwrap();
        assert!(IologWriter::create(&path, "f", false).is_err(), "an existing log is not replaced");
        let mut r = TraceReader::open(path.to_str().unwrap(), ReplayOptions::default()).unwrap();
        let mut ops = Vec::new();
        while let Some(e) = r.next_entry() {
            let e = e.unwrap();
            ops.push((e.op, e.offset, e.bytes, e.delay_us));
        }
        // The first I/O at time 0 gives the next no delay, as fio's delay_since_ttime.
        assert_eq!(ops, vec![(TraceOp::Write, 4096, 4096, 0), (TraceOp::Read, 0, 8192, 0), (TraceOp::Sync, 0, 0, 50)]);
        std::fs::remove_file(path).unwrap();
    }
}
