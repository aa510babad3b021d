//! The INI layer of fio job files (HOWTO "Job file format"; fio's `__parse_jobs_ini`):
//! sections, `key=value` lines and bare flags, comments, `include`, and `${VAR}`
//! expansion. It yields [`Section`]s of raw entries; what the options mean is the
//! caller's business.
//!
//! fio's rules, kept here: a comment starts at the first `;` or `#` anywhere on a line
//! (so `filename=a#b` means `a`); `${VAR}` is replaced on the whole option line after the
//! comment is cut, an undefined variable by nothing; `include FILE` may appear only inside
//! a section, and the included file may hold only options (and further includes), which
//! join the including section. Differences: whitespace around `=` is trimmed (fio keeps
//! it in the value and then misreads `size = 1m` as 1 byte); a relative include is
//! resolved against the including file's directory only (fio tries the working directory
//! first); include loops are refused instead of recursing until the stack runs out.

use crate::workload::JobError;
use std::path::{Path, PathBuf};

/// One `key=value` or bare `key` line, as written (after comment removal and `${VAR}`
/// expansion), with its place `FILE:LINE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// Option name, trimmed.
    pub key: String,
    /// Value, trimmed; `None` for a bare flag.
    pub value: Option<String>,
    /// `FILE:LINE`.
    pub place: String,
}

/// A `[name]` section and its entries, includes expanded, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Section {
    /// The name between the brackets.
    pub name: String,
    /// Entries in file order.
    pub entries: Vec<Entry>,
}

/// Looks up an environment variable for `${NAME}`.
pub(super) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Where a job file's text came from.
pub(super) struct Source<'a> {
    /// The text.
    pub text: &'a str,
    /// Label for places (`label:LINE`), usually the path as given.
    pub label: &'a str,
    /// Directory that relative includes are resolved against.
    pub base_dir: &'a Path,
    /// The file itself, if the text came from one (to catch a file including itself).
    pub path: Option<&'a Path>,
}

/// Deepest chain of includes accepted; real job files use one or two levels.
const MAX_INCLUDE_DEPTH: usize = 16;

/// Reads the sections of a job file, expanding includes.
pub(super) fn sections(source: &Source<'_>, env: Env<'_>) -> Result<Vec<Section>, JobError> {
    let mut reader = Reader { env, open_files: Vec::new(), sections: Vec::new() };
    if let Some(path) = source.path {
        reader.open_files.push(identity(path));
    }
    reader.read(source.text, source.label, source.base_dir, false)?;
    Ok(reader.sections)
}

/// The path used to recognise a file seen before.
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

struct Reader<'e> {
    env: Env<'e>,
    /// The chain of files being read, outermost first.
    open_files: Vec<PathBuf>,
    sections: Vec<Section>,
}

fn syntax(place: String, message: impl Into<String>) -> JobError {
    JobError::Syntax { place, message: message.into() }
}

impl Reader<'_> {
    /// Reads `text`; `included` forbids section headers.
    fn read(&mut self, text: &str, label: &str, base_dir: &Path, included: bool) -> Result<(), JobError> {
        for (index, raw) in text.lines().enumerate() {
            let line = raw.find([';', '#']).map_or(raw, |cut| &raw[..cut]).trim();
            if line.is_empty() {
                continue;
            }
            let place = format!("{label}:{}", index + 1);
            if line.starts_with('[') {
                if included {
                    return Err(syntax(place, "an included file may not start sections (fio refuses them too)"));
                }
                let name = line.strip_prefix('[').and_then(|l| l.strip_suffix(']'));
                match name {
                    Some(name) if !name.trim().is_empty() => {
                        self.sections.push(Section { name: name.to_string(), entries: Vec::new() });
                    }
                    _ => return Err(syntax(place, format!("bad section header '{line}', expected [name]"))),
                }
            } else if let Some(target) = include_target(line) {
                if self.sections.is_empty() {
                    return Err(syntax(place, "include outside of a [section]"));
                }
                self.include(target, base_dir, place)?;
            } else {
                let entry = entry(line, place, self.env)?;
                match self.sections.last_mut() {
                    Some(section) => section.entries.push(entry),
                    None => {
                        return Err(syntax(
                            entry.place,
                            format!("option '{line}' outside of a [section]; start one with [global] or [jobname]"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads `target` (relative to `base_dir`) into the current section.
    fn include(&mut self, target: &str, base_dir: &Path, place: String) -> Result<(), JobError> {
        if target.is_empty() {
            return Err(syntax(place, "include needs a file name"));
        }
        let path = base_dir.join(target);
        let id = identity(&path);
        if self.open_files.contains(&id) {
            return Err(syntax(place, format!("include loop: {} is already being read", path.display())));
        }
        if self.open_files.len() >= MAX_INCLUDE_DEPTH {
            return Err(syntax(place, format!("includes nested more than {MAX_INCLUDE_DEPTH} deep")));
        }
        let text = crate::input::read_text(&path, crate::input::JOB_FILE_LIMIT_BYTES)
            .map_err(|e| JobError::Unreadable { place, path: path.display().to_string(), reason: e.to_string() })?;
        let dir = path.parent().unwrap_or(base_dir).to_path_buf();
        self.open_files.push(id);
        let result = self.read(&text, &path.display().to_string(), &dir, true);
        self.open_files.pop();
        result
    }
}

/// `include FILE` → `FILE`; other lines → `None`.
fn include_target(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("include")?;
    if rest.is_empty() || rest.starts_with(char::is_whitespace) { Some(rest.trim()) } else { None }
}

/// Splits an option line after expanding `${VAR}`s.
fn entry(line: &str, place: String, env: Env<'_>) -> Result<Entry, JobError> {
    let line = expand_env(line, env);
    let (key, value) = match line.split_once('=') {
        Some((key, value)) => (key.trim(), Some(value.trim().to_string())),
        None => (line.trim(), None),
    };
    if key.is_empty() {
        return Err(syntax(place, format!("option without a name: '{line}'")));
    }
    Ok(Entry { key: key.to_string(), value, place })
}

/// Replaces each `${NAME}` by the variable's value, or by nothing if it is unset (fio's
/// `option_dup_subs`). A `${` without a closing `}` stays as written.
pub(super) fn expand_env(text: &str, env: Env<'_>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else { break };
        out.push_str(&rest[..start]);
        out.push_str(&env(&rest[start + 2..start + 2 + len]).unwrap_or_default());
        rest = &rest[start + 2 + len + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn read(text: &str) -> Result<Vec<Section>, JobError> {
        sections(&Source { text, label: "t.fio", base_dir: Path::new("/nonexistent"), path: None }, &no_env)
    }

    fn entry_of(key: &str, value: Option<&str>, line: usize) -> Entry {
        Entry { key: key.into(), value: value.map(Into::into), place: format!("t.fio:{line}") }
    }

    /// A fresh directory under the system temp dir.
    fn temp_dir(tag: &str) -> PathBuf {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("ssdtwin-ini-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        dir
    }

    // ---- lines, comments, sections ----

    #[test]
    fn sections_entries_and_comments() {
        let text = "; leading comment\n# another\n\n[global]\nsize = 32m   # trailing\ntime_based\n[job one]\nrw=randread;x\nfilename=a#b\r\n";
        let got = read(text).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].name, "global");
        assert_eq!(got[0].entries, vec![entry_of("size", Some("32m"), 5), entry_of("time_based", None, 6)]);
        assert_eq!(got[1].name, "job one");
        assert_eq!(got[1].entries, vec![entry_of("rw", Some("randread"), 8), entry_of("filename", Some("a"), 9)]);
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let err = |text: &str| read(text).unwrap_err().to_string();
        assert_eq!(
            err("bs=4k\n"),
            "t.fio:1: option 'bs=4k' outside of a [section]; start one with [global] or [jobname]"
        );
        assert_eq!(err("[job\n"), "t.fio:1: bad section header '[job', expected [name]");
        assert_eq!(err("\n[]\n"), "t.fio:2: bad section header '[]', expected [name]");
        assert_eq!(err("[j]\n=4\n"), "t.fio:2: option without a name: '=4'");
        assert_eq!(err("include x.fio\n"), "t.fio:1: include outside of a [section]");
        assert_eq!(err("[j]\ninclude\n"), "t.fio:2: include needs a file name");
    }

    // ---- ${VAR} ----

    #[test]
    fn env_expansion() {
        let env = |name: &str| (name == "BS").then(|| "8k".to_string());
        assert_eq!(expand_env("bs=${BS}", &env), "bs=8k");
        assert_eq!(expand_env("a=${NOPE}x", &env), "a=x");
        assert_eq!(expand_env("a=${}", &env), "a=");
        assert_eq!(expand_env("a=${BS", &env), "a=${BS");
        assert_eq!(expand_env("${BS}-${BS}", &env), "8k-8k");
        let got =
            sections(&Source { text: "[j]\nbs=${BS}\n", label: "t.fio", base_dir: Path::new("."), path: None }, &env);
        assert_eq!(got.unwrap()[0].entries, vec![entry_of("bs", Some("8k"), 2)]);
    }

    // ---- include ----

    #[test]
    fn include_joins_the_section_relative_to_the_including_file() {
        let dir = temp_dir("include");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/inner.fio"), "iodepth=4\n").unwrap();
        std::fs::write(dir.join("common.fio"), "bs=8k\ninclude sub/inner.fio\n").unwrap();
        let text = "[j]\nrw=read\ninclude common.fio\nsize=1m\n";
        let got = sections(&Source { text, label: "main.fio", base_dir: &dir, path: None }, &no_env).unwrap();
        let keys: Vec<&str> = got[0].entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["rw", "bs", "iodepth", "size"]);
        assert_eq!(got[0].entries[1].place, format!("{}:1", dir.join("common.fio").display()));
        assert_eq!(got[0].entries[2].place, format!("{}:1", dir.join("sub/inner.fio").display()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn include_errors() {
        let dir = temp_dir("include-errors");
        std::fs::write(dir.join("a.fio"), "include b.fio\n").unwrap();
        std::fs::write(dir.join("b.fio"), "include a.fio\n").unwrap();
        std::fs::write(dir.join("section.fio"), "[other]\n").unwrap();
        let run = |text: &str| sections(&Source { text, label: "m.fio", base_dir: &dir, path: None }, &no_env);
        let loop_err = run("[j]\ninclude a.fio\n").unwrap_err().to_string();
        assert_eq!(
            loop_err,
            format!(
                "{}:1: include loop: {} is already being read",
                dir.join("b.fio").display(),
                dir.join("a.fio").display()
            )
        );
        assert_eq!(
            run("[j]\ninclude section.fio\n").unwrap_err().to_string(),
            format!(
                "{}:1: an included file may not start sections (fio refuses them too)",
                dir.join("section.fio").display()
            )
        );
        let missing = run("[j]\ninclude missing.fio\n").unwrap_err();
        assert!(matches!(&missing, JobError::Unreadable { place, .. } if place == "m.fio:2"), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_including_itself_is_a_loop() {
        let dir = temp_dir("self");
        let path = dir.join("self.fio");
        std::fs::write(&path, "[j]\ninclude self.fio\n").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let label = path.display().to_string();
        let err =
            sections(&Source { text: &text, label: &label, base_dir: &dir, path: Some(&path) }, &no_env).unwrap_err();
        assert_eq!(err.to_string(), format!("{label}:2: include loop: {label} is already being read"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
