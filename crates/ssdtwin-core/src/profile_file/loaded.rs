//! A profile resolved and parsed: a shipped name or a path turned into a TOML table that
//! overrides may edit before a kind's `build` checks it.

use super::ProfileError;
use super::parse::parse_error;
use super::shipped::{self, ShippedTable};

/// A profile as loaded: its parsed TOML table and where it came from.
#[derive(Clone, Debug)]
pub struct LoadedProfile {
    /// File path, or `shipped:NAME` (`shipped:hosts/NAME` for a host).
    pub source: String,
    /// Shipped name or file stem.
    pub name: String,
    /// The TOML table (overrides edit this before it is built).
    pub table: toml::Table,
    /// The text as read, while no override has changed the table (errors then carry the
    /// line and column).
    text: Option<String>,
}

impl LoadedProfile {
    /// Parses profile text; `source` labels errors.
    pub fn from_str(text: &str, source: &str, name: &str) -> Result<Self, ProfileError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| parse_error(source, &e.to_string()))?;
        Ok(LoadedProfile { source: source.to_string(), name: name.to_string(), table, text: Some(text.to_string()) })
    }

    /// The resolved profile as TOML text (after overrides), as `profiles show` prints it.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.table).expect("a toml::Table always serialises")
    }

    /// The text as read, unless an override has changed the table since.
    pub(crate) fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// Forgets the text as read: the table no longer matches it.
    pub(crate) fn edited(&mut self) {
        self.text = None;
    }
}

/// Why a profile path gave no text.
pub(crate) enum FileProblem {
    /// Nothing is at the path.
    Missing,
    /// Something is, but it cannot be read as a profile (not a regular file, too large,
    /// not UTF-8): why.
    Unreadable(String),
}

/// The text of the profile file `path` and its file stem (the profile's name).
pub(crate) fn read_profile_file(path: &str) -> Result<(String, String), FileProblem> {
    let file = std::path::Path::new(path);
    let text = crate::input::read_text(file, crate::input::PROFILE_LIMIT_BYTES)
        .map_err(|e| if file.exists() { FileProblem::Unreadable(e.to_string()) } else { FileProblem::Missing })?;
    let stem = file.file_stem().map_or_else(|| path.to_string(), |s| s.to_string_lossy().into_owned());
    Ok((text, stem))
}

/// Resolves a shipped name of `table` or a path to a profile file. A shipped profile's
/// source is `shipped:{prefix}NAME`; a path that does not exist is `not_found()` (which lists
/// the shipped names of its kind); one that exists but cannot be read is
/// [`ProfileError::Unreadable`].
pub(crate) fn load_from(
    name_or_path: &str,
    table: ShippedTable,
    prefix: &str,
    not_found: impl FnOnce() -> ProfileError,
) -> Result<LoadedProfile, ProfileError> {
    if let Some(text) = shipped::text(table, name_or_path) {
        return LoadedProfile::from_str(text, &format!("shipped:{prefix}{name_or_path}"), name_or_path);
    }
    let (text, stem) = read_profile_file(name_or_path).map_err(|problem| match problem {
        FileProblem::Missing => not_found(),
        FileProblem::Unreadable(reason) => ProfileError::Unreadable { path: name_or_path.to_string(), reason },
    })?;
    LoadedProfile::from_str(&text, name_or_path, &stem)
}
