//! Reading the text files users name (job files, profiles), refusing what would hang or
//! exhaust memory: a FIFO, a device or a directory is not read at all, and a file is read
//! only up to a limit sane for its kind (`ssdtwin fio /dev/zero` would otherwise read for
//! ever).

use std::io::{Error, ErrorKind, Read};
use std::path::Path;

/// The largest job file (or included file) read: real ones are a few KiB.
pub const JOB_FILE_LIMIT_BYTES: u64 = 16 << 20;
/// The largest profile read: the shipped ones are under 10 KiB.
pub const PROFILE_LIMIT_BYTES: u64 = 1 << 20;

/// The text of the regular file `path`, if it holds at most `limit` bytes of UTF-8.
pub fn read_text(path: &Path, limit: u64) -> std::io::Result<String> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a directory" } else { "not a regular file (a FIFO, socket or device)" };
        return Err(Error::new(ErrorKind::InvalidInput, what));
    }
    let too_large =
        |n: u64| Error::new(ErrorKind::InvalidData, format!("{n} bytes or more, beyond the {limit}-byte limit"));
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    // The file may grow between the check and the read: read one byte past the limit at most.
    std::fs::File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit + 1));
    }
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_small_regular_text_file() {
        let dir = std::env::temp_dir().join(format!("ssdtwin-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("job.fio");
        std::fs::write(&file, "[j]\nrw=read\n").unwrap();
        assert_eq!(read_text(&file, 100).unwrap(), "[j]\nrw=read\n");
        assert!(read_text(&file, 4).unwrap_err().to_string().contains("beyond the 4-byte limit"));
        assert_eq!(read_text(&dir, 100).unwrap_err().to_string(), "a directory");
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert_eq!(read_text(&file, 100).unwrap_err().to_string(), "not UTF-8 text");
        if Path::new("/dev/zero").exists() {
            assert!(read_text(Path::new("/dev/zero"), 100).unwrap_err().to_string().starts_with("not a regular file"));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
