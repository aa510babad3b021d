//! First in, first out: a stream opens the superblock that has been free longest. Erased
//! superblocks join the back of the pool, so under uniform writes every superblock takes
//! its turn (round robin); cold data pins the superblocks that hold it, which then wear
//! less than the rest.

/// The front of the free pool.
pub(super) fn pick() -> usize {
    0
}
