"""QLC tR study (reference R2): QD1 read latency of the first GiB as more and more data is
appended behind it, and the NAND read time inferred from it.

The method is R2's: write 1 GiB at a time, appending (0-1 GiB, then 1-2 GiB, ...); after
each append, run ``--rw=randread --bs=4k --iodepth=1 --size=1g`` over the first GiB.
While the first GiB sits in the SLC cache the reads see SLC tR; once folding has moved it
to native blocks, native tR. R2 then inferred tR by subtracting a fixed allowance for the
host transfer (4 KiB at ~2400 MB/s, 1.7 µs) and the channel transfer with ECC (8.2 µs)
from the mean latency; the study applies that method to the simulated latencies and
compares the result with the tR the profile actually has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
import pandas as pd

from ..device import Device
from .base import Advance, Study, seed_option

GIB = 1 << 30
#: R2's published allowance for everything besides tR, µs: host transfer + channel and ECC.
R2_HOST_TRANSFER_US = 1.7
R2_CHANNEL_ECC_US = 8.2
#: The host of reference R2: fio 3.1 on Linux 4.15.
HOST = "linux-4.15"


def qlc_tr_sweep(
    profile: str = "crucial-p1",
    *,
    max_written_gib: int = 40,
    reads: int | None = None,
    seed: int = 1,
    overrides: Mapping[str, object] | None = None,
    host: str = HOST,
    advance: Advance = None,
) -> pd.DataFrame:
    """One row per append, on ``host`` (R2's Linux 4.15 by default): ``written_gib``, the
    reads' ``mean_lat_us`` and ``p99_lat_us``, and ``slc_resident_fraction`` of the
    first GiB when the reads start. ``reads`` caps the reads per point (default: R2's, a
    whole GiB of 4 KiB reads); ``overrides`` change profile fields as in
    :class:`~ssdtwin.Device`.

    >>> t = qlc_tr_sweep(max_written_gib=2, reads=2000)
    >>> list(t.columns[:4])
    ['written_gib', 'mean_lat_us', 'p99_lat_us', 'slc_resident_fraction']
    >>> t.slc_resident_fraction.tolist()
    [1.0, 1.0]
    """
    dev = Device(profile, overrides=overrides, host=host)
    capacity_gib = dev.info()["capacity_bytes"] // GIB
    if not 1 <= max_written_gib <= capacity_gib:
        raise click.BadParameter(
            f"{max_written_gib}: allowed 1 to the drive's {capacity_gib} GiB", param_hint="--max-written-gib"
        )
    rows = []
    for gib in range(1, max_written_gib + 1):
        append = {
            "name": f"append-{gib}",
            "rw": "write",
            "bs": "128k",
            "iodepth": 32,
            "ioengine": "libaio",
            "direct": 1,
            "offset": f"{gib - 1}g",
            "size": "1g",
        }
        dev.run(append)
        before = dev.counters()
        resident = dev.slc_resident_fraction(0, GIB)
        read: dict[str, Any] = {
            "name": f"read-{gib}",
            "rw": "randread",
            "bs": "4k",
            "iodepth": 1,
            "numjobs": 1,
            "ioengine": "libaio",
            "direct": 1,
            "size": "1g",
            "randseed": seed,
        }
        if reads is not None:
            read["number_ios"] = reads
        s = dev.run(read).summary.iloc[0]
        after = dev.counters()
        rows.append(
            {
                "written_gib": gib,
                "mean_lat_us": float(s.mean_lat_us),
                "p99_lat_us": float(s.p99_lat_us),
                "slc_resident_fraction": resident,
                "folded_gib": after["folded_bytes"] / GIB,
                "folded_during_reads_gib": (after["folded_bytes"] - before["folded_bytes"]) / GIB,
                "profile": str(profile),
                "host": host,
            }
        )
        if advance:
            advance(f"{gib} GiB written")
    return pd.DataFrame(rows)


def profile_tr_us(profile: str, overrides: Mapping[str, object] | None = None) -> dict[str, float]:
    """tR of SLC mode and of the native cell mode, µs, as the drive built from ``profile``
    (after ``overrides``) times its reads.

    >>> profile_tr_us("crucial-p1")
    {'slc': 46.0, 'qlc': 105.0}
    """
    return {mode: ns / 1000 for mode, ns in Device(profile, overrides=overrides).info()["t_read_ns"].items()}


def decomposition(table: pd.DataFrame, true_tr_us: dict[str, float]) -> pd.DataFrame:
    """R2's inference applied to the points wholly in SLC and wholly in native blocks:
    one row per mode with the mean latency, the inferred tR, the true tR and the error.

    >>> t = pd.DataFrame({"mean_lat_us": [60.0, 120.0], "slc_resident_fraction": [1.0, 0.0]})
    >>> decomposition(t, {"slc": 46.0, "qlc": 105.0}).inferred_tr_us.round(1).tolist()
    [50.1, 110.1]
    """
    native = next(m for m in true_tr_us if m != "slc")
    rows = []
    for mode, where in (("slc", table.slc_resident_fraction >= 0.99), (native, table.slc_resident_fraction <= 0.01)):
        points = table[where]
        if points.empty:
            continue
        mean = float(points.mean_lat_us.mean())
        inferred = mean - R2_HOST_TRANSFER_US - R2_CHANNEL_ECC_US
        true = true_tr_us[mode]
        rows.append(
            {
                "mode": mode,
                "points": len(points),
                "mean_lat_us": mean,
                "inferred_tr_us": inferred,
                "true_tr_us": true,
                "error": (inferred - true) / true,
                "other_us": mean - true,
            }
        )
    return pd.DataFrame(rows)


def report(table: pd.DataFrame, true_tr_us: dict[str, float]) -> str:
    """Where the step is, and how far R2's inference of tR lands from the true tR."""
    lines = []
    gone = table[table.slc_resident_fraction < 0.5]
    if gone.empty:
        lines.append(f"The first GiB stayed in SLC through {table.written_gib.max()} GiB written.")
    else:
        step = int(gone.written_gib.iloc[0])
        lines.append(f"The first GiB left SLC between {step - 1} and {step} GiB written.")
    d = decomposition(table, true_tr_us)
    lines.append(
        f"R2's decomposition: tR = mean latency - {R2_HOST_TRANSFER_US} us host transfer"
        f" - {R2_CHANNEL_ECC_US} us channel and ECC."
    )
    lines.append(f"{'mode':6s} {'points':>6s} {'mean':>9s} {'inferred tR':>12s} {'true tR':>9s} {'error':>7s}")
    for r in d.itertuples():
        lines.append(
            f"{r.mode:6s} {r.points:6d} {r.mean_lat_us:6.1f} us {r.inferred_tr_us:9.1f} us"
            f" {r.true_tr_us:6.1f} us {r.error:+7.1%}"
        )
    for r in d.itertuples():
        lines.append(
            f"In {r.mode} the path besides tR takes {r.other_us:.1f} us, not "
            f"{R2_HOST_TRANSFER_US + R2_CHANNEL_ECC_US:.1f}: the inference is off by {r.error:+.0%}."
        )
    return "\n".join(lines)


def _sweep(
    advance: Advance,
    profile: str,
    max_written_gib: int,
    reads: int | None,
    seed: int,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return qlc_tr_sweep(
        profile,
        max_written_gib=max_written_gib,
        reads=reads,
        seed=seed,
        host=host,
        overrides=overrides,
        advance=advance,
    )


def _report(table: pd.DataFrame, profile: str, overrides: Mapping[str, object], **_: Any) -> str:
    return report(table, profile_tr_us(profile, overrides))


def _count(max_written_gib: int, **_: Any) -> int:
    return max_written_gib


STUDY = Study(
    name="qlc-tr",
    profile="crucial-p1",
    help="QD1 read latency of the first GiB as data is appended; tR inferred as R2 did (reference R2).",
    options=[
        click.Option(
            ["--max-written-gib"], type=click.IntRange(min=1), default=40, show_default=True, help="GiB to append."
        ),
        click.Option(
            ["--reads"],
            type=click.IntRange(min=1),
            default=None,
            help="4 KiB reads per point [default: a whole GiB, as R2].",
        ),
        seed_option(),
    ],
    sweep=_sweep,
    count=_count,
    report=_report,
    host=HOST,
)
