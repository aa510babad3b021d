"""The figure of ``ssdtwin study thermal``: it draws a finished table of
:mod:`ssdtwin.studies.thermal` and never simulates."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..studies.thermal import slc_exhaustion, thresholds_c, throttle_onset
from .base import MB_PER_S, first_value, pyplot, second_edges, who


def thresholds(table: pd.DataFrame) -> tuple[float, float] | None:
    """The drive's WCTEMP and CCTEMP in °C: as the table's columns give them, else from the
    profile the table names (without the run's overrides), else None."""
    if "wctemp_c" in table and "cctemp_c" in table and len(table):
        return float(table.wctemp_c.iloc[0]), float(table.cctemp_c.iloc[0])
    from ..device import profile_toml
    from ..errors import ProfileError

    names = list(dict.fromkeys(str(p) for p in table.profile)) if "profile" in table else []
    if len(names) != 1:
        return None
    try:
        return thresholds_c(profile_toml(names[0]))
    except (ProfileError, OSError, ValueError):
        return None


def plot_thermal(table: pd.DataFrame) -> Any:
    """Temperature (top) and write rate (bottom) over time, one line per airflow; the
    drive's WCTEMP and CCTEMP across the temperatures, where each airflow began to throttle
    (a triangle on its temperature and a line through both panels), and where the SLC cache
    filled (a cross on the write rate)."""
    plt = pyplot()
    fig, (temp, rate) = plt.subplots(2, 1, figsize=(8, 6.4), sharex=True)
    hottest = float(table.temperature_c.max()) if len(table) else 25.0
    for i, (airflow, t) in enumerate(table.groupby("airflow_m_per_s", sort=True)):
        color = f"C{i % 10}"
        onset = throttle_onset(t)
        note = f"throttles at {onset.t_s:.0f} s" if onset is not None else "never throttles"
        temp.plot(t.t_s, t.temperature_c, color=color, label=f"{airflow:g} m/s airflow ({note})")
        step = float(t.t_s.iloc[1] - t.t_s.iloc[0]) if len(t) > 1 else 1.0
        edges = [x * step for x in second_edges(t.t_s / step)]
        rate.stairs(t.write_mb_per_s, edges, baseline=None, color=color, label=f"{airflow:g} m/s airflow")
        if onset is not None:
            temp.plot(
                [onset.t_s], [onset.temperature_c], "v", color=color, ms=8, label=f"throttle onset, {airflow:g} m/s"
            )
            for ax in (temp, rate):
                ax.axvline(onset.t_s, color=color, ls="-.", lw=0.8)
        full = slc_exhaustion(t)
        if full is not None:
            # Each rate is drawn over the window it measured: the drop is at that window's start.
            rate.plot(
                [full.t_s - step],
                [full.write_mb_per_s],
                "X",
                color=color,
                ms=8,
                label=f"SLC cache full, {airflow:g} m/s: by {full.t_s:.0f} s, then {full.write_mb_per_s:,.0f} MB/s",
            )
    limits = thresholds(table)
    if limits is not None:
        wc, cc = limits
        temp.axhline(wc, color="C3", ls="--", lw=1, label=f"WCTEMP {wc:.1f} °C (throttles heavily)")
        temp.axhline(cc, color="darkred", ls=":", lw=1.2, label=f"CCTEMP {cc:.1f} °C (critical)")
        hottest = max(hottest, cc)
    temp.set_ylim(top=hottest + 3)
    bs = first_value(table, "bs")
    workload = f"sequential {bs} writes at QD32" if bs else "sequential writes at QD32"
    temp.set(ylabel="composite temperature (°C)", title=f"{who(table)}: {workload} on a fresh drive")
    temp.grid(alpha=0.3)
    temp.legend(fontsize="small", loc="lower right")
    rate.set(xlabel="time (s)", ylabel=f"write {MB_PER_S}", ylim=(0, None))
    rate.grid(alpha=0.3)
    rate.legend(fontsize="small", loc="upper right")
    fig.tight_layout()
    return fig
