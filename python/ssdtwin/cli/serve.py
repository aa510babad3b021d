"""``ssdtwin serve``: the drive as an NBD export for real clients (fio's nbd engine,
qemu-io, nbdcopy, nbdfuse), paced to wall-clock time, with a dashboard and Prometheus
metrics to watch it by (:mod:`ssdtwin.live`)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import click

from ..device import DEFAULT_MEMORY_LIMIT_GIB
from ..files import place_text
from ..live.dashboard import serve_dashboard
from ..live.feed import Snapshots
from ..live.metrics import serve_metrics
from ..live.pacing import Calibration, LateWatch, fastest_command_s
from ..params import FiniteFloat
from ..probe.nbd import round_trips_s
from .common import OutputFile, host_options, load_device, profile_options, write_state


def listen_address(value: str | None, option: str = "--listen") -> str | None:
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
        raise click.BadParameter(f"'{value}': allowed PORT or ADDRESS:PORT, e.g. 10809", param_hint=option)
    return f"{host or '127.0.0.1'}:{port}"


class TimeScale(click.ParamType[float | None, Any]):
    """``auto`` (None: the server picks it) or a number from 0.001 to 10^6."""

    name = "auto|K"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float | None:
        if value is None or (isinstance(value, str) and value.strip() == "auto"):
            return None
        return float(FiniteFloat(0.001, 1e6).convert(value, param, ctx))


#: Round trips the time-scale calibration times.
CALIBRATION_EXCHANGES = 200


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
    type=TimeScale(),
    default="auto",
    show_default=True,
    help="Simulated time runs this many times slower than wall time; auto: the smallest power of two at "
    "which this machine's server keeps time with the drive's fastest command (measured on start).",
)
@click.option(
    "--dashboard",
    metavar="[ADDRESS:]PORT",
    help="Serve a live dashboard page here (a bare port: loopback only).",
)
@click.option(
    "--metrics",
    metavar="[ADDRESS:]PORT",
    help="Serve Prometheus metrics at /metrics here (a bare port: loopback only).",
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
    time_scale: float | None,
    dashboard: str | None,
    metrics: str | None,
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
    (divide the latencies a client measures by K). By default (auto) the server measures
    its own round trip on start and picks K; if replies run late while it serves, it says
    so once, with the scale that would hold. The drive alone is served by default (--host
    none): the client's own host costs are real.
    """
    if (socket is None) == (listen is None):
        raise click.UsageError("give --socket PATH or --listen [ADDRESS:]PORT (one of them)")
    address = listen_address(listen)
    dashboard_address = listen_address(dashboard, "--dashboard")
    metrics_address = listen_address(metrics, "--metrics")
    for path, option in ((record, "--record"), (stats_file, "--stats"), (save_state, "--save-state")):
        if path is not None and path.exists() and not force:
            raise click.UsageError(f"{path} exists; add --force to replace it ({option})")
    if record is not None and record.exists():
        record.unlink()
    device = load_device(profile, state, overrides, host, host_overrides, hmb)
    if device.zones() is not None:
        raise click.UsageError(
            f"{device.profile_name} is zoned: an NBD export is a plain block device whose clients write anywhere, "
            "and a zoned namespace takes writes only at its zones' write pointers; serve a conventional profile"
        )
    name = device.profile_name
    on = "the drive alone (--host none)" if host == "none" else f"host {host}"
    snapshots = Snapshots()
    fastest_s = fastest_command_s(device) if time_scale is None else None
    watch = LateWatch(snapshots, lambda line: click.echo(f"ssdtwin: warning: {line}", err=True))
    views: list[Any] = []
    calibrated: list[Calibration] = []

    def announce(scale: str, uri: str) -> None:
        click.echo(f"serving {name}, {on}, at {uri} ({scale}); Ctrl-C stops", err=True)
        for what, where in (("dashboard", dashboard_address), ("metrics", metrics_address)):
            if where is not None:
                click.echo(f"{what} at http://{where}/{'metrics' if what == 'metrics' else ''}", err=True)
        click.echo(uri)
        watch.start()

    def calibrate(uri: str) -> None:
        assert fastest_s is not None
        try:
            c = Calibration.of(round_trips_s(uri, CALIBRATION_EXCHANGES), fastest_s)
        except Exception as e:
            click.echo(f"ssdtwin: warning: the time-scale calibration failed ({e}); serving at time scale 1", err=True)
            announce("time scale 1", uri)
            return
        snapshots.feed.request_time_scale(c.time_scale)
        # Clients are told the URI once the server serves at the new scale; one that is
        # busy already (a client that knew the socket) takes it at its first idle instant.
        if not snapshots.wait_for(lambda s: s["time_scale"] == c.time_scale, timeout_s=5.0):
            latest = snapshots.latest()
            now = latest["time_scale"] if latest else 1.0
            click.echo(
                f"ssdtwin: warning: the server was busy and still serves at time scale {now:g}; "
                f"it moves to {c.time_scale} at the first instant no command is in flight",
                err=True,
            )
        calibrated.append(c)
        announce(c.text(), uri)

    def ready(uri: str) -> None:
        if dashboard_address is not None:
            views.append(serve_dashboard(snapshots, dashboard_address, f"{name} at {uri}"))
        if metrics_address is not None:
            views.append(serve_metrics(snapshots, metrics_address))
        if time_scale is None:
            # The server must be running to be measured: the URI goes out once it has its scale.
            threading.Thread(target=calibrate, args=(uri,), name="calibrate", daemon=True).start()
        else:
            announce(f"time scale {time_scale:g}", uri)

    try:
        stats = device.serve(
            socket=socket,
            listen=address,
            export_name=export_name,
            time_scale=1.0 if time_scale is None else time_scale,
            data=data,
            memory_limit_gib=memory_limit_gib,
            record=record,
            force=force,
            ready=ready,
            live=snapshots.feed,
        )
    finally:
        watch.stop()
        for view in views:
            view.shutdown()
    if calibrated:
        c = calibrated[0]
        stats["calibration"] = {
            "time_scale": c.time_scale,
            "round_trip_p99_us": c.round_trip_p99_s * 1e6,
            "fastest_command_us": c.fastest_command_s * 1e6,
            "requests": c.exchanges,
            "connections": 1,
        }
    late = stats["lateness"]
    ours = f" (and {calibrated[0].exchanges} of the time-scale calibration on one more)" if calibrated else ""
    click.echo(
        f"served {stats['requests'] - (calibrated[0].exchanges if calibrated else 0)} requests on "
        f"{stats['connections'] - (1 if calibrated else 0)} connections{ours}; "
        f"{stats['late_replies']} replies more than 20 us late (lateness p50 {late['p50_ns'] / 1000:.1f} us, "
        f"p99 {late['p99_ns'] / 1000:.1f} us)",
        err=True,
    )
    if watch.warning is not None:
        click.echo(f"ssdtwin: replies ran late: {watch.warning}", err=True)
    if stats_file is not None:
        place_text(stats_file, json.dumps(stats, indent=2) + "\n")
    if save_state is not None:
        write_state(device, save_state, force)
