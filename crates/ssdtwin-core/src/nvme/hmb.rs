//! Host Memory Buffer negotiation, as the Linux NVMe driver does it
//! (`drivers/nvme/host/pci.c`: `nvme_setup_host_mem`, `nvme_alloc_host_mem`).
//!
//! The controller asks for `hmpre` (preferred) and at least `hmmin` 4 KiB pages in Identify
//! Controller. The driver caps the grant at `max_host_mem_size_mb` (default 128): it grants
//! `min(hmpre, cap)`, and nothing at all if `hmmin` exceeds the cap (it does not shrink
//! below the minimum). It allocates in chunks, from min(preferred, 4 MiB) halving down to
//! the larger of `hmminds` pages and two pages, with at most `hmmaxd` descriptors, and
//! accepts the first chunk size whose total reaches `hmmin`. See `docs/model.md` § "Map
//! cache" and domain-facts.md § 1.3.

/// The driver's page size and largest single chunk (`PAGE_SIZE` × `MAX_ORDER_NR_PAGES`).
const PAGE_BYTES: u64 = 4096;
const MAX_CHUNK_BYTES: u64 = 4 << 20;

/// What the host is told to do with HMB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HmbSetting {
    /// HMB disabled (`max_host_mem_size_mb=0`).
    Off,
    /// Linux's default cap of 128 MiB.
    Auto,
    /// `max_host_mem_size_mb` set to this many MiB.
    CapMib(u32),
}

impl HmbSetting {
    /// The driver's cap in bytes.
    pub fn cap_bytes(self) -> u64 {
        match self {
            HmbSetting::Off => 0,
            HmbSetting::Auto => 128 << 20,
            HmbSetting::CapMib(m) => u64::from(m) << 20,
        }
    }
}

/// The controller's HMB fields (Identify Controller), in 4 KiB units / counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HmbRequest {
    /// Preferred size (HMPRE), 4 KiB units.
    pub hmpre: u32,
    /// Minimum size (HMMIN), 4 KiB units.
    pub hmmin: u32,
    /// Minimum descriptor entry size (HMMINDS), 4 KiB units; 0 = no limit.
    pub hmminds: u32,
    /// Maximum descriptor entries (HMMAXD); 0 = no limit.
    pub hmmaxd: u16,
}

/// The outcome of negotiation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HmbGrant {
    /// Bytes the controller may use.
    pub bytes: u64,
    /// Descriptor entries (segments) used.
    pub segments: u32,
    /// Size of each chunk, bytes.
    pub chunk_bytes: u64,
    /// What the driver would log (`dmesg`), e.g. `nvme nvme0: allocated 128 MiB host memory buffer.`
    pub message: String,
}

/// Applies the Linux driver's rules.
pub fn negotiate(request: HmbRequest, setting: HmbSetting) -> HmbGrant {
    let none = |message: String| HmbGrant { bytes: 0, segments: 0, chunk_bytes: 0, message };
    if request.hmpre == 0 {
        return none(String::new());
    }
    let cap = setting.cap_bytes();
    if cap == 0 {
        return none(String::new());
    }
    let min = u64::from(request.hmmin) * PAGE_BYTES;
    let preferred = (u64::from(request.hmpre) * PAGE_BYTES).min(cap);
    if min > cap {
        return none(format!("nvme nvme0: min host memory ({} MiB) above limit ({} MiB).", min >> 20, cap >> 20));
    }
    let smallest = (u64::from(request.hmminds) * PAGE_BYTES).max(2 * PAGE_BYTES);
    let mut chunk = preferred.min(MAX_CHUNK_BYTES);
    while chunk >= smallest {
        let mut entries = preferred.div_ceil(chunk);
        if request.hmmaxd > 0 {
            entries = entries.min(u64::from(request.hmmaxd));
        }
        let total = (entries * chunk).min(preferred);
        if min == 0 || total >= min {
            return HmbGrant {
                bytes: total,
                segments: entries as u32,
                chunk_bytes: chunk,
                message: format!("nvme nvme0: allocated {} MiB host memory buffer.", total >> 20),
            };
        }
        chunk /= 2;
    }
    none("nvme nvme0: failed to allocate host memory buffer.".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    // The P32A80 of reference R1: hmpre 61440 (240 MiB), hmmin 2048 (8 MiB).
    const P32A80: HmbRequest = HmbRequest { hmpre: 61440, hmmin: 2048, hmminds: 0, hmmaxd: 0 };

    #[test]
    fn the_default_cap_grants_128_mib_in_4_mib_chunks() {
        let g = negotiate(P32A80, HmbSetting::Auto);
        assert_eq!(g.bytes, 128 << 20);
        assert_eq!((g.segments, g.chunk_bytes), (32, 4 << 20));
        assert_eq!(g.message, "nvme nvme0: allocated 128 MiB host memory buffer.");
    }

    #[test]
    fn a_raised_cap_grants_what_the_drive_prefers() {
        assert_eq!(negotiate(P32A80, HmbSetting::CapMib(1024)).bytes, 240 << 20);
        assert_eq!(negotiate(P32A80, HmbSetting::CapMib(64)).bytes, 64 << 20);
    }

    #[test]
    fn hmmin_above_the_cap_grants_nothing() {
        let r = HmbRequest { hmpre: 16384, hmmin: 16384, hmminds: 0, hmmaxd: 0 };
        let g = negotiate(r, HmbSetting::CapMib(32));
        assert_eq!(g.bytes, 0);
        assert_eq!(g.message, "nvme nvme0: min host memory (64 MiB) above limit (32 MiB).");
        assert_eq!(negotiate(P32A80, HmbSetting::Off).bytes, 0);
    }

    #[test]
    fn descriptor_limits_shrink_the_chunks_or_the_total() {
        // At most 8 descriptors of 4 MiB cover only 32 MiB of a 64 MiB preference.
        let r = HmbRequest { hmpre: 16384, hmmin: 2048, hmminds: 0, hmmaxd: 8 };
        let g = negotiate(r, HmbSetting::Auto);
        assert_eq!((g.bytes, g.segments), (32 << 20, 8));
        // A minimum descriptor size above 4 MiB forbids every chunk size the driver tries.
        let r = HmbRequest { hmpre: 16384, hmmin: 2048, hmminds: 2048, hmmaxd: 0 };
        assert_eq!(negotiate(r, HmbSetting::Auto).bytes, 0);
    }
}
