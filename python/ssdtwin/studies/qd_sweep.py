"""Queue-depth sweep: IOPS and latency against queue depth for each access pattern (the
"hockey stick" fio-plot draws), on a preconditioned drive."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
import pandas as pd

from ..device import DEFAULT_HOST, DEFAULT_PROFILE, Device
from ..errors import JobError
from ..params import FiniteFloat
from .base import Advance, Study, choice_list, int_list, on_copies, seed_option

RW_CHOICES = ("randread", "randwrite", "randrw", "read", "write")
#: fio's largest iodepth.
MAX_IODEPTH = 65536


def qd_sweep(
    profile: str = DEFAULT_PROFILE,
    *,
    rws: list[str] | None = None,
    depths: list[int] | None = None,
    bs: str = "4k",
    seconds: float = 1.0,
    span_gib: float = 16.0,
    seed: int = 1,
    overrides: Mapping[str, object] | None = None,
    host: str = DEFAULT_HOST,
    advance: Advance = None,
) -> pd.DataFrame:
    """IOPS and latency per (rw, iodepth) on a sequentially filled drive, on ``host``. The
    drive is filled once; each point runs on a copy of it.

    ``overrides`` change profile fields as in :class:`~ssdtwin.Device`; here, a drive of the
    same design with fewer blocks, which fills faster:

    >>> small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30}
    >>> t = qd_sweep(rws=["randread"], depths=[1, 32], seconds=0.05, span_gib=1, overrides=small)
    >>> list(t.columns[:4])
    ['rw', 'iodepth', 'iops', 'bw_mb_per_s']
    >>> bool(t.iops[1] > t.iops[0])
    True
    """
    bad = [d for d in depths or [] if not 1 <= d <= MAX_IODEPTH]
    if bad:
        # Before the drive is built: a bad point must not cost (or fail) its memory first.
        raise JobError(f"iodepth {bad[0]}: allowed 1..{MAX_IODEPTH}")
    rows = []
    filled = Device(profile, overrides=overrides, host=host)
    filled.fill("seq", 100.0)
    points = [
        (rw, depth) for rw in rws or ["randread", "randwrite"] for depth in depths or [1, 2, 4, 8, 16, 32, 64, 128]
    ]
    for (rw, depth), dev in zip(points, on_copies(filled, len(points)), strict=True):
        job = {
            "name": f"{rw}-qd{depth}",
            "rw": rw,
            "bs": bs,
            "iodepth": depth,
            "ioengine": "libaio",
            "size": f"{int(span_gib * 1024)}m",
            "runtime": f"{round(seconds * 1e6)}us",
            "time_based": True,
            "randseed": seed,
        }
        s = dev.run(job).summary
        for r in s.itertuples():
            rows.append(
                {
                    "rw": rw,
                    "iodepth": depth,
                    "iops": r.iops,
                    "bw_mb_per_s": r.bw_mb_per_s,
                    "direction": r.direction,
                    "mean_lat_us": r.mean_lat_us,
                    "p99_lat_us": r.p99_lat_us,
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
    bs: str,
    seconds: float,
    span_gib: float,
    seed: int,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return qd_sweep(
        profile,
        host=host,
        overrides=overrides,
        rws=choice_list(rw, RW_CHOICES, "--rw"),
        depths=int_list(depths, "--depths", 1, MAX_IODEPTH),
        bs=bs,
        seconds=seconds,
        span_gib=span_gib,
        seed=seed,
        advance=advance,
    )


def _report(table: pd.DataFrame, **_: Any) -> str:
    text = str(table.to_string(index=False, float_format=lambda v: f"{v:,.1f}"))
    hosts = set(table.host) if "host" in table else set()
    deep = table[table.rw.isin(["randread", "randwrite"]) & (table.iodepth >= 8)]
    if len(deep) and hosts and not any(str(h).startswith("windows") for h in hosts):
        text += (
            "\n\n`ssdtwin study cdm` scores the same drive lower at QD32: it runs on windows-10, where one "
            "thread's CPU time per I/O caps CrystalDiskMark's one-thread random tests; the host differs, not the drive."
        )
    return text


def _parts(rw: str, **_: Any) -> list[dict[str, Any]]:
    # Each access pattern fills its own drive once; its depths run on copies of it.
    return [{"rw": r} for r in choice_list(rw, RW_CHOICES, "--rw")]


def _count(profile: str, rw: str, depths: str, **_: Any) -> int:
    return len(choice_list(rw, RW_CHOICES, "--rw")) * len(int_list(depths, "--depths", 1, MAX_IODEPTH))


STUDY = Study(
    name="qd-sweep",
    profile=DEFAULT_PROFILE,
    help="IOPS and latency against queue depth on a sequentially filled drive.",
    options=[
        click.Option(["--rw"], default="randread,randwrite", show_default=True, help="Access patterns."),
        click.Option(["--depths"], default="1,2,4,8,16,32,64,128", show_default=True, help="Queue depths."),
        click.Option(["--bs"], default="4k", show_default=True, help="Block size (fio syntax)."),
        click.Option(
            ["--seconds"],
            type=FiniteFloat(min=0.001),
            default=1.0,
            show_default=True,
            help="Simulated seconds per point.",
        ),
        click.Option(
            ["--span-gib"],
            type=FiniteFloat(min=0.001),
            default=16.0,
            show_default=True,
            help="LBA span in GiB.",
        ),
        seed_option(),
    ],
    sweep=_sweep,
    count=_count,
    report=_report,
    parts=_parts,
)
