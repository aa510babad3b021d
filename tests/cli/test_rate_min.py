"""fio's minimum rates: a job slower than ``rate_min`` (or ``rate_iops_min``) over a
``rate_cycle``, after 2 s of settling, ends with EIO from ``check_min_rate``, as real fio's
does; the run prints fio's messages and exits 1."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable

import pytest

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]
FIO = shutil.which("fio")
#: 4 KiB every 10 ms of think time: about 400 KB/s, below a 1 MiB/s minimum.
SLOW = ["--name=slow", "--rw=read", "--bs=4k", "--size=64m", "--thinktime=10ms", "--runtime=5s", "--time_based"]


def test_a_job_below_its_minimum_rate_ends_with_eio(run_main: RunMain) -> None:
    outcome = run_main("fio", "--host", "none", "--output-format=json", *SLOW, "--rate_min=1m")
    assert outcome.status == 1
    assert "slow: rate_min=1048576B/s not met, got 409600B/s\n" in outcome.err
    assert re.search(
        r"\nfio: pid=\d+, err=5/file:backend.c:1131, func=check_min_rate, error=Input/output error\n", outcome.err
    )
    job = json.loads(outcome.out)["jobs"][0]
    assert job["error"] == 5
    # 2 s of settling, then one 1 s cycle: the job ends about 3 s in, not at its 5 s runtime.
    assert 3000 <= job["read"]["runtime"] <= 3020
    fast = run_main("fio", "--host", "none", "--output-format=json", *SLOW, "--rate_min=100k")
    assert fast.status == 0, fast
    assert json.loads(fast.out)["jobs"][0]["read"]["runtime"] == 5000


def test_rate_iops_min_and_the_normal_report(run_main: RunMain) -> None:
    outcome = run_main("fio", "--host", "none", *SLOW, "--rate_iops_min=200", "--rate_cycle=500")
    assert outcome.status == 1
    assert "slow: rate_iops_min=200 not met, got 100 IOPS\n" in outcome.err
    assert re.search(
        r"slow: \(groupid=0, jobs=1\): err= 5 \(file:backend.c:1131, func=check_min_rate, error=Input/output error\): "
        r"pid=\d+: ",
        outcome.out,
    )


@pytest.mark.slow
@pytest.mark.skipif(FIO is None, reason="real fio is not installed (apt-get install fio)")
def test_real_fio_fails_the_same_job_at_the_same_time(run_main: RunMain) -> None:
    real = subprocess.run(
        [FIO or "fio", "--ioengine=null", "--output-format=json", *SLOW, "--rate_min=1m"],
        capture_output=True,
        text=True,
    )
    assert real.returncode == 1
    # fio prints its error line before the JSON on stdout too.
    theirs = json.loads(real.stdout[real.stdout.index("{") :])["jobs"][0]
    outcome = run_main("fio", "--host", "none", "--output-format=json", *SLOW, "--rate_min=1m")
    ours = json.loads(outcome.out)["jobs"][0]
    assert ours["error"] == theirs["error"] == 5
    assert ours["read"]["runtime"] == pytest.approx(theirs["read"]["runtime"], rel=0.02)


def test_a_minimum_above_the_rate_is_refused(run_main: RunMain) -> None:
    assert_one_line_error(
        run_main("fio", "--name=s", "--rate=100k", "--rate_min=200k", "--size=1m"),
        "job 's': the minimum read rate exceeds its rate (fio: minimum rate exceeds rate, ddir 0)",
    )
