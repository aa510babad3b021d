"""A probe's outputs: the table a person reads, the JSON a program reads, and the report
directory (every measurement's table, the figures, every fio job run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from .. import report_page
from ..files import place_text
from .plan import ProbeResult
from .runner import Runner, outcome_record

#: How each unit is shown in the text table: scale and suffix.
SHOWN = {
    "ns": (1e-3, "us"),
    "bytes": (2**-30, "GiB"),
    "bytes/s": (1e-6, "MB/s"),
    "IOPS": (1e-3, "K IOPS"),
}


def shown(value: float | None, unit: str) -> str:
    """A value in the unit people read it in.

    >>> shown(61_493.0, "ns"), shown(3 << 30, "bytes"), shown(32768, "bytes"), shown(None, "ns")
    ('61.49 us', '3 GiB', '32 KiB', '-')
    """
    if value is None:
        return "-"
    if unit == "bytes" and abs(value) < 1 << 30:
        return f"{value / 2**20:.4g} MiB" if abs(value) >= 1 << 20 else f"{value / 2**10:.4g} KiB"
    scale, suffix = SHOWN.get(unit, (1.0, unit))
    return f"{value * scale:.4g} {suffix}"


def x_real_time(result: ProbeResult) -> float:
    """Simulated seconds per wall second of a probe of a twin (0 for a real drive)."""
    return result.simulated_s / result.wall_s if result.wall_s > 0 else 0.0


def text(result: ProbeResult) -> str:
    """The inferred values, one per line, then what was not measured."""
    took = f"{result.wall_s:.0f} s"
    if result.simulated_s > 0:
        took += f"; {result.simulated_s:.0f} s simulated, x{x_real_time(result):.3g} real time"
    lines = [f"Probe of {result.target} ({took})", ""]
    width = max(len(n) for n in result.estimates) if result.estimates else 10
    for e in result.estimates.values():
        value = shown(e.value, e.unit)
        plus = f" ± {shown(e.uncertainty, e.unit)}" if e.uncertainty else ""
        status = "" if e.status == "inferred" else f"  [{e.status}]"
        lines.append(f"{e.name:<{width}}  {value}{plus}{status}")
    for name, why in result.skipped.items():
        lines.append(f"not measured: {name} ({why})")
    return "\n".join(lines) + "\n"


def document(result: ProbeResult) -> dict[str, Any]:
    """Everything as JSON-ready data: facts, estimates, skipped measurements, the profile's
    fields with their sources."""
    result.profile_toml()
    assert result.profile is not None
    return {
        "target": result.target,
        "wall_s": result.wall_s,
        "simulated_s": result.simulated_s,
        "x_real_time": x_real_time(result),
        "facts": result.facts.record(),
        "estimates": [e.record() for e in result.estimates.values()],
        "skipped": result.skipped,
        "profile": result.profile.records(),
    }


def tables(result: ProbeResult) -> dict[str, pd.DataFrame]:
    """Each measurement's table by file stem."""
    out = {"estimates": result.table()}
    parts = {
        "floor": result.floor,
        "region": result.first,
        "cliff": result.cliff,
        "recovery": result.recovery,
        "fold-reads": result.fold_reads,
        "span": result.coverage,
        "qd": result.qd,
        "suspend": result.suspend,
        "gc": result.gc,
        "lbaf": result.lbaf,
    }
    for stem, part in parts.items():
        table = getattr(part, "table", None)
        if table is not None:
            out[stem] = table
    return out


def figures(result: ProbeResult) -> list[tuple[str, Any]]:
    """The figures of the measurements the probe made, by file stem."""
    from ..plots.probe import plot_cliff, plot_die_scan, plot_qd, plot_rounds, plot_span

    drawn = []
    target = result.target
    if result.cliff is not None:
        recovery = result.recovery.table if result.recovery is not None else None
        drawn.append(("cliff", plot_cliff(result.cliff.table, result.cliff.cache_bytes, recovery, target)))
    if result.first is not None:
        drawn.append(("die-scan", plot_die_scan(result.first.table, target, result.first.program_unit_bytes)))
    if result.coverage is not None:
        drawn.append(("span", plot_span(result.coverage.table, result.coverage.coverage_bytes, target)))
    if result.qd is not None:
        drawn.append(("qd", plot_qd(result.qd.table, target)))
    if result.gc is not None:
        drawn.append(("gc-rounds", plot_rounds(result.gc.table, target)))
    return drawn


def write_report(
    result: ProbeResult, runner: Runner, directory: Path, drawn: list[tuple[str, Any]] | None = None
) -> list[Path]:
    """Writes the tables (CSV), the figures (PNG: ``drawn``, else drawn here), the estimates
    and every job run (JSON) into ``directory``; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, table in tables(result).items():
        path = directory / f"{stem}.csv"
        place_text(path, table.to_csv(index=False))
        written.append(path)
    import matplotlib.pyplot as plt

    for stem, figure in drawn if drawn is not None else figures(result):
        path = directory / f"{stem}.png"
        figure.savefig(path, dpi=110)
        if drawn is None:
            plt.close(figure)
        written.append(path)
    path = directory / "probe.json"
    place_text(path, json.dumps(document(result), indent=1) + "\n")
    written.append(path)
    steps = [
        {"measurement": s.measurement, "kind": s.kind, "seconds": s.seconds}
        | (outcome_record(s.outcome) if s.outcome is not None else {})
        for s in runner.steps
    ]
    path = directory / "jobs.json"
    place_text(path, json.dumps(steps, indent=1) + "\n")
    written.append(path)
    return written


def page(result: ProbeResult, drawn: list[tuple[str, Any]] | None = None) -> report_page.Page:
    """The probe as one HTML page: the estimates, each measurement's figure (``drawn``, else
    drawn here) and table, and the inferred profile with where each field came from."""
    sections = [report_page.Section("Estimates", [report_page.Text(text(result))])]
    shown = drawn if drawn is not None else figures(result)
    sections.append(report_page.Section("Figures", [report_page.Figure(report_page.png(f), stem) for stem, f in shown]))
    sections.append(
        report_page.Section("Measurements", [report_page.Table(t, stem) for stem, t in tables(result).items()])
    )
    about, fields = report_page.text_fields(result.profile_toml())
    parts: list[report_page.Part] = [report_page.Text(about)] if about else []
    sections.append(
        report_page.Section(
            "Inferred profile", [*parts, report_page.Table(fields, "every field and where its value came from")]
        )
    )
    return report_page.Page(f"ssdtwin probe: {result.target}", report_page.command_line(), sections)
