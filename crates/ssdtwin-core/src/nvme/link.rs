//! The PCIe link between host and device, and the device's own per-command link costs.
//!
//! Read the PCIe Base Specification § 2 (TLPs) and § 4.2 (encoding). Each direction is a
//! separate busy-until resource that serves transfers in the order they are booked: reads
//! move data device → host, writes host → device. Payload bandwidth per direction is
//!
//! ```text
//! lanes × GT/s × encoding efficiency / 8 × MPS / (MPS + TLP overhead)
//! ```
//!
//! with 8b/10b encoding for generations 1–2, 128b/130b for 3–5 and 242/256 FLIT efficiency
//! for 6. The SQE fetch and the completion post (CQE write and MSI-X message) are fixed
//! latencies; their few bytes on the link are negligible next to data. What the host's
//! software spends to submit and complete a command is the host profile's (`os/`).

use crate::engine::SimDuration;

/// Link bandwidth and the device's per-command link costs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkConfig {
    /// PCIe or SATA.
    pub bus: Bus,
    /// The bus's generation (PCIe 1-6, SATA 1-3).
    pub gen_: u32,
    /// Lanes (1 on SATA).
    pub lanes: u32,
    /// Payload bytes per second in each direction.
    pub bytes_per_sec: u64,
    /// SQE fetch by the controller after the doorbell.
    pub command_fetch: SimDuration,
    /// CQE write into host memory and the MSI-X message that signals it.
    pub completion_post: SimDuration,
    /// I/O queues.
    pub io_queues: u32,
    /// Entries per queue.
    pub queue_depth: u32,
}

/// The bus between host and drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bus {
    /// PCIe (NVMe).
    Pcie,
    /// SATA (AHCI with NCQ).
    Sata,
}

impl LinkConfig {
    /// Derives the payload bandwidth from generation, lanes, MPS and TLP overhead.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        gen_: u32,
        lanes: u32,
        max_payload_bytes: u32,
        tlp_overhead_bytes: u32,
        command_fetch: SimDuration,
        completion_post: SimDuration,
        io_queues: u32,
        queue_depth: u32,
    ) -> Self {
        let raw_bits_per_lane = raw_payload_bits_per_sec(gen_);
        let mps = f64::from(max_payload_bytes);
        let efficiency = mps / (mps + f64::from(tlp_overhead_bytes));
        let bytes_per_sec = (raw_bits_per_lane / 8.0 * f64::from(lanes) * efficiency) as u64;
        LinkConfig {
            bus: Bus::Pcie,
            gen_,
            lanes,
            bytes_per_sec,
            command_fetch,
            completion_post,
            io_queues,
            queue_depth,
        }
    }

    /// A SATA link of generation `gen_` (1.5, 3 or 6 Gb/s, 8b/10b): one AHCI command list of
    /// `queue_depth - 1` NCQ slots; data moves in FIS of at most 8192 bytes, each framed by
    /// SOF, FIS type, CRC and EOF and the receiver's `R_RDY`/`R_OK` primitives (24 bytes).
    pub fn sata(gen_: u32, command_fetch: SimDuration, completion_post: SimDuration, queue_depth: u32) -> Self {
        const DATA_FIS_BYTES: f64 = 8192.0;
        const FIS_FRAMING_BYTES: f64 = 24.0;
        let line_bits = 1.5e9 * f64::from(1u32 << (gen_ - 1)) * 8.0 / 10.0;
        let bytes_per_sec = (line_bits / 8.0 * DATA_FIS_BYTES / (DATA_FIS_BYTES + FIS_FRAMING_BYTES)) as u64;
        LinkConfig {
            bus: Bus::Sata,
            gen_,
            lanes: 1,
            bytes_per_sec,
            command_fetch,
            completion_post,
            io_queues: 1,
            queue_depth,
        }
    }

    /// Commands the controller can hold at once (one slot per queue stays empty).
    pub fn max_outstanding(&self) -> u32 {
        self.io_queues.saturating_mul(self.queue_depth - 1)
    }
}

/// Bits per second per lane after line encoding.
fn raw_payload_bits_per_sec(gen_: u32) -> f64 {
    match gen_ {
        1 => 2.5e9 * 8.0 / 10.0,
        2 => 5.0e9 * 8.0 / 10.0,
        3 => 8.0e9 * 128.0 / 130.0,
        4 => 16.0e9 * 128.0 / 130.0,
        5 => 32.0e9 * 128.0 / 130.0,
        _ => 64.0e9 * 242.0 / 256.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gen3_x4_payload_rate() {
        let l = LinkConfig::new(3, 4, 256, 26, SimDuration::ZERO, SimDuration::ZERO, 1, 2);
        // 4 lanes x 8 GT/s x 128/130 / 8 = 3.938 GB/s of symbols, 256/282 of it payload.
        assert_eq!(l.bytes_per_sec, 3_575_340_971);
    }

    #[test]
    fn gen3_x2_is_half_of_x4() {
        let a = LinkConfig::new(3, 2, 256, 26, SimDuration::ZERO, SimDuration::ZERO, 1, 2);
        assert_eq!(a.bytes_per_sec, 1_787_670_485);
    }
}
