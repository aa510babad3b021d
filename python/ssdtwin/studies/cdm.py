"""CrystalDiskMark study: CrystalDiskMark 8's tests on a simulated drive, scored and printed
as CrystalDiskMark does.

Semantics (CrystalDiskMark 8.0.x): the test file (``size`` bytes, at the start of the
drive) is written first; then the read tests, an interval, the write tests, with
``interval`` idle seconds between tests. Each test is one discarded 5 s warm-up run
("Preparing..."), then ``count`` runs of ``measure`` seconds; the score is the best run's
MB/s (10^6 bytes/s) and the latency the lowest run mean. IOPS are derived from the score,
as CrystalDiskMark does. ``Q`` is the queue depth of each of ``T`` threads.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import click
import pandas as pd

from .. import __version__
from ..device import DEFAULT_RUN_SEED, Device
from .base import Advance, Study

#: CrystalDiskMark 8.0.x's fixed warm-up before every test, seconds.
WARMUP_S = 5

#: CrystalDiskMark runs on Windows: DiskSpd on NTFS through storport/stornvme.
HOST = "windows-10"

#: The test file, in the drive's file system (CrystalDiskMark<hex>.tmp).
TEST_FILE = "CrystalDiskMark.tmp"


@dataclass(frozen=True)
class CdmTest:
    """One row of CrystalDiskMark's window."""

    sequential: bool
    kib: int
    queues: int
    threads: int

    @property
    def name(self) -> str:
        """``SEQ1M Q8T1``, ``RND4K Q32T16``.

        >>> CdmTest(True, 1024, 8, 1).name, CdmTest(False, 4, 32, 16).name
        ('SEQ1M Q8T1', 'RND4K Q32T16')
        """
        size = f"{self.kib // 1024}M" if self.kib >= 1024 else f"{self.kib}K"
        return f"{'SEQ' if self.sequential else 'RND'}{size} Q{self.queues}T{self.threads}"

    def line(self, mb_per_s: float, lat_us: float) -> str:
        """The test's line in the text export.

        >>> CdmTest(False, 4, 1, 1).line(70.0, 58.4)
        '  RND    4KiB (Q=  1, T= 1):    70.000 MB/s [  17089.8 IOPS] <    58.40 us>'
        """
        size, unit = (self.kib // 1024, "MiB") if self.kib >= 1024 else (self.kib, "KiB")
        kind = "SEQ" if self.sequential else "RND"
        iops = mb_per_s * 1e6 / (self.kib * 1024)
        return (
            f"  {kind} {size:4d}{unit} (Q={self.queues:3d}, T={self.threads:2d}): "
            f"{mb_per_s:9.3f} MB/s [{iops:9.1f} IOPS] <{lat_us:9.2f} us>"
        )


PRESETS = {
    "default": (
        CdmTest(True, 1024, 8, 1),
        CdmTest(True, 1024, 1, 1),
        CdmTest(False, 4, 32, 1),
        CdmTest(False, 4, 1, 1),
    ),
    "nvme": (CdmTest(True, 1024, 8, 1), CdmTest(True, 128, 32, 1), CdmTest(False, 4, 32, 16), CdmTest(False, 4, 1, 1)),
}
PROFILE_NAMES = {"default": "Default", "nvme": "NVMe SSD"}


def parse_test_size(text: str) -> int:
    """CrystalDiskMark's test sizes: ``16m`` to ``64g`` (MiB or GiB), as bytes.

    >>> parse_test_size("1g"), parse_test_size("512M")
    (1073741824, 536870912)
    """
    t = text.strip().lower().removesuffix("ib").removesuffix("b")
    units = {"m": 2**20, "g": 2**30}
    size = int(t[:-1]) * units[t[-1]] if t[-1:] in units and t[:-1].isdigit() else 0
    if not 16 * 2**20 <= size <= 64 * 2**30:
        raise click.BadParameter(f"'{text}': allowed 16m to 64g (MiB or GiB)", param_hint="--size")
    return size


def _job(test: CdmTest, op: str, size: int, seconds: float, seed: int) -> dict[str, object]:
    rw = ("" if test.sequential else "rand") + op
    return {
        "name": test.name,
        "rw": rw,
        "bs": f"{test.kib}k",
        "iodepth": test.queues,
        "numjobs": test.threads,
        "group_reporting": True,
        # DiskSpd -L: overlapped I/O on a completion port, a lookaside reap per dispatch.
        "ioengine": "diskspd",
        "filename": TEST_FILE,
        "direct": 1,
        "size": size,
        "time_based": True,
        "runtime": f"{round(seconds * 1e6)}us",
        "randseed": seed,
    }


def cdm_sweep(
    profile: str = "micron-9200max",
    *,
    preset: str = "default",
    size: int = 1 << 30,
    count: int = 5,
    measure: float = 5.0,
    interval: float = 5.0,
    overrides: Mapping[str, object] | None = None,
    host: str = HOST,
    advance: Advance = None,
) -> pd.DataFrame:
    """One row per test and direction: ``test``, ``op``, ``mb_per_s`` (best run), ``iops``,
    ``lat_us`` (lowest run mean), and every run's MB/s in ``runs_mb_per_s``, on a fresh drive.

    >>> t = cdm_sweep("generic-tlc-1tb", size=64 << 20, count=1, measure=0.05, interval=0)
    >>> list(t.test[:4]), list(t.op.unique())
    (['SEQ1M Q8T1', 'SEQ1M Q1T1', 'RND4K Q32T1', 'RND4K Q1T1'], ['read', 'write'])
    """
    if preset not in PRESETS:
        raise click.BadParameter(f"'{preset}': allowed {', '.join(PRESETS)}", param_hint="--preset")
    dev = Device(profile, overrides=overrides, host=host)
    capacity = dev.info()["capacity_bytes"]
    if size > capacity:
        raise click.BadParameter(f"{size:,} bytes: more than the drive's {capacity:,}", param_hint="--size")
    # The test file, written as a file copy would: 1 MiB writes in order.
    dev.run(
        {"name": "testfile", "rw": "write", "bs": "1m", "iodepth": 1, "direct": 1, "size": size, "filename": TEST_FILE}
    )
    rows = []
    run = 0
    for op in ("read", "write"):
        dev.idle(interval)
        for i, test in enumerate(PRESETS[preset]):
            if i:
                dev.idle(interval)
            dev.run(_job(test, op, size, WARMUP_S, seed=run), seed=DEFAULT_RUN_SEED + run)
            runs = []
            for _ in range(count):
                run += 1
                # Each run draws its own offsets and its own device and host variation, as
                # runs on a real machine differ.
                s = dev.run(_job(test, op, size, measure, seed=run), seed=DEFAULT_RUN_SEED + run).summary
                moved = float((s.iops * test.kib * 1024).sum())
                runs.append((moved / 1e6, float((s.mean_lat_us * s.ios).sum() / s.ios.sum())))
            best = max(mb for mb, _ in runs)
            rows.append(
                {
                    "test": test.name,
                    "op": op,
                    "mb_per_s": best,
                    "iops": best * 1e6 / (test.kib * 1024),
                    "lat_us": min(lat for _, lat in runs),
                    "runs_mb_per_s": [round(mb, 3) for mb, _ in runs],
                }
            )
            if advance:
                advance(f"{test.name} {op}")
    return pd.DataFrame(rows).assign(host=host)


def text_export(
    table: pd.DataFrame, *, preset: str, size: int, count: int, measure: float, interval: float, drive: str
) -> str:
    """CrystalDiskMark 8's text export (Edit > Copy) of a finished table."""
    tests = {t.name: t for t in PRESETS[preset]}
    size_text = f"{size // 2**30} GiB" if size >= 2**30 else f"{size // 2**20} MiB"
    lines = [
        "------------------------------------------------------------------------------",
        "CrystalDiskMark 8.0.4 x64 (C) 2007-2021 hiyohiyo",
        "                                  Crystal Dew World: https://crystalmark.info/",
        "------------------------------------------------------------------------------",
        "* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]",
        "* KB = 1000 bytes, KiB = 1024 bytes",
        "",
    ]
    for op, title in (("read", "[Read]"), ("write", "[Write]")):
        lines.append(title)
        for r in table[table.op == op].itertuples():
            lines.append(tests[str(r.test)].line(float(r.mb_per_s), float(r.lat_us)))
        lines.append("")
    lines += [
        f"Profile: {PROFILE_NAMES[preset]}",
        f"   Test: {size_text} (x{count}) [{drive}]",
        "   Mode: [Admin]",
        f"   Time: Measure {measure:g} sec / Interval {interval:g} sec ",
        "   Date: " + time.strftime("%Y/%m/%d ") + str(time.localtime().tm_hour) + time.strftime(":%M:%S"),
        f"     OS: ssdtwin {__version__} (simulated drive)",
    ]
    return "\n".join(lines) + "\n"


def _sweep(
    advance: Advance,
    profile: str,
    preset: str,
    size: str,
    count: int,
    measure: int,
    interval: int,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return cdm_sweep(
        profile,
        preset=preset,
        size=parse_test_size(size),
        count=count,
        measure=measure,
        interval=interval,
        host=host,
        overrides=overrides,
        advance=advance,
    )


def _report(
    table: pd.DataFrame,
    profile: str,
    preset: str,
    size: str,
    count: int,
    measure: int,
    interval: int,
    overrides: Mapping[str, object],
    **_: Any,
) -> str:
    nbytes = parse_test_size(size)
    info = Device(profile, overrides=overrides).info()
    used = min(nbytes, info["capacity_bytes"])
    total = info["capacity_bytes"]
    drive = f"{info['model']}: {100 * used // total}% ({used // 2**30}/{total // 2**30}GiB)"
    text = text_export(table, preset=preset, size=nbytes, count=count, measure=measure, interval=interval, drive=drive)
    note = host_note(table)
    return f"{text.rstrip()}\n\n{note}\n" if note else text


def host_note(table: pd.DataFrame) -> str:
    """Why ``study qd-sweep`` on Linux reports more for the same drive, where it does: on a
    Windows host one thread's CPU time per I/O caps the one-thread random tests (one
    sentence, empty on other hosts or without such a test).

    >>> t = pd.DataFrame({"test": ["RND4K Q32T1"], "op": ["read"], "iops": [77149.0], "host": ["windows-10"]})
    >>> host_note(t).split(":")[0]
    'Note'
    """
    hosts = list(dict.fromkeys(str(h) for h in table.get("host", pd.Series(dtype=str))))
    q32 = table[(table.test == "RND4K Q32T1") & (table.op == "read")]
    if len(hosts) != 1 or not hosts[0].startswith("windows") or not len(q32):
        return ""
    return (
        f"Note: on {hosts[0]} one thread's CPU time in Windows' I/O path caps RND4K Q32T1 at "
        f"{float(q32.iops.iloc[0]):,.0f} IOPS whatever the drive could do, so `ssdtwin study qd-sweep` on "
        "Linux reports the same drive faster at QD32: the host differs, not the drive."
    )


STUDY = Study(
    name="cdm",
    profile="micron-9200max",
    help="CrystalDiskMark 8's tests and text export on a simulated drive.",
    options=[
        click.Option(
            ["--preset"], type=click.Choice(sorted(PRESETS)), default="default", show_default=True, help="Test rows."
        ),
        click.Option(["--size"], default="1g", show_default=True, help="Test file size (16m to 64g)."),
        click.Option(["--count"], type=click.IntRange(1, 9), default=5, show_default=True, help="Runs per test."),
        click.Option(["--measure"], type=click.IntRange(1, 60), default=5, show_default=True, help="Seconds per run."),
        click.Option(
            ["--interval"],
            type=click.IntRange(0, 600),
            default=5,
            show_default=True,
            help="Idle seconds between tests.",
        ),
    ],
    sweep=_sweep,
    count=lambda preset, **_: 2 * len(PRESETS[preset]),
    report=_report,
    host=HOST,
)
