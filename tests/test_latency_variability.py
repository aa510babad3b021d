"""Latency variability by mechanism (docs/model.md, "Latency variability"): each source is
switched on alone on a shipped profile and its effect checked against what its parameters
imply; together they must give a real drive's shape without moving the mean; and the run's
seed decides every draw."""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ssdtwin import Device, profile_toml

PROFILE = "micron-9200max"
CFG = tomllib.loads(profile_toml(PROFILE))
T_READ_US = CFG["nand"]["tlc"]["t_read_us"]
#: Every variability source off: the ideal drive.
OFF: dict[str, object] = {
    "nand.tlc.t_read_spread_us": 0.0,
    "nand.die_cv": 0.0,
    "controller.cmd_cv": 0.0,
    "endurance.read_retry_fresh": 0.0,
    "endurance.read_retry_rated": 0.0,
}
QD1 = {"name": "r", "rw": "randread", "bs": "4k", "size": "2g", "iodepth": 1, "runtime": "500ms", "time_based": True}


def qd1_read(overrides: dict[str, object] | None = None, seed: int = 1) -> tuple[np.ndarray, dict[str, Any]]:
    """Every QD1 read's completion latency (µs) and the counters' changes."""
    dev = Device(PROFILE, host="none", overrides=overrides)
    dev.fill("seq", 10)
    before = dev.counters()
    with tempfile.TemporaryDirectory() as logs:
        dev.run(QD1 | {"write_lat_log": "lat"}, seed=seed, log_dir=logs)
        # fio's log lines: time (ms), value (ns), direction, block size, offset.
        clat_ns = np.loadtxt(Path(logs) / "lat_clat.1.log", delimiter=",", usecols=1)
    after = dev.counters()
    return clat_ns / 1000.0, {k: after[k] - before[k] for k in after if isinstance(after[k], int)}


@pytest.fixture(scope="module")
def ideal() -> np.ndarray:
    return qd1_read(OFF)[0]


def test_with_every_source_off_every_read_takes_the_same_time(ideal: np.ndarray) -> None:
    assert ideal.min() == ideal.max()


def test_page_types_make_three_peaks_spread_apart() -> None:
    spread = CFG["nand"]["tlc"]["t_read_spread_us"]
    lat, _ = qd1_read(OFF | {"nand.tlc.t_read_spread_us": spread})
    peaks = np.unique(np.round(lat, 1))
    # Lower, middle and upper pages: tR - spread, tR, tR + spread, everything else equal.
    assert len(peaks) == 3
    assert np.diff(peaks) == pytest.approx([spread, spread], abs=0.05)


def test_read_retries_add_one_tr_per_step_at_the_chance_set(ideal: np.ndarray) -> None:
    lat, d = qd1_read(OFF | {"endurance.read_retry_fresh": 0.02, "endurance.read_retry_rated": 0.02})
    reads = d["host_read_cmds"]
    retried = lat > ideal[0] + 1.0
    # Binomial: 2 % of reads, within 4 standard deviations.
    sd = (reads * 0.02 * 0.98) ** 0.5
    assert abs(retried.sum() - 0.02 * reads) < 4 * sd
    # again = 0.5 (the profile's): one step, or more; each step is one more tR.
    steps = np.round((lat[retried] - ideal[0]) / T_READ_US)
    assert steps.min() == 1 and np.abs(lat[retried] - ideal[0] - steps * T_READ_US).max() < 0.1
    assert d["nand_read_retries"] == pytest.approx(steps.sum(), abs=2)


def test_firmware_time_varies_around_its_mean(ideal: np.ndarray) -> None:
    lat, _ = qd1_read(OFF | {"controller.cmd_cv": CFG["controller"]["cmd_cv"]})
    fw_us = CFG["controller"]["read_cmd_ns"] / 1000
    assert lat.mean() == pytest.approx(ideal[0], abs=0.01 * fw_us)
    # The spread is the firmware time's: cv x read_cmd.
    assert lat.std() == pytest.approx(CFG["controller"]["cmd_cv"] * fw_us, rel=0.15)


def test_together_they_give_an_enterprise_drive_s_shape_and_keep_the_mean(ideal: np.ndarray) -> None:
    lat, _ = qd1_read()
    p50, p99, p9999 = np.percentile(lat, [50, 99, 99.99])
    # latency-facts A2: p99 1.2-1.35 x p50, p99.99 2.5-6 x p50 for enterprise TLC.
    assert 1.15 <= p99 / p50 <= 1.4
    assert 2.5 <= p9999 / p50 <= 6.5
    assert lat.mean() == pytest.approx(ideal[0], rel=0.02)


def test_the_seed_decides_every_draw() -> None:
    a, _ = qd1_read(seed=7)
    b, _ = qd1_read(seed=7)
    c, _ = qd1_read(seed=8)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.percentile(c, 99) == pytest.approx(np.percentile(a, 99), rel=0.03)
