//! The drive's NVMe front end: the PCIe link, the namespace and its LBA formats, the Host
//! Memory Buffer the controller asks for, and its power states.
//!
//! Read the NVMe Base Specification § 3.3 (queues), § 5.2.13 (Identify) and § 7 (I/O
//! commands) before editing; `docs/model.md` § "Host link" lists what is simplified. The
//! commands themselves are [`crate::block`]'s: every block target speaks them.

mod hmb;
mod link;
mod namespace;
pub mod power;

pub use hmb::{HmbGrant, HmbRequest};
pub use link::{Bus, LinkConfig};
pub use namespace::{LbaFormat, Namespace};
pub use power::{ApstEntry, ApstPolicy, PowerState, PowerStates, apst_table};
