"""``ssdtwin perftest``: FreeBSD ``nvmecontrol perftest`` on a simulated drive, with the
tool's options and output line."""

from __future__ import annotations

from pathlib import Path

import click

from ..perftest import MAX_THREADS, MODES, perftest
from .common import OutputFile, host_options, load_device, profile_options, write_state


@click.command("perftest", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-n", "--threads", type=click.IntRange(1, MAX_THREADS), required=True, help="Threads, one I/O outstanding each."
)
@click.option(
    "-o",
    "--operation",
    type=click.Choice(["read", "write"], case_sensitive=False),
    required=True,
    help="read or write.",
)
@click.option(
    "-s", "--size", type=click.IntRange(min=1), required=True, help="Bytes per I/O (a multiple of the sector)."
)
@click.option("-t", "--time", "seconds", type=click.IntRange(min=1), required=True, help="Test time, seconds.")
@click.option("-p", "--perthread", is_flag=True, help="Also print each thread's IO/s.")
@click.option(
    "-i",
    "--interrupt",
    "mode",
    type=click.Choice(sorted(MODES)),
    default="intr",
    show_default=True,
    help="intr/io: each thread repeats one LBA; wait/bio: each thread moves on sequentially.",
)
@profile_options
@host_options(default="freebsd-11")
@click.option("--save-state", type=OutputFile(), help="Save the device state after the test.")
@click.option("--force", is_flag=True, help="Let --save-state replace an existing file.")
@click.argument("namespace", required=False)
def command(
    threads: int,
    operation: str,
    size: int,
    seconds: int,
    perthread: bool,
    mode: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
    hmb: str,
    save_state: Path | None,
    force: bool,
    namespace: str | None,
) -> None:
    """Run nvmecontrol's perftest on a simulated drive (in FreeBSD 11 unless --host says
    otherwise: the test's kernel threads and interrupt path are FreeBSD's).

    NAMESPACE (e.g. nvme0ns1) is accepted so nvmecontrol command lines paste unchanged; the
    test runs on the simulated drive's one namespace. To chain tests (format, write, then
    read), save the state after each and start the next from it:

    \b
      ssdtwin nvme format --profile wd-black-256 --state s.state
      ssdtwin perftest -n 1 -o write -s 131072 -t 5 -i wait --state s.state --save-state s.state --force
      ssdtwin perftest -n 1 -o read -s 131072 -t 15 -i wait --state s.state
    """
    if save_state is not None and save_state.exists() and not force:
        raise click.UsageError(f"--save-state {save_state} exists; add --force to replace it")
    device = load_device(profile, state, overrides, host, host_overrides, hmb)
    result = perftest(device, threads=threads, operation=operation, size=size, seconds=seconds, mode=mode)
    click.echo(result.report(perthread), nl=False)
    if save_state is not None:
        write_state(device, save_state, force)
