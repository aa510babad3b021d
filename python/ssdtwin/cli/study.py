"""``ssdtwin study NAME``: run one of the studies and write its table and figure.

Every study writes ``NAME.csv``, ``NAME.json`` (records) and ``NAME.png`` to ``--out``
(default ``out/NAME``), and with ``--json`` prints the records on stdout instead of a
summary. Existing files are not replaced without ``--force``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pandas as pd

from ..studies import REGISTRY, Study
from . import progress


def write_outputs(name: str, table: pd.DataFrame, figure: Any, out: Path, force: bool) -> list[Path]:
    """Writes the table (CSV and JSON records) and the figure; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.csv", out / f"{name}.json", out / f"{name}.png"]
    existing = [p for p in paths if p.exists()]
    if existing and not force:
        raise click.UsageError(f"{existing[0]} exists; add --force to replace the study's outputs")
    table.to_csv(paths[0], index=False)
    paths[1].write_text(table.to_json(orient="records", indent=1) + "\n")
    figure.savefig(paths[2], dpi=120, bbox_inches="tight")
    return paths


def _make_command(study: Study) -> click.Command:
    def run(out: Path | None, as_json: bool, force: bool, **kwargs: Any) -> None:
        out_dir = out or Path("out") / study.name
        # Refuse before simulating if the outputs exist.
        for p in (out_dir / f"{study.name}.{ext}" for ext in ("csv", "json", "png")):
            if p.exists() and not force:
                raise click.UsageError(f"{p} exists; add --force to replace the study's outputs")
        points = study.count_points(**kwargs)
        with progress.steps_bar(study.name, points, progress.wanted(as_json)) as advance:
            table, report = study.run(advance=advance, **kwargs)
        figure = study.plot(table)
        try:
            paths = write_outputs(study.name, table, figure, out_dir, force)
        finally:
            import matplotlib.pyplot as plt

            plt.close(figure)
        if as_json:
            click.echo(json.dumps(json.loads(table.to_json(orient="records")), indent=1))
        else:
            if report:
                click.echo(report.rstrip())
            click.echo("wrote " + ", ".join(str(p) for p in paths))

    params: list[click.Parameter] = [
        *study.options,
        click.Option(
            ["--host"],
            default=study.host,
            show_default=True,
            help="Host profile the study runs on (the measurement's by default; 'none' for the drive alone).",
        ),
        click.Option(["--out"], type=click.Path(file_okay=False, path_type=Path), help="Output directory."),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the table as JSON records."),
        click.Option(["--force"], is_flag=True, help="Replace existing outputs."),
    ]
    callback: Callable[..., None] = run
    return click.Command(study.name, params=params, callback=callback, help=study.help)


@click.group("study")
def command() -> None:
    """Run a study: a sweep that reproduces a published measurement or answers a question."""


for _study in REGISTRY:
    command.add_command(_make_command(_study))
