//! Host writes paced by GC, as firmware interleaves them.
//!
//! When free space is down to GC's reserve, a drive does not stop the host until a whole
//! victim superblock is collected and then let it write a superblock's worth at full speed:
//! it lets host writes borrow from the reserve in step with the collection. A victim with
//! `valid` of its `capacity` units still valid frees `capacity - valid` units once erased;
//! each unit GC has programmed out of it earns the host `(capacity - valid) / valid` units
//! of writing (all of it at once for a victim with nothing valid), so host writes spread
//! over the job as its programs do. Host writes admitted on this
//! credit may open at most one superblock below the reserve (the FTL enforces it), so GC
//! keeps a free superblock for its own frontier, and borrowing ends when an erase makes the
//! reserve whole again. Over a job the host writes what the victim frees, and short runs no
//! longer measure in superblock-sized steps.

/// The credit of the GC job under way.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct GcPace {
    /// Units the job's victim still held when it started.
    valid: u64,
    /// Units its erase will free (`capacity - valid`).
    freed: u64,
    /// Units moved out of it so far (relocation programs done).
    moved: u64,
    /// Host units admitted on this job's credit.
    spent: u64,
    /// Host writes are using the reserve (a superblock opened below it).
    pub(super) borrowing: bool,
}

impl GcPace {
    /// A GC job starts on a victim with `valid` of `capacity` units valid.
    pub(super) fn start(&mut self, valid: u64, capacity: u64) {
        *self = GcPace { valid, freed: capacity.saturating_sub(valid), borrowing: self.borrowing, ..GcPace::default() };
    }

    /// The job moved `units` more out of its victim.
    pub(super) fn moved(&mut self, units: u64) {
        self.moved += units;
    }

    /// Host units the job's progress lets the host write beyond the reserve now.
    pub(super) fn available(&self) -> u64 {
        let earned = (self.moved * self.freed).checked_div(self.valid).map_or(self.freed, |e| e.min(self.freed));
        earned.saturating_sub(self.spent)
    }

    /// `units` host units were admitted on this credit.
    pub(super) fn spend(&mut self, units: u64) {
        self.spent += units;
        self.borrowing = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credit_follows_the_share_of_the_victim_moved() {
        let mut p = GcPace::default();
        // A victim 3/4 valid: every 3 units moved earn 1 unit of host writing.
        p.start(300, 400);
        assert_eq!(p.available(), 0);
        p.moved(150);
        assert_eq!(p.available(), 50);
        p.spend(40);
        assert!(p.borrowing);
        assert_eq!(p.available(), 10);
        p.moved(150);
        assert_eq!(p.available(), 60); // all 100 freed units, 40 spent
        p.moved(64);
        assert_eq!(p.available(), 60); // never more than the victim frees
        // An empty victim frees everything at once; borrowing carries over to the next job.
        p.start(0, 400);
        assert_eq!((p.available(), p.borrowing), (400, true));
    }
}
