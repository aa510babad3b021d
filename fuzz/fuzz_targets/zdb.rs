//! Any text as zdb output for the special-vdev planner: a plan, or an error naming the line;
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdtwin_core::zfs::plan::Plan;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(plan) = Plan::from_zdb(text, "zdb.txt", 12)
    {
        let _ = plan.rows(&[0, 4096, 131_072], Some(1 << 30), 25);
    }
});
