"""The served drive as Prometheus metrics (``ssdtwin serve --metrics``), from the latest
snapshot: the server's requests, bytes, replies and lateness, the last second's latency
percentiles (simulated time, seconds), and every counter of the drive, totals as counters
and levels (bytes cached, free superblocks, temperature) as gauges."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from .feed import Snapshots

OPERATIONS = ("read", "write", "trim", "flush")


class ServeCollector(Collector):
    """Collects, at each scrape, what the latest snapshot says."""

    def __init__(self, snapshots: Snapshots) -> None:
        self.snapshots = snapshots

    def collect(self) -> Iterator[Any]:
        s = self.snapshots.latest()
        if s is None:
            return
        totals = s["totals"]
        requests = CounterMetricFamily("ssdtwin_serve_requests", "Requests the drive ran, by operation.", labels=["op"])
        for op, key in zip(OPERATIONS, ("reads", "writes", "trims", "flushes"), strict=True):
            requests.add_metric([op], totals[key])
        yield requests
        moved = CounterMetricFamily("ssdtwin_serve_bytes", "Bytes read and written by clients.", labels=["op"])
        moved.add_metric(["read"], totals["bytes_read"])
        moved.add_metric(["write"], totals["bytes_written"])
        yield moved
        for key, help_text in (
            ("connections", "Client connections."),
            ("replies", "Replies to commands the drive ran."),
            ("late_replies", "Replies written more than 20 us after their due time."),
            ("errors", "Requests refused with an error reply."),
        ):
            yield CounterMetricFamily(f"ssdtwin_serve_{key}", help_text, value=totals[key])
        yield CounterMetricFamily(
            "ssdtwin_serve_simulated_seconds", "Simulated time served, seconds.", value=s["sim_s"]
        )
        latency = GaugeMetricFamily(
            "ssdtwin_serve_latency_seconds",
            "Latency of the last second's commands in simulated time (reaching the drive to completion).",
            labels=["op", "quantile"],
        )
        for op in ("read", "write"):
            for q, key in (("0.5", "lat_p50_us"), ("0.99", "lat_p99_us"), ("0.999", "lat_p999_us")):
                latency.add_metric([op, q], s["ops"][op][key] / 1e6)
        yield latency
        yield GaugeMetricFamily("ssdtwin_serve_in_flight", "Commands in the drive now.", value=s["in_flight"])
        yield GaugeMetricFamily(
            "ssdtwin_serve_time_scale", "Simulated time runs this many times slower than wall time.",
            value=s["time_scale"],
        )  # fmt: skip
        yield GaugeMetricFamily(
            "ssdtwin_serve_lateness_p99_seconds",
            "99th percentile of the last second's reply lateness, wall seconds.",
            value=s["lateness_p99_us"] / 1e6,
        )
        levels = set(s["drive_levels"])
        for name, value in s["drive"].items():
            metric = "ssdtwin_drive_" + name.replace(".", "_")
            if name in levels:
                yield GaugeMetricFamily(metric, f"The drive's {name} (a level).", value=value)
            else:
                yield CounterMetricFamily(metric, f"The drive's {name} (a running total).", value=value)


def serve_metrics(snapshots: Snapshots, address: str) -> Any:
    """Exposes the metrics at ``http://ADDRESS:PORT/metrics`` from a thread of its own;
    returns the HTTP server (``shutdown()`` stops it)."""
    host, _, port = address.rpartition(":")
    registry = CollectorRegistry()
    registry.register(ServeCollector(snapshots))
    server, _thread = start_http_server(int(port), addr=host, registry=registry)
    return server
