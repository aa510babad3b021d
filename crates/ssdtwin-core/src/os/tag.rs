//! Tags: how an I/O is named on its way down to the block target and back.
//!
//! Two names, one per seam, each built and read in one place:
//!
//! * above the host, the caller's tag: a `u64` the host carries and never reads, handed
//!   back in the I/O's [`IoDone`](super::IoDone). The fio runner's is an [`IoTag`] (which
//!   clone, which of its I/Os), packed by [`IoTag::caller_tag`] so that a completion names
//!   its clone without a look-up. The host's own requests (page cache, virtual memory) set
//!   the bit [`HOST_OWN`] beside theirs, so a caller's tag leaves the top two bits free.
//! * below the host, a [`CommandTag`] in the target's `user` field of each command: the
//!   index of the host's request record, or for an I/O of one command sent at once (a
//!   *direct* command), the caller's tag itself and the index of its completion path, so
//!   that nothing is stored per I/O on the hot path.
//!
//! Both are plain `u64`s in registers: the types only name the bits.

/// The bit of the caller's tag that marks the host's own requests (readahead, writeback,
/// flushes, virtual memory's reads and writes): callers' tags leave it free.
pub(super) const HOST_OWN: u64 = 1 << 62;

/// One of a run's fio threads (a job's `numjobs` clones, numbered across the run in start
/// order): an index into the runner's clones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct CloneId(pub u32);

impl CloneId {
    /// The index into a `Vec` of clones.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The fio runner's name for one of its I/Os in flight: the clone that issued it and the
/// I/O's id in the runner's table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoTag {
    /// The clone whose thread issued it.
    pub clone: CloneId,
    /// The I/O's id.
    pub io: u32,
}

impl IoTag {
    /// The caller's tag [`Host::submit`](super::Host::submit) carries for it: the clone above
    /// the id (below 2^48, as every run's clones are, the host sends it without a request
    /// record; below 2^62, it leaves `HOST_OWN` free).
    #[inline]
    pub fn caller_tag(self) -> u64 {
        (u64::from(self.clone.0) << 32) | u64::from(self.io)
    }

    /// The I/O a caller's tag from [`Self::caller_tag`] names.
    #[inline]
    pub fn from_caller_tag(tag: u64) -> Self {
        IoTag { clone: CloneId((tag >> 32) as u32), io: tag as u32 }
    }
}

/// What a command the host sends carries in the target's `user` tag: a request record's
/// index, or (a direct command) the caller's tag and its completion path's index in the
/// host's path table. On the bare host a direct command carries the caller's whole tag and
/// no path (nothing is booked on completion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub(super) struct CommandTag(u64);

impl CommandTag {
    /// The bit of a direct command.
    const DIRECT: u64 = 1 << 63;
    /// Bits of the caller's tag in a direct command (larger tags take a request record).
    const CALLER_BITS: u32 = 48;
    /// The largest caller's tag a direct command carries, off the bare host.
    pub(super) const MAX_CALLER: u64 = (1 << Self::CALLER_BITS) - 1;
    /// Completion paths a direct command can name (the bits between the caller's tag and
    /// the direct bit).
    pub(super) const PATHS: usize = 1 << (63 - Self::CALLER_BITS);

    /// The command of request record `r`.
    #[inline]
    pub(super) fn request(r: u32) -> Self {
        CommandTag(u64::from(r))
    }

    /// A direct command of caller's tag `caller` (at most [`Self::MAX_CALLER`]) on
    /// completion path `path` (below [`Self::PATHS`]).
    #[inline]
    pub(super) fn direct(caller: u64, path: u32) -> Self {
        debug_assert!(caller <= Self::MAX_CALLER && (path as usize) < Self::PATHS);
        CommandTag(Self::DIRECT | (u64::from(path) << Self::CALLER_BITS) | caller)
    }

    /// A direct command of the bare host, which carries any caller's tag (its top bit free).
    #[inline]
    pub(super) fn bare(caller: u64) -> Self {
        debug_assert!(caller & Self::DIRECT == 0, "tags leave the top bit free");
        CommandTag(Self::DIRECT | caller)
    }

    /// The tag as the target carries it.
    #[inline]
    pub(super) fn user(self) -> u64 {
        self.0
    }

    /// The tag a completion carried back.
    #[inline]
    pub(super) fn from_user(user: u64) -> Self {
        CommandTag(user)
    }

    /// The request record's index, unless the command is direct.
    #[inline]
    pub(super) fn record(self) -> Option<u32> {
        if self.0 & Self::DIRECT == 0 { Some(self.0 as u32) } else { None }
    }

    /// Whether the command is direct.
    #[inline]
    pub(super) fn is_direct(self) -> bool {
        self.0 & Self::DIRECT != 0
    }

    /// A direct command's caller's tag (off the bare host).
    #[inline]
    pub(super) fn caller(self) -> u64 {
        self.0 & Self::MAX_CALLER
    }

    /// A direct command's caller's tag on the bare host.
    #[inline]
    pub(super) fn bare_caller(self) -> u64 {
        self.0 & !Self::DIRECT
    }

    /// A direct command's completion path index (off the bare host).
    #[inline]
    pub(super) fn path(self) -> usize {
        ((self.0 & !Self::DIRECT) >> Self::CALLER_BITS) as usize
    }
}
