//! `run_memory`: a memory workload (R6's memcpy sweep, STREAM, Himeno) on a fresh drive or
//! card behind a host, for the memory study.

use crate::errors;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ssdtwin_core::config::build;
use ssdtwin_core::os::load_host;
use ssdtwin_core::setup::{FsLayout, card_host, run_memory_on_drive};
use ssdtwin_core::workload::memory::{Advice, Alloc, Bench, MemoryError, MemoryProgress, MemorySpec};

fn memory_error(py: Python<'_>, e: &MemoryError) -> PyErr {
    match e {
        MemoryError::Cancelled => PyKeyboardInterrupt::new_err("interrupted"),
        MemoryError::HostLacks { .. } => errors::named(py, "ProfileError", e.to_string()),
        MemoryError::Invalid { .. } => errors::named(py, "JobError", e.to_string()),
        _ => errors::named(py, "SsdtwinError", e.to_string()),
    }
}

fn choice<T: Copy>(py: Python<'_>, what: &str, value: &str, options: &[(&str, T)]) -> PyResult<T> {
    options.iter().find(|(n, _)| *n == value).map(|(_, t)| *t).ok_or_else(|| {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        errors::named(py, "JobError", format!("{what} '{value}': allowed {}", names.join(", ")))
    })
}

/// Runs `bench` ("memcpy", "stream", "himeno") on a fresh `profile` behind `host`; returns
/// `seconds`, `bytes`, `flops`, `phase_seconds` and `counters` (each over the timed part).
#[pyfunction]
#[pyo3(signature = (profile, overrides, host, host_overrides, bench, alloc, madvise, pattern, threads, seed, fs_layout, raid_chunk_bytes, memory_bytes, size_bytes, unit_bytes, stream_elements, stream_ntimes, himeno_grid, himeno_iterations, progress = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_memory<'py>(
    py: Python<'py>,
    profile: &str,
    overrides: Vec<String>,
    host: &str,
    host_overrides: Vec<String>,
    bench: &str,
    alloc: &str,
    madvise: &str,
    pattern: &str,
    threads: u32,
    seed: u64,
    fs_layout: &str,
    raid_chunk_bytes: u64,
    memory_bytes: Option<u64>,
    size_bytes: u64,
    unit_bytes: u64,
    stream_elements: u64,
    stream_ntimes: u32,
    himeno_grid: (u64, u64, u64),
    himeno_iterations: u32,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let loaded = crate::device::load(profile, &overrides).map_err(|e| errors::profile(py, &e))?;
    let config = build(&loaded).map_err(|e| errors::profile(py, &e))?;
    let host_config = load_host(host, &host_overrides).map_err(|e| errors::profile(py, &e))?;
    let bench = match bench {
        "memcpy" => Bench::Memcpy { bytes: size_bytes, unit_bytes },
        "stream" => Bench::Stream { elements: stream_elements, ntimes: stream_ntimes },
        "himeno" => {
            Bench::Himeno { grid: [himeno_grid.0, himeno_grid.1, himeno_grid.2], iterations: himeno_iterations }
        }
        other => {
            return Err(errors::named(py, "JobError", format!("bench '{other}': allowed memcpy, stream, himeno")));
        }
    };
    let spec = MemorySpec {
        bench,
        alloc: choice(py, "alloc", alloc, &[("malloc", Alloc::Malloc), ("mmap", Alloc::Mmap)])?,
        advice: choice(
            py,
            "madvise",
            madvise,
            &[
                ("none", Advice::None),
                ("sequential", Advice::Sequential),
                ("random", Advice::Random),
                ("willneed", Advice::WillNeed),
            ],
        )?,
        sequential: choice(py, "pattern", pattern, &[("seq", true), ("random", false)])?,
        threads,
        seed,
        swap_areas: Vec::new(),
        file_offset_bytes: 0,
    };
    let layout = choice(
        py,
        "fs layout",
        fs_layout,
        &[("raid0", FsLayout::Raid0 { chunk_bytes: raid_chunk_bytes }), ("single", FsLayout::Single)],
    )?;
    let result = py
        .detach(move || {
            let mut observe = |p: &MemoryProgress| -> bool {
                Python::attach(|py| {
                    if py.check_signals().is_err() {
                        return false;
                    }
                    progress.as_ref().is_none_or(|cb| {
                        cb.call1(py, (p.elapsed_ns, p.rows_done)).is_ok_and(|r| r.extract::<bool>(py).unwrap_or(true))
                    })
                })
            };
            run_memory_on_drive(&config, host_config, &spec, layout, memory_bytes, &mut observe)
        })
        .map_err(|e| memory_error(py, &e))?;
    crate::simulated::add(ssdtwin_core::engine::SimTime::ZERO, result.ended_at);
    let d = PyDict::new(py);
    d.set_item("seconds", result.seconds)?;
    d.set_item("bytes", result.bytes)?;
    d.set_item("flops", result.flops)?;
    d.set_item("phase_seconds", result.phase_seconds.clone())?;
    let counters = PyDict::new(py);
    for (name, value) in result.counters_end.delta_since(&result.counters_start) {
        counters.set_item(name, value)?;
    }
    d.set_item("counters", counters)?;
    Ok(d)
}

/// Runs fio-style `args` on a fresh `profile` (every LUN of a card, joined as `fs_layout`
/// says) behind `host`, with `memory_bytes` for pages if given (the page cache's size is
/// the host profile's); returns the run as `Device.run` does.
#[pyfunction]
#[pyo3(signature = (profile, overrides, host, host_overrides, args, fs_layout, raid_chunk_bytes, memory_bytes, seed, log_dir, progress = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_fio_on_drive(
    py: Python<'_>,
    profile: &str,
    overrides: Vec<String>,
    host: &str,
    host_overrides: Vec<String>,
    args: Vec<String>,
    fs_layout: &str,
    raid_chunk_bytes: u64,
    memory_bytes: Option<u64>,
    seed: u64,
    log_dir: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<crate::output::RunOutput> {
    use ssdtwin_core::workload::fio::{WallClock, parse_command_line};
    use ssdtwin_core::workload::{RunOptions, run};
    let loaded = crate::device::load(profile, &overrides).map_err(|e| errors::profile(py, &e))?;
    let config = build(&loaded).map_err(|e| errors::profile(py, &e))?;
    let host_config = load_host(host, &host_overrides).map_err(|e| errors::profile(py, &e))?;
    let set = parse_command_line(&args).map_err(|e| errors::job(py, &e))?;
    let layout = choice(
        py,
        "fs layout",
        fs_layout,
        &[("raid0", FsLayout::Raid0 { chunk_bytes: raid_chunk_bytes }), ("single", FsLayout::Single)],
    )?;
    let opts = RunOptions { seed, log_dir: std::path::PathBuf::from(log_dir), ..RunOptions::default() };
    let set_for_run = set.clone();
    let result = py
        .detach(move || {
            let mut card = card_host(&config, host_config, layout, memory_bytes);
            let mut observe = |p: &ssdtwin_core::workload::Progress| -> bool {
                Python::attach(|py| {
                    if py.check_signals().is_err() {
                        return false;
                    }
                    progress.as_ref().is_none_or(|cb| {
                        cb.call1(py, (p.elapsed_ns, p.expected_ns, p.bytes_done, p.bytes_expected))
                            .is_ok_and(|r| r.extract::<bool>(py).unwrap_or(true))
                    })
                })
            };
            let from = card.host.now();
            let result = run(&mut card.host, &set_for_run, &opts, &mut observe);
            crate::simulated::add(from, card.host.now());
            result
        })
        .map_err(|e| errors::run(py, &e))?;
    Ok(crate::output::RunOutput::new(set, result, WallClock { unix_ms: 0, ctime: String::new() }, "md0".to_string()))
}
