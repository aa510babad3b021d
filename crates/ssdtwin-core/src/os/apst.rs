//! APST set-up, as the host's NVMe driver does it: Linux's `nvme_configure_apst`
//! (`drivers/nvme/host/core.c`) with the policy of the host profile (`kernel.nvme_apst`).
//! The table itself is built by [`crate::nvme::apst_table`]; this picks the host's rules.

use super::HostConfig;
use crate::nvme::{ApstEntry, PowerStates, apst_table};

/// The APST table `host`'s driver programs into a drive with these power states (empty:
/// APST off, as when the drive supports none or the host does not enable it).
pub fn configure_apst(states: &PowerStates, host: &HostConfig) -> Vec<Option<ApstEntry>> {
    apst_table(&states.states, host.nvme_apst.policy, host.nvme_apst.max_exit_latency)
}
