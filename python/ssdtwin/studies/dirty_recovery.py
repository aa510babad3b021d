"""``dirty-recovery``, CDRLabs' protocol: how a drive written "dirty" recovers with idle time
and with a secure erase. The drive is filled (80 % by default) sequentially, then written
with 4 KiB random writes at QD32 for 30 minutes; its sequential read and write speeds are
measured then ("dirty"), after 30 minutes of idle ("after idle"), and after a Format NVM
that erases everything ("after erase").

One row per phase and direction: ``phase``, ``rw``, ``mb_per_s`` (10⁶ B/s, 128 KiB at QD32
for ``measure_s`` seconds from the start of the drive), and the drive's ``free_superblocks``,
``slc_cached_gb`` at the phase's start; plus, the same on every row, the figures a review
quotes: ``dirty_write_mb_per_s``, ``after_idle_write_mb_per_s``,
``after_erase_write_mb_per_s`` and the random writes' ``dirty_iops``.
"""

from __future__ import annotations

from collections.abc import Mapping

import click
import pandas as pd

from ..device import Device
from .base import Advance, Study, seed_option

PHASES = ("dirty", "after idle", "after erase")
#: The sheet metric each phase's write speed is (``[[measured]]`` of ``dirty-recovery``).
METRICS = {
    "dirty": "dirty_write_mb_per_s",
    "after idle": "after_idle_write_mb_per_s",
    "after erase": "after_erase_write_mb_per_s",
}


def _timed(name: str, rw: str, bs: str, seconds: float) -> list[str]:
    """A direct libaio job at QD32 for ``seconds``, as the protocol's phases run."""
    return [
        f"--name={name}",
        f"--rw={rw}",
        f"--bs={bs}",
        "--iodepth=32",
        "--ioengine=libaio",
        "--direct=1",
        f"--runtime={round(seconds * 1000)}ms",
        "--time_based",
    ]


def _measure(dev: Device, rw: str, seconds: float, seed: int) -> float:
    out = dev.run(_timed("measure", rw, "128k", seconds), seed=seed).json["jobs"][0]
    return float(out["read" if rw == "read" else "write"]["bw_bytes"]) / 1e6


def dirty_recovery_sweep(
    profile: str,
    *,
    fill_pct: float = 80.0,
    dirty_minutes: float = 30.0,
    idle_minutes: float = 30.0,
    measure_s: float = 10.0,
    overrides: Mapping[str, object] | None = None,
    host: str = "linux-6.1",
    seed: int = 1,
    advance: Advance = None,
) -> pd.DataFrame:
    """Runs the protocol on ``profile`` (see the module doc)."""
    dev = Device(profile, overrides=overrides, host=host)
    dev.format()
    dev.fill("seq", fill_pct, seed=seed)
    dirty = _timed("dirty", "randwrite", "4k", dirty_minutes * 60)
    dirty_iops = float(dev.run(dirty, seed=seed).json["jobs"][0]["write"]["iops"])
    if advance:
        advance("dirty")
    rows = []
    for phase in PHASES:
        if phase == "after idle":
            dev.idle(idle_minutes * 60)
        elif phase == "after erase":
            dev.format()
        counters = dev.counters()
        state = {"free_superblocks": counters["free_superblocks"], "slc_cached_gb": counters["slc_cached_bytes"] / 1e9}
        # Write last: what it leaves behind would change the next phase's reads.
        for rw in ("read", "write"):
            rows.append({"phase": phase, "rw": rw, "mb_per_s": _measure(dev, rw, measure_s, seed), **state})
        if advance:
            advance(phase)
    table = pd.DataFrame(rows)
    table.insert(0, "profile", profile)
    table.insert(1, "host", host)
    writes = table[table.rw == "write"].set_index("phase").mb_per_s
    for phase, metric in METRICS.items():
        table[metric] = float(writes[phase])
    table["dirty_iops"] = dirty_iops
    return table


def report(table: pd.DataFrame) -> str:
    """One line per drive and phase."""
    lines = []
    for profile, t in table.groupby("profile", sort=False):
        lines.append(f"{profile}: 4 KiB random writes while dirty {t.dirty_iops.iloc[0]:,.0f} IOPS")
        for phase, p in t.groupby("phase", sort=False):
            speeds = dict(zip(p.rw, p.mb_per_s, strict=True))
            lines.append(
                f"  {phase:<12} read {speeds['read']:,.0f} MB/s, write {speeds['write']:,.0f} MB/s "
                f"({p.free_superblocks.iloc[0]:,} superblocks free, {p.slc_cached_gb.iloc[0]:,.1f} GB in SLC)"
            )
    return "\n".join(lines)


def _sweep(
    advance: Advance,
    profile: str,
    host: str,
    overrides: Mapping[str, object],
    seed: int,
    fill_pct: float,
    dirty_minutes: float,
    idle_minutes: float,
    measure_s: float,
) -> pd.DataFrame:
    return dirty_recovery_sweep(
        profile,
        fill_pct=fill_pct,
        dirty_minutes=dirty_minutes,
        idle_minutes=idle_minutes,
        measure_s=measure_s,
        overrides=overrides,
        host=host,
        seed=seed,
        advance=advance,
    )


STUDY = Study(
    name="dirty-recovery",
    profile="crucial-p1",
    help="CDRLabs' test: fill, 30 min of random writes, then sequential speeds dirty, after idle, after erase.",
    options=[
        click.Option(
            ["--fill-pct"], type=click.FloatRange(0, 100), default=80.0, show_default=True, help="Filled first, %."
        ),
        click.Option(
            ["--dirty-minutes"],
            type=click.FloatRange(0, 1440, min_open=True),
            default=30.0,
            show_default=True,
            help="Random 4 KiB writes at QD32, minutes.",
        ),
        click.Option(
            ["--idle-minutes"], type=click.FloatRange(0, 1440), default=30.0, show_default=True, help="Idle, minutes."
        ),
        click.Option(
            ["--measure-s"],
            type=click.FloatRange(0, 600, min_open=True),
            default=10.0,
            show_default=True,
            help="Each speed measurement, seconds.",
        ),
        seed_option(),
    ],
    sweep=_sweep,
    count=lambda **_: 1 + len(PHASES),
    report=lambda table, **_: report(table),
)
