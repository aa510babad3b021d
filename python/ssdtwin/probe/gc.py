"""GC steady state, as SNIA's PTS IOPS test reaches it, and the spare space it implies.

The protocol (serve-probe-facts §2.2): purge; precondition with sequential 128 KiB writes
of twice the capacity (WIPC); then rounds of random 4 KiB writes over the whole drive, each
a share of the capacity written and then a measurement window whose IOPS are the round's
tracking value, until the last five rounds meet the steady-state rules (:mod:`.steady`) or
25 rounds have run. The steady-state IOPS are the window's average.

On a simulated drive the preconditioning and each round's bulk of writes are conditioning
passes (:meth:`~.runner.Runner.condition`): the bulk fill's untimed paths, then the timed
window. A real drive runs them all as fio jobs.

Write amplification sets the steady-state IOPS, and the spare space (raw less namespace)
sets the write amplification. The prober finds the spare by running the profile it has
inferred, shrunk to blocks of a few pages (same superblock count, dies, program unit and timings),
through the same steps for a few spares, and bisecting to the measured IOPS.
"""

from __future__ import annotations

import copy
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .estimate import Estimate
from .facts import Facts
from .profile import Profile, max_namespace
from .runner import Job, Runner
from .settings import Settings
from .steady import MAX_ROUNDS, window

MEASUREMENT = "gc"
UNIT = 4096
#: Raw bytes of the shrunk drive the spare is calibrated on, at most.
CALIBRATION_BYTES = 8 << 30


@dataclass(frozen=True)
class SteadyState:
    """One row per round (``round``, ``iops``, ``mean_lat_us``, ``written_bytes``,
    ``in_window``), whether steady state was reached, and the estimates."""

    table: pd.DataFrame
    steady: bool
    iops: float | None
    estimates: list[Estimate]


def measure_gc(runner: Runner, facts: Facts, settings: Settings, ramp_s: float = 0.0) -> SteadyState:
    """Purge, WIPC, and rounds until steady (see the module doc). Each window first writes
    for ``ramp_s`` unmeasured: what an SLC cache and write buffer absorb fast is not the
    steady state (a real drive written without pause keeps them full; a simulated drive's
    untimed rounds end with the cache folded)."""
    capacity = facts.size_bytes - facts.size_bytes % UNIT
    bs = min(128 << 10, facts.max_io_bytes)
    runner.purge(MEASUREMENT)
    runner.condition(
        Job("WIPC: twice the capacity in order", "write", bs, iodepth=32, io_size=2 * capacity), MEASUREMENT
    )
    rows = []
    written = 2 * capacity
    share = int(settings.gc_round_share * capacity) // UNIT * UNIT
    values: list[float] = []
    for r in range(1, min(settings.gc_max_rounds, MAX_ROUNDS) + 1):
        runner.condition(
            Job(f"round {r}: random writes", "randwrite", UNIT, iodepth=32, io_size=share, seed=r), MEASUREMENT
        )
        job = Job(
            f"round {r}: window",
            "randwrite",
            UNIT,
            iodepth=32,
            runtime_s=settings.gc_window_s,
            ramp_s=ramp_s,
            seed=1000 + r,
        )
        d = runner.run(job, MEASUREMENT).main
        written += share + d.bytes
        values.append(d.iops)
        rows.append({"round": r, "iops": d.iops, "mean_lat_us": d.mean_lat_ns / 1e3, "written_bytes": written})
        w = window(values)
        if w is not None and w.steady:
            break
    w = window(values)
    steady = w is not None and w.steady
    table = pd.DataFrame(rows)
    table["in_window"] = table["round"] >= (w.first_round if steady and w is not None else len(rows) + 1)
    measurement = "SNIA PTS: purge, 2x capacity sequential, rounds of random 4 KiB writes at depth 32"
    if not steady:
        last = values[-1] if values else None
        estimate = Estimate(
            "steady_write_iops",
            last,
            "IOPS",
            None,
            measurement,
            f"no steady state within {len(values)} rounds: the last round's IOPS",
            "not inferred",
        )
        return SteadyState(table, False, None, [estimate])
    assert w is not None
    estimates = [
        Estimate(
            "steady_write_iops",
            w.average,
            "IOPS",
            w.data_excursion / 2,
            measurement,
            f"average of rounds {w.first_round} to {len(values)} (excursion {w.data_excursion / w.average:.1%}, "
            f"slope excursion {w.slope_excursion / w.average:.1%})",
        ),
        Estimate("steady_rounds", len(values), "rounds", None, measurement, "rounds until the window met both rules"),
    ]
    return SteadyState(table, True, w.average, estimates)


def calibrate_spare(profile: Profile, steady_iops: float, settings: Settings) -> Estimate:
    """The spare share (raw less namespace, over the namespace) at which the inferred
    profile, shrunk, reaches ``steady_iops`` in steady state (see the module doc)."""
    low, high = 0.02, 1.5
    measurement = "the inferred profile with fewer pages per block (8 GiB raw at most), through the same rounds"
    if (
        shrunk_steady_iops(profile, high, settings) < steady_iops
        or shrunk_steady_iops(profile, low, settings) > steady_iops
    ):
        why = f"no spare between {low:.0%} and {high:.0%} gives the measured IOPS"
        return Estimate("spare_share", None, "share", None, measurement, why, "not inferred")
    for _ in range(7):
        mid = math.sqrt(low * high)
        if shrunk_steady_iops(profile, mid, settings) < steady_iops:
            low = mid
        else:
            high = mid
    spare = math.sqrt(low * high)
    return Estimate(
        "spare_share", spare, "share", (high - low) / 2, measurement, "bisection to the measured steady-state IOPS"
    )


def shrunk_steady_iops(profile: Profile, spare: float, settings: Settings) -> float:
    """Steady-state random-write IOPS of ``profile`` shrunk to small superblocks (its SLC
    cache scaled with the array), with ``spare`` of its namespace beyond what the capacity
    rule keeps back: bulk sequential fill, three passes of random overwrites, then a window
    after the same ramp as the probe's rounds."""
    from ..device import Device

    small = copy.deepcopy(profile)
    nand = small.sections["nand"]
    # As many superblocks as the drive (greedy GC's choice depends on their number), each
    # with fewer pages: at most CALIBRATION_BYTES in all, in whole multiples of 12 pages
    # (a block holds whole wordlines of TLC and QLC alike).
    pages = int(nand["pages_per_block"].value)  # type: ignore[call-overload]
    per_page = int(nand["blocks_per_plane"].value) * int(nand["channels"].value)  # type: ignore[call-overload]
    per_page *= int(nand["dies_per_channel"].value) * int(nand["planes"].value) * int(nand["page_bytes"].value)  # type: ignore[call-overload]
    small_pages = min(pages, max(12, CALIBRATION_BYTES // per_page // 12 * 12))
    scale = small_pages / pages
    small.set("nand", "pages_per_block", small_pages, "")
    for name in ("static_gib", "dynamic_max_gib"):
        cache = small.sections.get("slc_cache", {})
        if name in cache:
            small.set("slc_cache", name, float(cache[name].value) * scale, "")  # type: ignore[arg-type]
    small.sections.pop("namespace", None)
    small.set("identity", "capacity_bytes", 1 << 30, "")
    usable = max_namespace(small)
    small.set("identity", "capacity_bytes", int(usable / (1 + spare)) // (1 << 20) * (1 << 20), "")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "shrunk.toml"
        path.write_text(small.toml())
        dev = Device(path, host="none")
        dev.fill("seq")
        dev.fill("overwrite", overwrite_passes=3.0, seed=7)
        ramp = settings.gc_window_s
        job = {
            "rw": "randwrite",
            "bs": "4k",
            "iodepth": 32,
            "runtime": settings.gc_window_s,
            "ramp_time": ramp,
            "time_based": True,
        }
        return float(dev.run(job).json["jobs"][0]["write"]["iops"])
