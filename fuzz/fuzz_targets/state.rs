//! Any bytes as a saved state: a drive, or a state error; never a panic, and never more
//! memory than the limit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_core::ssd::Ssd;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("ssdtwin-fuzz-state-{}", std::process::id()));
    if std::fs::write(&path, data).is_ok() {
        let _ = Ssd::load_within(&path, Some(256 << 20));
    }
});
