"""The figure of ``ssdtwin study memory``: it draws a finished table of
:mod:`ssdtwin.studies.memory` and never simulates."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .base import pyplot


def plot_memory(table: pd.DataFrame) -> Any:
    """One figure for one bench, as R6 drew them: bandwidth bars per configuration, a panel
    per drive; groups of bars per (alloc, madvise, pattern), one bar per (kernel, threads)."""
    plt = pyplot()
    bench = str(table.bench.iloc[0])
    metric, label = ("mflops", "MFLOPS") if bench == "himeno" else ("mb_per_s", "MB/s")
    profiles = list(dict.fromkeys(table.profile))
    fig, axes = plt.subplots(len(profiles), 1, figsize=(13, 3.6 * len(profiles)), squeeze=False)
    group_cols = ["alloc", "madvise", "pattern"] + (["rw", "msync"] if bench == "fio" else [])
    bar_cols = ["kernel", "threads"]
    for ax, prof in zip(axes[:, 0], profiles, strict=True):
        t = table[table.profile == prof]
        groups = list(dict.fromkeys(map(tuple, t[group_cols].values.tolist())))
        bars = list(dict.fromkeys(map(tuple, t[bar_cols].values.tolist())))
        width = 0.8 / max(len(bars), 1)
        for b, bar in enumerate(bars):
            sel = t[(t[bar_cols[0]] == bar[0]) & (t[bar_cols[1]] == bar[1])]
            values = []
            for g in groups:
                m = sel
                for col, v in zip(group_cols, g, strict=True):
                    m = m[m[col] == v]
                values.append(float(m[metric].iloc[0]) if len(m) else math.nan)
            xs = [i + (b - (len(bars) - 1) / 2) * width for i in range(len(groups))]
            ax.bar(xs, values, width=width, label=f"{bar[0]}, {bar[1]} thread{'s' if bar[1] != 1 else ''}")
        names = ["\n".join(str(v) if not isinstance(v, bool) else ("msync" if v else "") for v in g) for g in groups]
        ax.set_xticks(range(len(groups)), names, fontsize=7)
        ax.set_yscale("log")
        ax.set(ylabel=label, title=f"{prof}: {bench}")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, ncols=2)
    fig.tight_layout()
    return fig
