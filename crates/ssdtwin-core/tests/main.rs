//! Integration tests of ssdtwin-core. One module per concern:

// The tests compare simulated times and ratios with exactly computed ones on purpose.
#![allow(clippy::float_cmp)]
// The tests name a host h, an engine e, a job j, a result r, as the runner does.
#![allow(clippy::many_single_char_names)]

mod common;

// FTL and device against a reference map under random operations (proptest).
mod ftl_model;
// Fill equivalence, snapshot round trip and determinism: configurations that must agree.
mod agreement;
// GC: steady state under random writes, write amplification against theory, blocking.
mod gc;
// Flexible Data Placement: write amplification by placement, handle types, directives.
mod fdp;
// Zoned namespaces: write pointers, the state machine and limits, finish and reset, appends.
mod zns;
// The map cache on a device: translation-page loads and their NAND traffic.
mod map_cache;
// The SLC cache: cell-mode timing, filling and running out, folding, bulk fills.
mod slc;
// Timing of single commands against figures hand-computed from the profile.
mod timing;
// The host stack: engine costs on CPU cores, fio's engine semantics, polling, callbacks.
mod host;
// Buffered I/O through the page cache: hits, readahead, the dirty throttle, fsync.
mod page_cache;
// Jobs on files: layout before reads, sharing by name, file service types.
mod files;
// fio's steady-state detection: when a job stops.
mod steadystate;
// Job control between jobs: wait_for, exitall and exit_what.
mod job_control;
// Saved states with valid checksums and inconsistent content.
mod crafted_state;
// The hard-disk model against its datasheet figures: seeks, rotation, zones, NCQ, caches.
mod hdd;
// ZFS pools: placement, the special class's reserve and spill, copies, txgs, the intent log.
mod zfs;
// Virtual memory: faults, swap and mmap readahead, madvise, the swap locks.
mod vm;
// Wear: P/E cycles per block against programs and erases, levelling, bad blocks.
mod wear;
// The sampled steady-state fill against timed GC, and the state it leaves.
mod steady;
// Temperature, throttling at the thresholds, APST exit latency after idle.
mod thermal;
// The SMART / Health log against the counters; power cycles from saves, loads, power loss.
mod health;
