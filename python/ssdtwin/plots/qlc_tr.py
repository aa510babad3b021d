"""The figure of ``ssdtwin study qlc-tr``: it draws a finished table of
:mod:`ssdtwin.studies.qlc_tr` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import GIB, pyplot, who


def plot_qlc_tr(table: pd.DataFrame) -> Any:
    """Mean and p99 latency against data written, with the first GiB's SLC share on a second
    axis. Amounts are binary (GiB), as the study's table gives them."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(table.written_gib, table.mean_lat_us, marker="o", ms=3, label="mean")
    ax.plot(table.written_gib, table.p99_lat_us, marker=".", ms=3, ls="--", label="p99")
    ax.set(
        xlabel=f"data written ({GIB})",
        ylabel="QD1 4 KiB read latency (µs)",
        title=f"{who(table)}: QD1 4 KiB random reads of the first GiB while writing",
    )
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    share = ax.twinx()
    in_slc = "share of the first GiB in SLC"
    shaded = share.fill_between(
        table.written_gib, table.slc_resident_fraction, alpha=0.12, color="C2", step="mid", label=in_slc
    )
    share.set(ylabel=in_slc, ylim=(0, 1.05))
    handles, labels = ax.get_legend_handles_labels()
    ax.legend([*handles, shaded], [*labels, in_slc], loc="upper left")
    fig.tight_layout()
    return fig
