//! Any text as a profile file: a device configuration, or a profile error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_core::config::{build, load_profile};

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("ssdtwin-fuzz-profile-{}.toml", std::process::id()));
    if std::fs::write(&path, data).is_ok()
        && let Ok(loaded) = load_profile(path.to_str().expect("a UTF-8 temp path"))
    {
        let _ = build(&loaded);
    }
});
