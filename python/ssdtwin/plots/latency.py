"""The latency figure of a run (``ssdtwin fio --plot``): the distribution of total latency
per direction, drawn as the share of I/Os slower than each latency (so p99, p99.9 and
p99.99 are where the curve crosses 10⁻², 10⁻³ and 10⁻⁴), and p50/p99/p99.9 per window over
time. It draws a finished run's tables and never simulates."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .base import pyplot

#: Percentiles marked on the distribution, as (label, share of I/Os slower).
MARKED = (("p50", 0.5), ("p99", 1e-2), ("p99.9", 1e-3), ("p99.99", 1e-4))

#: Per-window percentiles drawn over time, with their line styles.
OVER_TIME = (("p50", "-"), ("p99", "--"), ("p999", ":"))


def exceedance(hist: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """From one direction's histogram (``lat_us``, ``count`` in bucket order): each bucket's
    value and the share of I/Os in later buckets (slower than it), the complementary CDF.

    >>> lat, slower = exceedance(pd.DataFrame({"lat_us": [10.0, 20.0, 40.0], "count": [2, 1, 1]}))
    >>> slower.tolist()
    [0.5, 0.25, 0.0]
    """
    counts = hist["count"].to_numpy(dtype=float)
    slower = 1.0 - np.cumsum(counts) / counts.sum()
    return hist["lat_us"].to_numpy(dtype=float), np.clip(slower, 0.0, 1.0)


def plain_log_axis(axis: Any) -> None:
    """Labels a log ``axis`` plainly (``100``, ``200``, ``1,000`` rather than ``10^2``,
    ``2x10^2``), the minor ticks labelled only where the axis spans few decades (as
    matplotlib decides for its own labels, so they do not run into each other)."""
    from matplotlib import ticker

    class Plain(ticker.LogFormatter):
        def __call__(self, x: float, pos: int | None = None) -> str:
            if not super().__call__(x, pos):
                return ""
            return f"{x:,.0f}" if x >= 1 else f"{x:g}"

    axis.set_major_formatter(Plain())
    axis.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(2, 0.5)))


def windows(series: pd.DataFrame, columns: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The series' whole windows that measured ``columns`` and the last window, where the
    run's end cut it short (empty otherwise). A window without I/Os of a direction (its
    columns empty, as the row at time 0) is left out.

    >>> s = pd.DataFrame({"time_s": [0.0, 0.1, 0.10008], "window_s": [0.0, 0.1, 8e-5],
    ...                   "partial": [False, False, True], "read_p50_lat_us": [None, 130.0, 240.0]})
    >>> whole, cut = windows(s, ["read_p50_lat_us"])
    >>> whole.time_s.tolist(), cut.time_s.tolist()
    ([0.1], [0.10008])
    """
    measured = series.dropna(subset=columns)
    if "window_s" in measured:
        measured = measured[measured.window_s > 0]
    if "partial" not in measured:
        return measured, measured.iloc[0:0]
    return measured[~measured.partial.astype(bool)], measured[measured.partial.astype(bool)]


def plot_latency(hist: pd.DataFrame, series: pd.DataFrame, title: str) -> Any:
    """Left: per direction, the share of I/Os slower than each latency (log-log); right:
    the per-window p50, p99 and p99.9 of total latency over time, each drawn as a step over
    the window it measured (so one window is a level line across it, not a lone point); a
    last window cut short by the run's end is a hollow marker."""
    plt = pyplot()

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    counted = []
    cut_labelled = False
    for k, (direction, g) in enumerate(hist.groupby("direction", sort=False)):
        colour = colours[k % len(colours)]
        lat, slower = exceedance(g)
        total = int(g["count"].sum())
        # The last bucket has nothing slower: log axes cannot show 0, so it ends one I/O
        # below the first bucket's share (the resolution of this many I/Os).
        floor = 0.5 / total
        a.step(lat, np.maximum(slower, floor), where="post", color=colour, label=f"{direction} ({total:,} I/Os)")
        for name, share in MARKED:
            if share * total >= 1:
                at = lat[np.argmax(slower <= share)]
                a.plot(at, share, "o", color=colour, ms=4)
                a.annotate(f"{name} {at:,.0f}", (at, share), textcoords="offset points", xytext=(5, 2), fontsize=7)
        columns = [f"{direction}_{stat}_lat_us" for stat, _ in OVER_TIME]
        if not set(columns) <= set(series.columns):
            continue
        whole, cut = windows(series, columns)
        counted.append(len(whole))
        for (stat, style), column in zip(OVER_TIME, columns, strict=True):
            label = f"{direction} {stat.replace('p999', 'p99.9')}"
            if len(whole):
                ends = whole.time_s.to_numpy(dtype=float)
                starts = ends - whole.window_s.to_numpy(dtype=float) if "window_s" in whole else None
                if starts is not None and np.allclose(starts[1:], ends[:-1]):
                    edges = np.concatenate([starts[:1], ends])
                    b.stairs(whole[column], edges, baseline=None, linestyle=style, color=colour, label=label)
                else:
                    b.plot(ends, whole[column], style, marker=".", color=colour, label=label)
                label = "_nolegend_"
            if len(cut):
                last = cut.iloc[-1]
                if label == "_nolegend_" and not cut_labelled:
                    label = "last window, cut short by the run's end"
                cut_labelled = cut_labelled or label != "_nolegend_"
                b.plot(last.time_s, last[column], "o", mfc="none", color=colour, ms=5, label=label)
    a.set(
        xscale="log",
        yscale="log",
        xlabel="total latency (µs)",
        ylabel="share of I/Os slower",
        title="latency distribution",
    )
    plain_log_axis(a.xaxis)
    a.grid(True, which="both", alpha=0.3)
    a.legend(fontsize=8)
    whole_windows = series[series.window_s > 0] if "window_s" in series else series.iloc[0:0]
    if "partial" in whole_windows:
        whole_windows = whole_windows[~whole_windows.partial.astype(bool)]
    window = float(whole_windows.window_s.median()) if len(whole_windows) else None
    per = f"per {window * 1e3:,.4g} ms window" if window else "per window"
    xlabel = "time (s)"
    if counted and max(counted) <= 2:
        n = max(counted)
        xlabel += f": {n} whole window{'s' if n != 1 else ''}, each level drawn across the window it measured"
    b.set(yscale="log", xlabel=xlabel, ylabel="total latency (µs)", title=f"p50, p99 and p99.9 {per}")
    b.ticklabel_format(axis="x", useOffset=False, style="plain")
    plain_log_axis(b.yaxis)
    b.grid(True, which="both", alpha=0.3)
    if b.lines or b.patches:
        b.set_xlim(left=0)
        handles, labels = b.get_legend_handles_labels()
        # The hollow marker's entry last, after the percentiles it stands beside.
        order = sorted(range(len(labels)), key=lambda i: labels[i].startswith("last window"))
        b.legend([handles[i] for i in order], [labels[i] for i in order], fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
