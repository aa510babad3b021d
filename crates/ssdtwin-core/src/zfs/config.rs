//! Pool files: a pool described in TOML (`profiles/pools/NAME.toml` ship with the crate),
//! checked into a [`PoolConfig`].
//!
//! ```toml
//! [pool]
//! name = "tank"
//! ashift = 12
//!
//! [[vdevs]]                 # zpool create tank mirror sda sdb special mirror nvme0n1 nvme1n1
//! class = "normal"          # normal | special | dedup | log
//! layout = "mirror"         # disk | mirror | raidz1 | raidz2 | raidz3
//! drives = ["exos-x18-16tb", "exos-x18-16tb"]
//!
//! [[vdevs]]
//! class = "special"
//! layout = "mirror"
//! drives = ["p32a80", "p32a80"]
//! partition_bytes = "64G"   # use a partition of each drive
//!
//! [[datasets]]
//! name = "data"             # tank/data, mounted at /tank/data
//! recordsize_bytes = "128K"
//! special_small_blocks_bytes = "32K"
//! ```
//!
//! Drives are named by drive (SSD) or disk profile, shipped name or path; a profile with a
//! `[mechanics]` section is a disk. `[tunables]` takes OpenZFS's module parameters by their
//! own names (their units are in `docs/profiles.md`), `[format]` the on-disk sizes and what
//! lz4 makes of metadata, `[zpl]` the CPU cost of file-system calls. Every error names the
//! file and the field (`vdevs[1].drives[0]`), on one line.

// The drive's own configuration, for the SSDs a vdev names; the rest is common to every profile file.
use crate::config::{DeviceConfig, build, load_profile};
use crate::engine::SimDuration;
use crate::hdd::{HddConfig, build_hdd, is_hdd_profile, load_hdd};
use crate::profile_file::{self, FileProblem, LoadedProfile, ProfileError, apply_overrides, parse_error};
use serde::Deserialize;
use thiserror::Error;

/// A pool file could not be turned into a pool. Every variant names the file and the field;
/// nothing is simulated with a bad pool file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PoolError {
    /// The TOML is malformed, has a wrong type, or an unknown field.
    #[error("{file}: {message}")]
    Parse {
        /// File or source label.
        file: String,
        /// The parser's message, on one line.
        message: String,
    },
    /// A value is outside what the model accepts.
    #[error("{file}: {field} = {value}: {allowed}")]
    OutOfRange {
        /// File or source label.
        file: String,
        /// Field, e.g. `vdevs[0].layout` or `datasets.data.recordsize_bytes`.
        field: String,
        /// The offending value.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// A required field or section is missing.
    #[error("{file}: {field} is required ({why})")]
    Missing {
        /// File or source label.
        file: String,
        /// Field.
        field: String,
        /// Why it is needed.
        why: String,
    },
    /// A drive a vdev names is not a usable profile.
    #[error("{file}: {field}: {source}")]
    Drive {
        /// File or source label.
        file: String,
        /// Field, e.g. `vdevs[0].drives[1]`.
        field: String,
        /// What is wrong with the drive profile (boxed: a `ProfileError` is several times
        /// the size of the other variants).
        source: Box<ProfileError>,
    },
    /// A pool file that exists cannot be read (not a regular file, too large, not UTF-8).
    #[error("pool file '{path}' cannot be read: {reason}")]
    Unreadable {
        /// The path given.
        path: String,
        /// Why.
        reason: String,
    },
    /// A name is neither a shipped pool nor a readable file.
    #[error("pool '{name}' is neither a shipped pool ({available}) nor a readable TOML file")]
    NotFound {
        /// What was asked for.
        name: String,
        /// Shipped pool names.
        available: String,
    },
    /// An override (`section.field=value`) is malformed or names nothing.
    #[error("override '{text}': {problem}")]
    BadOverride {
        /// The override as given.
        text: String,
        /// What is wrong.
        problem: String,
    },
}

/// Pool files shipped with ssdtwin, embedded at build time from `profiles/pools/`.
pub const SHIPPED_POOLS: &[(&str, &str)] = &[
    ("hdd-mirror", include_str!("../../../../profiles/pools/hdd-mirror.toml")),
    ("hdd-mirror-special", include_str!("../../../../profiles/pools/hdd-mirror-special.toml")),
    ("hdd-raidz2-special", include_str!("../../../../profiles/pools/hdd-raidz2-special.toml")),
];

/// Names of the shipped pools.
pub fn shipped_pool_names() -> Vec<&'static str> {
    profile_file::shipped::names(SHIPPED_POOLS)
}

/// Where a block goes (`zpoolconcepts(7)`, "Allocation classes").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AllocClass {
    /// The normal vdevs: data and, without a special vdev, everything else.
    Normal,
    /// Metadata, indirect blocks, small data blocks, ZIL blocks without a log vdev.
    Special,
    /// Dedup tables.
    Dedup,
    /// A separate intent log (SLOG).
    Log,
}

impl AllocClass {
    /// The name `zpool` prints.
    pub fn name(self) -> &'static str {
        match self {
            AllocClass::Normal => "normal",
            AllocClass::Special => "special",
            AllocClass::Dedup => "dedup",
            AllocClass::Log => "logs",
        }
    }
    /// Index in per-class arrays.
    pub fn index(self) -> usize {
        self as usize
    }
    /// Every class, in index order.
    pub const ALL: [AllocClass; 4] = [AllocClass::Normal, AllocClass::Special, AllocClass::Dedup, AllocClass::Log];
}

/// How a top-level vdev keeps its blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VdevLayout {
    /// One drive.
    Disk,
    /// Every child holds every block.
    Mirror,
    /// RAID-Z with this many parity columns.
    Raidz(u8),
}

/// One drive of a vdev, its profile checked.
#[derive(Clone, Debug)]
pub enum DriveConfig {
    /// An SSD twin.
    Ssd(Box<DeviceConfig>),
    /// A hard disk.
    Hdd(Box<HddConfig>),
}

impl DriveConfig {
    /// Profile name.
    pub fn profile(&self) -> &str {
        match self {
            DriveConfig::Ssd(c) => &c.name,
            DriveConfig::Hdd(c) => &c.name,
        }
    }
    /// Capacity, bytes.
    pub fn capacity_bytes(&self) -> u64 {
        match self {
            DriveConfig::Ssd(c) => c.namespace.capacity_bytes,
            DriveConfig::Hdd(c) => c.lbas * c.lba_bytes,
        }
    }
    /// Logical sector size, bytes.
    pub fn lba_bytes(&self) -> u64 {
        match self {
            DriveConfig::Ssd(c) => c.namespace.lba_bytes(),
            DriveConfig::Hdd(c) => c.lba_bytes,
        }
    }
    /// Physical sector size, bytes (what ZFS's ashift detection reads).
    pub fn physical_sector_bytes(&self) -> u64 {
        match self {
            DriveConfig::Ssd(_) => 4096,
            DriveConfig::Hdd(c) => c.physical_sector_bytes,
        }
    }
    /// Whether the media rotates.
    pub fn rotational(&self) -> bool {
        matches!(self, DriveConfig::Hdd(_))
    }
}

/// A leaf vdev: a drive, or the partition of it the pool uses.
#[derive(Clone, Debug)]
pub struct LeafConfig {
    /// Device name as `zpool` shows it (`sda`, `nvme0n1`).
    pub name: String,
    /// The drive.
    pub drive: DriveConfig,
    /// Bytes of the drive the vdev uses (its partition), from offset 0.
    pub size_bytes: u64,
}

/// A top-level vdev.
#[derive(Clone, Debug)]
pub struct VdevConfig {
    /// Its allocation class.
    pub class: AllocClass,
    /// Disk, mirror or RAID-Z.
    pub layout: VdevLayout,
    /// log2 of the allocation unit.
    pub ashift: u8,
    /// Its drives.
    pub leaves: Vec<LeafConfig>,
}

/// Compression of data blocks (`compression=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// None: blocks are stored at their logical size.
    Off,
    /// Only runs of zeros are squeezed out.
    Zle,
    /// LZ4 (`on` selects it).
    Lz4,
    /// Zstandard.
    Zstd,
    /// Gzip.
    Gzip,
}

/// `redundant_metadata=`: extra copies of metadata (`dmu_write_policy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedundantMetadata {
    /// Every metadata block gets one more copy.
    All,
    /// Level ≥ 2 indirect blocks and metadata object types get one more.
    Most,
    /// Only critical metadata (dnodes, objsets) gets one more.
    Some,
    /// No extra copies.
    None,
}

/// A dataset and its properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatasetConfig {
    /// Name below the pool (empty for the pool's root dataset).
    pub name: String,
    /// `recordsize`, bytes.
    pub recordsize_bytes: u64,
    /// `compression`.
    pub compression: Compression,
    /// `special_small_blocks`, bytes (0: off).
    pub special_small_blocks_bytes: u64,
    /// `redundant_metadata`.
    pub redundant_metadata: RedundantMetadata,
    /// `copies` of data blocks.
    pub copies: u8,
    /// `atime=on`: reads update access times (dirtying dnodes).
    pub atime: bool,
    /// `relatime=on`: only the first read after a change updates it.
    pub relatime: bool,
    /// `dnodesize`, bytes.
    pub dnode_bytes: u64,
}

/// OpenZFS module parameters the model uses, by their own names; defaults as shipped.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[allow(clippy::struct_field_names)]
pub struct Tunables {
    /// Seconds between transaction groups at most (`txg.c`).
    pub zfs_txg_timeout: u64,
    /// Dirty data limit as % of RAM (`arc.c`).
    pub zfs_dirty_data_max_percent: u64,
    /// Cap on the dirty limit as % of RAM (`arc.c`).
    pub zfs_dirty_data_max_max_percent: u64,
    /// Cap on the dirty limit, bytes (4 GiB on 64-bit, `arc.c`).
    pub zfs_dirty_data_max_max: u64,
    /// Dirty limit in bytes; 0 derives it from RAM.
    pub zfs_dirty_data_max: u64,
    /// A txg syncs once this % of the limit is dirty (`dsl_pool.c`).
    pub zfs_dirty_data_sync_percent: u64,
    /// Writes are delayed above this % of the limit (`dmu_tx.c`).
    pub zfs_delay_min_dirty_percent: u64,
    /// Scale of the write delay, ns (`dsl_pool.c`).
    pub zfs_delay_scale: u64,
    /// Async write concurrency starts rising at this % of the limit (`vdev_queue.c`).
    pub zfs_vdev_async_write_active_min_dirty_percent: u64,
    /// … and reaches its maximum at this %.
    pub zfs_vdev_async_write_active_max_dirty_percent: u64,
    /// Per-leaf concurrency of each I/O class (`vdev_queue.c`).
    pub zfs_vdev_sync_read_min_active: u32,
    /// See above.
    pub zfs_vdev_sync_read_max_active: u32,
    /// See above.
    pub zfs_vdev_sync_write_min_active: u32,
    /// See above.
    pub zfs_vdev_sync_write_max_active: u32,
    /// See above.
    pub zfs_vdev_async_read_min_active: u32,
    /// See above.
    pub zfs_vdev_async_read_max_active: u32,
    /// See above.
    pub zfs_vdev_async_write_min_active: u32,
    /// See above.
    pub zfs_vdev_async_write_max_active: u32,
    /// See above.
    pub zfs_vdev_scrub_min_active: u32,
    /// See above.
    pub zfs_vdev_scrub_max_active: u32,
    /// All classes together, per leaf.
    pub zfs_vdev_max_active: u32,
    /// Largest aggregated I/O on rotating media, bytes.
    pub zfs_vdev_aggregation_limit: u64,
    /// … on non-rotating media.
    pub zfs_vdev_aggregation_limit_non_rotating: u64,
    /// Reads this close are aggregated (the gap is read too), bytes.
    pub zfs_vdev_read_gap_limit: u64,
    /// The last % of the special class is kept for metadata (`spa_misc.c`).
    pub zfs_special_class_metadata_reserve_pct: u64,
    /// Indirect blocks of files go to the special class (1) or not (0).
    pub zfs_user_indirect_is_special: u64,
    /// ARC size cap, bytes; 0 derives it from RAM (`arc_os.c: arc_default_max`).
    pub zfs_arc_max: u64,
    /// Prefetch off (1) or on (0).
    pub zfs_prefetch_disable: u64,
    /// Prefetch distance per stream, bytes: first reach (`dmu_zfetch.c`).
    pub zfetch_min_distance: u64,
    /// … and the most.
    pub zfetch_max_distance: u64,
    /// Bytes allocated on one top-level vdev before the rotor moves on (`metaslab.c`).
    pub metaslab_aliquot: u64,
    /// Sync writes up to this size are copied into the log; larger ones are written in
    /// place and logged by pointer (`zfs_log.c`).
    pub zfs_immediate_write_sz: u64,
    /// With a special class and no log vdev, large sync writes of blocks bound for the
    /// normal class are copied into the log (on special) rather than written in place (1),
    /// or written in place as without special (0) (`zil.c: zil_write_state`).
    pub zil_special_is_slog: u64,
    /// Mirror read balancing: load added for a seek on rotating media (`vdev_mirror.c`).
    pub zfs_vdev_mirror_rotating_seek_inc: u32,
    /// … within this many bytes of the last I/O, half of it.
    pub zfs_vdev_mirror_rotating_seek_offset: u64,
    /// … and on non-rotating media.
    pub zfs_vdev_mirror_non_rotating_seek_inc: u32,
}

impl Default for Tunables {
    fn default() -> Self {
        Tunables {
            zfs_txg_timeout: 5,
            zfs_dirty_data_max_percent: 10,
            zfs_dirty_data_max_max_percent: 25,
            zfs_dirty_data_max_max: 4 << 30,
            zfs_dirty_data_max: 0,
            zfs_dirty_data_sync_percent: 20,
            zfs_delay_min_dirty_percent: 60,
            zfs_delay_scale: 500_000,
            zfs_vdev_async_write_active_min_dirty_percent: 30,
            zfs_vdev_async_write_active_max_dirty_percent: 60,
            zfs_vdev_sync_read_min_active: 10,
            zfs_vdev_sync_read_max_active: 10,
            zfs_vdev_sync_write_min_active: 10,
            zfs_vdev_sync_write_max_active: 10,
            zfs_vdev_async_read_min_active: 1,
            zfs_vdev_async_read_max_active: 3,
            zfs_vdev_async_write_min_active: 2,
            zfs_vdev_async_write_max_active: 10,
            zfs_vdev_scrub_min_active: 1,
            zfs_vdev_scrub_max_active: 3,
            zfs_vdev_max_active: 1000,
            zfs_vdev_aggregation_limit: 1 << 20,
            zfs_vdev_aggregation_limit_non_rotating: 128 << 10,
            zfs_vdev_read_gap_limit: 32 << 10,
            zfs_special_class_metadata_reserve_pct: 25,
            zfs_user_indirect_is_special: 1,
            zfs_arc_max: 0,
            zfs_prefetch_disable: 0,
            zfetch_min_distance: 4 << 20,
            zfetch_max_distance: 64 << 20,
            metaslab_aliquot: 2 << 20,
            zfs_immediate_write_sz: 32 << 10,
            zil_special_is_slog: 1,
            zfs_vdev_mirror_rotating_seek_inc: 5,
            zfs_vdev_mirror_rotating_seek_offset: 1 << 20,
            zfs_vdev_mirror_non_rotating_seek_inc: 1,
        }
    }
}

/// On-disk sizes, and the compressed size lz4 gives each kind of metadata record.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Format {
    /// A block of dnodes (`DNODE_BLOCK_SHIFT` 14).
    pub dnode_block_bytes: u64,
    /// An indirect block (`DN_MAX_INDBLKSHIFT` 17), holding 128-byte block pointers.
    pub indirect_block_bytes: u64,
    /// A block pointer (`SPA_BLKPTRSHIFT` 7).
    pub block_pointer_bytes: u64,
    /// A microzap entry (`MZAP_ENT_LEN`).
    pub microzap_entry_bytes: u64,
    /// Longest name a microzap entry holds (`MZAP_NAME_LEN` − 1).
    pub microzap_name_max_bytes: u64,
    /// Largest microzap block: beyond, the directory becomes a fat ZAP (`zap_micro_max_size`).
    pub microzap_max_bytes: u64,
    /// A fat-ZAP leaf (`fzap_default_block_shift` 14).
    pub fat_zap_leaf_bytes: u64,
    /// Entries a full fat-ZAP leaf holds with short names (638 chunks of 24 bytes, three per entry).
    pub fat_zap_leaf_entries: u64,
    /// Average fill of fat-ZAP leaves: extendible hashing splits full leaves (ln 2, Fagin et al. 1979).
    pub fat_zap_fill: f64,
    /// Data compressed to at most this is kept in the block pointer (`BPE_PAYLOAD_SIZE`).
    pub embedded_max_bytes: u64,
    /// What lz4 leaves of a used dnode without its block pointer, bytes: fitted with the
    /// next two to PR #4365's per-file measurement (70.5 B per empty file with its entry).
    pub dnode_lz4_bytes: u64,
    /// What lz4 leaves of one block pointer, bytes (PR #4365: +77.4 B per non-empty file).
    pub block_pointer_lz4_bytes: u64,
    /// What lz4 leaves of one directory entry, bytes (the rest of PR #4365's 70.5 B).
    pub zap_entry_lz4_bytes: u64,
}

impl Default for Format {
    fn default() -> Self {
        Format {
            dnode_block_bytes: 16 << 10,
            indirect_block_bytes: 128 << 10,
            block_pointer_bytes: 128,
            microzap_entry_bytes: 64,
            microzap_name_max_bytes: 49,
            microzap_max_bytes: 128 << 10,
            fat_zap_leaf_bytes: 16 << 10,
            fat_zap_leaf_entries: 212,
            fat_zap_fill: 0.69,
            embedded_max_bytes: 112,
            dnode_lz4_bytes: 56,
            block_pointer_lz4_bytes: 77,
            zap_entry_lz4_bytes: 14,
        }
    }
}

/// CPU time of file-system calls on the reference core (a host's `speed_factor` divides it).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ZplCosts {
    /// Create a file or directory (`zfs_create`: a ZAP entry, a dnode, its attributes).
    pub create_us: f64,
    /// Look a name up in a cached directory.
    pub lookup_us: f64,
    /// `stat` of a cached file.
    pub stat_us: f64,
    /// Return one directory entry (`zfs_readdir`).
    pub readdir_entry_us: f64,
    /// Open and close a file.
    pub open_close_us: f64,
    /// One `read` or `write` call, data copy aside.
    pub io_call_us: f64,
    /// Copying data to or from the ARC, per MiB.
    pub copy_us_per_mib: f64,
}

impl Default for ZplCosts {
    fn default() -> Self {
        ZplCosts {
            create_us: 25.0,
            lookup_us: 1.5,
            stat_us: 1.5,
            readdir_entry_us: 0.3,
            open_close_us: 4.0,
            io_call_us: 2.0,
            copy_us_per_mib: 100.0,
        }
    }
}

/// A validated pool description.
#[derive(Clone, Debug)]
pub struct PoolConfig {
    /// Where it came from (`shipped:pools/NAME` or a path).
    pub source: String,
    /// The pool's name (`tank`).
    pub name: String,
    /// Description.
    pub description: String,
    /// The resolved file as TOML.
    pub toml: String,
    /// Top-level vdevs, in file order.
    pub vdevs: Vec<VdevConfig>,
    /// Datasets; the first is the pool's root dataset.
    pub datasets: Vec<DatasetConfig>,
    /// Module parameters.
    pub tunables: Tunables,
    /// On-disk format sizes.
    pub format: Format,
    /// File-system call costs, ns on the reference core.
    pub zpl: ZplNs,
}

/// [`ZplCosts`] in ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZplNs {
    /// See [`ZplCosts::create_us`].
    pub create: SimDuration,
    /// See [`ZplCosts::lookup_us`].
    pub lookup: SimDuration,
    /// See [`ZplCosts::stat_us`].
    pub stat: SimDuration,
    /// See [`ZplCosts::readdir_entry_us`].
    pub readdir_entry: SimDuration,
    /// See [`ZplCosts::open_close_us`].
    pub open_close: SimDuration,
    /// See [`ZplCosts::io_call_us`].
    pub io_call: SimDuration,
    /// See [`ZplCosts::copy_us_per_mib`].
    pub copy_per_mib: SimDuration,
}

impl PoolConfig {
    /// The dataset called `name` (its name below the pool, or the pool's name for the root).
    pub fn dataset(&self, name: &str) -> Option<usize> {
        let name = name.strip_prefix(&self.name).map_or(name, |rest| rest.trim_start_matches('/'));
        self.datasets.iter().position(|d| d.name == name)
    }
}

// ---- the file as written ----

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PoolFile {
    pool: PoolSection,
    #[serde(default)]
    vdevs: Vec<VdevSection>,
    #[serde(default)]
    datasets: Vec<DatasetSection>,
    #[serde(default)]
    tunables: Tunables,
    #[serde(default)]
    format: Format,
    #[serde(default)]
    zpl: ZplCosts,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PoolSection {
    name: String,
    #[serde(default)]
    description: String,
    ashift: Option<u8>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VdevSection {
    class: String,
    layout: String,
    drives: Vec<String>,
    #[serde(default)]
    names: Vec<String>,
    ashift: Option<u8>,
    partition_bytes: Option<SizeValue>,
    #[serde(default)]
    set: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DatasetSection {
    name: String,
    recordsize_bytes: Option<SizeValue>,
    compression: Option<String>,
    special_small_blocks_bytes: Option<SizeValue>,
    redundant_metadata: Option<String>,
    copies: Option<u8>,
    atime: Option<String>,
    relatime: Option<bool>,
    dnodesize_bytes: Option<SizeValue>,
}

/// A byte count as an integer or as ZFS writes it (`128K`, `1M`, `16G`).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum SizeValue {
    Bytes(u64),
    Text(String),
}

/// Parses a byte count as ZFS prints sizes: digits with an optional K, M, G, T suffix (powers
/// of 1024; `B`, `iB` accepted), e.g. `512`, `128K`, `1.5G`.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (digits, shift) = match t.chars().last()?.to_ascii_uppercase() {
        'K' => (&t[..t.len() - 1], 10),
        'M' => (&t[..t.len() - 1], 20),
        'G' => (&t[..t.len() - 1], 30),
        'T' => (&t[..t.len() - 1], 40),
        'P' => (&t[..t.len() - 1], 50),
        _ => (t, 0),
    };
    if let Ok(n) = digits.parse::<u64>() {
        return n.checked_mul(1u64 << shift);
    }
    let f: f64 = digits.parse().ok()?;
    let v = f * (1u64 << shift) as f64;
    (f.is_finite() && f >= 0.0 && v < 1.8e19).then_some(v.round() as u64)
}

impl SizeValue {
    fn bytes(&self, c: &Check, field: &str) -> Result<u64, PoolError> {
        match self {
            SizeValue::Bytes(b) => Ok(*b),
            SizeValue::Text(t) => parse_size(t)
                .ok_or_else(|| c.bad(field, &format!("\"{t}\""), "a byte count: digits with an optional K, M, G or T")),
        }
    }
}

struct Check<'a> {
    file: &'a str,
}

impl Check<'_> {
    fn bad(&self, field: &str, value: &dyn std::fmt::Display, allowed: &str) -> PoolError {
        PoolError::OutOfRange {
            file: self.file.to_string(),
            field: field.to_string(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        }
    }
    fn choice<T: Copy>(&self, field: &str, v: &str, options: &[(&str, T)]) -> Result<T, PoolError> {
        options.iter().find(|(n, _)| *n == v).map(|(_, t)| *t).ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            self.bad(field, &format!("\"{v}\""), &format!("allowed {}", names.join(", ")))
        })
    }
    fn us(&self, field: &str, v: f64) -> Result<SimDuration, PoolError> {
        if !v.is_finite() || !(0.0..=1e9).contains(&v) {
            return Err(self.bad(field, &v, "allowed 0 to 1e9 microseconds"));
        }
        Ok(SimDuration((v * 1000.0).round() as u64))
    }
}

/// A pool file as loaded: its TOML table and where it came from (overrides edit the table).
#[derive(Clone, Debug)]
pub struct LoadedPool {
    /// File path, or `shipped:pools/NAME`.
    pub source: String,
    /// The TOML table.
    pub table: toml::Table,
}

impl LoadedPool {
    /// Parses pool-file text; `source` labels errors.
    pub fn from_str(text: &str, source: &str) -> Result<Self, PoolError> {
        let table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| to_pool(&parse_error(source, &e.to_string())))?;
        Ok(LoadedPool { source: source.to_string(), table })
    }

    /// The resolved file as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.table).expect("a toml::Table always serialises")
    }
}

fn to_pool(e: &ProfileError) -> PoolError {
    match e {
        ProfileError::Parse { file, message } => PoolError::Parse { file: file.clone(), message: message.clone() },
        other => PoolError::Parse { file: String::new(), message: other.to_string() },
    }
}

/// Resolves a shipped pool name or a path to a pool file.
pub fn load_pool(name_or_path: &str) -> Result<LoadedPool, PoolError> {
    if let Some(text) = profile_file::shipped::text(SHIPPED_POOLS, name_or_path) {
        return LoadedPool::from_str(text, &format!("shipped:pools/{name_or_path}"));
    }
    let (text, _) = profile_file::read_profile_file(name_or_path).map_err(|problem| match problem {
        FileProblem::Unreadable(reason) => PoolError::Unreadable { path: name_or_path.to_string(), reason },
        FileProblem::Missing => {
            PoolError::NotFound { name: name_or_path.to_string(), available: shipped_pool_names().join(", ") }
        }
    })?;
    LoadedPool::from_str(&text, name_or_path)
}

/// Applies `key=value` overrides. Keys are dotted; `vdevs.N.field` names the N-th vdev
/// (from 0) and `datasets.NAME.field` a dataset by name (the pool's name for the root).
pub fn apply_pool_overrides(pool: &mut LoadedPool, overrides: &[String]) -> Result<(), PoolError> {
    for text in overrides {
        let bad = |problem: &str| PoolError::BadOverride { text: text.clone(), problem: problem.to_string() };
        let profile_file::Override { path, value } =
            profile_file::split_override(text).ok_or_else(|| bad("expected section.field=value"))?;
        let pool_name = pool.table.get("pool").and_then(|p| p.get("name")).and_then(|n| n.as_str()).map(String::from);
        let mut node = toml::Value::Table(std::mem::take(&mut pool.table));
        let result = set_path(&mut node, &path, value, pool_name.as_deref(), &bad);
        let toml::Value::Table(t) = node else { unreachable!("the root stays a table") };
        pool.table = t;
        result?;
    }
    Ok(())
}

/// Sets `path` under `node` to `value`; `bad` words what is wrong with the override.
fn set_path(
    node: &mut toml::Value,
    path: &[&str],
    value: toml::Value,
    pool: Option<&str>,
    bad: &dyn Fn(&str) -> PoolError,
) -> Result<(), PoolError> {
    let (head, rest) = (path[0], &path[1..]);
    match node {
        toml::Value::Table(t) => {
            if rest.is_empty() {
                t.insert(head.to_string(), value);
                return Ok(());
            }
            if head == "datasets" && !t.contains_key("datasets") {
                t.insert("datasets".into(), toml::Value::Array(Vec::new()));
            }
            let entry = t.entry(head.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            set_path(entry, rest, value, pool, bad)
        }
        toml::Value::Array(items) => {
            let index = if let Ok(i) = head.parse::<usize>() {
                (i < items.len())
                    .then_some(i)
                    .ok_or_else(|| bad(&format!("there is no element {i} (there are {})", items.len())))?
            } else {
                // A dataset by name; the root dataset is created if the file has none.
                let name = if Some(head) == pool { "" } else { head };
                items.iter().position(|d| d.get("name").and_then(|n| n.as_str()) == Some(name)).unwrap_or_else(|| {
                    let mut t = toml::Table::new();
                    t.insert("name".into(), toml::Value::String(name.to_string()));
                    items.push(toml::Value::Table(t));
                    items.len() - 1
                })
            };
            if rest.is_empty() {
                return Err(bad("name a field of the element"));
            }
            set_path(&mut items[index], rest, value, pool, bad)
        }
        _ => Err(bad(&format!("'{head}' is below a value that is not a section"))),
    }
}

/// ZFS's pool and dataset name rule: a letter first, then letters, digits, `_ - . :`.
fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c))
        && name.len() <= 200
}

/// Checks a loaded pool file and builds its drives' configurations.
// One check after another, in the file's order: read top to bottom.
#[allow(clippy::too_many_lines)]
pub fn build_pool(loaded: &LoadedPool) -> Result<PoolConfig, PoolError> {
    let file = loaded.source.as_str();
    let c = Check { file };
    let f: PoolFile = toml::Value::Table(loaded.table.clone())
        .try_into()
        .map_err(|e: toml::de::Error| to_pool(&parse_error(file, &e.to_string())))?;
    let name = f.pool.name.clone();
    let reserved = ["mirror", "raidz", "raidz1", "raidz2", "raidz3", "draid", "spare", "log", "special", "dedup"];
    if !valid_name(&name) || reserved.contains(&name.as_str()) {
        return Err(c.bad(
            "pool.name",
            &format!("\"{name}\""),
            "a letter, then letters, digits, _ - . : (and not a vdev keyword such as mirror or log)",
        ));
    }
    if let Some(a) = f.pool.ashift
        && !(9..=16).contains(&a)
    {
        return Err(c.bad("pool.ashift", &a, "allowed 9 to 16"));
    }
    if !f.vdevs.iter().any(|v| v.class == "normal") {
        return Err(PoolError::Missing {
            file: file.into(),
            field: "vdevs".into(),
            why: "a pool needs at least one vdev of class \"normal\" before special, dedup or log vdevs".into(),
        });
    }
    let mut vdevs = Vec::with_capacity(f.vdevs.len());
    let (mut hdds, mut ssds) = (0usize, 0usize);
    let mut names = Vec::<String>::new();
    for (i, v) in f.vdevs.iter().enumerate() {
        let at = |field: &str| format!("vdevs[{i}].{field}");
        let class = c.choice(
            &at("class"),
            &v.class,
            &[
                ("normal", AllocClass::Normal),
                ("special", AllocClass::Special),
                ("dedup", AllocClass::Dedup),
                ("log", AllocClass::Log),
            ],
        )?;
        let layout = c.choice(
            &at("layout"),
            &v.layout,
            &[
                ("disk", VdevLayout::Disk),
                ("mirror", VdevLayout::Mirror),
                ("raidz1", VdevLayout::Raidz(1)),
                ("raidz2", VdevLayout::Raidz(2)),
                ("raidz3", VdevLayout::Raidz(3)),
            ],
        )?;
        let n = v.drives.len();
        let (lo, what) = match layout {
            VdevLayout::Disk => (1, "exactly 1 drive"),
            VdevLayout::Mirror => (2, "at least 2 drives"),
            VdevLayout::Raidz(p) => (usize::from(p) + 1, "at least parity + 1 drives"),
        };
        if n < lo || (layout == VdevLayout::Disk && n > 1) || n > 255 {
            return Err(c.bad(&at("drives"), &format!("{n} drives"), &format!("a {} vdev takes {what}", v.layout)));
        }
        if class == AllocClass::Log && matches!(layout, VdevLayout::Raidz(_)) {
            return Err(c.bad(&at("layout"), &format!("\"{}\"", v.layout), "a log vdev is a disk or a mirror"));
        }
        if !v.names.is_empty() && v.names.len() != n {
            return Err(c.bad(&at("names"), &format!("{} names", v.names.len()), &format!("one name per drive ({n})")));
        }
        let mut leaves = Vec::with_capacity(n);
        for (j, drive) in v.drives.iter().enumerate() {
            let field = format!("vdevs[{i}].drives[{j}]");
            let wrap = |source: ProfileError| PoolError::Drive {
                file: file.into(),
                field: field.clone(),
                source: Box::new(source),
            };
            let config = build_drive(drive, &v.set).map_err(wrap)?;
            let leaf_name = match v.names.get(j) {
                Some(n) => n.clone(),
                None if config.rotational() => {
                    hdds += 1;
                    disk_name(hdds - 1)
                }
                None => {
                    ssds += 1;
                    format!("nvme{}n1", ssds - 1)
                }
            };
            if leaf_name.is_empty() || leaf_name.len() > 64 || leaf_name.chars().any(char::is_whitespace) {
                return Err(c.bad(&at("names"), &format!("\"{leaf_name}\""), "1 to 64 characters, no spaces"));
            }
            if names.contains(&leaf_name) {
                return Err(c.bad(&at("names"), &format!("\"{leaf_name}\""), "each device name once in the pool"));
            }
            names.push(leaf_name.clone());
            let capacity = config.capacity_bytes();
            let size = match &v.partition_bytes {
                Some(p) => {
                    let bytes = p.bytes(&c, &at("partition_bytes"))?;
                    if !(MIN_DEVICE_BYTES..=capacity).contains(&bytes) {
                        return Err(c.bad(
                            &at("partition_bytes"),
                            &bytes,
                            &format!("{MIN_DEVICE_BYTES} (64 MiB) to the drive's {capacity} bytes"),
                        ));
                    }
                    bytes
                }
                None if capacity < MIN_DEVICE_BYTES => {
                    return Err(c.bad(&field, &capacity, "a vdev needs a device of at least 64 MiB"));
                }
                None => capacity,
            };
            leaves.push(LeafConfig { name: leaf_name, drive: config, size_bytes: size });
        }
        // ZFS reads the physical sector size to choose ashift; a smaller one cannot address
        // the device's logical sectors.
        let detected = leaves.iter().map(|l| l.drive.physical_sector_bytes().trailing_zeros() as u8).max().unwrap_or(9);
        let ashift = v.ashift.or(f.pool.ashift).unwrap_or(detected.max(9));
        let smallest_lba = leaves.iter().map(|l| l.drive.lba_bytes()).max().unwrap_or(512);
        if !(9..=16).contains(&ashift) || (1u64 << ashift) < smallest_lba {
            return Err(c.bad(
                &at("ashift"),
                &ashift,
                &format!("9 to 16, and 2^ashift at least the drives' {smallest_lba}-byte logical sectors"),
            ));
        }
        vdevs.push(VdevConfig { class, layout, ashift, leaves });
    }
    let mut datasets = vec![DatasetConfig::root()];
    for (i, d) in f.datasets.iter().enumerate() {
        let label = if d.name.is_empty() || d.name == name { name.clone() } else { d.name.clone() };
        let at = |field: &str| format!("datasets.{label}.{field}");
        let is_root = d.name.is_empty() || d.name == name;
        if !is_root && (!d.name.split('/').all(valid_name) || datasets.iter().any(|x| x.name == d.name)) {
            return Err(c.bad(
                &format!("datasets[{i}].name"),
                &format!("\"{}\"", d.name),
                "a new name below the pool: letters, digits, _ - . : and / between levels",
            ));
        }
        let mut ds =
            DatasetConfig { name: if is_root { String::new() } else { d.name.clone() }, ..DatasetConfig::root() };
        if let Some(r) = &d.recordsize_bytes {
            let v = r.bytes(&c, &at("recordsize_bytes"))?;
            if !v.is_power_of_two() || !(512..=16 << 20).contains(&v) {
                return Err(c.bad(&at("recordsize_bytes"), &v, "a power of two from 512 to 16M"));
            }
            ds.recordsize_bytes = v;
        }
        if let Some(s) = &d.special_small_blocks_bytes {
            let v = s.bytes(&c, &at("special_small_blocks_bytes"))?;
            if v != 0 && (!v.is_power_of_two() || !(512..=16 << 20).contains(&v)) {
                return Err(c.bad(&at("special_small_blocks_bytes"), &v, "0, or a power of two from 512 to 16M"));
            }
            ds.special_small_blocks_bytes = v;
        }
        if let Some(v) = &d.compression {
            ds.compression = c.choice(
                &at("compression"),
                v,
                &[
                    ("off", Compression::Off),
                    ("on", Compression::Lz4),
                    ("lz4", Compression::Lz4),
                    ("zle", Compression::Zle),
                    ("zstd", Compression::Zstd),
                    ("gzip", Compression::Gzip),
                ],
            )?;
        }
        if let Some(v) = &d.redundant_metadata {
            ds.redundant_metadata = c.choice(
                &at("redundant_metadata"),
                v,
                &[
                    ("all", RedundantMetadata::All),
                    ("most", RedundantMetadata::Most),
                    ("some", RedundantMetadata::Some),
                    ("none", RedundantMetadata::None),
                ],
            )?;
        }
        if let Some(v) = d.copies {
            if !(1..=3).contains(&v) {
                return Err(c.bad(&at("copies"), &v, "allowed 1 to 3"));
            }
            ds.copies = v;
        }
        if let Some(v) = &d.atime {
            ds.atime = c.choice(&at("atime"), v, &[("on", true), ("off", false)])?;
        }
        if let Some(v) = d.relatime {
            ds.relatime = v;
        }
        if let Some(v) = &d.dnodesize_bytes {
            let v = v.bytes(&c, &at("dnodesize_bytes"))?;
            if !v.is_power_of_two() || !(512..=16384).contains(&v) {
                return Err(c.bad(&at("dnodesize_bytes"), &v, "512 (legacy), 1K (auto), 2K, 4K, 8K or 16K"));
            }
            ds.dnode_bytes = v;
        }
        if is_root {
            datasets[0] = ds;
        } else {
            datasets.push(ds);
        }
    }
    let t = &f.tunables;
    for (field, v, lo, hi) in [
        ("tunables.zfs_txg_timeout", t.zfs_txg_timeout, 1, 3600),
        ("tunables.zfs_dirty_data_max_percent", t.zfs_dirty_data_max_percent, 1, 100),
        ("tunables.zfs_dirty_data_max_max_percent", t.zfs_dirty_data_max_max_percent, 1, 100),
        ("tunables.zfs_dirty_data_sync_percent", t.zfs_dirty_data_sync_percent, 1, 100),
        ("tunables.zfs_delay_min_dirty_percent", t.zfs_delay_min_dirty_percent, 1, 100),
        ("tunables.zfs_special_class_metadata_reserve_pct", t.zfs_special_class_metadata_reserve_pct, 0, 100),
        ("tunables.zfs_user_indirect_is_special", t.zfs_user_indirect_is_special, 0, 1),
        ("tunables.zfs_prefetch_disable", t.zfs_prefetch_disable, 0, 1),
        ("tunables.zfs_delay_scale", t.zfs_delay_scale, 0, 1 << 40),
        ("tunables.zfs_vdev_aggregation_limit", t.zfs_vdev_aggregation_limit, 4096, 16 << 20),
        ("tunables.zfs_vdev_aggregation_limit_non_rotating", t.zfs_vdev_aggregation_limit_non_rotating, 4096, 16 << 20),
        ("tunables.zfs_vdev_read_gap_limit", t.zfs_vdev_read_gap_limit, 0, 16 << 20),
        ("tunables.zfetch_min_distance", t.zfetch_min_distance, 4096, 1 << 34),
        ("tunables.zfetch_max_distance", t.zfetch_max_distance, t.zfetch_min_distance.max(4096), 1 << 34),
        ("tunables.metaslab_aliquot", t.metaslab_aliquot, 4096, 1 << 34),
        ("tunables.zfs_immediate_write_sz", t.zfs_immediate_write_sz, 0, 16 << 20),
        ("tunables.zil_special_is_slog", t.zil_special_is_slog, 0, 1),
        ("tunables.zfs_vdev_mirror_rotating_seek_offset", t.zfs_vdev_mirror_rotating_seek_offset, 0, 1 << 40),
    ] {
        if v < lo || v > hi {
            return Err(c.bad(field, &v, &format!("allowed {lo} to {hi}")));
        }
    }
    if t.zfs_vdev_async_write_active_min_dirty_percent >= t.zfs_vdev_async_write_active_max_dirty_percent
        || t.zfs_vdev_async_write_active_max_dirty_percent > 100
    {
        return Err(c.bad(
            "tunables.zfs_vdev_async_write_active_min_dirty_percent",
            &t.zfs_vdev_async_write_active_min_dirty_percent,
            "below zfs_vdev_async_write_active_max_dirty_percent (at most 100)",
        ));
    }
    for (field, min, max) in [
        ("sync_read", t.zfs_vdev_sync_read_min_active, t.zfs_vdev_sync_read_max_active),
        ("sync_write", t.zfs_vdev_sync_write_min_active, t.zfs_vdev_sync_write_max_active),
        ("async_read", t.zfs_vdev_async_read_min_active, t.zfs_vdev_async_read_max_active),
        ("async_write", t.zfs_vdev_async_write_min_active, t.zfs_vdev_async_write_max_active),
        ("scrub", t.zfs_vdev_scrub_min_active, t.zfs_vdev_scrub_max_active),
    ] {
        if min == 0 || min > max || max > 1000 {
            return Err(c.bad(
                &format!("tunables.zfs_vdev_{field}_max_active"),
                &max,
                "1 to 1000, and at least the class's min_active (which must be at least 1)",
            ));
        }
    }
    if t.zfs_vdev_max_active == 0 {
        return Err(c.bad("tunables.zfs_vdev_max_active", &0, "at least 1"));
    }
    let fm = &f.format;
    for (field, v, ok) in [
        ("format.dnode_block_bytes", fm.dnode_block_bytes, fm.dnode_block_bytes.is_power_of_two()),
        ("format.indirect_block_bytes", fm.indirect_block_bytes, fm.indirect_block_bytes.is_power_of_two()),
        ("format.microzap_max_bytes", fm.microzap_max_bytes, fm.microzap_max_bytes.is_power_of_two()),
        ("format.fat_zap_leaf_bytes", fm.fat_zap_leaf_bytes, fm.fat_zap_leaf_bytes.is_power_of_two()),
    ] {
        if !ok || !(512..=16 << 20).contains(&v) {
            return Err(c.bad(field, &v, "a power of two from 512 to 16M"));
        }
    }
    if !fm.block_pointer_bytes.is_power_of_two() || !(64..=4096).contains(&fm.block_pointer_bytes) {
        return Err(c.bad("format.block_pointer_bytes", &fm.block_pointer_bytes, "a power of two from 64 to 4096"));
    }
    if fm.indirect_block_bytes < 2 * fm.block_pointer_bytes {
        return Err(c.bad("format.indirect_block_bytes", &fm.indirect_block_bytes, "at least two block pointers"));
    }
    for (field, v) in [
        ("format.microzap_entry_bytes", fm.microzap_entry_bytes),
        ("format.fat_zap_leaf_entries", fm.fat_zap_leaf_entries),
        ("format.dnode_lz4_bytes", fm.dnode_lz4_bytes),
        ("format.block_pointer_lz4_bytes", fm.block_pointer_lz4_bytes),
        ("format.zap_entry_lz4_bytes", fm.zap_entry_lz4_bytes),
    ] {
        if v == 0 || v > 1 << 20 {
            return Err(c.bad(field, &v, "allowed 1 to 1048576"));
        }
    }
    if !(fm.fat_zap_fill > 0.0 && fm.fat_zap_fill <= 1.0) {
        return Err(c.bad("format.fat_zap_fill", &fm.fat_zap_fill, "above 0, at most 1"));
    }
    let z = &f.zpl;
    let zpl = ZplNs {
        create: c.us("zpl.create_us", z.create_us)?,
        lookup: c.us("zpl.lookup_us", z.lookup_us)?,
        stat: c.us("zpl.stat_us", z.stat_us)?,
        readdir_entry: c.us("zpl.readdir_entry_us", z.readdir_entry_us)?,
        open_close: c.us("zpl.open_close_us", z.open_close_us)?,
        io_call: c.us("zpl.io_call_us", z.io_call_us)?,
        copy_per_mib: c.us("zpl.copy_us_per_mib", z.copy_us_per_mib)?,
    };
    Ok(PoolConfig {
        source: loaded.source.clone(),
        name,
        description: f.pool.description.clone(),
        toml: loaded.to_toml(),
        vdevs,
        datasets,
        tunables: f.tunables,
        format: f.format,
        zpl,
    })
}

/// The smallest device ZFS accepts (`SPA_MINDEVSIZE`).
const MIN_DEVICE_BYTES: u64 = 64 << 20;

impl DatasetConfig {
    /// OpenZFS's defaults.
    fn root() -> Self {
        DatasetConfig {
            name: String::new(),
            recordsize_bytes: 128 << 10,
            compression: Compression::Lz4,
            special_small_blocks_bytes: 0,
            redundant_metadata: RedundantMetadata::All,
            copies: 1,
            atime: true,
            relatime: true,
            dnode_bytes: 512,
        }
    }
}

/// Linux's names for SCSI disks in order: sda … sdz, sdaa, ….
fn disk_name(i: usize) -> String {
    let mut s = Vec::new();
    let mut n = i + 1;
    while n > 0 {
        n -= 1;
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    s.reverse();
    format!("sd{}", String::from_utf8(s).expect("ASCII letters"))
}

/// A drive profile (disk or SSD) by name or path, with `set` overrides.
fn build_drive(name: &str, set: &[String]) -> Result<DriveConfig, ProfileError> {
    if let Ok(mut p) = load_hdd(name)
        && is_hdd_profile(&p.table)
    {
        apply_overrides(&mut p, set)?;
        return Ok(DriveConfig::Hdd(Box::new(build_hdd(&p)?)));
    }
    let mut p: LoadedProfile = match load_profile(name) {
        Ok(p) => p,
        Err(ProfileError::NotFound { name, available }) => {
            let disks = crate::hdd::shipped_hdd_names().join(", ");
            return Err(ProfileError::NotFound { name, available: format!("{available}; disks: {disks}") });
        }
        Err(e) => return Err(e),
    };
    apply_overrides(&mut p, set)?;
    Ok(DriveConfig::Ssd(Box::new(build(&p)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(text: &str) -> Result<PoolConfig, PoolError> {
        build_pool(&LoadedPool::from_str(text, "t.toml")?)
    }

    const MIRROR: &str =
        "[pool]\nname='tank'\n[[vdevs]]\nclass='normal'\nlayout='mirror'\ndrives=['exos-x18-16tb','exos-x18-16tb']\n";

    #[test]
    fn every_shipped_pool_builds() {
        for name in shipped_pool_names() {
            let p = build_pool(&load_pool(name).unwrap()).unwrap();
            assert!(p.vdevs.iter().any(|v| v.class == AllocClass::Normal), "{name}");
        }
    }

    #[test]
    fn names_default_to_linux_device_names_and_ashift_to_the_physical_sector() {
        let p = pool(MIRROR).unwrap();
        let names: Vec<&str> = p.vdevs[0].leaves.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["sda", "sdb"]);
        assert_eq!(p.vdevs[0].ashift, 12, "the Exos is 512e with 4 KiB physical sectors");
        assert_eq!(disk_name(25), "sdz");
        assert_eq!(disk_name(26), "sdaa");
    }

    #[test]
    fn errors_name_the_file_and_field() {
        let e = pool(&MIRROR.replace("'mirror'", "'mirorr'")).unwrap_err().to_string();
        assert_eq!(e, "t.toml: vdevs[0].layout = \"mirorr\": allowed disk, mirror, raidz1, raidz2, raidz3");
        let e = pool(&MIRROR.replace("'exos-x18-16tb','exos-x18-16tb'", "'exos-x18-16tb'")).unwrap_err().to_string();
        assert!(e.starts_with("t.toml: vdevs[0].drives = 1 drives: a mirror vdev takes at least 2 drives"), "{e}");
        let e = pool(&MIRROR.replace("'exos-x18-16tb']", "'nosuch']")).unwrap_err().to_string();
        assert!(e.starts_with("t.toml: vdevs[0].drives[1]: profile 'nosuch' is neither"), "{e}");
        let e = pool(&format!("{MIRROR}[[datasets]]\nname='d'\nrecordsize_bytes='100K'\n")).unwrap_err().to_string();
        assert_eq!(e, "t.toml: datasets.d.recordsize_bytes = 102400: a power of two from 512 to 16M");
        let e = pool(&MIRROR.replace("class='normal'", "class='special'")).unwrap_err().to_string();
        assert!(e.contains("vdevs is required (a pool needs at least one vdev of class \"normal\""), "{e}");
        let e = pool(&format!("{MIRROR}[tunables]\nzfs_txg_timout=3\n")).unwrap_err().to_string();
        assert!(e.contains("unknown field `zfs_txg_timout`"), "{e}");
    }

    #[test]
    fn overrides_reach_vdevs_by_index_and_datasets_by_name() {
        let mut p = LoadedPool::from_str(MIRROR, "t.toml").unwrap();
        let o = |s: &[&str]| s.iter().map(ToString::to_string).collect::<Vec<_>>();
        apply_pool_overrides(&mut p, &o(&["vdevs.0.ashift=13", "datasets.data.special_small_blocks_bytes=\"64K\""]))
            .unwrap();
        apply_pool_overrides(&mut p, &o(&["datasets.tank.recordsize_bytes=1M"])).unwrap();
        let c = build_pool(&p).unwrap();
        assert_eq!(c.vdevs[0].ashift, 13);
        assert_eq!(c.datasets[0].recordsize_bytes, 1 << 20);
        assert_eq!(c.datasets[c.dataset("tank/data").unwrap()].special_small_blocks_bytes, 64 << 10);
        let e = apply_pool_overrides(&mut p, &o(&["vdevs.3.ashift=12"])).unwrap_err().to_string();
        assert!(e.contains("there is no element 3"), "{e}");
    }

    #[test]
    fn sizes_read_as_zfs_prints_them() {
        assert_eq!(parse_size("128K"), Some(131_072));
        assert_eq!(parse_size("1.5G"), Some(3 << 29));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("64GiB"), Some(64 << 30));
        assert_eq!(parse_size("x"), None);
    }
}
