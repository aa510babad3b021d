//! Any text as a fio job file: parsed, or refused with an error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_core::workload::fio::parse_job_text;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = parse_job_text(text, "fuzz.fio", std::path::Path::new("/nonexistent"));
    }
});
