"""Two probes side by side: the same fio jobs' results on two drives (a drive and the twin
of its inferred profile; a served twin and the twin itself), point by point.

Each measurement's table is matched on its keys (test and size, span, depth …) and its
result column compared; the estimates are compared by name. What comes out is one row per
matched point: ``measurement``, ``point``, ``metric``, the two values and the relative
error of the second against the first.
"""

from __future__ import annotations

import pandas as pd

from .plan import ProbeResult

#: Per measurement table: the attribute path, its key columns and the result column(s).
TABLES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("floor", ("test", "bs", "iodepth"), ("mean_lat_us", "iops")),
    ("first", ("test", "x"), ("mean_lat_us", "iops")),
    ("coverage", ("span_bytes", "iodepth"), ("mean_lat_us",)),
    ("qd", ("iodepth",), ("iops", "mean_lat_us")),
    ("suspend", ("test",), ("read_lat_us",)),
    ("lbaf", ("lbaf", "test"), ("mb_per_s",)),
)

#: The metric that matters per test of the floor and region tables (latency at QD1,
#: throughput otherwise).
LATENCY_TESTS = frozenset({"qd1 read", "qd1 write", "qd1", "transfer"})


def compare(first: ProbeResult, second: ProbeResult) -> pd.DataFrame:
    """Every point the two probes share, with the second's error against the first."""
    rows: list[dict[str, object]] = []
    for attr, keys, metrics in TABLES:
        a, b = getattr(first, attr), getattr(second, attr)
        if a is None or b is None:
            continue
        ta, tb = a.table, b.table
        if "refined" in ta.columns:
            ta, tb = ta[~ta.refined], tb[~tb.refined]
        merged = ta.merge(tb, on=list(keys), suffixes=("_a", "_b"))
        for r in merged.to_dict("records"):
            metric = metrics[0]
            if len(metrics) > 1 and "test" in r:
                metric = metrics[0] if r["test"] in LATENCY_TESTS else metrics[1]
            point = " ".join(f"{k}={r[k]}" for k in keys)
            rows.append(_row(attr, point, metric, float(r[f"{metric}_a"]), float(r[f"{metric}_b"])))
    ea, eb = first.estimates, second.estimates
    for name, est in ea.items():
        other = eb.get(name)
        if other is None or est.value is None or other.value is None or est.status != "inferred":
            continue
        rows.append(_row("estimates", name, est.unit, float(est.value), float(other.value)))
    return pd.DataFrame(rows, columns=["measurement", "point", "metric", "first", "second", "error"])


def _row(measurement: str, point: str, metric: str, a: float, b: float) -> dict[str, object]:
    error = (b - a) / a if a else (0.0 if b == 0 else float("inf"))
    return {"measurement": measurement, "point": point, "metric": metric, "first": a, "second": b, "error": error}


def summary(table: pd.DataFrame, tolerance: float = 0.10) -> pd.DataFrame:
    """Per measurement: points compared, the largest error and how many are within
    ``tolerance``."""
    grouped = table.assign(abs_error=table.error.abs(), within=table.error.abs() <= tolerance).groupby(
        "measurement", sort=False
    )
    return grouped.agg(
        points=("error", "size"), max_abs_error=("abs_error", "max"), within=("within", "sum")
    ).reset_index()
