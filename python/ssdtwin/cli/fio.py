"""``ssdtwin fio``: run fio jobs, given as fio's own options and job files, on a simulated
drive, and report exactly as fio 3.33 does."""

from __future__ import annotations

from pathlib import Path

import click

from .. import _ssdtwin
from ..device import Device
from . import progress
from .common import host_options, load_device, profile_options
from .precondition import parse_fill

FORMATS = ("normal", "json", "json+")


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
@click.option("--output-format", "output_format", default="normal", help="normal, json or json+ (comma-separated).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), help="Write the report to FILE.")
@click.option("--fill", "fill", help="Precondition first, untimed: seq|random[:PERCENT] (as 'ssdtwin precondition').")
@click.option(
    "--save-state", type=click.Path(dir_okay=False, path_type=Path), help="Save the device state after the run."
)
@click.option("--force", is_flag=True, help="Let --save-state replace an existing file.")
@click.option("--seed", type=int, default=0x5EED, show_default=True, help="Seed of every random stream.")
@click.option("--parse-only", is_flag=True, help="As fio's: check the jobs and their options, run nothing.")
@click.argument("fio_args", nargs=-1, type=click.UNPROCESSED)
def command(
    profile: str | None,
    state: Path | None,
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
    fio_args: tuple[str, ...],
) -> None:
    """Run fio jobs on a simulated drive in a simulated machine (--host).

    Options after the ssdtwin ones are fio's: --name starts a job, options before the first
    --name are global, other arguments are job files. Example:

    \b
      ssdtwin fio --profile generic-tlc-1tb --fill seq --name=r --rw=randread \\
        --bs=4k --ioengine=libaio --iodepth=32 --runtime=10 --time_based
    """
    formats = _formats(output_format)
    if not fio_args:
        raise click.UsageError("no job: give fio options (--name=... --rw=...) or job files")
    if parse_only:
        # fio --parse-only reads the jobs and exits quietly when they are valid.
        _ssdtwin.check_fio_args(list(fio_args))
        return
    if save_state is not None and save_state.exists() and not force:
        raise click.UsageError(f"--save-state {save_state} exists; add --force to replace it")
    device: Device = load_device(profile, state, overrides, host, host_overrides, hmb)
    grant = device.hmb()
    if grant["message"]:
        # What the Linux driver logs when it sets up the HMB (dmesg), kept off stdout.
        click.echo(grant["message"], err=True)
    if fill is not None:
        kind, percent = parse_fill(fill)
        device.fill(kind, percent, seed=seed)
    json_to_stdout = output is None and any(f != "normal" for f in formats)
    with progress.simulation_bar("simulating", progress.wanted(json_to_stdout)) as bar:
        result = device.run(list(fio_args), seed=seed, progress=bar)
    for warning in result.warnings:
        click.echo(f"ssdtwin: warning: {warning}", err=True)
    # Each report ends with one newline, as fio's own do ("}\n" after the JSON).
    parts = [result.normal if f == "normal" else result.fio_json_text(plus=f == "json+") for f in formats]
    report = "".join(p if p.endswith("\n") else p + "\n" for p in parts)
    if output is None:
        click.echo(report, nl=False)
    else:
        output.write_text(report)
    if save_state is not None:
        device.save(save_state, overwrite=True)
