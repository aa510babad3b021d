"""The figure of ``ssdtwin study qos``: it draws a finished table of
:mod:`ssdtwin.studies.qos` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import pyplot, who

#: The percentile columns drawn, with their labels.
LEVELS = (("p50_us", "p50"), ("p99_us", "p99"), ("p99_9_us", "p99.9"), ("p99_99_us", "p99.99"))


def plot_qos(table: pd.DataFrame) -> Any:
    """Per workload (rw and queue depth), the p50, p99, p99.9 and p99.99 of total latency as
    bars on a log scale, the mean as a line across them: how far the tail reaches above the
    body."""
    plt = pyplot()
    from matplotlib import ticker

    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(LEVELS)
    labels = [f"{r.rw}\nQD{r.iodepth}" for r in table.itertuples()]
    for k, (column, label) in enumerate(LEVELS):
        xs = [i + (k - (len(LEVELS) - 1) / 2) * width for i in range(len(table))]
        bars = ax.bar(xs, table[column], width, label=label)
        ax.bar_label(bars, labels=[f"{v:,.0f}" for v in table[column]], fontsize=6, rotation=90, padding=2)
    for i, mean in enumerate(table.mean_us):
        ax.hlines(
            mean, i - 0.45, i + 0.45, colors="black", linestyles="--", linewidth=1, label="mean" if i == 0 else None
        )
    ax.set(yscale="log", ylabel="total latency (µs)", xticks=range(len(table)), xticklabels=labels)
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_title(f"{who(table)}: 4 KiB random latency QoS at steady state", fontsize=10)
    ax.legend(fontsize=8, ncol=5, loc="upper left")
    ax.margins(y=0.25)
    fig.tight_layout()
    return fig
