"""The figure of ``ssdtwin study memory``: it draws a finished table of
:mod:`ssdtwin.studies.memory` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..studies.memory import metric, mmap_over_malloc
from .base import MB_PER_S, pyplot, who

#: What each allocation is, by bench: fio's malloc points are lseek+read/write on the file.
NAMES = {
    "fio": ("mmap + memcpy (fio's mmap engine)", "lseek + read/write (fio's sync engine)"),
    "": ("mmap (a mapped file)", "malloc (swap)"),
}


def _configuration(row: Any, bench: str) -> str:
    parts = [str(row.kernel), f"{row.threads}T", str(row.pattern), f"madvise {row.madvise}"]
    if bench == "fio":
        parts += [str(row.rw), *(["msync"] if row.msync else [])]
    return " ".join(parts)


def plot_memory(table: pd.DataFrame) -> Any:
    """One figure for one bench, R6's headline comparison: in each configuration (kernel,
    threads, pattern, advice; for fio also the direction and msync), the mmap point beside
    the malloc point (swap; for fio lseek+read/write), with mmap / malloc written above each
    pair; a panel per drive, log scale."""
    plt = pyplot()
    bench = str(table.bench.iloc[0])
    column = metric(bench)
    label = "MFLOPS" if column == "mflops" else MB_PER_S
    mmap_name, malloc_name = NAMES.get(bench, NAMES[""])
    profiles = list(dict.fromkeys(table.profile))
    pairs = mmap_over_malloc(table)
    fig, axes = plt.subplots(len(profiles), 1, figsize=(13, 5.2 * len(profiles)), squeeze=False)
    for ax, prof in zip(axes[:, 0], profiles, strict=True):
        p = pairs[pairs.profile == prof].reset_index(drop=True)
        xs = list(range(len(p)))
        ax.bar([x - 0.2 for x in xs], p.mmap, 0.4, label=mmap_name, color="C0")
        ax.bar([x + 0.2 for x in xs], p.malloc, 0.4, label=malloc_name, color="C1")
        for x, r in zip(xs, p.itertuples(), strict=True):
            if r.ratio == r.ratio:
                ax.annotate(
                    f"x{r.ratio:.2f}",
                    (x, max(r.mmap, r.malloc)),
                    textcoords="offset points",
                    xytext=(0, 3),
                    ha="center",
                    fontsize=7,
                    color="C2" if r.ratio > 1 else "C3",
                )
        ax.set_xticks(xs, [_configuration(r, bench) for r in p.itertuples()], fontsize=6, rotation=90)
        ax.set_yscale("log")
        ax.margins(y=0.15)
        rows = table[table.profile == prof]
        memory = float(rows.memory_gib.iloc[0]) * 2**30 / 1e9 if "memory_gib" in rows else float("nan")
        held = f", {memory:,.1f} GB of memory for pages" if memory == memory else ""
        wins = int((p.ratio > 1).sum())
        ax.set(
            ylabel=label,
            title=f"{who(rows)}: {bench}{held} — mmap / malloc above each pair; mmap ahead in {wins} of {len(p)}",
        )
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig
