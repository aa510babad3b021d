"""Thermal study: temperature and bandwidth over a long sequential write, with and without
airflow.

A bare M.2 drive writing flat out heats towards ambient plus its power times its thermal
resistance; when its composite temperature reaches WCTEMP the firmware throttles it (fewer
dies at once), the power falls and the temperature settles near the threshold. Airflow
lowers the resistance, so the same drive may never get there. The table has one row per
airflow and second; the figure shows temperature and write rate over time, with the drive's
WCTEMP and CCTEMP, where throttling began and where the SLC cache filled.

Every row also names the ``host``, the ``bs`` and the drive's thresholds in °C
(``wctemp_c``, ``cctemp_c``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

import click
import pandas as pd

from ..device import Device
from ..params import FiniteFloat
from .base import Advance, Study

#: The thresholds the twin applies when a profile states none (kelvin), as the core does.
DEFAULT_WCTEMP_KELVIN = 343
DEFAULT_CCTEMP_KELVIN = 358
#: A write rate below this share of the fastest second before it, unthrottled and staying
#: there, is the SLC cache running out (writes fall to the native program rate).
SLC_DROP = 0.6


def thresholds_c(profile_toml: str) -> tuple[float, float]:
    """A resolved profile's WCTEMP and CCTEMP in °C (the core's defaults, 70 and 85 °C,
    where it states none).

    >>> thresholds_c('[identity]\\nwctemp_kelvin = 336\\n')
    (62.85, 84.85)
    """
    identity = tomllib.loads(profile_toml).get("identity", {})
    wc = identity.get("wctemp_kelvin", DEFAULT_WCTEMP_KELVIN)
    cc = identity.get("cctemp_kelvin", DEFAULT_CCTEMP_KELVIN)
    return round(wc - 273.15, 2), round(cc - 273.15, 2)


def throttle_onset(t: pd.DataFrame) -> pd.Series | None:
    """One airflow's first row where the drive throttles, or None if it never did.

    >>> t = pd.DataFrame({"t_s": [1.0, 2.0, 3.0], "throttle_level": [0, 2, 2]})
    >>> float(throttle_onset(t).t_s)
    2.0
    """
    throttled = t[t.throttle_level > 0]
    return throttled.iloc[0] if len(throttled) else None


def slc_exhaustion(t: pd.DataFrame) -> pd.Series | None:
    """One airflow's first row where the write rate falls below :data:`SLC_DROP` of the
    fastest second before it while the drive does not throttle, and stays there (the next
    unthrottled whole second too): the SLC cache is full and writes go at the native rate.
    None if the table shows no such drop. A last window shorter than the others is left out.

    >>> t = pd.DataFrame({"t_s": [1.0, 2.0, 3.0, 4.0], "write_mb_per_s": [1600.0, 1600.0, 150.0, 148.0],
    ...                   "throttle_level": [0, 0, 0, 0]})
    >>> float(slc_exhaustion(t).t_s)
    3.0
    """
    rows = t.sort_values("t_s")
    if len(rows) > 2:
        step = float(rows.t_s.iloc[1] - rows.t_s.iloc[0])
        if float(rows.t_s.iloc[-1] - rows.t_s.iloc[-2]) < 0.5 * step:
            rows = rows.iloc[:-1]
    rows = rows[rows.throttle_level == 0]
    rates = rows.write_mb_per_s.to_list()
    for i in range(1, len(rates)):
        low = SLC_DROP * max(rates[:i])
        if rates[i] < low and (i + 1 == len(rates) or rates[i + 1] < low):
            return rows.iloc[i]
    return None


def thermal_sweep(
    profile: str = "crucial-p1",
    *,
    airflows_m_per_s: Sequence[float] = (0.0, 2.0),
    seconds: float = 300.0,
    bs: str = "128k",
    window_s: float = 1.0,
    overrides: Mapping[str, object] | None = None,
    host: str = "linux-6.1",
    advance: Advance = None,
) -> pd.DataFrame:
    """Sequential writes at QD32 for ``seconds`` on a fresh drive, once per airflow: one row
    per ``window_s`` with ``airflow_m_per_s``, ``t_s`` (end of the window), ``write_mb_per_s``
    (10⁶ B/s), ``temperature_c`` and ``power_w`` at the window's end, and
    ``throttle_level`` (0 none, 1 light, 2 heavy, 3 critical).

    >>> small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 12 << 30}
    >>> t = thermal_sweep("generic-tlc-1tb", seconds=2, overrides=small)
    >>> sorted(set(t.airflow_m_per_s)), bool(t.temperature_c.max() > 25)
    ([0.0, 2.0], True)
    """
    frames = []
    limits: tuple[float, float] | None = None
    for airflow in airflows_m_per_s:
        if not 0.0 <= float(airflow) <= 100.0:
            raise click.BadParameter(f"{airflow}: allowed 0 to 100 m/s", param_hint="--airflow")
        settings = dict(overrides or {}) | {"thermal.airflow_m_per_s": float(airflow)}
        dev = Device(profile, overrides=settings, host=host)
        limits = thresholds_c(dev.profile_toml)
        job = {
            "name": "thermal",
            "rw": "write",
            "bs": bs,
            "iodepth": 32,
            "ioengine": "libaio",
            "direct": 1,
            "time_based": True,
            "runtime": float(seconds),
        }
        series = dev.run(job, series_window_ms=window_s * 1000.0).series
        rows = series.iloc[1:]
        frames.append(
            pd.DataFrame(
                {
                    "profile": profile,
                    "airflow_m_per_s": float(airflow),
                    "t_s": rows.time_s.round(6),
                    "write_mb_per_s": rows.get("write_mb_per_s", pd.Series(0.0, index=rows.index)).fillna(0.0),
                    "temperature_c": rows.temperature_mk / 1000.0 - 273.15,
                    "power_w": rows.power_mw / 1000.0,
                    "throttle_level": rows.throttle_level.astype(int),
                }
            )
        )
        if advance:
            advance(f"{airflow:g} m/s")
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "host", host)
    table.insert(1, "bs", bs)
    if limits is not None:
        table["wctemp_c"], table["cctemp_c"] = limits
    return table


def report(table: pd.DataFrame) -> str:
    """Per airflow: the hottest reading, when throttling began, when the SLC cache filled
    (if the rate shows it), and the mean write rate (MB/s = 10⁶ B/s)."""
    lines = []
    for airflow, t in table.groupby("airflow_m_per_s", sort=True):
        onset = throttle_onset(t)
        began = f"throttled from t = {onset.t_s:.0f} s" if onset is not None else "never throttled"
        full = slc_exhaustion(t)
        cache = (
            f", SLC cache full at t = {full.t_s:.0f} s ({full.write_mb_per_s:.0f} MB/s after)"
            if full is not None
            else ""
        )
        lines.append(
            f"{airflow:g} m/s: up to {t.temperature_c.max():.1f} C, {began}{cache}, "
            f"mean {t.write_mb_per_s.mean():.0f} MB/s (last minute {t.write_mb_per_s.tail(60).mean():.0f} MB/s)"
        )
    return "\n".join(lines)


def _sweep(
    advance: Advance,
    profile: str,
    airflow: str,
    seconds: float,
    bs: str,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    try:
        airflows = [float(v) for v in airflow.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"'{airflow}': expected comma-separated m/s", param_hint="--airflow") from None
    if not airflows:
        raise click.BadParameter(f"'{airflow}': expected at least one airflow", param_hint="--airflow")
    return thermal_sweep(
        profile, airflows_m_per_s=airflows, seconds=seconds, bs=bs, overrides=overrides, host=host, advance=advance
    )


def _parts(airflow: str, **_: Any) -> list[dict[str, Any]]:
    # Each airflow writes on a drive of its own.
    return [{"airflow": v.strip()} for v in airflow.split(",") if v.strip()] or [{}]


STUDY = Study(
    name="thermal",
    profile="crucial-p1",
    help="Temperature and write bandwidth over a long sequential write, with and without airflow (throttling).",
    options=[
        click.Option(
            ["--airflow"], default="0,2", show_default=True, help="Airflows over the drive, m/s (comma-separated)."
        ),
        click.Option(["--seconds"], type=FiniteFloat(min=0.001), default=300.0, show_default=True, help="Write time."),
        click.Option(["--bs"], default="128k", show_default=True, help="Bytes per write (fio's bs)."),
    ],
    sweep=_sweep,
    count=lambda airflow, **_: max(1, len([v for v in str(airflow).split(",") if v.strip()])),
    report=lambda table, **_: report(table),
    parts=_parts,
)

__all__ = ["STUDY", "report", "slc_exhaustion", "thermal_sweep", "thresholds_c", "throttle_onset"]
