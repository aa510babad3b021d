"""Where a sweep's points run: ``local[:N]`` (processes on this machine),
``dask-local[:N]`` (a Dask LocalCluster, to try Dask), ``dask://HOST:PORT`` (an existing
Dask scheduler), or any :class:`concurrent.futures.Executor` from Python."""

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
