//! `--set section.field=value` overrides: a dotted field name and a TOML value (a bare word
//! is taken as a string), applied to a loaded table before it is checked.

use super::{LoadedProfile, ProfileError};

/// One override, split: the dotted path (at least two non-empty parts) and its value.
pub(crate) struct Override<'a> {
    /// `section`, …, `field`.
    pub(crate) path: Vec<&'a str>,
    /// The value, as TOML reads it, or the raw text as a string.
    pub(crate) value: toml::Value,
}

/// Splits `section.field=value`; `None` if the text is not of that shape.
pub(crate) fn split_override(text: &str) -> Option<Override<'_>> {
    let (key, raw) = text.split_once('=')?;
    let path: Vec<&str> = key.trim().split('.').collect();
    if path.len() < 2 || path.iter().any(|p| p.is_empty()) {
        return None;
    }
    let raw = raw.trim();
    let value: toml::Value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    Some(Override { path, value })
}

/// Applies `key=value` overrides, where `key` is a dotted field name and `value` is a TOML
/// value (a bare word is taken as a string).
pub fn apply_overrides(profile: &mut LoadedProfile, overrides: &[String]) -> Result<(), ProfileError> {
    for text in overrides {
        let bad = |problem: &str| ProfileError::BadOverride { text: text.clone(), problem: problem.to_string() };
        // TOML would read a second line as another key and the override would lose it.
        if text.contains(|c: char| c.is_control()) {
            return Err(ProfileError::BadOverride {
                text: text.escape_debug().to_string(),
                problem: "a value is one line, without control characters".into(),
            });
        }
        let Override { path, value } = split_override(text).ok_or_else(|| bad("expected section.field=value"))?;
        profile.edited();
        let mut table = &mut profile.table;
        for part in &path[..path.len() - 1] {
            let entry = table.entry((*part).to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = entry.as_table_mut().ok_or_else(|| bad(&format!("'{part}' is not a section")))?;
        }
        table.insert(path[path.len() - 1].to_string(), value);
    }
    Ok(())
}
