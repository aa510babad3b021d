"""Jobs that verify or loop do what they ask and no more: ``runtime=`` bounds a verifying
job as fio bounds it (writes stop at the runtime, and no verify phase follows), and
``loops=N`` with ``verify`` writes and reads back ``size`` bytes ``N`` times, as real fio."""

from __future__ import annotations

import json
from collections.abc import Callable

from ..helpers import Outcome

RunMain = Callable[..., Outcome]


def job_json(run_main: RunMain, *args: str) -> dict[str, dict[str, int]]:
    outcome = run_main("fio", "--host", "none", "--name=v", "--verify=crc32c", "--output-format=json", *args)
    assert outcome.status == 0, outcome
    job: dict[str, dict[str, int]] = json.loads(outcome.out)["jobs"][0]
    return job


def test_runtime_bounds_a_verifying_job(run_main: RunMain) -> None:
    # 8 GiB would take seconds to write: the runtime ends the writes, and fio then skips
    # the verify (its thread is marked terminated).
    job = job_json(run_main, "--rw=write", "--bs=128k", "--size=8g", "--runtime=200ms")
    assert job["write"]["runtime"] <= 201 and 0 < job["write"]["io_bytes"] < 8 << 30
    assert job["read"]["total_ios"] == 0


def test_loops_write_and_verify_the_size_each_time(run_main: RunMain) -> None:
    # Real fio 3.33 on a 64 MiB file: 128 MiB written and 128 MiB read back.
    job = job_json(run_main, "--rw=write", "--bs=128k", "--size=64m", "--loops=2")
    assert job["write"]["io_bytes"] == job["read"]["io_bytes"] == 128 << 20
