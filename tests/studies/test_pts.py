"""``study pts``: the specification's steady-state rule, the rounds of each test, the drive's
own steady state beside the rule, and the report's tables."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ssdtwin import profile_derived
from ssdtwin.studies.pts import (
    IOPS_BLOCKS,
    IOPS_READ_PCTS,
    LATENCY_BLOCKS,
    LATENCY_READ_PCTS,
    PERCENTILE_COLUMNS,
    check_steady,
    pts_sweep,
    report_tables,
    steady_summary,
    twin_steady_round,
)

from ..helpers import Outcome, assert_one_line_error

#: An 8 GiB namespace of the generic TLC drive (512 B sectors): seconds per test.
SMALL = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30}
SMALL_ARGS = ["--set", "nand.blocks_per_plane=24", "--set", "identity.capacity_bytes=8589934592"]


@pytest.fixture(scope="module")
def small_pts() -> pd.DataFrame:
    return pts_sweep("generic-tlc-1tb", overrides=SMALL, cell_s=0.05, max_rounds=8, host="none")


def test_the_rule_bounds_the_range_at_20_and_the_fit_line_at_10_percent_of_the_average() -> None:
    # Range 20 of average 100: on the limit; 21: over it.
    assert check_steady([90, 110, 100, 100, 100]).steady
    assert not check_steady([89.5, 110.5, 100, 100, 100]).steady
    # A steady climb of 2.5 per round moves the fit line 10 across five rounds: on the limit.
    climb = check_steady([95.0, 97.5, 100.0, 102.5, 105.0])
    assert climb.slope == pytest.approx(2.5) and climb.slope_excursion == pytest.approx(10.0) and climb.steady
    assert not check_steady([94.0, 97.0, 100.0, 103.0, 106.0]).steady
    assert not check_steady([0.0, 0.0, 0.0, 0.0, 0.0]).steady


def test_the_drive_is_steady_only_once_gc_runs_and_its_write_amplification_settles() -> None:
    rounds = pd.DataFrame(
        {
            "round": [1, 2, 3, 4, 5],
            "round_waf": [1.0, 1.0, 1.8, 2.0, 2.02],
            "round_gc": [False, False, True, True, True],
        }
    )
    assert twin_steady_round(rounds) == 4
    # No GC: whatever the write amplification, the drive is still using up its free blocks.
    assert twin_steady_round(rounds.assign(round_gc=False)) == 0
    # Settled only at the last round: nothing shows it.
    assert twin_steady_round(rounds.assign(round_waf=[1.0, 1.2, 1.4, 1.6, 2.0])) == 0


def test_each_test_runs_its_cells_in_rounds_until_the_rule_holds(small_pts: pd.DataFrame) -> None:
    t = small_pts
    for test, cells in (
        ("iops", len(IOPS_READ_PCTS) * len(IOPS_BLOCKS)),
        ("latency", len(LATENCY_READ_PCTS) * len(LATENCY_BLOCKS)),
    ):
        rows = t[t.test == test]
        rounds = int(rows["round"].max())
        assert len(rows) == rounds * cells
        steady = int(rows.pts_steady_round.iloc[0])
        # The rule stops the test at the round it first holds, no earlier than one window.
        assert steady == rounds and 5 <= rounds < 8
    iops = t[t.test == "iops"]
    window = iops[iops.in_window & (iops.read_pct == 0) & (iops.bs == "4k")].sort_values("round")
    assert list(window["round"]) == list(range(int(iops["round"].max()) - 4, int(iops["round"].max()) + 1))
    assert check_steady(list(window.iops)).steady
    # Without the window's last round, the rule had not held yet.
    earlier = iops[(iops.read_pct == 0) & (iops.bs == "4k") & (iops["round"] < iops["round"].max())]
    assert not check_steady(list(earlier.sort_values("round").iops)[-5:]).steady or len(earlier) < 5


def test_throughput_runs_once_per_block_size_each_from_a_purge(small_pts: pd.DataFrame) -> None:
    tp = small_pts[small_pts.test == "throughput"]
    assert sorted(set(tp.bs)) == ["1024k", "128k"]
    link_mb_per_s = profile_derived("generic-tlc-1tb", SMALL)["link_bytes_per_sec"] / 1e6
    for _, rows in tp.groupby("bs"):
        assert set(rows.rw) == {"read", "write"}
        assert (rows.mb_per_s <= link_mb_per_s * 1.001).all()
        # Each block size is its own run of rounds: they start again at round 1.
        assert rows["round"].min() == 1


def test_response_times_are_ordered_and_writes_below_a_sector_pay_a_read_modify_write(
    small_pts: pd.DataFrame,
) -> None:
    lat = small_pts[small_pts.test == "latency"]
    columns = ["lat_mean_us", *PERCENTILE_COLUMNS]
    for _, row in lat.iterrows():
        values = [row[c] for c in PERCENTILE_COLUMNS]
        assert values == sorted(values) and row.lat_mean_us <= row.lat_max_us
        assert all(row[c] > 0 for c in columns)
    writes = lat[lat.read_pct == 0].groupby("bs").lat_mean_us.mean()
    # 0.5 KiB writes into 4 KiB mapping units read the unit first: a NAND read each.
    assert writes["512"] > 5 * writes["4k"]


def test_the_latency_test_at_qd1_never_reaches_gc_and_the_report_says_the_rule_fired_early(
    small_pts: pd.DataFrame,
) -> None:
    summary = steady_summary(small_pts)
    latency = summary.loc["latency"]
    assert latency.twin_steady_round == 0
    assert "GC had not started" in latency.verdict
    iops = summary.loc["iops"]
    # The IOPS test's random writes run GC on this small drive from the first rounds; the
    # verdict agrees only if the drive was steady through the whole measurement window.
    window_first = int(small_pts[(small_pts.test == "iops") & small_pts.in_window]["round"].min())
    assert iops.twin_steady_round >= 1 and iops.last_round_waf > 1.0
    agreed = iops.twin_steady_round <= window_first
    assert iops.verdict.startswith("agreed") == agreed
    if not agreed:
        assert f"window (rounds {window_first}-{iops.pts_steady_round}) began" in iops.verdict


def test_the_iops_matrix_runs_small_to_large_blocks_and_all_write_to_all_read(small_pts: pd.DataFrame) -> None:
    tables = report_tables(small_pts)
    iops = tables["IOPS (measurement window average)"]
    assert list(iops.index) == ["0.5 KiB", "4 KiB", "8 KiB", "16 KiB", "32 KiB", "64 KiB", "128 KiB", "1024 KiB"]
    assert list(iops.columns) == [f"R/W {r}/{100 - r}" for r in (0, 5, 35, 50, 65, 95, 100)]
    rows = small_pts[(small_pts.test == "iops") & small_pts.in_window & (small_pts.bs == "4k")]
    assert iops.loc["4 KiB", "R/W 0/100"] == pytest.approx(rows[rows.read_pct == 0].iops.mean(), abs=0.5)


def test_a_drive_formatted_with_4_kib_sectors_has_no_half_kib_cells() -> None:
    t = pts_sweep(
        "micron-9200max",
        overrides={"nand.blocks_per_plane": 24, "identity.capacity_bytes": 16 << 30, "namespace.current_format": 2},
        tests=["latency"],
        cell_s=0.02,
        max_rounds=5,
        host="none",
    )
    assert set(t.bs) == {"8k", "4k"}


def test_the_study_writes_its_report_page_and_refuses_unknown_tests(
    run_main: Callable[..., Outcome], tmp_path: Path
) -> None:
    ran = run_main(
        "study", "pts", "--profile", "generic-tlc-1tb", *SMALL_ARGS, "--tests", "latency", "--cell-s", "0.02",
        "--max-rounds", "5", "--host", "none", "--out", tmp_path, "--html",
    )  # fmt: skip
    assert ran.status == 0, ran.err
    page = (tmp_path / "pts.html").read_text()
    assert "Response time, 99.99 %" in page and page.count("<img ") == 1
    assert "identity.capacity_bytes" in page and "--set" in page
    bad = run_main("study", "pts", "--tests", "iops,bogus", "--out", tmp_path / "x")
    assert_one_line_error(bad, "allowed iops, throughput, latency")


def test_each_test_is_a_part_of_its_own_and_an_executor_gives_the_same_table() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from ssdtwin.studies import run_study, study_parts

    options: dict[str, Any] = {"variant": "enterprise", "tests": "latency,throughput", "cell_s": 0.01}
    options |= {"max_rounds": 5, "window": 5}
    options |= {"threads": None, "iodepth": None, "active_range_pct": None, "seed": 1, "host": "none"}
    assert [p.part for p in study_parts("pts", ["generic-tlc-1tb"], SMALL, options)] == [
        {"tests": "latency"},
        {"tests": "throughput"},
    ]
    here = run_study("pts", ["generic-tlc-1tb"], overrides=SMALL, **options)["generic-tlc-1tb"]
    with ThreadPoolExecutor(2) as pool:
        there = run_study("pts", ["generic-tlc-1tb"], overrides=SMALL, executor=pool, **options)["generic-tlc-1tb"]
    pd.testing.assert_frame_equal(here[0], there[0])
    assert list(dict.fromkeys(here[0].test)) == ["latency", "throughput"] and here[1] == there[1]


def test_a_rule_without_its_tracked_workload_is_refused_before_anything_runs() -> None:
    from ssdtwin.errors import SsdtwinError

    with pytest.raises(SsdtwinError, match="its block sizes need 4k, its mixes 0"):
        pts_sweep("generic-tlc-1tb", overrides=SMALL, tests=["iops"], iops_blocks=["8k"], cell_s=0.01, host="none")
