"""fio 3.33 compatibility end to end, through the ``ssdtwin fio`` command: the reference job
file and command line give JSON with fio's keys and value types at every level, fio's
percentile keys and option echoes, fio's normal report layout, and fio's log files.

The reference outputs are real fio 3.33 runs, kept in tests/data/fio-3.33.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .helpers import Outcome, assert_same_shape, json_kind

RunMain = Callable[..., Outcome]

RANDREAD_PSYNC = "--name=t --filename=fiotest --size=64m --rw=randread --bs=4k --direct=1 --ioengine=psync --runtime=3"
LOG_KINDS = ["lat_clat", "lat_slat", "lat_lat", "bw_bw", "iops_iops"]


def reference(reference_dir: Path, name: str) -> dict[str, Any]:
    return json.loads((reference_dir / name).read_text())  # type: ignore[no-any-return]


def fio(run_main: RunMain, *args: str | Path) -> dict[str, Any]:
    # --quiet: no closing speed line.
    outcome = run_main("--quiet", "fio", *args)
    assert outcome.status == 0, outcome
    # Jobs that read a never-written region are told so; nothing else goes to stderr.
    assert all(line.startswith("ssdtwin: warning: ") for line in outcome.err.splitlines()), outcome.err
    return json.loads(outcome.out)  # type: ignore[no-any-return]


def percentile_keys(report: dict[str, Any], job: int, direction: str) -> list[str]:
    return list(report["jobs"][job][direction]["clat_ns"]["percentile"])


# ---- the shape checker itself ------------------------------------------------------------------------


def test_the_shape_check_can_fail() -> None:
    assert json_kind(1) == "int" and json_kind(1.0) == "float" and json_kind(True) == "bool"
    assert_same_shape({"a": {"b": 1, "ssdtwin": {}}}, {"a": {"b": 2}})
    for ours, theirs in [
        ({"a": 1.0}, {"a": 1}),  # float where fio has an int
        ({"b": 1, "a": 1}, {"a": 1, "b": 1}),  # order
        ({"a": 1}, {"a": 1, "b": 1}),  # missing key
        ({"a": [1, 2]}, {"a": [1]}),  # length
        ({"a": "1"}, {"a": 1}),  # string for a number
    ]:
        with pytest.raises(AssertionError):
            assert_same_shape(ours, theirs)


# ---- the job file with logs, group reporting and a global section ---------------------------------------


@pytest.fixture
def randrw(run_main: RunMain, reference_dir: Path) -> dict[str, Any]:
    return fio(run_main, "--output-format=json", reference_dir / "randrw-2jobs.fio")


def test_randrw_job_file_has_fio_s_json_shape(randrw: dict[str, Any], reference_dir: Path) -> None:
    theirs = reference(reference_dir, "randrw-2jobs-group.json")
    assert_same_shape(randrw, theirs)
    for d in ("read", "write"):
        assert (
            percentile_keys(randrw, 0, d)
            == percentile_keys(theirs, 0, d)
            == [
                "50.000000",
                "99.000000",
                "99.900000",
                "99.990000",
            ]
        )
    assert randrw["global options"] == theirs["global options"]
    assert randrw["jobs"][0]["job options"] == theirs["jobs"][0]["job options"]


def test_randrw_job_file_runs_what_it_says(randrw: dict[str, Any]) -> None:
    (job,) = randrw["jobs"]  # group_reporting: one entry for both clones
    assert job["jobname"] == "mix"
    # 2 s measured after a 1 s ramp; group_reporting sums the clones' job_runtime.
    assert job["read"]["runtime"] == job["write"]["runtime"] == 2000
    assert job["job_runtime"] == 4000
    reads, writes = job["read"]["total_ios"], job["write"]["total_ios"]
    assert reads / (reads + writes) == pytest.approx(0.70, abs=0.01)
    assert job["read"]["io_bytes"] == 4096 * reads
    assert job["iodepth_level"]["8"] >= 99.9
    # Logs are active with 500 ms windows: 4 windows per clone and direction in 2 s.
    assert job["read"]["bw_samples"] == 8


def test_randrw_logs_are_fio_s(randrw: dict[str, Any], reference_dir: Path, tmp_path: Path) -> None:
    def windows(text: str) -> list[int]:
        # fio stamps windows by wall clock (499, 999, 1500, ...) and flushes one extra line
        # at exit: compare the 500 ms windows each log covers.
        w = [(int(line.split(", ")[0]) + 250) // 500 for line in text.splitlines()]
        return sorted(set(w))

    names = sorted(p.name for p in tmp_path.glob("*.log"))
    assert names == sorted(f"{kind}.{n}.log" for kind in LOG_KINDS for n in (1, 2))
    for name in names:
        ours = (tmp_path / name).read_text()
        theirs = (reference_dir / "logs" / name).read_text()
        assert windows(ours) == windows(theirs), name
        lines = ours.splitlines()
        assert len(lines) >= 8, name  # 4 windows x 2 directions
        for line in lines:
            cols = line.split(", ")
            # time, value, ddir, bs, offset, prio: windowed, so bs/offset/prio are 0 (log_offset=1).
            assert len(cols) == 6, line
            assert all(c.isdigit() for c in cols), line
            assert cols[2] in ("0", "1"), line
            assert cols[3:] == ["0", "0", "0"], line
            assert int(cols[0]) % 500 == 0 or name.startswith(("bw", "iops")), line
        # The reference has the same column layout.
        assert all(len(line.split(", ")) == 6 for line in theirs.splitlines())


def test_json_plus_without_group_reporting(run_main: RunMain, reference_dir: Path) -> None:
    # The json+ reference was made with --group_reporting=0 before the job file (the file's
    # own [global] turns it back on, so the jobs are still reported as one group).
    ours = fio(run_main, "--output-format=json+", "--group_reporting=0", reference_dir / "randrw-2jobs.fio")
    theirs = reference(reference_dir, "randrw-2jobs-jsonplus.json")
    assert_same_shape(ours, theirs)
    for job in ours["jobs"]:
        for d in ("read", "write"):
            clat = job[d]["clat_ns"]
            assert sum(clat["bins"].values()) == clat["N"] > 0
            assert all(int(k) > 0 for k in clat["bins"])
            assert "bins" not in job[d]["slat_ns"] and "bins" not in job[d]["lat_ns"]


# ---- the psync command line -------------------------------------------------------------------------------


def test_randread_command_line_has_fio_s_json_shape(run_main: RunMain, reference_dir: Path) -> None:
    ours = fio(run_main, "--output-format=json", *RANDREAD_PSYNC.split())
    theirs = reference(reference_dir, "randread-psync.json")
    assert_same_shape(ours, theirs)
    assert "global options" not in ours
    assert percentile_keys(ours, 0, "read") == percentile_keys(theirs, 0, "read")
    assert len(percentile_keys(ours, 0, "read")) == 17
    assert ours["jobs"][0]["job options"] == theirs["jobs"][0]["job options"]
    job = ours["jobs"][0]
    # psync is synchronous: one I/O in flight and no submission phase, as fio reports it.
    assert job["iodepth_level"]["1"] >= 99.9
    assert job["read"]["slat_ns"]["N"] == 0 == theirs["jobs"][0]["read"]["slat_ns"]["N"]
    # Directions that did nothing have no percentiles, as in fio.
    assert "percentile" not in job["write"]["clat_ns"]
    # 64 MiB of 4 KiB reads at ~5 us (never-written LBAs) end before 3 s: the size ends the job.
    assert job["read"]["io_bytes"] == 64 << 20
    assert job["read"]["total_ios"] == 16384
    assert job["read"]["io_kbytes"] == job["read"]["io_bytes"] >> 10
    assert job["read"]["bw_bytes"] == 1000 * job["read"]["io_bytes"] // job["read"]["runtime"]


def test_normal_report_has_fio_s_layout(run_main: RunMain, reference_dir: Path) -> None:
    """The same job as the reference normal report, on a drive filled so reads hit NAND."""

    def labels(text: str) -> list[str]:
        out: list[str] = []
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith("|"):
                continue
            head = line.split(":")[0].split("=")[0].strip()
            label = "DEVICE" if head in ("vda", "nvme0n1") else re.sub(r"\([^)]*\)|\d", "", head).strip()
            if not out or out[-1] != label:
                out.append(label)
        return out

    theirs = (reference_dir / "randread-normal.txt").read_text()
    args = "--name=t --rw=randrw --bs=4k --ioengine=libaio --iodepth=16 --size=64m --runtime=1 --time_based"
    outcome = run_main("fio", "--fill", "seq:1", *args.split())
    assert outcome.status == 0, outcome
    assert outcome.out.splitlines()[:3] == theirs.splitlines()[:3]
    assert labels(outcome.out) == labels(theirs)
    clat_rows = [line for line in outcome.out.splitlines() if line.startswith("     |")]
    assert len(clat_rows) == 10  # 17 default percentiles, 4 to a row, for reads and writes


# ---- steady-state detection ------------------------------------------------------------------------------


def test_steadystate_object_has_fios_shape_and_echo(run_main: RunMain, reference_dir: Path, tmp_path: Path) -> None:
    theirs = reference(reference_dir, "steadystate-psync.json")["jobs"][0]
    job = tmp_path / "steadystate-psync.fio"
    job.write_text((reference_dir / "steadystate-psync.fio").read_text())
    ours = fio(run_main, "--output-format=json", job)["jobs"][0]
    assert_same_shape(ours["steadystate"], theirs["steadystate"])
    assert ours["job options"] == theirs["job options"]
    for key in ("ss", "duration", "attained"):
        assert ours["steadystate"][key] == theirs["steadystate"][key]
    # Two 1 s samples after the 1 s ramp: steady at 3 s from the job's start. (fio's helper
    # thread samples on its own 1 s ticks, which began before the job laid out its file:
    # 3.78 s in the recording.)
    assert ours["job_runtime"] == 3000
    assert 3000 <= theirs["job_runtime"] < 4000
