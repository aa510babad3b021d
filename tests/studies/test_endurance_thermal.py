"""The endurance and thermal studies on small drives: the projection's arithmetic against
the drive's own counters and ratings, write amplification ordering random above
sequential, and throttling that appears without airflow and not with it."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import click
import pytest
import ssdtwin
from ssdtwin.studies.endurance import BUILTIN_JOBS, endurance_projection, report
from ssdtwin.studies.thermal import thermal_sweep
from ssdtwin.testing import small_overrides

from ..cli.test_study import RunMain
from ..helpers import assert_one_line_error


@pytest.fixture(scope="module")
def projection() -> object:
    # 64 superblocks of 1.5 MiB, TLC rated for 3,000 cycles.
    small = small_overrides() | {"endurance.rated_tb_written": 0.5}
    return endurance_projection(
        "generic-tlc-1tb", overrides=small, window_s=0.05, duty_cycle=0.5, start_date=dt.date(2030, 1, 1)
    )


def test_random_writes_amplify_and_wear_the_nand_sooner(projection: object) -> None:
    t = projection
    random, sequential = t.iloc[0], t.iloc[1]  # type: ignore[attr-defined]
    assert (random.job, sequential.job) == ("random-4k", "sequential-128k")
    # Sequential overwrites leave whole superblocks invalid: no relocation.
    assert sequential.write_amplification == pytest.approx(1.0, abs=0.01)
    assert random.write_amplification > 1.3
    # The NAND's life is the same bytes of programs: the host gets 1/WA of them.
    ratio = random.projected_tb_written / sequential.projected_tb_written
    assert ratio == pytest.approx(sequential.write_amplification / random.write_amplification, rel=0.02)


def test_each_window_writes_fresh_offsets_so_random_writes_keep_gc_s_steady_state(projection: object) -> None:
    # One long run from the same preconditioning gives GC's steady write amplification.
    # Windows that replayed one seed would rewrite what the window before had just written,
    # leaving GC victims all but empty (WA about 1.4 here instead of 2.5).
    dev = ssdtwin.Device("generic-tlc-1tb", overrides=small_overrides())
    dev.fill("random", 100.0, overwrite_passes=2.0)
    before = dev.counters()
    job = BUILTIN_JOBS["random-4k"] | {"time_based": True, "runtime": 0.6}
    dev.run(job, seed=7)
    after = dev.counters()
    steady = (after["nand_write_bytes"] - before["nand_write_bytes"]) / (
        after["host_write_bytes"] - before["host_write_bytes"]
    )
    random = projection.iloc[0]  # type: ignore[attr-defined]
    assert random.warmup_drive_writes == 0.0
    # Three 50 ms windows hold about ten GC victims each: ±10 % between them and the long run.
    assert random.write_amplification == pytest.approx(steady, rel=0.1)


def test_a_workload_the_preconditioning_does_not_settle_writes_its_turnover_first() -> None:
    # JESD219's skewed mix after a uniform random fill: its windows count only once it has
    # written the asked share of the drive (here half), and no more than a window beyond.
    small = small_overrides()
    t = endurance_projection("generic-tlc-1tb", ("jesd219",), overrides=small, window_s=0.05, turnover=0.5)
    row = t.iloc[0]
    window_share = row.host_write_mb_per_s * 1e6 * 0.05 / int(small["identity.capacity_bytes"])  # type: ignore[call-overload]
    assert 0.5 <= row.warmup_drive_writes < 0.5 + 3 * window_share
    with pytest.raises(click.BadParameter, match=re.escape("11.0: drive writes, 0 to 10.0")):
        endurance_projection("generic-tlc-1tb", ("jesd219",), overrides=small, turnover=11.0)


def test_the_projection_is_the_rates_scaled_to_a_day(projection: object) -> None:
    t = projection
    raw = 64 * 1.5 * 2**20  # bytes of the tiny drive's NAND
    capacity = int(ssdtwin.Device(overrides=small_overrides()).identity()["capacity_bytes"])
    for r in t.itertuples():  # type: ignore[attr-defined]
        per_day = r.host_write_mb_per_s * 1e6 * 86_400 * 0.5
        assert r.host_tb_per_day == pytest.approx(per_day / 1e12)
        assert r.drive_writes_per_day == pytest.approx(per_day / capacity)
        # In steady state every NAND byte costs 1 / (raw bytes x 3,000 cycles) of the life.
        life_per_day = r.nand_write_mb_per_s * 1e6 * 86_400 * 0.5 / (raw * 3000)
        assert r.years_to_100pct_used == pytest.approx(1 / life_per_day / 365, rel=0.02)
        assert r.projected_tb_written == pytest.approx(r.host_tb_per_day * r.years_to_100pct_used * 365)
        assert r.years_to_rated_tbw == pytest.approx(0.5 / r.host_tb_per_day / 365)
        assert r.projected_over_rated == pytest.approx(r.projected_tb_written / 0.5)
        assert r.date_rated_tbw == (dt.date(2030, 1, 1) + dt.timedelta(days=r.years_to_rated_tbw * 365)).isoformat()
    assert "random-4k: WA" in report(t)


def test_the_endurance_command_writes_its_table(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "e"
    args = ["--profile", small_profile_file, "--window", "0.05", "--out", out]
    outcome = run_main("study", "endurance", *args, "--variant", "half:identity.capacity_bytes=18087936", "random-4k")
    assert outcome.status == 0, outcome
    records = json.loads((out / "endurance.json").read_text())
    assert [(r["variant"], r["job"]) for r in records] == [("half", "random-4k")]
    assert (out / "endurance.png").read_bytes()[:4] == b"\x89PNG"
    assert_one_line_error(
        run_main("study", "endurance", *args, "--force", "no-such-job"),
        "ssdtwin: job 'no-such-job': neither a built-in workload (random-4k, sequential-128k, jesd219) nor a job file",
    )
    reads = tmp_path / "reads.fio"
    reads.write_text("[r]\nrw=randread\nbs=4k\n")
    assert_one_line_error(
        run_main("study", "endurance", *args, "--force", str(reads)),
        f"ssdtwin: job '{reads}' wrote nothing: the endurance study needs a workload that writes",
    )
    assert_one_line_error(
        run_main("study", "endurance", *args, "--force", "--variant", "nothing"),
        "ssdtwin: Invalid value for --variant: 'nothing': expected NAME:SECTION.FIELD=VALUE[,SECTION.FIELD=VALUE] "
        "(see 'ssdtwin study endurance --help')",
    )


def test_without_airflow_the_drive_throttles_and_with_it_not() -> None:
    # The tiny drive heats fast (τ = 0.05 J/K x 20 K/W = 1 s) with 1 W per programming die;
    # a wide hysteresis holds a level once reached, so whole windows run at one level.
    hot = small_overrides(blocks_per_plane=640) | {
        "thermal.hysteresis_k": 15.0,
        "thermal.heat_capacity_j_per_k": 0.05,
        "thermal.still_air_k_per_w": 20.0,
        "thermal.sensor_period_ms": 10.0,
        "power.die_program_w": 1.0,
        "power.idle_w": 0.3,
    }
    t = thermal_sweep(
        "generic-tlc-1tb", airflows_m_per_s=(0.0, 5.0), seconds=4.0, window_s=0.1, overrides=hot, host="none"
    )
    still, cooled = t[t.airflow_m_per_s == 0.0], t[t.airflow_m_per_s == 5.0]
    assert still.throttle_level.max() >= 2 and (cooled.throttle_level == 0).all()
    # Heavy throttling lets one die of four run (a 2.65 W budget less 1.3 W of idle and
    # link, over 1 W per die): windows heavy from end to end write a quarter as fast.
    heavy = still[(still.throttle_level == 2) & (still.throttle_level.shift() == 2)]
    assert len(heavy) > 3
    assert heavy.write_mb_per_s.mean() == pytest.approx(cooled.write_mb_per_s.iloc[2:].mean() / 4, rel=0.1)
    assert cooled.temperature_c.max() < still.temperature_c.max()
    # 5 m/s: R = 20 / (1 + sqrt(10)) = 4.8 K/W, so even the 4.6 W of four dies stays below 70 °C.
    assert cooled.temperature_c.max() < 70.0
