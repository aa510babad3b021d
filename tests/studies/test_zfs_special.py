"""``ssdtwin study zfs-special`` (reference R5): the same tree and operations with and without
the special vdev, and the fill-to-spill run. Expectations are R5's statements and the
mechanism's arithmetic, not a run's numbers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from ssdtwin.studies.zfs_special import COLUMNS, zfs_special_sweep

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return zfs_special_sweep(
        files=3000,
        files_per_dir=300,
        special_small_blocks=[0, 32 << 10],
        workloads=["create", "find", "stat", "read-small", "scrub"],
        fill_files=60_000,
        fill_special_bytes=128 << 20,
    )


def test_the_table_has_the_contract_columns_first(table: pd.DataFrame) -> None:
    assert list(table.columns[: len(COLUMNS)]) == COLUMNS
    ops = table[table.workload != "fill-to-spill"]
    assert len(ops) == 3 * 5
    assert (ops[~ops.special].special_alloc_bytes == 0).all()


def test_metadata_walks_leave_the_disks_for_the_special_vdev(table: pd.DataFrame) -> None:
    ops = table[table.workload != "fill-to-spill"]
    for w in ("find", "stat"):
        rows = ops[ops.workload == w]
        disks = rows[~rows.special].iloc[0]
        with_special = rows[rows.special & (rows.special_small_blocks == 0)].iloc[0]
        # Dnodes and directories are read from SSDs instead of disks.
        assert disks.normal_read_bytes > 0 and with_special.normal_read_bytes == 0
        assert with_special.seconds * 3 < disks.seconds, (w, disks.seconds, with_special.seconds)
    # Small blocks on special take data off the disks: reading small files gets faster still.
    small = ops[ops.workload == "read-small"].set_index("special_small_blocks")
    assert small.loc[32 << 10].seconds < small[small.special].loc[0].seconds


def test_fill_to_spill_stops_small_blocks_at_the_reserve_then_spills_metadata(table: pd.DataFrame) -> None:
    fill = table[table.workload == "fill-to-spill"]
    size = fill.special_size_bytes.iloc[0]
    first_redirect = fill[fill.small_blocks_redirected_bytes > 0].iloc[0]
    assert first_redirect.special_alloc_bytes >= 0.75 * size
    before = fill[fill.txg < first_redirect.txg]
    assert (before.special_alloc_bytes < 0.75 * size + (64 << 20)).all()
    after = fill[fill.txg >= first_redirect.txg]
    assert after.special_data_bytes.nunique() == 1, "no small block joins special after the reserve line"
    spilled = fill[fill.spilled_bytes > 0]
    assert len(spilled) and spilled.iloc[0].special_alloc_bytes > 0.9 * size


def test_the_cli_writes_the_table_figure_and_json(run_main: RunMain, tmp_path: Path) -> None:
    args = ["study", "zfs-special", "--files", "1500", "--workloads", "create,find", "--fill-files", "0"]
    out = run_main(*args, "--json", "--out", tmp_path / "z")
    assert out.status == 0, out
    records = json.loads(out.out)
    assert list(records[0])[: len(COLUMNS)] == COLUMNS
    assert (tmp_path / "z" / "zfs-special.png").read_bytes()[:4] == b"\x89PNG"
    again = run_main(*args, "--out", tmp_path / "z")
    assert_one_line_error(again, "exists; add --force")
    assert_one_line_error(run_main("study", "zfs-special", "--pool", "hdd-mirror"), "has no special vdev to compare")
    assert_one_line_error(run_main("study", "zfs-special", "--workloads", "find"), "create first")


def test_an_executor_runs_the_parts_and_gives_the_same_table(run_main: RunMain, tmp_path: Path) -> None:
    args = ["study", "zfs-special", "--files", "800", "--workloads", "create,find,stat", "--fill-files", "2000"]
    args += ["--fill-special-size", "64M", "--json"]
    here = run_main(*args, "--out", tmp_path / "a")
    there = run_main(*args, "--out", tmp_path / "b", "--executor", "local:2")
    assert here.status == there.status == 0, (here, there)
    # Three configurations of three workloads, then the fill run's txgs, in that order.
    records = json.loads(there.out)
    assert [r["workload"] for r in records[:9]] == ["create", "find", "stat"] * 3
    assert {r["workload"] for r in records[9:]} == {"fill-to-spill"}
    assert records == json.loads(here.out)
