"""The figure of ``ssdtwin study lbaf``: it draws a finished table of
:mod:`ssdtwin.studies.lbaf` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import MB_PER_S, pyplot, who


def plot_lbaf(table: pd.DataFrame) -> Any:
    """MB/s per test, one bar per LBA format, reads and writes side by side (log scale)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), squeeze=False)
    formats = list(dict.fromkeys(table.lbaf))
    width = 0.8 / len(formats)
    for ax, op in zip(axes[0], ("read", "write"), strict=True):
        part = table[table.op == op]
        tests = list(dict.fromkeys(part.test))
        for i, lbaf in enumerate(formats):
            g = part[part.lbaf == lbaf].set_index("test").reindex(tests)
            label = f"LBAF {lbaf}: {g.data_bytes.iloc[0]}+{g.metadata_bytes.iloc[0]} B, RP {g.advertised_rp.iloc[0]}"
            ax.bar([t + i * width for t in range(len(tests))], g.mb_per_s, width, label=label)
        ax.set_xticks([t + 0.4 - width / 2 for t in range(len(tests))], tests, rotation=20)
        ax.set(ylabel=MB_PER_S, yscale="log", title=f"{op}s by LBA format")
        ax.grid(alpha=0.3, axis="y")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(formats), fontsize="small")
    fig.suptitle(f"{who(table)}: CrystalDiskMark's tests in each LBA format", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig
