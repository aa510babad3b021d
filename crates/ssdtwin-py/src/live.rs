//! The live view of a running server, for the threads of Python's dashboard and metrics
//! endpoint: they read its snapshots and may ask for another time scale, while the twin's
//! thread, which holds no GIL, serves.

use pyo3::prelude::*;

/// Snapshots a running server pushes once a second (JSON text), and its time scale.
#[pyclass(module = "ssdtwin._ssdtwin", frozen)]
#[derive(Default)]
pub struct LiveFeed {
    pub(crate) inner: ssdtwin_serve::Live,
}

#[pymethods]
impl LiveFeed {
    #[new]
    fn new() -> Self {
        LiveFeed::default()
    }

    /// The snapshots from index `start` on (the oldest kept, if `start` is older), and the
    /// index to ask from next.
    fn since(&self, py: Python<'_>, start: u64) -> (u64, Vec<String>) {
        py.detach(|| self.inner.since(start))
    }

    /// Asks the server to serve at time scale `k` (0.001 to 10^6, as `serve` takes it) from
    /// the next instant nothing is in flight.
    fn request_time_scale(&self, py: Python<'_>, k: f64) -> PyResult<()> {
        if !k.is_finite() || !(0.001..=1e6).contains(&k) {
            return Err(crate::errors::device(py, format!("time scale {k}: allowed 0.001 to 1000000")));
        }
        self.inner.request_time_scale(k);
        Ok(())
    }
}
