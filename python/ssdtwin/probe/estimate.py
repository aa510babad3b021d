"""An inferred value with where it came from and how sure it is, and the small fits the
measurements share.

Every number the prober infers is an :class:`Estimate`: its value and unit, an uncertainty
(± in the same unit), the measurement (fio jobs) it came from, and the reasoning that turned
the measurement into the value. A value that could not be inferred is still an estimate,
with ``value=None`` or a ``status`` that says what it is (a bound, absent, a default).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: What an estimate is: measured; only a bound (the measurement hit another limit first);
#: the mechanism is absent (no SLC cache, a map that never misses); or not inferred (a
#: documented default stands in).
STATUSES = ("inferred", "lower bound", "upper bound", "absent", "not inferred")


@dataclass(frozen=True)
class Estimate:
    """One inferred quantity.

    >>> e = Estimate("tr_ns", 50_000.0, "ns", 250.0, "die scan", "1 / IOPS of one die")
    >>> e.relative_uncertainty
    0.005
    """

    name: str
    value: float | None
    unit: str
    uncertainty: float | None
    measurement: str
    method: str
    status: str = "inferred"

    def __post_init__(self) -> None:
        assert self.status in STATUSES, f"estimate status {self.status!r} is one of {STATUSES}"

    @property
    def relative_uncertainty(self) -> float | None:
        """The uncertainty over the value (None where either is missing or the value is 0)."""
        if self.value is None or self.uncertainty is None or self.value == 0:
            return None
        return abs(self.uncertainty / self.value)

    def record(self) -> dict[str, object]:
        """A JSON-ready record."""
        return {
            "name": self.name,
            "value": self.value,
            "unit": self.unit,
            "uncertainty": self.uncertainty,
            "status": self.status,
            "measurement": self.measurement,
            "method": self.method,
        }


@dataclass(frozen=True)
class Line:
    """A least-squares line ``y = intercept + slope x x`` with the standard errors of both."""

    intercept: float
    slope: float
    intercept_error: float
    slope_error: float

    def at(self, x: float) -> float:
        """The line's value at ``x``."""
        return self.intercept + self.slope * x


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> Line:
    """Least squares through the points (at least two distinct x), with standard errors
    from the residuals (zero when the points lie on the line).

    >>> line = fit_line([1, 2, 3], [3, 5, 7])
    >>> line.intercept, line.slope, line.slope_error
    (1.0, 2.0, 0.0)
    """
    n = len(xs)
    assert n == len(ys) and n >= 2, "a line needs at least two points"
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    assert sxx > 0, "a line needs two distinct x values"
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    intercept = my - slope * mx
    if n == 2:
        return Line(intercept, slope, 0.0, 0.0)
    residual = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True)) / (n - 2)
    slope_error = math.sqrt(residual / sxx)
    intercept_error = math.sqrt(residual * (1 / n + mx * mx / sxx))
    return Line(intercept, slope, intercept_error, slope_error)


def median(values: Sequence[float]) -> float:
    """The median of a non-empty sequence.

    >>> median([3, 1, 2]), median([1, 2, 3, 4])
    (2, 2.5)
    """
    ordered = sorted(values)
    n = len(ordered)
    assert n, "the median of nothing"
    mid = n // 2
    return ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
