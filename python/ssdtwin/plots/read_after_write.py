"""The figure of ``ssdtwin study read-after-write``: it draws a finished table of
:mod:`ssdtwin.studies.read_after_write` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import MB_PER_MIB, MB_PER_S, first_value, pyplot, second_edges, who
from .slc_write import block


def plot_read_after_write(table: pd.DataFrame) -> Any:
    """Read rate per second, one line per write time (the table's MiB/s drawn as MB/s,
    10⁶ B/s, the unit of the data written the legend gives)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    # Curves that coincide (W = 5, 7, 9 s all overflow the cache) stay visible: each later
    # one is drawn thinner and dashed over the earlier, wider ones.
    styles = ["-", "--", "-.", ":"]
    groups = list(table.groupby("write_s"))
    for k, (w, g) in enumerate(groups):
        label = "formatted (W = 0)" if w == 0 else f"after W = {w} s of writes ({g.written_gb.iloc[0]:.1f} GB)"
        width = 1.0 + 2.5 * (len(groups) - 1 - k) / max(len(groups) - 1, 1)
        style = styles[k % len(styles)]
        rates = g.read_mib_per_s * MB_PER_MIB
        ax.stairs(rates, second_edges(g.t_s), baseline=None, label=label, lw=width, ls=style)
    size = block(first_value(table, "bs"))
    title = f"{who(table)}: sequential {size + ' ' if size else ''}reads at QD1 after writing for W s"
    ax.set(xlabel="read time (s)", ylabel=f"read {MB_PER_S}", title=title)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
