"""ssdtwin.studies.qd_sweep: a plain function returning a tidy table, a separate plot, and
its registration for the CLI."""

from __future__ import annotations

import pytest
from ssdtwin.plots.qd_sweep import plot_qd_sweep
from ssdtwin.studies import REGISTRY
from ssdtwin.studies.qd_sweep import STUDY, qd_sweep


def test_qd_sweep_returns_one_row_per_point_and_direction(small: dict[str, object]) -> None:
    labels: list[str] = []
    table = qd_sweep(
        rws=["randread", "randrw"], depths=[1, 8], seconds=0.005, span_gib=0.05, overrides=small, advance=labels.append
    )
    assert labels == ["randread QD1", "randread QD8", "randrw QD1", "randrw QD8"]
    assert list(table.columns) == [
        "rw",
        "iodepth",
        "iops",
        "bw_mb_per_s",
        "direction",
        "mean_lat_us",
        "p99_lat_us",
        "host",
    ]
    # randrw reports reads and writes separately.
    assert list(zip(table.rw, table.iodepth, table.direction, strict=True)) == [
        ("randread", 1, "read"),
        ("randread", 8, "read"),
        ("randrw", 1, "read"),
        ("randrw", 1, "write"),
        ("randrw", 8, "read"),
        ("randrw", 8, "write"),
    ]
    assert (table.iops > 0).all()
    assert table.iops[1] > 3 * table.iops[0]


def test_sub_millisecond_points_keep_their_length(small: dict[str, object]) -> None:
    # 0.5 ms once rounded down to a runtime of 0, i.e. no limit.
    table = qd_sweep(rws=["randread"], depths=[1], seconds=0.0005, span_gib=0.05, overrides=small, host="none")
    ios = table.iops[0] * 0.0005
    assert ios == pytest.approx(0.0005 / 57.983e-6, abs=1)


def test_the_figure_is_drawn_from_the_table_alone(small: dict[str, object]) -> None:
    table = qd_sweep(rws=["randread"], depths=[1, 4], seconds=0.002, span_gib=0.05, overrides=small)
    fig = plot_qd_sweep(table)
    iops_ax, lat_ax = fig.axes
    assert iops_ax.get_xlabel() == "queue depth" and iops_ax.get_xscale() == "log"
    assert [t.get_text() for t in iops_ax.get_xticklabels()] == ["1", "4"]
    (line,) = iops_ax.get_lines()
    assert list(line.get_xdata()) == [1, 4]
    assert list(line.get_ydata()) == pytest.approx(list(table.iops / 1e3))
    assert lat_ax.get_ylabel() == "latency (µs)"
    mean, p99 = lat_ax.get_lines()
    assert list(p99.get_ydata()) == pytest.approx(list(table.p99_lat_us))
    assert all(p >= m for p, m in zip(p99.get_ydata(), mean.get_ydata(), strict=True))
    # The figure names the drive, the host and the workload.
    table.insert(0, "profile", "generic-tlc-1tb")
    title = plot_qd_sweep(table).get_suptitle()
    assert title == f"generic-tlc-1tb on {table.host.iloc[0]}: randread at queue depths 1, 4"


def test_registered_for_the_cli_with_a_step_per_pattern_and_depth() -> None:
    assert STUDY in REGISTRY
    assert STUDY.count_points(profile="p", rw="randread,randwrite", depths="1,2,4") == 6
