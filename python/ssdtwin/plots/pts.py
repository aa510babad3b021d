"""The PTS report's figures, in the specification's report layout: for each test its
steady-state convergence (with the round where the rule and where the drive's own state
said steady), the IOPS measurement window with its average, ±10 % band and fit line, the
IOPS by block size per mix (2D) and as the 3D bar surface."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..studies.pts import block_label, check_steady, matrix
from .base import drive_and_host, pyplot


def _mark_steady(ax: Any, t: pd.DataFrame, what: str = "") -> None:
    """Vertical lines at the round the rule fired and the round the drive was steady from
    (``what`` names the run, where a panel has several), and whole-round ticks."""
    from matplotlib.ticker import MaxNLocator

    pts, twin = int(t.pts_steady_round.iloc[0]), int(t.twin_steady_round.iloc[0])
    if pts:
        ax.axvline(pts, color="grey", linestyle="--", linewidth=1.2, label=f"{what}steady by the rule (round {pts})")
    if twin:
        ax.axvline(twin, color="black", linestyle="-.", linewidth=1.2, label=f"{what}drive steady (round {twin})")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def _not_run(ax: Any, what: str) -> None:
    # A 3D panel places text in 2D with text2D.
    text = getattr(ax, "text2D", ax.text)
    text(0.5, 0.5, f"{what}: not run", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


def _iops_convergence(ax: Any, t: pd.DataFrame) -> None:
    writes = t[t.read_pct == 0]
    for bs, b in writes.groupby("bs_bytes", sort=True):
        ax.plot(b["round"], b.iops, marker="o", markersize=3, label=block_label(int(bs)))
    _mark_steady(ax, t)
    ax.set_yscale("log")
    ax.set_xlabel("round")
    ax.set_ylabel("IOPS, 100 % write")
    ax.set_title("IOPS test: steady-state convergence")
    ax.legend(fontsize=6, ncol=2)


def _iops_window(ax: Any, t: pd.DataFrame) -> None:
    from matplotlib.ticker import MaxNLocator

    tracked = t[(t.read_pct == 0) & (t.bs_bytes == 4096)].sort_values("round")
    window = tracked[tracked.in_window]
    ax.plot(tracked["round"], tracked.iops, marker="o", color="tab:blue", label="4 KiB 100 % write IOPS")
    if len(window) >= 2:
        check = check_steady(list(window.iops))
        rounds = window["round"].to_numpy(dtype=float)
        x0 = rounds[0]
        ax.axhline(check.average, color="black", linewidth=1, label=f"window average {check.average:,.0f}")
        for share, style in ((1.1, "--"), (0.9, "--")):
            ax.hlines(check.average * share, rounds[0], rounds[-1], colors="grey", linestyles=style)
        ax.plot(rounds, check.intercept + check.slope * (rounds - x0), color="tab:red", label="best linear fit")
        ax.plot([], [], color="grey", linestyle="--", label="±10 % of the average")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("round")
    ax.set_ylabel("IOPS")
    ax.set_title("IOPS test: measurement window")
    ax.legend(fontsize=6)


def _iops_2d(ax: Any, t: pd.DataFrame) -> None:
    grid = matrix(t, "iops")
    sizes = [float(label.split()[0]) for label in grid.index]
    for column in grid.columns:
        ax.plot(sizes, grid[column], marker="o", markersize=3, label=column)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(sizes, [f"{s:g}" for s in sizes], fontsize=7)
    ax.set_xlabel("block size, KiB")
    ax.set_ylabel("IOPS (window average)")
    ax.set_title("IOPS by block size and read/write mix")
    ax.legend(fontsize=6, ncol=2)


def _iops_3d(ax: Any, t: pd.DataFrame) -> None:
    grid = matrix(t, "iops")
    values = np.log10(np.maximum(grid.to_numpy(dtype=float), 1.0))
    xs, ys = np.meshgrid(np.arange(len(grid.index)), np.arange(len(grid.columns)), indexing="ij")
    colours = pyplot().get_cmap("viridis")(np.linspace(0, 1, len(grid.columns)))
    ax.bar3d(
        xs.ravel(),
        ys.ravel(),
        np.zeros(values.size),
        0.6,
        0.6,
        values.ravel(),
        color=np.tile(colours, (len(grid.index), 1)),
        shade=True,
    )
    ax.set_xticks(np.arange(len(grid.index)) + 0.3, list(grid.index), fontsize=6)
    ax.set_yticks(np.arange(len(grid.columns)) + 0.3, [c.removeprefix("R/W ") for c in grid.columns], fontsize=6)
    ax.set_zlabel("log10 IOPS", fontsize=7)
    ax.set_title("IOPS surface (R/W mix, block size)")


def _throughput(ax: Any, t: pd.DataFrame) -> None:
    for (bs, pct), b in t.groupby(["bs_bytes", "read_pct"], sort=True):
        direction = "write" if pct == 0 else "read"
        ax.plot(b["round"], b.mb_per_s, marker="o", markersize=3, label=f"{block_label(int(bs))} {direction}")
    for bs, b in t.groupby("bs_bytes", sort=True):
        _mark_steady(ax, b, f"{block_label(int(bs))}: ")
    ax.set_xlabel("round")
    ax.set_ylabel("MB/s (10^6 B/s)")
    ax.set_title("Throughput test: sequential, convergence")
    ax.legend(fontsize=6)


def _latency(ax: Any, t: pd.DataFrame) -> None:
    for pct, b in t[t.bs_bytes == 4096].groupby("read_pct", sort=True):
        ax.plot(b["round"], b.lat_mean_us, marker="o", markersize=3, label=f"4 KiB R/W {pct}/{100 - pct}, mean")
        ax.plot(b["round"], b.lat_p99_99_us, linestyle=":", label=f"4 KiB R/W {pct}/{100 - pct}, 99.99 %")
    _mark_steady(ax, t)
    ax.set_yscale("log")
    ax.set_xlabel("round")
    ax.set_ylabel("response time, µs")
    ax.set_title("Latency test (QD1): convergence")
    ax.legend(fontsize=6)


def plot_pts(table: pd.DataFrame) -> Any:
    """The report's six panels for one drive's PTS table."""
    plt = pyplot()
    fig = plt.figure(figsize=(13, 14))
    first = table.iloc[0]
    fig.suptitle(f"SNIA PTS ({first.variant}, T{first.threads}Q{first.iodepth}): {drive_and_host(table)}", fontsize=13)
    iops, tp, lat = (table[table.test == name] for name in ("iops", "throughput", "latency"))
    panels = [fig.add_subplot(3, 2, i) for i in (1, 2, 3)]
    surface = fig.add_subplot(3, 2, 4, projection="3d")
    bottom = [fig.add_subplot(3, 2, i) for i in (5, 6)]
    if len(iops):
        _iops_convergence(panels[0], iops)
        _iops_window(panels[1], iops)
        _iops_2d(panels[2], iops)
        _iops_3d(surface, iops)
    else:
        for ax in [*panels, surface]:
            _not_run(ax, "IOPS test")
    if len(tp):
        _throughput(bottom[0], tp)
    else:
        _not_run(bottom[0], "Throughput test")
    if len(lat):
        _latency(bottom[1], lat)
    else:
        _not_run(bottom[1], "Latency test")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig
