"""Progress bars: on a terminal only, never with ``ssdtwin --quiet``, and saying how much time
was simulated and how much faster than real time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click
import pytest
from ssdtwin.cli import cli, progress

from ..helpers import Outcome

RunMain = Callable[..., Outcome]


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)


def test_a_terminal_gets_a_bar_unless_quiet_or_json(terminal: None) -> None:
    with click.Context(cli, obj={"debug": False, "quiet": False}):
        assert progress.wanted(False) and not progress.wanted(True)
    with click.Context(cli, obj={"debug": False, "quiet": True}):
        assert not progress.wanted(False)
    # A subcommand's context finds the root's setting.
    with click.Context(cli, obj={"quiet": True}) as root, click.Context(click.Command("fio"), parent=root):
        assert not progress.wanted(False)


def test_the_bar_says_simulated_time_and_speed_against_real_time() -> None:
    assert progress.simulated_text(3_000_000_000, 0.25) == "3.00 s simulated, x12 real time"


def test_quiet_goes_before_the_command(run_main: RunMain) -> None:
    outcome = run_main(
        "--quiet", "fio", "--host", "none", "--name=w", "--rw=write", "--size=1m", "--output-format=terse"
    )
    assert outcome.status == 0 and outcome.err == "", outcome


def test_a_study_logs_one_line_per_finished_point_where_stderr_is_no_terminal(
    run_main: RunMain, tmp_path: Path
) -> None:
    args = ["qd-sweep", "--profile", "generic-tlc-1tb", "--depths", "1,32", "--seconds", "0.002"]
    args += ["--span-gib", "0.25", "--host", "none", "--rw", "randread,randwrite"]
    args += ["--set", "nand.blocks_per_plane=24", "--set", "identity.capacity_bytes=8589934592"]
    outcome = run_main("study", *args, "--out", tmp_path / "a")
    assert outcome.status == 0, outcome
    assert outcome.err.splitlines()[:-1] == [
        "qd-sweep: 1/4 randread QD1",
        "qd-sweep: 2/4 randread QD32",
        "qd-sweep: 3/4 randwrite QD1",
        "qd-sweep: 4/4 randwrite QD32",
    ]
    assert outcome.err.splitlines()[-1].startswith("ssdtwin: ")
    quiet = run_main("--quiet", "study", *args, "--out", tmp_path / "b")
    assert quiet.status == 0 and quiet.err == "", quiet


def test_steps_that_repeat_the_last_label_add_no_line(capsys: pytest.CaptureFixture[str]) -> None:
    with progress.steps_bar("pts", 4, enabled=False, lines=True) as advance:
        assert advance is not None
        for label in ("iops round 1", "iops steady at round 1", "iops steady at round 1", "latency round 1"):
            advance(label)
    assert capsys.readouterr().err.splitlines() == [
        "pts: 1/4 iops round 1",
        "pts: 2/4 iops steady at round 1",
        "pts: 4/4 latency round 1",
    ]


def _simulated_s(err: str) -> float:
    """The simulated seconds of a command's closing speed line."""
    last = err.splitlines()[-1]
    assert last.startswith("ssdtwin: ") and last.endswith(" real time"), err
    return float(last.split()[1])


def test_a_command_ends_with_the_simulated_time_it_ran(run_main: RunMain) -> None:
    # A time-based run of 50 ms on an empty drive behind no host: 50 ms simulated, plus
    # at most the last command's service time.
    args = ["fio", "--host", "none", "--name=w", "--rw=randwrite", "--size=64m", "--runtime=50ms", "--time_based"]
    outcome = run_main(*args, "--output-format=terse")
    assert outcome.status == 0, outcome
    assert 0.050 <= _simulated_s(outcome.err) < 0.0505
    # A command that simulates nothing says nothing.
    assert run_main("fio", "--showcmd", "--name=w", "--rw=write").err == ""


def test_parts_on_worker_processes_count_their_simulated_time(run_main: RunMain, tmp_path: Path) -> None:
    args = ["qd-sweep", "--profile", "generic-tlc-1tb", "--depths", "1,8", "--seconds", "0.01"]
    args += ["--span-gib", "0.25", "--host", "none", "--rw", "randread,randwrite"]
    args += ["--set", "nand.blocks_per_plane=24", "--set", "identity.capacity_bytes=8589934592"]
    here = run_main("study", *args, "--out", tmp_path / "a")
    there = run_main("study", *args, "--out", tmp_path / "b", "--executor", "local:2")
    assert here.status == there.status == 0, (here, there)
    # Four points of 10 ms each, whichever process ran them.
    assert _simulated_s(here.err) == _simulated_s(there.err) >= 0.04
