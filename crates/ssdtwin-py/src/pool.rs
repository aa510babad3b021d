//! The `Pool` class: a simulated ZFS pool that keeps its state between calls; and the
//! planner's zdb reader.

use crate::device::simulate;
use crate::errors;
use crate::output::RunOutput;
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use ssdtwin_core::defaults::{DEFAULT_HOST, DEFAULT_RUN_SEED, DEFAULT_SETUP_SEED};
use ssdtwin_core::os::{Host, load_host};
use ssdtwin_core::setup::{aim_fio_at_pool, fio_on_pool, pool_on_host};
use ssdtwin_core::workload::fio::{WallClock, parse_command_line, parse_job_text};
use ssdtwin_core::workload::{JobSet, RunOptions, run};
use ssdtwin_core::zfs::plan::{Plan, PlanRow, special_bytes};
use ssdtwin_core::zfs::{
    AllocClass, ClassUsage, FileClass, OpError, Pool as CorePool, PoolError, SizeDist, Tree, TreeOp, TreeSpec, Usage,
    apply_pool_overrides, build_pool, load_pool,
};
use std::path::PathBuf;

/// A resolved, validated pool file.
pub(crate) fn load(pool: &str, overrides: &[String]) -> Result<ssdtwin_core::zfs::PoolConfig, PoolError> {
    let mut loaded = load_pool(pool)?;
    apply_pool_overrides(&mut loaded, overrides)?;
    build_pool(&loaded)
}

/// The resolved TOML of a pool file (shipped name or path) after `overrides`, validated.
#[pyfunction]
#[pyo3(signature = (pool, overrides = Vec::new()))]
pub(crate) fn pool_toml(py: Python<'_>, pool: &str, overrides: Vec<String>) -> PyResult<String> {
    let mut loaded = load_pool(pool).map_err(|e| errors::pool(py, &e))?;
    apply_pool_overrides(&mut loaded, &overrides).map_err(|e| errors::pool(py, &e))?;
    build_pool(&loaded).map_err(|e| errors::pool(py, &e))?;
    Ok(loaded.to_toml())
}

/// Names of the shipped pools.
#[pyfunction]
pub(crate) fn pool_names() -> Vec<&'static str> {
    ssdtwin_core::zfs::shipped_pool_names()
}

/// Names of the shipped disk profiles.
#[pyfunction]
pub(crate) fn hdd_names() -> Vec<&'static str> {
    ssdtwin_core::hdd::shipped_hdd_names()
}

/// The resolved TOML of a disk profile after `overrides`, validated.
#[pyfunction]
#[pyo3(signature = (disk, overrides = Vec::new()))]
pub(crate) fn hdd_toml(py: Python<'_>, disk: &str, overrides: Vec<String>) -> PyResult<String> {
    let mut p = ssdtwin_core::hdd::load_hdd(disk).map_err(|e| errors::profile(py, &e))?;
    ssdtwin_core::config::apply_overrides(&mut p, &overrides).map_err(|e| errors::profile(py, &e))?;
    ssdtwin_core::hdd::build_hdd(&p).map_err(|e| errors::profile(py, &e))?;
    Ok(p.to_toml())
}

/// The planner's rows from `zdb -bb`/`-bbb` output text.
#[pyfunction]
#[pyo3(signature = (text, source, special_ashift, thresholds, special_size_bytes = None, reserve_pct = 25))]
pub(crate) fn zdb_plan<'py>(
    py: Python<'py>,
    text: &str,
    source: &str,
    special_ashift: u8,
    thresholds: Vec<u64>,
    special_size_bytes: Option<u64>,
    reserve_pct: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let plan = Plan::from_zdb(text, source, special_ashift).map_err(|e| errors::op(py, &e))?;
    plan_dict(py, &plan, &plan.rows(&thresholds, special_size_bytes, reserve_pct))
}

fn plan_dict<'py>(py: Python<'py>, plan: &Plan, rows: &[PlanRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("source", &plan.source)?;
    d.set_item("data_bytes", plan.data_bytes)?;
    d.set_item("metadata_bytes", plan.metadata_bytes)?;
    d.set_item("includes_metadata", plan.includes_metadata)?;
    let list = PyList::empty(py);
    for r in rows {
        let row = PyDict::new(py);
        row.set_item("special_small_blocks_bytes", r.special_small_blocks_bytes)?;
        row.set_item("metadata_bytes", r.metadata_bytes)?;
        row.set_item("small_data_bytes", r.small_data_bytes)?;
        row.set_item("needed_bytes", r.needed_bytes)?;
        row.set_item("small_blocks_stop_at_data_bytes", r.small_blocks_stop_at_data_bytes)?;
        row.set_item("metadata_spills_at_data_bytes", r.metadata_spills_at_data_bytes)?;
        list.append(row)?;
    }
    d.set_item("rows", list)?;
    Ok(d)
}

fn class_dict<'py>(py: Python<'py>, c: &ClassUsage) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("metadata_bytes", c.metadata_bytes)?;
    d.set_item("data_bytes", c.data_bytes)?;
    d.set_item("log_bytes", c.log_bytes)?;
    d.set_item("allocated_bytes", c.allocated())?;
    d.set_item("size_bytes", c.size_bytes)?;
    Ok(d)
}

fn usage_dict<'py>(py: Python<'py>, u: &Usage) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for c in AllocClass::ALL {
        d.set_item(c.name().trim_end_matches('s'), class_dict(py, u.class(c))?)?;
    }
    d.set_item("small_blocks_redirected_bytes", u.small_blocks_redirected_bytes)?;
    d.set_item("metadata_spilled_bytes", u.metadata_spilled_bytes)?;
    d.set_item("data_spilled_bytes", u.data_spilled_bytes)?;
    d.set_item("log_spilled_bytes", u.log_spilled_bytes)?;
    d.set_item("spilled_bytes", u.spilled_bytes())?;
    Ok(d)
}

/// A simulated ZFS pool on a host. State (trees, blocks, caches, clock) persists.
#[pyclass(module = "ssdtwin._ssdtwin")]
pub(crate) struct Pool {
    inner: CorePool,
}

/// Runs a tree operation with the GIL released; `progress(done, total)` may return False
/// to stop it, and Ctrl-C stops it.
fn run_op(
    py: Python<'_>,
    pool: &mut CorePool,
    dataset: &str,
    op: TreeOp,
    progress: Option<Py<PyAny>>,
) -> Result<ssdtwin_core::zfs::OpResult, (OpError, bool)> {
    let cancelled = std::sync::atomic::AtomicBool::new(false);
    let result = py.detach(|| {
        crate::simulated::counted(pool, |pool| {
            pool.run_op(dataset, op, &mut |done, total| {
                Python::attach(|py| {
                    let go = py.check_signals().is_ok()
                        && progress.as_ref().is_none_or(|cb| {
                            cb.call1(py, (done, total)).is_ok_and(|r| r.extract::<bool>(py).unwrap_or(true))
                        });
                    if !go {
                        cancelled.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    go
                })
            })
        })
    });
    result.map_err(|e| (e, cancelled.load(std::sync::atomic::Ordering::Relaxed)))
}

#[pymethods]
impl Pool {
    /// A new pool from a shipped pool name or a TOML path, with `section.field=value`
    /// overrides (`vdevs.N.field`, `datasets.NAME.field`), on host `host`.
    #[new]
    #[pyo3(signature = (pool, overrides = Vec::new(), host = None, host_overrides = Vec::new()))]
    fn new(
        py: Python<'_>,
        pool: &str,
        overrides: Vec<String>,
        host: Option<&str>,
        host_overrides: Vec<String>,
    ) -> PyResult<Self> {
        let config = load(pool, &overrides).map_err(|e| errors::pool(py, &e))?;
        let host = load_host(host.unwrap_or(DEFAULT_HOST), &host_overrides).map_err(|e| errors::profile(py, &e))?;
        let inner = py.detach(|| pool_on_host(config, &host)).map_err(|e| errors::op(py, &e))?;
        Ok(Pool { inner })
    }

    /// An independent pool in the same state.
    fn copy(&self) -> Pool {
        Pool { inner: self.inner.clone() }
    }

    /// Generates a file tree for `dataset` (created by the `create` operation).
    #[pyo3(signature = (dataset, files, size_dist, files_per_dir = 1000, dirs_per_dir = 10, name_bytes = 20, classes = None, seed = None))]
    #[allow(clippy::too_many_arguments)]
    fn add_tree(
        &mut self,
        py: Python<'_>,
        dataset: &str,
        files: u64,
        size_dist: &str,
        files_per_dir: u32,
        dirs_per_dir: u32,
        name_bytes: u32,
        classes: Option<Vec<String>>,
        seed: Option<u64>,
    ) -> PyResult<()> {
        let seed = seed.unwrap_or(DEFAULT_SETUP_SEED);
        let sizes = SizeDist::parse(size_dist).map_err(|e| errors::op(py, &e))?;
        let classes = parse_classes(py, classes)?;
        let spec = TreeSpec { files, sizes, files_per_dir, dirs_per_dir, name_bytes, classes, seed };
        let tree = py.detach(|| Tree::generate(&spec)).map_err(|e| errors::op(py, &e))?;
        self.inner.add_tree(dataset, tree).map_err(|e| errors::op(py, &e))
    }

    /// Reads a directory scan (`find DIR -type f -printf '%s %p\n'` output) as the tree of
    /// `dataset`.
    #[pyo3(signature = (dataset, text, source, classes = None))]
    fn add_scan(
        &mut self,
        py: Python<'_>,
        dataset: &str,
        text: &str,
        source: &str,
        classes: Option<Vec<String>>,
    ) -> PyResult<()> {
        let classes = parse_classes(py, classes)?;
        let tree = py.detach(|| Tree::from_scan(text, source, classes)).map_err(|e| errors::op(py, &e))?;
        self.inner.add_tree(dataset, tree).map_err(|e| errors::op(py, &e))
    }

    /// Runs operation `op` (create, find, stat, read-small, read-seq, read-random, scrub)
    /// on `dataset`'s tree; returns what it did.
    #[pyo3(signature = (dataset, op, max_bytes = 65536, min_bytes = 1_048_576, total_bytes = 1_073_741_824, count = 1000, io_bytes = 4096, seed = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run_op<'py>(
        &mut self,
        py: Python<'py>,
        dataset: &str,
        op: &str,
        max_bytes: u64,
        min_bytes: u64,
        total_bytes: u64,
        count: u64,
        io_bytes: u64,
        seed: Option<u64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let seed = seed.unwrap_or(DEFAULT_SETUP_SEED);
        let op = match op {
            "create" => TreeOp::Create,
            "find" => TreeOp::Find,
            "stat" => TreeOp::Stat,
            "read-small" => TreeOp::ReadSmall { max_bytes },
            "read-seq" => TreeOp::ReadSeq { min_bytes, max_total_bytes: total_bytes },
            "read-random" => TreeOp::ReadRandom { count, io_bytes, min_bytes, seed },
            "scrub" => TreeOp::Scrub,
            other => {
                return Err(errors::op(
                    py,
                    &OpError::Parameter {
                        field: "operation".into(),
                        value: other.into(),
                        allowed: "allowed create, find, stat, read-small, read-seq, read-random, scrub".into(),
                    },
                ));
            }
        };
        let r = match run_op(py, &mut self.inner, dataset, op, progress) {
            Ok(r) => r,
            Err((_, true)) => return Err(PyKeyboardInterrupt::new_err("interrupted")),
            Err((e, false)) => return Err(errors::op(py, &e)),
        };
        let d = PyDict::new(py);
        d.set_item("op", &r.op)?;
        d.set_item("seconds", r.seconds)?;
        d.set_item("ops", r.ops)?;
        d.set_item("op_unit", &r.op_unit)?;
        d.set_item("ops_per_s", r.ops_per_s())?;
        d.set_item("bytes_read", r.bytes_read)?;
        d.set_item("bytes_written", r.bytes_written)?;
        d.set_item("leaf_read_bytes", r.leaf_read_bytes.to_vec())?;
        d.set_item("leaf_write_bytes", r.leaf_write_bytes.to_vec())?;
        d.set_item("leaf_reads", r.leaf_reads.to_vec())?;
        d.set_item("arc_hits", r.arc_hits)?;
        d.set_item("arc_misses", r.arc_misses)?;
        Ok(d)
    }

    /// Runs fio-style arguments or job text on the pool; jobs name their dataset by its
    /// mount point (`directory=/tank/data`).
    #[pyo3(signature = (host, host_overrides, args, job_text = None, source = "job", base_dir = ".", seed = None, log_dir = ".", wall_unix_ms = 0, wall_ctime = "", series_window_ms = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn run_fio(
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
        wall_unix_ms: u64,
        wall_ctime: &str,
        series_window_ms: Option<f64>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<RunOutput> {
        self.inner.check_usable().map_err(|e| errors::op(py, &e))?;
        let mut set: JobSet = match job_text {
            Some(text) => parse_job_text(&text, source, std::path::Path::new(base_dir)),
            None => parse_command_line(&args),
        }
        .map_err(|e| errors::job(py, &e))?;
        aim_fio_at_pool(&mut self.inner, &set).map_err(|e| errors::op(py, &e))?;
        let host_config = load_host(host, &host_overrides).map_err(|e| errors::profile(py, &e))?;
        let mut opts = RunOptions {
            seed: seed.unwrap_or(DEFAULT_RUN_SEED),
            series_window_ns: crate::device::series_window_ns(py, series_window_ms)?,
            log_dir: PathBuf::from(log_dir),
            device_name: self.inner.config().name.clone(),
            ..RunOptions::default()
        };
        let host_config = fio_on_pool(&self.inner, &host_config, &mut set, &mut opts);
        let set_for_run = set.clone();
        let result = simulate(py, &mut self.inner, progress.as_ref(), move |pool, observe| {
            run(&mut Host::new(pool, host_config), &set_for_run, &opts, observe)
        })
        .map_err(|e| errors::run(py, &e))?;
        let name = self.inner.config().name.clone();
        Ok(RunOutput::new(set, result, WallClock { unix_ms: wall_unix_ms, ctime: wall_ctime.to_string() }, name))
    }

    /// Empties the ARC (an export and import).
    fn drop_caches(&mut self) {
        self.inner.drop_caches();
    }

    /// Runs until every dirty block is on the vdevs.
    fn sync(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| crate::simulated::counted(inner, CorePool::sync_all)).map_err(|e| errors::op(py, &e))
    }

    /// Marks device `name` failed.
    fn fail(&mut self, py: Python<'_>, name: &str) -> PyResult<()> {
        self.inner.fail_device(name).map_err(|e| errors::op(py, &e))
    }

    /// Raises `PoolUnavailableError` if the pool has lost a top-level vdev.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        self.inner.check_usable().map_err(|e| errors::op(py, &e))
    }

    /// Space by class, and what spilled.
    fn usage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        usage_dict(py, &self.inner.usage())
    }

    /// `zpool list -v`'s rows.
    fn list_rows<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for r in self.inner.list_rows() {
            let d = PyDict::new(py);
            d.set_item("name", &r.name)?;
            d.set_item("depth", r.depth)?;
            d.set_item("kind", format!("{:?}", r.kind).to_lowercase())?;
            d.set_item("size", r.size)?;
            d.set_item("alloc", r.alloc)?;
            d.set_item("frag", r.frag)?;
            d.set_item("health", &r.health)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// `zdb -bbb`'s numbers.
    fn block_stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = py.detach(|| self.inner.block_stats());
        let d = PyDict::new(py);
        let types = PyList::empty(py);
        for t in &s.types {
            let row = PyDict::new(py);
            row.set_item("ot", t.ot)?;
            row.set_item("level", t.level)?;
            row.set_item("count", t.count)?;
            row.set_item("lsize", t.lsize)?;
            row.set_item("psize", t.psize)?;
            row.set_item("asize", t.asize)?;
            types.append(row)?;
        }
        d.set_item("types", types)?;
        let m = s.metadata_total();
        d.set_item("metadata_total", (m.count, m.lsize, m.psize, m.asize))?;
        d.set_item("total", (s.total.count, s.total.lsize, s.total.psize, s.total.asize))?;
        d.set_item("embedded", s.embedded)?;
        d.set_item("ditto_same_vdev", s.ditto_same_vdev)?;
        d.set_item("psize_hist", s.psize_hist.clone())?;
        d.set_item("lsize_hist", s.lsize_hist.clone())?;
        d.set_item("asize_hist", s.asize_hist.clone())?;
        d.set_item("usage", usage_dict(py, &s.usage)?)?;
        Ok(d)
    }

    /// Every txg synced: its number, start and end (ns), bytes written, and space by class.
    fn txg_log<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for t in self.inner.txg_log() {
            let d = PyDict::new(py);
            d.set_item("txg", t.txg)?;
            d.set_item("start_ns", t.start_ns)?;
            d.set_item("end_ns", t.end_ns)?;
            d.set_item("written_bytes", t.written_bytes)?;
            d.set_item("usage", usage_dict(py, &t.usage)?)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// The planner's rows for what the pool's trees put on a special vdev of
    /// 2^`special_ashift`-byte sectors (`special_size_bytes` defaults to the pool's own).
    #[pyo3(signature = (special_ashift, thresholds, special_size_bytes = None, reserve_pct = 25))]
    fn plan<'py>(
        &self,
        py: Python<'py>,
        special_ashift: u8,
        thresholds: Vec<u64>,
        special_size_bytes: Option<u64>,
        reserve_pct: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let plan = Plan::from_pool(&self.inner, special_ashift);
        let size = special_size_bytes.or_else(|| special_bytes(&self.inner));
        plan_dict(py, &plan, &plan.rows(&thresholds, size, reserve_pct))
    }

    /// Name, datasets, vdevs, the dirty-data limit and the ARC's size.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.config();
        let d = PyDict::new(py);
        d.set_item("name", &c.name)?;
        d.set_item("description", &c.description)?;
        d.set_item("datasets", self.inner.dataset_names())?;
        d.set_item("dirty_data_max_bytes", self.inner.dirty_data_max())?;
        d.set_item("arc_max_bytes", self.inner.arc_max())?;
        let vdevs = PyList::empty(py);
        for v in &c.vdevs {
            let vd = PyDict::new(py);
            vd.set_item("class", format!("{:?}", v.class).to_lowercase())?;
            vd.set_item("layout", format!("{:?}", v.layout).to_lowercase())?;
            vd.set_item("ashift", v.ashift)?;
            vd.set_item("devices", v.leaves.iter().map(|l| l.name.clone()).collect::<Vec<_>>())?;
            vd.set_item("drives", v.leaves.iter().map(|l| l.drive.profile().to_string()).collect::<Vec<_>>())?;
            vdevs.append(vd)?;
        }
        d.set_item("vdevs", vdevs)?;
        let ds = PyList::empty(py);
        for x in &c.datasets {
            let e = PyDict::new(py);
            e.set_item("name", if x.name.is_empty() { c.name.clone() } else { format!("{}/{}", c.name, x.name) })?;
            e.set_item("recordsize_bytes", x.recordsize_bytes)?;
            e.set_item("special_small_blocks_bytes", x.special_small_blocks_bytes)?;
            e.set_item("compression", format!("{:?}", x.compression).to_lowercase())?;
            e.set_item("copies", x.copies)?;
            ds.append(e)?;
        }
        d.set_item("dataset_properties", ds)?;
        Ok(d)
    }

    /// Every counter of the pool and its devices, as a dict.
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        use ssdtwin_core::block::{BlockDevice, CounterRow};
        let mut row = CounterRow::at(self.inner.now().as_ns());
        BlockDevice::counters(&self.inner, "", &mut row);
        let d = PyDict::new(py);
        for c in row.entries {
            d.set_item(c.name, c.value)?;
        }
        Ok(d)
    }

    /// Memory the model's tables hold for the pool's contents, bytes.
    fn memory_bytes(&self) -> usize {
        self.inner.memory_bytes()
    }

    /// The resolved pool file.
    #[getter]
    fn pool_toml(&self) -> String {
        self.inner.config().toml.clone()
    }

    /// Simulated time now, ns.
    #[getter]
    fn now_ns(&self) -> u64 {
        self.inner.now().as_ns()
    }

    fn __repr__(&self) -> String {
        let c = self.inner.config();
        format!("Pool(name='{}', vdevs={}, now_ns={})", c.name, c.vdevs.len(), self.inner.now().as_ns())
    }
}

fn parse_classes(py: Python<'_>, classes: Option<Vec<String>>) -> PyResult<Vec<FileClass>> {
    match classes {
        None => Ok(FileClass::defaults()),
        Some(list) => list.iter().map(|c| FileClass::parse(c).map_err(|e| errors::op(py, &e))).collect(),
    }
}
