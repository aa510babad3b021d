//! `--record`: every request as a line of a fio iolog version 3 (`fio version 3 iolog`,
//! then `TIMESTAMP FILE ACTION [OFFSET LENGTH]`, timestamps in µs from the start), the
//! format `read_iolog=` replays. The file is `/dev/nvme0n1`, so a replay in `ssdtwin fio`
//! addresses the namespace; WRITE_ZEROES and TRIM are recorded as `trim`, FLUSH as `sync`.

use ssdtwin_core::block::Opcode;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

const FILE: &str = "/dev/nvme0n1";

/// An iolog being written.
pub struct IologWriter {
    out: BufWriter<File>,
    last_us: u64,
    /// The first write error, reported when the log is finished.
    error: Option<io::Error>,
}

impl IologWriter {
    /// Creates `path` (refusing to replace a file) with the header lines.
    pub fn create(path: &Path) -> io::Result<Self> {
        let file = File::options().write(true).create_new(true).open(path)?;
        let mut out = BufWriter::new(file);
        writeln!(out, "fio version 3 iolog")?;
        writeln!(out, "0 {FILE} add")?;
        writeln!(out, "0 {FILE} open")?;
        Ok(IologWriter { out, last_us: 0, error: None })
    }

    /// One request at `us` µs from the start.
    pub fn record(&mut self, us: u64, opcode: Opcode, offset: u64, bytes: u64) {
        let action = match opcode {
            Opcode::Read => "read",
            Opcode::Write => "write",
            Opcode::Trim => "trim",
            Opcode::Flush => "sync",
        };
        self.last_us = self.last_us.max(us);
        let line = if opcode == Opcode::Flush {
            writeln!(self.out, "{us} {FILE} {action} 0 0")
        } else {
            writeln!(self.out, "{us} {FILE} {action} {offset} {bytes}")
        };
        if let Err(e) = line {
            self.error.get_or_insert(e);
        }
    }

    /// Closes the log: the `close` line, then the data is flushed and synced.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        writeln!(self.out, "{} {FILE} close", self.last_us)?;
        let file = self.out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()
    }
}
