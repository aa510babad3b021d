//! PyO3 glue: the compiled module `ssdtwin._ssdtwin`. It converts arguments, releases the
//! GIL around every simulation (through [`simulate`]), and maps errors to the exception
//! classes declared once in `python/ssdtwin/errors.py`. No model logic or defaults live
//! here: arguments a caller may leave out are `Option`s, and the defaults are the core's
//! (`ssdtwin_core::defaults`, exported as `DEFAULT_*`). The Python package is the public face.

// PyO3 hands arguments over as owned values.
#![allow(clippy::needless_pass_by_value)]

mod device;
mod errors;
mod live;
mod memory;
mod output;
mod pool;
mod simulated;

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Names of the shipped profiles.
#[pyfunction]
fn profile_names() -> Vec<&'static str> {
    ssdtwin_core::config::shipped_names()
}

/// The resolved TOML of a profile (shipped name or path) after `overrides`
/// (`section.field=value`), validated by building its configuration. No device is made,
/// so a drive too large to simulate on this machine can still be shown.
#[pyfunction]
#[pyo3(signature = (profile, overrides = Vec::new()))]
fn profile_toml(py: Python<'_>, profile: &str, overrides: Vec<String>) -> PyResult<String> {
    let loaded = device::load(profile, &overrides).map_err(|e| errors::profile(py, &e))?;
    ssdtwin_core::config::build(&loaded).map_err(|e| errors::profile(py, &e))?;
    Ok(loaded.to_toml())
}

/// A shipped drive profile's file as it is written, with the comments that say where each
/// value came from; `None` for a name that is not shipped.
#[pyfunction]
fn shipped_profile_text(name: &str) -> Option<&'static str> {
    ssdtwin_core::config::shipped_text(name)
}

/// The largest namespace (bytes) the profile's geometry, GC reserve and SLC cache allow,
/// after `overrides`, whatever capacity it asks for.
#[pyfunction]
#[pyo3(signature = (profile, overrides = Vec::new()))]
fn max_namespace_bytes(py: Python<'_>, profile: &str, overrides: Vec<String>) -> PyResult<u64> {
    let loaded = device::load(profile, &overrides).map_err(|e| errors::profile(py, &e))?;
    ssdtwin_core::config::max_namespace_bytes(&loaded).map_err(|e| errors::profile(py, &e))
}

/// Overrides (`section.field=value`) that switch off every source of latency variability
/// the drive profile can set: the ideal drive.
#[pyfunction]
fn ideal_overrides(py: Python<'_>, profile: &str) -> PyResult<Vec<String>> {
    let loaded = device::load(profile, &[]).map_err(|e| errors::profile(py, &e))?;
    Ok(ssdtwin_core::config::ideal_overrides(&loaded))
}

/// `--host-set` overrides that make every wakeup of a host cost the same: the ideal host.
#[pyfunction]
fn ideal_host_overrides() -> Vec<String> {
    ssdtwin_core::os::ideal_host_overrides()
}

/// Names of the shipped host profiles.
#[pyfunction]
fn host_names() -> Vec<&'static str> {
    ssdtwin_core::os::shipped_host_names()
}

/// The resolved TOML of a host profile (shipped name or path) after `overrides`, validated.
#[pyfunction]
#[pyo3(signature = (host, overrides = Vec::new()))]
fn host_toml(py: Python<'_>, host: &str, overrides: Vec<String>) -> PyResult<String> {
    let config = ssdtwin_core::os::load_host(host, &overrides).map_err(|e| errors::profile(py, &e))?;
    Ok(config.profile_toml)
}

/// DRAM of a host profile after overrides, in bytes, as the model holds it (`cpu.dram_gib`).
#[pyfunction]
#[pyo3(signature = (host, overrides = Vec::new()))]
fn host_dram_bytes(py: Python<'_>, host: &str, overrides: Vec<String>) -> PyResult<u64> {
    let config = ssdtwin_core::os::load_host(host, &overrides).map_err(|e| errors::profile(py, &e))?;
    Ok(config.dram_bytes)
}

/// The values a profile implies (capacities, superblocks, map size, bandwidths), after
/// `overrides`, as a dict of unit-named fields (`ssdtwin_core::config::Derived`).
#[pyfunction]
#[pyo3(signature = (profile, overrides = Vec::new()))]
fn derived<'py>(py: Python<'py>, profile: &str, overrides: Vec<String>) -> PyResult<Bound<'py, PyDict>> {
    let loaded = device::load(profile, &overrides).map_err(|e| errors::profile(py, &e))?;
    let config = ssdtwin_core::config::build(&loaded).map_err(|e| errors::profile(py, &e))?;
    let derived = ssdtwin_core::config::Derived::of(&config);
    let value = serde_json::to_value(&derived).expect("a struct of numbers serialises");
    output::json_to_py(py, &value)?.cast_into::<PyDict>().map_err(Into::into)
}

/// Every fio option name ssdtwin accepts (aliases included), with whether it is a flag.
#[pyfunction]
fn fio_option_names() -> Vec<(&'static str, bool)> {
    ssdtwin_core::workload::fio::option_names()
}

/// fio's `--showcmd` for these arguments: each job file as a command line.
#[pyfunction]
fn fio_showcmd(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    ssdtwin_core::workload::fio::showcmd(&args).map_err(|e| errors::job(py, &e))
}

/// Parses fio-style arguments (options and job file paths) without running them; returns
/// the number of jobs. Raises `JobError` with fio's place and reason on bad input.
#[pyfunction]
fn check_fio_args(py: Python<'_>, args: Vec<String>) -> PyResult<usize> {
    let set = ssdtwin_core::workload::fio::parse_command_line(&args).map_err(|e| errors::job(py, &e))?;
    Ok(set.jobs.len())
}

#[pymodule]
fn _ssdtwin(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    {
        use ssdtwin_core::defaults as d;
        m.add("DEFAULT_RUN_SEED", d::DEFAULT_RUN_SEED)?;
        m.add("DEFAULT_SETUP_SEED", d::DEFAULT_SETUP_SEED)?;
        m.add("DEFAULT_PROFILE", d::DEFAULT_PROFILE)?;
        m.add("DEFAULT_HOST", d::DEFAULT_HOST)?;
        m.add("DEFAULT_POOL", d::DEFAULT_POOL)?;
        m.add("DEFAULT_SERIES_WINDOW_NS", d::DEFAULT_SERIES_WINDOW_NS)?;
        m.add("DEFAULT_MEMORY_LIMIT_BYTES", d::DEFAULT_MEMORY_LIMIT_BYTES)?;
    }
    m.add_function(wrap_pyfunction!(profile_names, m)?)?;
    m.add_function(wrap_pyfunction!(profile_toml, m)?)?;
    m.add_function(wrap_pyfunction!(shipped_profile_text, m)?)?;
    m.add_function(wrap_pyfunction!(check_fio_args, m)?)?;
    m.add_function(wrap_pyfunction!(fio_showcmd, m)?)?;
    m.add_function(wrap_pyfunction!(fio_option_names, m)?)?;
    m.add_function(wrap_pyfunction!(max_namespace_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(ideal_host_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(derived, m)?)?;
    m.add_function(wrap_pyfunction!(host_names, m)?)?;
    m.add_function(wrap_pyfunction!(host_toml, m)?)?;
    m.add_function(wrap_pyfunction!(host_dram_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(simulated::simulated_ns, m)?)?;
    m.add_function(wrap_pyfunction!(memory::run_memory, m)?)?;
    m.add_function(wrap_pyfunction!(memory::run_fio_on_drive, m)?)?;
    m.add_function(wrap_pyfunction!(pool::pool_names, m)?)?;
    m.add_function(wrap_pyfunction!(pool::pool_toml, m)?)?;
    m.add_function(wrap_pyfunction!(pool::hdd_names, m)?)?;
    m.add_function(wrap_pyfunction!(pool::hdd_toml, m)?)?;
    m.add_function(wrap_pyfunction!(pool::zdb_plan, m)?)?;
    m.add_class::<device::Device>()?;
    m.add_class::<pool::Pool>()?;
    m.add_class::<live::LiveFeed>()?;
    m.add_class::<output::RunOutput>()?;
    Ok(())
}
