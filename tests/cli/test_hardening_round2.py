"""Bad input the second hardening round found getting through (issue: hardening, round 2):
seeds beyond fio's 64 bits, numbers that are not numbers, fio time options that are not
times, override values with a second line, two runs saving to one new name, and a full
disk. Each is one line on stderr naming what is wrong, exit status 2, nothing lost."""

from __future__ import annotations

import errno
import gzip
import json
import os
import resource
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import click
import pytest
import ssdtwin
from ssdtwin.cli.common import write_state
from ssdtwin.device import RawToml
from ssdtwin.files import place_text
from ssdtwin.studies.qd_sweep import qd_sweep

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]
JOB = ["--name=j", "--rw=read", "--size=1m", "--runtime=1ms"]


@pytest.mark.parametrize("seed", ["-1", str(2**64), str(2**70)])
def test_a_seed_is_an_unsigned_64_bit_integer(run_main: RunMain, seed: str) -> None:
    # A traceback from the conversion to the core's u64 before.
    assert_one_line_error(run_main("fio", "--seed", seed, *JOB), "'--seed'", "0<=x<=18446744073709551615")
    assert_one_line_error(run_main("precondition", "--seed", seed, "--save", "x.state"), "'--seed'")


@pytest.mark.parametrize(
    "args",
    [
        ["study", "qd-sweep", "--seconds", "nan"],
        ["study", "qd-sweep", "--seconds", "inf"],
        ["study", "hmb", "--seconds", "nan"],
        ["trace", "convert", "--time-scale", "inf", "in.csv", "out.iolog"],
        ["trace", "convert", "--time-scale", "nan", "in.csv", "out.iolog"],
        ["serve", "--time-scale", "nan", "--socket", "s.sock"],
    ],
)
def test_numbers_that_are_not_finite_are_refused_by_name(run_main: RunMain, args: list[str]) -> None:
    option = args[-4] if args[0] == "trace" else args[2] if args[0] == "study" else "--time-scale"
    assert_one_line_error(run_main(*args), f"'{option}'", "not a finite number")


@pytest.mark.parametrize("option", ["--eta-interval", "--eta-newline", "--status-interval"])
def test_fio_time_options_take_only_times(run_main: RunMain, option: str) -> None:
    assert_one_line_error(run_main("fio", f"{option}=abc", *JOB), f"'{option}'", "'abc'", "e.g. 500ms")
    assert run_main("fio", f"{option}=2s", *JOB).status == 0


def test_an_override_value_is_one_line(run_main: RunMain) -> None:
    # TOML read the second line as another key, and the override silently lost it.
    assert_one_line_error(run_main("fio", "--set", "nand.die_cv=0.01\nnand.channels=1", *JOB), "a value is one line")
    with pytest.raises(ssdtwin.ProfileError, match="a value is one line"):
        ssdtwin.Device("generic-tlc-1tb", host="none", overrides={"controller.cmd_cv": RawToml("0\nx = 1")})


def test_a_state_another_run_saved_meanwhile_is_not_replaced_and_ours_is_kept(
    small_device: ssdtwin.Device, tmp_path: Path
) -> None:
    # Two runs saving to one new name both passed the check for an existing file before
    # either saved, and the second replaced the first (6 of 6 tries). Now the state is placed
    # exclusively: here the other run's file appears after the check, before the save.
    save = tmp_path / "x.state"
    save.write_text("the other run's state\n")
    small_device.fill("seq", 10)
    with pytest.raises(click.UsageError, match="written by another run meanwhile") as refused:
        write_state(small_device, save, force=False, option="--save")
    assert save.read_text() == "the other run's state\n"
    (kept,) = [p for p in tmp_path.iterdir() if p != save]
    assert str(kept) in refused.value.format_message() and kept.name.startswith("x.state.")
    assert ssdtwin.Device.load(kept).counters()["host_write_bytes"] > 0
    write_state(small_device, save, force=True)
    assert ssdtwin.Device.load(save).counters()["host_write_bytes"] > 0


def test_a_full_disk_leaves_no_file_and_names_the_one_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "table.csv"
    with pytest.raises(OSError, match="No space left") as failed:
        place_text(target, "a,b\n1,2\n")
    assert failed.value.filename == str(target)
    assert list(tmp_path.iterdir()) == [], "neither the file nor its temporary copy is left"
    target.write_text("kept\n")
    with pytest.raises(OSError):
        place_text(target, "new\n")
    assert target.read_text() == "kept\n", "a failed write leaves the old file whole"


def test_placing_without_replacing_refuses_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "state"
    place_text(target, "first\n", replace=False)
    with pytest.raises(FileExistsError) as refused:
        place_text(target, "second\n", replace=False)
    assert refused.value.filename == str(target)
    assert target.read_text() == "first\n"
    assert [p.name for p in tmp_path.iterdir()] == ["state"]


def test_an_hmb_drive_s_bad_job_is_one_line(run_main: RunMain) -> None:
    # The driver's "allocated … host memory buffer" line came first before.
    assert_one_line_error(run_main("fio", "--profile", "p32a80", "--name=j", "--rw=bogus"), "rw=bogus: allowed read")
    good = run_main("fio", "--profile", "p32a80", "--fill", "seq:1", "--name=j", "--rw=read", "--size=1m")
    assert good.status == 0 and "allocated 128 MiB host memory buffer" in good.err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="no /proc here")
@pytest.mark.parametrize(
    "args",
    [
        ["fio", "--output", "/proc/self/report.json", *JOB],
        ["serve", "--stats", "/proc/self/stats.json", "--socket", "s.sock"],
        ["probe", "--twin", "generic-tlc-1tb", "--out", "/proc/self/probed.toml"],
        ["precondition", "--fill", "seq:1", "--save", "/proc/self/x.state"],
    ],
)
def test_an_output_place_that_takes_no_file_is_refused_before_the_work(run_main: RunMain, args: list[str]) -> None:
    # These failed only after the simulation before (/proc refuses new files, even root's).
    assert_one_line_error(run_main(*args), "cannot write in /proc/self")


MSR_LINE = "128166372003061629,hm,0,Read,383934464,4096,7127\n"


@pytest.mark.parametrize(
    ("timestamp", "fragment"),
    [("nan", "'nan' is not a number"), ("inf", "'inf' is not a number"), (str(2**70), "is beyond 9223372036854775807")],
)
def test_trace_numbers_must_be_finite_and_fit(run_main: RunMain, tmp_path: Path, timestamp: str, fragment: str) -> None:
    (tmp_path / "t.csv").write_text(MSR_LINE + MSR_LINE.replace("128166372003061629", timestamp))
    outcome = run_main("trace", "convert", "--format", "msr", "--out", "t.iolog", "t.csv")
    assert_one_line_error(outcome, "t.csv:2: Timestamp", fragment)


def test_a_cut_or_false_gzip_trace_is_named(run_main: RunMain, tmp_path: Path) -> None:
    whole = gzip.compress(MSR_LINE.encode() * 2000)
    (tmp_path / "cut.csv.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "false.csv.gz").write_bytes(b"\x1f\x8b" + b"x" * 100)
    for name in ("cut.csv.gz", "false.csv.gz"):
        # A traceback (EOFError) or an unnamed one-liner before.
        outcome = run_main("trace", "convert", "--format", "msr", "--out", "t.iolog", name)
        assert_one_line_error(outcome, f"{name}: not a whole gzip file")
    assert not (tmp_path / "t.iolog").exists()


def test_trace_convert_reads_only_regular_files(run_main: RunMain, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # Each blocked, or read /dev/zero with memory growing without bound, before.
    for source in (fifo, Path("/dev/zero")):
        if os.path.lexists(source):
            outcome = run_main("trace", "convert", "--format", "msr", "--out", "t.iolog", source)
            assert_one_line_error(outcome, f"{source} is not a regular file")


def test_io_depth_shares_never_pass_100_percent(run_main: RunMain) -> None:
    # An I/O issued but not completed by the deadline was counted among the depths and not
    # in the total: "1=100.7%" before.
    outcome = run_main("fio", "--output-format=json", *JOB)
    assert outcome.status == 0, outcome
    levels = json.loads(outcome.out)["jobs"][0]["iodepth_level"]
    assert max(levels.values()) <= 100.0 and sum(levels.values()) == pytest.approx(100.0), levels


def test_a_device_used_from_two_threads_at_once_says_what_is_allowed(small_device: ssdtwin.Device) -> None:
    # pyo3's "Already borrowed" before.
    started, tried = threading.Event(), threading.Event()
    seen: list[BaseException] = []

    def progress(*_: int | None) -> None:
        started.set()
        tried.wait(timeout=30)

    def other() -> None:
        started.wait(timeout=30)
        try:
            small_device.counters()
        except BaseException as e:
            seen.append(e)
        tried.set()

    thread = threading.Thread(target=other)
    thread.start()
    job = {"name": "w", "rw": "randwrite", "size": "16m", "runtime": "2s", "time_based": True}
    small_device.run(job, progress=progress)
    thread.join(timeout=30)
    assert started.is_set(), "the run reported progress"
    assert len(seen) == 1 and isinstance(seen[0], ssdtwin.DeviceError), seen
    assert "one call at a time" in str(seen[0]) and "Device.copy()" in str(seen[0])
    assert small_device.counters()["host_write_bytes"] > 0, "usable again once the run returns"


def test_study_depths_are_checked_before_the_drive_is_built(run_main: RunMain) -> None:
    assert_one_line_error(run_main("study", "qd-sweep", "--depths", "0,-1"), "--depths", "0: allowed 1..65536")
    with pytest.raises(ssdtwin.JobError, match=r"iodepth 0: allowed 1\.\.65536"):
        qd_sweep(depths=[0], overrides={"no.such": 1})  # refused before the profile is even read


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_AS"), reason="no address-space limit on this system")
def test_a_drive_too_large_for_the_address_space_is_refused_up_front(tmp_path: Path) -> None:
    # A panic ("cannot map … bytes of memory for the model") under ulimit -v 4 GiB before: the
    # model's maps were met by a failed mapping midway through building the drive.
    def limit_address_space() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    argv = [sys.executable, "-m", "ssdtwin", "fio", "--profile", "micron-9200max", *JOB]
    run = subprocess.run(
        argv, capture_output=True, text=True, cwd=tmp_path, preexec_fn=limit_address_space, timeout=120
    )
    assert run.returncode == 2, run
    assert run.stderr.count("\n") == 1 and "GiB of memory for its maps" in run.stderr, run.stderr
    assert "address-space limit" in run.stderr, run.stderr


def test_fio_options_once_refused_without_a_reason_are_taken_or_explained(run_main: RunMain) -> None:
    for option in (
        "--allrandrepeat=1",
        "--ioscheduler=mq-deadline",
        "--softrandommap=1",
        "--unit_base=1",
        "--unified_rw_reporting=1",
    ):
        assert run_main("fio", *JOB, option).status == 0, option
    assert_one_line_error(run_main("fio", *JOB, "--significant_figures=11"), "significant_figures=11: allowed 1..=10")
    assert_one_line_error(run_main("fio", *JOB, "--ioengine=cpp_null"), "C++ example engine")


def test_significant_figures_set_the_normal_report_s_figures(run_main: RunMain) -> None:
    # fio's num2str with the job's figures: 8,827 IOPS and 34.5 MiB/s print as "9k" and
    # "34MiB/s" with 2, as "8827" and "34.5MiB/s" with fio's default 4.
    job = ["--profile", "p32a80", "--fill", "seq:1", "--name=j", "--rw=read", "--size=1m"]
    reports = {figures: run_main("fio", *job, f"--significant_figures={figures}").out for figures in (2, 4)}
    assert "IOPS=9k, BW=34MiB/s" in reports[2] and "READ: bw=34MiB/s" in reports[2], reports[2]
    assert "IOPS=8827, BW=34.5MiB/s" in reports[4] and "READ: bw=34.5MiB/s" in reports[4], reports[4]
    assert reports[4] == run_main("fio", *job).out, "4 is fio's default"
