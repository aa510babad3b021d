"""SLC write-cliff study (reference R3, writes): sequential writes on a freshly formatted
drive, second by second, until the SLC cache runs out and writes fall to native speed.

The method is R3's: ``nvmecontrol format`` (every LBA unmapped), then ``nvmecontrol
perftest -o write`` with one I/O outstanding per thread, the rate taken per second.
Threads move on sequentially (perftest's ``wait`` mode), so every write is new data.
The table counts rates as the tool does, in MiB/s (2^20 B/s, which nvmecontrol prints as
"MB/s"), and data written in GB (10^9 B); the report and the figure give rates in MB/s
(10^6 B/s), the unit of the data written beside them.
"""

from __future__ import annotations

from collections.abc import Mapping

import click
import pandas as pd

from ..device import Device
from ..perftest import perftest
from .base import Advance, Study


def parse_size(text: str) -> int:
    """``128k``, ``1m``, ``4096`` as bytes (binary suffixes, as fio's ``bs``).

    >>> parse_size("128k"), parse_size("1M"), parse_size("4096")
    (131072, 1048576, 4096)
    """
    units = {"k": 1 << 10, "m": 1 << 20}
    t = text.strip().lower().removesuffix("b").removesuffix("i")
    scale = units.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in units else t
    if not digits.isdigit() or int(digits) == 0:
        raise click.BadParameter(f"'{text}': expected a size such as 4096, 4k or 1m", param_hint="--bs")
    return int(digits) * scale


#: The host of reference R3: nvmecontrol perftest on FreeBSD 11.1.
HOST = "freebsd-11"


def slc_write_sweep(
    profile: str = "wd-black-256",
    *,
    bs: int = 128 << 10,
    threads: int = 1,
    seconds: int = 15,
    overrides: Mapping[str, object] | None = None,
    host: str = HOST,
    advance: Advance = None,
) -> pd.DataFrame:
    """On ``host`` (R3's FreeBSD 11.1 by default), one row per second: ``t_s``, ``write_mib_per_s``,
    ``written_gb`` (so far), and the device's ``slc_cached_gb`` and ``folded_gb`` at the
    end of the second. ``overrides`` change profile fields as in
    :class:`~ssdtwin.Device`.

    >>> t = slc_write_sweep(seconds=2)
    >>> t.t_s.tolist(), bool(t.write_mib_per_s.min() > 600)
    ([1, 2], True)
    """
    dev = Device(profile, overrides=overrides, host=host)
    dev.format()
    result = perftest(dev, threads=threads, operation="write", size=bs, seconds=seconds, mode="wait")
    table = result.per_second.rename(columns={"mib_per_s": "write_mib_per_s", "total_gb": "written_gb"}).assign(
        profile=profile, host=host, bs=bs, threads=threads
    )
    if advance:
        advance(f"{seconds} s written")
    return table


def knee(table: pd.DataFrame) -> dict[str, float] | None:
    """Where the write rate falls from its first level to its last: the rates before
    (median of the first seconds) and after (median of the last), and the data written
    when it fell, interpolated inside the second that straddles it. None without a fall
    of at least a quarter.

    >>> t = pd.DataFrame({"write_mib_per_s": [700.0, 700, 400, 210, 210, 210]})
    >>> t["written_gb"] = (t.write_mib_per_s * 2**20 / 1e9).cumsum()
    >>> k = knee(t)
    >>> round(k["before_mib_per_s"]), round(k["after_mib_per_s"]), round(k["t_s"], 2), round(k["written_gb"], 3)
    (700, 210, 2.39, 1.753)
    """
    rates = table.write_mib_per_s.to_numpy()
    n = len(rates)
    if n < 3:
        return None
    head = max(1, n // 5)
    before, after = float(pd.Series(rates[:head]).median()), float(pd.Series(rates[-head:]).median())
    if after > 0.75 * before:
        return None
    middle = (before + after) / 2
    k = next(i for i, r in enumerate(rates) if r < middle)
    # Second k ran at `before` for a share f of the second and at `after` for the rest.
    f = min(1.0, max(0.0, float(rates[k] - after) / (before - after)))
    written_before = float(table.written_gb.iloc[k - 1]) if k else 0.0
    return {
        "before_mib_per_s": before,
        "after_mib_per_s": after,
        "t_s": k + f,
        "written_gb": written_before + f * before * 2**20 / 1e9,
    }


def report(table: pd.DataFrame) -> str:
    """The cliff in decimal units: data in GB (10⁹ B), rates in MB/s (10⁶ B/s), with the
    rates as nvmecontrol prints them (its "MB" is 2²⁰ B) for comparison with its output.

    >>> t = pd.DataFrame({"write_mib_per_s": [700.0, 700, 400, 210, 210, 210]})
    >>> t["written_gb"] = (t.write_mib_per_s * 2**20 / 1e9).cumsum()
    >>> text = report(t)
    >>> text[: text.index(" (")]
    'SLC cache: 1.75 GB written before the cliff at t = 2.4 s; 734 MB/s before, 220 MB/s after'
    >>> text[text.index(" (") :]
    ' (MB = 10^6 B, GB = 10^9 B; nvmecontrol, whose "MB" is 2^20 B, prints 700 and 210 "MB/s").'
    """
    from ..plots.base import MB_PER_MIB  # here: the plots package imports the studies

    k = knee(table)
    total = float(table.written_gb.iloc[-1])
    if k is None:
        rate = float(table.write_mib_per_s.median())
        return (
            f"No cliff within {len(table)} s ({total:.2f} GB written, median {rate * MB_PER_MIB:.0f} MB/s; "
            "MB = 10^6 B, GB = 10^9 B)."
        )
    return (
        f"SLC cache: {k['written_gb']:.2f} GB written before the cliff at t = {k['t_s']:.1f} s; "
        f"{k['before_mib_per_s'] * MB_PER_MIB:.0f} MB/s before, {k['after_mib_per_s'] * MB_PER_MIB:.0f} MB/s after "
        '(MB = 10^6 B, GB = 10^9 B; nvmecontrol, whose "MB" is 2^20 B, prints '
        f'{k["before_mib_per_s"]:.0f} and {k["after_mib_per_s"]:.0f} "MB/s").'
    )


def _sweep(
    advance: Advance,
    profile: str,
    bs: str,
    threads: int,
    seconds: int,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return slc_write_sweep(
        profile, bs=parse_size(bs), threads=threads, seconds=seconds, host=host, overrides=overrides, advance=advance
    )


STUDY = Study(
    name="slc-write",
    profile="wd-black-256",
    help="Sequential writes after format, per second: the SLC cache's size and the rates around the cliff (R3).",
    options=[
        click.Option(["--bs"], default="128k", show_default=True, help="Bytes per write."),
        click.Option(
            ["--threads"], type=click.IntRange(1, 128), default=1, show_default=True, help="Threads, QD1 each."
        ),
        click.Option(["--seconds"], type=click.IntRange(min=1), default=15, show_default=True, help="Test time."),
    ],
    sweep=_sweep,
    count=lambda **_: 1,
    report=lambda table, **_: report(table),
    host=HOST,
)
