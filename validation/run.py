#!/usr/bin/env python3
"""Runs a study, draws it beside the published points, and prints its section of
docs/validation.md (a table of reference, simulated and error per point).

    python3 validation/run.py hmb        # reference R1

Figures go to docs/validation/<study>.png. Each section names this command, so every
figure and number in docs/validation.md can be regenerated.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import R1_READ, Point  # noqa: E402

from ssdtwin.studies.hmb import hmb_sweep  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "docs" / "validation"


def check(points: list[Point], simulated: Callable[[Point], float]) -> tuple[pd.DataFrame, bool]:
    """Compares every point; returns the table and whether all are within tolerance."""
    rows, ok = [], True
    for p in points:
        sim = simulated(p)
        if p.relation == "=":
            err = (sim - p.value) / p.value
            good = abs(err) <= p.tolerance
            ref = f"≈ {p.value:,.0f}"
            shown = f"{err:+.1%}"
        else:
            good = sim < p.value if p.relation == "<" else sim > p.value
            ref = f"{p.relation} {p.value:,.0f}"
            shown = "within bound" if good else "OUT OF BOUND"
        ok &= good
        rows.append(
            {"series": p.series, "x": p.x, "reference": ref, "simulated": f"{sim:,.0f}", "error": shown, "ok": good}
        )
    return pd.DataFrame(rows), ok


def markdown(table: pd.DataFrame, x_name: str) -> str:
    lines = [f"| series | {x_name} | reference | simulated | error |", "|---|---|---|---|---|"]
    for r in table.itertuples():
        x = f"{r.x:g}"
        lines.append(f"| {r.series} | {x} | {r.reference} | {r.simulated} | {r.error} |")
    return "\n".join(lines)


def hmb() -> bool:
    table = hmb_sweep("p32a80", hmb=["off", "128", "240"], rws=["randread"], seconds=10.0)
    names = {0: "HMB off", 128: "HMB 128 MiB", 240: "HMB 240 MiB"}
    table["series"] = table.hmb_mib.map(names)

    def simulated(p: Point) -> float:
        row = table[(table.series == p.series) & (table.range_gib == p.x)]
        return float(row.iops.iloc[0])

    result, ok = check(R1_READ, simulated)
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    colors = {"HMB off": "C0", "HMB 128 MiB": "C1", "HMB 240 MiB": "C2"}
    for series, g in table.groupby("series", sort=False):
        ax.plot(g.range_gib, g.iops / 1e3, marker="o", ms=3, color=colors[series], label=f"ssdtwin, {series}")
    for p in R1_READ:
        marker = {"=": "*", "<": "v", ">": "^"}[p.relation]
        ax.scatter(p.x, p.value / 1e3, marker=marker, s=90, color=colors[p.series], edgecolor="k", zorder=5)
    ax.scatter([], [], marker="*", color="grey", edgecolor="k", label="R1 (published): ≈ value")
    ax.scatter([], [], marker="v", color="grey", edgecolor="k", label="R1: upper bound")
    ax.set(xlabel="LBA range (GiB)", ylabel="K IOPS", title="R1: P32A80 4 KiB random read, QD 16 x 8 jobs")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    FIGURES.mkdir(parents=True, exist_ok=True)
    fig.savefig(FIGURES / "hmb.png", dpi=120)
    print(markdown(result, "range (GiB)"))
    # R1: HMB size makes no difference to random-write IOPS at any range (within 5 %).
    writes = hmb_sweep("p32a80", hmb=["off", "128", "240"], rws=["randwrite"], seconds=10.0)
    spread = writes.groupby("range_gib").iops.agg(lambda s: (s.max() - s.min()) / s.mean())
    worst = float(spread.max())
    print(
        f"\nRandom writes, spread between HMB settings: at most {worst:.2%} (range {int(spread.idxmax())} GiB); "
        f"IOPS {writes.iops.min():,.0f} to {writes.iops.max():,.0f}."
    )
    return ok and worst <= 0.05


STUDIES = {"hmb": hmb}


def main() -> int:
    names = sys.argv[1:] or list(STUDIES)
    bad = [n for n in names if n not in STUDIES]
    if bad:
        print(f"unknown study {bad[0]}; known: {', '.join(STUDIES)}", file=sys.stderr)
        return 2
    ok = all([STUDIES[n]() for n in names])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
