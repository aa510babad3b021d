"""FreeBSD ``nvmecontrol perftest`` on a simulated drive.

Each of ``threads`` threads keeps exactly one I/O of ``size`` bytes outstanding for
``seconds``. The two modes of the real tool differ in where the I/O goes:

* ``intr`` (nvmecontrol's default, also spelt ``io``): the completion callback reissues
  the same command, so thread ``idx`` reads or writes the same LBA ``idx * 2048`` again
  and again;
* ``wait`` (also ``bio``): the thread goes through the block layer, starting at LBA
  ``idx * 2048`` and advancing by ``size`` after each I/O. Where the real tool wraps at
  the end of the namespace, the twin wraps to the thread's first LBA (fio's semantics);
  the difference matters only for runs that cover the whole namespace.

Both are fio jobs underneath (``numjobs`` threads at ``iodepth=1``) whose engines are the
tool's own modes (``nvmecontrol-intr``: the completion handler reissues the command;
``nvmecontrol-wait``: a kernel thread sleeps on each bio), so the drive sees exactly what the
tool gives it and the host's costs are those of its kernel path. Rates follow the tool: IO/s is completions over
the test time, integer; "MB/s" is IO/s times ``size`` over 2^20, integer.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .device import Device
from .errors import DeviceError

MODES = {"intr": "intr", "io": "intr", "wait": "wait", "bio": "wait"}
OPERATIONS = ("read", "write")
#: nvmecontrol's limit on ``-n``.
MAX_THREADS = 128
#: Each thread starts 2048 LBAs after the previous one.
THREAD_STRIDE_LBAS = 2048


@dataclass(frozen=True)
class PerftestResult:
    """A finished perftest: completions per thread and the per-second rates."""

    threads: int
    operation: str
    size: int
    seconds: int
    #: Completions of each thread.
    thread_ios: list[int]
    #: One row per second: ``t_s`` (end of the second), ``mib_per_s`` (2^20 bytes/s, the
    #: tool's "MB/s"), ``total_gb`` (10^9 bytes moved so far) and the device's SLC
    #: figures then.
    per_second: pd.DataFrame

    @property
    def iops(self) -> int:
        return sum(self.thread_ios) // self.seconds

    @property
    def mib_per_s(self) -> int:
        return self.iops * self.size // (1024 * 1024)

    def report(self, per_thread: bool = False) -> str:
        """nvmecontrol's output: one summary line, then a line per thread with ``-p``.

        >>> lines = PerftestResult(2, "read", 4096, 1, [10, 12], pd.DataFrame()).report(True).splitlines()
        >>> lines[0]
        'Threads:  2 Size:   4096  READ Time:   1 IO/s:      22 MB/s:    0'
        >>> lines[1:]
        ['\\t  0:       10 IO/s', '\\t  1:       12 IO/s']
        """
        line = (
            f"Threads: {self.threads:2d} Size: {self.size:6d} {self.operation.upper():>5s} "
            f"Time: {self.seconds:3d} IO/s: {self.iops:7d} MB/s: {self.mib_per_s:4d}\n"
        )
        if per_thread:
            line += "".join(f"\t{i:3d}: {n // self.seconds:8d} IO/s\n" for i, n in enumerate(self.thread_ios))
        return line


def perftest_job(
    threads: int, operation: str, size: int, seconds: int, mode: str, lba_bytes: int, capacity: int
) -> dict[str, object]:
    """The fio job that issues what perftest would; raises :class:`DeviceError` for
    arguments the real tool refuses or the namespace cannot hold."""
    if not 1 <= threads <= MAX_THREADS:
        raise DeviceError(f"perftest: {threads} threads; allowed 1 to {MAX_THREADS}")
    op = operation.lower()
    if op not in OPERATIONS:
        raise DeviceError(f"perftest: operation '{operation}'; allowed read or write")
    if mode not in MODES:
        raise DeviceError(f"perftest: mode '{mode}'; allowed {', '.join(MODES)}")
    if size <= 0 or size % lba_bytes:
        raise DeviceError(f"perftest: size {size} must be a positive multiple of the {lba_bytes}-byte sector")
    if seconds <= 0:
        raise DeviceError(f"perftest: time {seconds} s must be at least 1")
    stride = THREAD_STRIDE_LBAS * lba_bytes
    last_start = (threads - 1) * stride
    if last_start + size > capacity:
        raise DeviceError(
            f"perftest: thread {threads - 1} starts at byte {last_start:,}, beyond the {capacity:,}-byte namespace"
        )
    # Each thread's region: one I/O (the same LBA over and over) or as many I/Os as fit
    # between its start and the end of the namespace.
    region = size if MODES[mode] == "intr" else (capacity - last_start) // size * size
    return {
        "name": f"perftest-{op}",
        "rw": op,
        "bs": size,
        "iodepth": 1,
        "numjobs": threads,
        "offset_increment": stride,
        "size": region,
        "runtime": f"{seconds}s",
        "time_based": True,
        "direct": 1,
        "ioengine": f"nvmecontrol-{MODES[mode]}",
    }


def perftest(
    device: Device, *, threads: int, operation: str, size: int, seconds: int, mode: str = "intr"
) -> PerftestResult:
    """Runs perftest on ``device`` (whose state it changes, as the real test would), on its
    host: FreeBSD's (``freebsd-11``) offers the tool's engines, ``none`` runs them at no cost.

    >>> dev = Device("wd-black-256", host="freebsd-11")
    >>> perftest(dev, threads=1, operation="read", size=131072, seconds=1).report()
    'Threads:  1 Size: 131072  READ Time:   1 IO/s:   10157 MB/s: 1269\\n'
    """
    info = device.info()
    job = perftest_job(threads, operation, size, seconds, mode, info["lba_bytes"], info["capacity_bytes"])
    result = device.run(job, series_window_ms=1000.0)
    summary = result.summary
    thread_ios = [int(n) for n in summary.sort_values("clone").ios]
    moved = "host_read_bytes" if job["rw"] == "read" else "host_write_bytes"
    series = result.series
    # The samples at whole seconds; the run may add one when it drains.
    whole = series[series.time_ns % 1_000_000_000 == 0]
    seconds_done = whole.iloc[1 : seconds + 1]
    delta = whole[moved].diff().iloc[1 : seconds + 1]
    per_second = pd.DataFrame(
        {
            "t_s": (seconds_done.time_ns // 1_000_000_000).astype(int).to_numpy(),
            "mib_per_s": (delta / 2**20).to_numpy(),
            "total_gb": ((seconds_done[moved] - whole[moved].iloc[0]) / 1e9).to_numpy(),
            "slc_cached_gb": (seconds_done.slc_cached_bytes / 1e9).to_numpy(),
            "folded_gb": (seconds_done.folded_bytes / 1e9).to_numpy(),
        }
    )
    return PerftestResult(threads, str(job["rw"]), size, seconds, thread_ios, per_second)
