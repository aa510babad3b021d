"""Where a sweep's points run: ``local[:N]`` (processes on this machine),
``dask-local[:N]`` (a Dask LocalCluster, to try Dask), ``dask://HOST:PORT`` (an existing
Dask scheduler), or any :class:`concurrent.futures.Executor` from Python; and what a
study's ``--executor auto`` picks."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager

from ..errors import SsdtwinError


class ExecutorError(SsdtwinError, ValueError):
    """An executor specification is malformed or its backend is missing."""


@contextmanager
def _interrupted_by_sigterm() -> Iterator[None]:
    """SIGTERM (``kill``, a batch scheduler's stop) ends the sweep as Ctrl-C does, so that its
    workers are stopped too; in the main thread only, where signals are handled."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _count(spec: str, default: int) -> int:
    kind, _, n = spec.partition(":")
    if not n:
        return default
    if not n.isdigit() or int(n) < 1:
        raise ExecutorError(f"executor '{spec}': {kind}:N needs a positive number of workers")
    return int(n)


#: Runs in the command's own process, one part after another.
SERIAL = "serial"
#: As many worker processes as the machine's cores, the parts and its free memory allow.
AUTO = "auto"


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a container's or
    ``taskset``'s share), not every core of the machine."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def available_memory_bytes() -> int | None:
    """Memory the kernel could give new processes now (``MemAvailable``), if it says."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def auto_workers(parts: int, part_bytes: int, cores: int, memory_bytes: int | None) -> int:
    """Worker processes for ``parts`` independent parts, each needing about ``part_bytes``
    of model memory: one per core, no more than there are parts, and no more than half
    the available memory holds (the other half for the parts' own copies and the tables);
    1 means run them in this process.

    >>> auto_workers(8, 1 << 30, cores=2, memory_bytes=16 << 30)
    2
    >>> auto_workers(8, 6 << 30, cores=4, memory_bytes=16 << 30)
    1
    >>> auto_workers(1, 0, cores=8, memory_bytes=None)
    1
    """
    workers = min(cores, parts)
    if memory_bytes is not None and part_bytes > 0:
        workers = min(workers, memory_bytes // 2 // part_bytes)
    return max(1, workers)


def resolve(spec: str, parts: int, part_bytes: int) -> str | None:
    """``spec`` as :func:`open_executor` takes it, or None to run in this process:
    ``serial`` is None, ``auto`` is ``local:N`` by :func:`auto_workers` (None for one)."""
    if spec == SERIAL:
        return None
    if spec == AUTO:
        n = auto_workers(parts, part_bytes, usable_cores(), available_memory_bytes())
        return None if n == 1 else f"local:{n}"
    named = spec in ("local", "dask-local") or spec.startswith(("local:", "dask-local:", "dask://"))
    if not named:
        raise ExecutorError(f"executor '{spec}': allowed auto, serial, local[:N], dask-local[:N] or dask://HOST:PORT")
    return spec


@contextmanager
def open_executor(spec: str) -> Iterator[Executor]:
    """The executor ``spec`` names, shut down (with its cluster) on exit."""
    cores = os.cpu_count() or 1
    if spec == "local" or spec.startswith("local:"):
        # forkserver: workers start from a clean process, not a copy of one with threads.
        ex = ProcessPoolExecutor(_count(spec, cores), mp_context=multiprocessing.get_context("forkserver"))
        try:
            with _interrupted_by_sigterm():
                yield ex
        except BaseException:
            # Ctrl-C, SIGTERM or an error: stop the points under way now, rather than wait for
            # them. (Python 3.14 has terminate_workers(); before it, only the private map.)
            workers = list((getattr(ex, "_processes", None) or {}).values())
            ex.shutdown(wait=False, cancel_futures=True)
            for process in workers:
                process.terminate()
            raise
        ex.shutdown()
        return
    if spec == "dask-local" or spec.startswith("dask-local:") or spec.startswith("dask://"):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ExecutorError(f"executor '{spec}' needs Dask: pip install 'ssdtwin[dask]'") from None
        if spec.startswith("dask://"):
            address = spec.removeprefix("dask://")
            if ":" not in address:
                raise ExecutorError(f"executor '{spec}': expected dask://HOST:PORT")
            try:
                client = Client(f"tcp://{address}", timeout="10s")
            except OSError as e:
                raise ExecutorError(f"executor '{spec}': cannot reach the scheduler ({e})") from None
            with client:
                yield client.get_executor()
            return
        n = _count(spec, cores)
        with (
            LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
            Client(cluster) as client,
        ):
            yield client.get_executor()
        return
    raise ExecutorError(f"executor '{spec}': allowed local[:N], dask-local[:N] or dask://HOST:PORT")
