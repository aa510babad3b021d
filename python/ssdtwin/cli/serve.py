"""``ssdtwin serve``: the drive as an NBD export for real clients (fio's nbd engine,
qemu-io, nbdcopy, nbdfuse), paced to wall-clock time."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..device import DEFAULT_MEMORY_LIMIT_GIB
from ..files import place_text
from ..params import FiniteFloat
from .common import OutputFile, host_options, load_device, profile_options, write_state


def listen_address(value: str | None) -> str | None:
    """``PORT`` or ``ADDRESS:PORT``; a bare port listens on loopback only.

    >>> listen_address("10809")
    '127.0.0.1:10809'
    >>> listen_address("0.0.0.0:10809")
    '0.0.0.0:10809'
    """
    if value is None:
        return None
    host, _, port = value.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise click.BadParameter(f"'{value}': allowed PORT or ADDRESS:PORT, e.g. 10809", param_hint="--listen")
    return f"{host or '127.0.0.1'}:{port}"


@click.command("serve")
@profile_options
@host_options(default="none")
@click.option(
    "--socket", "socket", type=click.Path(dir_okay=False, path_type=Path), help="Listen on a Unix socket at this path."
)
@click.option("--listen", "listen", help="Listen on TCP: PORT (loopback) or ADDRESS:PORT.")
@click.option("--export-name", default="", help="The export's name (clients that give none ask for '').")
@click.option(
    "--time-scale",
    type=FiniteFloat(0.001, 1e6),
    default=1.0,
    show_default=True,
    help="Simulated time runs this many times slower than wall time.",
)
@click.option("--data", type=OutputFile(), help="Keep client data in this file (as large as the drive).")
@click.option(
    "--memory-limit",
    "memory_limit_gib",
    type=FiniteFloat(min=0.001),
    default=DEFAULT_MEMORY_LIMIT_GIB,
    show_default=True,
    help="GiB of client data kept in memory without --data; writes beyond it fail with ENOSPC.",
)
@click.option("--record", type=OutputFile(), help="Write every request as a fio iolog v3 here.")
@click.option("--stats", "stats_file", type=OutputFile(), help="Write the server's statistics as JSON here.")
@click.option("--save-state", type=OutputFile(), help="Save the drive's state here on exit.")
@click.option("--force", is_flag=True, help="Replace an existing socket, record, stats or state file.")
def command(
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
    hmb: str,
    socket: Path | None,
    listen: str | None,
    export_name: str,
    time_scale: float,
    data: Path | None,
    memory_limit_gib: float,
    record: Path | None,
    stats_file: Path | None,
    save_state: Path | None,
    force: bool,
) -> None:
    """Serve the drive over NBD until Ctrl-C (SIGINT) or SIGTERM.

    Each request reaches the twin at the simulated time of its arrival and is answered when
    the twin completes it; with --time-scale K, simulated time runs K times slower than
    wall time, so a drive faster than this machine's NBD path is still served faithfully
    (divide the latencies a client measures by K). The drive alone is served by default
    (--host none): the client's own host costs are real.
    """
    if (socket is None) == (listen is None):
        raise click.UsageError("give --socket PATH or --listen [ADDRESS:]PORT (one of them)")
    address = listen_address(listen)
    for path, option in ((record, "--record"), (stats_file, "--stats"), (save_state, "--save-state")):
        if path is not None and path.exists() and not force:
            raise click.UsageError(f"{path} exists; add --force to replace it ({option})")
    if record is not None and record.exists():
        record.unlink()
    device = load_device(profile, state, overrides, host, host_overrides, hmb)
    name = device.profile_name

    def ready(uri: str) -> None:
        click.echo(f"serving {name} at {uri} (time scale {time_scale:g}); Ctrl-C stops", err=True)
        click.echo(uri)

    stats = device.serve(
        socket=socket,
        listen=address,
        export_name=export_name,
        time_scale=time_scale,
        data=data,
        memory_limit_gib=memory_limit_gib,
        record=record,
        force=force,
        ready=ready,
    )
    late = stats["lateness"]
    click.echo(
        f"served {stats['requests']} requests on {stats['connections']} connections; "
        f"{stats['late_replies']} replies more than 20 us late (lateness p50 {late['p50_ns'] / 1000:.1f} us, "
        f"p99 {late['p99_ns'] / 1000:.1f} us)",
        err=True,
    )
    if stats_file is not None:
        place_text(stats_file, json.dumps(stats, indent=2) + "\n")
    if save_state is not None:
        write_state(device, save_state, force)
