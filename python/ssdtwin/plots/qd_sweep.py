"""The figure of ``ssdtwin study qd-sweep``: it draws a finished table of
:mod:`ssdtwin.studies.qd_sweep` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import drive_and_host, pyplot


def plot_qd_sweep(table: pd.DataFrame) -> Any:
    """IOPS against queue depth, and mean latency against IOPS, one line per direction."""
    plt = pyplot()
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for (rw, direction), g in table.groupby(["rw", "direction"], sort=False):
        label = f"{rw} ({direction})" if rw == "randrw" else rw
        a.plot(g.iodepth, g.iops / 1e3, marker="o", label=label)
        b.plot(g.iops / 1e3, g.mean_lat_us, marker="o", label=label)
    a.set(xscale="log", xlabel="queue depth", ylabel="K IOPS", title="IOPS vs queue depth")
    b.set(xlabel="K IOPS", ylabel="mean latency (µs)", title="latency vs IOPS")
    a.legend()
    b.legend()
    fig.suptitle(
        f"{drive_and_host(table)}: {', '.join(dict.fromkeys(table.rw))} at queue depths "
        f"{', '.join(str(d) for d in dict.fromkeys(table.iodepth))}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig
