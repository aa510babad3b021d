"""Helpers for testing code that uses ssdtwin: tiny devices and hypothesis strategies.

:func:`small_overrides` turns the shipped 1 TB profile into a drive of a few dozen MiB whose
GC runs after a few thousand writes (the same trick as the Rust tests'
``tests/common/mod.rs``), so runs take milliseconds. :func:`small_device_overrides` draws
such geometries, and :func:`fio_jobs` draws fio jobs (flat option dicts, as
:meth:`ssdtwin.Device.run` takes them) built only from options ssdtwin supports, sized to
fit a small device and short enough to simulate in milliseconds.

This module needs hypothesis (installed with ``ssdtwin[test]``).

>>> from ssdtwin import Device
>>> dev = Device(overrides=small_overrides())
>>> dev.info()["capacity_bytes"] // 2**20
72
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from . import _ssdtwin
from .device import DEFAULT_PROFILE

__all__ = [
    "FLAG_OPTIONS",
    "SUPPORTED_OPTIONS",
    "fio_jobs",
    "ideal_host_overrides",
    "ideal_overrides",
    "small_device_overrides",
    "small_overrides",
]

#: Every fio option (and alias) ssdtwin accepts, from the parser's own table; every other
#: name is refused.
SUPPORTED_OPTIONS: frozenset[str] = frozenset(name for name, _ in _ssdtwin.fio_option_names())

#: Options that may be given bare (``--time_based``), as fio's flags.
FLAG_OPTIONS: frozenset[str] = frozenset(name for name, flag in _ssdtwin.fio_option_names() if flag)

_BG_THRESHOLD_SB = 4
_FG_THRESHOLD_SB = 2
_UNIT_BYTES = 4096


def small_overrides(
    *,
    channels: int = 2,
    dies_per_channel: int = 2,
    planes: int = 2,
    blocks_per_plane: int = 64,
    pages_per_block: int = 12,
    page_bytes: int = 16384,
    op_pct: float = 25.0,
) -> dict[str, object]:
    """Overrides that shrink the shipped generic TLC profile to a tiny, fast drive.

    The defaults give 2 channels x 2 dies x 2 planes, 12 pages of 16 KiB per block
    (superblocks of 1.5 MiB), 64 superblocks (96 MiB raw) and a namespace ``op_pct`` percent
    smaller (capped so GC keeps its reserve), a 1 MiB write buffer, GC thresholds of 4 and 2
    free superblocks and no transfer-size limit, with no latency variability
    (:func:`ideal_overrides`). ``pages_per_block`` must be a multiple of 3
    (TLC) and ``blocks_per_plane`` at least 8.

    >>> small_overrides(blocks_per_plane=32)["identity.capacity_bytes"]
    36175872
    """
    superblock_bytes = channels * dies_per_channel * planes * pages_per_block * page_bytes
    raw_bytes = blocks_per_plane * superblock_bytes
    geometry: dict[str, object] = {
        "nand.channels": channels,
        "nand.dies_per_channel": dies_per_channel,
        "nand.planes": planes,
        "nand.blocks_per_plane": blocks_per_plane,
        "nand.pages_per_block": pages_per_block,
        "nand.page_bytes": page_bytes,
        "controller.write_buffer_mib": 1,
        "ftl.gc_bg_threshold_sb": _BG_THRESHOLD_SB,
        "ftl.gc_fg_threshold_sb": _FG_THRESHOLD_SB,
        "identity.mdts": 0,
    }
    # The model says how much the geometry can hold after GC's reserve and open frontiers.
    most_bytes = _ssdtwin.max_namespace_bytes(DEFAULT_PROFILE, [f"{k}={v}" for k, v in geometry.items()])
    capacity = min(int(raw_bytes * (1.0 - op_pct / 100.0)), most_bytes) // _UNIT_BYTES * _UNIT_BYTES
    if capacity <= 0:
        raise ValueError(f"{blocks_per_plane} blocks per plane leave no room for a namespace")
    return {**geometry, **ideal_overrides(DEFAULT_PROFILE), "identity.capacity_bytes": capacity}


def ideal_overrides(profile: str = DEFAULT_PROFILE) -> dict[str, object]:
    """Overrides that switch off every source of latency variability `profile` sets (read and
    program times by page type, die variation, read retries, firmware time), for tests that check a mechanism's
    exact arithmetic: the ideal drive, where every read of a kind takes the same time.

    >>> sorted(ideal_overrides("crucial-p1"))[-2:]
    ['nand.slc.t_prog_spread_us', 'nand.slc.t_read_spread_us']
    """
    # Every field it names is a number; the core says which fields to zero.
    return {key: float(value) for key, value in (item.split("=", 1) for item in _ssdtwin.ideal_overrides(profile))}


def ideal_host_overrides() -> dict[str, object]:
    """Host overrides (``--host-set``, ``Device(host_overrides=...)``) that make every I/O call
    and wakeup cost the same (no variation, no preemption) and every sleep end on time: the
    ideal host, for tests that check the host path's exact arithmetic.

    >>> sorted(ideal_host_overrides())[:3]
    ['kernel.call_cv', 'kernel.call_preempt_chance', 'kernel.preempt_chance']
    """
    return {key: float(value) for key, value in (item.split("=", 1) for item in _ssdtwin.ideal_host_overrides())}


@st.composite
def small_device_overrides(draw: st.DrawFn, *, min_superblock_bytes: int = 256 << 10) -> dict[str, object]:
    """Valid geometry overrides for a tiny device: at most 4 dies, 16 to 48 superblocks of at
    least ``min_superblock_bytes``, a namespace of about 1 MiB to 100 MiB.

    Superblocks are kept at least twice the largest block :func:`fio_jobs` draws (128 KiB):
    the core stalls when a write command is larger than a superblock and GC must run (see
    ``test_a_write_larger_than_a_superblock_does_not_stall`` in tests/test_device.py).

    >>> from hypothesis import given, settings
    >>> from ssdtwin import Device
    >>> @settings(max_examples=5, database=None)
    ... @given(small_device_overrides())
    ... def builds(overrides):
    ...     assert Device(overrides=overrides).info()["dies"] <= 4
    >>> builds()
    """
    channels = draw(st.integers(1, 2))
    dies_per_channel = draw(st.integers(1, 2))
    planes = draw(st.integers(1, 2))
    page_bytes = draw(st.sampled_from([4096, 8192, 16384]))
    pages_per_block = draw(st.sampled_from([3, 6, 12, 24]))
    row_bytes = channels * dies_per_channel * planes * page_bytes
    # Enough pages per block (a multiple of 3, for TLC) for the smallest superblock allowed.
    least = -(-min_superblock_bytes // row_bytes)
    pages_per_block = max(pages_per_block, -(-least // 3) * 3)
    return small_overrides(
        channels=channels,
        dies_per_channel=dies_per_channel,
        planes=planes,
        blocks_per_plane=draw(st.integers(16, 48)),
        pages_per_block=pages_per_block,
        page_bytes=page_bytes,
        op_pct=draw(st.floats(7.0, 40.0)),
    )


RW_PATTERNS = ("read", "write", "trim", "randread", "randwrite", "randtrim", "rw", "readwrite", "randrw", "trimwrite")
_BLOCK_KIB = (4, 8, 16, 32, 64, 128)


def _kib(n: int) -> str:
    return f"{n}k"


@st.composite
def _block_sizes(draw: st.DrawFn) -> dict[str, object]:
    """``bs``, per-direction ``bs``, ``bsrange`` or ``bssplit`` (all multiples of 4 KiB)."""
    kind = draw(st.sampled_from(["bs", "bs3", "bsrange", "bssplit"]))
    sizes = st.sampled_from(_BLOCK_KIB)
    if kind == "bs":
        return {"bs": _kib(draw(sizes))}
    if kind == "bs3":
        return {"bs": ",".join(_kib(draw(sizes)) for _ in range(3))}
    if kind == "bsrange":
        lo, hi = sorted((draw(sizes), draw(sizes)))
        return {"bsrange": f"{_kib(lo)}-{_kib(hi)}"}
    a, b = draw(st.lists(sizes, min_size=2, max_size=2, unique=True))
    share = draw(st.integers(1, 99))
    return {"bssplit": f"{_kib(a)}/{share}:{_kib(b)}/{100 - share}"}


@st.composite
def fio_jobs(
    draw: st.DrawFn, *, max_bytes: int = 64 << 20, max_runtime_ms: int = 20, numjobs: int = 2
) -> dict[str, Any]:
    """One fio job as a flat option dict, using only supported options.

    Every job fits in the first ``max_bytes`` of the namespace (default: 64 MiB, less than
    :func:`small_overrides` gives) and stops after at most ``max_runtime_ms`` of simulated
    time plus a short ramp and start delay; at most ``numjobs`` clones. Block sizes are
    multiples of 4 KiB, so they suit 512-byte and 4 KiB LBA formats.

    >>> from hypothesis import given, settings
    >>> from ssdtwin import Device, JobError
    >>> dev = Device(overrides=small_overrides())
    >>> @settings(max_examples=5, database=None, deadline=None)
    ... @given(fio_jobs())
    ... def runs(job):
    ...     assert dev.run(job).json["jobs"][0]["error"] == 0
    >>> runs()
    """
    job: dict[str, Any] = {"name": draw(st.sampled_from(["h", "job", "a-b_c.1"]))}
    job["rw"] = draw(st.sampled_from(RW_PATTERNS))
    job.update(draw(_block_sizes()))
    mib = max_bytes >> 20
    size_mib = draw(st.sampled_from([s for s in (1, 2, 4, 8, 16) if s * 3 <= mib] or [1]))
    job["size"] = f"{size_mib}m"
    clones = draw(st.integers(1, numjobs))
    if clones > 1:
        job["numjobs"] = clones
        job["group_reporting"] = draw(st.booleans())
        if draw(st.booleans()):
            job["offset_increment"] = f"{size_mib}m"
    spare = mib - size_mib * (clones if "offset_increment" in job else 1)
    if spare >= 1 and draw(st.booleans()):
        job["offset"] = f"{draw(st.integers(0, spare))}m"
    job["runtime"] = f"{draw(st.integers(1, max_runtime_ms))}ms"
    optional: dict[str, st.SearchStrategy[Any]] = {
        "ioengine": st.sampled_from(["libaio", "io_uring", "psync", "sync"]),
        "iodepth": st.integers(1, 64),
        "direct": st.just(1),
        "time_based": st.booleans(),
        "ramp_time": st.sampled_from(["1ms", "2ms"]),
        "startdelay": st.sampled_from(["0", "1ms"]),
        "rwmixread": st.integers(0, 100),
        "norandommap": st.booleans(),
        "randrepeat": st.sampled_from([0, 1]),
        "randseed": st.integers(0, 2**32),
        "random_distribution": st.sampled_from(
            ["random", "zipf:1.2", "zipf:0.8:0.25", "pareto:0.3", "normal:20", "zoned:60/10:40/90"]
        ),
        "rate_iops": st.integers(1000, 200_000),
        "thinktime": st.sampled_from(["5", "20us"]),
        "percentile_list": st.sampled_from(["50:99:99.9", "99.99:1", "50"]),
        "io_size": st.sampled_from(["1m", "3m"]),
        "number_ios": st.integers(1, 2000),
        "loops": st.integers(1, 2),
    }
    for option, values in optional.items():
        if draw(st.booleans()):
            job[option] = draw(values)
    return job
