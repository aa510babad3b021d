//! `RunOutput`: a finished run. Reports render on demand (fio JSON, json+, normal); tables
//! cross the boundary as columns (dict of lists), never one Python object per I/O.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use ssdtwin_core::workload::fio::{OutputOptions, WallClock, fio_json, fio_normal};
use ssdtwin_core::workload::{Direction, JobSet, RunResult};

/// The outcome of `Device.run`.
#[pyclass(module = "ssdtwin._ssdtwin")]
pub(crate) struct RunOutput {
    set: JobSet,
    result: RunResult,
    wall: WallClock,
    device_name: String,
}

impl RunOutput {
    pub(crate) fn new(set: JobSet, result: RunResult, wall: WallClock, device_name: String) -> Self {
        RunOutput { set, result, wall, device_name }
    }

    fn options(&self, plus: bool) -> OutputOptions {
        OutputOptions { plus, wall: self.wall.clone(), device_name: self.device_name.clone() }
    }
}

/// Converts a JSON value to Python objects.
pub(crate) fn json_to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(json_to_py(py, x)?)?;
            }
            list.into_any()
        }
        Value::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

#[pymethods]
impl RunOutput {
    /// fio 3.33 JSON text (`plus`: json+ with latency bins).
    #[pyo3(signature = (plus = false))]
    fn fio_json(&self, plus: bool) -> String {
        fio_json(&self.set, &self.result, &self.options(plus))
    }

    /// fio 3.33 normal (human) output.
    fn fio_normal(&self) -> String {
        fio_normal(&self.set, &self.result, &self.options(false))
    }

    /// One-line warnings about the run, one per reporting group at most (reads that were
    /// mostly of never-written data).
    fn warnings(&self) -> Vec<String> {
        self.result
            .groups
            .iter()
            .filter_map(|g| {
                // Named after the group's first job that read.
                let reader = self.result.jobs.iter().find(|j| j.groupid == g.groupid && j.dirs[0].io_bytes > 0)?;
                g.unmapped_read_warning(&reader.name)
            })
            .collect()
    }

    /// One row per job clone and direction that moved data: columns of a tidy table (`rw` is
    /// the job's fio pattern, `direction` the row's).
    fn summary_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut cols: Vec<(&str, Vec<serde_json::Value>)> = [
            "job",
            "clone",
            "name",
            "groupid",
            "rw",
            "direction",
            "io_bytes",
            "ios",
            "runtime_s",
            "iops",
            "bw_mb_per_s",
            "mean_lat_us",
            "p50_lat_us",
            "p99_lat_us",
            "p999_lat_us",
            "p9999_lat_us",
            "max_lat_us",
            "mean_slat_us",
        ]
        .into_iter()
        .map(|c| (c, Vec::new()))
        .collect();
        for j in &self.result.jobs {
            for dir in Direction::ALL {
                let d = &j.dirs[dir.index()];
                if d.total_ios == 0 {
                    continue;
                }
                // Latency as the host sees it: submission plus completion (fio's lat), its
                // percentiles from its own histogram (fio's `lat_percentiles`).
                let p = d.latency.lat_hist.percentiles(&[50.0, 99.0, 99.9, 99.99]);
                let secs = d.runtime_ns as f64 / 1e9;
                let us = |ns: f64| ns / 1e3;
                let row: Vec<serde_json::Value> = vec![
                    j.job.into(),
                    j.clone.into(),
                    j.name.clone().into(),
                    j.groupid.into(),
                    self.set.jobs[j.job].rw.name().into(),
                    dir.name().into(),
                    d.io_bytes.into(),
                    d.total_ios.into(),
                    secs.into(),
                    (if secs > 0.0 { d.total_ios as f64 / secs } else { 0.0 }).into(),
                    (if secs > 0.0 { d.io_bytes as f64 / secs / 1e6 } else { 0.0 }).into(),
                    us(d.latency.lat.mean()).into(),
                    us(p[0] as f64).into(),
                    us(p[1] as f64).into(),
                    us(p[2] as f64).into(),
                    us(p[3] as f64).into(),
                    us(d.latency.lat.max as f64).into(),
                    us(d.latency.slat.mean()).into(),
                ];
                for (col, v) in cols.iter_mut().zip(row) {
                    col.1.push(v);
                }
            }
        }
        let d = PyDict::new(py);
        for (name, values) in cols {
            d.set_item(name, json_to_py(py, &serde_json::Value::Array(values))?)?;
        }
        Ok(d)
    }

    /// Device counters sampled over time: one column per counter, `time_ns` first.
    fn series_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let series = &self.result.series;
        if let Some(first) = series.first() {
            let times: Vec<u64> = series.iter().map(|r| r.time_ns).collect();
            d.set_item("time_ns", times)?;
            for (i, counter) in first.entries.iter().enumerate() {
                // Every row of one run lists the same counters in the same order.
                let col: Vec<u64> = series.iter().map(|r| r.entries[i].value).collect();
                d.set_item(&counter.name, col)?;
            }
        }
        Ok(d)
    }

    /// The errors that ended clones, as fio logs them on stderr: its message, then
    /// `fio: pid=N, err=5/file:..., func=..., error=...`.
    fn job_errors(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (j, f) in self.result.jobs.iter().filter_map(|j| Some((j, j.error.as_ref()?))) {
            lines.push(f.message.clone());
            lines.push(format!("fio: pid={}, err={}/{}", j.pid, f.errno, f.verror()));
        }
        lines
    }

    /// Names of the series counters that are levels (values at an instant), not totals.
    fn series_levels(&self) -> Vec<String> {
        let first = self.result.series.first();
        first.map_or_else(Vec::new, |r| r.entries.iter().filter(|c| c.level).map(|c| c.name.clone()).collect())
    }

    /// Per series row and direction, what the jobs completed in the window ending there:
    /// `{dir}_ios`, `{dir}_bytes`, `{dir}_mean_lat_ns`, `{dir}_p50_lat_ns`, `{dir}_p99_lat_ns`,
    /// `{dir}_p999_lat_ns`, `{dir}_max_lat_ns`.
    fn window_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let rows = &self.result.windows;
        for dir in Direction::ALL {
            let name = dir.name();
            let i = dir.index();
            d.set_item(format!("{name}_ios"), rows.iter().map(|r| r.dirs[i].ios).collect::<Vec<_>>())?;
            d.set_item(format!("{name}_bytes"), rows.iter().map(|r| r.dirs[i].bytes).collect::<Vec<_>>())?;
            d.set_item(format!("{name}_mean_lat_ns"), rows.iter().map(|r| r.dirs[i].mean_lat_ns).collect::<Vec<_>>())?;
            d.set_item(format!("{name}_p50_lat_ns"), rows.iter().map(|r| r.dirs[i].p50_lat_ns).collect::<Vec<_>>())?;
            d.set_item(format!("{name}_p99_lat_ns"), rows.iter().map(|r| r.dirs[i].p99_lat_ns).collect::<Vec<_>>())?;
            d.set_item(format!("{name}_p999_lat_ns"), rows.iter().map(|r| r.dirs[i].p999_lat_ns).collect::<Vec<_>>())?;
            d.set_item(format!("{name}_max_lat_ns"), rows.iter().map(|r| r.dirs[i].max_lat_ns).collect::<Vec<_>>())?;
        }
        Ok(d)
    }

    /// The total-latency histogram of every job together, per direction, in fio's buckets:
    /// `direction`, `lat_ns` (the bucket's value, as fio's json+ `bins` name it) and
    /// `count`, one row per non-empty bucket, in order.
    fn lat_histogram_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (mut dirs, mut values, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        for dir in Direction::ALL {
            let mut hist = ssdtwin_core::stats::PlatHistogram::default();
            for j in &self.result.jobs {
                hist.merge(&j.dirs[dir.index()].latency.lat_hist);
            }
            for (value, count) in hist.bins() {
                dirs.push(dir.name());
                values.push(value);
                counts.push(count);
            }
        }
        let d = PyDict::new(py);
        d.set_item("direction", dirs)?;
        d.set_item("lat_ns", values)?;
        d.set_item("count", counts)?;
        Ok(d)
    }

    /// Device counter changes per reporting group, with write amplification.
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for g in &self.result.groups {
            let mut delta = serde_json::Map::new();
            delta.insert("groupid".into(), g.groupid.into());
            delta.insert("time_ns".into(), g.counters_end.time_ns.saturating_sub(g.counters_start.time_ns).into());
            for (key, value) in g.counters_end.delta_since(&g.counters_start) {
                delta.insert(key, value.into());
            }
            delta.insert(
                "write_amplification".into(),
                g.counters_end.write_amplification_since(&g.counters_start).map_or(serde_json::Value::Null, Into::into),
            );
            list.append(json_to_py(py, &serde_json::Value::Object(delta))?)?;
        }
        Ok(list)
    }

    /// Simulated start and end of the run, ns on the device clock.
    #[getter]
    fn span_ns(&self) -> (u64, u64) {
        (self.result.start_ns, self.result.end_ns)
    }
}
