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


def plot_latency(hist: pd.DataFrame, series: pd.DataFrame, title: str) -> Any:
    """Left: per direction, the share of I/Os slower than each latency (log-log); right:
    the per-window p50, p99 and p99.9 of total latency over time."""
    plt = pyplot()
    from matplotlib import ticker

    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
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
        if set(columns) <= set(series.columns):
            # A last window cut short by the run's end rests on few I/Os: drawn apart, hollow.
            whole = series[~series.partial] if "partial" in series else series
            for (stat, style), column in zip(OVER_TIME, columns, strict=True):
                b.plot(
                    whole.time_s,
                    whole[column],
                    style,
                    color=colour,
                    label=f"{direction} {stat.replace('p999', 'p99.9')}",
                )
                if len(whole) < len(series):
                    last = series.iloc[-1]
                    b.plot(last.time_s, last[column], "o", mfc="none", color=colour, ms=4)
    a.set(
        xscale="log",
        yscale="log",
        xlabel="total latency (µs)",
        ylabel="share of I/Os slower",
        title="latency distribution",
    )
    a.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    a.grid(True, which="both", alpha=0.3)
    a.legend(fontsize=8)
    b.set(yscale="log", xlabel="time (s)", ylabel="total latency (µs)", title="percentiles per window")
    b.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    b.grid(True, which="both", alpha=0.3)
    if b.lines:
        b.legend(fontsize=7, ncol=2)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
