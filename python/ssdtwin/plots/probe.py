"""Figures of a probe: each takes a finished table of :mod:`ssdtwin.probe` and returns a
matplotlib figure (matplotlib is imported inside each function)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import pyplot


def _axes(title: str, xlabel: str, ylabel: str, size: tuple[float, float] = (7.0, 4.2)) -> Any:
    fig, ax = pyplot().subplots(figsize=size)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.grid(alpha=0.3)
    return fig, ax


def plot_cliff(cliff: pd.DataFrame, cache_bytes: float | None, recovery: pd.DataFrame | None = None) -> Any:
    """Write rate against data written after a purge, with the cliff marked; the recovery
    bursts' recovered bytes, if given, on a second panel.

    >>> t = pd.DataFrame({"written_bytes": [1e9, 2e9, 3e9, 4e9], "bytes_per_s": [7e8, 7e8, 2e8, 2e8]})
    >>> plot_cliff(t, 2.2e9).axes[0].get_xlabel()
    'written (GiB)'
    """
    fig, ax = _axes("Sequential 128 KiB writes after a purge", "written (GiB)", "write rate (MB/s)")
    ax.plot(cliff.written_bytes / 2**30, cliff.bytes_per_s / 1e6, lw=1)
    if cache_bytes:
        ax.axvline(cache_bytes / 2**30, color="grey", ls=":", label=f"cliff at {cache_bytes / 2**30:.2f} GiB")
        ax.legend(loc="upper right")
    ax.set_ylim(bottom=0)
    if recovery is not None and len(recovery):
        inset = ax.inset_axes((0.55, 0.45, 0.4, 0.35))
        idle = recovery[recovery.trigger == "idle"]
        inset.plot(idle.seconds, idle.recovered_bytes / 2**30, marker="o")
        inset.set(xlabel="idle (s)", ylabel="recovered (GiB)", xscale="log")
        inset.tick_params(labelsize=7)
    fig.tight_layout()
    return fig


def plot_span(coverage: pd.DataFrame, coverage_bytes: float | None) -> Any:
    """QD1 latency (and IOPS) against the LBA span read, the inferred coverage marked."""
    fig, ax = _axes("QD1 4 KiB random reads against span", "span (GiB)", "mean latency (µs)")
    qd1 = coverage[coverage.iodepth == 1].sort_values("span_bytes")
    ax.plot(qd1.span_bytes / 2**30, qd1.mean_lat_us, marker="o", ms=3)
    ax.set_xscale("log", base=2)
    if coverage_bytes:
        ax.axvline(coverage_bytes / 2**30, color="grey", ls=":", label=f"coverage {coverage_bytes / 2**30:.1f} GiB")
        ax.legend(loc="upper left")
    ax.set_ylim(bottom=0)
    iops = ax.twinx()
    iops.plot(qd1.span_bytes / 2**30, qd1.iops / 1e3, color="C1", ls="--", lw=0.8)
    iops.set(ylabel="K IOPS (dashed)", ylim=(0, None))
    fig.tight_layout()
    return fig


def plot_qd(qd: pd.DataFrame) -> Any:
    """IOPS and mean latency against queue depth."""
    fig, ax = _axes("4 KiB random reads of written data against queue depth", "queue depth", "K IOPS")
    ax.plot(qd.iodepth, qd.iops / 1e3, marker="o", ms=3)
    ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)
    lat = ax.twinx()
    lat.plot(qd.iodepth, qd.mean_lat_us, color="C1", ls="--", marker=".")
    lat.set(ylabel="mean latency (µs, dashed)", yscale="log")
    fig.tight_layout()
    return fig


def plot_rounds(rounds: pd.DataFrame) -> Any:
    """GC steady state: tracking IOPS per round, with the SNIA PTS window and its ±10 %
    band around the window's average where steady state was reached."""
    fig, ax = _axes("4 KiB random writes per round (SNIA PTS steady state)", "round", "K IOPS")
    ax.plot(rounds["round"], rounds.iops / 1e3, marker="o", ms=3)
    steady = rounds[rounds.in_window] if "in_window" in rounds else rounds.iloc[0:0]
    if len(steady):
        mean = steady.iops.mean() / 1e3
        ax.fill_between(steady["round"], 0.9 * mean, 1.1 * mean, color="C2", alpha=0.2, label="window ± 10 %")
        ax.legend(loc="upper right")
    ax.set_ylim(bottom=0)
    fig.tight_layout()
    return fig


def plot_die_scan(region: pd.DataFrame) -> Any:
    """The unit and die scans: IOPS against the span read (4 KiB units, program units)."""
    fig, ax = _axes("Reads of a region written in order", "units read (4 KiB) / program units", "K IOPS")
    for test, marker in (("unit scan", "o"), ("die scan", "s")):
        t = region[region.test == test]
        ax.plot(t.x, t.iops / 1e3, marker=marker, ms=3, label=test)
    ax.set_xscale("log", base=2)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left")
    fig.tight_layout()
    return fig
