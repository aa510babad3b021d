//! Verify mode: every written map unit carries a version number, and every read checks that
//! the data found at the mapped location is the version last written (or zeros, if it was
//! trimmed or never written). The FTL stores versions per physical unit and copies them when
//! GC moves data, so a mapping bug anywhere shows up as a mismatch.

/// Expected versions per logical unit, and the mismatches seen.
#[derive(Clone, Debug)]
pub struct Verifier {
    pub(crate) expected: Vec<u32>,
    pub(crate) next_version: u32,
    /// Mismatches seen.
    pub errors: u64,
    /// The first mismatch, described.
    pub first_error: Option<String>,
}

impl Verifier {
    pub(crate) fn new(logical_units: u64) -> Self {
        Verifier { expected: vec![0; logical_units as usize], next_version: 1, errors: 0, first_error: None }
    }

    /// A fresh version for a write of `lpn`.
    #[inline]
    pub(crate) fn on_write(&mut self, lpn: u64) -> u32 {
        let v = self.next_version;
        self.next_version = self.next_version.checked_add(1).unwrap_or(1);
        self.expected[lpn as usize] = v;
        v
    }

    #[inline]
    pub(crate) fn on_trim(&mut self, lpn: u64) {
        self.expected[lpn as usize] = 0;
    }

    #[inline]
    pub(crate) fn check(&mut self, lpn: u64, found: u32) {
        let want = self.expected[lpn as usize];
        if want != found {
            self.errors += 1;
            if self.first_error.is_none() {
                self.first_error = Some(format!("unit {lpn}: read version {found}, last written {want}"));
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.expected.fill(0);
    }
}
