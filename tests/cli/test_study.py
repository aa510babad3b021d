"""``ssdtwin study qd-sweep``: writes the table as CSV and JSON records and the figure as PNG,
prints the records with ``--json``, and refuses to replace outputs without ``--force``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
import ssdtwin
from click.testing import CliRunner
from ssdtwin.cli import cli
from ssdtwin.studies import REGISTRY

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]

COLUMNS = ["profile", "rw", "iodepth", "iops", "bw_mb_per_s", "direction", "mean_lat_us", "p99_lat_us", "host"]


def tiny_sweep(profile: Path, *extra: str) -> list[str]:
    """A sweep of a few 10 ms points on the tiny drive, over its first 50 MiB."""
    return ["study", "qd-sweep", "--profile", str(profile), "--seconds", "0.01", "--span-gib", "0.05", *extra]


def test_writes_csv_json_and_png(small_profile_file: Path, tmp_path: Path) -> None:
    args = tiny_sweep(small_profile_file, "--rw", "randread,randwrite", "--depths", "1,4,16", "--out", "qd")
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out = tmp_path / "qd"
    paths = [out / "qd-sweep.csv", out / "qd-sweep.json", out / "qd-sweep.png"]
    assert result.stdout.splitlines()[-1] == "wrote " + ", ".join(str(Path("qd") / p.name) for p in paths)
    table = pd.read_csv(paths[0])
    assert list(table.columns) == COLUMNS
    assert list(zip(table.rw, table.iodepth, strict=True)) == [
        ("randread", 1),
        ("randread", 4),
        ("randread", 16),
        ("randwrite", 1),
        ("randwrite", 4),
        ("randwrite", 16),
    ]
    records = json.loads(paths[1].read_text())
    assert pd.DataFrame(records)[COLUMNS].round(6).equals(table.round(6))
    assert paths[2].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert paths[2].stat().st_size > 10_000
    # The summary printed is the table.
    assert result.stdout.splitlines()[0].split() == COLUMNS[1:]
    assert set(table.profile) == {str(small_profile_file)}

    reads = table[table.rw == "randread"]
    # More reads in flight keep more dies busy: IOPS rises with depth, and so does latency.
    assert reads.iops.is_monotonic_increasing and reads.iops.iloc[-1] > 3 * reads.iops.iloc[0]
    assert reads.mean_lat_us.is_monotonic_increasing
    # At QD1 a read costs the drive's stages (57.98 us) and the host's path on Linux 6.1:
    # submission 1.5 us, interrupt, wakeup and reap 2.01 us. IOPS is its inverse. Its two
    # calls are each held up 8 us with chance 1 % (and 0.1 % of wakeups): the mean moves by
    # 0.17 us, give or take 0.13 us (the sampling error of 160 reads' waits).
    assert reads.mean_lat_us.iloc[0] == pytest.approx(57.983 + 1.5 + 2.01 + 0.17, abs=0.4)
    assert reads.iops.iloc[0] == pytest.approx(1e6 / (61.493 + 0.17), rel=0.01)
    assert list(table.bw_mb_per_s) == pytest.approx(list(table.iops * 4096 / 1e6))
    assert (table.p99_lat_us >= table.mean_lat_us * 0.99).all()
    assert set(table.direction) == {"read", "write"}


def test_several_drives_and_overrides(small_profile_file: Path, tmp_path: Path) -> None:
    other = tmp_path / "fewer-channels.toml"
    other.write_text(small_profile_file.read_text())
    args = tiny_sweep(
        small_profile_file, "--profile", str(other), "--rw", "randread", "--depths", "1,64", "--out", "qd"
    )
    args += ["--set", "controller.read_cmd_ns=20000"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "qd" / "qd-sweep.csv")
    assert list(table.profile) == [str(small_profile_file)] * 2 + [str(other)] * 2
    # One figure per drive, and each drive's report under its name.
    assert (tmp_path / "qd" / f"qd-sweep-{small_profile_file.stem}.png").exists()
    assert (tmp_path / "qd" / "qd-sweep-fewer-channels.png").exists()
    assert f"== {other} ==" in result.stdout
    # --set reached every drive: 20 us of firmware per read adds 20 us at QD1 to both (the same design).
    base = CliRunner().invoke(cli, tiny_sweep(small_profile_file, "--rw", "randread", "--depths", "1", "--json"))
    qd1 = json.loads(base.stdout)[0]["mean_lat_us"]
    for p in (small_profile_file, other):
        row = table[(table.profile == str(p)) & (table.iodepth == 1)].iloc[0]
        assert row.mean_lat_us - qd1 == pytest.approx(20.0 - _read_cmd_us(small_profile_file), abs=0.05)


def _read_cmd_us(profile: Path) -> float:
    import tomllib

    return float(tomllib.loads(profile.read_text())["controller"]["read_cmd_ns"]) / 1e3


def test_json_prints_the_records(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    outcome = run_main(*tiny_sweep(small_profile_file, "--rw", "randread", "--depths", "1,32", "--json"))
    assert outcome.status == 0, outcome
    records = json.loads(outcome.out)
    assert [(r["rw"], r["iodepth"]) for r in records] == [("randread", 1), ("randread", 32)]
    assert list(records[0]) == COLUMNS
    assert records[1]["iops"] > records[0]["iops"]
    # The files are written too, to the default place.
    assert json.loads((tmp_path / "out" / "qd-sweep" / "qd-sweep.json").read_text()) == records


def test_existing_outputs_are_refused_without_force(
    run_main: RunMain, small_profile_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out" / "qd-sweep"
    out.mkdir(parents=True)
    (out / "qd-sweep.png").write_text("not mine to replace")
    args = tiny_sweep(small_profile_file, "--rw", "randread", "--depths", "1")
    outcome = run_main(*args)
    assert_one_line_error(outcome)
    assert outcome.err == (
        f"ssdtwin: {Path('out') / 'qd-sweep' / 'qd-sweep.png'} exists; add --force to replace the study's outputs "
        "(see 'ssdtwin study qd-sweep --help')\n"
    )
    assert not (out / "qd-sweep.csv").exists(), "refused before simulating or writing anything"
    outcome = run_main(*args, "--force")
    assert outcome.status == 0, outcome
    assert (out / "qd-sweep.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--depths", "1,x"],
            "ssdtwin: Invalid value for --depths: '1,x': expected comma-separated integers (see 'ssdtwin study "
            "qd-sweep --help')",
        ),
        (
            ["--depths", ","],
            "ssdtwin: Invalid value for --depths: ',': expected at least one value (see 'ssdtwin study qd-sweep "
            "--help')",
        ),
        (
            ["--rw", "randread,sideways"],
            "ssdtwin: Invalid value for --rw: 'randread,sideways': allowed randread, randwrite, randrw, read, write "
            "(comma-separated) (see 'ssdtwin study qd-sweep --help')",
        ),
        (
            ["--profile", "nope", "--depths", "1"],
            "ssdtwin: profile 'nope' is neither a shipped profile "
            f"({', '.join(ssdtwin.profiles())}) nor a readable TOML file",
        ),
    ],
)
def test_errors(run_main: RunMain, args: list[str], message: str, tmp_path: Path) -> None:
    outcome = run_main("study", "qd-sweep", *args)
    assert_one_line_error(outcome)
    assert outcome.err == message + "\n"
    assert not (tmp_path / "out").exists()


def test_a_span_beyond_the_drive_is_a_job_error(run_main: RunMain, small_profile_file: Path) -> None:
    outcome = run_main("study", "qd-sweep", "--profile", small_profile_file, "--depths", "1", "--rw", "randread")
    assert_one_line_error(outcome, "ssdtwin: job 'randread-qd1': region of clone 0 ends at byte 17179869184")


def test_study_help_lists_every_study(run_main: RunMain) -> None:
    outcome = run_main("study", "--help")
    assert outcome.status == 0
    listed = outcome.out.split("Commands:")[1].split()
    for name in ("cdm", "hmb", "lbaf", "qd-sweep", "qlc-tr", "read-after-write", "slc-write"):
        assert name in listed
    assert re.search(r"qd-sweep +IOPS and latency against queue depth", outcome.out)


@pytest.mark.parametrize("name", [s.name for s in REGISTRY] + ["zfs-special"])
def test_a_studys_help_shows_no_empty_range_and_says_where_parts_run(run_main: RunMain, name: str) -> None:
    outcome = run_main("study", name, "--help")
    assert outcome.status == 0, outcome
    text = " ".join(outcome.out.split())
    assert "None" not in text
    assert "--executor TEXT Where" in text and "[default: auto]" in text


def test_an_unknown_executor_is_one_line_naming_every_choice(run_main: RunMain, tmp_path: Path) -> None:
    outcome = run_main("study", "slc-write", "--executor", "cloud", "--out", tmp_path)
    assert_one_line_error(outcome, "executor 'cloud': allowed auto, serial, local[:N], dask-local[:N] or dask://")
