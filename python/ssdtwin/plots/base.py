"""What the figures share: pyplot on a backend that needs no display, and the stairs of
per-second rates."""

from __future__ import annotations

from typing import Any

import pandas as pd


def pyplot() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def second_edges(t_s: pd.Series) -> list[float]:
    """Edges of the one-second intervals that end at ``t_s`` (rows measured per second are
    labelled by their end): ``[t_s[0] - 1, t_s[0], …, t_s[-1]]``, for ``Axes.stairs``, so each
    value is drawn over the second it measured.

    >>> second_edges(pd.Series([1, 2, 3]))
    [0.0, 1.0, 2.0, 3.0]
    """
    ends = [float(t) for t in t_s]
    return [ends[0] - 1.0, *ends] if ends else []


def drive_and_host(table: pd.DataFrame) -> str:
    """Who a figure is about, for its title: ``PROFILE on HOST`` from the table's columns
    (several drives or hosts joined with commas; a missing column left out).

    >>> drive_and_host(pd.DataFrame({"profile": ["a", "a", "b"], "host": ["linux-6.1"] * 3}))
    'a, b on linux-6.1'
    """
    named = [", ".join(dict.fromkeys(str(v) for v in table[c])) for c in ("profile", "host") if c in table]
    return " on ".join(named)
