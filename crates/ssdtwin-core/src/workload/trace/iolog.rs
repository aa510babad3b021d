//! fio's text iologs (`iolog.c` `read_iolog`): a first line `fio version 2 iolog` or `fio
//! version 3 iolog`; then per line `[TIMESTAMP] FILE ACTION [OFFSET LENGTH]`, the timestamp
//! (v3 only) in µs from the start. File actions (`add`, `open`, `close`) carry no I/O; I/O
//! actions are `read`, `write`, `trim`, `sync`, `datasync`, and in v2 `wait`.

use super::{ReplayOptions, TraceEntry, TraceOp};
use std::fs::File;
use std::io::{BufRead, BufReader};

/// Longest line read (fio reads 4 KiB at a time).
const MAX_LINE_BYTES: u64 = 4096;

pub struct IologReader {
    path: String,
    lines: BufReader<File>,
    version: u32,
    line: u64,
    last_time: u64,
    options: ReplayOptions,
}

impl IologReader {
    /// Reads the version line of `file` (`path` names it in messages).
    pub fn new(path: &str, file: File, options: ReplayOptions) -> Result<Self, String> {
        let mut r = IologReader {
            path: path.to_string(),
            lines: BufReader::new(file),
            version: 0,
            line: 0,
            last_time: 0,
            options,
        };
        let first = r.read_line()?.unwrap_or_default();
        r.version = match first.trim_end() {
            "fio version 2 iolog" => 2,
            "fio version 3 iolog" => 3,
            _ => {
                return Err(format!(
                    "{path}:1: not a trace fio replays: allowed an iolog ('fio version 2 iolog' or 'fio version 3 iolog' \
                     first) or a blktrace binary file"
                ));
            }
        };
        Ok(r)
    }

    fn read_line(&mut self) -> Result<Option<String>, String> {
        let mut buf = Vec::new();
        let n = std::io::Read::take(&mut self.lines, MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| format!("{}: {e}", self.path))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        if n as u64 > MAX_LINE_BYTES {
            return Err(format!("{}:{}: line longer than {MAX_LINE_BYTES} bytes", self.path, self.line));
        }
        String::from_utf8(buf).map(Some).map_err(|_| format!("{}:{}: not UTF-8 text", self.path, self.line))
    }

    fn bad(&self, what: &str) -> String {
        format!("{}:{}: {what}", self.path, self.line)
    }

    pub fn next_entry(&mut self) -> Option<Result<TraceEntry, String>> {
        loop {
            let text = match self.read_line() {
                Ok(Some(t)) => t,
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            };
            let fields: Vec<&str> = text.split_whitespace().collect();
            if fields.is_empty() {
                continue;
            }
            match self.entry(&fields) {
                Ok(Some(e)) => return Some(Ok(e)),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// One line's entry (`None` for a file action).
    fn entry(&mut self, fields: &[&str]) -> Result<Option<TraceEntry>, String> {
        let (path, line) = (self.path.clone(), self.line);
        let number =
            |s: &str, what: &str| s.parse::<u64>().map_err(|_| format!("{path}:{line}: {what} '{s}' is not a number"));
        let (rest, delay) = if self.version == 3 {
            let time = number(fields[0], "timestamp")?;
            let delay = self.options.delay(self.last_time, time);
            self.last_time = time;
            (&fields[1..], delay)
        } else {
            (fields, 0)
        };
        let (action, range) = match rest {
            [_file, action] => (*action, None),
            [_file, action, offset, length] => (*action, Some((number(offset, "offset")?, number(length, "length")?))),
            _ => {
                let shape = if self.version == 3 {
                    "TIMESTAMP FILE ACTION [OFFSET LENGTH]"
                } else {
                    "FILE ACTION [OFFSET LENGTH]"
                };
                return Err(self.bad(&format!("expected {shape}")));
            }
        };
        let op = match (action, range) {
            ("add" | "open" | "close", None) => return Ok(None),
            ("read", Some(_)) => TraceOp::Read,
            ("write", Some(_)) => TraceOp::Write,
            ("trim", Some(_)) => TraceOp::Trim,
            ("sync" | "datasync", Some(_)) => TraceOp::Sync,
            ("wait", Some(_)) if self.version == 2 => TraceOp::Wait,
            ("wait", _) => return Err(self.bad("'wait' is not allowed in a version 3 iolog (timestamps pace it)")),
            (a, None) if ["read", "write", "trim", "sync", "datasync"].contains(&a) => {
                return Err(self.bad(&format!("'{a}' needs an offset and a length")));
            }
            (a, _) => {
                return Err(self.bad(&format!(
                    "unknown action '{a}'; allowed add, open, close, read, write, trim, sync, datasync{}",
                    if self.version == 2 { ", wait" } else { "" }
                )));
            }
        };
        let (offset, bytes) = range.unwrap_or((0, 0));
        if op == TraceOp::Wait {
            return Ok((!self.options.no_stall).then_some(TraceEntry {
                op,
                offset: 0,
                bytes: 0,
                delay_us: offset,
                at: self.line,
            }));
        }
        let offset = if op == TraceOp::Sync { 0 } else { self.options.place(offset) };
        let bytes = if op == TraceOp::Sync { 0 } else { bytes };
        Ok(Some(TraceEntry { op, offset, bytes, delay_us: delay, at: self.line }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::TraceReader;
    use super::*;

    fn read(text: &str, options: ReplayOptions) -> Result<Vec<TraceEntry>, String> {
        let path = std::env::temp_dir().join(format!("ssdtwin-iolog-{}-{}", std::process::id(), text.len()));
        std::fs::write(&path, text).unwrap();
        let shown = |e: String| e.replace(path.to_str().unwrap(), "t.log");
        let mut r = match TraceReader::open(path.to_str().unwrap(), options) {
            Ok(r) => r,
            Err(e) => {
                std::fs::remove_file(&path).unwrap();
                return Err(shown(e));
            }
        };
        let mut out = Vec::new();
        while let Some(e) = r.next_entry() {
            match e {
                Ok(e) => out.push(e),
                Err(e) => {
                    std::fs::remove_file(&path).unwrap();
                    return Err(shown(e));
                }
            }
        }
        std::fs::remove_file(&path).unwrap();
        Ok(out)
    }

    #[test]
    fn version_3_entries_carry_their_delays() {
        let text = "fio version 3 iolog\n0 /dev/sda add\n0 /dev/sda open\n125 /dev/sda read 4096 4096\n10115 /dev/sda write 0 8192\n10200 /dev/sda sync 0 0\n10300 /dev/sda close\n";
        let e = read(text, ReplayOptions::default()).unwrap();
        let shape: Vec<(TraceOp, u64, u64, u64)> = e.iter().map(|e| (e.op, e.offset, e.bytes, e.delay_us)).collect();
        // The first I/O follows a stamp of 0: no delay, as fio's delay_since_ttime.
        assert_eq!(
            shape,
            vec![(TraceOp::Read, 4096, 4096, 0), (TraceOp::Write, 0, 8192, 9990), (TraceOp::Sync, 0, 0, 85)]
        );
        assert_eq!(e[1].at, 5);
    }

    #[test]
    fn version_2_has_waits_and_no_timestamps() {
        let e = read("fio version 2 iolog\nf add\nf wait 500 0\nf trim 512 512\n", ReplayOptions::default()).unwrap();
        assert_eq!((e[0].op, e[0].delay_us), (TraceOp::Wait, 500));
        assert_eq!((e[1].op, e[1].offset, e[1].bytes), (TraceOp::Trim, 512, 512));
    }

    #[test]
    fn malformed_lines_are_named() {
        let o = ReplayOptions::default();
        assert_eq!(read("hello\n", o).unwrap_err().split(": not a trace").next().unwrap(), "t.log:1");
        assert_eq!(
            read("fio version 3 iolog\n5 f fly 0 1\n", o).unwrap_err(),
            "t.log:2: unknown action 'fly'; allowed add, open, close, read, write, trim, sync, datasync"
        );
        assert_eq!(
            read("fio version 3 iolog\nx f read 0 1\n", o).unwrap_err(),
            "t.log:2: timestamp 'x' is not a number"
        );
        assert_eq!(
            read("fio version 3 iolog\n1 f wait 5 0\n", o).unwrap_err(),
            "t.log:2: 'wait' is not allowed in a version 3 iolog (timestamps pace it)"
        );
        assert_eq!(
            read("fio version 2 iolog\nf read 0\n", o).unwrap_err(),
            "t.log:2: expected FILE ACTION [OFFSET LENGTH]"
        );
    }
}
