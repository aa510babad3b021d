"""The figure of ``ssdtwin study cdm``: it draws a finished table of
:mod:`ssdtwin.studies.cdm` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import MB_PER_S, pyplot, who


def plot_cdm(table: pd.DataFrame) -> Any:
    """CrystalDiskMark's window as bars: MB/s per test, reads beside writes."""
    plt = pyplot()
    tests = list(dict.fromkeys(table.test))
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for i, op in enumerate(("read", "write")):
        g = table[table.op == op].set_index("test").reindex(tests)
        bars = ax.barh([t + 0.4 * i for t in range(len(tests))], g.mb_per_s, 0.4, label=op)
        ax.bar_label(bars, fmt="%.0f", fontsize="small", padding=2)
    ax.set_yticks([t + 0.2 for t in range(len(tests))], tests)
    ax.invert_yaxis()
    ax.set(xlabel=MB_PER_S, title=f"{who(table)}: CrystalDiskMark 8 tests (best run of each)")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig
