"""The figure of ``ssdtwin study hmb``: it draws a finished table of
:mod:`ssdtwin.studies.hmb` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import drive_and_host, pyplot


def plot_hmb(table: pd.DataFrame) -> Any:
    """IOPS against range, one line per HMB setting, one panel per rw."""
    plt = pyplot()
    rws = list(dict.fromkeys(table.rw))
    fig, axes = plt.subplots(1, len(rws), figsize=(6 * len(rws), 4.2), squeeze=False)
    for ax, rw in zip(axes[0], rws, strict=True):
        rows = table[table.rw == rw]
        for mib, g in rows.groupby("hmb_mib"):
            ax.plot(g.range_gib, g.iops / 1e3, marker="o", ms=3, label="HMB off" if mib == 0 else f"HMB {mib} MiB")
        mix = f" {rows.rwmixread.iloc[0]}% reads" if rw == "randrw" else ""
        ax.set(xlabel="LBA range (GiB)", ylabel="K IOPS", title=f"{rw}{mix}, 4 KiB, QD 16 x 8 jobs")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"{drive_and_host(table)}: IOPS against the LBA range read or written, by HMB size", fontsize=10)
    fig.tight_layout()
    return fig
