//! The timing engine: simulated time, the event queue, and busy-until resources.
//!
//! Everything above this module is a state machine that takes `now` as an argument and says
//! when it next needs attention; nothing reads a wall clock or sleeps. [`EventQueue`] orders
//! pending events by (time, sequence), [`BusyResource`] and [`ServerPool`] model shared
//! hardware as servers that serve work in the order it is booked, and [`SimRng`] gives each consumer its own
//! seeded stream. See `docs/model.md` § "Event engine".

mod big_array;
mod fifo;
mod heap;
mod prefetch;
mod queue;
mod resource;
mod rng;
mod slab;
mod time;

pub use big_array::{BigArray, can_map};
pub use prefetch::{prefetch, prefetch_ref};
pub use queue::EventQueue;
pub use resource::{BusyResource, ServerPool};
pub use rng::{SimRng, UnitLognormal};
pub use slab::Slab;
pub use time::{SimDuration, SimTime};
