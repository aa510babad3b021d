"""The figure of ``ssdtwin study dirty-recovery``: it draws a finished table of
:mod:`ssdtwin.studies.dirty_recovery` and never simulates."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .base import MB_PER_S, pyplot, who


def plot_dirty_recovery(table: pd.DataFrame) -> Any:
    """Sequential read and write speed in each phase, bars side by side."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    phases = list(dict.fromkeys(table.phase))
    x = np.arange(len(phases))
    for i, rw in enumerate(("read", "write")):
        speeds = [float(table[(table.phase == p) & (table.rw == rw)].mb_per_s.iloc[0]) for p in phases]
        bars = ax.bar(x + (i - 0.5) * 0.38, speeds, 0.38, label=f"sequential {rw}")
        ax.bar_label(bars, fmt="{:,.0f}", fontsize=8)
    first = table.iloc[0]
    ax.set_xticks(x, phases)
    title = f"{who(table)}: sequential 128 KiB QD32 after random writes ({first.dirty_iops:,.0f} IOPS while dirty)"
    ax.set(ylabel=MB_PER_S, title=title)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig
