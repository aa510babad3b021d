//! `[link]`, checked: the PCIe link and the device's per-command link costs.

use super::profile::LinkSection;
use crate::engine::SimDuration;
use crate::nvme::LinkConfig;
use crate::profile_file::{Checker, ProfileError};

pub(super) fn build_link(c: &Checker, s: &LinkSection) -> Result<LinkConfig, ProfileError> {
    let gen_ = c.range("link.pcie_gen", s.pcie_gen, 1, 6)?;
    if ![1, 2, 4, 8, 16].contains(&s.pcie_lanes) {
        return Err(c.bad("link.pcie_lanes", &s.pcie_lanes, "allowed 1, 2, 4, 8, 16"));
    }
    if !s.max_payload_bytes.is_power_of_two() || !(128..=4096).contains(&s.max_payload_bytes) {
        return Err(c.bad("link.max_payload_bytes", &s.max_payload_bytes, "a power of two from 128 to 4096"));
    }
    c.range("link.tlp_overhead_bytes", s.tlp_overhead_bytes, 0, 128)?;
    c.range("link.io_queues", s.io_queues, 1, 65535)?;
    c.range("link.queue_depth", s.queue_depth, 2, 65536)?;
    let ns = |field: &str, v: u64| c.range(field, v, 0, 1_000_000_000).map(SimDuration);
    Ok(LinkConfig::new(
        gen_,
        s.pcie_lanes,
        s.max_payload_bytes,
        s.tlp_overhead_bytes,
        ns("link.command_fetch_ns", s.command_fetch_ns)?,
        ns("link.completion_post_ns", s.completion_post_ns)?,
        s.io_queues,
        s.queue_depth,
    ))
}
