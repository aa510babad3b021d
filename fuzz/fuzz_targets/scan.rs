//! Any text as a directory scan: a file tree, or an error naming the line; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_core::zfs::{FileClass, Tree};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = Tree::from_scan(text, "scan.txt", FileClass::defaults());
    }
});
