//! Reads fio job files and command lines into a [`JobSet`], as fio 3.33 reads them.
//!
//! Read the fio HOWTO ("Job file format", "Parameter types", "Job file parameters") before
//! editing; `shared/reference/interfaces.md` §1 condenses it. Behaviour that the HOWTO
//! leaves open was checked against Debian's fio 3.33 binary, whose JSON `"job options"`
//! and `"global options"` this parser reproduces.
//!
//! The parts, each calling only the ones below it:
//!
//! * `ini` splits a job file into sections of raw `key=value` entries (comments,
//!   `include`, `${VAR}`);
//! * `options` is the table of supported options: name, aliases, flag or value, parse
//!   priority, and how the value sets a job; every other option is refused;
//! * `values`, `splits` and `arith` parse fio's value syntax (sizes with `kb_base`,
//!   times, per-direction lists, `bssplit`/zone lists, `(2*4096)`);
//! * `draft` holds a job while its options are read and validates it into a
//!   [`JobSpec`].
//!
//! # How jobs inherit, and what is echoed
//!
//! As in fio, `[global]` sections and command-line options before the first `--name` edit
//! one set of defaults, and each job starts from those defaults *as they are when the job
//! starts*: a second `[global]` affects only the jobs after it. fio treats every section
//! (and `--name=`) whose name starts with `global` as global; so does ssdtwin.
//!
//! [`JobSpec::options`] and [`JobSet::global_options`] hold what fio prints as
//! `"job options"` and `"global options"`: only options set in that job's own section (or
//! after its `--name`, which itself comes first) or in global sections, under fio's
//! canonical name (`blocksize=` is echoed as `bs`), with the value as written after
//! `${VAR}` expansion and comment removal (fio echoes the expanded value). An option set
//! twice keeps its first position and its last value. Bare flags (`time_based`) are not
//! echoed; `time_based=1` is. Within one file section fio parses `kb_base` first and
//! `filename` last, and echoes them in that order; so does ssdtwin.
//!
//! `kb_base` therefore governs every size in its own section wherever it is written, and
//! is inherited from `[global]`; on the command line, where fio does not reorder, it
//! governs only the options after it.
//!
//! # Command lines
//!
//! `fio [--opt=value | --flag | --opt value]... [jobfile]...`: `--name=x` starts a job,
//! `--name=global` returns to the defaults. Job files are read after all command-line
//! options, in order, and their jobs come after the command-line jobs (fio's
//! `parse_options`). Command-line defaults apply to the command-line jobs and to the
//! first file; each later file starts again from fio's defaults, and its first job waits
//! for the earlier ones (`stonewall`), again as fio does. Since fio forgets the earlier
//! defaults, [`JobSet::global_options`] is then that last file's global options. Job
//! options are not `${VAR}`-expanded on the command line (the shell does that). fio's
//! program options (`--output-format`, ...) are refused here: the caller handles them.
//!
//! # Contract
//!
//! Nothing here panics on any input; every refusal is a [`JobError`] on one line that
//! names the place (`FILE:LINE` or `command line`), the option, the value and what is
//! allowed. Options ssdtwin does not simulate are refused with
//! [`JobError::Unsupported`], never ignored. Where fio 3.33 silently misreads a value
//! (`runtime=1.5`, `bs=4kx`, `io_size=12.5%`), ssdtwin refuses it.
//!
//! ```
//! use ssdtwin_core::workload::fio::parse_job_text;
//! use ssdtwin_core::workload::{BlockSize, RwPattern};
//! use std::path::Path;
//!
//! let text = "[global]\nbs=4k\niodepth=32\n\n[randread]\nrw=randread\nbs=8k,16k\n";
//! let set = parse_job_text(text, "example.fio", Path::new(".")).unwrap();
//! let job = &set.jobs[0];
//! assert_eq!(job.rw, RwPattern::RandRead);
//! assert_eq!(job.iodepth, 32);
//! assert_eq!(job.bs[0], BlockSize::Fixed(8192));
//! assert_eq!(job.bs[1], BlockSize::Fixed(16384));
//! assert_eq!(set.global_options, [("bs".to_string(), "4k".to_string()), ("iodepth".into(), "32".into())]);
//! assert_eq!(job.options, [("rw".to_string(), "randread".to_string()), ("bs".into(), "8k,16k".into())]);
//! ```

mod arith;
mod draft;
mod ini;
mod options;
mod splits;
mod values;

use crate::workload::{JobError, JobSet, JobSpec};
use draft::JobDraft;
use options::{OptionDef, Takes};
use std::cmp::Reverse;
use std::fmt::Write;
use std::path::Path;

/// Place label for errors in command-line arguments.
const COMMAND_LINE: &str = "command line";

/// fio's `REAL_MAX_JOBS`: the most jobs (clones included) one run has.
const MAX_JOBS: u64 = 4096;

/// Parses a job file; relative includes are resolved against its directory.
pub fn parse_job_file(path: &Path) -> Result<JobSet, JobError> {
    let mut session = Session::new(&process_env);
    session.read_file(path, COMMAND_LINE)?;
    session.finish(&path.display().to_string())
}

/// Parses job-file text; `source` labels errors (`source:LINE`), `base_dir` resolves
/// `include`.
pub fn parse_job_text(text: &str, source: &str, base_dir: &Path) -> Result<JobSet, JobError> {
    parse_text_with_env(text, source, base_dir, &process_env)
}

/// Parses fio-style arguments (`--name=a --rw=randread ... [jobfile ...]`), without the
/// program name.
pub fn parse_command_line(args: &[String]) -> Result<JobSet, JobError> {
    let mut session = Session::new(&process_env);
    let mut job: Option<JobDraft> = None;
    let mut files = Vec::new();
    let mut args = args.iter();
    let mut only_files = false;
    while let Some(arg) = args.next() {
        if let Some(name) = section_option(arg, &mut args) {
            session.sections.push(name?);
            continue;
        }
        let option = if only_files { None } else { arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) };
        let Some(option) = option else {
            files.push(arg);
            continue;
        };
        if option.is_empty() {
            if arg == "--" {
                only_files = true;
                continue;
            }
            return Err(JobError::Syntax {
                place: COMMAND_LINE.into(),
                message: "reading a job file from standard input ('-') is not supported; give its path".into(),
            });
        }
        let (key, inline_value) = match option.split_once('=') {
            Some((key, value)) => (key, Some(value)),
            None => (option, None),
        };
        let def = lookup(key, COMMAND_LINE, true)?;
        // getopt also accepts `--bs 4k` for options that need a value.
        let value = match (inline_value, def.takes) {
            (None, Takes::Value) => args.next().map(String::as_str),
            _ => inline_value,
        };
        if def.name == "name" {
            if let Some(done) = job.take() {
                session.push_job(done, COMMAND_LINE)?;
            }
            let name = value.unwrap_or_default();
            if !name.starts_with("global") {
                job = Some(JobDraft::job_from(&session.global, name));
            }
        }
        set(job.as_mut().unwrap_or(&mut session.global), def, key, value, COMMAND_LINE)?;
    }
    if let Some(done) = job {
        session.push_job(done, COMMAND_LINE)?;
    }
    for (index, file) in files.into_iter().enumerate() {
        if index > 0 {
            // fio resets its defaults before each later file and separates it by a stonewall.
            session.global = JobDraft::defaults();
            session.stonewall_next_job = true;
        }
        session.read_file(Path::new(file), COMMAND_LINE)?;
    }
    session.finish(COMMAND_LINE)
}

/// Every fio option name (aliases included) ssdtwin accepts, each with whether it is a flag
/// that may be given bare.
pub fn option_names() -> Vec<(&'static str, bool)> {
    options::names()
}

/// fio's `--section=NAME` (or `--section NAME`): job files run only the sections named
/// (and their `[global]`s); `None` if `arg` is another argument.
fn section_option<'a>(arg: &str, rest: &mut impl Iterator<Item = &'a String>) -> Option<Result<String, JobError>> {
    let missing = || JobError::Syntax { place: COMMAND_LINE.into(), message: "--section needs a section name".into() };
    match arg.strip_prefix("--section") {
        Some("") => Some(rest.next().filter(|n| !n.is_empty()).cloned().ok_or_else(missing)),
        Some(value) => value.strip_prefix('=').map(|n| if n.is_empty() { Err(missing()) } else { Ok(n.to_string()) }),
        None => None,
    }
}

/// fio's `--showcmd`: each job file as the command line that would run it, one line per
/// file (`fio --opt=value ... --name=JOB ...`, trailing space included, as fio prints it);
/// `--section` limits the sections as for a run. Command-line jobs print nothing.
pub fn showcmd(args: &[String]) -> Result<String, JobError> {
    let mut sections = Vec::new();
    let mut files = Vec::new();
    let mut args = args.iter();
    let mut only_files = false;
    while let Some(arg) = args.next() {
        if let Some(name) = section_option(arg, &mut args) {
            sections.push(name?);
        } else if only_files || !arg.starts_with('-') {
            files.push(arg);
        } else if arg == "--" {
            only_files = true;
        }
    }
    let mut out = String::new();
    for file in files {
        out.push_str("fio ");
        for section in file_sections(Path::new(file), COMMAND_LINE, &process_env)? {
            if !section_selected(&sections, &section.name) {
                continue;
            }
            if !section.name.starts_with("global") {
                write!(out, "--name={} ", section.name).expect("writing to a String cannot fail");
            }
            // fio echoes options under their own names, in the order it parsed them: each
            // section sorted (stably) by parse priority. Options ssdtwin does not know keep
            // their spelling and the default priority.
            let mut entries: Vec<(String, i8, Option<String>)> = section
                .entries
                .into_iter()
                .map(|e| match options::lookup(&e.key) {
                    Some(def) => (def.name.to_string(), def.priority, e.value),
                    None => (e.key, 0, e.value),
                })
                .collect();
            entries.sort_by_key(|(_, priority, _)| Reverse(*priority));
            for (name, _, value) in entries {
                // fio quotes only the description (it may hold spaces).
                let quote = if name == "description" { "\"" } else { "" };
                match value {
                    Some(v) => write!(out, "--{name}={quote}{v}{quote} "),
                    None => write!(out, "--{name} "),
                }
                .expect("writing to a String cannot fail");
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// The sections of the job file `path` (includes expanded); `place` is where it was named,
/// for the error if it cannot be read.
fn file_sections(path: &Path, place: &str, env: ini::Env<'_>) -> Result<Vec<ini::Section>, JobError> {
    let text = crate::input::read_text(path, crate::input::JOB_FILE_LIMIT_BYTES).map_err(|e| JobError::Unreadable {
        place: place.into(),
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let base_dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let label = path.display().to_string();
    ini::sections(&ini::Source { text: &text, label: &label, base_dir, path: Some(path) }, env)
}

/// fio's `skip_this_section`: with `--section` names given, a job-file section runs only if
/// it is named (every `[global]` is read).
fn section_selected(selected: &[String], name: &str) -> bool {
    name.starts_with("global") || selected.is_empty() || selected.iter().any(|s| s == name)
}

/// The process environment, for `${VAR}`.
fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// [`parse_job_text`] with a given environment (tests cannot set the process's).
fn parse_text_with_env(text: &str, source: &str, base_dir: &Path, env: ini::Env<'_>) -> Result<JobSet, JobError> {
    let mut session = Session::new(env);
    session.read_text(&ini::Source { text, label: source, base_dir, path: None })?;
    session.finish(source)
}

/// Jobs read so far and the defaults the next job starts from (fio's `def_thread`).
struct Session<'e> {
    env: ini::Env<'e>,
    global: JobDraft,
    jobs: Vec<JobSpec>,
    /// Set for the first job of every job file after the first.
    stonewall_next_job: bool,
    /// `--section` names: job-file sections to run (all when empty).
    sections: Vec<String>,
}

impl<'e> Session<'e> {
    fn new(env: ini::Env<'e>) -> Self {
        Session { env, global: JobDraft::defaults(), jobs: Vec::new(), stonewall_next_job: false, sections: Vec::new() }
    }

    /// Reads a job file; `place` is where it was named, for the error if it is unreadable.
    fn read_file(&mut self, path: &Path, place: &str) -> Result<(), JobError> {
        for section in file_sections(path, place, self.env)? {
            self.read_section(section)?;
        }
        Ok(())
    }

    fn read_text(&mut self, source: &ini::Source<'_>) -> Result<(), JobError> {
        for section in ini::sections(source, self.env)? {
            self.read_section(section)?;
        }
        Ok(())
    }

    /// Applies one section to the defaults or to a new job, in fio's priority order.
    fn read_section(&mut self, section: ini::Section) -> Result<(), JobError> {
        if !section_selected(&self.sections, &section.name) {
            // fio skips a section not named by --section without reading its options.
            return Ok(());
        }
        let global = section.name.starts_with("global");
        // Resolve names in file order, so the first unknown option is the one reported.
        let mut entries = Vec::with_capacity(section.entries.len());
        for entry in section.entries {
            entries.push((lookup(&entry.key, &entry.place, false)?, entry));
        }
        entries.sort_by_key(|(def, _)| Reverse(def.priority));
        if global {
            for (def, entry) in entries {
                set(&mut self.global, def, &entry.key, entry.value.as_deref(), &entry.place)?;
            }
            return Ok(());
        }
        let mut job = JobDraft::job_from(&self.global, &section.name);
        if std::mem::take(&mut self.stonewall_next_job) {
            job.spec.stonewall = true;
        }
        let place = entries.last().map_or_else(|| format!("section [{}]", section.name), |(_, e)| e.place.clone());
        for (def, entry) in entries {
            set(&mut job, def, &entry.key, entry.value.as_deref(), &entry.place)?;
        }
        self.push_job(job, &place)
    }

    /// Adds a finished job, refusing one that takes the run past fio's limit on jobs
    /// (every `numjobs` clone is one): a job file of many sections is refused as it is read,
    /// not after its jobs have taken memory.
    fn push_job(&mut self, job: JobDraft, place: &str) -> Result<(), JobError> {
        let job = job.finish()?;
        let clones: u64 = self.jobs.iter().chain([&job]).map(|j| u64::from(j.numjobs)).sum();
        if clones > MAX_JOBS {
            return Err(JobError::Syntax {
                place: place.into(),
                message: format!(
                    "job '{}' takes the run to {clones} jobs counting numjobs clones; fio runs at most {MAX_JOBS} \
                     (its REAL_MAX_JOBS)",
                    job.name
                ),
            });
        }
        self.jobs.push(job);
        Ok(())
    }

    fn finish(self, place: &str) -> Result<JobSet, JobError> {
        if self.jobs.is_empty() {
            return Err(JobError::NoJobs { place: place.into() });
        }
        // fio's wait_for names an earlier job, by a name no other job has.
        for (i, job) in self.jobs.iter().enumerate() {
            let Some(waitee) = &job.wait_for else { continue };
            let named: Vec<usize> = (0..self.jobs.len()).filter(|&j| &self.jobs[j].name == waitee).collect();
            let problem = match named[..] {
                [] => Some(format!("wait_for={waitee}: there is no job '{waitee}'")),
                [j] if j >= i => Some(format!("wait_for={waitee}: '{waitee}' must come before '{}'", job.name)),
                [_] => None,
                _ => Some(format!(
                    "wait_for={waitee}: {} jobs are named '{waitee}'; the waitee's name must be unique",
                    named.len()
                )),
            };
            if let Some(message) = problem {
                return Err(JobError::Syntax { place: place.into(), message });
            }
        }
        Ok(JobSet { global_options: self.global.spec.options, jobs: self.jobs })
    }
}

/// The supported option `name`, or [`JobError::Unsupported`] with advice.
fn lookup(name: &str, place: &str, on_command_line: bool) -> Result<&'static OptionDef, JobError> {
    options::lookup(name).ok_or_else(|| JobError::Unsupported {
        place: place.into(),
        option: name.into(),
        hint: options::unsupported_hint(name, on_command_line),
    })
}

/// fio's host-dependent keywords, which a simulation cannot give a meaning.
const HOST_KEYWORDS: [&str; 3] = ["$pagesize", "$mb_memory", "$ncpus"];

/// Applies `key` (as written) with `value` to `draft` and echoes it.
fn set(draft: &mut JobDraft, def: &OptionDef, key: &str, value: Option<&str>, place: &str) -> Result<(), JobError> {
    let bad = |value: &str, allowed: String| JobError::BadValue {
        place: place.into(),
        option: key.into(),
        value: value.into(),
        allowed,
    };
    let (text, echoed) = match (value, def.takes) {
        (Some(""), _) | (None, Takes::Value) => return Err(bad("", "needs a value".into())),
        (None, Takes::Flag) => ("1", false),
        (Some(v), _) => (v, true),
    };
    if let Some(keyword) = HOST_KEYWORDS.iter().find(|k| text.contains(*k)) {
        return Err(bad(text, format!("fio's host-dependent {keyword} is not supported; write the number")));
    }
    (def.apply)(draft, text).map_err(|allowed| bad(text, allowed))?;
    if echoed {
        draft.echo(def.name, text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{BlockSize, Direction, Distribution, RwPattern, SizeSpec};
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<JobSet, JobError> {
        parse_text_with_env(text, "job.fio", Path::new("/nonexistent"), &|_| None)
    }

    fn err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_string()).collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_string(), (*v).to_string())).collect()
    }

    /// A fresh directory under the system temp dir.
    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("ssdtwin-parse-{tag}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir is writable");
        dir
    }

    // ---- the fio 3.33 reference run ----

    const REFERENCE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/fio-3.33");

    /// `(key, value)` pairs of a JSON object of strings, in order.
    fn json_pairs(value: &serde_json::Value) -> Vec<(String, String)> {
        let object = value.as_object().expect("fio prints options as an object");
        object.iter().map(|(k, v)| (k.clone(), v.as_str().expect("option values are strings").to_string())).collect()
    }

    #[test]
    fn reference_job_file_matches_fio_3_33() {
        let set = parse_job_file(&Path::new(REFERENCE_DIR).join("randrw-2jobs.fio")).unwrap();
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(REFERENCE_DIR).join("randrw-2jobs-group.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(set.global_options, json_pairs(&json["global options"]));
        assert_eq!(set.jobs.len(), 1);
        let job = &set.jobs[0];
        assert_eq!(job.options, json_pairs(&json["jobs"][0]["job options"]));

        let mut expected = JobSpec::new("mix");
        expected.options = job.options.clone();
        expected.filename = Some("fiotest2".into());
        expected.size = Some(SizeSpec::Bytes(32 << 20));
        expected.direct = true;
        expected.ioengine = "libaio".into();
        expected.iodepth = 8;
        expected.iodepth_given = true;
        expected.bs = [BlockSize::Fixed(4096), BlockSize::Fixed(4096), BlockSize::Fixed(4096)];
        expected.runtime_ns = Some(2_000_000_000);
        expected.time_based = true;
        expected.ramp_time_ns = 1_000_000_000;
        expected.group_reporting = true;
        expected.percentile_list = vec![50.0, 99.0, 99.9, 99.99];
        expected.write_lat_log = Some("lat".into());
        expected.write_bw_log = Some("bw".into());
        expected.write_iops_log = Some("iops".into());
        expected.log_avg_msec = 500;
        expected.log_offset = true;
        expected.rw = RwPattern::RandRw;
        expected.rwmix_read = 70;
        expected.numjobs = 2;
        expected.norandommap = true;
        let zipf = Distribution::Zipf { theta: 1.2, center: None };
        expected.random_distribution = [zipf.clone(), zipf.clone(), zipf];
        assert_eq!(*job, expected);
    }

    #[test]
    fn command_line_globals_come_before_the_first_files_globals() {
        // The json+ reference was run as `fio --group_reporting=0 randrw-2jobs.fio`.
        let file = format!("{REFERENCE_DIR}/randrw-2jobs.fio");
        let set = parse_command_line(&args(&["--group_reporting=0", &file])).unwrap();
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(REFERENCE_DIR).join("randrw-2jobs-jsonplus.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(set.global_options, json_pairs(&json["global options"]));
        assert_eq!(set.jobs[0].options, json_pairs(&json["jobs"][0]["job options"]));
        assert!(set.jobs[0].group_reporting, "the file's bare group_reporting comes later");
    }

    #[test]
    fn reference_command_line_job_echoes_its_name() {
        // fio --name=t --filename=fiotest --size=64m --rw=randread --bs=4k --direct=1
        //     --ioengine=psync --runtime=3 (randread-psync.json)
        let line =
            "--name=t --filename=fiotest --size=64m --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=3";
        let set = parse_command_line(&args(&line.split(' ').collect::<Vec<_>>())).unwrap();
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(Path::new(REFERENCE_DIR).join("randread-psync.json")).unwrap(),
        )
        .unwrap();
        assert!(set.global_options.is_empty());
        assert_eq!(set.jobs[0].options, json_pairs(&json["jobs"][0]["job options"]));
        assert!(crate::workload::is_sync_engine(&set.jobs[0].ioengine));
    }

    // ---- [global] scoping ----

    #[test]
    fn each_global_section_affects_only_later_jobs() {
        let text = "[global]\nbs=8k\niodepth=4\n[a]\n[global]\niodepth=16\nrw=write\n[b]\niodepth=2\n[c]\n";
        let set = parse(text).unwrap();
        let depths: Vec<u32> = set.jobs.iter().map(|j| j.iodepth).collect();
        assert_eq!(depths, [4, 2, 16]);
        assert_eq!(set.jobs[0].rw, RwPattern::Read);
        assert_eq!(set.jobs[2].rw, RwPattern::Write);
        assert!(set.jobs.iter().all(|j| j.bs[0] == BlockSize::Fixed(8192)));
        assert_eq!(set.global_options, pairs(&[("bs", "8k"), ("iodepth", "16"), ("rw", "write")]));
        assert_eq!(set.jobs[0].options, []);
        assert_eq!(set.jobs[1].options, pairs(&[("iodepth", "2")]));
    }

    #[test]
    fn echo_uses_fio_names_priorities_and_last_values() {
        let text = "[j]\nfilename=f\nreadwrite=read\nblocksize=8k\nrw=write\nkb_base=1000\nsize=1m\nio_limit=512k\ntime_based\nruntime=1\n";
        let set = parse(text).unwrap();
        let expected = [
            ("kb_base", "1000"),
            ("rw", "write"),
            ("bs", "8k"),
            ("size", "1m"),
            ("io_size", "512k"),
            ("runtime", "1"),
            ("filename", "f"),
        ];
        assert_eq!(set.jobs[0].options, pairs(&expected));
        // kb_base is parsed first in its section, so it governs bs written above it.
        assert_eq!(set.jobs[0].bs[0], BlockSize::Fixed(8000));
        assert_eq!(set.jobs[0].rw, RwPattern::Write);
        assert!(set.jobs[0].time_based);
    }

    #[test]
    fn global_kb_base_is_inherited() {
        let set = parse("[global]\nkb_base=1000\n[a]\nbs=4k\n[b]\nkb_base=1024\nbs=4k\n").unwrap();
        assert_eq!(set.jobs[0].bs[0], BlockSize::Fixed(4000));
        assert_eq!(set.jobs[1].bs[0], BlockSize::Fixed(4096));
    }

    #[test]
    fn section_names_and_name_option() {
        let set = parse("[globalish]\niodepth=3\n[x]\nname=renamed\n").unwrap();
        assert_eq!(set.global_options, pairs(&[("iodepth", "3")]));
        assert_eq!(set.jobs[0].name, "renamed");
        assert_eq!(set.jobs[0].iodepth, 3);
        assert_eq!(set.jobs[0].options, pairs(&[("name", "renamed")]));
    }

    // ---- ${VAR} ----

    #[test]
    fn env_values_are_expanded_and_echoed_expanded() {
        let env = |name: &str| (name == "BS").then(|| "16k".to_string());
        let set =
            parse_text_with_env("[j]\nbs=${BS}\nfilename=dev${UNSET}\n", "job.fio", Path::new("."), &env).unwrap();
        assert_eq!(set.jobs[0].bs[1], BlockSize::Fixed(16384));
        assert_eq!(set.jobs[0].filename.as_deref(), Some("dev"));
        assert_eq!(set.jobs[0].options, pairs(&[("bs", "16k"), ("filename", "dev")]));
    }

    #[test]
    fn the_process_environment_is_used() {
        let path = std::env::var("PATH").unwrap_or_default();
        let set = parse_job_text("[j]\nwrite_bw_log=x${PATH}\n", "job.fio", Path::new(".")).unwrap();
        assert_eq!(set.jobs[0].write_bw_log, Some(format!("x{path}")));
    }

    // ---- include ----

    #[test]
    fn job_file_with_include() {
        let dir = temp_dir("file");
        std::fs::write(dir.join("common.fio"), "bs=8k\niodepth=${NOT_SET_ANYWHERE_SSDTWIN}7\n").unwrap();
        std::fs::write(dir.join("main.fio"), "[global]\ninclude common.fio\n[j]\nrw=randwrite\n").unwrap();
        let set = parse_job_file(&dir.join("main.fio")).unwrap();
        assert_eq!(set.global_options, pairs(&[("bs", "8k"), ("iodepth", "7")]));
        assert_eq!(set.jobs[0].iodepth, 7);
        assert_eq!(set.jobs[0].rw, RwPattern::RandWrite);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // ---- bssplit, zoned, per-direction bs ----

    #[test]
    fn bssplit_and_zoned_through_a_file() {
        let text = "[j]\nrw=randrw\nbssplit=4k/50:1k/:32k/,64k\nrandom_distribution=zoned:60/10:30/20:10/\n";
        let job = &parse(text).unwrap().jobs[0];
        assert_eq!(job.bs[0], BlockSize::Split(vec![(1024, 25.0), (32768, 25.0), (4096, 50.0)]));
        assert_eq!(job.bs[1], BlockSize::Split(vec![(65536, 100.0)]));
        let Distribution::Zoned(zones) = &job.random_distribution[Direction::Write.index()] else {
            panic!("writes are zoned")
        };
        assert_eq!(zones.iter().map(|z| z.access_pct).collect::<Vec<_>>(), [60.0, 30.0, 10.0]);
        assert_eq!(
            err("[j]\nbssplit=4k/60:8k/50\n"),
            "job.fio:2: bssplit=4k/60:8k/50: shares add up to 110%, more than 100%"
        );
    }

    #[test]
    fn per_direction_block_sizes() {
        let job = &parse("[j]\nbs=8k,32k\n[k]\nbs=,8k,\n").unwrap();
        assert_eq!(job.jobs[0].bs, [BlockSize::Fixed(8192), BlockSize::Fixed(32768), BlockSize::Fixed(32768)]);
        assert_eq!(job.jobs[1].bs, [BlockSize::Fixed(4096), BlockSize::Fixed(8192), BlockSize::Fixed(4096)]);
    }

    // ---- command line ----

    #[test]
    fn command_line_global_and_job_split() {
        let set = parse_command_line(&args(&[
            "--ioengine=libaio",
            "--bs=8k",
            "--name=global",
            "--size",
            "1m",
            "--name=a",
            "--rw=read",
            "--time_based",
            "--runtime=1",
            "--name=global",
            "--iodepth=2",
            "--name=b",
        ]))
        .unwrap();
        assert_eq!(
            set.global_options,
            pairs(&[("ioengine", "libaio"), ("bs", "8k"), ("name", "global"), ("size", "1m"), ("iodepth", "2")])
        );
        assert_eq!(set.jobs.len(), 2);
        let (a, b) = (&set.jobs[0], &set.jobs[1]);
        assert_eq!(a.options, pairs(&[("name", "a"), ("rw", "read"), ("runtime", "1")]));
        assert_eq!(b.options, pairs(&[("name", "b")]));
        assert_eq!((a.iodepth, b.iodepth), (1, 2));
        assert!(a.time_based && !b.time_based);
        assert_eq!(b.size, Some(SizeSpec::Bytes(1 << 20)));
        assert_eq!(b.ioengine, "libaio");
    }

    #[test]
    fn command_line_kb_base_is_not_reordered() {
        let set = parse_command_line(&args(&["--bs=8k", "--kb_base=1000", "--size=1m", "--name=j"])).unwrap();
        assert_eq!(set.jobs[0].bs[0], BlockSize::Fixed(8192));
        assert_eq!(set.jobs[0].size, Some(SizeSpec::Bytes(1_000_000)));
    }

    #[test]
    fn command_line_jobs_come_before_file_jobs_and_later_files_restart() {
        let dir = temp_dir("files");
        std::fs::write(dir.join("f1.fio"), "[global]\nsize=1m\n[f1]\nrw=read\n").unwrap();
        std::fs::write(dir.join("f2.fio"), "[global]\nsize=512k\n[f2]\nrw=write\n[f2b]\n").unwrap();
        let (f1, f2) = (dir.join("f1.fio"), dir.join("f2.fio"));
        let list =
            ["--ioengine=libaio", "--bs=8k", "--name=c", f1.to_str().unwrap(), "--size=2m", f2.to_str().unwrap()];
        let set = parse_command_line(&args(&list)).unwrap();
        let names: Vec<&str> = set.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["c", "f1", "f2", "f2b"]);
        // Command-line defaults reach the first file only; the second file starts afresh.
        assert_eq!(set.jobs[1].bs[0], BlockSize::Fixed(8192));
        assert_eq!(set.jobs[1].ioengine, "libaio");
        assert_eq!(set.jobs[2].bs[0], BlockSize::Fixed(4096));
        assert_eq!(set.jobs[2].ioengine, "psync");
        assert!(!set.jobs[1].stonewall && set.jobs[2].stonewall && !set.jobs[3].stonewall);
        assert_eq!(set.jobs[0].size, Some(SizeSpec::Bytes(2 << 20)), "--size=2m follows --name=c");
        assert_eq!(set.global_options, pairs(&[("size", "512k")]));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn command_line_errors() {
        let err = |list: &[&str]| parse_command_line(&args(list)).unwrap_err().to_string();
        assert_eq!(err(&[]), "command line: no jobs defined");
        assert_eq!(err(&["--bs=4k"]), "command line: no jobs defined");
        assert_eq!(
            err(&["--name=a", "--write_barrier=1"]),
            "command line: fio option 'write_barrier' is not supported by ssdtwin; barrier writes and sync_file_range are not modelled; use fsync=, fdatasync= or sync=1"
        );
        assert_eq!(
            err(&["--output-format=json", "--name=a"]),
            "command line: fio option 'output-format' is not supported by ssdtwin; it is a fio program option, not a job option: give it to the ssdtwin fio command"
        );
        assert_eq!(err(&["--name=a", "--iodepth=0"]), "command line: iodepth=0: allowed 1..=65536");
        assert_eq!(err(&["--name=a", "--bs"]), "command line: bs=: needs a value");
        assert_eq!(err(&["--name="]), "command line: name=: needs a value");
        assert_eq!(
            err(&["-"]),
            "command line: reading a job file from standard input ('-') is not supported; give its path"
        );
        assert!(
            err(&["/nonexistent/ssdtwin/job.fio"])
                .starts_with("command line: cannot read /nonexistent/ssdtwin/job.fio: ")
        );
    }

    // ---- refusals in job files ----

    #[test]
    fn unsupported_options_name_the_place() {
        assert_eq!(
            err("[global]\nsize=1m\n[j]\ntrim_percentage=10\n"),
            "job.fio:4: fio option 'trim_percentage' is not supported by ssdtwin; trimming written blocks to verify \
             they read back as zeros is not modelled"
        );
        assert_eq!(
            err("[j]\nbs_range=1k-4k\n"),
            "job.fio:2: fio option 'bs_range' is not supported by ssdtwin; did you mean 'bsrange'?"
        );
        assert_eq!(err("[j]\nzzz_unknown=1\n"), "job.fio:2: fio option 'zzz_unknown' is not supported by ssdtwin");
    }

    #[test]
    fn a_run_has_at_most_fio_s_4096_jobs_counting_clones() {
        // 100 K sections took 14.5 GiB before they were refused.
        let many = (0..5000).fold(String::new(), |mut text, i| {
            writeln!(text, "[j{i}]\nsize=1m").unwrap();
            text
        });
        assert_eq!(
            err(&many),
            "job.fio:8194: job 'j4096' takes the run to 4097 jobs counting numjobs clones; fio runs at most 4096 \
             (its REAL_MAX_JOBS)"
        );
        assert!(err("[a]\nnumjobs=4000\n[b]\nnumjobs=97\n").starts_with("job.fio:4: job 'b' takes the run to 4097"));
        assert!(parse("[a]\nsize=1m\n[b]\nnumjobs=4095\n").is_ok(), "4096 jobs is fio's limit, not past it");
    }

    #[test]
    fn bad_values_name_the_place_and_what_is_allowed() {
        assert_eq!(err("[j]\niodepth=0\n"), "job.fio:2: iodepth=0: allowed 1..=65536");
        assert_eq!(err("[j]\nnumjobs=100000\n"), "job.fio:2: numjobs=100000: allowed 1..=65536");
        assert_eq!(err("[j]\nrwmixread=101\n"), "job.fio:2: rwmixread=101: allowed 0..=100");
        assert_eq!(
            err("[j]\ndirect=maybe\n"),
            "job.fio:2: direct=maybe: expected 0 or 1 (fio does not accept true/false or yes/no)"
        );
        assert_eq!(
            err("[j]\nrw=randread:0\n"),
            "job.fio:2: rw=randread:0: '0': a random pattern's modifier counts I/Os per random offset, 1 or more"
        );
        assert_eq!(
            err("[j]\ntime_based=yes\n"),
            "job.fio:2: time_based=yes: expected 0 or 1 (fio does not accept true/false or yes/no)"
        );
        assert_eq!(err("[j]\nbs\n"), "job.fio:2: bs=: needs a value");
        assert_eq!(
            err("[j]\nsize=8*$mb_memory\n"),
            "job.fio:2: size=8*$mb_memory: fio's host-dependent $mb_memory is not supported; write the number"
        );
        assert_eq!(
            err("[j]\ntime_based\n"),
            "job 'j': time_based needs runtime= (fio would drop time_based with a warning)"
        );
        assert_eq!(err("[global]\nbs=4k\n"), "job.fio: no jobs defined");
    }

    // ---- nothing panics ----

    /// Option names and value fragments to build plausible-looking lines from.
    const NAMES: &[&str] = &[
        "bs",
        "bsrange",
        "bssplit",
        "size",
        "offset",
        "io_size",
        "runtime",
        "thinktime",
        "rw",
        "rwmixread",
        "random_distribution",
        "percentile_list",
        "rate_iops",
        "kb_base",
        "iodepth",
        "time_based",
        "name",
        "include",
        "startdelay",
        "loops",
        "verify",
    ];
    const FRAGMENTS: &[&str] = &[
        "4k",
        "0",
        "1",
        ",",
        ":",
        "/",
        "-",
        "%",
        "(",
        ")",
        "*",
        "^",
        "${X}",
        "zipf",
        "zoned",
        "zoned_abs",
        "randrw",
        "99.9",
        "1e9",
        "0x",
        "ki",
        "ib",
        "ms",
        "m",
        "18446744073709551615",
        "#",
        ";",
        "=",
        "[",
        "]",
        " ",
        "ä",
    ];

    fn option_line() -> impl Strategy<Value = String> {
        (prop::sample::select(NAMES), prop::collection::vec(prop::sample::select(FRAGMENTS), 0..8))
            .prop_map(|(name, parts)| format!("{name}={}", parts.concat()))
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
            let text = String::from_utf8_lossy(&bytes);
            let _ = parse(&text);
        }

        #[test]
        fn arbitrary_option_lines_never_panic(lines in prop::collection::vec(option_line(), 0..12)) {
            let text = format!("[global]\n{}\n[j]\n{}\n", lines[..lines.len() / 2].join("\n"), lines[lines.len() / 2..].join("\n"));
            let _ = parse(&text);
        }

        #[test]
        fn arbitrary_arguments_never_panic(lines in prop::collection::vec(option_line(), 0..12)) {
            let list: Vec<String> = lines.iter().map(|l| format!("--{}", l.replace("include", "name"))).collect();
            let _ = parse_command_line(&list);
        }
    }
}
