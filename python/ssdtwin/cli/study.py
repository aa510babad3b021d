"""``ssdtwin study NAME``: run one of the studies and write its table and figure.

Every study writes ``NAME.csv``, ``NAME.json`` (records) and ``NAME.png`` to ``--out``
(default ``out/NAME``), and with ``--json`` prints the records on stdout instead of a
summary. Existing files are not replaced without ``--force``.

Every study takes ``--set SECTION.FIELD=VALUE`` (profile overrides, repeatable) and several
drives (``--profile A --profile B`` or ``--profile A,B``): it runs once per drive, the table
gains a ``profile`` column, and each drive gets its own figure (``NAME-DRIVE.png``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pandas as pd

from ..device import RawToml
from ..studies import REGISTRY, Study, run_study_drive
from ..sweep import open_executor
from . import progress
from .common import parse_overrides


def output_paths(name: str, out: Path, profiles: list[str]) -> list[Path]:
    """The files a study writes: the table as CSV and JSON records, then one figure, or one
    per drive when there are several."""
    figures = [f"{name}.png"] if len(profiles) == 1 else [f"{name}-{Path(p).stem}.png" for p in profiles]
    return [out / f"{name}.csv", out / f"{name}.json", *(out / f for f in figures)]


def write_outputs(table: pd.DataFrame, figures: list[Any], paths: list[Path]) -> None:
    """Writes the table (CSV and JSON records) and the figures to ``paths``."""
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(paths[0], index=False)
    paths[1].write_text(table.to_json(orient="records", indent=1) + "\n")
    for figure, path in zip(figures, paths[2:], strict=True):
        figure.savefig(path, dpi=120, bbox_inches="tight")


def _check_output_dir(out: Path) -> None:
    """Refuses, before anything is simulated, an output directory that cannot be made: one
    under a file, or a path that is itself a file."""
    for ancestor in [out, *out.absolute().parents]:
        if ancestor.exists():
            if not ancestor.is_dir():
                raise click.UsageError(f"--out {out}: {ancestor} is not a directory")
            return


def _profiles(values: tuple[str, ...]) -> list[str]:
    """``--profile`` values, each possibly comma-separated, in order, without repeats."""
    names = [v.strip() for value in values for v in value.split(",") if v.strip()]
    if not names:
        raise click.BadParameter("give at least one profile name or TOML file", param_hint="--profile")
    return list(dict.fromkeys(names))


def _make_command(study: Study) -> click.Command:
    def run(
        out: Path | None,
        as_json: bool,
        force: bool,
        profile: tuple[str, ...],
        overrides: tuple[str, ...],
        **kwargs: Any,
    ) -> None:
        profiles = _profiles(profile)
        # Values stay as the user wrote them: the core parses them as TOML.
        settings = {k: RawToml(v) for k, v in parse_overrides(overrides).items()}
        out_dir = out or Path("out") / study.name
        _check_output_dir(out_dir)
        paths = output_paths(study.name, out_dir, profiles)
        # Refuse before simulating if the outputs exist.
        for path in paths:
            if path.exists() and not force:
                raise click.UsageError(f"{path} exists; add --force to replace the study's outputs")
        executor: str | None = kwargs.pop("executor")
        results: list[tuple[pd.DataFrame, str]] = []
        if executor is None:
            points = sum(study.count_points(profile=p, overrides=settings, **kwargs) for p in profiles)
            with progress.steps_bar(study.name, points, progress.wanted(as_json)) as advance:
                for p in profiles:
                    results.append(study.run(advance=advance, profile=p, overrides=settings, **kwargs))
        else:
            # Each drive is one point of the sweep engine's executor.
            with (
                progress.steps_bar(study.name, len(profiles), progress.wanted(as_json)) as advance,
                open_executor(executor) as ex,
            ):
                futures = [ex.submit(run_study_drive, study.name, p, settings, kwargs) for p in profiles]
                for p, future in zip(profiles, futures, strict=True):
                    results.append(future.result())
                    if advance:
                        advance(p)
        tables, reports = [], []
        for p, (table, report) in zip(profiles, results, strict=True):
            if "profile" not in table.columns:
                table.insert(0, "profile", p)
            tables.append(table)
            reports.append(f"== {p} ==\n{report.rstrip()}" if len(profiles) > 1 and report else report)
        table = pd.concat(tables, ignore_index=True)
        figures = [study.plot(t) for t in tables]
        try:
            write_outputs(table, figures, paths)
        finally:
            import matplotlib.pyplot as plt

            for figure in figures:
                plt.close(figure)
        if as_json:
            click.echo(json.dumps(json.loads(table.to_json(orient="records")), indent=1))
        else:
            text = "\n\n".join(r.rstrip() for r in reports if r)
            if text:
                click.echo(text)
            click.echo("wrote " + ", ".join(str(p) for p in paths))

    default_profile = next(o.default for o in study.options if o.name == "profile")
    params: list[click.Parameter] = [
        click.Option(
            ["--profile"],
            multiple=True,
            default=[default_profile],
            show_default=True,
            help="Profile name or TOML file; repeat it (or separate with commas) to run the study on several drives.",
        ),
        click.Option(
            ["--set", "overrides"],
            multiple=True,
            metavar="SECTION.FIELD=VALUE",
            help="Change a profile field of every drive (repeatable).",
        ),
        *(o for o in study.options if o.name != "profile"),
        click.Option(
            ["--host"],
            default=study.host,
            show_default=True,
            help="Host profile the study runs on (the measurement's by default; 'none' for the drive alone).",
        ),
        click.Option(["--out"], type=click.Path(file_okay=False, path_type=Path), help="Output directory."),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the table as JSON records."),
        click.Option(["--force"], is_flag=True, help="Replace existing outputs."),
        click.Option(
            ["--executor"],
            default=None,
            help="Run each drive as a point on local[:N] processes, dask-local[:N] or dask://HOST:PORT.",
        ),
    ]
    params += study.arguments
    callback: Callable[..., None] = run
    return click.Command(study.name, params=params, callback=callback, help=study.help)


@click.group("study")
def command() -> None:
    """Run a study: a sweep that reproduces a published measurement or answers a question."""


for _study in REGISTRY:
    command.add_command(_make_command(_study))
