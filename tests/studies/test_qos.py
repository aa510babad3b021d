"""ssdtwin.studies.qos: the datasheet QoS protocol as a plain function returning a table, its
write warm-up, its figure and its registration for the CLI."""

from __future__ import annotations

import pytest
from ssdtwin import Device
from ssdtwin.device import DEFAULT_PROFILE, profile_derived
from ssdtwin.plots.qos import plot_qos
from ssdtwin.studies import REGISTRY
from ssdtwin.studies.qos import STUDY, qos, warm_up_writes

#: The ideal shipped drive's QD1 read on the bare host, µs (tests/cli/test_fio.py derives it).
IDEAL_READ_US = 57.983
#: fio's buckets are 1/64 wide.
BUCKET = 1 / 64


def test_one_row_per_point_with_ordered_percentiles(small: dict[str, object]) -> None:
    labels: list[str] = []
    t = qos(seconds=0.01, overrides=small, advance=labels.append)
    assert labels == ["randread QD1", "randread QD32", "randwrite QD1", "randwrite QD32"]
    assert list(t.columns) == [
        "profile",
        "rw",
        "iodepth",
        "iops",
        "ios",
        "mean_us",
        "p50_us",
        "p99_us",
        "p99_9_us",
        "p99_99_us",
        "warm_up_s",
        "precondition",
        "host",
    ]
    assert (t.p50_us <= t.p99_us).all() and (t.p99_us <= t.p99_9_us).all() and (t.p99_9_us <= t.p99_99_us).all()
    # fio's IOPS over the measured 10 ms are the I/Os counted.
    assert list(t.iops) == pytest.approx(list(t.ios / 0.01), rel=0.01)
    # Only writes warm up; the drive has no SLC cache, so it is preconditioned to steady state.
    assert (t[t.rw == "randread"].warm_up_s == 0).all() and (t[t.rw == "randwrite"].warm_up_s > 0).all()
    assert set(t.precondition) == {"steady"}


def test_on_the_ideal_drive_every_qd1_read_takes_the_same_time(small: dict[str, object]) -> None:
    t = qos(rws=["randread"], depths=[1], seconds=0.01, overrides=small, host="none")
    row = t.iloc[0]
    assert row.mean_us == pytest.approx(IDEAL_READ_US, abs=0.01)
    for column in ("p50_us", "p99_us", "p99_99_us"):
        assert row[column] == pytest.approx(IDEAL_READ_US, rel=BUCKET)


def test_the_warm_up_brings_the_free_pool_down_to_gcs_working_point(small: dict[str, object]) -> None:
    derived = profile_derived(DEFAULT_PROFILE, small)
    dev = Device(overrides=small)
    dev.fill("steady")
    working = int(derived["gc_working_superblocks"])
    # A quiet drive keeps GC's reserve above the point where it paces writes.
    assert dev.counters()["free_superblocks"] > working
    seconds = warm_up_writes(dev, 32, derived, seed=1)
    assert dev.counters()["free_superblocks"] == working
    # It wrote what the reserve held: at least the superblocks above the working point.
    above = 4 - working
    assert dev.counters()["host_write_bytes"] >= above * derived["superblock_bytes"]
    assert seconds > 0


def test_the_figure_is_drawn_from_the_table_alone(small: dict[str, object]) -> None:
    fig = plot_qos(qos(rws=["randread"], depths=[1, 4], seconds=0.002, overrides=small))
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["randread\nQD1", "randread\nQD4"]
    assert "generic-tlc-1tb" in ax.get_title()


def test_registered_for_the_cli() -> None:
    assert STUDY in REGISTRY and STUDY.profile == "micron-9200max"
