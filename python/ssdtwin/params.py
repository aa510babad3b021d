"""Command-line parameter types the CLI and the studies share: numbers that must be
numbers (click's ``FloatRange`` lets ``nan`` through, and ``inf`` past an open end), the
run seed as fio takes it (an unsigned 64-bit integer), and fio's time values."""

from __future__ import annotations

import math
import re
from typing import Any

import click


class _Seed(click.IntRange):
    """fio's ``randseed``: an unsigned 64-bit integer."""

    name = "integer"


#: fio's ``randseed``: an unsigned 64-bit integer.
SEED = _Seed(0, 2**64 - 1)


class FiniteFloat(click.FloatRange):
    """A float in a range, and a finite one: ``nan`` and ``inf`` are refused by name."""

    name = "number"

    def _describe_range(self) -> str:
        # Without bounds there is no range to show (click's own would read "x<=None").
        if self.min is None and self.max is None:
            return ""
        return super()._describe_range()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class FioTime(click.ParamType[str, Any]):
    """A time as fio's command line takes one: a whole number with an optional unit (d, h,
    m, s, ms or msec, us or usec), kept as written."""

    name = "time"
    _PATTERN = re.compile(r"\d+(d|h|m|s|ms|msec|us|usec)?", re.IGNORECASE)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value).strip()
        if not self._PATTERN.fullmatch(text):
            self.fail(
                f"'{value}': expected a whole number with an optional unit d, h, m, s, ms, us, e.g. 500ms", param, ctx
            )
        return text
