"""The figure of ``ssdtwin study endurance``: it draws a finished table of
:mod:`ssdtwin.studies.endurance` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import pyplot, who


def plot_endurance(table: pd.DataFrame) -> Any:
    """Percentage Used over the years for each row, with the date its rated TBW is reached
    marked; beside it each row's write amplification."""
    plt = pyplot()
    fig, (life, wa) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [2, 1]})
    ends = [y for y in [*table.years_to_100pct_used, *table.years_to_rated_tbw] if y == y and y < float("inf")]
    horizon = 1.15 * max(ends, default=5.0)
    labels = []
    for i, r in enumerate(table.itertuples()):
        label = f"{r.job}" if r.variant == "as-shipped" else f"{r.variant} / {r.job}"
        labels.append(label)
        color = f"C{i % 10}"
        life.plot([0, horizon], [0, r.percentage_used_per_year * horizon], color=color, label=label)
        if r.years_to_rated_tbw == r.years_to_rated_tbw:
            used = r.percentage_used_per_year * r.years_to_rated_tbw
            life.plot([r.years_to_rated_tbw], [used], "o", color=color)
    life.axhline(100, color="grey", ls="--", lw=1)
    life.set(
        xlabel="years in service",
        ylabel="Percentage Used (%)",
        xlim=(0, horizon),
        ylim=(0, max(110.0, 1.05 * float((table.percentage_used_per_year * horizon).max()))),
        title=f"{who(table)}: wear at the workload's duty cycle (dots: rated TBW reached)",
    )
    life.grid(alpha=0.3)
    life.legend(fontsize="small")
    wa.barh(labels, table.write_amplification, color=[f"C{i % 10}" for i in range(len(table))])
    wa.set(xlabel="write amplification (NAND / host bytes)", title="steady state")
    wa.invert_yaxis()
    wa.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    return fig
