"""SNIA PTS steady state over a series of rounds (serve-probe-facts §2.2; CloudHarmony's
``isSteadyState()``, SSS PTS 2.0).

The measurement window is the last five rounds of the tracking variable ``y`` (for the
IOPS test, random 4 KiB write IOPS). It is in steady state when, within the window,

* the data excursion ``max(y) - min(y)`` is at most 20 % of the window's average, and
* the slope excursion ``|slope| x 4`` of the least-squares line through the window (one
  point per round) is at most 10 % of the average.

A test runs at most 25 rounds; without steady state by then it is reported as not steady.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .estimate import fit_line

WINDOW = 5
MAX_ROUNDS = 25
DATA_EXCURSION = 0.20
SLOPE_EXCURSION = 0.10


@dataclass(frozen=True)
class Window:
    """The last ``WINDOW`` rounds and whether they meet both rules."""

    first_round: int
    average: float
    data_excursion: float
    slope_excursion: float

    @property
    def steady(self) -> bool:
        return (
            self.data_excursion <= DATA_EXCURSION * self.average
            and self.slope_excursion <= SLOPE_EXCURSION * self.average
        )


def window(values: Sequence[float]) -> Window | None:
    """The measurement window over the last rounds of ``values`` (None before five rounds).

    >>> w = window([900, 400, 310, 300, 305, 298, 302])
    >>> w.first_round, w.steady
    (3, True)
    >>> window([500, 450, 400, 350, 300]).steady   # still falling: the slope rule fails
    False
    """
    if len(values) < WINDOW:
        return None
    ys = [float(v) for v in values[-WINDOW:]]
    average = sum(ys) / WINDOW
    slope = fit_line(list(range(WINDOW)), ys).slope
    return Window(len(values) - WINDOW + 1, average, max(ys) - min(ys), abs(slope) * (WINDOW - 1))
