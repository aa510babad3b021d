"""Internal parallelism from a queue-depth sweep: 4 KiB random reads of written data at
depths 1 to 256, and Little's law.

At depth 1 a read takes the QD1 latency; as depth grows, IOPS rise while the drive has idle
units and level off when its busiest resource saturates. By Little's law (``N = X x R``: I/Os
in flight = throughput x time each spends), the reads in service at saturation are
``X_sat x R1``, with ``R1`` the unloaded latency: that many reads at once would keep every unit
busy with no queueing. ``X_sat x tR`` is the number of dies busy at once, if the dies are what
saturates; it can only be below the die count (random reads leave some dies idle while
others queue).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .estimate import Estimate
from .floor import UNIT
from .runner import Job, Runner
from .settings import Settings

MEASUREMENT = "qd"
DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


@dataclass(frozen=True)
class QdSweep:
    """One row per depth (``iodepth``, ``iops``, ``mean_lat_us``, ``p99_lat_us``) and the
    estimates."""

    table: pd.DataFrame
    estimates: list[Estimate]


def measure_qd(
    runner: Runner, settings: Settings, start: int, span: int, tr_ns: float | None, warm_s: float = 0.0
) -> QdSweep:
    """The sweep over ``span`` bytes of written data from ``start``; ``tr_ns`` (if known)
    turns the ceiling into busy dies. ``warm_s``: a ramp before the first point (a cached
    map must hold the span's translation pages before the sweep measures; the later points
    find them there)."""
    rows = []
    for depth in DEPTHS:
        ramp = warm_s if depth == DEPTHS[0] else min(warm_s, settings.point_s)
        job = Job(
            f"qd {depth}",
            "randread",
            UNIT,
            iodepth=depth,
            offset=start,
            size=span,
            runtime_s=settings.point_s,
            ramp_s=ramp,
        )
        d = runner.run(job, MEASUREMENT).main
        rows.append(
            {"iodepth": depth, "iops": d.iops, "mean_lat_us": d.mean_lat_ns / 1e3, "p99_lat_us": d.p99_lat_ns / 1e3}
        )
    table = pd.DataFrame(rows)
    return QdSweep(table, infer_qd(table, span, tr_ns))


def infer_qd(table: pd.DataFrame, span: int, tr_ns: float | None) -> list[Estimate]:
    """The ceiling and Little's law (see the module doc)."""
    measurement = f"4 KiB random reads of written data over {span / 2**30:.1f} GiB at depths 1 to 256"
    ceiling = float(table.iops.max())
    r1 = float(table.mean_lat_us.iloc[0]) * 1e3
    estimates = [
        Estimate("qd1_read_latency_ns", r1, "ns", None, measurement, "fio's mean latency at depth 1 (a quiet drive)"),
        Estimate("read_iops_written_ceiling", ceiling, "IOPS", None, measurement, "the highest IOPS"),
        Estimate(
            "reads_in_service",
            ceiling * r1 * 1e-9,
            "reads",
            None,
            measurement,
            "Little's law: ceiling x QD1 latency (reads at once with no queueing)",
        ),
    ]
    if tr_ns is not None:
        estimates.append(
            Estimate(
                "busy_dies",
                ceiling * tr_ns * 1e-9,
                "dies",
                None,
                measurement,
                "ceiling x tR: dies busy at once at the ceiling (at most the die count)",
            )
        )
    return estimates
