"""``ssdtwin fio``: run fio jobs, given as fio's own options and job files, on a simulated
drive, and report exactly as fio 3.33 does."""

from __future__ import annotations

from pathlib import Path

import click

from .. import _ssdtwin, report_page
from ..device import DEFAULT_PROFILE, DEFAULT_RUN_SEED, Device, RawToml, RunResult
from ..files import place_text
from ..params import SEED, FiniteFloat, FioTime
from ..plots.latency import plot_latency
from ..terse import VERSIONS, terse_lines
from ..zfs import Pool, is_pool_state
from . import progress
from .common import (
    OutputFile,
    host_options,
    load_device,
    parse_overrides,
    profile_options,
    save_figure,
    write_state,
)
from .precondition import parse_fill
from .zfs import load_pool

FORMATS = ("normal", "json", "json+", "terse")
#: What --plot and --series can write.
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")
SERIES_SUFFIXES = (".csv", ".json")
#: The window of the run's series, ms, unless --series-window or --bandwidth-log sets it.
DEFAULT_WINDOW_MS = 100.0
#: fio's ``bwavgtime`` default: the aggregate bandwidth log's period.
AGG_BW_WINDOW_MS = 500


def _formats(value: str) -> list[str]:
    chosen = [f.strip() for f in value.split(",") if f.strip()]
    for f in chosen:
        if f not in FORMATS:
            raise click.BadParameter(
                f"'{f}': allowed {', '.join(FORMATS)} (comma-separated for several)", param_hint="--output-format"
            )
    if "json" in chosen and "json+" in chosen:
        raise click.BadParameter("json and json+ together: choose one", param_hint="--output-format")
    return chosen or ["normal"]


@click.command(
    "fio",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]},
)
@profile_options
@host_options()
@click.option(
    "--pool",
    help="Run on a ZFS pool (shipped name or pool file) instead of a drive; jobs name their dataset's mount "
    "point (directory=/tank/data). --set then changes pool-file fields.",
)
@click.option("--output-format", "output_format", default="normal", help="normal, json or json+ (comma-separated).")
@click.option("--output", type=OutputFile(), help="Write the report to FILE (replaced if it exists, as fio does).")
@click.option(
    "--fill", "fill", help="Precondition first, untimed: seq|random|steady[:PERCENT] (as 'ssdtwin precondition')."
)
@click.option("--save-state", type=OutputFile(), help="Save the device state after the run.")
@click.option("--force", is_flag=True, help="Let --save-state replace an existing file.")
@click.option("--seed", type=SEED, default=DEFAULT_RUN_SEED, show_default=True, help="Seed of every random stream.")
@click.option("--parse-only", is_flag=True, help="As fio's: check the jobs and their options, run nothing.")
@click.option("--showcmd", is_flag=True, help="As fio's: print each job file as the command line that runs it.")
@click.option(
    "--section",
    "sections",
    multiple=True,
    metavar="NAME",
    help="As fio's: run only this job-file section (repeatable).",
)
@click.option("--minimal", is_flag=True, help="As fio's: terse output (--output-format=terse).")
@click.option(
    "--terse-version",
    type=click.IntRange(min(VERSIONS), max(VERSIONS)),
    default=3,
    show_default=True,
    help="Terse format version, 2 to 5.",
)
@click.option(
    "--bandwidth-log",
    is_flag=True,
    help="As fio's: aggregate bandwidth logs agg-{read,write,trim}_bw.log, one line per 500 ms.",
)
@click.option(
    "--eta",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Progress on stderr: when it is a terminal, always, or never.",
)
@click.option(
    "--eta-newline", type=FioTime(), metavar="TIME", help="Accepted as fio's (the progress bar redraws in place)."
)
@click.option(
    "--eta-interval", type=FioTime(), metavar="TIME", help="Accepted as fio's (the progress bar has its own pace)."
)
@click.option(
    "--status-interval",
    type=FioTime(),
    metavar="TIME",
    help="Accepted as fio's (a simulated run reports once, at its end).",
)
@click.option(
    "--plot",
    type=OutputFile(),
    help="Write the latency figure (.png, .svg or .pdf): the distribution of total latency per direction "
    "and its p50/p99/p99.9 per window over time.",
)
@click.option(
    "--html",
    "html",
    type=OutputFile(),
    help="Write a self-contained report page (replaced if it exists, as --output is): fio's report, "
    "the latency figure, each job's figures, the drive's profile with the source of each field, and the command.",
)
@click.option(
    "--series",
    "series_file",
    type=OutputFile(),
    help="Write the run over time (.csv or .json records): per window, IOPS, MB/s and latency "
    "mean/p50/p99/p99.9/max per direction, and the device's counters.",
)
@click.option(
    "--series-window",
    "series_window_ms",
    type=FiniteFloat(min=1.0, max=3_600_000.0),
    metavar="MSEC",
    help="Window of --series and --plot, ms (default 100; 500 with --bandwidth-log, whose windows it sets).",
)
@click.argument("fio_args", nargs=-1, type=click.UNPROCESSED)
def command(
    profile: str | None,
    state: Path | None,
    pool: str | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
    hmb: str,
    output_format: str,
    output: Path | None,
    fill: str | None,
    save_state: Path | None,
    force: bool,
    seed: int,
    parse_only: bool,
    showcmd: bool,
    sections: tuple[str, ...],
    minimal: bool,
    terse_version: int,
    bandwidth_log: bool,
    eta: str,
    eta_newline: str | None,
    eta_interval: str | None,
    status_interval: str | None,
    plot: Path | None,
    html: Path | None,
    series_file: Path | None,
    series_window_ms: float | None,
    fio_args: tuple[str, ...],
) -> None:
    """Run fio jobs on a simulated drive in a simulated machine (--host).

    Options after the ssdtwin ones are fio's: --name starts a job, options before the first
    --name are global, other arguments are job files. Example:

    \b
      ssdtwin fio --profile generic-tlc-1tb --fill seq --name=r --rw=randread \\
        --bs=4k --ioengine=libaio --iodepth=32 --runtime=10 --time_based
    """
    formats = ["terse"] if minimal else _formats(output_format)
    del eta_newline, eta_interval, status_interval  # accepted, as the help says
    if not fio_args:
        raise click.UsageError("no job: give fio options (--name=... --rw=...) or job files")
    args = [*(f"--section={name}" for name in sections), *fio_args]
    if showcmd:
        click.echo(_ssdtwin.fio_showcmd(args), nl=False)
        return
    if parse_only:
        # fio --parse-only reads the jobs and exits quietly when they are valid.
        _ssdtwin.check_fio_args(args)
        return
    _check_suffix(plot, FIGURE_SUFFIXES, "--plot")
    _check_suffix(series_file, SERIES_SUFFIXES, "--series")
    if bandwidth_log and series_window_ms not in (None, AGG_BW_WINDOW_MS):
        raise click.UsageError(f"--bandwidth-log logs {AGG_BW_WINDOW_MS} ms windows: leave --series-window out")
    if save_state is not None and save_state.exists() and not force:
        raise click.UsageError(f"--save-state {save_state} exists; add --force to replace it")
    on_pool = pool is not None or (state is not None and is_pool_state(state))
    target: Device | Pool
    if on_pool:
        if profile is not None:
            raise click.UsageError("give --profile (a drive) or --pool (a ZFS pool), not both")
        if fill is not None:
            raise click.UsageError("--fill preconditions a drive; on a pool, write the files with a job first")
        target = load_pool(pool, state, overrides, host, host_overrides)
    else:
        target = device = load_device(profile, state, overrides, host, host_overrides, hmb)
    machine_output = output is None and any(f != "normal" for f in formats)
    show = eta == "auto" and progress.wanted(machine_output)
    if fill is not None and not on_pool:
        kind, percent = parse_fill(fill)
        with progress.fill_bar(f"{kind} fill", show, forced=eta == "always") as fill_progress:
            device.fill(kind, percent, seed=seed, progress=fill_progress)
    window_ms = series_window_ms or (AGG_BW_WINDOW_MS if bandwidth_log else DEFAULT_WINDOW_MS)
    with progress.simulation_bar("simulating", show, forced=eta == "always") as bar:
        result = target.run(args, seed=seed, progress=bar, series_window_ms=window_ms)
    if not on_pool and (grant := device.hmb())["message"]:
        # What the Linux driver logs when it sets up the HMB (dmesg), kept off stdout, once
        # the jobs are known to be good: bad input gets its one line alone.
        click.echo(grant["message"], err=True)
    for warning in result.warnings:
        click.echo(f"ssdtwin: warning: {warning}", err=True)
    for line in result.errors:
        click.echo(line, err=True)
    report = _report(result, formats, terse_version)
    if output is None:
        click.echo(report, nl=False)
    else:
        place_text(output, report)
    if bandwidth_log:
        _write_agg_bw_logs(result, Path("."))
    if series_file is not None:
        table = result.series
        text = table.to_csv(index=False) if series_file.suffix == ".csv" else table.to_json(orient="records") + "\n"
        place_text(series_file, text)
    title = _title(result, profile or (str(state) if state else None) or pool or DEFAULT_PROFILE, host)
    if plot is not None:
        save_figure(plot_latency(result.latency_histogram, result.series, title), plot)
    if html is not None:
        drive = None
        if not on_pool and state is None:
            settings = {k: RawToml(v) for k, v in parse_overrides(overrides).items()}
            drive = report_page.profile_section(profile or DEFAULT_PROFILE, settings)
        report_page.write(fio_page(result, title, drive), html)
    if save_state is not None:
        write_state(target, save_state, force)
    if result.errors:
        # As fio: a job that ended with an error makes the run exit 1, reports printed.
        raise click.exceptions.Exit(1)


def fio_page(result: RunResult, title: str, drive: report_page.Section | None) -> report_page.Page:
    """``ssdtwin fio --html``: fio's report, each job's figures and latency percentiles, the
    latency figure, and the drive (``drive``, where the run named a profile)."""
    from ..comparison import fio_records

    figure = plot_latency(result.latency_histogram, result.series, title)
    sections = [
        report_page.Section("fio's report", [report_page.Text(result.normal)]),
        report_page.Section(
            "Figures", [report_page.Figure(report_page.png(figure), "latency: distribution and over time")]
        ),
        report_page.Section(
            "Jobs", [report_page.Table(fio_records(result.json), "per job and direction (fio's JSON, normalised)")]
        ),
    ]
    if drive is not None:
        sections.append(drive)
    return report_page.Page(f"ssdtwin fio: {title}", report_page.command_line(), sections)


def _check_suffix(path: Path | None, allowed: tuple[str, ...], option: str) -> None:
    """Refuses, before anything is simulated, an output file whose kind is not known."""
    if path is not None and path.suffix.lower() not in allowed:
        raise click.BadParameter(f"{path}: the name must end in {', '.join(allowed)}", param_hint=option)


def _title(result: RunResult, target: str, host: str) -> str:
    """What a figure shows, in one line: the drive (or pool), the host, and each job's
    pattern, block size, depth and engine, as its fio JSON states them."""
    jobs = []
    for job in result.json["jobs"]:
        o = job.get("job options", {})
        parts = [o.get("rw", ""), o.get("bs", ""), f"QD{o['iodepth']}" if "iodepth" in o else "", o.get("ioengine", "")]
        jobs.append(f"{job['jobname']}: " + " ".join(p for p in parts if p))
    return f"{_name(target)} on {_name(host)} — " + "; ".join(dict.fromkeys(jobs))


def _name(profile: str) -> str:
    """A shipped profile's name, or a profile file's name without ``.toml``."""
    path = Path(profile)
    return path.stem if path.suffix == ".toml" else path.name


def _report(result: RunResult, formats: list[str], terse_version: int) -> str:
    """The reports in fio's order whatever the order asked: the job header lines (with
    normal output), then terse, then JSON, then the normal statistics; each ends with one
    newline, as fio's own do ("}\n" after the JSON)."""
    header, body = "", ""
    if "normal" in formats:
        normal = result.normal
        cut = normal.find("\n", normal.find("\nStarting ") + 1) + 1
        header, body = normal[:cut], normal[cut:]
    parts = [header]
    if "terse" in formats:
        parts.append(terse_lines(result.json, terse_version))
    for plus in (False, True):
        if ("json+" if plus else "json") in formats:
            parts.append(result.fio_json_text(plus=plus))
    parts.append(body)
    return "".join(p if not p or p.endswith("\n") else p + "\n" for p in parts)


def _write_agg_bw_logs(result: RunResult, directory: Path) -> None:
    """fio's ``--bandwidth-log`` files: the bandwidth of all jobs together, KiB/s, per
    direction and full 500 ms window (``time, KiB/s, ddir, 0, 0``). fio's ETA thread logs a
    line when it updates its display at least 500 ms after the last (so only with
    ``--eta=always`` or a terminal); here every full window is logged."""
    series = result.series
    ends_ms = (series.time_ns // 1_000_000).tolist()
    full = [i for i in range(1, len(series)) if ends_ms[i] - ends_ms[i - 1] == AGG_BW_WINDOW_MS]
    for ddir, name in enumerate(("read", "write", "trim")):
        mb_per_s = series.get(f"{name}_mb_per_s")
        lines = []
        for i in full:
            moved = 0 if mb_per_s is None else round(float(mb_per_s.iloc[i]) * 1e6 * AGG_BW_WINDOW_MS / 1000)
            lines.append(f"{ends_ms[i]}, {moved * 1000 // AGG_BW_WINDOW_MS // 1024}, {ddir}, 0, 0\n")
        (directory / f"agg-{name}_bw.log").write_text("".join(lines))
