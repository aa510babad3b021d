"""The figure of ``ssdtwin study hmb``: it draws a finished table of
:mod:`ssdtwin.studies.hmb` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import GIB, pyplot, who


def plot_hmb(table: pd.DataFrame) -> Any:
    """IOPS (top) and mean and p99 latency (bottom) against the LBA range, one line per HMB
    setting, one column per rw. Sizes are binary throughout (range in GiB, HMB in MiB), as
    the study's options give them."""
    plt = pyplot()
    rws = list(dict.fromkeys(table.rw))
    lat = "mean_lat_us" in table and "p99_lat_us" in table
    rows = 2 if lat else 1
    fig, axes = plt.subplots(rows, len(rws), figsize=(6 * len(rws), 4.2 * rows), squeeze=False, sharex="col")
    for k, rw in enumerate(rws):
        part = table[table.rw == rw]
        ax = axes[0][k]
        mix = f" {part.rwmixread.iloc[0]}% reads" if rw == "randrw" else ""
        for i, (mib, g) in enumerate(part.groupby("hmb_mib")):
            name = "HMB off" if mib == 0 else f"HMB {mib} MiB"
            ax.plot(g.range_gib, g.iops / 1e3, marker="o", ms=3, color=f"C{i % 10}", label=name)
            if lat:
                b = axes[1][k]
                b.plot(g.range_gib, g.mean_lat_us, marker="o", ms=3, color=f"C{i % 10}", label=f"{name}, mean")
                b.plot(g.range_gib, g.p99_lat_us, ls="--", marker=".", color=f"C{i % 10}", label=f"{name}, p99")
        ax.set(ylabel="K IOPS", title=f"{rw}{mix}, 4 KiB, QD 16 x 8 jobs")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        if lat:
            b = axes[1][k]
            b.set(ylabel="latency (µs)", yscale="log", title="mean (solid) and p99 (dashed) latency")
            b.grid(alpha=0.3, which="both")
            b.legend(fontsize="x-small", ncols=2)
        axes[rows - 1][k].set_xlabel(f"LBA range ({GIB})")
    fig.suptitle(f"{who(table)}: IOPS and latency against the LBA range read or written, by HMB size", fontsize=10)
    fig.tight_layout()
    return fig
