"""Data placement study: the same multi-stream write workload on a drive whose writes name no
placement handle (as on a conventional drive) and with each stream on a reclaim unit handle
of its own (Flexible Data Placement), initially and persistently isolated; the device's and
each stream's write amplification, throughput over time and latency percentiles.

Workloads (``--workload``), each three fio jobs at QD32 writing together:

* ``lifetimes``: data of three lifetimes: ``hot`` 4 KiB random writes over the first 10 %
  of the drive, ``warm`` 4 KiB random over the next 30 %, ``cold`` 128 KiB sequential over
  the last 60 %.
* ``adversarial``: WARP's three streams (its artifact's ``3stream`` scripts): ``seq`` 128
  KiB sequential writes over the first 90 %, ``skewed`` 4 KiB random writes over the same
  90 % with 80 % of them on 20 % of it, ``uniform`` 4 KiB random over the last 10 %. Two
  handles overwrite one region, which placement cannot separate.

Each configuration starts from a drive written in order once; the jobs then write
``--warm-up`` drive writes and the measurement ``--measure`` more, each stream its share of
the bytes, kept in proportion all along by fio's flow control (``flow_id``, ``flow``).
Write amplification is the FDP statistics' media bytes over host bytes in the measurement
(MBMW / HBMW: host data, GC's moves and padding as they are placed), and per
stream, from the FDP counters, ``(host + moved out of its reclaim units) / host``.

The drive is scaled (``--capacity-gib``, default 16): blocks of 96 pages instead of the
profile's, as many per plane as the capacity needs with the profile's share of spare NAND.
Write amplification depends on the spare share, the reclaim unit's size against the
streams' regions and the workload, not on capacity; the scaled drive makes each point take
seconds instead of the hours three drive writes of 960 GB take. Below about 4 GiB the
superblocks held back for the handles' frontiers (free while a configuration leaves its
handles unused) are a large share of the drive, and GC barely runs.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from typing import Any

import click
import pandas as pd

from .. import _ssdtwin
from ..device import Device, profile_derived, profile_toml
from ..params import FiniteFloat
from .base import Advance, Study, choice_list
from .qos import percentile_column

WORKLOADS = ("lifetimes", "adversarial")
CONFIGS = ("conventional", "placed", "placed-persistent")

#: Pages per block of the scaled drive.
SCALED_PAGES_PER_BLOCK = 96

#: Per workload, its streams in handle order: name, share of the bytes written, fio options.
STREAMS: dict[str, list[tuple[str, float, dict[str, str]]]] = {
    "lifetimes": [
        ("hot", 0.6, {"rw": "randwrite", "bs": "4k", "offset": "0%", "size": "10%"}),
        ("warm", 0.3, {"rw": "randwrite", "bs": "4k", "offset": "10%", "size": "30%"}),
        ("cold", 0.1, {"rw": "write", "bs": "128k", "offset": "40%", "size": "60%"}),
    ],
    "adversarial": [
        ("seq", 1 / 3, {"rw": "write", "bs": "128k", "offset": "0%", "size": "90%"}),
        ("uniform", 1 / 3, {"rw": "randwrite", "bs": "4k", "offset": "90%", "size": "10%"}),
        (
            "skewed",
            1 / 3,
            {"rw": "randwrite", "bs": "4k", "offset": "0%", "size": "90%", "random_distribution": "zoned:80/20:20/80"},
        ),
    ],
}

#: Total-latency percentiles reported per stream.
PERCENTILES = (50.0, 99.0, 99.9)


def scaled_overrides(profile: str, capacity_gib: float) -> dict[str, object]:
    """Overrides that scale ``profile`` to about ``capacity_gib`` of namespace: blocks of
    :data:`SCALED_PAGES_PER_BLOCK` pages, as many per plane as keep the profile's spare NAND
    for GC (beyond the superblocks held back for GC's reserve and the open frontiers, which
    do not scale) in the same proportion to the namespace.

    >>> o = scaled_overrides("generic-fdp-960g", 16)
    >>> o["nand.pages_per_block"], o["nand.blocks_per_plane"], o["identity.capacity_bytes"] % 409600
    (96, 217, 0)
    """
    full = profile_derived(profile, None)
    held_back = full["superblocks"] - _ssdtwin.max_namespace_bytes(profile, []) / full["superblock_bytes"]
    gc_spare = (_ssdtwin.max_namespace_bytes(profile, []) - full["namespace_bytes"]) / full["namespace_bytes"]
    pages = tomllib.loads(profile_toml(profile))["nand"]["pages_per_block"]
    sb_bytes = full["superblock_bytes"] * SCALED_PAGES_PER_BLOCK / pages
    blocks = math.ceil(capacity_gib * 2**30 * (1 + gc_spare) / sb_bytes + held_back)
    # A multiple of 100 x 4 KiB, so every percentage of the namespace is LBA-aligned.
    capacity = int((blocks - held_back) * sb_bytes / (1 + gc_spare)) // 409600 * 409600
    return {
        "nand.pages_per_block": SCALED_PAGES_PER_BLOCK,
        "nand.blocks_per_plane": blocks,
        "identity.capacity_bytes": capacity,
    }


def _block_bytes(options: Mapping[str, str]) -> int:
    return 131072 if options["bs"] == "128k" else 4096


def _job_text(workload: str, placed: bool, total_bytes: float) -> str:
    """The workload's jobs writing ``total_bytes`` together, each its share; fio's flow
    control (one flow, weights in proportion to each job's I/Os) keeps the mix all along."""
    streams = STREAMS[workload]
    ios = [share / _block_bytes(o) for _, share, o in streams]
    lines = ["[global]", "iodepth=32", "direct=1", "norandommap=1", "randrepeat=0", "flow_id=1"]
    lines += ["ioengine=io_uring_cmd", "cmd_type=nvme"] + (["fdp=1"] if placed else [])
    lines += ["lat_percentiles=1", "percentile_list=" + ":".join(f"{p:g}" for p in PERCENTILES)]
    for handle, (name, share, options) in enumerate(streams):
        lines.append(f"[{name}]")
        lines += [f"{k}={v}" for k, v in options.items()]
        lines.append(f"flow={max(1, round(ios[handle] / min(ios)))}")
        block = _block_bytes(options)
        lines.append(f"io_size={max(block, int(total_bytes * share) // block * block)}")
        if placed:
            lines.append(f"plids={handle}")
    return "\n".join(lines) + "\n"


def placement(
    profile: str = "generic-fdp-960g",
    *,
    workloads: list[str] | None = None,
    configs: list[str] | None = None,
    capacity_gib: float = 16.0,
    warm_up: float = 2.0,
    measure: float = 1.0,
    overrides: Mapping[str, object] | None = None,
    host: str = "linux-6.1",
    advance: Advance = None,
) -> pd.DataFrame:
    """One row per (workload, config, stream), and one with stream ``device``: ``waf``,
    ``host_gb`` and ``media_gb`` written in the measurement, ``write_mb_per_s``, ``p50_us``,
    ``p99_us``, ``p99_9_us`` (total latency); plus ``window`` rows (``stream`` ``window``,
    ``time_s``, ``write_mb_per_s`` of all streams) for the throughput over time.

    >>> t = placement(workloads=["lifetimes"], configs=["placed"], capacity_gib=1, warm_up=0.2, measure=0.1)
    >>> device = t[t.stream == "device"].iloc[0]
    >>> bool(device.waf >= 1.0), sorted(t[t.kind == "stream"].stream)
    (True, ['cold', 'hot', 'warm'])
    """
    scaled = scaled_overrides(profile, capacity_gib) | dict(overrides or {})
    rows: list[dict[str, Any]] = []
    for workload in workloads or list(WORKLOADS):
        for config in configs or list(CONFIGS):
            o = scaled | ({"fdp.handle_type": "persistently-isolated"} if config == "placed-persistent" else {})
            dev = Device(profile, overrides=o, host=host)
            if dev.fdp() is None:
                raise click.UsageError(f"{profile} has no Flexible Data Placement (its profile has no [fdp] section)")
            capacity = dev.identity()["capacity_bytes"]
            dev.fill("seq", 100.0)
            placed = config != "conventional"
            if warm_up > 0:
                dev.run(_job_text(workload, placed, warm_up * capacity))
            fdp_before = dev.fdp()
            run = dev.run(_job_text(workload, placed, measure * capacity), series_window_ms=1000)
            fdp_after = dev.fdp()
            assert fdp_before is not None and fdp_after is not None
            # The FDP statistics count media writes as they are placed, as they count the
            # host's: data still in the write buffer at the end counts on both sides.
            host_bytes = fdp_after["stats"]["host_bytes_written"] - fdp_before["stats"]["host_bytes_written"]
            media_bytes = fdp_after["stats"]["media_bytes_written"] - fdp_before["stats"]["media_bytes_written"]
            common = {"profile": profile, "workload": workload, "config": config, "host": host}
            rows.append(
                common
                | {
                    "kind": "device",
                    "stream": "device",
                    "waf": media_bytes / host_bytes,
                    "host_gb": host_bytes / 1e9,
                    "media_gb": media_bytes / 1e9,
                    "write_mb_per_s": sum(j["write"]["bw_bytes"] for j in run.json["jobs"]) / 1e6,
                }
            )
            for handle, job in enumerate(run.json["jobs"]):
                w = job["write"]
                pct = w["lat_ns"]["percentile"]
                h0, h1 = fdp_before["per_handle"][handle], fdp_after["per_handle"][handle]
                stream_host = h1["host_units"] - h0["host_units"]
                moved = h1["gc_units"] - h0["gc_units"]
                rows.append(
                    common
                    | {
                        "kind": "stream",
                        "stream": job["jobname"],
                        "waf": (stream_host + moved) / stream_host if placed and stream_host else math.nan,
                        "host_gb": w["io_bytes"] / 1e9,
                        "write_mb_per_s": w["bw_bytes"] / 1e6,
                        **{percentile_column(p): pct[f"{p:f}"] / 1e3 for p in PERCENTILES},
                    }
                )
            series = run.series
            for r in series[~series.partial].itertuples():
                rows.append(
                    common
                    | {"kind": "window", "stream": "window", "time_s": r.time_s, "write_mb_per_s": r.write_mb_per_s}
                )
            if advance:
                advance(f"{workload} {config}")
    return pd.DataFrame(rows)


def _sweep(
    advance: Advance,
    profile: str,
    workload: str,
    configs: str,
    capacity_gib: float,
    warm_up: float,
    measure: float,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return placement(
        profile,
        workloads=choice_list(workload, WORKLOADS, "--workload"),
        configs=choice_list(configs, CONFIGS, "--configs"),
        capacity_gib=capacity_gib,
        warm_up=warm_up,
        measure=measure,
        overrides=overrides,
        host=host,
        advance=advance,
    )


def _parts(workload: str, configs: str, **_: Any) -> list[dict[str, Any]]:
    # Each (workload, configuration) runs on a drive of its own.
    return [
        {"workload": w, "configs": c}
        for w in choice_list(workload, WORKLOADS, "--workload")
        for c in choice_list(configs, CONFIGS, "--configs")
    ]


def _count(workload: str, configs: str, **_: Any) -> int:
    return len(choice_list(workload, WORKLOADS, "--workload")) * len(choice_list(configs, CONFIGS, "--configs"))


def report(table: pd.DataFrame) -> str:
    """Per workload and configuration, the device's write amplification and throughput, then
    each stream's write amplification (placed configurations) and p99 latency.

    >>> t = pd.DataFrame([
    ...     {"workload": "w", "config": "placed", "kind": "device", "stream": "device", "waf": 1.25,
    ...      "write_mb_per_s": 900.0},
    ...     {"workload": "w", "config": "placed", "kind": "stream", "stream": "hot", "waf": 1.5,
    ...      "write_mb_per_s": 600.0, "p99_us": 700.0},
    ... ])
    >>> print(report(t))
    w, placed: device WAF 1.250, 900 MB/s; hot WAF 1.500, p99 700 us
    """
    lines = []
    for (workload, config), rows in table[table.kind != "window"].groupby(["workload", "config"], sort=False):
        device = rows[rows.kind == "device"].iloc[0]
        parts = [f"{workload}, {config}: device WAF {device.waf:.3f}, {device.write_mb_per_s:,.0f} MB/s"]
        for r in rows[rows.kind == "stream"].itertuples():
            waf = "" if pd.isna(r.waf) else f" WAF {r.waf:.3f},"
            parts.append(f"{r.stream}{waf} p99 {r.p99_us:,.0f} us")
        lines.append("; ".join(parts))
    return "\n".join(lines)


STUDY = Study(
    name="placement",
    profile="generic-fdp-960g",
    help="One multi-stream write workload without placement and on FDP handles: WAF, throughput over time, p99.",
    options=[
        click.Option(["--workload"], default=",".join(WORKLOADS), show_default=True, help="Workloads."),
        click.Option(["--configs"], default=",".join(CONFIGS), show_default=True, help="Configurations."),
        click.Option(
            ["--capacity-gib"],
            type=FiniteFloat(min=1.0, max=4096.0),
            default=16.0,
            show_default=True,
            help="Namespace of the scaled drive, GiB.",
        ),
        click.Option(
            ["--warm-up"],
            type=FiniteFloat(min=0.0, max=100.0),
            default=2.0,
            show_default=True,
            help="Drive writes before measuring.",
        ),
        click.Option(
            ["--measure"],
            type=FiniteFloat(min=0.01, max=100.0),
            default=1.0,
            show_default=True,
            help="Drive writes measured.",
        ),
    ],
    sweep=_sweep,
    count=_count,
    report=lambda table, **_: report(table),
    parts=_parts,
)
