"""``unified_rw_reporting``: ``mixed`` sums every direction into one reported as ``mixed``;
``both`` reports the directions and then their sum; as fio 3.33 lays them out in its JSON,
normal and terse outputs."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]
FIO = shutil.which("fio")
JOB = ["--host", "none", "--name=m", "--rw=randrw", "--size=64m", "--bs=4k", "--runtime=50ms", "--time_based"]


def run_json(run_main: RunMain, mode: str) -> dict[str, object]:
    outcome = run_main("fio", *JOB, f"--unified_rw_reporting={mode}", "--output-format=json")
    assert outcome.status == 0, outcome
    job: dict[str, object] = json.loads(outcome.out)["jobs"][0]
    return job


def test_mixed_reports_one_direction_holding_every_direction_s_i_os(run_main: RunMain) -> None:
    apart, mixed = run_json(run_main, "none"), run_json(run_main, "mixed")
    assert "mixed" in mixed and not {"read", "write", "trim", "sync"} & set(mixed)
    m, r, w = mixed["mixed"], apart["read"], apart["write"]
    assert isinstance(m, dict) and isinstance(r, dict) and isinstance(w, dict)
    # The same run (same seed), summed: bytes and I/Os add, latency samples pool.
    assert m["io_bytes"] == r["io_bytes"] + w["io_bytes"]
    assert m["total_ios"] == r["total_ios"] + w["total_ios"]
    assert m["clat_ns"]["N"] == r["clat_ns"]["N"] + w["clat_ns"]["N"]
    mean = (r["clat_ns"]["mean"] * r["clat_ns"]["N"] + w["clat_ns"]["mean"] * w["clat_ns"]["N"]) / m["clat_ns"]["N"]
    assert m["clat_ns"]["mean"] == pytest.approx(mean, rel=1e-9)
    assert m["runtime"] == max(r["runtime"], w["runtime"])


def test_both_reports_the_directions_then_their_sum_after_sync(run_main: RunMain) -> None:
    job = run_json(run_main, "both")
    keys = [k for k in job if k in {"read", "write", "trim", "sync", "mixed"}]
    assert keys == ["read", "write", "trim", "sync", "mixed"]
    m, r, w = job["mixed"], job["read"], job["write"]
    assert isinstance(m, dict) and isinstance(r, dict) and isinstance(w, dict)
    assert m["io_bytes"] == r["io_bytes"] + w["io_bytes"]


def test_the_normal_report_labels_the_sum_mixed(run_main: RunMain) -> None:
    mixed = run_main("fio", *JOB, "--unified_rw_reporting=1").out
    assert "  mixed: IOPS=" in mixed and "  read: IOPS=" not in mixed and "  write: IOPS=" not in mixed
    assert "\n  MIXED: bw=" in mixed and "   READ: bw=" not in mixed
    both = run_main("fio", *JOB, "--unified_rw_reporting=both").out
    assert both.index("  read: IOPS=") < both.index("  write: IOPS=") < both.index("  mixed: IOPS=")
    assert both.index("   READ: bw=") < both.index("  WRITE: bw=") < both.index("  MIXED: bw=")


def test_terse_lines_carry_the_sum_in_fio_s_places(run_main: RunMain) -> None:
    def fields(mode: str) -> int:
        out = run_main("fio", *JOB, f"--unified_rw_reporting={mode}", "--output-format=terse").out
        return len(out.strip().split(";"))

    # Version 3 (fio's default) reports read and write; mixed alone takes the place of both,
    # and both adds it after them: one direction's fields each way.
    block = fields("none") - fields("mixed")
    assert block > 0 and fields("both") - fields("none") == block


def test_other_values_are_refused(run_main: RunMain) -> None:
    assert_one_line_error(run_main("fio", *JOB, "--unified_rw_reporting=sum"), "unified_rw_reporting=sum")


@pytest.mark.slow
@pytest.mark.skipif(FIO is None, reason="real fio is not installed (apt-get install fio)")
@pytest.mark.parametrize("mode", ["mixed", "both"])
def test_the_json_objects_are_real_fio_s(run_main: RunMain, tmp_path: Path, mode: str) -> None:
    assert FIO is not None
    real = subprocess.run(
        [
            FIO,
            "--name=m",
            "--ioengine=null",
            "--rw=randrw",
            "--size=64m",
            "--bs=4k",
            f"--unified_rw_reporting={mode}",
            "--output-format=json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(real.stdout)["jobs"][0]
    ours = run_json(run_main, mode)
    assert [k for k in ours if k != "ssdtwin"] == list(theirs)
    mixed = ours["mixed"]
    assert isinstance(mixed, dict) and set(mixed) == set(theirs["mixed"])
