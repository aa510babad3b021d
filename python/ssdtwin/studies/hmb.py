"""HMB study (reference R1): random I/O rate against the LBA span it covers, for several
Host Memory Buffer sizes, on a DRAM-less drive whose L2P map cache lives in SRAM and HMB.

The method is R1's: fill the whole drive sequentially (from a saved state after the first
time), then for each HMB setting (a fresh controller) and each range, in increasing order
so the map cache carries over as on the real drive, run
``--bs=4k --iodepth=16 --numjobs=8 --group_reporting --runtime=10 --size=RANGE`` with
``--rw`` random read, write or mix. Before each point with writes the whole drive is
deallocated and left idle 10 s, as R1 did. ``randrw`` with ``rwmixread=50`` is R7's
protocol: the same method with half the I/Os reads.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
import pandas as pd

from .._ssdtwin import __version__
from ..device import Device, profile_toml
from ..errors import StateError
from ..params import FiniteFloat
from .base import Advance, Study, choice_list, int_list, seed_option

RW_CHOICES = ("randread", "randwrite", "randrw")
DEFAULT_RANGES = [1, 2, 4, 8, 16, *range(32, 225, 16), 238]


#: The host of reference R1: fio 3.1 on Linux 4.15.
HOST = "linux-4.15"


def _hmb_label(setting: str) -> int:
    return 0 if setting == "off" else int(setting)


def default_cache_dir() -> Path:
    """Where filled states are kept between runs (``$XDG_CACHE_HOME/ssdtwin``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ssdtwin"


def _filled_state(profile: str, cache_dir: Path, overrides: Mapping[str, object] | None = None) -> Path:
    """A sequentially filled state of ``profile`` after ``overrides``, made once and reused
    (and made again if a cached one no longer loads, e.g. after an upgrade)."""
    text = profile_toml(profile, overrides)
    digest = hashlib.sha256(f"{__version__}\n{text}".encode()).hexdigest()[:12]
    path = cache_dir / f"{Path(profile).stem}-seqfill-{digest}.state"
    if path.exists():
        try:
            Device.load(path)
            return path
        except StateError:
            path.unlink()
    cache_dir.mkdir(parents=True, exist_ok=True)
    dev = Device(profile, overrides=overrides)
    dev.fill("seq", 100.0)
    # Parts of a study on several processes may fill the same state at once: each writes
    # its own temporary file and the last rename wins (the states are identical).
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    dev.save(tmp, overwrite=True)
    tmp.replace(path)
    return path


def hmb_sweep(
    profile: str = "p32a80",
    *,
    hmb: list[str] | None = None,
    ranges_gib: list[int] | None = None,
    rws: list[str] | None = None,
    seconds: float = 10.0,
    rwmixread: int = 50,
    seed: int = 1,
    cache_dir: Path | None = None,
    host: str = HOST,
    overrides: Mapping[str, object] | None = None,
    advance: Advance = None,
) -> pd.DataFrame:
    """IOPS and latency per (HMB setting, rw, range); one row per point, on ``host``
    (R1's Linux 4.15 by default, whose driver grants the HMB).

    >>> t = hmb_sweep(hmb=["off", "240"], ranges_gib=[1, 64], seconds=0.2)
    >>> list(t.columns[:4])
    ['hmb_mib', 'range_gib', 'rw', 'iops']
    >>> bool(t.query("hmb_mib == 240").iops.min() > 3 * t.query("hmb_mib == 0 and range_gib == 64").iops.max())
    True
    """
    state = _filled_state(profile, cache_dir or default_cache_dir(), overrides)
    rows = []
    for setting in hmb or ["off", "128", "240"]:
        for rw in rws or ["randread"]:
            dev = Device.load(state, host=host, hmb=setting)
            grant = dev.hmb()
            capacity_gib = dev.info()["capacity_bytes"] / 2**30
            for r in ranges_gib or DEFAULT_RANGES:
                if r > capacity_gib:
                    raise click.BadParameter(
                        f"range {r} GiB exceeds the drive's {capacity_gib:.1f} GiB", param_hint="--ranges"
                    )
                if rw != "randread":
                    dev.run({"name": "deallocate", "rw": "trim", "bs": "256m", "ioengine": "libaio", "iodepth": 4})
                    dev.idle(10.0)
                before = dev.counters()
                job = {
                    "name": f"r{r}",
                    "rw": rw,
                    "bs": "4k",
                    "direct": 1,
                    "ioengine": "libaio",
                    "iodepth": 16,
                    "numjobs": 8,
                    "group_reporting": True,
                    "runtime": f"{int(seconds * 1000)}ms",
                    "size": f"{r}g",
                    "randseed": seed,
                }
                if rw == "randrw":
                    job["rwmixread"] = rwmixread
                result = dev.run(job)
                after = dev.counters()
                s = result.summary
                iops = {d: float(s[s.direction == d].iops.sum()) for d in ("read", "write")}
                ios = s.ios.sum()
                lookups = after["map_lookups"] - before["map_lookups"]
                hits = (after["map_sram_hits"] - before["map_sram_hits"]) + (
                    after["map_hmb_hits"] - before["map_hmb_hits"]
                )
                rows.append(
                    {
                        "hmb_mib": _hmb_label(setting),
                        "range_gib": r,
                        "rw": rw,
                        "iops": iops["read"] + iops["write"],
                        "read_iops": iops["read"],
                        "write_iops": iops["write"],
                        "rwmixread": {"randread": 100, "randwrite": 0}.get(rw, rwmixread),
                        "mean_lat_us": float((s.mean_lat_us * s.ios).sum() / ios) if ios else 0.0,
                        "p99_lat_us": float(s.p99_lat_us.max()) if len(s) else 0.0,
                        "map_hit_ratio": hits / lookups if lookups else 1.0,
                        "map_loads": after["map_loads"] - before["map_loads"],
                        "hmb_granted_mib": grant["bytes"] / 2**20,
                        "host": host,
                    }
                )
                if advance:
                    advance(f"HMB {setting} {rw} {r} GiB")
    return pd.DataFrame(rows)


def _sweep(
    advance: Advance,
    profile: str,
    hmb: str,
    ranges: str,
    rw: str,
    rwmixread: int,
    seconds: float,
    seed: int,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return hmb_sweep(
        profile,
        host=host,
        overrides=overrides,
        hmb=_check_hmb(hmb),
        ranges_gib=int_list(ranges),
        rws=choice_list(rw, RW_CHOICES),
        rwmixread=rwmixread,
        seconds=seconds,
        seed=seed,
        advance=advance,
    )


def _report(table: pd.DataFrame, **_: Any) -> str:
    pivot = table.pivot_table(index="range_gib", columns=["rw", "hmb_mib"], values="iops").round(0)
    return "IOPS by range (GiB) and HMB (MiB, 0 = off):\n" + str(pivot.to_string())


def _parts(hmb: str, rw: str, **_: Any) -> list[dict[str, Any]]:
    # Each HMB setting and access pattern starts from the filled state with a fresh
    # controller; only the ranges within one of them carry the map cache over.
    return [{"hmb": h, "rw": r} for h in _check_hmb(hmb) for r in choice_list(rw, RW_CHOICES)]


def _check_hmb(text: str) -> list[str]:
    values = [h.strip() for h in text.split(",") if h.strip()]
    for v in values:
        if v != "off" and not v.isdigit():
            raise click.BadParameter(f"'{v}': allowed off or a size in MiB (comma-separated)", param_hint="--hmb")
    return values


def _count(hmb: str, ranges: str, rw: str, **_: Any) -> int:
    return len(_check_hmb(hmb)) * len(int_list(ranges)) * len(choice_list(rw, RW_CHOICES))


STUDY = Study(
    name="hmb",
    profile="p32a80",
    help="Random I/O against LBA range for several HMB sizes (references R1 and R7).",
    options=[
        click.Option(["--hmb"], default="off,128,240", show_default=True, help="HMB caps in MiB, or off."),
        click.Option(
            ["--ranges"], default=",".join(map(str, DEFAULT_RANGES)), show_default=True, help="LBA ranges in GiB."
        ),
        click.Option(["--rw"], default="randread", show_default=True, help="randread, randwrite, randrw."),
        click.Option(
            ["--rwmixread"],
            type=click.IntRange(0, 100),
            default=50,
            show_default=True,
            help="Percent reads of randrw (R7: 50).",
        ),
        click.Option(
            ["--seconds"],
            type=FiniteFloat(min=0.001),
            default=10.0,
            show_default=True,
            help="Runtime per point (simulated).",
        ),
        seed_option(),
    ],
    sweep=_sweep,
    host=HOST,
    count=_count,
    report=_report,
    parts=_parts,
)
