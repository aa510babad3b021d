"""Read-after-write study (reference R3, reads): how sequential reads fare right after a
burst of writes, while the drive folds its SLC cache into native blocks.

The method is R3's: for each write time W, ``nvmecontrol format``, ``perftest -o write``
for W seconds (W = 0 writes nothing), then ``perftest -o read`` for the read time, the
rate taken per second. One thread, one 128 KiB I/O outstanding, moving on sequentially,
so the reads cover what was just written. Rates are in the tool's "MB/s" (2^20 bytes/s).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
import pandas as pd

from ..device import Device
from ..perftest import perftest
from .base import Advance, Study, int_list
from .slc_write import HOST, parse_size


def read_after_write_sweep(
    profile: str = "wd-black-256",
    *,
    write_seconds: list[int] | None = None,
    read_seconds: int = 15,
    bs: int = 128 << 10,
    overrides: Mapping[str, object] | None = None,
    host: str = HOST,
    advance: Advance = None,
) -> pd.DataFrame:
    """On ``host`` (R3's FreeBSD 11.1 by default), one row per (write time, read second):
    ``write_s``, ``t_s``, ``read_mib_per_s``, with ``written_gb`` before the reads and the
    device's ``slc_cached_gb`` and ``folded_gb`` at the end of each read second.
    ``overrides`` change profile fields as in :class:`~ssdtwin.Device`.

    >>> t = read_after_write_sweep(write_seconds=[0], read_seconds=2)
    >>> t.t_s.tolist(), bool(t.read_mib_per_s.min() > 1000)
    ([1, 2], True)
    """
    parts = []
    for w in write_seconds if write_seconds is not None else [0, 1, 3, 5, 7, 9]:
        if w < 0:
            raise click.BadParameter(f"{w}: write times are 0 or more seconds", param_hint="--write-seconds")
        dev = Device(profile, overrides=overrides, host=host)
        dev.format()
        written = 0.0
        if w:
            wrote = perftest(dev, threads=1, operation="write", size=bs, seconds=w, mode="wait")
            written = float(wrote.per_second.total_gb.iloc[-1])
        read = perftest(dev, threads=1, operation="read", size=bs, seconds=read_seconds, mode="wait").per_second
        part = read.rename(columns={"mib_per_s": "read_mib_per_s"}).drop(columns="total_gb")
        part.insert(0, "write_s", w)
        part.insert(3, "written_gb", written)
        parts.append(part)
        if advance:
            advance(f"W = {w} s")
    return pd.concat(parts, ignore_index=True).assign(profile=profile, host=host, bs=bs)


def report(table: pd.DataFrame) -> str:
    """Per write time: the first second's rate, the lowest, and when reads recovered
    (within 5 % of the formatted drive's steady rate, or of the best rate seen)."""
    fresh = table[table.write_s == 0]
    steady = float(fresh.read_mib_per_s.median()) if len(fresh) else float(table.read_mib_per_s.max())
    lines = [f"{'W (s)':>5s} {'written GB':>10s} {'first s':>8s} {'lowest':>8s}  recovered to {steady:.0f} MB/s"]
    for w, g in table.groupby("write_s"):
        back = g[g.read_mib_per_s >= 0.95 * steady]
        when = f"by t = {int(back.t_s.iloc[0])} s" if len(back) else "not within the test"
        lines.append(
            f"{w:5d} {g.written_gb.iloc[0]:10.2f} {g.read_mib_per_s.iloc[0]:8.0f} {g.read_mib_per_s.min():8.0f}  {when}"
        )
    return "Reads after W seconds of writing (MB/s = 2^20 bytes/s):\n" + "\n".join(lines)


def _sweep(
    advance: Advance,
    profile: str,
    write_seconds: str,
    read_seconds: int,
    bs: str,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return read_after_write_sweep(
        profile,
        host=host,
        overrides=overrides,
        write_seconds=int_list(write_seconds, "--write-seconds"),
        read_seconds=read_seconds,
        bs=parse_size(bs),
        advance=advance,
    )


def _parts(write_seconds: str, **_: Any) -> list[dict[str, Any]]:
    # Each write time W starts from a freshly formatted drive of its own.
    return [{"write_seconds": str(w)} for w in int_list(write_seconds, "--write-seconds")]


def _count(write_seconds: str, **_: Any) -> int:
    return len(int_list(write_seconds, "--write-seconds"))


STUDY = Study(
    name="read-after-write",
    profile="wd-black-256",
    help="Format, write W seconds, then read: reads slowed by folding (reference R3).",
    options=[
        click.Option(
            ["--write-seconds"], default="0,1,3,5,7,9", show_default=True, help="Write times W, comma-separated."
        ),
        click.Option(["--read-seconds"], type=click.IntRange(min=1), default=15, show_default=True, help="Read time."),
        click.Option(["--bs"], default="128k", show_default=True, help="Bytes per I/O."),
    ],
    sweep=_sweep,
    count=_count,
    report=lambda table, **_: report(table),
    parts=_parts,
    host=HOST,
)
