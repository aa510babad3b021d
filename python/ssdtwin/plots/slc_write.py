"""The figure of ``ssdtwin study slc-write``: it draws a finished table of
:mod:`ssdtwin.studies.slc_write` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..studies.slc_write import knee
from .base import GB, MB_PER_MIB, MB_PER_S, first_value, pyplot, second_edges, who


def block(nbytes: object) -> str:
    """A block size as the figures write it: ``128 KiB`` (a size, not a rate or an amount).

    >>> block(131072), block(None)
    ('128 KiB', '')
    """
    if not isinstance(nbytes, int | float) or nbytes <= 0:
        return ""
    n = int(nbytes)
    return f"{n >> 20} MiB" if n % (1 << 20) == 0 else f"{n >> 10} KiB" if n % 1024 == 0 else f"{n} B"


def plot_slc_write(table: pd.DataFrame) -> Any:
    """Write rate per second (the table's MiB/s drawn as MB/s, 10⁶ B/s, the unit of the data
    written beside it), with the data written on a second axis and the cliff marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.stairs(
        table.write_mib_per_s * MB_PER_MIB, second_edges(table.t_s), baseline=None, label="write rate (MB/s)", lw=1.5
    )
    size = block(first_value(table, "bs"))
    threads = first_value(table, "threads")
    per = f", {threads} thread{'s' if threads != 1 else ''} at QD1" if threads else ", QD1 per thread"
    title = f"{who(table)}: sequential {size + ' ' if size else ''}writes after a format{per}"
    ax.set(xlabel="time (s)", ylabel=MB_PER_S, title=title)
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    written = ax.twinx()
    written.plot(table.t_s, table.written_gb, color="C1", ls="--", label="written (GB)")
    written.set(ylabel=f"written ({GB})", ylim=(0, None))
    k = knee(table)
    if k is not None:
        ax.axvline(k["t_s"], color="grey", ls=":", label=f"cliff at {k['written_gb']:.2f} GB")
    handles, labels = ax.get_legend_handles_labels()
    more = written.get_legend_handles_labels()
    ax.legend(handles + more[0], labels + more[1], loc="lower left")
    fig.tight_layout()
    return fig
