//! ssdtwin-core: a fast, deterministic discrete-event model of flash SSDs and the storage
//! stack above them.
//!
//! The crate is a building of floors, top to bottom; calls only go down, and each floor
//! talks to the one below through a type it is handed, never one it builds:
//!
//! ```text
//!  setup        composition: which host over which target over which drives
//!  workload     fio jobs (parsed, run, reported), traces, memory workloads
//!  os           the host: CPU cores, block layer, page cache, VM, file systems, md
//!  block        the seam: the BlockDevice trait, commands, completions, counters
//!  zfs │ hdd │ ssd     block targets (a pool is one made of the others)
//!  nvme → controller → ftl → nand     inside the SSD twin
//!  engine, stats       underneath all of them
//! ```
//!
//! * [`setup`] puts the layers together for the bindings, the examples and the tests: a
//!   pool on a host, fio on a pool, a drive or multi-LUN card behind a host;
//! * [`workload`] turns fio-style jobs into commands and collects fio-style statistics, and
//!   runs memory workloads (STREAM, Himeno, a memcpy sweep) over the host's VM;
//! * [`os`] is the machine and kernel between a workload and a block target;
//! * [`block`] is the seam below it: the [`block::BlockDevice`] trait every block target
//!   implements, with its commands, completions and counters, and [`block::AnyDevice`],
//!   the one enum over the concrete targets;
//! * [`zfs`] is a block target made of block targets: a ZFS pool of vdevs over disks and
//!   SSD twins, with allocation classes, transaction groups and the ARC;
//! * [`hdd`] is a hard disk (seek curve, rotation, zones, NCQ, caches);
//! * [`ssd`] composes the drive: [`nvme`] (PCIe link, namespace, HMB request),
//!   [`controller`] (firmware cores, write buffer), [`ftl`] (page map, superblocks, GC,
//!   TRIM) and [`nand`] (dies, channels, cell-mode timings);
//! * [`engine`] (time, event queue, resources, random streams) and [`stats`] (histograms,
//!   fio output) sit underneath all of them;
//! * beside the floors, [`config`] turns a drive profile (TOML) into a validated
//!   [`config::DeviceConfig`], and [`input`] reads the files users name within sane limits;
//! * [`profile_file`] reads the TOML every kind of profile is written in (shipped tables,
//!   `--set` overrides, the field checker, the shared errors), under all of them;
//! * [`defaults`] holds every default a user meets without naming a value.
//!
//! Contract: once a profile has been built and a job validated, a run cannot fail on input;
//! simulated time is integer nanoseconds and never read from a clock; the same profile, job
//! and seed give bit-identical results. Nothing here prints. `docs/model.md` describes each
//! mechanism and its parameters.
//!
//! ```
//! use ssdtwin_core::block::{BlockDevice, Command, Opcode};
//! use ssdtwin_core::config::{build, load_profile};
//! use ssdtwin_core::engine::SimTime;
//! use ssdtwin_core::ssd::Ssd;
//!
//! let mut dev = Ssd::new(build(&load_profile("generic-tlc-1tb").unwrap()).unwrap());
//! dev.submit(SimTime::ZERO, Command::new(Opcode::Write, 0, 8), 1).unwrap();
//! let done = loop {
//!     if let Some(c) = dev.poll() { break c; }
//! };
//! assert_eq!(done.user, 1);
//! assert!(done.completed > done.submitted);
//! ```

#![deny(missing_docs)]

pub mod block;
pub mod config;
pub mod controller;
pub mod defaults;
pub mod engine;
pub mod ftl;
pub mod hdd;
pub mod input;
pub mod nand;
pub mod nvme;
pub mod os;
pub mod profile_file;
pub mod setup;
pub mod ssd;
pub mod stats;
pub mod workload;
pub mod zfs;
