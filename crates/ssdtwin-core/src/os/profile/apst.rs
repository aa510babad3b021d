//! The NVMe driver's Autonomous Power State Transition settings (`[kernel] nvme_apst*`),
//! checked.

use super::file::KernelSection;
use super::host::HostApst;
use crate::engine::SimDuration;
use crate::nvme::ApstPolicy;
use crate::profile_file::{Checker, ProfileError};

pub(super) fn build_apst(c: &Checker, k: &KernelSection) -> Result<HostApst, ProfileError> {
    let ms = |field: &str, v: u64| c.range(field, v, 0, 1 << 24).map(SimDuration::from_ms);
    let us = |field: &str, v: u64| c.range(field, v, 0, 1 << 40).map(SimDuration::from_us);
    let timeouts = ApstPolicy::Timeouts {
        primary_timeout: ms("kernel.nvme_apst_primary_timeout_ms", k.nvme_apst_primary_timeout_ms)?,
        primary_tolerance: us("kernel.nvme_apst_primary_latency_tol_us", k.nvme_apst_primary_latency_tol_us)?,
        secondary_timeout: ms("kernel.nvme_apst_secondary_timeout_ms", k.nvme_apst_secondary_timeout_ms)?,
        secondary_tolerance: us("kernel.nvme_apst_secondary_latency_tol_us", k.nvme_apst_secondary_latency_tol_us)?,
    };
    let policy = c.choice(
        "kernel.nvme_apst",
        &k.nvme_apst,
        &[("off", ApstPolicy::Off), ("heuristic", ApstPolicy::Heuristic), ("timeouts", timeouts)],
    )?;
    let max = c.range("kernel.nvme_ps_max_latency_us", k.nvme_ps_max_latency_us, 0, 1 << 40)?;
    let policy = if max == 0 { ApstPolicy::Off } else { policy };
    Ok(HostApst { policy, max_exit_latency: SimDuration::from_us(max) })
}
