//! What the server reports on exit and in `--stats`: requests by kind, and how well it kept
//! time (lateness of replies, delay of submissions), as percentiles from fio's histogram.

use ssdtwin_core::stats::PlatHistogram;

/// A distribution of durations, ns.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    hist: PlatHistogram,
    max_ns: u64,
}

impl Tally {
    /// Adds one duration.
    pub fn record(&mut self, ns: u64) {
        self.hist.record(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// `(p50, p99, max)`, ns (zeros when empty).
    pub fn summary(&self) -> (u64, u64, u64) {
        if self.hist.total() == 0 {
            return (0, 0, 0);
        }
        let p = self.hist.percentiles(&[50.0, 99.0]);
        (p[0], p[1], self.max_ns)
    }

    fn json(&self) -> serde_json::Value {
        let (p50, p99, max) = self.summary();
        serde_json::json!({ "p50_ns": p50, "p99_ns": p99, "max_ns": max })
    }
}

/// The server's account of a run.
#[derive(Clone, Debug, Default)]
pub struct ServeStats {
    pub connections: u64,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub flushes: u64,
    /// Requests refused with an error reply.
    pub errors: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Replies to commands the twin ran.
    pub replies: u64,
    /// Replies written more than 20 µs after their due time.
    pub late_replies: u64,
    /// How long after its due wall time each reply was written.
    pub lateness: Tally,
    /// How long after its arrival (simulated time) each request reached the twin.
    pub submit_delay: Tally,
    pub time_scale: f64,
    pub wall_seconds: f64,
    pub simulated_seconds: f64,
    /// Bytes of client data held in memory at the end.
    pub data_memory_bytes: u64,
    /// `BLOCK_STATUS` requests answered (by the server, at once: no command of the drive).
    pub block_status: u64,
}

impl ServeStats {
    /// The running counts: what a live snapshot's `totals` holds, and the start of `--stats`.
    pub fn counts(&self) -> serde_json::Map<String, serde_json::Value> {
        let serde_json::Value::Object(counts) = serde_json::json!({
            "connections": self.connections,
            "requests": self.requests,
            "reads": self.reads,
            "writes": self.writes,
            "trims": self.trims,
            "flushes": self.flushes,
            "errors": self.errors,
            "bytes_read": self.bytes_read,
            "bytes_written": self.bytes_written,
            "replies": self.replies,
            "late_replies": self.late_replies,
            "block_status": self.block_status,
        }) else {
            unreachable!("a JSON object literal")
        };
        counts
    }

    /// The `--stats` JSON object: the counts, then how well the server kept time.
    pub fn to_json(&self) -> serde_json::Value {
        let mut o = self.counts();
        o.insert("lateness".into(), self.lateness.json());
        o.insert("submit_delay".into(), self.submit_delay.json());
        o.insert("time_scale".into(), self.time_scale.into());
        o.insert("wall_seconds".into(), self.wall_seconds.into());
        o.insert("simulated_seconds".into(), self.simulated_seconds.into());
        o.insert("data_memory_bytes".into(), self.data_memory_bytes.into());
        serde_json::Value::Object(o)
    }
}
