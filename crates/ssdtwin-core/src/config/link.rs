//! `[link]`, checked: the PCIe link and the device's per-command link costs.

use super::profile::{LinkSection, Transport};
use crate::engine::SimDuration;
use crate::nvme::LinkConfig;
use crate::profile_file::{Checker, ProfileError};

pub(super) fn build_link(c: &Checker, s: &LinkSection) -> Result<LinkConfig, ProfileError> {
    c.range("link.io_queues", s.io_queues, 1, 65535)?;
    c.range("link.queue_depth", s.queue_depth, 2, 65536)?;
    let ns = |field: &str, v: u64| c.range(field, v, 0, 1_000_000_000).map(SimDuration);
    let command_fetch = ns("link.command_fetch_ns", s.command_fetch_ns)?;
    let completion_post = ns("link.completion_post_ns", s.completion_post_ns)?;
    match s.transport {
        Transport::Pcie => {
            if s.sata_gen.is_some() {
                return Err(c.bad("link.sata_gen", &"given", "only with transport = \"sata\""));
            }
            let gen_ = c.range("link.pcie_gen", c.required("link.pcie_gen", s.pcie_gen, "a PCIe link")?, 1, 6)?;
            let lanes = c.required("link.pcie_lanes", s.pcie_lanes, "a PCIe link")?;
            if ![1, 2, 4, 8, 16].contains(&lanes) {
                return Err(c.bad("link.pcie_lanes", &lanes, "allowed 1, 2, 4, 8, 16"));
            }
            if !s.max_payload_bytes.is_power_of_two() || !(128..=4096).contains(&s.max_payload_bytes) {
                return Err(c.bad("link.max_payload_bytes", &s.max_payload_bytes, "a power of two from 128 to 4096"));
            }
            c.range("link.tlp_overhead_bytes", s.tlp_overhead_bytes, 0, 128)?;
            Ok(LinkConfig::new(
                gen_,
                lanes,
                s.max_payload_bytes,
                s.tlp_overhead_bytes,
                command_fetch,
                completion_post,
                s.io_queues,
                s.queue_depth,
            ))
        }
        Transport::Sata => {
            for (field, given) in [("link.pcie_gen", s.pcie_gen), ("link.pcie_lanes", s.pcie_lanes)] {
                if given.is_some() {
                    return Err(c.bad(field, &"given", "only with transport = \"pcie\" (a SATA link has none)"));
                }
            }
            let gen_ = c.range("link.sata_gen", s.sata_gen.unwrap_or(3), 1, 3)?;
            if s.io_queues != 1 || s.queue_depth > 33 {
                return Err(c.bad(
                    "link.queue_depth",
                    &format!("{} queue(s) of {}", s.io_queues, s.queue_depth),
                    "SATA has io_queues = 1 and at most 33 entries (NCQ's 32 commands)",
                ));
            }
            Ok(LinkConfig::sata(gen_, command_fetch, completion_post, s.queue_depth))
        }
    }
}
