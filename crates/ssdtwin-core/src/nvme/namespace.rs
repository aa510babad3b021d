//! The namespace: its LBA formats (NVMe Identify Namespace `lbaf`, see NVMe Base § 5.2.13.2)
//! and how host LBAs map onto 4 KiB map units.

use super::super::nand::UNIT_BYTES;

/// One LBA format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LbaFormat {
    /// LBA data size, bytes.
    pub data_bytes: u32,
    /// Metadata bytes per LBA.
    pub metadata_bytes: u32,
    /// Advertised Relative Performance (0 Best … 3 Degraded).
    pub relative_performance: u8,
}

impl LbaFormat {
    /// `lbads`: log2 of the data size.
    pub fn lbads(&self) -> u32 {
        self.data_bytes.trailing_zeros()
    }
}

/// Formats, the one in use, and the size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    /// Supported formats.
    pub formats: Vec<LbaFormat>,
    /// Index of the format in use.
    pub current: usize,
    /// Size in bytes.
    pub capacity_bytes: u64,
}

impl Namespace {
    /// The format in use.
    pub fn format(&self) -> &LbaFormat {
        &self.formats[self.current]
    }

    /// LBA size in bytes.
    pub fn lba_bytes(&self) -> u64 {
        u64::from(self.format().data_bytes)
    }

    /// Bytes `blocks` LBAs move over the link: data and metadata (extended LBAs or a
    /// separate metadata buffer move the same bytes).
    pub fn transfer_bytes(&self, blocks: u32) -> u64 {
        let f = self.format();
        u64::from(blocks) * u64::from(f.data_bytes + f.metadata_bytes)
    }

    /// Number of LBAs (`nsze`).
    pub fn lbas(&self) -> u64 {
        self.capacity_bytes / self.lba_bytes()
    }

    /// The map units covered by `blocks` LBAs from `slba`: (first unit, unit count).
    #[inline]
    pub fn units_of(&self, slba: u64, blocks: u32) -> (u64, u32) {
        let start = slba * self.lba_bytes();
        let end = start + u64::from(blocks) * self.lba_bytes();
        let first = start / UNIT_BYTES;
        let last = end.div_ceil(UNIT_BYTES);
        (first, (last - first) as u32)
    }
}
