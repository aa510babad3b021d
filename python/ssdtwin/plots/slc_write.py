"""The figure of ``ssdtwin study slc-write``: it draws a finished table of
:mod:`ssdtwin.studies.slc_write` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..studies.slc_write import knee
from .base import pyplot, second_edges


def plot_slc_write(table: pd.DataFrame) -> Any:
    """Write rate per second, with the data written on a second axis."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.stairs(table.write_mib_per_s, second_edges(table.t_s), baseline=None, label="write MiB/s", lw=1.5)
    title = f"{table.profile.iloc[0]} on {table.host.iloc[0]}: sequential writes after a format"
    ax.set(xlabel="time (s)", ylabel="MiB/s (2^20 B/s)", title=title)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    written = ax.twinx()
    written.plot(table.t_s, table.written_gb, color="C1", ls="--", label="written (GB)")
    written.set(ylabel="written (GB)", ylim=(0, None))
    k = knee(table)
    if k is not None:
        ax.axvline(k["t_s"], color="grey", ls=":", label=f"cliff at {k['written_gb']:.2f} GB")
    ax.legend(loc="lower left")
    fig.tight_layout()
    return fig
