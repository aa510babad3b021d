//! Composition: which host runs over which block target over which drives, built in one
//! place so that no layer builds the layers under it.
//!
//! The layers below know only what they are given: a [`Pool`] takes a [`Machine`] (RAM
//! and core speed), not a host profile, and its drives built ([`pool_drives`]); [`run_memory`] and the fio runner take a ready
//! [`Host`]. This module reads the profiles' answers into those shapes:
//!
//! * a pool over fresh drives on a host ([`pool_on_host`]), and fio on a pool ([`aim_fio_at_pool`], then
//!   [`fio_on_pool`]: the jobs, run options and host as they run there);
//! * a drive or multi-LUN card behind a host, its LUNs joined by md ([`card_host`]), and a
//!   memory workload on it ([`run_memory_on_drive`]).
//!
//! The bindings (and through them the CLI and the studies), the examples and the tests
//! compose through here. Nothing here simulates: each function builds or rewrites and
//! hands over.
//!
//! ```
//! use ssdtwin_core::os::load_host;
//! use ssdtwin_core::setup::pool_on_host;
//! use ssdtwin_core::zfs::{build_pool, load_pool};
//!
//! let config = build_pool(&load_pool("hdd-mirror").unwrap()).unwrap();
//! let pool = pool_on_host(config.clone(), &load_host("linux-6.1", &[]).unwrap()).unwrap();
//! assert!(pool.arc_max() > 0);
//! // The bare twin has no memory for an ARC.
//! assert!(pool_on_host(config, &load_host("none", &[]).unwrap()).is_err());
//! ```

use crate::block::{AnyDevice, BlockDevice};
use crate::config::DeviceConfig;
use crate::hdd::Hdd;
use crate::os::{FsCosts, Host, HostConfig, Md, MdLayout};
use crate::ssd::Ssd;
use crate::workload::memory::{Alloc, MemoryError, MemoryProgress, MemoryResult, MemorySpec, run_memory};
use crate::workload::{JobSet, RunOptions};
use crate::zfs::{DriveConfig, Machine, OpError, Pool, PoolConfig};

/// A new, empty pool from `config` on `host`: its RAM sizes the ARC and the dirty-data
/// limit, its core speed scales the ZPL's costs. A host with less than 1 GiB of DRAM (the
/// bare `none` host has none) is refused.
pub fn pool_on_host(config: PoolConfig, host: &HostConfig) -> Result<Pool, OpError> {
    if host.dram_bytes < 1 << 30 {
        return Err(OpError::Parameter {
            field: "--host".into(),
            value: host.name.clone(),
            allowed: "a host with at least 1 GiB of DRAM: a pool's ARC and dirty-data limit come from it \
                      (the 'none' host has none)"
                .into(),
        });
    }
    let drives = pool_drives(&config);
    Pool::new(config, Machine { ram_bytes: host.dram_bytes, speed_factor: host.speed_factor }, drives)
}

/// Fresh drives for `config`'s leaf vdevs, in the order of its vdevs and their leaves: an
/// SSD twin or a disk, each from its leaf's profile.
pub fn pool_drives(config: &PoolConfig) -> Vec<AnyDevice> {
    config
        .vdevs
        .iter()
        .flat_map(|v| &v.leaves)
        .map(|l| match &l.drive {
            DriveConfig::Ssd(c) => AnyDevice::Ssd(Box::new(Ssd::new((**c).clone()))),
            DriveConfig::Hdd(c) => AnyDevice::Hdd(Box::new(Hdd::new((**c).clone()))),
        })
        .collect()
}

/// Points fio at the dataset whose mount point holds the jobs' files: each job's
/// `directory=`, or the directory of the first of its `filename=` files.
pub fn aim_fio_at_pool(pool: &mut Pool, set: &JobSet) -> Result<(), OpError> {
    let paths: Vec<String> = set
        .jobs
        .iter()
        .filter_map(|j| {
            j.files.directory.clone().or_else(|| {
                j.filename.as_ref().map(|f| {
                    let first = f.split(':').next().unwrap_or(f);
                    std::path::Path::new(first).parent().map_or_else(String::new, |p| p.display().to_string())
                })
            })
        })
        .collect();
    pool.set_fio_dataset_for_paths(&paths)
}

/// fio on `pool`: rewrites the jobs and run options as they run there, and returns `host`
/// as it runs them.
///
/// * `direct=0` and `direct=1` are the same (OpenZFS before 2.3 serves `O_DIRECT` through
///   the ARC too);
/// * a `sync=1` write returns after its intent-log commit (`zfs_write` calls `zil_commit`
///   for `O_SYNC`), which the run makes a flush after each write;
/// * the host has no page cache (the ARC is ZFS's), and its file calls cost the ZPL's
///   (the `zfs` file system, made the default).
pub fn fio_on_pool(pool: &Pool, host: &HostConfig, set: &mut JobSet, opts: &mut RunOptions) -> HostConfig {
    for job in &mut set.jobs {
        job.direct = true;
    }
    opts.fs_syncs = true;
    let mut h = host.clone();
    h.page_cache = None;
    let call = pool.file_call_cost();
    h.file_systems.retain(|f| f.name != "zfs");
    h.file_systems.push(FsCosts { name: "zfs".into(), direct_io: call, buffered_io: call });
    h.default_fs = Some("zfs".into());
    h
}

/// How a file system sits on a card of several LUNs (for `mmap`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FsLayout {
    /// md RAID 0 over every LUN in chunks of `chunk_bytes` (mdadm's default is 512 KiB).
    Raid0 {
        /// Chunk size, bytes.
        chunk_bytes: u64,
    },
    /// On the first LUN alone.
    Single,
}

/// A drive, or a card's LUNs, behind a host.
pub struct Card {
    /// The host over md over the LUNs.
    pub host: Host<Md<Ssd>>,
    /// LUNs the card shows (1 for a plain drive).
    pub luns: usize,
    /// Capacity of each LUN, bytes.
    pub lun_bytes: u64,
}

/// A fresh drive (or card) from `config` behind `host`, its LUNs joined as `layout` says
/// (raid0 over them, or side by side); with the memory the kernel leaves for pages set if
/// given.
pub fn card_host(config: &DeviceConfig, host: HostConfig, layout: FsLayout, memory_bytes: Option<u64>) -> Card {
    let luns = config.host_interface.as_ref().map_or(1, |h| h.luns) as usize;
    let members: Vec<Ssd> = (0..luns).map(|_| Ssd::new(config.clone())).collect();
    let lun_bytes = members[0].geometry().capacity_bytes();
    let md_layout = match layout {
        FsLayout::Raid0 { chunk_bytes } if luns > 1 => MdLayout::Raid0 { chunk_bytes },
        _ => MdLayout::Linear,
    };
    let mut host = Host::new(Md::new(members, md_layout), host);
    if let Some(bytes) = memory_bytes {
        host.set_vm_memory(bytes);
    }
    Card { host, luns, lun_bytes }
}

/// Runs `spec` on a fresh drive built from `config` — or, for a card that shows several
/// LUNs (`[host_interface] luns`), on all of them — behind `host`. With `malloc`, every LUN
/// is a whole swap area of one priority; with `mmap`, the file starts at the beginning of
/// the volume `layout` makes. `memory_bytes`, if given, is the memory the kernel leaves for
/// pages (DRAM less its own reserve), before the drivers take their share.
pub fn run_memory_on_drive(
    config: &DeviceConfig,
    host: HostConfig,
    spec: &MemorySpec,
    layout: FsLayout,
    memory_bytes: Option<u64>,
    observe: &mut dyn FnMut(&MemoryProgress) -> bool,
) -> Result<MemoryResult, MemoryError> {
    let layout = if spec.alloc == Alloc::Mmap { layout } else { FsLayout::Single };
    let mut card = card_host(config, host, layout, memory_bytes);
    let mut spec = spec.clone();
    spec.swap_areas = (0..card.luns as u64).map(|k| (k * card.lun_bytes, card.lun_bytes)).collect();
    spec.file_offset_bytes = 0;
    run_memory(&mut card.host, &spec, observe)
}
