"""The figure of ``ssdtwin study thermal``: it draws a finished table of
:mod:`ssdtwin.studies.thermal` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import drive_and_host, pyplot, second_edges


def plot_thermal(table: pd.DataFrame) -> Any:
    """Temperature (top) and write rate (bottom) over time, one line per airflow."""
    plt = pyplot()
    fig, (temp, rate) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for i, (airflow, t) in enumerate(table.groupby("airflow_m_per_s", sort=True)):
        color = f"C{i % 10}"
        temp.plot(t.t_s, t.temperature_c, color=color, label=f"{airflow:g} m/s airflow")
        step = float(t.t_s.iloc[1] - t.t_s.iloc[0]) if len(t) > 1 else 1.0
        edges = [x * step for x in second_edges(t.t_s / step)]
        rate.stairs(t.write_mb_per_s, edges, baseline=None, color=color, label=f"{airflow:g} m/s")
    temp.set(ylabel="composite temperature (°C)", title=f"{drive_and_host(table)}: a long sequential write")
    temp.grid(alpha=0.3)
    temp.legend(fontsize="small")
    rate.set(xlabel="time (s)", ylabel="write MB/s (10^6 B/s)", ylim=(0, None))
    rate.grid(alpha=0.3)
    fig.tight_layout()
    return fig
