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
        (line,) = a.plot(g.iodepth, g.iops / 1e3, marker="o", label=label)
        b.plot(g.iops / 1e3, g.mean_lat_us, marker="o", color=line.get_color(), label=f"{label} mean")
        if "p99_lat_us" in g:
            b.plot(g.iops / 1e3, g.p99_lat_us, ls="--", marker=".", color=line.get_color(), label=f"{label} p99")
    # Queue depths are powers of two, or whatever was asked: tick each, written plainly.
    depths = sorted(dict.fromkeys(int(d) for d in table.iodepth))
    a.set_xscale("log", base=2)
    a.set_xticks(depths, [str(d) for d in depths])
    a.minorticks_off()
    a.set(xlabel="queue depth", ylabel="K IOPS", title="IOPS vs queue depth")
    b.set(xlabel="K IOPS", ylabel="latency (µs)", title="mean and p99 latency vs IOPS")
    a.legend()
    b.legend()
    fig.suptitle(
        f"{drive_and_host(table)}: {', '.join(dict.fromkeys(table.rw))} at queue depths "
        f"{', '.join(str(d) for d in dict.fromkeys(table.iodepth))}",
        fontsize=10,
    )
    fig.tight_layout()
    return fig
