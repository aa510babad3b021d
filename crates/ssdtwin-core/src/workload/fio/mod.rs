//! fio compatibility: job files and command lines in, fio 3.33 JSON and human output out.
//!
//! * [`parse_job_file`], [`parse_job_text`] and [`parse_command_line`] read fio's job
//!   syntax (HOWTO "Job file format", "Parameter types") into a [`JobSet`](super::JobSet);
//! * [`fio_json`] and [`fio_normal`] write a [`RunResult`](super::RunResult) as fio 3.33
//!   prints it (`--output-format=json|json+|normal`); log files are written by the runner.

mod json;
mod normal;
mod parse;

pub use json::{OutputOptions, WallClock, fio_json};
pub use normal::fio_normal;
pub use parse::{option_names, parse_command_line, parse_job_file, parse_job_text, showcmd};

#[cfg(test)]
mod compat_tests;
