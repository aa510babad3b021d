//! `[identity]`, checked: the strings and NVMe Identify values the drive reports.

use super::device::Identity;
use super::profile::IdentitySection;
use crate::nvme::HmbRequest;
use crate::profile_file::{Checker, ProfileError};

pub(super) fn build_identity(c: &Checker, s: &IdentitySection) -> Result<Identity, ProfileError> {
    let text = |field: &str, v: &str, max: usize| -> Result<String, ProfileError> {
        if v.is_empty() || v.len() > max || !v.is_ascii() {
            return Err(c.bad(field, &format!("\"{v}\""), &format!("1 to {max} ASCII characters")));
        }
        Ok(v.to_string())
    };
    let version = parse_nvme_version(&s.nvme_version).ok_or_else(|| {
        c.bad(
            "identity.nvme_version",
            &format!("\"{}\"", s.nvme_version),
            "\"major.minor[.tertiary]\" with major 1 or 2, minor and tertiary 0 to 9",
        )
    })?;
    if s.hmmin > s.hmpre {
        return Err(c.bad("identity.hmmin", &s.hmmin, &format!("at most identity.hmpre ({})", s.hmpre)));
    }
    if s.ieee_oui > 0xFF_FFFF {
        return Err(c.bad("identity.ieee_oui", &s.ieee_oui, "a 24-bit value"));
    }
    c.range("identity.mdts", s.mdts, 0, 15)?;
    if let (Some(w), Some(k)) = (s.wctemp_kelvin, s.cctemp_kelvin)
        && w > k
    {
        return Err(c.bad("identity.wctemp_kelvin", &w, &format!("at most identity.cctemp_kelvin ({k})")));
    }
    if s.power_states.len() > 32 {
        return Err(c.bad("identity.power_states", &s.power_states.len(), "at most 32 entries"));
    }
    for (i, ps) in s.power_states.iter().enumerate() {
        let mw = ps.max_power_mw;
        if mw > 655_350 || (mw > 6553 && mw % 10 != 0) {
            let field = format!("identity.power_states[{i}].max_power_mw");
            return Err(c.bad(&field, &mw, "up to 6553, or a multiple of 10 up to 655350"));
        }
    }
    Ok(Identity {
        model: text("identity.model", &s.model, 40)?,
        serial: text("identity.serial", &s.serial, 20)?,
        firmware: text("identity.firmware", &s.firmware, 8)?,
        pci_vendor_id: s.pci_vendor_id,
        pci_subsystem_vendor_id: s.pci_subsystem_vendor_id,
        ieee_oui: s.ieee_oui,
        nvme_version: version,
        mdts: s.mdts,
        hmb: HmbRequest { hmpre: s.hmpre, hmmin: s.hmmin, hmminds: s.hmminds, hmmaxd: s.hmmaxd },
        wctemp_kelvin: s.wctemp_kelvin,
        cctemp_kelvin: s.cctemp_kelvin,
        power_states: s.power_states.clone(),
    })
}

pub(super) fn parse_nvme_version(v: &str) -> Option<u32> {
    let parts: Vec<u32> = v.split('.').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let (major, minor, ter) = match parts.as_slice() {
        [a, b] => (*a, *b, 0),
        [a, b, t] => (*a, *b, *t),
        _ => return None,
    };
    ((1..=2).contains(&major) && minor <= 9 && ter <= 9).then_some(major << 16 | minor << 8 | ter)
}
