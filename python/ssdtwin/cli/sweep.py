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
    with results.csv and results.json when small.
    """
    grid = load_grid(grid_file)
    failed = 0
    with bars.steps_bar("sweep", len(grid.points), bars.wanted(False)) as advance:

        def tick(point: Point, error: str | None) -> None:
            nonlocal failed
            failed += error is not None
            if advance:
                advance(f"point {point.index} {'failed' if error else 'done'}")

        with open_executor(executor) as ex:
            table = sweep(grid, executor=ex, out=out, resume=resume, progress=tick)
    click.echo(
        f"{out}/results.parquet: {len(grid.points)} points ({failed} failed), {len(table)} rows; "
        f"axes {', '.join(grid.axes) or 'none'}"
    )
