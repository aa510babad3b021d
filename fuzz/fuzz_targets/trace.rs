//! Any bytes as a trace (an iolog, or blktrace records behind their magic): read entry by
//! entry, or refused naming the line or record; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_core::workload::trace::{ReplayOptions, TraceReader};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("ssdtwin-fuzz-trace-{}", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    let Ok(mut reader) = TraceReader::open(path.to_str().expect("a UTF-8 temp path"), ReplayOptions::default()) else {
        return;
    };
    while let Some(Ok(_)) = reader.next_entry() {}
});
