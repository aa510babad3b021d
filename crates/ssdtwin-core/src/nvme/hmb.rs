//! The Host Memory Buffer as the controller sees it: what it asks for in Identify
//! Controller ([`HmbRequest`]) and what a host granted it ([`HmbGrant`]). How a host
//! decides the grant is the host's business (`os::negotiate_hmb`); see `docs/model.md`
//! § "Map cache" and domain-facts.md § 1.3.

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

impl HmbGrant {
    /// No buffer: no host, or a host that gave none.
    pub fn none() -> Self {
        HmbGrant { bytes: 0, segments: 0, chunk_bytes: 0, message: String::new() }
    }
}
