"""``ssdtwin sweep``: a grid of points run on local processes or a Dask cluster."""

from __future__ import annotations

from pathlib import Path

import click

from .. import report_page
from ..sweep import Point, load_grid, open_executor, read_results, sweep
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
@click.option(
    "--html",
    "html",
    is_flag=True,
    help="Also write OUT/report.html: figures of IOPS, bandwidth and p99 latency over the grid, and the table.",
)
def command(grid_file: Path, out: Path, executor: str, resume: bool, html: bool) -> None:
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
    summary = (
        f"{out}/results.parquet: {len(grid.points)} points ({len(failures)} failed), {len(table)} rows; "
        f"axes {', '.join(grid.axes) or 'none'}"
    )
    failed = ""
    if failures:
        point, error = min(failures, key=lambda f: f[0].index)
        first = error.strip().splitlines()[-1] if error.strip() else "failed"
        failed = (
            f"{len(failures)} of {len(grid.points)} points failed; the first, point {point.index}: "
            f"{first} (every error is in {out}/errors)"
        )
    if html:
        report_page.write(sweep_page(out, grid_file, list(grid.axes), "\n".join(filter(None, [summary, failed]))),
                          out / "report.html")  # fmt: skip
        summary += f"; wrote {out}/report.html"
    click.echo(summary)
    if failed:
        click.echo(f"ssdtwin: {failed}", err=True)
        raise click.exceptions.Exit(1)


#: What a sweep's report page draws against its grid's last axis, where the table has it.
PAGE_METRICS = ("iops", "bw_mb_per_s", "p99_lat_us")


def sweep_page(out: Path, grid_file: Path, axes: list[str], summary: str) -> report_page.Page:
    """A sweep's report page: IOPS, bandwidth and p99 latency against the grid's last axis,
    one line per value of the others (:mod:`ssdtwin.comparison`), the table and the grid."""
    from ..comparison import CompareError, compare
    from ..plots.compare import plot_compare_table

    results = read_results(out)
    figures: list[report_page.Part] = []
    if axes:
        x = axes[-1]
        for y in (m for m in PAGE_METRICS if m in results.columns):
            try:
                drawn = compare([out], x=x, y=y)
            except CompareError as e:
                figures.append(report_page.Text(f"{y} against {x}: not drawn ({e})"))
                continue
            figure = plot_compare_table(drawn.table, drawn.x, drawn.y, f"sweep {grid_file.name}")
            figures.append(report_page.Figure(report_page.png(figure), f"{y} against {x}"))
    sections = [
        report_page.Section("Summary", [report_page.Text(summary)]),
        report_page.Section("Figures", figures or [report_page.Text("a grid without axes: one point, no figure")]),
        report_page.Section("Results", [report_page.Table(results, "every point's rows (results.parquet)")]),
        report_page.Section("Grid", [report_page.Text(grid_file.read_text(encoding="utf-8"))]),
    ]
    return report_page.Page(f"ssdtwin sweep {grid_file.name}", report_page.command_line(), sections)
