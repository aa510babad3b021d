//! The TOML parser's errors, worded on one line with the place: a profile error names the
//! file, then the line and column (or the section), then the cause.

use super::ProfileError;

/// A [`ProfileError::Parse`] for `source` from one of toml's messages.
pub(crate) fn parse_error(source: &str, message: &str) -> ProfileError {
    // toml's messages span several lines: "TOML parse error at line L, column C", a source
    // excerpt, then the cause; or, without spans, the cause then "in `section`".
    let lines: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let position = lines.iter().find_map(|l| l.strip_prefix("TOML parse error at "));
    let section = lines.iter().find_map(|l| l.strip_prefix("in `").and_then(|r| r.strip_suffix('`')));
    let cause = lines
        .iter()
        .rev()
        .find(|l| {
            !l.starts_with("in `")
                && !l.starts_with('|')
                && !l.starts_with('^')
                && !l.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
        .copied()
        .unwrap_or("invalid TOML");
    let message = match (position, section) {
        (Some(p), _) => format!("{p}: {cause}"),
        (None, Some(s)) => format!("[{s}]: {cause}"),
        (None, None) => cause.to_string(),
    };
    ProfileError::Parse { file: source.to_string(), message }
}
