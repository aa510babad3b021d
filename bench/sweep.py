#!/usr/bin/env python3
"""Wall time of a 64-point sweep on each executor, and the per-point overhead of each
(from points that do almost nothing), printed as JSON lines:

    python3 bench/sweep.py

The work grid: 64 points (4 queue depths x 2 patterns x 8 seeds) of 4 KiB random I/O for
20 ms of simulated time on a 1 GiB drive. The overhead grid: 64 points of one 4 KiB read.
"""

from __future__ import annotations

import json
import time
from typing import Any

from ssdtwin.sweep import from_dict, open_executor, sweep


def grid(work: bool) -> dict[str, Any]:
    job: dict[str, Any] = {"bs": "4k", "ioengine": "libaio", "size": "256m"}
    if work:
        job |= {"rw": ["randread", "randwrite"], "iodepth": [1, 4, 16, 64], "runtime": "300ms", "time_based": True}
        seeds: Any = list(range(1, 9))
    else:
        job |= {"rw": "randread", "number_ios": 1}
        seeds = list(range(1, 65))
    return {"sweep": {"host": "none", "seed": seeds, "set": {"identity.capacity_bytes": 1 << 30}, "job": job}}


def timed(spec: str | None, work: bool) -> float:
    g = from_dict(grid(work))
    start = time.perf_counter()
    if spec is None:
        sweep(g)
    else:
        with open_executor(spec) as ex:
            sweep(g, executor=ex)
    return time.perf_counter() - start


def main() -> None:
    for spec in (None, "local:1", "local:2", "dask-local:2"):
        work = timed(spec, True)
        light = timed(spec, False)
        print(
            json.dumps(
                {
                    "executor": spec or "in-process",
                    "points": 64,
                    "sweep_wall_s": round(work, 2),
                    "per_point_overhead_ms": round(light / 64 * 1000, 1),
                }
            )
        )


if __name__ == "__main__":
    main()
