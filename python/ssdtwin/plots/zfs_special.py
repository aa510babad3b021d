"""The figure of ``ssdtwin study zfs-special``: it draws a finished table of
:mod:`ssdtwin.studies.zfs_special` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..zfs import nicenum
from .base import GB, first_value, pyplot, who


def plot_zfs_special(table: pd.DataFrame) -> Any:
    """Left: seconds per workload, disks only against each special configuration (log
    scale). Right: the fill run's special class, metadata and small data, against data
    written, with the 75 % and 100 % lines."""
    plt = pyplot()
    ops = table[table.workload != "fill-to-spill"]
    fill = table[table.workload == "fill-to-spill"]
    fig, axes = plt.subplots(1, 2 if len(fill) else 1, figsize=(12 if len(fill) else 7, 4.5), squeeze=False)
    ax = axes[0][0]
    workloads = list(dict.fromkeys(ops.workload))
    configs = [(False, 0)] + [(True, int(t)) for t in sorted(ops[ops.special].special_small_blocks.unique())]
    width = 0.8 / len(configs)
    for k, (special, t) in enumerate(configs):
        part = ops[(ops.special == special) & ((ops.special_small_blocks == t) | ~ops.special)].set_index("workload")
        label = "disks only" if not special else f"special, small blocks {'off' if t == 0 else nicenum(t)}"
        ax.bar(
            [i + k * width for i in range(len(workloads))],
            [part.seconds.get(w, 0) for w in workloads],
            width,
            label=label,
        )
    ax.set_xticks([i + width * (len(configs) - 1) / 2 for i in range(len(workloads))], workloads, rotation=20)
    ax.set_yscale("log")
    ax.set(ylabel="simulated seconds", title="Same tree and operations, with and without a special vdev")
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    ax.grid(alpha=0.3, axis="y")
    if len(fill):
        ax = axes[0][1]
        gb = fill.data_written_bytes / 1e9
        size = float(fill.special_size_bytes.iloc[0])
        ax.stackplot(
            gb,
            fill.special_metadata_bytes / 1e9,
            fill.special_data_bytes / 1e9,
            labels=["metadata on special", "small data blocks on special"],
            alpha=0.7,
        )
        ax.plot(gb, fill.spilled_bytes / 1e9, color="C3", label="spilled to the disks")
        ax.axhline(size / 1e9, color="k", lw=1, ls="-", label="special class size")
        ax.axhline(0.75 * size / 1e9, color="k", lw=1, ls="--", label="75 %: small blocks stop")
        ax.set(xlabel=f"data written ({GB})", ylabel=f"allocated ({GB})", title="Filling the special class")
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
        ax.grid(alpha=0.3)
    pool = first_value(table, "pool")
    files, sizes = first_value(table, "files"), first_value(table, "size_dist")
    tree = f"{files:,} files ({sizes})" if files is not None else "a file tree"
    named = f"pool {pool} on {who(table)}" if pool else f"a pool on {who(table)}"
    fig.suptitle(f"{named}: {tree}, created and read with and without the special vdev", fontsize=10)
    fig.tight_layout()
    return fig
