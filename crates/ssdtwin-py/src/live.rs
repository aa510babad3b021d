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

    /// Asks the server to serve at time scale `k` from the next instant nothing is in flight.
    fn request_time_scale(&self, k: f64) {
        self.inner.request_time_scale(k);
    }
}
