"""``ssdtwin sweep``: a grid of points run on local processes or a Dask cluster."""

from __future__ import annotations

from pathlib import Path

import click

from ..sweep import Point, load_grid, open_executor, sweep
from . import progress as bars


@click.command("sweep")
@click.argument("grid_file", metavar="GRID.toml", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), required=True, help="Directory for the results."
)
@click.option(
    "--executor",
    default="local",
    show_default=True,
    help="local[:N] (processes here), dask-local[:N] (a Dask LocalCluster) or dask://HOST:PORT (a Dask scheduler).",
)
@click.option("--resume", is_flag=True, help="Keep the points already finished in --out and run the rest.")
def command(grid_file: Path, out: Path, executor: str, resume: bool) -> None:
    """Run every point of GRID.toml (profiles x hosts x settings x fio jobs; see docs/sweeps.md).

    Finished points are kept in OUT/points as they finish (rerun with --resume to skip them),
    failed ones in OUT/errors; the table is OUT/results.parquet, partitioned by the grid's axes,
    with results.csv and results.json when small. Every point's job, profile settings and
    host are checked before any runs (exit 2 naming the point); if points fail while running,
    the sweep goes on, then exits 1 saying how many failed and the first one's error.
    """
    grid = load_grid(grid_file)
    failures: list[tuple[Point, str]] = []
    with bars.steps_bar("sweep", len(grid.points), bars.wanted(False), bars.lines_wanted()) as advance:

        def tick(point: Point, error: str | None) -> None:
            if error is not None:
                failures.append((point, error))
            if advance:
                advance(f"point {point.index} {'failed' if error else 'done'}")

        with open_executor(executor) as ex:
            table = sweep(grid, executor=ex, out=out, resume=resume, progress=tick)
    click.echo(
        f"{out}/results.parquet: {len(grid.points)} points ({len(failures)} failed), {len(table)} rows; "
        f"axes {', '.join(grid.axes) or 'none'}"
    )
    if failures:
        point, error = min(failures, key=lambda f: f[0].index)
        first = error.strip().splitlines()[-1] if error.strip() else "failed"
        click.echo(
            f"ssdtwin: {len(failures)} of {len(grid.points)} points failed; the first, point {point.index}: "
            f"{first} (every error is in {out}/errors)",
            err=True,
        )
        raise click.exceptions.Exit(1)
