"""``ssdtwin precondition``: fill a drive untimed, save it, and start later runs from it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import ssdtwin
from click.testing import CliRunner
from ssdtwin.cli import cli
from ssdtwin.cli.precondition import parse_fill

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]

SMALL_CAPACITY = 72 << 20


def test_seq_fill_of_a_percentage(small_profile_file: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["precondition", "--profile", str(small_profile_file), "--fill", "seq:50", "--save", "half.state"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == "half.state: small, seq fill of 50% (0.0 GiB written, 0 GC jobs)\n"
    dev = ssdtwin.Device.load(tmp_path / "half.state")
    c = dev.counters()
    assert c["host_write_bytes"] == SMALL_CAPACITY // 2
    assert c["gc_jobs"] == 0
    assert dev.now_s == 0.0


def test_random_fill_overwrites_twice_and_reaches_gc(
    run_main: RunMain, small_profile_file: Path, tmp_path: Path
) -> None:
    outcome = run_main("precondition", "--profile", small_profile_file, "--fill", "random", "--save", "r.state")
    assert outcome.status == 0, outcome
    c = ssdtwin.Device.load(tmp_path / "r.state").counters()
    # The namespace once in order, then twice at random.
    assert c["host_write_bytes"] == pytest.approx(3 * SMALL_CAPACITY, rel=0.01)
    assert c["gc_jobs"] > 50
    assert outcome.out == f"r.state: small, random fill of 100% (0.2 GiB written, {c['gc_jobs']} GC jobs)\n"


def test_the_seed_of_a_random_fill(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
        args = ["--profile", small_profile_file, "--fill", "random:60", "--seed", seed, "--save", f"{name}.state"]
        assert run_main("precondition", *args).status == 0
    a, b, c = ((tmp_path / f"{n}.state").read_bytes() for n in "abc")
    assert a == b
    assert a != c


def test_a_state_is_reused_by_fio(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    assert (
        run_main("precondition", "--profile", small_profile_file, "--fill", "seq", "--save", "full.state").status == 0
    )
    read = ["--name=r", "--rw=randread", "--bs=4k", "--ioengine=libaio", "--size=64m", "--runtime=2ms"]
    outcome = run_main("fio", "--state", "full.state", "--output-format=json", *read)
    assert outcome.status == 0, outcome
    job = json.loads(outcome.out)["jobs"][0]
    assert job["ssdtwin"]["profile"] == "small"
    assert job["ssdtwin"]["unmapped_units_read"] == 0
    assert job["ssdtwin"]["nand_host_read_bytes"] > 0
    # Twice from the same state: the same drive, the same results.
    again = json.loads(run_main("fio", "--state", "full.state", "--output-format=json", *read).out)["jobs"][0]
    assert again == job


def test_a_state_can_be_preconditioned_further(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    assert (
        run_main("precondition", "--profile", small_profile_file, "--fill", "seq:25", "--save", "a.state").status == 0
    )
    outcome = run_main("precondition", "--state", "a.state", "--fill", "seq:50", "--save", "b.state")
    assert outcome.status == 0, outcome
    dev = ssdtwin.Device.load(tmp_path / "b.state")
    assert dev.counters()["host_write_bytes"] == SMALL_CAPACITY // 4 + SMALL_CAPACITY // 2


def test_an_existing_state_file_is_refused(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    state = tmp_path / "s.state"
    state.write_text("mine")
    outcome = run_main("precondition", "--profile", small_profile_file, "--fill", "seq", "--save", state)
    assert_one_line_error(outcome)
    assert outcome.err == f"ssdtwin: {state} exists; add --force to replace it (see 'ssdtwin precondition --help')\n"
    assert state.read_text() == "mine"
    outcome = run_main("precondition", "--profile", small_profile_file, "--fill", "seq", "--save", state, "--force")
    assert outcome.status == 0
    assert ssdtwin.Device.load(state).counters()["host_write_bytes"] == SMALL_CAPACITY


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fill", "seq"], "ssdtwin: Missing option '--save'. (see 'ssdtwin precondition --help')"),
        (["--save", "x.state"], "ssdtwin: Missing option '--fill'. (see 'ssdtwin precondition --help')"),
        (
            ["--fill", "diagonal", "--save", "x.state"],
            "ssdtwin: Invalid value for --fill: 'diagonal': allowed seq, random, steady, seq:PERCENT, random:PERCENT, "
            "steady:PERCENT (see "
            "'ssdtwin precondition --help')",
        ),
        (
            ["--fill", "seq:lots", "--save", "x.state"],
            "ssdtwin: Invalid value for --fill: 'seq:lots': PERCENT must be a number from 0 to 100 (see 'ssdtwin "
            "precondition --help')",
        ),
        (
            ["--fill", "seq", "--save", "x.state", "--profile", "nope"],
            "ssdtwin: profile 'nope' is neither a shipped profile "
            f"({', '.join(ssdtwin.profiles())}) nor a readable TOML file",
        ),
    ],
)
def test_errors(run_main: RunMain, args: list[str], message: str, tmp_path: Path) -> None:
    outcome = run_main("precondition", *args)
    assert_one_line_error(outcome)
    assert outcome.err == message + "\n"
    assert not (tmp_path / "x.state").exists()


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("seq", ("seq", 100.0)), ("random", ("random", 100.0)), ("seq:2.5", ("seq", 2.5)), ("random:0", ("random", 0.0))],
)
def test_parse_fill(text: str, parsed: tuple[str, float]) -> None:
    assert parse_fill(text) == parsed


def test_steady_fill_writes_in_order_twice_then_at_random(
    run_main: RunMain, small_profile_file: Path, tmp_path: Path
) -> None:
    outcome = run_main("precondition", "--profile", small_profile_file, "--fill", "steady", "--save", "s.state")
    assert outcome.status == 0, outcome
    c = ssdtwin.Device.load(tmp_path / "s.state").counters()
    # SNIA's two sequential passes (workload-independent), then two random ones.
    assert c["host_write_bytes"] == pytest.approx(4 * SMALL_CAPACITY, rel=0.01)
    assert c["gc_jobs"] > 50


def test_exact_places_every_write_and_lands_near_the_sampled_state(
    run_main: RunMain, small_profile_file: Path, tmp_path: Path
) -> None:
    for name, extra in (("sampled", ()), ("exact", ("--exact",))):
        args = ("--profile", small_profile_file, "--fill", "random", "--save", f"{name}.state", *extra)
        assert run_main("precondition", *args).status == 0
    sampled, exact = (ssdtwin.Device.load(tmp_path / f"{n}.state").counters() for n in ("sampled", "exact"))
    assert sampled["host_write_bytes"] == exact["host_write_bytes"]
    # The same process, sampled or placed write by write, but for the free space GC keeps
    # while writing (docs/model.md, Bulk fill): write by write, the background threshold (6
    # superblocks); sampled, as timed GC under sustained writes, its reserve less the one
    # host writes borrow (2). Four of 64 superblocks more for data lower write amplification.
    wa = {n: c["nand_write_bytes"] / c["host_write_bytes"] for n, c in (("sampled", sampled), ("exact", exact))}
    assert 0.8 * wa["exact"] < wa["sampled"] < wa["exact"], wa
