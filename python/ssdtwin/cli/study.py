"""``ssdtwin study NAME``: run one of the studies and write its table and figure.

Every study writes ``NAME.csv``, ``NAME.json`` (records) and ``NAME.png`` to ``--out``
(default ``out/NAME``), and with ``--json`` prints the records on stdout instead of a
summary. Existing files are not replaced without ``--force``.

With ``--html`` it also writes ``NAME.html``: one self-contained page with the report, the
figures, the tables, each drive's profile with the source of every field, and the command.

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

from .. import _ssdtwin, report_page
from ..device import DEFAULT_HOST, DEFAULT_SETUP_SEED, RawToml
from ..files import place_text
from ..params import SEED
from ..plots import FIGURES
from ..plots.base import drive_and_host
from ..studies import REGISTRY, Study, run_study, study_parts
from ..studies.base import choice_list
from ..studies.zfs_special import report as zfs_special_report
from ..studies.zfs_special import size_list, zfs_special_sweep
from ..sweep import open_executor
from ..sweep.executors import AUTO, resolve
from ..zfs import DEFAULT_POOL, OPERATIONS
from . import progress
from .common import parse_overrides, save_figure


def output_paths(name: str, out: Path, profiles: list[str], figure_keys: list[str] | None = None) -> list[Path]:
    """The files a study writes: the table as CSV and JSON records, then one figure, or one
    per drive when there are several, or one per ``figure_keys`` value when given."""
    if figure_keys is not None:
        figures = [f"{name}-{k}.png" for k in figure_keys]
    elif len(profiles) == 1:
        figures = [f"{name}.png"]
    else:
        figures = [f"{name}-{Path(p).stem}.png" for p in profiles]
    return [out / f"{name}.csv", out / f"{name}.json", *(out / f for f in figures)]


def write_outputs(table: pd.DataFrame, figures: list[Any], paths: list[Path]) -> None:
    """Writes the table (CSV and JSON records) and the figures to ``paths``."""
    paths[0].parent.mkdir(parents=True, exist_ok=True)
    place_text(paths[0], table.to_csv(index=False))
    place_text(paths[1], table.to_json(orient="records", indent=1) + "\n")
    for figure, path in zip(figures, paths[2:], strict=True):
        save_figure(figure, path)


def _refuse_existing(paths: list[Path], force: bool) -> None:
    """Refuses, before anything is simulated, to replace a study's outputs without --force."""
    for path in paths:
        if path.exists() and not force:
            raise click.UsageError(f"{path} exists; add --force to replace the study's outputs")


def _finish(
    table: pd.DataFrame,
    figures: list[Any],
    paths: list[Path],
    as_json: bool,
    report: str,
    page: Callable[[list[Path]], report_page.Page] | None = None,
) -> None:
    """Writes the table and figures to ``paths`` (closing the figures) and, given ``page``
    (the HTML page from the written figures), the page to the last path; then prints the
    table as JSON records, or else the report (if any) and the files written."""
    figure_paths = paths[2:-1] if page else paths[2:]
    try:
        write_outputs(table, figures, paths[:2] + figure_paths)
    finally:
        import matplotlib.pyplot as plt

        for figure in figures:
            plt.close(figure)
    if page:
        report_page.write(page(figure_paths), paths[-1])
    if as_json:
        click.echo(json.dumps(json.loads(table.to_json(orient="records")), indent=1))
    else:
        if report:
            click.echo(report)
        click.echo("wrote " + ", ".join(str(p) for p in paths))


def _output_params(executor_help: str) -> list[click.Parameter]:
    """``--out``, ``--json``, ``--html``, ``--force`` and ``--executor``, which every study takes."""
    return [
        click.Option(["--out"], type=click.Path(file_okay=False, path_type=Path), help="Output directory."),
        click.Option(["--json", "as_json"], is_flag=True, help="Print the table as JSON records."),
        click.Option(["--html"], is_flag=True, help="Also write NAME.html, a self-contained report page."),
        click.Option(["--force"], is_flag=True, help="Replace existing outputs."),
        click.Option(
            ["--executor"],
            default=AUTO,
            show_default=True,
            envvar="SSDTWIN_EXECUTOR",
            help=executor_help,
        ),
    ]


def _part_bytes(profile: str, settings: dict[str, RawToml]) -> int:
    """What a part's drive and one copy of it take in memory at most: twice the model's own
    estimate of its big arrays (the one `Device` checks against the machine's memory)."""
    derived = _ssdtwin.derived(profile, [f"{k}={v}" for k, v in settings.items()])
    return 2 * int(derived["model_memory_bytes"])


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
        html: bool,
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
        keys = None
        if study.figures_by is not None:
            keys = list(dict.fromkeys(v.strip() for v in str(kwargs[study.figures_by]).split(",") if v.strip()))
        paths = output_paths(study.name, out_dir, profiles, keys)
        if html:
            paths.append(out_dir / f"{study.name}.html")
        _refuse_existing(paths, force)
        spec = kwargs.pop("executor")
        options = kwargs
        parts = len(study_parts(study.name, profiles, settings, options))
        executor = resolve(spec, parts, max(_part_bytes(p, settings) for p in profiles))
        # Every part of every drive is a point of the sweep engine: counted in steps here,
        # in parts on an executor.
        if executor is None:
            steps = sum(study.count_points(profile=p, overrides=settings, **options) for p in profiles)
            with progress.steps_bar(study.name, steps, progress.wanted(as_json), progress.lines_wanted()) as advance:
                results = run_study(study.name, profiles, overrides=settings, advance=advance, **options)
        else:
            steps = parts
            with (
                progress.steps_bar(study.name, steps, progress.wanted(as_json), progress.lines_wanted()) as advance,
                open_executor(executor) as ex,
            ):
                results = run_study(study.name, profiles, overrides=settings, executor=ex, advance=advance, **options)
        tables, reports = [], []
        for p, (table, report) in results.items():
            if "profile" not in table.columns:
                table.insert(0, "profile", p)
            tables.append(table)
            reports.append(f"== {p} ==\n{report.rstrip()}" if len(profiles) > 1 and report else report)
        table = pd.concat(tables, ignore_index=True)
        figure = FIGURES[study.name]
        if keys is not None:
            column = study.figures_by
            figures = [figure(table[table[column] == k]) for k in keys]
        else:
            figures = [figure(t) for t in tables]
        text = "\n\n".join(r.rstrip() for r in reports if r)

        def page(figure_paths: list[Path]) -> report_page.Page:
            drives = [report_page.profile_section(p, settings) for p in profiles]
            return study_page(
                study.name, table, text, figure_paths, drives, study.tables(table) if study.tables else None
            )

        _finish(table, figures, paths, as_json, text, page if html else None)

    params: list[click.Parameter] = [
        click.Option(
            ["--profile"],
            multiple=True,
            default=[study.profile],
            show_default=True,
            help="Profile name or TOML file; repeat it (or separate with commas) to run the study on several drives.",
        ),
        click.Option(
            ["--set", "overrides"],
            multiple=True,
            metavar="SECTION.FIELD=VALUE",
            help="Change a profile field of every drive (repeatable).",
        ),
        *study.options,
        *(
            [
                click.Option(
                    ["--host"],
                    default=study.host,
                    show_default=True,
                    help="Host profile the study runs on (the measurement's by default; 'none' for the drive alone).",
                )
            ]
            if study.takes_host
            else []
        ),
        *_output_params(
            "Where the study's independent parts run: auto (one process per core, as many as there are parts "
            "and memory for their drives), serial (this process), local[:N], dask-local[:N] or dask://HOST:PORT."
        ),
    ]
    params += study.arguments
    callback: Callable[..., None] = run
    return click.Command(study.name, params=params, callback=callback, help=study.help)


def study_page(
    name: str,
    table: pd.DataFrame,
    report: str,
    figure_paths: list[Path],
    drives: list[report_page.Section],
    tables: dict[str, pd.DataFrame] | None = None,
) -> report_page.Page:
    """A study's HTML page: its report, figures, tables (``tables``, the study's own with
    their row labels, or else its whole table), the drives and the command."""
    title = f"ssdtwin study {name}: {drive_and_host(table)}"
    parts: list[report_page.Part] = [report_page.Text(report)] if report else []
    sections = [report_page.Section("Conclusions", parts)] if parts else []
    sections.append(report_page.Section("Figures", [report_page.figure_file(p, p.name) for p in figure_paths]))
    shown = tables if tables is not None else {f"{name}: the whole table": table}
    sections.append(
        report_page.Section(
            "Tables", [report_page.Table(t, caption, index=tables is not None) for caption, t in shown.items()]
        )
    )
    sections += drives
    return report_page.Page(title, report_page.command_line(), sections)


@click.group("study")
def command() -> None:
    """Run a study: a sweep that reproduces a published measurement or answers a question."""


for _study in REGISTRY:
    command.add_command(_make_command(_study))


@command.command("zfs-special")
@click.option("--pool", default=DEFAULT_POOL, show_default=True, help="Pool name or file; it must have a special vdev.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="Change a pool-file field (repeatable).")
@click.option("--files", type=click.IntRange(min=1), default=100_000, show_default=True, help="Files in the tree.")
@click.option(
    "--size-dist", default="lognormal:16K:2.0", show_default=True, help="File sizes (fixed:, lognormal:, hist:)."
)
@click.option("--files-per-dir", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option(
    "--special-small-blocks",
    default="0,32K",
    show_default=True,
    help="special_small_blocks values to run with the special vdev, comma-separated (0: metadata only).",
)
@click.option(
    "--workloads", default=",".join(OPERATIONS), show_default=True, help="Operations, create first, comma-separated."
)
@click.option(
    "--fill-files",
    type=click.IntRange(min=0),
    default=300_000,
    show_default=True,
    help="Files of the fill-to-spill run (0: none).",
)
@click.option(
    "--fill-special-size", default="1G", show_default=True, help="Special partition of the fill-to-spill run."
)
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="Host profile.")
@click.option("--seed", type=SEED, default=DEFAULT_SETUP_SEED, show_default=True)
def zfs_special(
    pool: str,
    overrides: tuple[str, ...],
    files: int,
    size_dist: str,
    files_per_dir: int,
    special_small_blocks: str,
    workloads: str,
    fill_files: int,
    fill_special_size: str,
    host: str,
    seed: int,
    out: Path | None,
    as_json: bool,
    html: bool,
    force: bool,
    executor: str,
) -> None:
    """The same file tree and operations on a pool with and without its special vdev, and a
    special vdev filled until metadata spills (reference R5)."""
    settings = {k: RawToml(v) for k, v in parse_overrides(overrides).items()}
    thresholds = size_list(special_small_blocks, "--special-small-blocks")
    fill_bytes = size_list(fill_special_size, "--fill-special-size")[0]
    out_dir = out or Path("out") / "zfs-special"
    _check_output_dir(out_dir)
    paths = output_paths("zfs-special", out_dir, [pool])
    if html:
        paths.append(out_dir / "zfs-special.html")
    _refuse_existing(paths, force)
    operations = choice_list(workloads, OPERATIONS, "--workloads")
    options: dict[str, Any] = {
        "files": files,
        "size_dist": size_dist,
        "files_per_dir": files_per_dir,
        "special_small_blocks": thresholds,
        "workloads": operations,
        "fill_files": fill_files,
        "fill_special_bytes": fill_bytes,
        "overrides": settings,
        "host": host,
        "seed": seed,
    }
    # Its parts take a second or two each, less than starting a worker: auto runs them here.
    where = resolve(executor, 1, 0)
    if where is None:
        steps = (1 + len(thresholds)) * len(operations) + (1 if fill_files else 0)
        with progress.steps_bar("zfs-special", steps, progress.wanted(as_json), progress.lines_wanted()) as advance:
            table = zfs_special_sweep(pool, advance=advance, **options)
    else:
        steps = 1 + len(thresholds) + (1 if fill_files else 0)
        with (
            progress.steps_bar("zfs-special", steps, progress.wanted(as_json), progress.lines_wanted()) as advance,
            open_executor(where) as ex,
        ):
            table = zfs_special_sweep(pool, advance=advance, executor=ex, **options)
    text = zfs_special_report(table)

    def page(figure_paths: list[Path]) -> report_page.Page:
        from .. import _ssdtwin

        pool_text = _ssdtwin.pool_toml(pool, [f"{k}={v}" for k, v in settings.items()])
        drives = [report_page.Section(f"Pool: {pool}", [report_page.Text(pool_text)])]
        return study_page("zfs-special", table, text, figure_paths, drives)

    _finish(table, [FIGURES["zfs-special"](table)], paths, as_json, text, page if html else None)


zfs_special.params += _output_params(
    "Where the configurations and the fill run run: auto (here: each takes less than starting a worker), "
    "serial (this process), local[:N], dask-local[:N] or dask://HOST:PORT."
)
