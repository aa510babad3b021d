"""``io_submit_mode=offload``: fio's submitting threads queue each I/O at its place in the
rate schedule, so when the device falls behind, the wait counts as latency (no coordinated
omission); inline, the job thread just issues later and reports the device's latency."""

from __future__ import annotations

import pytest
from ssdtwin import Device

JOB = {"name": "r", "rw": "randread", "bs": "4k", "ioengine": "libaio", "iodepth": 1, "size": "1g"}


def run(mode: str, rate_iops: int) -> tuple[float, float]:
    dev = Device(host="none")
    dev.fill("seq", 1)
    r = dev.run(JOB | {"rate_iops": rate_iops, "runtime": "100ms", "time_based": True, "io_submit_mode": mode})
    s = r.summary.iloc[0]
    return float(s.iops), float(s.mean_lat_us)


def test_a_rate_the_device_meets_reports_the_same_either_way() -> None:
    assert run("offload", 5000) == pytest.approx(run("inline", 5000))


def test_a_rate_the_device_cannot_meet_counts_the_backlog_as_latency() -> None:
    inline_iops, inline_lat = run("inline", 50_000)
    offload_iops, offload_lat = run("offload", 50_000)
    # QD1 reads of ~58 us: the device gives ~17 K IOPS whatever the mode.
    assert offload_iops == pytest.approx(inline_iops) and inline_iops < 20_000
    assert inline_lat < 70
    # Offloaded, the n-th I/O was due at n x 20 us and completes at n x 58 us: the backlog
    # grows linearly over the 100 ms, so the mean latency is about half its final value.
    expected_mean_us = 0.5 * 100_000 * (1 - (1e6 / 50_000) / (1e6 / inline_iops))
    assert offload_lat == pytest.approx(expected_mean_us, rel=0.05)
