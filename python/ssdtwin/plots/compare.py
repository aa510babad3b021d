"""The figures of ``ssdtwin compare``: they draw a finished table of
:mod:`ssdtwin.comparison` (a ``series`` column naming each line or bar) and never simulate
or read files."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from ..comparison import column_label, percentile_of
from .base import pyplot

Metric = Literal["bw", "iops"]

#: The percentiles ticked on the "nines" axis, where they fall inside the data.
NINES = (50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 99.9999)


def _powers_of_two(values: list[float]) -> bool:
    """Positive integer powers of two spanning at least 8x (queue depths, block sizes):
    drawn on a log2 axis, each ticked, as qd-sweep's figure does."""
    if not values or min(values) <= 0:
        return False
    whole = all(float(v).is_integer() and (int(v) & (int(v) - 1)) == 0 for v in values)
    return whole and max(values) / min(values) >= 8


def plot_compare_table(table: pd.DataFrame, x: str, y: str, title: str) -> Any:
    """``y`` against ``x``, one line per series (numbers on ``x``), or grouped bars, one
    bar per series in each ``x`` category (text on ``x``, in order of appearance)."""
    plt = pyplot()
    from matplotlib.ticker import StrMethodFormatter

    fig, ax = plt.subplots(figsize=(8, 4.6))
    series = list(dict.fromkeys(table.series))
    numeric = pd.api.types.is_numeric_dtype(table[x]) and not pd.api.types.is_bool_dtype(table[x])
    if numeric:
        for i, name in enumerate(series):
            g = table[table.series == name]
            marker = "o" if len(g) <= 30 else None
            ax.plot(g[x], g[y], marker=marker, ms=3, color=f"C{i % 10}", label=name)
        xs = sorted({float(v) for v in table[x].dropna()})
        if _powers_of_two(xs):
            ax.set_xscale("log", base=2)
            ax.set_xticks(xs, [f"{v:g}" for v in xs])
            ax.minorticks_off()
    else:
        categories = list(dict.fromkeys(str(v) for v in table[x]))
        width = 0.8 / len(series)
        for i, name in enumerate(series):
            g = table[table.series == name].assign(_x=lambda t: t[x].astype(str)).set_index("_x")
            values = [float(g[y].loc[c]) if c in g.index else np.nan for c in categories]
            xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(categories))]
            ax.bar(xs, values, width, color=f"C{i % 10}", label=name)
        ax.set_xticks(range(len(categories)), categories, rotation=20 if len(categories) > 6 else 0)
    ax.set(xlabel=column_label(x), ylabel=column_label(y))
    ax.set_title(f"{title}\n{column_label(y)} against {column_label(x)}", fontsize=10)
    # Plain numbers (1,750,000 IOPS), never an offset or a power of ten above the axis.
    ax.ticklabel_format(axis="y", style="plain", useOffset=False)
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.10g}"))
    if float(table[y].min(skipna=True)) >= 0:
        ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def _nines(percentile: float) -> float:
    """Where a percentile sits on the nines axis: 1 / (share slower), so that p90, p99 and
    p99.9 are evenly spaced on a log scale."""
    return 100.0 / (100.0 - percentile)


def _job_label(rows: pd.DataFrame) -> str:
    """A bar group's name: job (with its clone's number), direction, and its block size and
    queue depth when every series ran the same."""
    first = rows.iloc[0]
    name = str(first.job) + (f" #{int(first.clone) + 1}" if int(first.clone) else "")
    shape = rows[["rw", "bs", "iodepth", "numjobs"]].astype(str).drop_duplicates()
    if len(shape) == 1:
        jobs = f" x{first.numjobs}" if int(first.numjobs) > 1 else ""
        return f"{name} {first.direction}\n{first.rw} {first.bs} QD{first.iodepth}{jobs}"
    return f"{name} {first.direction}"


def plot_compare_fio(table: pd.DataFrame, metric: Metric = "bw") -> Any:
    """Left: bandwidth (MB/s, 10^6 B/s) or IOPS per job and direction, one bar per series.
    Right: each series' completion-latency percentiles per job and direction, on a "nines"
    axis (p50, p90, p99, ... evenly spaced) against latency in µs on a log scale."""
    plt = pyplot()
    series = list(dict.fromkeys(table.series))
    keys = ["job", "clone", "direction"]
    groups = list(dict.fromkeys(map(tuple, table[keys].values.tolist())))
    # Each group's label needs about an inch and a half; the latency panel keeps its width.
    bars_width = max(6.0, 1.5 * len(groups))
    fig, (bars, lat) = plt.subplots(
        1, 2, figsize=(bars_width + 6.5, 4.8), gridspec_kw={"width_ratios": [bars_width, 6.0]}
    )
    column, label = ("bw_bytes_per_s", "bandwidth (MB/s, 10^6 B/s)") if metric == "bw" else ("iops", "IOPS")
    scale = 1e6 if metric == "bw" else 1.0
    width = 0.8 / len(series)
    names = []
    for group in groups:
        rows = table[(table.job == group[0]) & (table.clone == group[1]) & (table.direction == group[2])]
        names.append(_job_label(rows))
    for i, name in enumerate(series):
        mine = table[table.series == name]
        values = []
        for group in groups:
            row = mine[(mine.job == group[0]) & (mine.clone == group[1]) & (mine.direction == group[2])]
            values.append(float(row[column].iloc[0]) / scale if len(row) else np.nan)
        xs = [k + (i - (len(series) - 1) / 2) * width for k in range(len(groups))]
        drawn = bars.bar(xs, values, width, color=f"C{i % 10}", label=name)
        bars.bar_label(drawn, fmt="{:,.0f}", fontsize=7)
    bars.set_xticks(range(len(groups)), names, fontsize=8)
    bars.set(ylabel=label, title=f"{label.split(' (')[0]} per job and direction")
    bars.set_ylim(bottom=0)
    bars.margins(y=0.1)
    bars.grid(alpha=0.3, axis="y")
    bars.legend(fontsize="small")

    percentiles = [(c, p) for c in table.columns if (p := percentile_of(str(c))) is not None and p < 100]
    styles = ["-", "--", "-.", ":"]
    drawn_at: list[float] = []
    for i, name in enumerate(series):
        mine = table[table.series == name]
        for k, group in enumerate(groups):
            row = mine[(mine.job == group[0]) & (mine.clone == group[1]) & (mine.direction == group[2])]
            if row.empty:
                continue
            points = [(p, float(row[c].iloc[0])) for c, p in percentiles if pd.notna(row[c].iloc[0])]
            if not points:
                continue
            drawn_at += [p for p, _ in points]
            job = names[k].split("\n")[0]
            lat.plot(
                [_nines(p) for p, _ in points],
                [us for _, us in points],
                color=f"C{i % 10}",
                ls=styles[k % len(styles)],
                marker=".",
                ms=4,
                label=f"{name}: {job}",
            )
    lat.set_xscale("log")
    lat.set_yscale("log")
    if drawn_at:
        ticks = [p for p in NINES if min(drawn_at) <= p <= max(drawn_at)] or [min(drawn_at), max(drawn_at)]
        lat.set_xticks([_nines(p) for p in ticks], [f"p{p:g}" for p in ticks])
        lat.minorticks_off()
        lat.legend(fontsize="small")
    else:
        lat.text(0.5, 0.5, "no clat percentiles in these outputs", ha="center", va="center", transform=lat.transAxes)
    lat.set(xlabel="percentile (nines: share of I/Os slower falls tenfold per step)", ylabel="completion latency (µs)")
    lat.set_title("completion latency (clat) percentiles")
    lat.grid(alpha=0.3, which="both")
    fig.suptitle(f"fio: {' vs '.join(series)}", fontsize=10)
    fig.tight_layout()
    return fig
