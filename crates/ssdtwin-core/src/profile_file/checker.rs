//! The field checker: checks the values of one file and words errors the same way for every
//! profile kind (`FILE: field = value: what is allowed`).

use super::ProfileError;
use crate::engine::SimDuration;

/// Checks field values of one file.
pub(crate) struct Checker<'a> {
    /// The file (or source label) errors name.
    pub(crate) file: &'a str,
}

impl Checker<'_> {
    /// `v` if it is within `lo..=hi` (a float that is NaN is not).
    pub(crate) fn range<T: PartialOrd + std::fmt::Display + Copy>(
        &self,
        field: &str,
        v: T,
        lo: T,
        hi: T,
    ) -> Result<T, ProfileError> {
        if !(lo <= v && v <= hi) {
            return Err(self.bad(field, &v, &format!("allowed {lo} to {hi}")));
        }
        Ok(v)
    }

    /// The error for `field = value`, saying what is `allowed`.
    pub(crate) fn bad(&self, field: &str, value: &dyn std::fmt::Display, allowed: &str) -> ProfileError {
        ProfileError::OutOfRange {
            file: self.file.to_string(),
            field: field.to_string(),
            value: value.to_string(),
            allowed: allowed.to_string(),
        }
    }

    /// `v`, which must be given (`why` says what needs it).
    pub(crate) fn required<T>(&self, field: &str, v: Option<T>, why: &str) -> Result<T, ProfileError> {
        v.ok_or_else(|| ProfileError::Missing {
            file: self.file.to_string(),
            field: field.to_string(),
            why: why.to_string(),
        })
    }

    /// A time in microseconds, 0 to 1e9, as a duration rounded to the nanosecond.
    pub(crate) fn us(&self, field: &str, v: f64) -> Result<SimDuration, ProfileError> {
        if !v.is_finite() || !(0.0..=1e9).contains(&v) {
            return Err(self.bad(field, &v, "allowed 0 to 1e9 microseconds"));
        }
        Ok(SimDuration((v * 1000.0).round() as u64))
    }

    /// As [`Checker::us`], and not zero once rounded.
    pub(crate) fn positive_us(&self, field: &str, v: f64) -> Result<SimDuration, ProfileError> {
        let d = self.us(field, v)?;
        if d.as_ns() == 0 {
            return Err(self.bad(field, &v, "must be greater than 0"));
        }
        Ok(d)
    }

    /// The value of the option named `v`, listing the names if there is none.
    pub(crate) fn choice<T: Copy>(&self, field: &str, v: &str, options: &[(&str, T)]) -> Result<T, ProfileError> {
        options.iter().find(|(n, _)| *n == v).map(|(_, t)| *t).ok_or_else(|| {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            self.bad(field, &format!("\"{v}\""), &format!("allowed {}", names.join(", ")))
        })
    }
}
