"""Figures of a probe: each takes a finished table of :mod:`ssdtwin.probe` and returns a
matplotlib figure (matplotlib is imported inside each function).

Each figure keeps to one unit family and says which: the cliff counts data in decimal GB
and MB (10⁹, 10⁶ B) and rates in MB/s (10⁶ B/s), as the studies do; the span read is
a power of two of bytes, so that figure counts in binary MiB and GiB (2²⁰, 2³⁰ B) and says
so. Powers-of-two axes (queue depth, span, units read) are ticked plainly: 1, 2, 4 …
Titles name the probe's target where the caller gives it."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from .base import GB, MB_PER_S, pyplot


def about(target: str | None) -> str:
    """The probe's target as a title names it: a twin by its profile, anything else as given.

    >>> about("--twin wd-black-256"), about("/dev/nvme0n1"), about(None)
    ('wd-black-256 (twin)', '/dev/nvme0n1', '')
    """
    if not target:
        return ""
    return f"{target.removeprefix('--twin ').strip()} (twin)" if target.startswith("--twin ") else target


def _axes(
    what: str, target: str | None, xlabel: str, ylabel: str, size: tuple[float, float] = (7.0, 4.2)
) -> tuple[Any, Any]:
    fig, ax = pyplot().subplots(figsize=size)
    ax.set(title=_title(what, target), xlabel=xlabel, ylabel=ylabel)
    ax.grid(alpha=0.3)
    return fig, ax


def _title(what: str, target: str | None) -> str:
    return f"{about(target)}: {what}" if target else what


def powers_of_two(values: Iterable[float], most: int = 10) -> list[int]:
    """The powers of two from the largest at or below the least value to the least at or
    above the greatest, every other one (or every fourth …) where there would be more than
    ``most``.

    >>> powers_of_two([1, 12, 256])
    [1, 2, 4, 8, 16, 32, 64, 128, 256]
    >>> powers_of_two([2**24, 6 * 2**30], most=8)
    [16777216, 67108864, 268435456, 1073741824, 4294967296]
    """
    positive = [float(v) for v in values if v > 0]
    if not positive:
        return []
    low, high = math.floor(math.log2(min(positive))), math.ceil(math.log2(max(positive)))
    exponents = list(range(low, high + 1))
    step = 1
    while len(exponents[::step]) > most:
        step *= 2
    return [2**e for e in exponents[::step]]


def plain_log2_ticks(axis: Any, ticks: list[int], label: Callable[[int], str] = str) -> None:
    """Log-2 scale on ``axis`` (an ``Axes.xaxis``), ticked at ``ticks`` written by ``label``
    (plainly: ``1, 2, 4`` rather than ``2^0, 2^1, 2^2``), with no minor ticks."""
    from matplotlib import ticker

    axis.axes.set_xscale("log", base=2)
    axis.set_major_locator(ticker.FixedLocator(ticks))
    axis.set_major_formatter(ticker.FixedFormatter([label(t) for t in ticks]))
    axis.set_minor_locator(ticker.NullLocator())


def binary_size(nbytes: int) -> str:
    """A power-of-two size plainly, in binary units: ``16 MiB``, ``1 GiB``.

    >>> binary_size(16 << 20), binary_size(1 << 30), binary_size(4096)
    ('16 MiB', '1 GiB', '4 KiB')
    """
    for shift, unit in ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if nbytes >= 1 << shift:
            return f"{nbytes / 2**shift:g} {unit}"
    return f"{nbytes} B"


def _legend(ax: Any, *more: Any, **kwargs: Any) -> None:
    """One legend on ``ax`` for its lines and those of ``more`` (twin axes)."""
    handles, labels = ax.get_legend_handles_labels()
    for other in more:
        h, lab = other.get_legend_handles_labels()
        handles, labels = handles + h, labels + lab
    ax.legend(handles, labels, **kwargs)


def plot_cliff(
    cliff: pd.DataFrame,
    cache_bytes: float | None,
    recovery: pd.DataFrame | None = None,
    target: str | None = None,
) -> Any:
    """Write rate against data written after a purge, with the cliff marked; the recovery
    bursts' recovered bytes, if given, on a second panel. Decimal units throughout: data in
    GB (10⁹ B), rates in MB/s (10⁶ B/s), recovered data in MB (10⁶ B).

    >>> t = pd.DataFrame({"written_bytes": [1e9, 2e9, 3e9, 4e9], "bytes_per_s": [7e8, 7e8, 2e8, 2e8]})
    >>> plot_cliff(t, 2.2e9).axes[0].get_xlabel()
    'written (GB, 10^9 B)'
    """
    plt = pyplot()
    panels = recovery is not None and len(recovery) > 0
    if panels:
        fig, (ax, rec) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [2.2, 1]})
    else:
        fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.set(title="write rate against data written", xlabel=f"written ({GB})", ylabel=f"write rate, {MB_PER_S}")
    ax.grid(alpha=0.3)
    ax.plot(cliff.written_bytes / 1e9, cliff.bytes_per_s / 1e6, lw=1, label="write rate")
    if cache_bytes:
        ax.axvline(cache_bytes / 1e9, color="grey", ls=":", label=f"cliff at {cache_bytes / 1e9:.2f} GB")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper right")
    if panels:
        assert recovery is not None
        rec.set(
            title="cache recovered before a burst",
            xlabel="seconds idle or reading before the burst",
            ylabel="recovered (MB, 10^6 B)",
        )
        rec.grid(alpha=0.3)
        for trigger, marker, label in (("idle", "o", "after idle"), ("reads", "s", "after reads")):
            rows = recovery[recovery.trigger == trigger]
            if len(rows):
                rec.plot(rows.seconds, rows.recovered_bytes / 1e6, marker=marker, label=label)
        seconds = sorted({float(s) for s in recovery.seconds if s > 0})
        if len(seconds) > 1 and seconds[-1] / seconds[0] >= 4:
            from matplotlib import ticker

            rec.set_xscale("log")
            rec.xaxis.set_major_locator(ticker.FixedLocator(seconds))
            rec.xaxis.set_major_formatter(ticker.FixedFormatter([f"{s:g}" for s in seconds]))
            rec.xaxis.set_minor_locator(ticker.NullLocator())
        rec.set_ylim(bottom=0)
        rec.legend(loc="best")
    fig.suptitle(_title("sequential 128 KiB writes after a purge", target), fontsize=11)
    fig.tight_layout()
    return fig


def plot_span(coverage: pd.DataFrame, coverage_bytes: float | None, target: str | None = None) -> Any:
    """QD1 latency (and IOPS) against the LBA span read, the inferred coverage marked. The
    spans are powers of two of bytes, counted in binary units (MiB, GiB) as the figure says."""
    fig, ax = _axes(
        "QD1 4 KiB random reads against the span read",
        target,
        "span read (binary: MiB = 2^20 B, GiB = 2^30 B)",
        "mean latency (µs)",
    )
    qd1 = coverage[coverage.iodepth == 1].sort_values("span_bytes")
    ax.plot(qd1.span_bytes, qd1.mean_lat_us, marker="o", ms=3, label="mean latency (left)")
    plain_log2_ticks(ax.xaxis, powers_of_two(qd1.span_bytes, most=8), binary_size)
    ax.tick_params(axis="x", labelsize=8)
    if coverage_bytes:
        ax.axvline(coverage_bytes, color="grey", ls=":", label=f"map coverage {coverage_bytes / 2**30:.2f} GiB")
    # Room above the lines (flat where the map covers every span) for them to be seen.
    ax.set_ylim(0, 1.15 * float(qd1.mean_lat_us.max()) if len(qd1) else None)
    iops = ax.twinx()
    iops.plot(qd1.span_bytes, qd1.iops / 1e3, color="C1", ls="--", lw=0.8, label="K IOPS (right)")
    iops.set(ylabel="K IOPS (dashed)", ylim=(0, 1.15 * float(qd1.iops.max()) / 1e3 if len(qd1) else None))
    _legend(ax, iops, loc="lower left")
    fig.tight_layout()
    return fig


def plot_qd(qd: pd.DataFrame, target: str | None = None) -> Any:
    """IOPS, mean latency and (where measured) p99 latency against queue depth, each depth
    ticked plainly."""
    fig, ax = _axes("4 KiB random reads of written data against queue depth", target, "queue depth", "K IOPS")
    ax.plot(qd.iodepth, qd.iops / 1e3, marker="o", ms=3, label="K IOPS (left)")
    depths = sorted(dict.fromkeys(int(d) for d in qd.iodepth))
    plain_log2_ticks(ax.xaxis, depths if len(depths) <= 12 else powers_of_two(depths))
    ax.set_ylim(bottom=0)
    lat = ax.twinx()
    lat.plot(qd.iodepth, qd.mean_lat_us, color="C1", ls="--", marker=".", label="mean latency (right)")
    if "p99_lat_us" in qd:
        lat.plot(qd.iodepth, qd.p99_lat_us, color="C3", ls=":", marker=".", label="p99 latency (right)")
    lat.set(ylabel="latency (µs, log scale)", yscale="log")
    from matplotlib import ticker

    lat.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    _legend(ax, lat, loc="upper left")
    fig.tight_layout()
    return fig


def plot_rounds(rounds: pd.DataFrame, target: str | None = None) -> Any:
    """GC steady state: tracking IOPS per round, with the SNIA PTS window and its ±10 %
    band around the window's average where steady state was reached."""
    fig, ax = _axes("4 KiB random writes per round (SNIA PTS steady state)", target, "round", "K IOPS")
    ax.plot(rounds["round"], rounds.iops / 1e3, marker="o", ms=3, label="IOPS per round")
    steady = rounds[rounds.in_window] if "in_window" in rounds else rounds.iloc[0:0]
    if len(steady):
        mean = steady.iops.mean() / 1e3
        ax.fill_between(
            steady["round"], 0.9 * mean, 1.1 * mean, color="C2", alpha=0.2, label="steady-state window, average ± 10 %"
        )
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig


def plot_die_scan(region: pd.DataFrame, target: str | None = None, program_unit_bytes: int | None = None) -> Any:
    """The unit and die scans: IOPS against the span read, in 4 KiB units (unit scan) and
    in program units (die scan, ``program_unit_bytes`` each where known), ticked plainly."""
    fig, ax = _axes(
        "reads of a region written in order",
        target,
        "span read: 4 KiB units (unit scan), program units (die scan)",
        "K IOPS",
    )
    unit = f", {binary_size(int(program_unit_bytes))} each" if program_unit_bytes else ""
    labels = {"unit scan": "unit scan (4 KiB units)", "die scan": f"die scan (program units{unit})"}
    for test, marker in (("unit scan", "o"), ("die scan", "s")):
        t = region[region.test == test]
        if len(t):
            ax.plot(t.x, t.iops / 1e3, marker=marker, ms=3, label=labels[test])
    scanned = region[region.test.isin(list(labels))].x
    plain_log2_ticks(ax.xaxis, powers_of_two(scanned))
    ax.set_ylim(bottom=0)
    ax.legend(loc="lower right")
    fig.tight_layout()
    return fig
