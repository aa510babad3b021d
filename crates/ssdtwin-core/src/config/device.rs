//! The validated drive: [`DeviceConfig`] and the parts of it that are not another layer's
//! configuration (identity, rated endurance), with the defaults a profile may leave out.

use super::profile::PowerStateSection;
use crate::controller::ControllerConfig;
use crate::controller::map_cache::MapCacheConfig;
use crate::controller::thermal::ThermalConfig;
use crate::ftl::{Endurance, FdpConfig, GcConfig, SlcCacheConfig};
use crate::nand::{Geometry, NandTiming};
use crate::nvme::{HmbRequest, LinkConfig, Namespace, PowerStates};

/// Identity strings and NVMe identify values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    /// Model number.
    pub model: String,
    /// Serial number.
    pub serial: String,
    /// Firmware revision.
    pub firmware: String,
    /// PCI vendor ID.
    pub pci_vendor_id: u16,
    /// PCI subsystem vendor ID.
    pub pci_subsystem_vendor_id: u16,
    /// IEEE OUI.
    pub ieee_oui: u32,
    /// NVMe version as encoded in `ver` (major << 16 | minor << 8 | tertiary).
    pub nvme_version: u32,
    /// MDTS.
    pub mdts: u8,
    /// HMB request (hmpre, hmmin, hmminds, hmmaxd).
    pub hmb: HmbRequest,
    /// Warning composite temperature threshold, kelvin, if the profile gives one.
    pub wctemp_kelvin: Option<u16>,
    /// Critical composite temperature threshold, kelvin, if the profile gives one.
    pub cctemp_kelvin: Option<u16>,
    /// Power state descriptors as the profile gives them, state 0 first (empty: none
    /// given; [`DeviceConfig::power`] holds the states the model uses).
    pub power_states: Vec<PowerStateSection>,
}

/// A validated device description. Everything the device needs, in model units.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// Where the profile came from.
    pub source: String,
    /// Profile name.
    pub name: String,
    /// The resolved profile TOML (stored in snapshots).
    pub profile_toml: String,
    /// Identity.
    pub identity: Identity,
    /// NAND geometry.
    pub geometry: Geometry,
    /// NAND timing.
    pub nand: NandTiming,
    /// PCIe link and host costs.
    pub link: LinkConfig,
    /// Firmware and write buffer.
    pub controller: ControllerConfig,
    /// GC.
    pub gc: GcConfig,
    /// Map cache.
    pub map_cache: MapCacheConfig,
    /// SLC cache and folding.
    pub slc: SlcCacheConfig,
    /// Flexible Data Placement, if the drive has it.
    pub fdp: Option<FdpConfig>,
    /// A zoned namespace's limits, if the namespace is zoned.
    pub zns: Option<super::ZnsConfig>,
    /// Namespace formats and size.
    pub namespace: Namespace,
    /// Logical 4 KiB map units exposed.
    pub logical_units: u64,
    /// How the host sees the device, if not as one NVMe namespace on the in-box driver.
    pub host_interface: Option<crate::block::HostInterface>,
    /// Rated P/E cycles, spares, block wear-out and wear levelling.
    pub endurance: Endurance,
    /// What the datasheet rates the drive for (reported; the model wears by P/E cycles).
    pub rated: RatedEndurance,
    /// Power states (APST off until a host programs it).
    pub power: PowerStates,
    /// Power per activity, the thermal model and throttling.
    pub thermal: ThermalConfig,
    /// Whether the controller supports Host Controlled Thermal Management, and the range it
    /// accepts (MNTMT, MXTMT), kelvin.
    pub hctm_range_kelvin: Option<(u16, u16)>,
}

/// Warning Composite Temperature Threshold when the profile gives none, kelvin (70 °C, a
/// common consumer-drive value).
pub const DEFAULT_WCTEMP_KELVIN: u16 = 343;
/// Critical Composite Temperature Threshold when the profile gives none, kelvin (85 °C).
pub const DEFAULT_CCTEMP_KELVIN: u16 = 358;
/// The power state of a profile that lists none: one operational state of 6 W, between the
/// 3.5 W of DRAM-less PCIe 3.0 x2 drives and the 8–9 W of PCIe 4.0 x4 ones.
pub const DEFAULT_MAX_POWER_MW: u32 = 6000;

/// A drive's rated endurance as its datasheet states it, for projections to compare with.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RatedEndurance {
    /// Terabytes (10^12 bytes) the host may write (random-write rating), if given.
    pub tb_written: Option<f64>,
    /// The sequential-write rating, if given.
    pub tb_written_sequential: Option<f64>,
    /// Drive writes per day over the warranty, if given.
    pub dwpd: Option<f64>,
    /// Warranty, years, if given.
    pub warranty_years: Option<f64>,
}
