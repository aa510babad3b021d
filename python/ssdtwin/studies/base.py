"""What a study is, for the CLI: a name, options, a sweep and a report (its figure is
:data:`ssdtwin.plots.FIGURES`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import click
import pandas as pd

from ..device import Device
from ..params import SEED

#: Called once per finished point with a short label (for a progress bar).
Advance = Callable[[str], None] | None


def one_part(**_: Any) -> list[dict[str, Any]]:
    """A study whose points depend on each other (one drive carried from point to point)
    runs as a single part."""
    return [{}]


@dataclass(frozen=True)
class Study:
    """A study as the CLI and the sweep engine see it.

    One drive's study is split into independent *parts* (``parts``: the option values each
    part runs with, e.g. one HMB setting and one access pattern), each run by ``sweep`` on a
    drive of its own, so that the sweep engine can run them on any executor; ``report``
    turns the drive's whole table into the text the command prints.
    """

    name: str
    help: str
    #: The drive the study runs on unless ``--profile`` names others (the measurement's).
    profile: str
    #: click options mapped to keyword arguments of ``sweep``, ``count``, ``parts`` and ``report``.
    options: list[click.Option]
    #: Runs one part (or the whole study, given all the options) and returns its table.
    sweep: Callable[..., pd.DataFrame]
    #: Number of steps (progress ticks) ``sweep`` takes for these arguments.
    count: Callable[..., int]
    #: The text report of one drive's whole table (may be empty).
    report: Callable[..., str]
    #: The independent parts of one drive's study, as option values that replace the
    #: command's; parts run in any order and their tables are concatenated in this order.
    parts: Callable[..., list[dict[str, Any]]] = one_part
    #: Turns a drive's concatenated parts into its table, for values that compare parts
    #: (a score against the best LBA format, say).
    finish: Callable[[pd.DataFrame], pd.DataFrame] = lambda table: table
    #: The host profile of the measurement the study reproduces (``--host`` overrides it).
    host: str = "linux-6.1"
    extra: dict[str, Any] = field(default_factory=dict)
    #: Whether the study takes ``--host`` (a study that names its hosts another way, such
    #: as the memory study's ``--kernel``, does not).
    takes_host: bool = True
    #: A column (and the option of the same name, a comma-separated list) to draw one figure
    #: per value of, over every drive's rows, instead of one figure per drive.
    figures_by: str | None = None
    #: Positional click arguments, mapped to keyword arguments like the options.
    arguments: list[click.Argument] = field(default_factory=list)
    #: The tables a report page shows, by caption, from one drive's or several drives'
    #: table (None: the table itself).
    tables: Callable[[pd.DataFrame], dict[str, pd.DataFrame]] | None = None

    def count_points(self, **kwargs: Any) -> int:
        """Progress steps of the whole study on one drive, over all its parts."""
        return sum(self.count(**(kwargs | part)) for part in self.parts(**kwargs))


def on_copies(filled: Device, count: int) -> Iterator[Device]:
    """``count`` drives in ``filled``'s state, one per point: copies for all but the last
    point, which runs on ``filled`` itself, its pending work finished as a copy's would be
    (a copy of a large drive costs its maps' memory; the last needs none)."""
    for point in range(count):
        if point < count - 1:
            yield filled.copy()
        else:
            filled.quiesce()
            yield filled


def seed_option() -> click.Option:
    """``--seed``, the random seed of every stream of a run, as every study takes it."""
    return click.Option(["--seed"], type=SEED, default=1, show_default=True, help="Random seed.")


def int_list(text: str, param_hint: str | None = None, low: int | None = None, high: int | None = None) -> list[int]:
    """``1,2,4`` as integers, each in ``[low, high]`` where given (``param_hint`` names the
    option in errors).

    >>> int_list("1, 2,4")
    [1, 2, 4]
    """
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"'{text}': expected comma-separated integers", param_hint=param_hint) from None
    if not values:
        raise click.BadParameter(f"'{text}': expected at least one value", param_hint=param_hint)
    for v in values:
        if (low is not None and v < low) or (high is not None and v > high):
            allowed = f"{low if low is not None else ''}..{high if high is not None else ''}"
            raise click.BadParameter(f"{v}: allowed {allowed}", param_hint=param_hint)
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
