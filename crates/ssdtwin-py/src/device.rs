//! The `Device` class: a simulated drive that keeps its state between runs.

use crate::errors;
use crate::output::RunOutput;
use crate::simulated::{Clocked, counted};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ssdtwin_core::block::BlockDevice;
use ssdtwin_core::config::{LoadedProfile, ProfileError, apply_overrides, build, load_profile};
use ssdtwin_core::defaults::{
    DEFAULT_MEMORY_LIMIT_BYTES, DEFAULT_RUN_SEED, DEFAULT_SERIES_WINDOW_NS, DEFAULT_SETUP_SEED,
};
use ssdtwin_core::engine::{SimDuration, SimTime};
use ssdtwin_core::nand::CellMode;
use ssdtwin_core::nvme::HmbGrant;
use ssdtwin_core::os::{HmbSetting, Host, configure_apst, load_host, negotiate_hmb};
use ssdtwin_core::ssd::{FillError, FillPattern, Shutdown, Ssd as CoreDevice};
use ssdtwin_core::workload::fio::{WallClock, parse_command_line, parse_job_text};
use ssdtwin_core::workload::{JobSet, RunOptions, run};
use std::path::PathBuf;

pub(crate) fn load(profile: &str, overrides: &[String]) -> Result<LoadedProfile, ProfileError> {
    let mut loaded = load_profile(profile)?;
    apply_overrides(&mut loaded, overrides)?;
    Ok(loaded)
}

/// Memory and swap of this machine (Linux's /proc/meminfo), the most the kernel will map for
/// the model; `None` where it cannot be read (then nothing is refused up front).
fn machine_memory_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    let machine = (field("MemTotal:")? + field("SwapTotal:").unwrap_or(0)) * 1024;
    Some(address_space_left_bytes().map_or(machine, |left| left.min(machine)))
}

/// What the process may still map under its address-space limit (`ulimit -v`, `RLIMIT_AS`),
/// if it has one: the model's maps are refused up front against it, not met by a failed
/// mapping in the middle of building the drive.
fn address_space_left_bytes() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let soft = limits.lines().find_map(|l| l.strip_prefix("Max address space"))?.split_whitespace().next()?;
    let limit: u64 = soft.parse().ok()?; // "unlimited" is no limit
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used_kib: u64 =
        status.lines().find_map(|l| l.strip_prefix("VmSize:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(limit.saturating_sub(used_kib * 1024))
}

/// The longest `idle` accepted at once: 10⁹ s keeps simulated time far from overflowing.
const MAX_IDLE_SECONDS: f64 = 1e9;

/// A simulated SSD. State (maps, blocks, counters, clock) persists across calls.
#[pyclass(module = "ssdtwin._ssdtwin")]
pub(crate) struct Device {
    inner: CoreDevice,
}

/// Runs `f` on the device with the GIL released; the progress callback (if any) is called
/// with the GIL held, and Ctrl-C stops the run.
pub(crate) fn simulate<D: Send + Clocked, T: Send>(
    py: Python<'_>,
    device: &mut D,
    progress: Option<&Py<PyAny>>,
    f: impl FnOnce(&mut D, &mut dyn FnMut(&ssdtwin_core::workload::Progress) -> bool) -> T + Send,
) -> T {
    let progress = progress.map(|p| p.clone_ref(py));
    py.detach(move || {
        let mut observe = |p: &ssdtwin_core::workload::Progress| -> bool {
            Python::attach(|py| {
                if py.check_signals().is_err() {
                    return false;
                }
                match &progress {
                    Some(cb) => cb
                        .call1(py, (p.elapsed_ns, p.expected_ns, p.bytes_done, p.bytes_expected))
                        .is_ok_and(|r| r.extract::<bool>(py).unwrap_or(true)),
                    None => true,
                }
            })
        };
        counted(device, |device| f(device, &mut observe))
    })
}

#[pymethods]
impl Device {
    /// A fresh (empty) device from a shipped profile name or a TOML path, with
    /// `section.field=value` overrides; with `verify`, every read checks the data version.
    /// The model's memory is estimated first and refused beyond `max_memory_bytes`
    /// (default: the machine's memory and swap), before anything is allocated.
    #[new]
    #[pyo3(signature = (profile, overrides = Vec::new(), verify = false, max_memory_bytes = None))]
    fn new(
        py: Python<'_>,
        profile: &str,
        overrides: Vec<String>,
        verify: bool,
        max_memory_bytes: Option<u64>,
    ) -> PyResult<Self> {
        let loaded = load(profile, &overrides).map_err(|e| errors::profile(py, &e))?;
        let config = build(&loaded).map_err(|e| errors::profile(py, &e))?;
        let needed = ssdtwin_core::config::model_memory_bytes(&config, verify);
        if let Some(limit) = max_memory_bytes.or_else(machine_memory_bytes)
            && needed > limit
        {
            let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
            let whose = if max_memory_bytes.is_some() {
                "the limit given"
            } else {
                "what this machine's memory and swap and the process's address-space limit leave"
            };
            return Err(errors::device(
                py,
                format!(
                    "profile '{profile}' needs about {:.1} GiB of memory for its maps (4 B per logical and per physical \
                     4 KiB unit); {whose} is {:.1} GiB: model a smaller drive, or raise the limit (max_memory_gib, \
                     --max-memory)",
                    gib(needed),
                    gib(limit)
                ),
            ));
        }
        if !ssdtwin_core::engine::can_map(needed) {
            return Err(errors::device(
                py,
                format!(
                    "profile '{profile}' needs about {:.1} GiB of memory for its maps, and this process cannot map that \
                     much now (its address-space limit, ulimit -v, or memory): model a smaller drive, or raise the limit",
                    needed as f64 / f64::from(1u32 << 30)
                ),
            ));
        }
        Ok(Device { inner: py.detach(|| CoreDevice::with_verify(config, verify)) })
    }

    /// A device restored from a state file written by `save`.
    #[staticmethod]
    #[pyo3(signature = (path, max_memory_bytes = None))]
    fn load(py: Python<'_>, path: PathBuf, max_memory_bytes: Option<u64>) -> PyResult<Self> {
        let limit = max_memory_bytes.or_else(machine_memory_bytes);
        let inner = py.detach(|| CoreDevice::load_within(&path, limit)).map_err(|e| errors::snapshot(py, &e))?;
        Ok(Device { inner })
    }

    /// Finishes pending work, then writes the state to `path`; without `overwrite`, an
    /// existing file there is an error (`FileExistsError`), checked as the state is placed.
    #[pyo3(signature = (path, overwrite = false))]
    fn save(&mut self, py: Python<'_>, path: PathBuf, overwrite: bool) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| {
            inner.quiesce();
            if overwrite { inner.save(&path) } else { inner.save_new(&path) }
        })
        .map_err(|e| errors::snapshot(py, &e))
    }

    /// Finishes pending work, then returns an independent drive in the same state (map,
    /// blocks, caches, counters, clock and HMB grant): preconditioning once, at memory speed.
    fn copy(&mut self, py: Python<'_>) -> Device {
        let inner = &mut self.inner;
        Device {
            inner: py.detach(|| {
                counted(inner, CoreDevice::quiesce);
                inner.clone()
            }),
        }
    }

    /// Runs until no command, program, GC job or erase is pending.
    fn quiesce(&mut self, py: Python<'_>) {
        let inner = &mut self.inner;
        py.detach(|| counted(inner, CoreDevice::quiesce));
    }

    /// Fills without simulating time: `pattern` "seq", "random", "steady" (two sequential
    /// passes before the random ones) or "overwrite" (the random ones alone, over what the
    /// drive holds); random overwrites are sampled unless `exact`;
    /// `progress(done, total)` (4 KiB units) is called every GiB, and Ctrl-C stops the fill.
    #[pyo3(signature = (pattern, percent = 100.0, command_bytes = 131_072, overwrite_passes = 2.0, seed = None, progress = None, exact = false))]
    #[allow(clippy::too_many_arguments)]
    fn fill(
        &mut self,
        py: Python<'_>,
        pattern: &str,
        percent: f64,
        command_bytes: u64,
        overwrite_passes: f64,
        seed: Option<u64>,
        progress: Option<Py<PyAny>>,
        exact: bool,
    ) -> PyResult<()> {
        let seed = seed.unwrap_or(DEFAULT_SETUP_SEED);
        let random =
            |sequential_passes| FillPattern::Random { percent, sequential_passes, overwrite_passes, seed, exact };
        let pattern = match pattern {
            "seq" => FillPattern::Sequential { percent, command_bytes },
            "random" => random(1),
            "steady" => random(2),
            "overwrite" => FillPattern::Overwrite { percent, overwrite_passes, seed, exact },
            other => {
                return Err(errors::device(
                    py,
                    format!("fill pattern '{other}': allowed seq, random, steady, overwrite"),
                ));
            }
        };
        let inner = &mut self.inner;
        let result = py.detach(|| {
            counted(inner, CoreDevice::quiesce);
            inner.fill_observed(pattern, &mut |done, total| {
                Python::attach(|py| {
                    if py.check_signals().is_err() {
                        return false;
                    }
                    progress.as_ref().is_none_or(|cb| {
                        cb.call1(py, (done, total)).is_ok_and(|r| r.extract::<bool>(py).unwrap_or(true))
                    })
                })
            })
        });
        match result {
            Ok(()) => Ok(()),
            Err(FillError::Cancelled) => Err(PyKeyboardInterrupt::new_err("interrupted")),
            Err(e) => Err(errors::device(py, e.to_string())),
        }
    }

    /// Format NVM: unmaps everything; `lbaf` switches the LBA format.
    #[pyo3(signature = (lbaf = None))]
    fn format(&mut self, py: Python<'_>, lbaf: Option<usize>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| {
            counted(inner, CoreDevice::quiesce);
            inner.format(lbaf)
        })
        .map_err(|e| errors::device(py, e.to_string()))
    }

    /// A zoned namespace's zones: sizes, limits and each zone's state and write pointer
    /// (`None` on a conventional namespace).
    fn zones<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let Some(zones) = self.inner.zones() else { return Ok(py.None().into_bound(py)) };
        let c = zones.config();
        let value = serde_json::json!({
            "size_lbas": c.size_lbas,
            "capacity_lbas": c.capacity_lbas,
            "max_open": c.max_open,
            "max_active": c.max_active,
            "zones": zones.zones().iter().enumerate().map(|(k, z)| serde_json::json!({
                "slba": k as u64 * c.size_lbas,
                "wp": k as u64 * c.size_lbas + z.written,
                "state": z.state.name(),
                "code": z.state.code(),
            })).collect::<Vec<_>>(),
        });
        crate::output::json_to_py(py, &value)
    }

    /// Sends Zone Management Send `action` (close, finish, open, reset) to the zone starting
    /// at `slba` (`all`: every zone it applies to) and waits for it and the work it starts;
    /// returns the command's latency, seconds.
    fn zone_send(&mut self, py: Python<'_>, action: &str, slba: u64, all: bool) -> PyResult<f64> {
        use ssdtwin_core::block::ZoneAction;
        let action = match action {
            "close" => ZoneAction::Close,
            "finish" => ZoneAction::Finish,
            "open" => ZoneAction::Open,
            "reset" => ZoneAction::Reset,
            other => {
                return Err(errors::device(py, format!("zone action {other}: allowed close, finish, open, reset")));
            }
        };
        let command = ssdtwin_core::block::Command::new(ssdtwin_core::block::Opcode::ZoneSend { action, all }, slba, 0);
        self.one_command(py, command).map(|c| c.completed.since(c.submitted).as_ns() as f64 / 1e9)
    }

    /// Zone Append of `blocks` LBAs to the zone starting at `zslba`; returns the LBA the data
    /// went to.
    fn zone_append(&mut self, py: Python<'_>, zslba: u64, blocks: u32) -> PyResult<u64> {
        let command = ssdtwin_core::block::Command::new(ssdtwin_core::block::Opcode::ZoneAppend, zslba, blocks);
        self.one_command(py, command).map(|c| c.assigned_lba)
    }

    /// Lets `seconds` of simulated time pass with no host I/O (background work runs).
    fn idle(&mut self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(errors::device(py, format!("idle time {seconds}: must be a non-negative number of seconds")));
        }
        // Simulated time is a 64-bit count of ns (about 584 years): refuse what would overflow.
        if seconds > MAX_IDLE_SECONDS {
            return Err(errors::device(
                py,
                format!("idle time {seconds:e}: at most {MAX_IDLE_SECONDS:e} seconds (about 31 years) at a time"),
            ));
        }
        let inner = &mut self.inner;
        py.detach(|| {
            let until = inner.now() + SimDuration((seconds * 1e9) as u64);
            counted(inner, |inner| inner.advance_to(until));
        });
        Ok(())
    }

    /// Runs fio-style arguments (`--name=...` options and job file paths) or, with
    /// `job_text`, the text of a job file (`source` labels errors, `base_dir` resolves
    /// `include`).
    #[pyo3(signature = (host, host_overrides, args, job_text = None, source = "job", base_dir = ".", seed = None, log_dir = ".", device_name = "nvme0n1", wall_unix_ms = 0, wall_ctime = "", series_window_ms = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        py: Python<'_>,
        host: &str,
        host_overrides: Vec<String>,
        args: Vec<String>,
        job_text: Option<String>,
        source: &str,
        base_dir: &str,
        seed: Option<u64>,
        log_dir: &str,
        device_name: &str,
        wall_unix_ms: u64,
        wall_ctime: &str,
        series_window_ms: Option<f64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<RunOutput> {
        let set: JobSet = match job_text {
            Some(text) => parse_job_text(&text, source, std::path::Path::new(base_dir)),
            None => parse_command_line(&args),
        }
        .map_err(|e| errors::job(py, &e))?;
        let host_config = load_host(host, &host_overrides).map_err(|e| errors::profile(py, &e))?;
        let opts = RunOptions {
            seed: seed.unwrap_or(DEFAULT_RUN_SEED),
            series_window_ns: series_window_ns(py, series_window_ms)?,
            log_dir: PathBuf::from(log_dir),
            device_name: device_name.to_string(),
            ..RunOptions::default()
        };
        let set_for_run = set.clone();
        let result = simulate(py, &mut self.inner, progress.as_ref(), move |dev, observe| {
            run(&mut Host::new(dev, host_config), &set_for_run, &opts, observe)
        })
        .map_err(|e| errors::run(py, &e))?;
        Ok(RunOutput::new(
            set,
            result,
            WallClock { unix_ms: wall_unix_ms, ctime: wall_ctime.to_string() },
            device_name.to_string(),
        ))
    }

    /// Serves the device over NBD on a Unix socket (`socket`) or a TCP address (`listen`)
    /// until SIGINT or SIGTERM; `ready` is called with the URI once the socket is bound.
    /// Returns the server's statistics as JSON text.
    #[pyo3(signature = (host, host_overrides, socket = None, listen = None, export_name = "", time_scale = 1.0, data = None, memory_limit_bytes = None, record = None, force = false, ready = None, live = None))]
    #[allow(clippy::too_many_arguments)]
    fn serve(
        &mut self,
        py: Python<'_>,
        host: &str,
        host_overrides: Vec<String>,
        socket: Option<PathBuf>,
        listen: Option<String>,
        export_name: &str,
        time_scale: f64,
        data: Option<PathBuf>,
        memory_limit_bytes: Option<u64>,
        record: Option<PathBuf>,
        force: bool,
        ready: Option<Py<PyAny>>,
        live: Option<PyRef<'_, crate::live::LiveFeed>>,
    ) -> PyResult<String> {
        use ssdtwin_serve::{Listen, ServeConfig, Server};
        if self.inner.zones().is_some() {
            // An NBD export is a plain block device: its clients write anywhere.
            return Err(errors::device(
                py,
                format!(
                    "{} is zoned: an NBD export is a plain block device whose clients write anywhere, and a zoned \
                     namespace takes writes only at its zones' write pointers; serve a conventional profile",
                    self.inner.config().name
                ),
            ));
        }
        let host_config = load_host(host, &host_overrides).map_err(|e| errors::profile(py, &e))?;
        if !time_scale.is_finite() || !(0.001..=1e6).contains(&time_scale) {
            return Err(errors::device(py, format!("time scale {time_scale}: allowed 0.001 to 1000000")));
        }
        let listen = match (socket, listen) {
            (Some(path), None) => Listen::Unix(path),
            (None, Some(addr)) => Listen::Tcp(
                addr.parse()
                    .map_err(|_| errors::device(py, format!("{addr}: allowed ADDRESS:PORT, e.g. 127.0.0.1:10809")))?,
            ),
            _ => return Err(errors::device(py, "give a socket path or a listen address, one of them".into())),
        };
        let config = ServeConfig {
            listen,
            export_name: export_name.to_string(),
            time_scale,
            data,
            memory_limit_bytes: memory_limit_bytes.unwrap_or(DEFAULT_MEMORY_LIMIT_BYTES),
            record,
            force,
        };
        let server = Server::bind(config).map_err(|e| errors::device(py, e.to_string()))?;
        if let Some(callback) = ready {
            callback.call1(py, (server.uri(),))?;
        }
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let inner = &mut self.inner;
        let live = live.map(|feed| feed.inner.clone());
        let stats = py
            .detach(|| {
                inner.quiesce();
                server.run(&mut Host::new(inner, host_config), &stop, live.as_ref())
            })
            .map_err(|e| errors::device(py, e.to_string()))?;
        Ok(stats.to_json().to_string())
    }

    /// Renegotiates the Host Memory Buffer as host `host`'s NVMe driver does with its cap
    /// (Linux: `max_host_mem_size_mb`): "off", "auto" (the host's default) or a cap in MiB.
    /// Returns the grant.
    #[pyo3(signature = (setting, host, host_overrides = Vec::new()))]
    fn set_hmb<'py>(
        &mut self,
        py: Python<'py>,
        setting: &str,
        host: &str,
        host_overrides: Vec<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let host_config = load_host(host, &host_overrides).map_err(|e| errors::profile(py, &e))?;
        let parsed = match setting {
            "off" => HmbSetting::Off,
            "auto" => HmbSetting::Auto,
            mib => match mib.parse::<u32>() {
                Ok(m) => HmbSetting::CapMib(m),
                Err(_) => {
                    return Err(errors::device(py, format!("--hmb '{setting}': allowed off, auto, or a size in MiB")));
                }
            },
        };
        let inner = &mut self.inner;
        py.detach(|| counted(inner, CoreDevice::quiesce));
        let grant = negotiate_hmb(inner.config().identity.hmb, parsed, host_config.nvme_hmb_cap_bytes);
        let grant = inner.set_hmb(grant).map_err(|e| errors::device(py, e.to_string()))?.clone();
        hmb_dict(py, &grant)
    }

    /// The current Host Memory Buffer grant.
    fn hmb<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        hmb_dict(py, self.inner.hmb())
    }

    /// Programs Autonomous Power State Transitions as host `host`'s NVMe driver does
    /// (`kernel.nvme_apst`); returns the table as (idle ms, target state) per power state,
    /// `None` where a state goes nowhere (empty: APST off).
    #[pyo3(signature = (host, host_overrides = Vec::new()))]
    fn set_apst(
        &mut self,
        py: Python<'_>,
        host: &str,
        host_overrides: Vec<String>,
    ) -> PyResult<Vec<Option<(f64, u8)>>> {
        let host_config = load_host(host, &host_overrides).map_err(|e| errors::profile(py, &e))?;
        let inner = &mut self.inner;
        py.detach(|| counted(inner, CoreDevice::quiesce));
        let table = configure_apst(inner.power_states(), &host_config);
        inner.set_apst(table).map_err(|e| errors::device(py, e.to_string()))?;
        Ok(self.apst())
    }

    /// The APST table in effect, as (idle ms, target state) per power state.
    fn apst(&self) -> Vec<Option<(f64, u8)>> {
        self.inner.power_states().apst.iter().map(|e| e.map(|e| (e.idle.as_ns() as f64 / 1e6, e.target))).collect()
    }

    /// Identity and namespace facts for identify/health output: strings, IDs, HMB request,
    /// temperature thresholds, power states, APST and HCTM support (the model's values),
    /// capacities, LBA formats, units in use.
    fn identity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.config();
        let id = &c.identity;
        let d = PyDict::new(py);
        d.set_item("model", &id.model)?;
        d.set_item("serial", &id.serial)?;
        d.set_item("firmware", &id.firmware)?;
        d.set_item("pci_vendor_id", id.pci_vendor_id)?;
        d.set_item("pci_subsystem_vendor_id", id.pci_subsystem_vendor_id)?;
        d.set_item("ieee_oui", id.ieee_oui)?;
        d.set_item("nvme_version", id.nvme_version)?;
        d.set_item("mdts", id.mdts)?;
        d.set_item("hmpre", id.hmb.hmpre)?;
        d.set_item("hmmin", id.hmb.hmmin)?;
        d.set_item("hmminds", id.hmb.hmminds)?;
        d.set_item("hmmaxd", id.hmb.hmmaxd)?;
        d.set_item("wctemp_kelvin", c.thermal.warning_k as u16)?;
        d.set_item("cctemp_kelvin", c.thermal.critical_k as u16)?;
        let power_states = pyo3::types::PyList::empty(py);
        for ps in &c.power.states {
            let pd = PyDict::new(py);
            pd.set_item("max_power_mw", (ps.max_power_w * 1000.0).round() as u32)?;
            pd.set_item("non_operational", ps.non_operational)?;
            pd.set_item("entry_latency_us", ps.entry.as_ns() / 1000)?;
            pd.set_item("exit_latency_us", ps.exit.as_ns() / 1000)?;
            power_states.append(pd)?;
        }
        d.set_item("power_states", power_states)?;
        d.set_item("apst_supported", c.power.apst_supported())?;
        d.set_item("hctm_range_kelvin", c.hctm_range_kelvin)?;
        d.set_item("hctm_tmt1_kelvin", c.thermal.tmt1_k.map_or(0, |k| k as u16))?;
        d.set_item("hctm_tmt2_kelvin", c.thermal.tmt2_k.map_or(0, |k| k as u16))?;
        d.set_item("rated_tb_written", c.rated.tb_written)?;
        d.set_item("rated_tb_written_sequential", c.rated.tb_written_sequential)?;
        d.set_item("rated_dwpd", c.rated.dwpd)?;
        d.set_item("warranty_years", c.rated.warranty_years)?;
        d.set_item("capacity_bytes", c.namespace.capacity_bytes)?;
        d.set_item("raw_bytes", c.geometry.raw_bytes())?;
        d.set_item("lba_format", c.namespace.current)?;
        let formats = pyo3::types::PyList::empty(py);
        for f in &c.namespace.formats {
            let fd = PyDict::new(py);
            fd.set_item("data_bytes", f.data_bytes)?;
            fd.set_item("metadata_bytes", f.metadata_bytes)?;
            fd.set_item("relative_performance", f.relative_performance)?;
            formats.append(fd)?;
        }
        d.set_item("lba_formats", formats)?;
        d.set_item("mapped_units", self.inner.ftl().mapped_units())?;
        d.set_item("volatile_write_cache", !c.controller.power_protected)?;
        d.set_item("io_queues", c.link.io_queues)?;
        d.set_item("queue_depth", c.link.queue_depth)?;
        match c.link.bus {
            ssdtwin_core::nvme::Bus::Pcie => {
                d.set_item("transport", "pcie")?;
                d.set_item("pcie_gen", c.link.gen_)?;
                d.set_item("pcie_lanes", c.link.lanes)?;
            }
            ssdtwin_core::nvme::Bus::Sata => {
                d.set_item("transport", "sata")?;
                d.set_item("sata_gen", c.link.gen_)?;
            }
        }
        Ok(d)
    }

    /// Map-cache facts: location, residency, capacity of each tier in segments.
    fn map_cache<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let m = self.inner.map_cache();
        let d = PyDict::new(py);
        let (sram, hmb) = m.capacity_segments();
        d.set_item("location", format!("{:?}", m.config().location).to_lowercase())?;
        d.set_item("residency", format!("{:?}", m.residency()).to_lowercase())?;
        d.set_item("segments", m.segments())?;
        d.set_item("sram_segments", sram)?;
        d.set_item("hmb_segments", hmb)?;
        d.set_item("segment_bytes", m.config().segment_entries * 4)?;
        Ok(d)
    }

    /// Share of the mapped data in `length` bytes from `offset` that sits in SLC-mode blocks.
    fn slc_resident_fraction(&self, offset: u64, length: u64) -> f64 {
        let unit = ssdtwin_core::nand::UNIT_BYTES;
        let logical = self.inner.config().logical_units;
        let first = (offset / unit).min(logical);
        let end = (offset + length).div_ceil(unit).min(logical);
        self.inner.ftl().slc_resident_fraction(first..end)
    }

    /// Every physical block's wear, as columns: `die`, `plane`, `block` (in its plane; slots
    /// first, then spares), `superblock` (-1: none), `slc_erases`, `native_erases`, `life_used`
    /// and `endurance` (shares of the rated life), `role` ("in-service", "spare", "bad").
    fn block_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use ssdtwin_core::ftl::BlockRole;
        let blocks = self.inner.ftl().blocks();
        let d = PyDict::new(py);
        d.set_item("die", blocks.iter().map(|b| b.die).collect::<Vec<_>>())?;
        d.set_item("plane", blocks.iter().map(|b| b.plane).collect::<Vec<_>>())?;
        d.set_item("block", blocks.iter().map(|b| b.block).collect::<Vec<_>>())?;
        d.set_item("superblock", blocks.iter().map(|b| b.superblock.map_or(-1, i64::from)).collect::<Vec<_>>())?;
        d.set_item("slc_erases", blocks.iter().map(|b| b.slc_erases).collect::<Vec<_>>())?;
        d.set_item("native_erases", blocks.iter().map(|b| b.native_erases).collect::<Vec<_>>())?;
        d.set_item("life_used", blocks.iter().map(|b| b.life_used).collect::<Vec<_>>())?;
        d.set_item("endurance", blocks.iter().map(|b| b.endurance).collect::<Vec<_>>())?;
        let role = |r: BlockRole| match r {
            BlockRole::InService => "in-service",
            BlockRole::Spare => "spare",
            BlockRole::Bad => "bad",
        };
        d.set_item("role", blocks.iter().map(|b| role(b.role)).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// Every superblock, as columns: `superblock`, `state`, `mode`, `valid_units`, `erases`,
    /// `slc_erases`, `life_used` (share of the rated life).
    fn superblock_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let f = self.inner.ftl();
        let sbs: Vec<u32> = (0..f.sbs.len()).collect();
        let d = PyDict::new(py);
        d.set_item("superblock", &sbs)?;
        d.set_item("state", sbs.iter().map(|&sb| format!("{:?}", f.sbs.state(sb)).to_lowercase()).collect::<Vec<_>>())?;
        d.set_item("mode", sbs.iter().map(|&sb| f.sbs.mode(sb).name()).collect::<Vec<_>>())?;
        d.set_item("valid_units", sbs.iter().map(|&sb| f.sbs.valid(sb)).collect::<Vec<_>>())?;
        d.set_item("erases", sbs.iter().map(|&sb| f.sbs.erase_count(sb)).collect::<Vec<_>>())?;
        d.set_item("slc_erases", sbs.iter().map(|&sb| f.sbs.slc_erase_count(sb)).collect::<Vec<_>>())?;
        d.set_item("life_used", sbs.iter().map(|&sb| f.superblock_life_used(sb)).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// The SMART / Health Information log now, every field from the drive's state.
    fn fdp<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = &self.inner;
        let Some(fdp) = d.fdp() else { return Ok(py.None().into_bound(py)) };
        let placement = d.ftl().placement().expect("an FDP drive keeps placement state");
        let stats = d.fdp_stats().expect("an FDP drive keeps statistics");
        let value = serde_json::json!({
            "reclaim_groups": 1,
            "handles": fdp.handles,
            "handle_type": fdp.isolation.nvme_name(),
            "reclaim_unit_bytes": d.reclaim_unit_bytes(),
            "volatile_write_cache": !d.config().controller.power_protected,
            "usage": d.handle_usage().iter().map(|u| u.code()).collect::<Vec<_>>(),
            "stats": {
                "host_bytes_written": stats.host_bytes_written,
                "media_bytes_written": stats.media_bytes_written,
                "media_bytes_erased": stats.media_bytes_erased,
            },
            "status": d.handle_status().iter().map(|s| serde_json::json!({
                "pid": s.placement.0, "ruhid": s.handle.0, "earutr": 0, "ruamw": s.available_lbas,
            })).collect::<Vec<_>>(),
            "events": d.fdp_events().map(|e| serde_json::json!({
                "type": e.kind.code(), "name": e.kind.name(), "pid": e.placement.0,
                "timestamp_ms": e.at.as_ns() / 1_000_000,
            })).collect::<Vec<_>>(),
            "per_handle": placement.handles().iter().map(|h| serde_json::json!({
                "host_units": h.host_units, "gc_units": h.gc_units, "reclaim_units": h.reclaim_units,
            })).collect::<Vec<_>>(),
            "unowned_gc_units": placement.unowned_gc_units(),
        });
        crate::output::json_to_py(py, &value)
    }

    fn health<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::output::json_to_py(py, &serde_json::to_value(self.inner.health()).expect("the health log serialises"))
    }

    /// Cycles the drive's power after finishing pending work; `unsafe_` loses power without
    /// a shutdown notification (an Unsafe Shutdown).
    #[pyo3(signature = (unsafe_ = false))]
    fn power_cycle(&mut self, py: Python<'_>, unsafe_: bool) {
        let inner = &mut self.inner;
        py.detach(|| {
            counted(inner, |inner| inner.power_cycle(if unsafe_ { Shutdown::Abrupt } else { Shutdown::Normal }));
        });
    }

    /// Every counter, as a dict.
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::output::json_to_py(py, &serde_json::to_value(self.inner.counters()).expect("counters serialise"))
    }

    /// Simulated time now, ns.
    #[getter]
    fn now_ns(&self) -> u64 {
        self.inner.now().as_ns()
    }

    /// Profile name.
    #[getter]
    fn profile_name(&self) -> String {
        self.inner.config().name.clone()
    }

    /// Resolved profile TOML.
    #[getter]
    fn profile_toml(&self) -> String {
        self.inner.config().profile_toml.clone()
    }

    /// A summary of the configuration: capacity, LBA size, geometry (with tR of SLC mode and
    /// of the native mode), link.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.config();
        let g = &c.geometry;
        let d = PyDict::new(py);
        d.set_item("model", &c.identity.model)?;
        d.set_item("capacity_bytes", c.namespace.capacity_bytes)?;
        d.set_item("lba_bytes", c.namespace.lba_bytes())?;
        d.set_item("lba_format", c.namespace.current)?;
        d.set_item("raw_bytes", g.raw_bytes())?;
        d.set_item("dies", g.dies())?;
        d.set_item("channels", g.channels)?;
        d.set_item("cell", g.native.name())?;
        let t_read_ns = PyDict::new(py);
        for mode in [CellMode::Slc, g.native] {
            t_read_ns.set_item(mode.name(), c.nand.cell[mode.index()].t_read.as_ns())?;
        }
        d.set_item("t_read_ns", t_read_ns)?;
        d.set_item("link_bytes_per_sec", c.link.bytes_per_sec)?;
        d.set_item("is_quiet", self.inner.is_quiet())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let c = self.inner.config();
        format!(
            "Device(profile='{}', model='{}', capacity_bytes={}, now_ns={})",
            c.name,
            c.identity.model,
            c.namespace.capacity_bytes,
            self.inner.now().as_ns()
        )
    }
}

impl Device {
    /// The simulated time, for Python-side bookkeeping.
    #[allow(dead_code)]
    pub(crate) fn now(&self) -> SimTime {
        self.inner.now()
    }
}

fn hmb_dict<'py>(py: Python<'py>, g: &HmbGrant) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("bytes", g.bytes)?;
    d.set_item("segments", g.segments)?;
    d.set_item("chunk_bytes", g.chunk_bytes)?;
    d.set_item("message", &g.message)?;
    Ok(d)
}

/// The width of a run's series rows, nanoseconds: `ms` if given (positive), else the default.
pub(crate) fn series_window_ns(py: Python<'_>, ms: Option<f64>) -> PyResult<u64> {
    match ms {
        None => Ok(DEFAULT_SERIES_WINDOW_NS),
        Some(ms) if ms.is_finite() && ms > 0.0 => Ok((ms * 1e6) as u64),
        Some(ms) => Err(errors::device(py, format!("series window {ms} ms: must be positive"))),
    }
}

impl Device {
    /// Runs one command on the quiet drive, then lets the work it started finish.
    fn one_command(
        &mut self,
        py: Python<'_>,
        command: ssdtwin_core::block::Command,
    ) -> PyResult<ssdtwin_core::block::Completion> {
        use ssdtwin_core::block::{BlockDevice, SubmitError};
        let inner = &mut self.inner;
        let done = py.detach(|| -> Result<_, SubmitError> {
            counted(inner, CoreDevice::quiesce);
            let start = inner.now();
            inner.submit(start, command, 0)?;
            let done = loop {
                if let Some(done) = inner.poll() {
                    break done;
                }
            };
            counted(inner, CoreDevice::quiesce);
            Ok(done)
        });
        done.map_err(|e| {
            let status = match e {
                SubmitError::Zone(z) => format!(" (NVMe status {:#x})", z.status()),
                _ => String::new(),
            };
            errors::device(py, format!("{e}{status}"))
        })
    }
}
