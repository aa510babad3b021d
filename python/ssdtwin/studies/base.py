"""What a study is, for the CLI: a name, options, a sweep and a figure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import click
import pandas as pd

#: Called once per finished point with a short label (for a progress bar).
Advance = Callable[[str], None] | None


@dataclass(frozen=True)
class Study:
    """A study as the CLI sees it."""

    name: str
    help: str
    #: click options mapped to keyword arguments of ``sweep`` and ``count``.
    options: list[click.Option]
    #: Runs the sweep: returns the table and a text report (may be empty).
    sweep: Callable[..., tuple[pd.DataFrame, str]]
    #: Number of points the sweep will run for these arguments.
    count: Callable[..., int]
    #: Draws the figure from a finished table.
    figure: Callable[[pd.DataFrame], Any]
    #: The host profile of the measurement the study reproduces (``--host`` overrides it).
    host: str = "linux-6.1"
    extra: dict[str, Any] = field(default_factory=dict)
    #: Positional click arguments, mapped to keyword arguments like the options.
    arguments: list[click.Argument] = field(default_factory=list)

    def run(self, advance: Advance = None, **kwargs: Any) -> tuple[pd.DataFrame, str]:
        return self.sweep(advance=advance, **kwargs)

    def count_points(self, **kwargs: Any) -> int:
        return self.count(**kwargs)

    def plot(self, table: pd.DataFrame) -> Any:
        return self.figure(table)


def int_list(text: str, param_hint: str | None = None) -> list[int]:
    """``1,2,4`` as integers (``param_hint`` names the option in errors).

    >>> int_list("1, 2,4")
    [1, 2, 4]
    """
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"'{text}': expected comma-separated integers", param_hint=param_hint) from None
    if not values:
        raise click.BadParameter(f"'{text}': expected at least one value", param_hint=param_hint)
    return values


def choice_list(text: str, allowed: tuple[str, ...], param_hint: str | None = None) -> list[str]:
    """Comma-separated words, each from ``allowed`` (``param_hint`` names the option in errors).

    >>> choice_list("randread, randwrite", ("randread", "randwrite", "read"))
    ['randread', 'randwrite']
    """
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in values if v not in allowed]
    if bad or not values:
        raise click.BadParameter(f"'{text}': allowed {', '.join(allowed)} (comma-separated)", param_hint=param_hint)
    return values


def second_edges(t_s: pd.Series) -> list[float]:
    """Edges of the one-second intervals that end at ``t_s`` (rows measured per second are
    labelled by their end): ``[t_s[0] - 1, t_s[0], …, t_s[-1]]``, for ``Axes.stairs``, so each
    value is drawn over the second it measured.

    >>> second_edges(pd.Series([1, 2, 3]))
    [0.0, 1.0, 2.0, 3.0]
    """
    ends = [float(t) for t in t_s]
    return [ends[0] - 1.0, *ends] if ends else []
