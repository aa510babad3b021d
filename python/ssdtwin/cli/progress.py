"""A progress bar on stderr for long simulations, only where a person is watching."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def wanted(json_on_stdout: bool) -> bool:
    """A bar is shown when stderr and stdout are terminals, no JSON goes to stdout, and the
    command was not given ``ssdtwin --quiet``."""
    return sys.stderr.isatty() and sys.stdout.isatty() and not json_on_stdout and not _quiet()


def lines_wanted() -> bool:
    """Lines per finished point (instead of a bar) go to stderr when it is not a terminal (a
    log, a pipe, a batch job), unless the command was given ``ssdtwin --quiet``."""
    return not sys.stderr.isatty() and not _quiet()


def _quiet() -> bool:
    ctx = click.get_current_context(silent=True)
    return ctx is not None and bool((ctx.find_root().obj or {}).get("quiet"))


def _bar(*middle: TextColumn | BarColumn | TaskProgressColumn, forced: bool = False) -> Progress:
    """Phase, bar, the given columns, time elapsed and ETA, on stderr, gone when done;
    ``forced`` draws it even where stderr is not a terminal (fio's ``--eta=always``)."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        *middle,
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True, force_terminal=forced or None),
        transient=True,
    )


@contextmanager
def fill_bar(description: str, enabled: bool, forced: bool = False) -> Iterator[Callable[[int, int], bool] | None]:
    """Yields a callback for ``Device.fill(progress=...)`` (or None when disabled)."""
    if not (enabled or forced):
        yield None
        return
    with _bar(TaskProgressColumn(), forced=forced) as bar:
        task = bar.add_task(description, total=1.0)

        def update(done: int, total: int) -> bool:
            bar.update(task, completed=done / total if total else 1.0)
            return True

        yield update


@contextmanager
def simulation_bar(
    description: str, enabled: bool, forced: bool = False
) -> Iterator[Callable[[int, int | None, int, int | None], bool] | None]:
    """Yields a callback for ``Device.run(progress=...)`` (or None when disabled)."""
    if not (enabled or forced):
        yield None
        return
    with _bar(TaskProgressColumn(), TextColumn("{task.fields[sim]}"), forced=forced) as bar:
        task = bar.add_task(description, total=1.0, sim="")
        started = time.monotonic()

        def update(elapsed_ns: int, expected_ns: int | None, done: int, expected: int | None) -> bool:
            sim = simulated_text(elapsed_ns, time.monotonic() - started)
            if expected_ns:
                bar.update(task, completed=min(elapsed_ns / expected_ns, 1.0), sim=sim)
            elif expected:
                bar.update(task, completed=min(done / expected, 1.0), sim=sim)
            else:
                bar.update(task, sim=sim)
            return True

        yield update


def simulated_text(simulated_ns: int, wall_s: float) -> str:
    """The simulated time so far and how many times faster than real time it ran.

    >>> simulated_text(12_500_000_000, 0.5), simulated_text(2_000_000, 4.0)
    ('12.50 s simulated, x25 real time', '0.00 s simulated, x0.0005 real time')
    """
    factor = simulated_ns / 1e9 / wall_s if wall_s > 0 else 0.0
    return f"{simulated_ns / 1e9:.2f} s simulated, x{factor:.3g} real time"


@contextmanager
def steps_bar(
    description: str, total: int, enabled: bool, lines: bool = False
) -> Iterator[Callable[[str], None] | None]:
    """Yields a function ``advance(label)`` for multi-point studies and sweeps (or None):
    points done, their rate, the label of the last one, elapsed time and ETA; or, not
    ``enabled`` but given ``lines``, one line per finished point on stderr
    (``qd-sweep: 3/12 randread QD4``), steps that repeat the last label (steps a study
    found it did not need) adding none."""
    if not enabled:
        if not lines:
            yield None
            return
        done = 0
        last = None

        def say(label: str) -> None:
            nonlocal done, last
            done += 1
            if label != last:
                click.echo(f"{description}: {done}/{total} {label}".rstrip(), err=True)
            last = label

        yield say
        return
    columns = (
        TextColumn("{task.completed}/{task.total}"),
        TextColumn("{task.fields[rate]}"),
        TextColumn("{task.fields[label]}"),
    )
    with _bar(*columns) as bar:
        task = bar.add_task(description, total=total, label="", rate="")
        started = time.monotonic()

        def advance(label: str) -> None:
            done = bar.tasks[0].completed + 1
            rate = done / max(time.monotonic() - started, 1e-9)
            bar.update(task, advance=1, label=label, rate=f"{rate:.2f}/s")

        yield advance
