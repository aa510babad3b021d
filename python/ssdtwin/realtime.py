"""Simulated time against wall time: the "x real time" figure every command prints.

The core counts the simulated time each of its calls runs, over every drive, pool and card
of the process (:func:`ssdtwin._ssdtwin.simulated_ns`); parts a study or sweep runs in
other processes bring theirs back with their results (:func:`counted`). The count sits
beside the model and never feeds it, so results stay byte-identical whatever the machine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from . import _ssdtwin

T = TypeVar("T")
R = TypeVar("R")

_from_other_processes_ns = 0


def simulated_ns() -> int:
    """Simulated ns this process has run, its workers' parts included."""
    return _ssdtwin.simulated_ns() + _from_other_processes_ns


def counted(task: Callable[[T], R], item: T) -> tuple[R, int, int]:
    """``task(item)``, the simulated ns it ran and the id of the process it ran in (for an
    executor's worker to send back with its result; see :func:`add_from`)."""
    before = _ssdtwin.simulated_ns()
    result = task(item)
    return result, _ssdtwin.simulated_ns() - before, os.getpid()


def add_from(simulated: int, pid: int) -> None:
    """Counts ``simulated`` ns a part ran in process ``pid``, unless that is this process
    (whose own count already holds it: an executor of threads)."""
    global _from_other_processes_ns
    if pid != os.getpid():
        _from_other_processes_ns += simulated


def summary(simulated: int, wall_s: float) -> str:
    """The line a command ends with on stderr.

    >>> summary(12_500_000_000, 0.5)
    'ssdtwin: 12.50 s simulated in 0.50 s, x25 real time'
    >>> summary(2_000_000, 4.0)
    'ssdtwin: 0.002 s simulated in 4.00 s, x0.0005 real time'
    """
    seconds = simulated / 1e9
    shown = f"{seconds:.2f}" if seconds >= 0.1 else f"{seconds:.3g}"
    factor = seconds / wall_s if wall_s > 0 else 0.0
    return f"ssdtwin: {shown} s simulated in {wall_s:.2f} s, x{factor:.3g} real time"
