//! Profile files: the TOML that every kind of profile is written in, and what is common to
//! reading them.
//!
//! Drive profiles ([`crate::config`]), host profiles ([`crate::os`]), disk profiles
//! ([`crate::hdd`]) and pool files ([`crate::zfs`]) each have their own schema, but they are
//! read the same way, so that a user meets one set of rules and one wording of errors:
//!
//! * [`shipped`]: the tables of profiles embedded at build time, and their names;
//! * [`LoadedProfile`] (`loaded`): a shipped name or a path resolved to a parsed table;
//! * [`apply_overrides`] (`overrides`): `--set section.field=value` edits of that table;
//! * `parse` words the TOML parser's errors on one line, with the place;
//! * `checker` checks field values and words out-of-range errors;
//! * [`ProfileError`] (`error`): the error variants all of them share.
//!
//! This module sits at the bottom floor with `engine`: it knows no schema, so every layer may
//! use it and none of them needs another layer's configuration module to read its file.

mod checker;
mod error;
mod loaded;
mod overrides;
mod parse;
pub mod shipped;

pub(crate) use checker::Checker;
pub use error::ProfileError;
pub use loaded::LoadedProfile;
pub(crate) use loaded::{FileProblem, load_from, read_profile_file};
pub use overrides::apply_overrides;
pub(crate) use overrides::{Override, split_override};
pub(crate) use parse::parse_error;
