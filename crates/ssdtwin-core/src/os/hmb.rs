//! Host Memory Buffer negotiation, as the Linux NVMe driver does it
//! (`drivers/nvme/host/pci.c`: `nvme_setup_host_mem`, `nvme_alloc_host_mem`). Every host
//! profile uses this algorithm with its own default cap (`kernel.nvme_hmb_cap_mib`: Linux's
//! module parameter, none on Windows, 0 on a kernel without HMB support).
//!
//! The controller asks for `hmpre` (preferred) and at least `hmmin` 4 KiB pages in Identify
//! Controller. The driver caps the grant at `max_host_mem_size_mb` (default 128): it grants
//! `min(hmpre, cap)`, and nothing at all if `hmmin` exceeds the cap (it does not shrink
//! below the minimum). It allocates in chunks, from min(preferred, 4 MiB) halving down to
//! the larger of `hmminds` pages and two pages, with at most `hmmaxd` descriptors, and
//! accepts the first chunk size whose total reaches `hmmin`. See `docs/model.md` § "Map
//! cache" and domain-facts.md § 1.3.

use crate::nvme::{HmbGrant, HmbRequest};

/// The driver's page size and largest single chunk (`PAGE_SIZE` × `MAX_ORDER_NR_PAGES`).
const PAGE_BYTES: u64 = 4096;
const MAX_CHUNK_BYTES: u64 = 4 << 20;

/// What the host's driver is told to do with HMB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HmbSetting {
    /// HMB disabled (`max_host_mem_size_mb=0`).
    Off,
    /// The host's default (Linux: a cap of 128 MiB; see the host profile's
    /// `kernel.nvme_hmb_cap_mib`).
    Auto,
    /// `max_host_mem_size_mb` set to this many MiB.
    CapMib(u32),
}

impl HmbSetting {
    /// The driver's cap in bytes, given the host's default cap (`None`: no cap).
    pub fn cap_bytes(self, host_cap_bytes: Option<u64>) -> u64 {
        match self {
            HmbSetting::Off => 0,
            HmbSetting::Auto => host_cap_bytes.unwrap_or(u64::MAX),
            HmbSetting::CapMib(m) => u64::from(m) << 20,
        }
    }
}

/// Applies the Linux driver's rules with the cap `setting` resolves to on a host whose
/// default cap is `host_cap_bytes` (`None`: no cap).
pub fn negotiate_hmb(request: HmbRequest, setting: HmbSetting, host_cap_bytes: Option<u64>) -> HmbGrant {
    let none = |message: String| HmbGrant { bytes: 0, segments: 0, chunk_bytes: 0, message };
    if request.hmpre == 0 {
        return none(String::new());
    }
    let cap = setting.cap_bytes(host_cap_bytes);
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

    // Linux's default cap, max_host_mem_size_mb = 128.
    const LINUX_CAP: Option<u64> = Some(128 << 20);

    // The P32A80 of reference R1: hmpre 61440 (240 MiB), hmmin 2048 (8 MiB).
    const P32A80: HmbRequest = HmbRequest { hmpre: 61440, hmmin: 2048, hmminds: 0, hmmaxd: 0 };

    #[test]
    fn the_default_cap_grants_128_mib_in_4_mib_chunks() {
        let g = negotiate_hmb(P32A80, HmbSetting::Auto, LINUX_CAP);
        assert_eq!(g.bytes, 128 << 20);
        assert_eq!((g.segments, g.chunk_bytes), (32, 4 << 20));
        assert_eq!(g.message, "nvme nvme0: allocated 128 MiB host memory buffer.");
    }

    #[test]
    fn a_raised_cap_grants_what_the_drive_prefers() {
        assert_eq!(negotiate_hmb(P32A80, HmbSetting::CapMib(1024), LINUX_CAP).bytes, 240 << 20);
        assert_eq!(negotiate_hmb(P32A80, HmbSetting::CapMib(64), LINUX_CAP).bytes, 64 << 20);
    }

    #[test]
    fn a_host_without_a_cap_grants_the_preference() {
        assert_eq!(negotiate_hmb(P32A80, HmbSetting::Auto, None).bytes, 240 << 20);
    }

    #[test]
    fn hmmin_above_the_cap_grants_nothing() {
        let r = HmbRequest { hmpre: 16384, hmmin: 16384, hmminds: 0, hmmaxd: 0 };
        let g = negotiate_hmb(r, HmbSetting::CapMib(32), LINUX_CAP);
        assert_eq!(g.bytes, 0);
        assert_eq!(g.message, "nvme nvme0: min host memory (64 MiB) above limit (32 MiB).");
        assert_eq!(negotiate_hmb(P32A80, HmbSetting::Off, LINUX_CAP).bytes, 0);
    }

    #[test]
    fn descriptor_limits_shrink_the_chunks_or_the_total() {
        // At most 8 descriptors of 4 MiB cover only 32 MiB of a 64 MiB preference.
        let r = HmbRequest { hmpre: 16384, hmmin: 2048, hmminds: 0, hmmaxd: 8 };
        let g = negotiate_hmb(r, HmbSetting::Auto, LINUX_CAP);
        assert_eq!((g.bytes, g.segments), (32 << 20, 8));
        // A minimum descriptor size above 4 MiB forbids every chunk size the driver tries.
        let r = HmbRequest { hmpre: 16384, hmmin: 2048, hmminds: 2048, hmmaxd: 0 };
        assert_eq!(negotiate_hmb(r, HmbSetting::Auto, LINUX_CAP).bytes, 0);
    }
}
