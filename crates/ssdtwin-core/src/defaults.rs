//! One source of every default a user meets without naming a value: the seeds, the drive,
//! host and pool a run uses, the time-series window and the memory limit of a served drive.
//! The bindings and the command line read these (Python as `_ssdtwin.DEFAULT_*`) and hold no
//! copies, so a default changes in one place.
//!
//! Two seeds, kept apart on purpose: a run's random streams start from
//! [`DEFAULT_RUN_SEED`], while the draws that set a target up before it (a random fill,
//! preconditioning, a ZFS file tree and its operations) start from [`DEFAULT_SETUP_SEED`].
//! Every published result was made with these two; merging them would change them.

/// Seed of every random stream of a run (fio jobs and memory workloads) when none is given.
pub const DEFAULT_RUN_SEED: u64 = 0x5EED;

/// Seed of the random draws that prepare a target before a run (a random fill, the
/// preconditioning study, a ZFS file tree and its operations) when none is given.
pub const DEFAULT_SETUP_SEED: u64 = 1;

/// The drive profile used when none is named.
pub const DEFAULT_PROFILE: &str = "generic-tlc-1tb";

/// The host jobs run on when none is named: a current Linux machine, as fio users have.
pub const DEFAULT_HOST: &str = "linux-6.1";

/// The pool file used when none is named: HDD mirrors with an SSD special vdev.
pub const DEFAULT_POOL: &str = "hdd-mirror-special";

/// Width of a run's time-series rows (`RunResult.series`), nanoseconds (100 ms).
pub const DEFAULT_SERIES_WINDOW_NS: u64 = 100_000_000;

/// Client data a served drive keeps in memory without a backing file, bytes (1 GiB).
pub const DEFAULT_MEMORY_LIMIT_BYTES: u64 = 1 << 30;
