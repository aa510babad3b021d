//! Saving and restoring the whole device state.
//!
//! File layout (all integers little-endian):
//!
//! ```text
//! "SSDTWIN\0"  magic
//! u32          format version
//! u64          header length, then the header: JSON with the resolved profile TOML, the
//!              current LBA format, host counters, the FTL state (superblocks, frontiers,
//!              counters) and which optional arrays follow
//! LZ4 frame    L2P in stored form (location + 1, 0 unmapped), in chunks of 2^19 entries:
//!              each chunk's low 32 bits, delta-encoded (a sequential fill compresses to
//!              almost nothing), then, on arrays of 2^32 physical units or more, its bits
//!              32-33 four entries per byte (without them the stream is the whole L2P's
//!              low words in order); in verify mode followed by the tags per physical unit
//!              and the expected version per logical unit; then every physical block's
//!              erases in SLC mode and in the native mode (`block_wear` in the header; a
//!              state saved before per-block wear has none, and its blocks take their
//!              superblocks' counts)
//! ```
//!
//! A snapshot is taken of a quiet device (no command, program, GC job or erase pending), so
//! nothing about time is stored: a restored device starts at time zero with idle resources,
//! at ambient temperature (it has cooled), with its thermal history kept. Saving is a normal
//! shutdown and loading a power-on (`ssd::health`): Power Cycles counts one more, and Power
//! On Hours goes on from the saved total.
//! The profile travels inside the file, so a state can be loaded without naming it.

use super::{HostCounters, Ssd, Verifier};
use crate::config::{LoadedProfile, ProfileError, build};
use crate::controller::thermal::ThermalTotals;
use crate::ftl::{FtlState, MediaErrorState, MediaErrors};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use thiserror::Error;

const MAGIC: &[u8; 8] = b"SSDTWIN\0";
/// Version 2: everything after the version word is one LZ4 frame with block and content
/// checksums, so a file damaged anywhere, or cut short, is detected, not loaded.
const VERSION: u32 = 2;

/// A state file could not be written or read.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The file could not be opened, read or written.
    #[error("{path}: {source}")]
    Io {
        /// File.
        path: String,
        /// Cause.
        source: std::io::Error,
    },
    /// The file is not an ssdtwin state, or is damaged or from another version.
    #[error("{path}: {problem}")]
    Corrupt {
        /// File.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// The profile inside the file no longer validates.
    #[error("{path}: the profile stored in the state is invalid: {source}")]
    Profile {
        /// File.
        path: String,
        /// Cause.
        source: ProfileError,
    },
    /// The drive in the file needs more memory than allowed.
    #[error(
        "{path}: the drive saved here needs about {} GiB of memory for its maps; the limit is {} GiB: raise it (max_memory_gib, --max-memory)",
        gib(*needed),
        gib(*limit)
    )]
    TooLarge {
        /// File.
        path: String,
        /// Bytes the model would take.
        needed: u64,
        /// The limit.
        limit: u64,
    },
    /// The process cannot map the model's arrays now (its address-space limit, or memory).
    #[error(
        "{path}: the drive saved here needs about {} GiB of memory for its maps, and this process cannot map that much now (its address-space limit, ulimit -v, or memory): raise the limit or free memory",
        gib(*needed)
    )]
    CannotMap {
        /// File.
        path: String,
        /// Bytes the model would take.
        needed: u64,
    },
    /// The device is busy.
    #[error("cannot save while commands or background work are pending; quiesce first")]
    Busy,
}

/// Bytes in GiB, one decimal, for messages.
fn gib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / f64::from(1u32 << 30))
}

#[derive(Serialize, Deserialize)]
struct Header {
    profile_name: String,
    profile_toml: String,
    lba_format: usize,
    host: HostCounters,
    host_units_admitted: u64,
    ftl: FtlState,
    verify: bool,
    /// Next version the verifier hands out (verify mode).
    verify_next_version: u32,
    /// Per-block erase counts follow the verify arrays.
    #[serde(default)]
    block_wear: bool,
    /// Thermal history: time above the thresholds, throttling, energy.
    #[serde(default)]
    thermal: ThermalTotals,
    /// Media errors counted and the expected errors accumulated towards the next.
    #[serde(default)]
    media_errors: MediaErrorState,
    /// A zoned namespace's zones (absent: conventional).
    #[serde(default)]
    zones: Option<crate::block::Zones>,
}

impl Ssd {
    /// Writes the state to `path`, replacing any file there. The device must be quiet
    /// ([`Ssd::quiesce`]).
    pub fn save(&self, path: &Path) -> Result<(), SnapshotError> {
        self.save_as(path, true)
    }

    /// [`Ssd::save`] that refuses (`AlreadyExists`) to replace a file at `path`, checked in
    /// the same step that puts the state there, so two saves cannot both see "no file".
    pub fn save_new(&self, path: &Path) -> Result<(), SnapshotError> {
        self.save_as(path, false)
    }

    fn save_as(&self, path: &Path, replace: bool) -> Result<(), SnapshotError> {
        // Unique per save, so concurrent saves (threads of one process too) never share one.
        static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        if !self.is_quiet() {
            return Err(SnapshotError::Busy);
        }
        let io = |source| SnapshotError::Io { path: path.display().to_string(), source };
        let header = Header {
            profile_name: self.config.name.clone(),
            profile_toml: self.config.profile_toml.clone(),
            lba_format: self.config.namespace.current,
            host: HostCounters {
                suspensions_before_restore: self.counters().suspensions,
                power_on_ns_before_restore: self.counters.power_on_ns_before_restore + self.now.as_ns(),
                ..self.counters
            },
            host_units_admitted: self.host_units_admitted,
            ftl: self.ftl.export_state(),
            verify: self.verifier.is_some(),
            verify_next_version: self.verifier.as_ref().map_or(0, |v| v.next_version),
            block_wear: true,
            thermal: self.thermal.totals,
            media_errors: self.media.state(),
            zones: self.zones.clone(),
        };
        let header = serde_json::to_vec(&header).expect("the header serialises");
        // Written beside the target and renamed over it once complete and on disk, so a
        // failed save (a full disk, a crash) leaves any earlier state whole.
        if path.exists() && !std::fs::metadata(path).map_err(io)?.is_file() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a regular file (a device, FIFO or directory): a state is saved only to a file",
            )));
        }
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = path.file_name().map_or_else(|| "state".into(), |n| n.to_string_lossy().into_owned());
        let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        let written = self.write_state(&tmp, &header);
        // Renaming replaces atomically; linking creates only where nothing is (then the
        // temporary name goes).
        let placed =
            written.and_then(|()| if replace { std::fs::rename(&tmp, path) } else { std::fs::hard_link(&tmp, path) });
        std::fs::remove_file(&tmp).ok();
        placed.map_err(io)
    }

    /// Writes the state to `path` and syncs it to disk.
    fn write_state(&self, path: &Path, header: &[u8]) -> std::io::Result<()> {
        let file = File::create(path)?;
        let mut out = BufWriter::new(file.try_clone()?);
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        let checked = lz4_flex::frame::FrameInfo::new().block_checksums(true).content_checksum(true);
        let mut frame = lz4_flex::frame::FrameEncoder::with_frame_info(checked, out);
        frame.write_all(&(header.len() as u64).to_le_bytes())?;
        frame.write_all(header)?;
        let mut delta_from = 0;
        let mut result = Ok(());
        self.ftl.map.for_each_stored_chunk(|low, high| {
            if result.is_ok() {
                result = write_u32s(&mut frame, low, Some(&mut delta_from))
                    .and_then(|()| high.map_or(Ok(()), |h| frame.write_all(h)));
            }
        });
        result?;
        if let (Some(tags), Some(v)) = (self.ftl.tags(), self.verifier.as_ref()) {
            write_u32s(&mut frame, tags, None)?;
            write_u32s(&mut frame, &v.expected, None)?;
        }
        let (slc, native) = self.ftl.wear.erase_arrays();
        write_u32s(&mut frame, slc, None)?;
        write_u32s(&mut frame, native, None)?;
        let mut out = frame.finish().map_err(std::io::Error::other)?;
        out.flush()?;
        file.sync_all()
    }

    /// Reads a state written by [`Ssd::save`].
    pub fn load(path: &Path) -> Result<Ssd, SnapshotError> {
        Self::load_within(path, None)
    }

    /// [`Ssd::load`] that refuses ([`SnapshotError::TooLarge`]) a drive whose model would
    /// take more than `max_memory_bytes`, judged from the header before anything is allocated.
    pub fn load_within(path: &Path, max_memory_bytes: Option<u64>) -> Result<Ssd, SnapshotError> {
        let name = path.display().to_string();
        let io = |source| SnapshotError::Io { path: name.clone(), source };
        let corrupt = |problem: &str| SnapshotError::Corrupt { path: name.clone(), problem: problem.to_string() };
        if !std::fs::metadata(path).map_err(io)?.is_file() {
            return Err(corrupt("not a regular file (a FIFO, device or directory), so not an ssdtwin state file"));
        }
        let mut input = BufReader::new(File::open(path).map_err(io)?);
        let mut magic = [0u8; 8];
        input.read_exact(&mut magic).map_err(|_| corrupt("not an ssdtwin state file (too short)"))?;
        if &magic != MAGIC {
            return Err(corrupt("not an ssdtwin state file (bad magic)"));
        }
        let mut word = [0u8; 4];
        input.read_exact(&mut word).map_err(io)?;
        let version = u32::from_le_bytes(word);
        if version != VERSION {
            return Err(corrupt(&format!("state format version {version}; this ssdtwin reads version {VERSION}")));
        }
        let damaged = |e: std::io::Error| {
            corrupt(&format!("damaged or truncated ({e}); it cannot be loaded, save the drive again"))
        };
        let mut input = lz4_flex::frame::FrameDecoder::new(input);
        let mut len = [0u8; 8];
        input.read_exact(&mut len).map_err(damaged)?;
        let len = u64::from_le_bytes(len);
        if len > MAX_HEADER_BYTES {
            return Err(corrupt("header length is implausible"));
        }
        // Grown as the bytes arrive, not allocated from the length a file claims.
        let mut header = Vec::new();
        (&mut input).take(len).read_to_end(&mut header).map_err(damaged)?;
        if header.len() as u64 != len {
            return Err(corrupt("damaged or truncated (the header ends early); save the drive again"));
        }
        let header: Header = serde_json::from_slice(&header).map_err(|e| corrupt(&format!("header: {e}")))?;
        let loaded =
            LoadedProfile::from_str(&header.profile_toml, &format!("{name} (stored profile)"), &header.profile_name)
                .map_err(|source| SnapshotError::Profile { path: name.clone(), source })?;
        let config = build(&loaded).map_err(|source| SnapshotError::Profile { path: name.clone(), source })?;
        let needed = crate::config::model_memory_bytes(&config, header.verify);
        if let Some(limit) = max_memory_bytes.filter(|&limit| needed > limit) {
            return Err(SnapshotError::TooLarge { path: name.clone(), needed, limit });
        }
        if !crate::engine::can_map(needed) {
            return Err(SnapshotError::CannotMap { path: name.clone(), needed });
        }
        let mut device = Ssd::with_verify(config, header.verify);
        if header.lba_format >= device.config.namespace.formats.len() {
            return Err(corrupt("LBA format index out of range"));
        }
        device.config.namespace.current = header.lba_format;
        let lba_bytes = device.config.namespace.formats.iter().map(|f| u64::from(f.data_bytes)).min().unwrap_or(512);
        if let Some(why) = header.impossibility(lba_bytes) {
            return Err(corrupt(&format!("corrupt state: {why}")));
        }
        let mut delta_from = 0;
        device
            .ftl
            .restore_l2p(|low, high| {
                read_u32s_into(&mut input, low, Some(&mut delta_from))?;
                high.map_or(Ok(()), |h| input.read_exact(h))
            })
            .map_err(damaged)?;
        let tags = if header.verify {
            let physical = device.config.geometry.total_units() as usize;
            let tags = read_u32s(&mut input, physical, None).map_err(damaged)?;
            let expected = read_u32s(&mut input, device.ftl.logical_units() as usize, None).map_err(damaged)?;
            let mut v = Verifier::new(device.ftl.logical_units());
            v.expected = expected;
            v.next_version = header.verify_next_version;
            device.verifier = Some(v);
            Some(tags)
        } else {
            None
        };
        let block_erases = if header.block_wear {
            let blocks = device.ftl.wear.block_count();
            let slc = read_u32s(&mut input, blocks, None).map_err(damaged)?;
            let native = read_u32s(&mut input, blocks, None).map_err(damaged)?;
            Some((slc, native))
        } else {
            None
        };
        // Reading to the end of the frame checks its content checksum; nothing may follow.
        // One byte is enough to tell, so a file that decompresses to far more than a state
        // is refused without being buffered.
        let mut probe = [0u8; 1];
        let rest = input.read(&mut probe).map_err(damaged)?;
        let tail = input.into_inner().read(&mut probe).map_err(io)?;
        if rest != 0 || tail != 0 {
            return Err(corrupt("damaged: data after the end of the state"));
        }
        // The checksum cannot catch a crafted file: its content must hold together too.
        if device.zones.is_some() {
            // A zoned drive may have opened frontiers beyond its active zones.
            device.ftl.ensure_handles(header.ftl.handles());
        }
        device.ftl.import_state(header.ftl, tags, block_erases).map_err(|e| corrupt(&format!("corrupt state: {e}")))?;
        device.counters = header.host;
        // Loading powers the drive on: one more power cycle (a state saved before they were
        // counted had been powered on once).
        device.counters.power_cycles = header.host.power_cycles.max(1) + 1;
        device.thermal.totals = header.thermal;
        device.media = MediaErrors::restore(device.config.endurance.seed, header.media_errors);
        device.host_units_admitted = header.host_units_admitted;
        device.zones = restored_zones(device.zone_config(), header.zones).map_err(corrupt)?;
        device.rebuild_map_cache();
        Ok(device)
    }
}

/// A saved state's zones under the profile's zone configuration.
fn restored_zones(
    config: Option<crate::block::ZoneConfig>,
    saved: Option<crate::block::Zones>,
) -> Result<Option<crate::block::Zones>, &'static str> {
    match (config, saved) {
        (None, None) => Ok(None),
        (Some(config), Some(zones)) => {
            zones.restored(config).map(Some).ok_or("corrupt state: its zones do not fit the profile's")
        }
        _ => Err("corrupt state: zoned or not, it differs from its profile"),
    }
}

impl Header {
    /// Why the header's counters and histories cannot have come from any drive, if they
    /// cannot (`lba_bytes`: the smallest LBA its namespace has had).
    fn impossibility(&self, lba_bytes: u64) -> Option<String> {
        if let Some(why) = self.host.impossibility(lba_bytes) {
            return Some(format!("counters that no run makes ({why})"));
        }
        if !self.thermal.energy_j.is_finite() || !self.thermal.max_temperature_k.is_finite() {
            return Some("the thermal history is not a finite number".into());
        }
        let hazard = self.media_errors.hazard;
        (!hazard.is_finite() || hazard < 0.0)
            .then(|| "the media-error hazard is not a finite, non-negative number".into())
    }
}

/// The largest header a state may claim: its JSON holds the profile, the FTL's small
/// state and the counters, kilobytes to a few megabytes.
const MAX_HEADER_BYTES: u64 = 64 << 20;

/// Writes `values` little-endian; with `delta`, each as its difference from the one before,
/// starting from (and updating) the value it holds, so a sequence written in pieces reads
/// back as one.
fn write_u32s(out: &mut impl Write, values: &[u32], mut delta: Option<&mut u32>) -> std::io::Result<()> {
    let mut chunk = Vec::with_capacity(1 << 16);
    for block in values.chunks(1 << 14) {
        chunk.clear();
        for &v in block {
            let w = match delta.as_deref_mut() {
                Some(prev) => std::mem::replace(prev, v),
                None => 0,
            };
            chunk.extend_from_slice(&v.wrapping_sub(w).to_le_bytes());
        }
        out.write_all(&chunk)?;
    }
    Ok(())
}

/// Reads `n` values written by [`write_u32s`].
fn read_u32s(input: &mut impl Read, n: usize, delta: Option<&mut u32>) -> std::io::Result<Vec<u32>> {
    let mut values = vec![0; n];
    read_u32s_into(input, &mut values, delta)?;
    Ok(values)
}

/// Reads `values.len()` values written by [`write_u32s`] into `values`.
fn read_u32s_into(input: &mut impl Read, values: &mut [u32], mut delta: Option<&mut u32>) -> std::io::Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    for block in values.chunks_mut(buf.len() / 4) {
        let bytes = &mut buf[..block.len() * 4];
        input.read_exact(bytes)?;
        for (v, w) in block.iter_mut().zip(bytes.chunks_exact(4)) {
            let w = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            *v = match delta.as_deref_mut() {
                Some(prev) => {
                    *prev = prev.wrapping_add(w);
                    *prev
                }
                None => w,
            };
        }
    }
    Ok(())
}
