"""Inputs that used to hang, raise a traceback or destroy data (issue: hardening): non-UTF-8
arguments, FIFOs, devices and endless files as inputs, devices as outputs, and saves that a
failure must not leave half-written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
import ssdtwin
from ssdtwin.testing import small_overrides

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]
JOB = ["--name=j", "--rw=read", "--size=1m"]


def test_non_utf8_arguments_are_one_line_errors(run_main: RunMain) -> None:
    bad = b"--rw=\xff".decode("utf-8", "surrogateescape")
    assert_one_line_error(run_main("fio", "--name=j", bad), "argument 3 (b'--rw=\\xff') is not valid UTF-8")
    assert_one_line_error(run_main("fio", "--profile", b"\xfe".decode("utf-8", "surrogateescape"), *JOB), "argument 3")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def test_a_fifo_is_never_read(run_main: RunMain, fifo: Path) -> None:
    # Each of these blocked for ever before.
    assert_one_line_error(run_main("fio", "--state", fifo, *JOB), f"{fifo}: not a regular file")
    assert_one_line_error(run_main("fio", fifo), "not a regular file (a FIFO, socket or device)")
    assert_one_line_error(run_main("fio", "--profile", fifo, *JOB), f"profile '{fifo}' cannot be read: not a regular")
    assert_one_line_error(run_main("fio", "--host", fifo, *JOB), f"profile '{fifo}' cannot be read")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_endless_inputs_are_refused_before_they_are_read(run_main: RunMain, tmp_path: Path) -> None:
    assert_one_line_error(run_main("fio", "/dev/zero"), "cannot read /dev/zero: not a regular file")
    assert_one_line_error(run_main("fio", "--profile", "/dev/urandom", *JOB), "not a regular file")
    (tmp_path / "inc.fio").write_text("[j]\nsize=1m\ninclude /dev/zero\n")
    assert_one_line_error(run_main("fio", "inc.fio"), "/dev/zero")
    big = tmp_path / "big.fio"
    with open(big, "w") as f:
        f.truncate(17 << 20)  # sparse: 17 MiB of nothing
    assert_one_line_error(run_main("fio", big), "beyond the 16777216-byte limit")


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null here")
@pytest.mark.parametrize(
    "args",
    [
        ["fio", "--output", "/dev/null", *JOB],
        ["fio", "--save-state", "/dev/null", "--force", *JOB],
        ["precondition", "--fill", "seq:1", "--save", "/dev/null", "--force"],
        ["perftest", "-n", "1", "-o", "read", "-s", "4096", "-t", "1", "--save-state", "/dev/null", "--force"],
        ["nvme", "format", "--state", "/dev/null"],
    ],
)
def test_nothing_is_written_onto_a_device(run_main: RunMain, args: list[str]) -> None:
    assert_one_line_error(run_main(*args), "'/dev/null' is not a regular file (a device, FIFO or socket)")


def test_the_core_refuses_to_save_onto_a_device(tmp_path: Path) -> None:
    dev = ssdtwin.Device(overrides=small_overrides())
    with pytest.raises(ssdtwin.StateError, match="not a regular file"):
        dev.save("/dev/null", overwrite=True)


def test_a_failed_save_keeps_the_earlier_state(tmp_path: Path) -> None:
    import resource
    import signal

    dev = ssdtwin.Device(overrides=small_overrides())
    dev.fill("random", 80, seed=3)
    state = tmp_path / "kept.state"
    dev.save(state)
    before = state.read_bytes()
    assert len(before) > 8192
    dev.fill("seq", 10)
    # A save that cannot finish (here a file-size limit stands in for a full disk: writing
    # past 4 KiB fails) fails without touching the state already there.
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))
    try:
        with pytest.raises(ssdtwin.StateError, match=r"kept\.state"):
            dev.save(state, overwrite=True)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)
    assert state.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["kept.state"]


def test_the_report_file_is_replaced_whole(run_main: RunMain, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("old")
    outcome = run_main("fio", "--output-format=json", "--output", out, *JOB)
    assert outcome.status == 0, outcome
    assert out.read_text().startswith("{") and out.read_text().endswith("}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]  # no temporary left


def test_output_places_are_checked_before_simulating(run_main: RunMain, tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    outcome = run_main("study", "qd-sweep", "--depths", "1", "--rw", "randread", "--out", "afile/sub")
    assert_one_line_error(outcome, f"--out afile/sub: {tmp_path / 'afile'} is not a directory")
    assert_one_line_error(run_main("fio", "--output", "nodir/x.json", *JOB), "its directory")
    assert list(tmp_path.iterdir()) == [tmp_path / "afile"]  # nothing simulated, nothing written


def test_os_errors_are_one_line(run_main: RunMain, tmp_path: Path) -> None:
    # A log directory under a file: the OS error names the file, without a traceback.
    (tmp_path / "afile").write_text("x")
    outcome = run_main("fio", "--name=j", "--size=1m", "--write_bw_log=afile/x")
    assert_one_line_error(outcome, "afile")


def test_concurrent_saves_never_corrupt_a_state_and_only_one_creates_it(tmp_path: Path) -> None:
    import threading

    devices = [ssdtwin.Device(overrides=small_overrides()) for _ in range(4)]
    for i, d in enumerate(devices):
        d.fill("seq", 10 * (i + 1))
    shared = tmp_path / "shared.state"
    outcomes: list[str] = []

    def save(d: ssdtwin.Device, overwrite: bool) -> None:
        try:
            d.save(shared, overwrite=overwrite)
            outcomes.append("saved")
        except FileExistsError:
            outcomes.append("exists")

    threads = [threading.Thread(target=save, args=(d, False)) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Without overwrite, exactly one save creates the file; the others are told it exists.
    assert sorted(outcomes) == ["exists", "exists", "exists", "saved"]
    loaded = ssdtwin.Device.load(shared)
    assert loaded.counters() in [d.counters() for d in devices]
    # With overwrite, every save succeeds and the file is one of them, whole.
    threads = [threading.Thread(target=save, args=(d, True)) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ssdtwin.Device.load(shared).counters() in [d.counters() for d in devices]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.state"]
