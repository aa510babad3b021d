//! Any text as a pool file: a pool (built on a host, its first txg synced, its zpool and zdb
//! views taken), or a pool error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_core::os::load_host;
use ssdtwin_core::setup::pool_on_host;
use ssdtwin_core::zfs::{LoadedPool, build_pool};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(loaded) = LoadedPool::from_str(text, "fuzz.toml") else { return };
    let Ok(config) = build_pool(&loaded) else { return };
    let host = load_host("linux-6.1", &[]).expect("the shipped host builds");
    if let Ok(pool) = pool_on_host(config, &host) {
        let _ = pool.list_rows();
        let _ = pool.block_stats();
    }
});
