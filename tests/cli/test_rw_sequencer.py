"""fio's offset modifiers (``rw=read:-8k``, ``rw=randread:4``) and ``rw_sequencer``: the
offsets each job issues, read from its latency log with ``log_offset=1``, are real fio's
(sequential ones exactly; random ones in structure, since fio's random numbers are its own)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from ..helpers import Outcome, assert_one_line_error
from . import offsets

RunMain = Callable[..., Outcome]
KIB = 1024
COMMON = ["--bs=4k", "--size=64k"]


def our_offsets(run_main: RunMain, tmp_path: Path, *args: str) -> list[int]:
    return offsets.our_offsets(run_main, tmp_path, *args, *COMMON)


def fio_offsets(tmp_path: Path, *args: str) -> list[int]:
    return offsets.fio_offsets(tmp_path, *args, *COMMON)


def test_backwards_reads_walk_down_from_the_end(run_main: RunMain, tmp_path: Path) -> None:
    # fio's examples/backwards-read.fio: the first read at 0, then from 64k - 8k downwards.
    expected = [0, *range(56 * KIB, 0, -4 * KIB), 0]
    assert our_offsets(run_main, tmp_path, "--rw=read:-8k") == expected


def test_a_positive_modifier_skips_and_wraps(run_main: RunMain, tmp_path: Path) -> None:
    assert our_offsets(run_main, tmp_path, "--rw=write:4k") == [*range(0, 64 * KIB, 8 * KIB)] * 2


@pytest.mark.slow
@pytest.mark.skipif(offsets.FIO is None, reason="real fio is not installed (apt-get install fio)")
@pytest.mark.parametrize("rw", ["read:-8k", "write:4k", "read:-4k", "read:12k"])
def test_sequential_modifiers_issue_real_fio_s_offsets(run_main: RunMain, tmp_path: Path, rw: str) -> None:
    assert our_offsets(run_main, tmp_path, f"--rw={rw}") == fio_offsets(tmp_path, f"--rw={rw}")


@pytest.mark.parametrize("sequencer", ["identical", "sequential"])
def test_random_draws_every_nth_io(run_main: RunMain, tmp_path: Path, sequencer: str) -> None:
    issued = our_offsets(run_main, tmp_path, "--rw=randread:4", f"--rw_sequencer={sequencer}")
    assert len(issued) == 16
    for start in range(0, 16, 4):
        run = issued[start : start + 4]
        for a, b in itertools.pairwise(run):
            if sequencer == "identical":
                assert b == a, issued
            else:
                # The next block, unless that would pass the end: then fio draws anew.
                assert b == a + 4 * KIB or a + 8 * KIB > 64 * KIB, issued
    # Each group starts with a draw: not all groups start where the previous one ended.
    assert any(issued[s] != issued[s - 1] + 4 * KIB for s in (4, 8, 12)), issued


def test_modifier_errors(run_main: RunMain) -> None:
    assert_one_line_error(
        run_main("fio", "--name=b", "--rw=randread:0"), "a random pattern's modifier counts I/Os per random offset"
    )
    assert_one_line_error(run_main("fio", "--name=b", "--rw=read:-x"), "a sequential pattern's modifier is a size")
    assert_one_line_error(run_main("fio", "--name=b", "--rw_sequencer=random"), "allowed sequential, identical")
