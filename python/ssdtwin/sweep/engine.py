"""Running a grid: each point on a fresh drive (its own seed, so any executor gives the same
table), finished points kept as they finish so that a rerun resumes, failed points recorded
and the sweep going on, results as one tidy table (Parquet partitioned by the axes, and CSV
and JSON when small)."""

from __future__ import annotations

import hashlib
import json
import os
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, as_completed
from pathlib import Path
from typing import Protocol, TypeVar, cast

import pandas as pd

from .. import realtime
from .._ssdtwin import __version__, check_fio_args
from ..device import Device, RawToml, host_toml, profile_toml
from ..errors import SsdtwinError
from ..files import place_text
from ..jobs import job_input
from .grid import Grid, Point

#: Tables up to this many rows are also written as CSV and JSON.
SMALL_ROWS = 100_000

Progress = Callable[[Point, str | None], None] | None

T = TypeVar("T")
R = TypeVar("R")


def run_all(
    task: Callable[[T], R], items: Sequence[T], executor: Executor | None, done: Callable[[int, R], None]
) -> None:
    """Runs ``task`` on every item, in this process in order or on ``executor`` as workers
    finish, and hands each result to ``done`` with the item's index. ``task`` must be a
    top-level function (another process imports it) and items picklable. An exception in a
    task is raised here, after the tasks already submitted are cancelled or finished.

    >>> out = {}
    >>> run_all(abs, [-2, 3], None, out.__setitem__)
    >>> out
    {0: 2, 1: 3}
    """
    if executor is None:
        for i, item in enumerate(items):
            done(i, task(item))
        return
    # Each worker sends back the simulated time its task ran, for the command's
    # "x real time" figure.
    futures = {executor.submit(realtime.counted, task, item): i for i, item in enumerate(items)}
    try:
        for f in as_completed(futures):
            result, simulated, pid = f.result()
            realtime.add_from(simulated, pid)
            done(futures[f], result)
    finally:
        for f in futures:
            f.cancel()


class Part(Protocol):
    """What :func:`run_parts` runs: anything with a label for the progress bar."""

    @property
    def label(self) -> str: ...


P = TypeVar("P", bound=Part)


def run_parts(
    task: Callable[[P, Callable[[str], None] | None], R],
    parts: Sequence[P],
    executor: Executor | None,
    advance: Callable[[str], None] | None,
) -> list[R]:
    """The results of ``task(part, advance)`` for every part, in the parts' order: in this
    process (``advance`` called by the task, per step) or on ``executor`` (``task`` called
    as ``task(part)``, its ``advance`` defaulting to None, and ``advance`` called here once
    per part, with its label). ``task`` must be a top-level function.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Half:
    ...     n: int
    ...     label: str = "half"
    >>> run_parts(lambda p, advance: p.n / 2, [Half(2), Half(5)], None, None)
    [1.0, 2.5]
    """
    results: dict[int, R] = {}

    def done(i: int, result: R) -> None:
        results[i] = result
        if executor is not None and advance:
            advance(parts[i].label)

    if executor is None:
        run_all(lambda part: task(part, advance), parts, None, done)
    else:
        # Another process imports ``task`` by name, so it goes as it is: its ``advance``
        # parameter defaults to None.
        run_all(cast(Callable[[P], R], task), parts, executor, done)
    return [results[i] for i in range(len(parts))]


def _overrides(values: dict[str, object]) -> dict[str, object]:
    return {k: RawToml(str(v).lower() if isinstance(v, bool) else str(v)) for k, v in values.items()}


def point_job(point: Point) -> dict[str, object]:
    """The fio job a point runs, as a job dict."""
    return {"name": "sweep"} | dict(point.job)


def check_points(grid: Grid) -> None:
    """Refuses, before anything runs, a grid with a point whose fio job, profile settings or
    host ssdtwin would refuse: the error names the first such point and its parameters (each
    distinct job, profile and host is checked once)."""
    seen: set[str] = set()
    for point in grid.points:
        for kind, value in (
            ("job", point_job(point)),
            ("profile", [point.profile, point.set]),
            ("host", [point.host, point.host_set]),
        ):
            key = kind + json.dumps(value, sort_keys=True, default=str)
            if key in seen:
                continue
            seen.add(key)
            try:
                _check(kind, point)
            except SsdtwinError as e:
                shown = ", ".join(f"{k}={v}" for k, v in point.params.items() if k in grid.axes) or "its only point"
                raise type(e)(f"sweep point {point.index} ({shown}): {e}") from None


def _check(kind: str, point: Point) -> None:
    if kind == "job":
        check_fio_args(job_input(point_job(point)).args)
    elif kind == "profile":
        profile_toml(point.profile, _overrides(point.set))
    else:
        host_toml(point.host, _overrides(point.host_set))


def run_point(point: Point) -> pd.DataFrame:
    """One point's rows: the job's summary (per job, clone and direction) with the point's
    parameters, the seed, the ssdtwin version and the profile's hash."""
    overrides = _overrides(point.set)
    host_overrides = _overrides(point.host_set)
    dev = Device(point.profile, host=point.host, host_overrides=host_overrides, overrides=overrides)
    kind, _, pct = point.fill.partition(":")
    if kind != "none":
        dev.fill(kind, float(pct) if pct else 100.0, seed=point.seed)
    table = dev.run(point_job(point), seed=point.seed).summary
    resolved = profile_toml(point.profile, overrides)
    front = {
        "point": point.index,
        "point_id": point.id,
        **point.params,
        "ssdtwin_version": __version__,
        "profile_sha256": hashlib.sha256(resolved.encode()).hexdigest()[:16],
    }
    for i, (name, value) in enumerate(front.items()):
        table.insert(i, name, [value] * len(table))
    return table


def _run_safely(point: Point) -> tuple[Point, pd.DataFrame | None, str | None]:
    """A point's table, or why it failed (an ssdtwin error's message, or a traceback)."""
    try:
        return point, run_point(point), None
    except SsdtwinError as e:
        return point, None, str(e)
    except Exception:  # a failed point is recorded, and the sweep goes on
        return point, None, traceback.format_exc(limit=3).strip().splitlines()[-1]


class Store:
    """Finished and failed points under ``DIR/points`` and ``DIR/errors``."""

    def __init__(self, out: Path) -> None:
        self.points = out / "points"
        self.errors = out / "errors"
        self.points.mkdir(parents=True, exist_ok=True)
        self.errors.mkdir(parents=True, exist_ok=True)

    def finished(self) -> set[str]:
        return {p.stem for p in self.points.glob("*.parquet")}

    def load(self, point: Point) -> pd.DataFrame:
        return pd.read_parquet(self.points / f"{point.id}.parquet")

    def keep(self, point: Point, table: pd.DataFrame) -> None:
        tmp = self.points / f".{point.id}.tmp"
        table.to_parquet(tmp, index=False)
        os.replace(tmp, self.points / f"{point.id}.parquet")
        (self.errors / f"{point.id}.json").unlink(missing_ok=True)

    def fail(self, point: Point, message: str) -> None:
        record = {"point": point.index, "point_id": point.id, **point.params, "error": message}
        (self.errors / f"{point.id}.json").write_text(json.dumps(record, default=str, indent=1) + "\n")


def sweep(
    grid: Grid,
    *,
    executor: Executor | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    progress: Progress = None,
) -> pd.DataFrame:
    """Runs every point of ``grid`` (on ``executor``, else in this process) and returns the
    table, in point order. With ``out``, finished points are kept there as they finish and
    the table is written as ``results.parquet`` (partitioned by the grid's axes), plus
    ``results.csv`` and ``results.json`` when small; ``resume`` skips points already kept
    (without it, a directory holding results is refused). Failed points are recorded
    (``errors/``, and rows with an ``error`` column) and the sweep goes on. Before any point
    runs, every point's job, profile settings and host are checked (:func:`check_points`).
    """
    check_points(grid)
    store = None
    done: dict[str, pd.DataFrame] = {}
    if out is not None:
        out = Path(out)
        if (out / "points").is_dir() and any((out / "points").glob("*.parquet")) and not resume:
            raise SsdtwinError(f"{out} holds results of a sweep; resume it with --resume or choose another directory")
        store = Store(out)
        finished = store.finished()
        done = {p.id: store.load(p) for p in grid.points if p.id in finished}
    failures: dict[str, str] = {}
    todo = [p for p in grid.points if p.id not in done]
    for p in grid.points:
        if p.id in done and progress:
            progress(p, None)

    def record(point: Point, table: pd.DataFrame | None, error: str | None) -> None:
        if table is not None:
            done[point.id] = table
            if store:
                store.keep(point, table)
        else:
            failures[point.id] = error or "failed"
            if store:
                store.fail(point, failures[point.id])
        if progress:
            progress(point, error)

    run_all(_run_safely, todo, executor, lambda _, outcome: record(*outcome))
    tables = []
    for p in grid.points:
        if p.id in done:
            tables.append(done[p.id])
        else:
            tables.append(pd.DataFrame([{"point": p.index, "point_id": p.id, **p.params, "error": failures[p.id]}]))
    table = pd.concat(tables, ignore_index=True)
    if out is not None:
        _write_results(table, grid.axes, Path(out))
    return table


def _write_results(table: pd.DataFrame, axes: Sequence[str], out: Path) -> None:
    import pyarrow as pa
    import pyarrow.dataset as ds

    target = out / "results.parquet"
    tmp = out / ".results.parquet.tmp"
    if tmp.exists():
        import shutil

        shutil.rmtree(tmp)
    data = pa.Table.from_pandas(table, preserve_index=False)
    partitioning = [a for a in axes if a in table.columns] or None
    ds.write_dataset(
        data,
        tmp,
        format="parquet",
        partitioning=partitioning,
        partitioning_flavor="hive" if partitioning else None,
        existing_data_behavior="overwrite_or_ignore",
    )
    if target.exists():
        import shutil

        shutil.rmtree(target)
    os.replace(tmp, target)
    # Partition columns come back from Parquet as categories in sorted order, text sorted as
    # text: keep each axis's values in the grid's order for read_results to restore.
    order = {a: list(dict.fromkeys(table[a].tolist())) for a in partitioning or []}
    place_text(out / "axes.json", json.dumps(order, default=str) + "\n")
    if len(table) <= SMALL_ROWS:
        place_text(out / "results.csv", table.to_csv(index=False))
        table.to_json(out / "results.json", orient="records", indent=1)


def read_results(out: str | Path) -> pd.DataFrame:
    """The table a sweep wrote to ``out``, in point order, its axis columns restored: numbers
    as numbers, and other values as categories in the grid's order (``profile`` as written
    in the grid, not alphabetically)."""
    table = pd.read_parquet(Path(out) / "results.parquet")
    axes = Path(out) / "axes.json"
    order: dict[str, list[object]] = json.loads(axes.read_text()) if axes.exists() else {}
    for axis, values in order.items():
        if axis not in table.columns:
            continue
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            table[axis] = pd.to_numeric(table[axis].astype(str))
        else:
            text = [str(v) for v in values]
            table[axis] = pd.Categorical(table[axis].astype(str), categories=text, ordered=True)
    return table.sort_values(["point"], kind="stable").reset_index(drop=True)


__all__ = ["read_results", "run_all", "run_point", "sweep"]
