"""``ssdtwin zpool list``: a simulated pool's vdevs, sizes and health, as ``zpool list`` prints
them."""

from __future__ import annotations

from pathlib import Path

import click

from ..zfs import zpool_list_text
from .zfs import load_pool, pool_options


@click.group("zpool")
def command() -> None:
    """zpool's views of a simulated pool."""


@command.command("list")
@click.option("-v", "verbose", is_flag=True, help="Show the vdevs, by class.")
@click.option("-p", "parsable", is_flag=True, help="Exact numbers.")
@click.option("-H", "scripted", is_flag=True, help="No header; fields separated by a tab.")
@click.option(
    "--fail",
    "failed",
    multiple=True,
    metavar="DEVICE",
    help="Mark a device failed first (repeatable): see which losses the pool survives.",
)
@pool_options
def list_(
    verbose: bool,
    parsable: bool,
    scripted: bool,
    failed: tuple[str, ...],
    pool: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
) -> None:
    """List the pool: SIZE, ALLOC, FREE, FRAG, CAP, HEALTH; with -v every vdev by class.

    A pool that has lost a top-level vdev (a special vdev included) shows UNAVAIL, and the
    command says so on stderr and exits 1.

    \b
      ssdtwin zpool list -v --pool hdd-mirror-special
      ssdtwin zpool list -v --state tank.state --fail nvme0n1 --fail nvme1n1
    """
    p = load_pool(pool, state, overrides, host, host_overrides)
    for device in failed:
        p.fail(device)
    click.echo(zpool_list_text(p.list_rows(), verbose=verbose, parsable=parsable, scripted=scripted), nl=False)
    try:
        p.check()
    except Exception as e:  # the pool's verdict: shown, not a usage error
        click.echo(f"ssdtwin: {e}", err=True)
        raise click.exceptions.Exit(1) from None
