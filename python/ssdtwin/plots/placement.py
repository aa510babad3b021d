"""The figure of ``ssdtwin study placement``: it draws a finished table of
:mod:`ssdtwin.studies.placement` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import pyplot, who


def plot_placement(table: pd.DataFrame) -> Any:
    """Per workload, two panels: the device's write amplification by configuration (bars,
    each stream's own beside it where placed), and the drive's write throughput over the
    measurement by configuration."""
    plt = pyplot()
    workloads = list(dict.fromkeys(table.workload))
    fig, axes = plt.subplots(len(workloads), 2, figsize=(11, 3.6 * len(workloads)), squeeze=False)
    for (waf_ax, time_ax), workload in zip(axes, workloads, strict=True):
        rows = table[table.workload == workload]
        configs = list(dict.fromkeys(rows.config))
        streams = list(dict.fromkeys(rows[rows.kind == "stream"].stream))
        width = 0.8 / (1 + len(streams))
        for k, name in enumerate(["device", *streams]):
            values = [
                float(rows[(rows.config == c) & (rows.stream == name)].waf.iloc[0])
                if not rows[(rows.config == c) & (rows.stream == name)].empty
                else float("nan")
                for c in configs
            ]
            xs = [i + (k - len(streams) / 2) * width for i in range(len(configs))]
            bars = waf_ax.bar(xs, values, width, label=name)
            waf_ax.bar_label(bars, labels=[f"{v:.2f}" if v == v else "" for v in values], fontsize=6, padding=1)
        waf_ax.set(ylabel="write amplification", xticks=range(len(configs)), xticklabels=configs)
        waf_ax.set_title(f"{workload}: write amplification", fontsize=9)
        waf_ax.legend(fontsize=7, ncol=4)
        waf_ax.margins(y=0.2)
        for config in configs:
            series = rows[(rows.kind == "window") & (rows.config == config)].dropna(subset=["write_mb_per_s"])
            time_ax.plot(series.time_s, series.write_mb_per_s, marker=".", label=config)
        time_ax.set(xlabel="time in the measurement (s)", ylabel="write MB/s (10^6 B/s)")
        time_ax.set_title(f"{workload}: throughput over time", fontsize=9)
        time_ax.set_ylim(bottom=0)
        time_ax.legend(fontsize=7)
    fig.suptitle(f"{who(table)}: data placement", fontsize=10)
    fig.tight_layout()
    return fig
