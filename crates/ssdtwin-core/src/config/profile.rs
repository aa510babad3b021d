//! The profile file as written: TOML sections mirroring `docs/profiles.md`.
//!
//! These structs only describe the file; [`super::build`] checks every value and derives the
//! validated [`super::DeviceConfig`]. Unknown fields are errors (`deny_unknown_fields`), so a
//! typo never silently falls back to a default. Every field carries its unit in its name.

use serde::{Deserialize, Serialize};

/// A whole profile.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Identity and NVMe identify fields.
    pub identity: IdentitySection,
    /// PCIe link and NVMe queues.
    pub link: LinkSection,
    /// Firmware cores, write buffer.
    pub controller: ControllerSection,
    /// Where the L2P map lives.
    #[serde(default)]
    pub map_cache: MapCacheSection,
    /// NAND geometry and timing.
    pub nand: NandSection,
    /// Over-provisioning and GC.
    #[serde(default)]
    pub ftl: FtlSection,
    /// Namespace LBA formats.
    #[serde(default)]
    pub namespace: NamespaceSection,
    /// SLC cache and folding (absent: no cache).
    pub slc_cache: Option<SlcCacheSection>,
    /// Flexible Data Placement (absent: the drive has none).
    #[serde(default)]
    pub fdp: Option<FdpSection>,
    /// Zoned Namespace (absent: a conventional namespace).
    #[serde(default)]
    pub zns: Option<ZnsSection>,
    /// How the host sees the device, where it is not one NVMe namespace on the in-box
    /// driver (absent: it is).
    #[serde(default)]
    pub host_interface: Option<HostInterfaceSection>,
    /// Rated endurance, spare blocks and block wear-out.
    #[serde(default)]
    pub endurance: EnduranceSection,
    /// Power drawn by each kind of activity.
    #[serde(default)]
    pub power: PowerSection,
    /// The thermal model and throttling.
    #[serde(default)]
    pub thermal: ThermalSection,
}

/// `[host_interface]`: the host driver a device needs, how many devices a card shows, and
/// host memory the driver keeps.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostInterfaceSection {
    /// The block driver the host runs for it: a host profile's `[drivers.NAME]` gives its
    /// CPU costs (a host without that section uses its `[block]` costs).
    pub driver: String,
    /// Identical devices (LUNs) the card shows the host, each described by this profile.
    #[serde(default = "one_lun")]
    pub luns: u32,
    /// Host DRAM the driver keeps per GiB of the device's capacity (a host-side FTL's
    /// tables), MiB.
    #[serde(default)]
    pub host_memory_mib_per_gib: f64,
}

fn one_lun() -> u32 {
    1
}

/// `[identity]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IdentitySection {
    /// Model number (`mn`), up to 40 characters.
    pub model: String,
    /// Serial number (`sn`), up to 20 characters.
    #[serde(default = "default_serial")]
    pub serial: String,
    /// Firmware revision (`fr`), up to 8 characters.
    #[serde(default = "default_firmware")]
    pub firmware: String,
    /// PCI vendor ID (`vid`).
    #[serde(default)]
    pub pci_vendor_id: u16,
    /// PCI subsystem vendor ID (`ssvid`).
    #[serde(default)]
    pub pci_subsystem_vendor_id: u16,
    /// IEEE OUI (`ieee`), 24 bits.
    #[serde(default)]
    pub ieee_oui: u32,
    /// NVMe version as "major.minor[.tertiary]": major 1 or 2, minor and tertiary 0 to 9.
    #[serde(default = "default_nvme_version")]
    pub nvme_version: String,
    /// Maximum data transfer size (`mdts`): log2 of 4 KiB pages; 0 = no limit.
    #[serde(default)]
    pub mdts: u8,
    /// Host Memory Buffer preferred size (`hmpre`), 4 KiB units; 0 = no HMB.
    #[serde(default)]
    pub hmpre: u32,
    /// Host Memory Buffer minimum size (`hmmin`), 4 KiB units.
    #[serde(default)]
    pub hmmin: u32,
    /// HMB minimum descriptor entry size (`hmminds`), 4 KiB units; 0 = no limit.
    #[serde(default)]
    pub hmminds: u32,
    /// HMB maximum descriptor entries (`hmmaxd`); 0 = no limit.
    #[serde(default)]
    pub hmmaxd: u16,
    /// Warning Composite Temperature Threshold (`wctemp`), kelvin: at and above it the
    /// drive throttles heavily and counts Warning Composite Temperature Time (default 343,
    /// 70 °C).
    #[serde(default)]
    pub wctemp_kelvin: Option<u16>,
    /// Critical Composite Temperature Threshold (`cctemp`), kelvin: at and above it the
    /// drive throttles to its critical budget (default 358, 85 °C).
    #[serde(default)]
    pub cctemp_kelvin: Option<u16>,
    /// Power state descriptors (`psd`), state 0 first, at most 32. State 0 is where I/O
    /// runs; non-operational states are where APST takes an idle drive, drawing their
    /// maximum power. Empty: one operational state of 6 W.
    #[serde(default)]
    pub power_states: Vec<PowerStateSection>,
    /// Namespace size in bytes (what the host sees). Give this or
    /// `ftl.overprovisioning_pct`, not both.
    pub capacity_bytes: Option<u64>,
    /// Free text: where the numbers in this profile come from.
    #[serde(default)]
    pub sources: Vec<String>,
}

fn default_serial() -> String {
    "SSDTWIN00000001".into()
}
fn default_firmware() -> String {
    "1.0".into()
}
fn default_nvme_version() -> String {
    "1.3".into()
}

/// One `[[identity.power_states]]` entry: an Identify Controller power state descriptor.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PowerStateSection {
    /// Maximum power (`mp`), milliwatts: up to 6553 in 1 mW steps, up to 655350 in 10 mW steps
    /// (the two scales of the 16-bit field, 0.0001 W and 0.01 W).
    pub max_power_mw: u32,
    /// A non-operational state (`nops`): no I/O is processed in it.
    #[serde(default)]
    pub non_operational: bool,
    /// Entry latency (`enlat`), microseconds.
    #[serde(default)]
    pub entry_latency_us: u32,
    /// Exit latency (`exlat`), microseconds.
    #[serde(default)]
    pub exit_latency_us: u32,
}

/// `[link]`: the PCIe link and the device's own per-command link costs. What the host's
/// software spends per command is the host profile's (`profiles/hosts/`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSection {
    /// `"pcie"` (NVMe) or `"sata"` (AHCI with NCQ).
    #[serde(default)]
    pub transport: Transport,
    /// PCIe generation, 1 to 6 (PCIe only; required there).
    #[serde(default)]
    pub pcie_gen: Option<u32>,
    /// PCIe lanes: 1, 2, 4, 8 or 16 (PCIe only; required there).
    #[serde(default)]
    pub pcie_lanes: Option<u32>,
    /// SATA generation, 1 to 3 (1.5, 3 or 6 Gb/s; SATA only, default 3).
    #[serde(default)]
    pub sata_gen: Option<u32>,
    /// Maximum TLP payload (MPS), bytes: 128 to 4096, a power of two.
    #[serde(default = "default_mps")]
    pub max_payload_bytes: u32,
    /// Framing, sequence number, header and LCRC bytes per TLP.
    #[serde(default = "default_tlp_overhead")]
    pub tlp_overhead_bytes: u32,
    /// Time for the controller to fetch a submission queue entry over the link after the
    /// doorbell.
    #[serde(default = "default_fetch_ns")]
    pub command_fetch_ns: u64,
    /// Time to write the completion entry into host memory and signal it (MSI-X).
    #[serde(default = "default_completion_post_ns")]
    pub completion_post_ns: u64,
    /// I/O queue pairs the controller supports.
    #[serde(default = "default_queues")]
    pub io_queues: u32,
    /// Entries per I/O queue (one is always left empty, as NVMe requires).
    #[serde(default = "default_queue_depth")]
    pub queue_depth: u32,
}

/// The bus between host and drive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// PCIe: NVMe's queues over TLPs.
    #[default]
    Pcie,
    /// SATA: one AHCI command list of 32 NCQ slots, data in FIS of at most 8 KiB.
    Sata,
}

fn default_mps() -> u32 {
    256
}
fn default_tlp_overhead() -> u32 {
    26
}
fn default_fetch_ns() -> u64 {
    700
}
fn default_completion_post_ns() -> u64 {
    400
}
fn default_queues() -> u32 {
    64
}
fn default_queue_depth() -> u32 {
    1024
}

/// `[controller]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSection {
    /// Firmware cores that process commands.
    pub cores: u32,
    /// Firmware time per read command.
    pub read_cmd_ns: u64,
    /// Firmware time per write command.
    pub write_cmd_ns: u64,
    /// Firmware time per 4 KiB map unit a command touches (map lookup or update, DMA setup).
    #[serde(default)]
    pub unit_ns: u64,
    /// Firmware time per 4 KiB map unit deallocated by TRIM.
    #[serde(default)]
    pub trim_unit_ns: u64,
    /// Write buffer (DRAM or SRAM) that holds written data until it is programmed, MiB.
    pub write_buffer_mib: f64,
    /// True if a capacitor bank lets the buffer survive power loss (writes are durable
    /// when acknowledged; flush is free).
    #[serde(default)]
    pub power_protected: bool,
    /// Coefficient of variation of the firmware time per command (log-normal, mean the
    /// profile's `*_cmd_ns`), 0 to 2.
    #[serde(default)]
    pub cmd_cv: f64,
}

/// `[map_cache]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MapCacheSection {
    /// Where the map lives: "dram" (whole map), "sram" (controller SRAM only), "hmb" (SRAM
    /// plus the Host Memory Buffer).
    #[serde(default = "default_map_location")]
    pub location: String,
    /// Bytes per map segment (translation page); entries are 4 bytes.
    #[serde(default = "default_segment_bytes")]
    pub segment_bytes: u32,
    /// Controller SRAM holding map segments, KiB.
    #[serde(default)]
    pub sram_kib: u32,
    /// Replacement policy of each tier: "lru" or "clock".
    #[serde(default = "default_replacement")]
    pub replacement: String,
    /// "clean-only" (dirty entries journaled in SRAM) or "dirty-in-hmb".
    #[serde(default = "default_dirty_policy")]
    pub dirty_policy: String,
    /// Translation-page loads in flight at once.
    #[serde(default = "default_max_map_loads")]
    pub max_map_loads: u32,
    /// Cell mode of map blocks: "slc" (usual) or any mode with no more bits per cell than
    /// the native one, whose timing table is given.
    #[serde(default = "default_map_cell")]
    pub map_cell: String,
    /// Firmware time per map load: locate the page, issue the read, parse, insert, evict.
    #[serde(default)]
    pub map_load_fw_ns: u64,
    /// Core time of a lookup that hits in HMB while the map is partly resident (hashed
    /// search: several PCIe round trips).
    #[serde(default)]
    pub hmb_lookup_ns: u64,
    /// Core time of a lookup in a fully resident HMB map (one direct read over PCIe).
    #[serde(default)]
    pub hmb_direct_lookup_ns: u64,
    /// Bytes read over the link per HMB lookup.
    #[serde(default = "default_hmb_access_bytes")]
    pub hmb_access_bytes: u32,
    /// Extra firmware time per read while the map is partly resident (search, eviction).
    #[serde(default)]
    pub partial_map_cmd_ns: u64,
    /// Map updates per journal page written back (clean-only).
    #[serde(default = "default_journal_entries")]
    pub journal_entries: u32,
    /// Share of the granted HMB used for map segments, 0–1.
    #[serde(default = "default_hmb_map_share")]
    pub hmb_map_share: f64,
    /// How long an HMB copy of a segment stays valid under `clean-only`: "write-through"
    /// (writes update it over PCIe) or "journal-epoch" (until the SRAM journal's next page
    /// is written: reads check the journal for newer entries, so copies older than it are
    /// dropped).
    #[serde(default = "default_hmb_validity")]
    pub hmb_validity: String,
    /// Core time to copy a segment down into the HMB (DMA set-up, index insert), ns.
    #[serde(default)]
    pub hmb_fill_ns: u64,
    /// SRAM that holds segments built by writes (segments with no mapping need no load),
    /// KiB; used only while the controller has no HMB, whose index takes it otherwise.
    #[serde(default)]
    pub update_sram_kib: u32,
}

impl Default for MapCacheSection {
    fn default() -> Self {
        toml::from_str("").expect("every map_cache field has a default")
    }
}

fn default_map_location() -> String {
    "dram".into()
}
fn default_segment_bytes() -> u32 {
    4096
}
fn default_replacement() -> String {
    "lru".into()
}
fn default_dirty_policy() -> String {
    "clean-only".into()
}
fn default_max_map_loads() -> u32 {
    4
}
fn default_map_cell() -> String {
    "slc".into()
}
fn default_hmb_access_bytes() -> u32 {
    64
}
fn default_journal_entries() -> u32 {
    2048
}
fn default_hmb_map_share() -> f64 {
    1.0
}
fn default_hmb_validity() -> String {
    "write-through".into()
}

/// `[nand]` plus one timing table per cell mode used.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NandSection {
    /// Native cell mode: "slc", "mlc", "tlc" or "qlc".
    pub cell: String,
    /// Channels.
    pub channels: u32,
    /// Dies per channel.
    pub dies_per_channel: u32,
    /// Planes per die.
    pub planes: u32,
    /// Blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block in the native mode.
    pub pages_per_block: u32,
    /// User bytes per page, a multiple of 4096.
    #[serde(default = "default_page_bytes")]
    pub page_bytes: u32,
    /// Channel interface rate, mega-transfers per second (8-bit bus: MB/s).
    pub channel_mts: u32,
    /// Command and address cycles per channel transfer.
    #[serde(default)]
    pub channel_cmd_ns: u64,
    /// LDPC/BCH decode latency per read transfer.
    #[serde(default)]
    pub ecc_decode_ns: u64,
    /// "read-priority" or "fifo".
    #[serde(default = "default_scheduler")]
    pub scheduler: String,
    /// Which operations a read may suspend: "none", "program", "program-erase".
    #[serde(default = "default_suspend")]
    pub suspend: String,
    /// Latency of a suspend command, µs.
    #[serde(default)]
    pub suspend_us: f64,
    /// Extra time to resume, µs.
    #[serde(default)]
    pub resume_us: f64,
    /// Suspensions allowed per program or erase.
    #[serde(default = "default_max_suspends")]
    pub max_suspends: u8,
    /// Coefficient of variation of the dies' array times (process variation), 0 to 0.5.
    #[serde(default)]
    pub die_cv: f64,
    /// SLC-mode timing.
    pub slc: Option<CellTimingSection>,
    /// MLC timing.
    pub mlc: Option<CellTimingSection>,
    /// TLC timing.
    pub tlc: Option<CellTimingSection>,
    /// QLC timing.
    pub qlc: Option<CellTimingSection>,
}

fn default_page_bytes() -> u32 {
    16384
}
fn default_scheduler() -> String {
    "read-priority".into()
}
fn default_suspend() -> String {
    "none".into()
}
fn default_max_suspends() -> u8 {
    4
}

/// `[nand.<mode>]`
#[derive(Clone, Copy, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CellTimingSection {
    /// Page read time tR, µs.
    pub t_read_us: f64,
    /// Multi-plane page program time tPROG, µs.
    pub t_prog_us: f64,
    /// Block erase time tBERS, µs.
    pub t_erase_us: f64,
    /// How far the slowest page type's tR lies above `t_read_us` and the fastest's below
    /// it, µs (0: every page type reads in `t_read_us`).
    #[serde(default)]
    pub t_read_spread_us: f64,
    /// How far the slowest page type's tPROG lies above `t_prog_us` and the fastest's below
    /// it, µs (0: every page type programs in `t_prog_us`, as 3D NAND's one-shot programs do).
    #[serde(default)]
    pub t_prog_spread_us: f64,
}

/// `[ftl]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FtlSection {
    /// Share of the raw NAND kept from the host, percent (0 ≤ x < 100). Give this or
    /// `identity.capacity_bytes`, not both.
    pub overprovisioning_pct: Option<f64>,
    /// "greedy" or "cost-benefit".
    #[serde(default = "default_gc_policy")]
    pub gc_policy: String,
    /// Start background GC below this many free superblocks.
    #[serde(default = "default_gc_bg")]
    pub gc_bg_threshold_sb: u32,
    /// Hold host writes at or below this many free superblocks (at least 2).
    #[serde(default = "default_gc_fg")]
    pub gc_fg_threshold_sb: u32,
    /// Wear levelling: "fifo" (free superblocks in the order freed), "dynamic" (the least
    /// worn opens first) or "static" (dynamic, and cold data moves off young blocks).
    #[serde(default = "default_wear_levelling")]
    pub wear_levelling: String,
    /// Static wear levelling moves cold data once the most-worn superblock has this many
    /// more native-mode P/E cycles than the least-worn one holding data.
    #[serde(default = "default_static_wl_spread")]
    pub static_wl_spread_cycles: u32,
}

impl Default for FtlSection {
    fn default() -> Self {
        toml::from_str("").expect("every ftl field has a default")
    }
}

fn default_wear_levelling() -> String {
    "dynamic".into()
}
fn default_static_wl_spread() -> u32 {
    100
}

fn default_gc_policy() -> String {
    "greedy".into()
}
fn default_gc_bg() -> u32 {
    6
}
fn default_gc_fg() -> u32 {
    3
}

/// `[namespace]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NamespaceSection {
    /// LBA formats the namespace supports (Identify Namespace `lbaf`).
    #[serde(default = "default_lba_formats")]
    pub lba_formats: Vec<LbaFormatSection>,
    /// Index of the format in use.
    #[serde(default)]
    pub current_format: usize,
}

impl Default for NamespaceSection {
    fn default() -> Self {
        NamespaceSection { lba_formats: default_lba_formats(), current_format: 0 }
    }
}

fn default_lba_formats() -> Vec<LbaFormatSection> {
    vec![LbaFormatSection { data_bytes: 512, metadata_bytes: 0, relative_performance: 0 }]
}

/// One `[[namespace.lba_formats]]` entry.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LbaFormatSection {
    /// LBA data size, bytes: a power of two from 512.
    pub data_bytes: u32,
    /// Metadata bytes per LBA.
    #[serde(default)]
    pub metadata_bytes: u32,
    /// Advertised Relative Performance: 0 Best, 1 Better, 2 Good, 3 Degraded.
    #[serde(default)]
    pub relative_performance: u8,
}

/// `[fdp]`: Flexible Data Placement (NVMe TP4146): one reclaim group, reclaim units of one
/// superblock, and the reclaim unit handles the host places writes on.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FdpSection {
    /// Reclaim groups (one: every reclaim unit spans every die).
    #[serde(default = "one_u16")]
    pub reclaim_groups: u16,
    /// Reclaim unit handles (placement handles).
    pub handles: u16,
    /// What GC does with a handle's data: "initially-isolated" (may mix it with other
    /// handles') or "persistently-isolated" (keeps it apart).
    #[serde(default = "default_handle_type")]
    pub handle_type: String,
}

/// `[zns]`: the namespace is zoned (NVMe Zoned Namespace Command Set): each zone's
/// writable capacity is one superblock, written in order; the namespace holds
/// `identity.capacity_bytes / zone capacity` zones.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ZnsSection {
    /// Most zones open at once (MOR + 1).
    pub max_open: u32,
    /// Most zones active (open or closed) at once (MAR + 1).
    pub max_active: u32,
}

fn one_u16() -> u16 {
    1
}

fn default_handle_type() -> String {
    "initially-isolated".into()
}

/// `[slc_cache]`
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SlcCacheSection {
    /// SLC capacity always available (static part), GiB of data.
    #[serde(default)]
    pub static_gib: f64,
    /// Most SLC capacity borrowed from free space (dynamic part), GiB of data.
    #[serde(default)]
    pub dynamic_max_gib: f64,
    /// The dynamic part is used only while more than this share of superblocks is free,
    /// percent.
    #[serde(default)]
    pub dynamic_min_free_pct: f64,
    /// When the cache is full: "direct" (write native) or "fold" (wait for folding).
    #[serde(default = "default_when_full")]
    pub when_full: String,
    /// Start folding when this much data is cached, GiB (absent: only when idle, on reads,
    /// or when writes wait for space).
    pub fold_high_gib: Option<f64>,
    /// A folding session stops at this much cached data, GiB, unless writes still wait for
    /// space.
    #[serde(default)]
    pub fold_low_gib: f64,
    /// Fold after the host has been idle this long, ms (absent: never on idle).
    pub fold_idle_ms: Option<f64>,
    /// A session the idle timer starts folds down to this much cached data, GiB (absent:
    /// `fold_low_gib`, as any other session).
    pub fold_idle_low_gib: Option<f64>,
    /// A host read starts folding while data is cached.
    #[serde(default)]
    pub fold_on_read: bool,
    /// How fold programs share a die: "background" (they start only when no read, other
    /// program or erase waits on the die) or "host" (they queue with host and GC programs).
    #[serde(default = "default_fold_priority")]
    pub fold_priority: String,
    /// While at least this much data is cached, GiB, fold programs are urgent: they queue
    /// with host programs and reads never suspend them (absent: never urgent).
    pub fold_urgent_gib: Option<f64>,
}

fn default_when_full() -> String {
    "direct".into()
}

fn default_fold_priority() -> String {
    "background".into()
}

/// `[endurance]`: how long the NAND lasts and what the drive rates itself for. Every field
/// is optional: the P/E ratings default to typical figures for the cell mode
/// (`docs/profiles.md`), and without a rated TBW the endurance study reports none.
#[derive(Clone, Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EnduranceSection {
    /// Rated program/erase cycles of a block programmed one bit per cell: native SLC NAND,
    /// or the SLC mode of an MLC, TLC or QLC die (the SLC cache's blocks).
    pub slc_pe_cycles: Option<u32>,
    /// Rated P/E cycles of MLC-mode blocks.
    pub mlc_pe_cycles: Option<u32>,
    /// Rated P/E cycles of TLC-mode blocks.
    pub tlc_pe_cycles: Option<u32>,
    /// Rated P/E cycles of QLC-mode blocks.
    pub qlc_pe_cycles: Option<u32>,
    /// Spare blocks in every plane beyond the superblock slots (`nand.blocks_per_plane`),
    /// used to replace blocks that wear out.
    #[serde(default)]
    pub spare_blocks_per_plane: u32,
    /// Standard deviation of a block's endurance around its rating, percent.
    pub block_spread_pct: Option<f64>,
    /// Available Spare Threshold reported in SMART, percent.
    pub available_spare_threshold_pct: Option<u8>,
    /// Rated endurance: terabytes (10^12 bytes) the host may write (the datasheet's TBW;
    /// where it gives several, the random-write one).
    pub rated_tb_written: Option<f64>,
    /// The datasheet's TBW for sequential writes, where it gives one.
    pub rated_tb_written_sequential: Option<f64>,
    /// Rated drive writes per day over the warranty.
    pub rated_dwpd: Option<f64>,
    /// Warranty, years.
    pub warranty_years: Option<f64>,
    /// Uncorrectable bit errors per bit read once a block has used its rated P/E cycles (the
    /// UBER a datasheet states; JEDEC JESD218 requires at most 1e-15 of client drives and
    /// 1e-16 of enterprise ones).
    pub uber_per_bit: Option<f64>,
    /// Wear, percent of the rated P/E cycles, over which the UBER grows tenfold.
    pub uber_tenfold_pct: Option<f64>,
    /// Share of reads of a fresh block that fail hard-decision decoding and retry with
    /// shifted read levels (0: never).
    pub read_retry_fresh: Option<f64>,
    /// The same at the rated P/E cycles (grows geometrically with the life used).
    pub read_retry_rated: Option<f64>,
    /// Chance that a retry needs yet another step.
    pub read_retry_again: Option<f64>,
}

/// `[power]`: what each kind of activity draws. Defaults are typical of a consumer NVMe drive
/// (`docs/profiles.md`).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PowerSection {
    /// The whole drive idle in power state 0 (controller, DRAM, NAND standby), W.
    #[serde(default = "default_idle_w")]
    pub idle_w: f64,
    /// One die reading, on top of idle, W.
    #[serde(default = "default_die_read_w")]
    pub die_read_w: f64,
    /// One die programming, W.
    #[serde(default = "default_die_program_w")]
    pub die_program_w: f64,
    /// One die erasing, W.
    #[serde(default = "default_die_erase_w")]
    pub die_erase_w: f64,
    /// One link direction transferring, W.
    #[serde(default = "default_link_w")]
    pub link_w: f64,
}

impl Default for PowerSection {
    fn default() -> Self {
        toml::from_str("").expect("every power field has a default")
    }
}

fn default_idle_w() -> f64 {
    1.5
}
fn default_die_read_w() -> f64 {
    0.08
}
fn default_die_program_w() -> f64 {
    0.1
}
fn default_die_erase_w() -> f64 {
    0.08
}
fn default_link_w() -> f64 {
    0.5
}

/// `[thermal]`: the lumped thermal model, its environment and the throttling thresholds.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ThermalSection {
    /// Air temperature around the drive, °C.
    #[serde(default = "default_ambient_c")]
    pub ambient_c: f64,
    /// Airflow over the drive, m/s (0: natural convection only).
    #[serde(default)]
    pub airflow_m_per_s: f64,
    /// Heat capacity of the drive (board, packages, case or heatsink), J/K.
    #[serde(default = "default_heat_capacity")]
    pub heat_capacity_j_per_k: f64,
    /// Thermal resistance from the drive to ambient air with no airflow, K/W.
    #[serde(default = "default_still_air")]
    pub still_air_k_per_w: f64,
    /// Airflow at which the conductance to ambient doubles, m/s (forced convection grows
    /// with the square root of the air speed).
    #[serde(default = "default_airflow_doubling")]
    pub airflow_doubling_m_per_s: f64,
    /// How far below a threshold the temperature must fall to leave its throttling level, K.
    #[serde(default = "default_hysteresis")]
    pub hysteresis_k: f64,
    /// How often the firmware reads its temperature sensor and revises throttling, ms.
    #[serde(default = "default_sensor_period")]
    pub sensor_period_ms: f64,
    /// Lowest HCTM threshold the controller accepts (MNTMT), kelvin; absent with
    /// `hctm_max_kelvin`: no Host Controlled Thermal Management.
    pub hctm_min_kelvin: Option<u16>,
    /// Highest HCTM threshold the controller accepts (MXTMT), kelvin.
    pub hctm_max_kelvin: Option<u16>,
    /// HCTM Thermal Management Temperature 1 the host set (light throttling), kelvin; 0 off.
    #[serde(default)]
    pub hctm_tmt1_kelvin: u16,
    /// HCTM Thermal Management Temperature 2 the host set (heavy throttling), kelvin; 0 off.
    #[serde(default)]
    pub hctm_tmt2_kelvin: u16,
    /// Power budget of light throttling, W (default: three quarters of the drive's most).
    pub throttle_light_w: Option<f64>,
    /// Power budget of heavy throttling, W (default: half the drive's most).
    pub throttle_heavy_w: Option<f64>,
    /// Power budget above CCTEMP, W (default: a quarter of the drive's most).
    pub throttle_critical_w: Option<f64>,
}

impl Default for ThermalSection {
    fn default() -> Self {
        toml::from_str("").expect("every thermal field has a default")
    }
}

fn default_ambient_c() -> f64 {
    25.0
}
fn default_heat_capacity() -> f64 {
    10.0
}
fn default_still_air() -> f64 {
    12.0
}
fn default_airflow_doubling() -> f64 {
    0.5
}
fn default_hysteresis() -> f64 {
    2.0
}
fn default_sensor_period() -> f64 {
    100.0
}
