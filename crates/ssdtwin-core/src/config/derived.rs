//! Values a profile implies but does not state: capacities, superblock sizes, the map's size
//! and how much of it the controller can hold, and the bandwidths the NAND, its channels and
//! the link allow. `ssdtwin profiles show` prints them after the profile, so a user writing a
//! profile from a datasheet can check what it adds up to before running anything.

use super::DeviceConfig;
use crate::controller::map_cache::MapLocation;
use crate::nand::{CellMode, UNIT_BYTES};

/// Bytes of one L2P entry in the map (one per 4 KiB unit).
const MAP_ENTRY_BYTES: u64 = 4;

/// Bytes of host memory the model's big arrays take for a drive built from `c`, at most
/// (`ftl::PageMap`): 4 B per logical 4 KiB unit for the L2P, a quarter byte more on arrays
/// of 2³² physical units or more (its bits 32–33), 4 B per physical unit for the P2L, and
/// in verify mode 4 B more per logical and per physical unit for the data versions; plus
/// the per-superblock tables. Anonymous memory touched only as the drive is written: a
/// sequential fill touches the L2P alone, rewrites the P2L too.
#[must_use]
pub fn model_memory_bytes(c: &DeviceConfig, verify: bool) -> u64 {
    let logical = c.logical_units;
    let physical = c.geometry.total_units();
    let high_bits = if physical >= 1 << 32 { logical.div_ceil(4) } else { 0 };
    // State, mode, valid and erase counts, age, pending erases, runs, victim flags.
    let per_superblock = 64 * u64::from(c.geometry.superblocks());
    MAP_ENTRY_BYTES * logical
        + high_bits
        + 4 * physical
        + per_superblock
        + if verify { 4 * (logical + physical) } else { 0 }
}

/// The derived values of one built profile; every field carries its unit.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Derived {
    /// Namespace size in bytes and in LBAs of the format in use.
    pub namespace_bytes: u64,
    /// Logical blocks of the namespace.
    pub namespace_lbas: u64,
    /// Raw NAND bytes in the native cell mode.
    pub raw_bytes: u64,
    /// Raw bytes beyond the namespace, as a percentage of the namespace.
    pub spare_pct: f64,
    /// Dies (channels × dies per channel).
    pub dies: u32,
    /// Superblocks (one block of every plane of every die).
    pub superblocks: u32,
    /// Bytes of one superblock in the native mode.
    pub superblock_bytes: u64,
    /// Free superblocks under sustained writes: GC's foreground threshold, where host writes
    /// start to wait for GC (steady-state writes run at this working point).
    pub gc_working_superblocks: u32,
    /// Bytes of one superblock programmed one bit per cell.
    pub slc_superblock_bytes: u64,
    /// The static SLC cache in superblocks.
    pub slc_static_superblocks: u32,
    /// The dynamic SLC cache's largest size in superblocks.
    pub slc_dynamic_max_superblocks: u32,
    /// The largest SLC cache, static and dynamic together, in bytes of host data.
    pub slc_cache_max_bytes: u64,
    /// The L2P map: 4 bytes per 4 KiB unit of the namespace.
    pub map_bytes: u64,
    /// Map segments (translation pages) of the map.
    pub map_segments: u64,
    /// Bytes of map the controller holds itself (all of it with DRAM, its SRAM otherwise).
    pub map_controller_bytes: u64,
    /// Bytes of HMB the controller asks for (`hmpre`), when the map may use the HMB.
    pub map_hmb_requested_bytes: u64,
    /// Host memory the model's big arrays take for this drive, at most
    /// ([`model_memory_bytes`], without verify mode).
    pub model_memory_bytes: u64,
    /// Per-die read bandwidth of the native mode: one page per tR, bytes/s.
    pub die_read_bytes_per_sec: f64,
    /// Per-die program bandwidth of the native mode: one program unit (all planes) per tPROG.
    pub die_program_bytes_per_sec: f64,
    /// The same in SLC mode (0 without an SLC timing table).
    pub die_slc_program_bytes_per_sec: f64,
    /// One channel's transfer rate, bytes/s.
    pub channel_bytes_per_sec: f64,
    /// The array's read ceiling: every die reading, bounded by the channels.
    pub nand_read_bytes_per_sec: f64,
    /// The array's native-mode program ceiling, bounded by the channels.
    pub nand_program_bytes_per_sec: f64,
    /// The array's SLC-mode program ceiling, bounded by the channels.
    pub nand_slc_program_bytes_per_sec: f64,
    /// The host link's data rate, bytes/s.
    pub link_bytes_per_sec: f64,
}

impl Derived {
    /// Derives the values of a built configuration.
    #[must_use]
    pub fn of(c: &DeviceConfig) -> Self {
        let g = &c.geometry;
        let namespace_bytes = c.namespace.capacity_bytes;
        let superblock_bytes = u64::from(g.sb_units()) * UNIT_BYTES;
        let slc_superblock_bytes = u64::from(g.sb_units_in(CellMode::Slc)) * UNIT_BYTES;
        let units = c.logical_units;
        let map_segments = units.div_ceil(u64::from(c.map_cache.segment_entries.max(1)));
        let map_bytes = units * MAP_ENTRY_BYTES;
        let map_controller_bytes = match c.map_cache.location {
            MapLocation::Dram => map_bytes,
            MapLocation::Sram | MapLocation::Hmb => c.map_cache.sram_bytes.min(map_bytes),
        };
        let map_hmb_requested_bytes = match c.map_cache.location {
            MapLocation::Hmb => u64::from(c.identity.hmb.hmpre) * 4096,
            MapLocation::Dram | MapLocation::Sram => 0,
        };
        let per_sec = |bytes: f64, ns: u64| if ns == 0 { 0.0 } else { bytes * 1e9 / ns as f64 };
        let page = f64::from(g.page_bytes);
        let program_unit = page * f64::from(g.planes);
        let native = c.nand.cell[g.native.index()];
        let slc = c.nand.cell[CellMode::Slc.index()];
        let die_read = per_sec(page, native.t_read.as_ns());
        let die_program = per_sec(program_unit, native.t_prog.as_ns());
        let die_slc_program = per_sec(program_unit, slc.t_prog.as_ns());
        let channel = c.nand.channel_bytes_per_sec as f64;
        let dies = f64::from(g.dies());
        let channels = channel * f64::from(g.channels);
        let slc = &c.slc;
        Self {
            namespace_bytes,
            namespace_lbas: namespace_bytes / c.namespace.lba_bytes(),
            raw_bytes: g.raw_bytes(),
            spare_pct: (g.raw_bytes() as f64 - namespace_bytes as f64) / namespace_bytes as f64 * 100.0,
            dies: g.dies(),
            superblocks: g.superblocks(),
            superblock_bytes,
            gc_working_superblocks: c.gc.fg_threshold_sb,
            slc_superblock_bytes,
            slc_static_superblocks: slc.static_sb,
            slc_dynamic_max_superblocks: slc.dynamic_max_sb,
            slc_cache_max_bytes: u64::from(slc.static_sb + slc.dynamic_max_sb) * slc_superblock_bytes,
            map_bytes,
            map_segments,
            map_controller_bytes,
            map_hmb_requested_bytes,
            model_memory_bytes: model_memory_bytes(c, false),
            die_read_bytes_per_sec: die_read,
            die_program_bytes_per_sec: die_program,
            die_slc_program_bytes_per_sec: die_slc_program,
            channel_bytes_per_sec: channel,
            nand_read_bytes_per_sec: (die_read * dies).min(channels),
            nand_program_bytes_per_sec: (die_program * dies).min(channels),
            nand_slc_program_bytes_per_sec: (die_slc_program * dies).min(channels),
            link_bytes_per_sec: c.link.bytes_per_sec as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{build, load_profile};

    #[test]
    fn the_generic_drive_adds_up() {
        let c = build(&load_profile("generic-tlc-1tb").unwrap()).unwrap();
        let d = Derived::of(&c);
        let g = &c.geometry;
        assert_eq!(d.superblock_bytes * u64::from(d.superblocks), d.raw_bytes);
        assert_eq!(d.slc_superblock_bytes * u64::from(g.native.bits()), d.superblock_bytes);
        assert_eq!(d.map_bytes, d.namespace_bytes.div_ceil(4096) * 4);
        assert!(d.spare_pct > 0.0 && d.spare_pct < 100.0, "{}", d.spare_pct);
        // 16 KiB pages: the die reads one page per tR and programs every plane per tPROG.
        let tr_ns = c.nand.cell[g.native.index()].t_read.as_ns() as f64;
        assert!((d.die_read_bytes_per_sec - 16384.0 * 1e9 / tr_ns).abs() < 1.0);
        assert!(d.nand_read_bytes_per_sec <= d.channel_bytes_per_sec * f64::from(g.channels));
        assert!(d.nand_read_bytes_per_sec <= d.die_read_bytes_per_sec * f64::from(d.dies) + 1.0);
    }

    #[test]
    fn a_dram_less_drive_holds_its_sram_share_of_the_map() {
        let c = build(&load_profile("p32a80").unwrap()).unwrap();
        let d = Derived::of(&c);
        assert_eq!(d.map_controller_bytes, c.map_cache.sram_bytes);
        assert_eq!(d.map_hmb_requested_bytes, 61440 * 4096);
        assert!(d.map_controller_bytes < d.map_bytes);
    }
}
