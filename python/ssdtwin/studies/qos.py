"""Latency quality of service as enterprise datasheets state it: 4 KiB random reads and
writes at QD1 and QD32 on a drive preconditioned to steady state, with the 99, 99.9 and
99.99 % latencies.

The protocol is the datasheets' (SNIA PTS preconditioning, then the measurement): the drive
is written in order twice and overwritten at random until GC is at steady state
(``ssdtwin precondition --fill steady``; a drive with an SLC cache, where that takes the
slow path, is written in order once). Reads then run on a copy of it. Writes first run the
same workload for as many bytes as the free pool holds above GC's working point (a drive
that was quiet keeps a reserve there, which absorbs a burst first: that burst is not steady
state), then measure. Percentiles are read, as fio reads them, from fio's histogram of total latency
(``lat_percentiles``), so they carry its bucket resolution (1/64).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
import pandas as pd

from ..device import DEFAULT_HOST, DEFAULT_PROFILE, Device, profile_derived
from ..params import FiniteFloat
from .base import Advance, Study, choice_list, int_list, on_copies, seed_option

RW_CHOICES = ("randread", "randwrite")

#: The percentiles datasheets state, and the median; as fio's ``percentile_list``.
PERCENTILES = (50.0, 99.0, 99.9, 99.99)


def _job(rw: str, depth: int, seed: int, **limit: object) -> dict[str, Any]:
    """A point's fio job, run for as long or as much as ``limit`` says."""
    return {
        "name": f"{rw}-qd{depth}",
        "rw": rw,
        "bs": "4k",
        "iodepth": depth,
        "ioengine": "libaio",
        "direct": 1,
        "norandommap": True,
        "randseed": seed,
        "lat_percentiles": 1,
        "percentile_list": ":".join(f"{p:g}" for p in PERCENTILES),
        **limit,
    }


def percentile_column(percentile: float) -> str:
    """The table's column of a percentile: ``p99_9_us`` for 99.9.

    >>> [percentile_column(p) for p in PERCENTILES]
    ['p50_us', 'p99_us', 'p99_9_us', 'p99_99_us']
    """
    return f"p{percentile:g}_us".replace(".", "_")


def warm_up_writes(dev: Device, depth: int, derived: Mapping[str, float], seed: int) -> float:
    """Writes at random, at ``depth``, as many bytes as the free pool holds above GC's
    working point (the reserve a quiet drive keeps), so that the measurement starts where
    sustained writes keep the drive; returns the simulated seconds it took."""
    above = dev.counters()["free_superblocks"] - int(derived["gc_working_superblocks"]) + 1
    if above <= 0:
        return 0.0
    run = dev.run(
        _job("randwrite", depth, seed + 1, name="warm-up", io_size=str(int(above * derived["superblock_bytes"])))
    )
    return float(run.json["jobs"][0]["write"]["runtime"]) / 1e3


def qos(
    profile: str = DEFAULT_PROFILE,
    *,
    rws: list[str] | None = None,
    depths: list[int] | None = None,
    seconds: float = 4.0,
    seed: int = 1,
    overrides: Mapping[str, object] | None = None,
    host: str = DEFAULT_HOST,
    advance: Advance = None,
) -> pd.DataFrame:
    """One row per (rw, iodepth): ``mean_us`` and ``p50_us`` … ``p99_99_us`` of total
    latency, ``iops``, ``ios`` measured, ``warm_up_s`` (simulated seconds of writes before
    measuring), ``precondition`` (``steady`` or ``seq``).

    >>> small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30}
    >>> t = qos("generic-tlc-1tb", rws=["randread"], depths=[1], seconds=0.05, overrides=small)
    >>> bool(t.p50_us[0] <= t.p99_us[0] <= t.p99_9_us[0] <= t.p99_99_us[0])
    True
    """
    derived = profile_derived(profile, overrides)
    filled = Device(profile, overrides=overrides, host=host)
    how = "seq" if derived["slc_cache_max_bytes"] > 0 else "steady"
    filled.fill(how, 100.0, seed=seed)
    rows = []
    points = [(rw, depth) for rw in rws or list(RW_CHOICES) for depth in depths or [1, 32]]
    for (rw, depth), dev in zip(points, on_copies(filled, len(points)), strict=True):
        warm = 0.0
        if rw == "randwrite":
            warm = warm_up_writes(dev, depth, derived, seed)
        run = dev.run(_job(rw, depth, seed, runtime=f"{round(seconds * 1e6)}us", time_based=True))
        direction = "read" if rw == "randread" else "write"
        d = run.json["jobs"][0][direction]
        pct = d["lat_ns"]["percentile"]
        rows.append(
            {
                "profile": profile,
                "rw": rw,
                "iodepth": depth,
                "iops": d["iops"],
                "ios": d["total_ios"],
                "mean_us": d["lat_ns"]["mean"] / 1e3,
                **{percentile_column(p): pct[f"{p:f}"] / 1e3 for p in PERCENTILES},
                "warm_up_s": warm,
                "precondition": how,
                "host": host,
            }
        )
        if advance:
            advance(f"{rw} QD{depth}")
    return pd.DataFrame(rows)


def _sweep(
    advance: Advance,
    profile: str,
    rw: str,
    depths: str,
    seconds: float,
    seed: int,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return qos(
        profile,
        host=host,
        overrides=overrides,
        rws=choice_list(rw, RW_CHOICES, "--rw"),
        depths=int_list(depths, "--depths"),
        seconds=seconds,
        seed=seed,
        advance=advance,
    )


def _report(table: pd.DataFrame, **_: Any) -> str:
    columns = ["rw", "iodepth", "iops", "mean_us", "p50_us", "p99_us", "p99_9_us", "p99_99_us"]
    return str(table[columns].to_string(index=False, float_format=lambda v: f"{v:,.1f}"))


def _parts(rw: str, **_: Any) -> list[dict[str, Any]]:
    # Each access pattern preconditions its own drive; its depths run on copies of it.
    return [{"rw": r} for r in choice_list(rw, RW_CHOICES, "--rw")]


def _count(profile: str, rw: str, depths: str, **_: Any) -> int:
    return len(choice_list(rw, RW_CHOICES, "--rw")) * len(int_list(depths, "--depths"))


STUDY = Study(
    name="qos",
    profile="micron-9200max",
    help="Datasheet latency QoS: 4 KiB random read and write at QD1 and QD32 at steady state, p99 / p99.9 / p99.99.",
    options=[
        click.Option(["--rw"], default="randread,randwrite", show_default=True, help="Access patterns."),
        click.Option(["--depths"], default="1,32", show_default=True, help="Queue depths."),
        click.Option(
            ["--seconds"],
            type=FiniteFloat(min=0.001),
            default=4.0,
            show_default=True,
            help="Simulated seconds measured per point.",
        ),
        seed_option(),
    ],
    sweep=_sweep,
    count=_count,
    report=_report,
    parts=_parts,
)
