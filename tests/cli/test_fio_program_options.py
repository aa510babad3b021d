"""fio's program options on ``ssdtwin fio``: ``--minimal``/terse output (checked field by field
against the JSON of the same run and, where fio is installed, against real fio's layout),
``--section``, ``--showcmd`` (byte for byte against real fio on its example job files),
``--bandwidth-log``, ``write_hist_log`` and the ETA options."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]
FIO = shutil.which("fio")
EXAMPLES = Path("/usr/share/doc/fio/examples")
needs_fio = pytest.mark.skipif(FIO is None, reason="real fio is not installed (apt-get install fio)")

#: A mixed job on the drive alone: reads and writes, 20 ms.
MIXED = ["--host", "none", "--name=mix", "--rw=randrw", "--bs=4k", "--ioengine=libaio", "--iodepth=4"]
MIXED += ["--size=64m", "--runtime=20ms", "--time_based", "--description=two words"]


def run_ok(run_main: RunMain, *args: str | Path) -> str:
    outcome = run_main("fio", *args)
    assert outcome.status == 0, outcome
    return outcome.out


def real_fio(*args: str, cwd: Path | None = None) -> str:
    assert FIO is not None
    return subprocess.run([FIO, *args], capture_output=True, text=True, check=True, cwd=cwd).stdout


# ---- terse ------------------------------------------------------------------------------------------


def test_terse_fields_are_the_json_s(run_main: RunMain) -> None:
    line = run_ok(run_main, "--minimal", *MIXED)
    both = run_ok(run_main, "--output-format=terse,json", *MIXED)
    assert both.startswith(line)  # terse comes first, then the JSON
    job = json.loads(both[len(line) :])["jobs"][0]
    f = line.rstrip("\n").split(";")
    assert f[:5] == ["3", "fio-3.33", "mix", "0", "0"]
    read, write = f[5:], f[5 + 41 :]  # 41 fields per direction in version 3
    for d, fields in (("read", read), ("write", write)):
        j = job[d]
        assert int(fields[0]) == j["io_bytes"] >> 10
        assert int(fields[1]) == 1000 * j["io_bytes"] // j["runtime"] // 1024  # KiB/s, fio's integer arithmetic
        assert int(fields[2]) == 1000 * j["total_ios"] // j["runtime"]
        assert int(fields[3]) == j["runtime"] == 20
        # slat, clat: min and max in us (truncated), mean and deviation %f.
        assert fields[8:12] == [
            str(j["clat_ns"]["min"] // 1000),
            str(j["clat_ns"]["max"] // 1000),
            f"{j['clat_ns']['mean'] / 1000:f}",
            f"{j['clat_ns']['stddev'] / 1000:f}",
        ]
        percentiles = fields[12:32]
        assert percentiles[6] == f"50.000000%={j['clat_ns']['percentile']['50.000000'] // 1000}"
        assert percentiles[17:] == ["0%=0"] * 3  # 17 percentiles in 20 slots
        assert fields[32] == str(j["lat_ns"]["min"] // 1000)
    assert f[-1] == "two words"  # the description ends the line
    disk = f[-10:-1]
    assert disk[0] == "nvme0n1" and int(disk[1]) > 0 and disk[-1].endswith("%")


@pytest.mark.parametrize("version", [2, 3, 4, 5])
def test_terse_versions_have_fio_s_field_counts(run_main: RunMain, version: int) -> None:
    line = run_ok(run_main, "--output-format=terse", f"--terse-version={version}", *MIXED)
    fields = line.replace("\n;", ";").rstrip("\n").split(";")
    per_direction = 41 + (6 if version == 5 else 0)
    directions = 2 if version == 3 else 3
    header = 4 if version == 2 else 5
    disk = 9 if version >= 3 else 0
    assert len(fields) == header + per_direction * directions + 5 + 7 + 10 + 12 + disk + 1, version


@pytest.mark.slow
@needs_fio
@pytest.mark.parametrize("version", [3, 4, 5])
def test_terse_lines_are_laid_out_as_real_fio_s(run_main: RunMain, tmp_path: Path, version: int) -> None:
    # Real fio on its null engine (no disk, so no disk statistics) against ours on the drive.
    theirs = real_fio(
        "--name=mix", "--ioengine=null", "--rw=randrw", "--size=4m", "--minimal", f"--terse-version={version}"
    )
    ours = run_ok(run_main, "--minimal", f"--terse-version={version}", *MIXED[:-1])
    t, o = theirs.rstrip("\n").split(";"), ours.rstrip("\n").split(";")[:-9]
    assert len(o) == len(t)
    for a, b in zip(o, t, strict=True):
        # The same kind of field in each place: integer, %f, percent, or percentile.
        assert kind(a) == kind(b), (a, b)


def kind(field: str) -> str:
    if "%=" in field:
        return "percentile"
    if field.endswith("%"):
        return "percent"
    if field.replace(".", "", 1).isdigit():
        return "float" if "." in field else "int"
    return "text"


def test_terse_version_out_of_range(run_main: RunMain) -> None:
    assert_one_line_error(run_main("fio", "--terse-version=6", *MIXED), "--terse-version")


# ---- --section, --showcmd -----------------------------------------------------------------------------

JOB_FILE = """[global]
bs=4k
size=8m
runtime=5ms
[first]
rw=randread
[second]
rw=randwrite
[broken]
no_such_option=1
"""


def test_section_runs_only_the_sections_named(run_main: RunMain, tmp_path: Path) -> None:
    (tmp_path / "jobs.fio").write_text(JOB_FILE)
    out = run_ok(run_main, "--output-format=json", "--section=second", "jobs.fio")
    assert [j["jobname"] for j in json.loads(out)["jobs"]] == ["second"]
    out = run_ok(run_main, "--output-format=json", "--section", "first", "--section=second", "jobs.fio")
    assert [j["jobname"] for j in json.loads(out)["jobs"]] == ["first", "second"]
    # Without --section every section is read, and the broken one is an error.
    assert_one_line_error(run_main("fio", "jobs.fio"), "no_such_option")
    assert_one_line_error(run_main("fio", "--section=none", "jobs.fio"), "no job")


def test_showcmd_prints_each_file_as_a_command_line(run_main: RunMain, tmp_path: Path) -> None:
    (tmp_path / "jobs.fio").write_text(JOB_FILE.replace("[broken]\nno_such_option=1\n", "description=a b\n"))
    out = run_ok(run_main, "--showcmd", "jobs.fio")
    assert out == (
        "fio --bs=4k --size=8m --runtime=5ms --name=first --rw=randread --name=second --rw=randwrite "
        '--description="a b" \n'
    )
    assert run_ok(run_main, "--showcmd", "--section=second", "jobs.fio").endswith(
        '--name=second --rw=randwrite --description="a b" \n'
    )


@pytest.mark.slow
@needs_fio
@pytest.mark.skipif(
    not EXAMPLES.is_dir(), reason="fio's example job files are not installed (apt-get install fio-examples)"
)
def test_showcmd_matches_real_fio_on_its_examples(run_main: RunMain) -> None:
    # Every example whose options ssdtwin reads (the others use engines' own options, whose
    # names and parse order only fio knows).
    checked = 0
    for path in sorted(EXAMPLES.glob("*.fio")):
        if run_main("fio", "--parse-only", path).status != 0:
            continue
        theirs = real_fio("--showcmd", str(path))
        assert run_ok(run_main, "--showcmd", path) == theirs, path.name
        checked += 1
    assert checked >= 25


# ---- logs -------------------------------------------------------------------------------------------


def test_bandwidth_log_aggregates_every_job(run_main: RunMain, tmp_path: Path) -> None:
    # Two jobs reading at 4 MiB/s each: together 8192 KiB/s in every 500 ms window.
    jobs = ["--host", "none", "--rw=randread", "--bs=4k", "--size=64m", "--runtime=2s", "--time_based"]
    jobs += ["--rate=4m", "--name=a", "--name=b"]
    run_ok(run_main, "--bandwidth-log", "--output-format=json", *jobs)
    read = [line.split(", ") for line in (tmp_path / "agg-read_bw.log").read_text().splitlines()]
    assert [int(t) for t, *_ in read] == [500, 1000, 1500, 2000]
    assert all(abs(int(v) - 8192) <= 16 for _, v, *_ in read), read
    assert all(rest == ["0", "0", "0"] for _, _, *rest in read)
    write = (tmp_path / "agg-write_bw.log").read_text().splitlines()
    assert write == [f"{t}, 0, 1, 0, 0" for t in (500, 1000, 1500, 2000)]
    assert (tmp_path / "agg-trim_bw.log").exists()


def test_histogram_log_counts_each_window(run_main: RunMain, tmp_path: Path) -> None:
    job = ["--host", "none", "--name=h", "--rw=randread", "--bs=4k", "--size=64m", "--runtime=100ms"]
    job += ["--time_based", "--rate_iops=2000", "--write_hist_log=h", "--log_hist_msec=20"]
    job += ["--log_hist_coarseness=2", "--output-format=json"]
    report: dict[str, Any] = json.loads(run_ok(run_main, *job))
    lines = [[int(c) for c in line.split(", ")] for line in (tmp_path / "h_clat_hist.1.log").read_text().splitlines()]
    assert all(len(line) == 3 + 1856 // 4 for line in lines)
    times = [line[0] for line in lines]
    assert all(b - a >= 20 for a, b in itertools.pairwise(times)) and len(lines) >= 4
    assert all(line[1] == 0 and line[2] == 4096 for line in lines)
    # 2000 IOPS: about 40 reads per 20 ms window; every read is in at most one line.
    logged = sum(sum(line[3:]) for line in lines)
    assert logged <= report["jobs"][0]["read"]["total_ios"]
    assert all(38 <= sum(line[3:]) <= 42 for line in lines[1:])


def test_log_hist_coarseness_is_checked(run_main: RunMain) -> None:
    assert_one_line_error(
        run_main("fio", "--name=h", "--write_hist_log=h", "--log_hist_coarseness=7", "--size=1m"), "allowed 0 to 6"
    )


@pytest.mark.parametrize(
    "args",
    [["--eta=never"], ["--eta=always"], ["--eta-newline=1"], ["--status-interval=1s"], ["--eta-interval=500ms"]],
)
def test_eta_options_are_accepted(run_main: RunMain, args: list[str]) -> None:
    out = run_ok(run_main, *args, "--output-format=json", *MIXED)
    assert json.loads(out)["jobs"][0]["jobname"] == "mix"


def test_eta_always_draws_the_fill_and_run_bars_on_stderr(run_main: RunMain) -> None:
    outcome = run_main("fio", "--eta=always", "--fill=seq:1", "--output-format=json", *MIXED)
    assert outcome.status == 0, outcome
    assert "seq fill" in outcome.err and "simulating" in outcome.err and "ETA" in outcome.err
    assert json.loads(outcome.out)["jobs"][0]["jobname"] == "mix"  # stdout stays clean
    quiet = run_main("fio", "--eta=never", "--fill=seq:1", "--output-format=json", *MIXED)
    assert "simulating" not in quiet.err
