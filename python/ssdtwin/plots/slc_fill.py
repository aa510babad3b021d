"""The figure of ``ssdtwin study slc-fill`` and ``whole-fill``: it draws a finished table of
:mod:`ssdtwin.studies.slc_fill` and never simulates."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .base import GB, MB_PER_S, pyplot, who


def plot_fill(table: pd.DataFrame) -> Any:
    """Write speed against data written, with the data the SLC cache holds, and the review's
    figures (the drop and the rates around it) marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.4))
    s = table.iloc[0]
    ax.plot(table.written_gb, table.write_mb_per_s, lw=0.8, label="write speed (MB/s)")
    if not np.isnan(s.post_cache_mb_per_s):
        ax.axvline(s.cache_gb, color="grey", ls=":", label=f"speed drops after {s.cache_gb:,.1f} GB")
        ax.axhline(s.post_cache_mb_per_s, color="C3", ls="--", lw=1, label=f"after: {s.post_cache_mb_per_s:,.0f} MB/s")
    ax.axhline(
        s.whole_fill_avg_mb_per_s,
        color="C2",
        ls="-.",
        lw=1,
        label=f"fill average: {s.whole_fill_avg_mb_per_s:,.0f} MB/s",
    )
    title = f"{who(table)}: sequential {s.bs} writes at QD{s.iodepth} over an erased drive"
    ax.set(xlabel=f"written ({GB})", ylabel=MB_PER_S, title=title)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    cached = ax.twinx()
    cached.plot(table.written_gb, table.slc_cached_gb, color="C1", lw=1, alpha=0.7, label="in SLC (GB)")
    cached.set(ylabel=f"data in SLC ({GB})", ylim=(0, None))
    lines = ax.get_legend_handles_labels()
    more = cached.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper right", fontsize=8)
    fig.tight_layout()
    return fig
