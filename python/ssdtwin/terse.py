"""fio's terse output (``--minimal``, ``--output-format=terse``), versions 2 to 5.

fio 3.33's ``show_thread_status_terse_all`` and ``show_ddir_status_terse`` (stat.c) print
one ``;``-separated line per reported job from the same statistics its JSON holds, so the
line is built here from that JSON (:attr:`ssdtwin.RunResult.json`). The rules kept from
fio: bandwidth and IOPS are recomputed with its integer arithmetic (``io_bytes * 1000 /
runtime_ms / 1024``); latencies are µs, minimum and maximum truncated, mean and deviation
``%f``; percentiles fill 20 slots, unused ones ``0%=0``; the nanosecond latency buckets are
added to the first microsecond bucket ("to keep the terse format unaltered"); version 3
reports reads and writes, versions 2, 4 and 5 trims too; version 5 adds the bandwidth
sample count and the IOPS statistics; from version 3 on, the disk's statistics follow,
and a job's ``description`` ends the line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Versions fio 3.33 prints (``--terse-version``).
VERSIONS = (2, 3, 4, 5)
#: fio's default ``percentile_list``.
DEFAULT_PERCENTILES = (
    1.0,
    5.0,
    10.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    70.0,
    80.0,
    90.0,
    95.0,
    99.0,
    99.5,
    99.9,
    99.95,
    99.99,
)
#: Percentile slots in every direction (``FIO_IO_U_LIST_MAX_LEN``).
PERCENTILE_SLOTS = 20
_LAT_US = ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000")
_LAT_MS = ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000")
_DEPTHS = ("1", "2", "4", "8", "16", "32", ">=64")


def terse_lines(report: Mapping[str, Any], version: int = 3) -> str:
    """One terse line per job of a fio JSON report, each ending in a newline.

    >>> from ssdtwin import Device
    >>> dev = Device("generic-tlc-1tb")
    >>> r = dev.run({"name": "t", "rw": "randread", "bs": "4k", "size": "64m", "runtime": "20ms"})
    >>> fields = terse_lines(r.json).rstrip("\\n").split(";")
    >>> fields[:3], len(fields), fields[-9]
    (['3', 'fio-3.33', 't'], 130, 'nvme0n1')
    """
    if version not in VERSIONS:
        raise ValueError(f"terse version {version}: allowed {', '.join(map(str, VERSIONS))}")
    disks = report.get("disk_util", [])
    return "".join(_job_line(job, report["fio version"], disks, version) + "\n" for job in report["jobs"])


def _job_line(job: Mapping[str, Any], fio_version: str, disks: list[Mapping[str, Any]], version: int) -> str:
    options = job.get("job options", {})
    if version == 2:
        out = [f"2;{job['jobname']};{job['groupid']};{job['error']}"]
    else:
        out = [f"{version};{fio_version};{job['jobname']};{job['groupid']};{job['error']}"]
    # unified_rw_reporting: "mixed" alone stands for every direction; with "both" it follows.
    if "mixed" in job and "read" not in job:
        directions: tuple[str, ...] = ("mixed",)
    else:
        directions = ("read", "write", "trim") if version in (2, 4, 5) else ("read", "write")
        directions += ("mixed",) if "mixed" in job else ()
    percentiles = _percentile_list(job, options)
    for d in directions:
        out.append(_direction(job[d], percentiles, version))
    out.append(f";{job['usr_cpu']:f}%;{job['sys_cpu']:f}%;{job['ctx']};{job['majf']};{job['minf']}")
    out.append("".join(f";{job['iodepth_level'][k]:3.1f}%" for k in _DEPTHS))
    below_us = sum(job["latency_ns"].values())
    lat_u = [job["latency_us"][k] + (below_us if i == 0 else 0.0) for i, k in enumerate(_LAT_US)]
    out.append("".join(f";{v:3.2f}%" for v in lat_u))
    out.append("".join(f";{job['latency_ms'][k]:3.2f}%" for k in _LAT_MS))
    if version >= 3:
        for disk in disks:
            out.append(
                f";{disk['name']};{disk['read_ios']};{disk['write_ios']};{disk['read_merges']};"
                f"{disk['write_merges']};{disk['read_ticks']};{disk['write_ticks']};{disk['in_queue']};"
                f"{disk['util']:3.2f}%"
            )
    if description := options.get("description"):
        out.append(("\n" if version == 2 else "") + f";{description}")
    return "".join(out)


def _percentile_list(job: Mapping[str, Any], options: Mapping[str, Any]) -> list[float]:
    """The percentiles the job reports: from its JSON, else its option, else fio's default."""
    for d in ("read", "write", "trim", "mixed"):
        for kind in ("clat_ns", "lat_ns"):
            if d in job and "percentile" in job[d][kind]:
                return [float(p) for p in job[d][kind]["percentile"]]
    if "percentile_list" in options:
        return [float(p) for p in str(options["percentile_list"]).split(":")]
    return list(DEFAULT_PERCENTILES)


def _stat(s: Mapping[str, Any]) -> str:
    """``calc_lat`` of one latency statistic, as ``;min;max;mean;dev`` in µs."""
    if not s.get("N", 0):
        return ";0;0;0.000000;0.000000"
    return f";{int(s['min']) // 1000};{int(s['max']) // 1000};{s['mean'] / 1000:f};{s['stddev'] / 1000:f}"


def _direction(d: Mapping[str, Any], percentiles: list[float], version: int) -> str:
    runtime_ms = d["runtime"]
    bw = (1000 * d["io_bytes"] // runtime_ms) // 1024 if runtime_ms else 0
    iops = 1000 * d["total_ios"] // runtime_ms if runtime_ms else 0
    out = [f";{d['io_bytes'] >> 10};{bw};{iops};{runtime_ms}", _stat(d["slat_ns"]), _stat(d["clat_ns"])]
    values = d["lat_ns"].get("percentile") or d["clat_ns"].get("percentile") or {}
    slots = [f";{p:f}%={int(values.get(f'{p:f}', 0)) // 1000}" for p in percentiles[:PERCENTILE_SLOTS]]
    slots += [";0%=0"] * (PERCENTILE_SLOTS - len(slots))
    out.append("".join(slots))
    out.append(_stat(d["lat_ns"]))
    if d["bw_samples"]:
        out.append(f";{d['bw_min']};{d['bw_max']};{d['bw_agg']:f}%;{d['bw_mean']:f};{d['bw_dev']:f}")
    else:
        out.append(";0;0;0.000000%;0.000000;0.000000")
    if version == 5:
        out.append(f";{d['bw_samples']}")
        if d["iops_samples"]:
            out.append(f";{d['iops_min']};{d['iops_max']};{d['iops_mean']:f};{d['iops_stddev']:f};{d['iops_samples']}")
        else:
            out.append(";0;0;0.000000;0.000000;0")
    return "".join(out)
