"""``ssdtwin compare FILE...``: runs side by side on one figure.

Study outputs and sweep results are drawn as one column against another (a known study's
own axes by default); fio JSON output, from ``ssdtwin fio`` or from real fio on a real
drive, as bandwidth or IOPS per job beside each run's completion-latency percentiles. The
loading is :mod:`ssdtwin.comparison`, the drawing :mod:`ssdtwin.plots.compare`.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from ..files import place_text
from .common import OutputFile, save_figure

#: Suffixes ``--table`` writes.
TABLE_SUFFIXES = (".csv", ".json")


def _figure_format(path: Path) -> None:
    """Refuses, before anything is read, a figure name whose suffix matplotlib cannot write."""
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    if path.suffix.lstrip(".").lower() not in formats:
        raise click.BadParameter(
            f"'{path}': the suffix names the format; allowed: {', '.join('.' + f for f in sorted(formats))}",
            param_hint="--out",
        )


def _split(values: tuple[str, ...]) -> list[str]:
    """Repeated or comma-separated column names, in order, without repeats."""
    return list(dict.fromkeys(v.strip() for value in values for v in value.split(",") if v.strip()))


@click.command("compare")
@click.argument("files", nargs=-1, required=True, metavar="FILE...", type=click.Path(path_type=Path))
@click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="NAME",
    help="Name of each FILE's series, in the order of the files (repeat it once per file); "
    "default: the drive and host the file names, else its name.",
)
@click.option("--x", "x", metavar="COLUMN", help="Tables: the column on the x axis (default: the study's).")
@click.option("--y", "y", metavar="COLUMN", help="Tables: the column on the y axis (default: the study's).")
@click.option(
    "--by",
    "by",
    multiple=True,
    metavar="COLUMN",
    help="Tables: split series further by these columns (repeatable or comma-separated).",
)
@click.option(
    "--metric",
    type=click.Choice(["bw", "iops"]),
    default=None,
    help="fio JSON: the bars' measure, bandwidth in MB/s (10^6 B/s) or IOPS.  [default: bw]",
)
@click.option(
    "--out",
    type=OutputFile(),
    default=Path("compare.png"),
    show_default=True,
    help="The figure (its suffix names the format).",
)
@click.option("--table", "table_path", type=OutputFile(), help="Also write the combined table (.csv or .json records).")
@click.option("--json", "as_json", is_flag=True, help="Print the combined table as JSON records.")
@click.option("--force", is_flag=True, help="Replace an existing figure or table.")
def command(
    files: tuple[Path, ...],
    labels: tuple[str, ...],
    x: str | None,
    y: str | None,
    by: tuple[str, ...],
    metric: str | None,
    out: Path,
    table_path: Path | None,
    as_json: bool,
    force: bool,
) -> None:
    """Overlay runs on one figure: study outputs (NAME.csv or NAME.json, or their
    directory), sweep results directories, or fio JSON output from ssdtwin fio or from real
    fio (several of one kind; a table and fio output cannot share a figure).

    \b
    Tables: one line (or bar, for text on x) per file, drive, host and --by value:
      ssdtwin compare a/slc-write.csv b/slc-write.csv
      ssdtwin compare runs/one --x bs --y bw_mb_per_s --by iodepth
    fio JSON: bandwidth per job and direction as grouped bars, and clat percentiles:
      ssdtwin compare twin.json real.json --label twin --label 'my drive'
    """
    from ..comparison import compare

    _figure_format(out)
    targets = [out] + ([table_path] if table_path is not None else [])
    if table_path is not None:
        if table_path.suffix.lower() not in TABLE_SUFFIXES:
            raise click.BadParameter(f"'{table_path}': allowed suffixes: .csv, .json", param_hint="--table")
        if table_path.absolute() == out.absolute():
            raise click.BadParameter("the table and the figure need different files", param_hint="--table")
    for path in targets:
        if path.exists() and not force:
            raise click.UsageError(f"{path} exists; add --force to replace it")
    comparison = compare(files, labels, x, y, _split(by))
    if metric is not None and comparison.kind != "fio":
        raise click.BadParameter("applies to fio JSON output; tables draw --y", param_hint="--metric")

    from ..plots.compare import plot_compare_fio, plot_compare_table

    table = comparison.table
    if comparison.kind == "fio":
        figure = plot_compare_fio(table, "iops" if metric == "iops" else "bw")
    else:
        figure = plot_compare_table(table, comparison.x, comparison.y, comparison.title)
    save_figure(figure, out)
    if table_path is not None:
        text = table.to_csv(index=False) if table_path.suffix.lower() == ".csv" else _records(table) + "\n"
        place_text(table_path, text)
    if as_json:
        click.echo(_records(table))
    else:
        click.echo("wrote " + ", ".join(str(p) for p in targets))


def _records(table: pd.DataFrame) -> str:
    """The table as indented JSON records (NaN as null), as the studies print them."""
    return json.dumps(json.loads(table.to_json(orient="records")), indent=1)
