"""What the figures share: pyplot on a backend that needs no display, the stairs of
per-second rates, who a figure is about, and the unit families their labels use."""

from __future__ import annotations

from typing import Any

import pandas as pd

#: Decimal units, as the studies count rates and amounts (10⁶ B/s, 10⁹ B).
MB_PER_S = "MB/s (10^6 B/s)"
GB = "GB, 10^9 B"
#: Binary units, for figures whose table counts in them (stated where they are used).
GIB = "GiB, 2^30 B"
#: Bytes per MiB over bytes per MB: a rate in MiB/s times this is the rate in MB/s.
MB_PER_MIB = 2**20 / 1e6


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


def who(table: pd.DataFrame) -> str:
    """:func:`drive_and_host` with the host ``none`` said in words.

    >>> who(pd.DataFrame({"profile": ["p32a80"], "host": ["none"]}))
    'p32a80 on no host (the drive alone)'
    """
    text = drive_and_host(table)
    return text.removesuffix(" on none") + " on no host (the drive alone)" if text.endswith(" on none") else text


def first_value(table: pd.DataFrame, column: str) -> Any:
    """The first row's ``column`` (a setting every row of a study's table repeats), or None
    where the table has no such column or no rows."""
    return table[column].iloc[0] if column in table and len(table) else None
