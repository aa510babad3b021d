//! Composition: which host runs over which block target over which drives, built in one
//! place so that no layer builds the layers under it.
//!
//! The layers below know only what they are given: a [`Pool`] takes a [`Machine`] (RAM
//! and core speed), not a host profile; the fio runner takes a ready host. This module
//! reads the profiles' answers into those shapes: a pool on a host ([`pool_on_host`]), and
//! fio on a pool ([`aim_fio_at_pool`], then [`fio_on_pool`]: the jobs, run options and host
//! as they run there).
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

use crate::os::{FsCosts, HostConfig};
use crate::workload::{JobSet, RunOptions};
use crate::zfs::{Machine, OpError, Pool, PoolConfig};

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
    Pool::new(config, Machine { ram_bytes: host.dram_bytes, speed_factor: host.speed_factor })
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
