"""The offsets a job issues, read from its latency log with ``log_offset=1``: the twin's and
real fio's (on the null engine), for tests that compare the two."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from ..helpers import Outcome

RunMain = Callable[..., Outcome]
FIO = shutil.which("fio")
LOG = ["--write_lat_log=x", "--log_offset=1"]


def _offsets(log: Path) -> list[int]:
    return [int(line.split(", ")[4]) for line in log.read_text().splitlines()]


def our_offsets(run_main: RunMain, tmp_path: Path, *args: str) -> list[int]:
    """The offsets of the job ``args`` on the bare twin, run in ``tmp_path``."""
    outcome = run_main("fio", "--host", "none", "--name=o", *args, *LOG)
    assert outcome.status == 0, outcome
    return _offsets(tmp_path / "x_lat.1.log")


def fio_offsets(tmp_path: Path, *args: str) -> list[int]:
    """The offsets of the job ``args`` on real fio's null engine, run in ``tmp_path/fio``."""
    assert FIO is not None
    where = tmp_path / "fio"
    where.mkdir(exist_ok=True)
    subprocess.run([FIO, "--name=o", "--ioengine=null", *args, *LOG], cwd=where, capture_output=True, check=True)
    return _offsets(where / "x_lat.1.log")
