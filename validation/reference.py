"""Published measurements the studies are validated against (shared/reference/measurements.md).

Each point is what a reference states, read off its text and graphs (treat as ±10 %); a
``bound`` point states only an upper or lower limit. Nothing here is visible to the model:
only `validation/run.py` reads it, to draw the points beside the simulated curve and
compute the error.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    """A reference value: ``series`` names the curve, ``x`` its abscissa."""

    series: str
    x: float
    value: float
    #: "=" (about this value), "<" (below it), ">" (above it).
    relation: str = "="
    #: Allowed relative error for "=" points (the issue's acceptance tolerance).
    tolerance: float = 0.15
    note: str = ""


#: R1 (Silicon Power P32A80, 4 KiB random reads, QD 16 x 8 jobs): IOPS by range in GiB.
R1_READ = [
    Point("HMB off", 1, 20_000, note="~20 K at 1 GiB"),
    *[Point("HMB off", r, 10_000, "<", note="below 10 K beyond 16 GiB") for r in (16, 32, 64, 128, 238)],
    Point("HMB 128 MiB", 1, 58_000, note="~58 K at 1 GiB"),
    *[Point("HMB 128 MiB", r, 50_000, note="~50 K held to 128 GiB") for r in (16, 32, 64, 96, 128)],
    *[Point("HMB 128 MiB", r, 50_000 * 0.85, "<", note="collapse beyond 128 GiB") for r in (176, 208, 238)],
    *[Point("HMB 240 MiB", r, 73_000, note="~73 K flat to 238 GiB") for r in (1, 16, 64, 128, 192, 238)],
]
