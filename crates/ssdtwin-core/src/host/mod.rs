//! The host side of the device: the PCIe link, NVMe queues and commands, and the namespace.
//!
//! Read the NVMe Base Specification § 3.3 (queues), § 5.2.13 (Identify) and § 7 (I/O
//! commands) before editing; `docs/model.md` § "Host link" lists what is simplified.

mod command;
mod hmb;
mod link;
mod namespace;

pub use command::{Command, Completion, Opcode, SubmitError};
pub use hmb::{HmbGrant, HmbRequest, HmbSetting, negotiate};
pub use link::LinkConfig;
pub use namespace::{LbaFormat, Namespace};
