"""``ssdtwin nvme``: nvme-cli 2.3's ``id-ctrl``, ``id-ns``, ``list``, ``smart-log``,
``get-feature`` and ``format`` on a simulated drive, printed as nvme-cli prints them (see
:mod:`ssdtwin.nvme`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..device import Device
from ..nvme import (
    dumps,
    features,
    get_feature_text,
    id_ctrl_json,
    id_ctrl_text,
    id_ns_json,
    id_ns_text,
    identify_controller,
    identify_namespace,
    list_json,
    list_text,
    smart_log,
    smart_log_json,
    smart_log_text,
)
from ..nvme.constants import NSID
from ..nvme.features import SELECT_NAMES
from ..nvme.show_fdp import (
    fdp_configs_json,
    fdp_configs_text,
    fdp_events_json,
    fdp_events_text,
    fdp_stats_json,
    fdp_stats_text,
    fdp_status_json,
    fdp_status_text,
    fdp_usage_json,
    fdp_usage_text,
)
from ..nvme.show_smart_log import NSID_ALL
from ..nvme.show_zns import (
    STATE_FILTER,
    report_zones_json,
    report_zones_text,
    send_success,
)
from ..nvme.show_zns import id_ns_json as zns_id_ns_json
from ..nvme.show_zns import id_ns_text as zns_id_ns_text
from .common import (
    CInteger,
    OutputFile,
    device_argument,
    host_options,
    load_device,
    named_device_argument,
    profile_options,
)

F = TypeVar("F", bound=Callable[..., Any])


def output_format_option(f: F) -> F:
    """nvme-cli's ``-o``/``--output-format``, limited to the formats emulated."""
    return click.option(
        "-o",
        "--output-format",
        "output_format",
        type=click.Choice(["normal", "json"]),
        default="normal",
        show_default=True,
        help="normal (nvme-cli's text) or json (its -o json).",
    )(f)


def human_option(f: F) -> F:
    """nvme-cli's ``-H``/``--human-readable``."""
    return click.option("-H", "--human-readable", "human", is_flag=True, help="Decode bit fields as nvme-cli -H does.")(
        f
    )


@click.group("nvme")
def command() -> None:
    """nvme-cli 2.3's id-ctrl, id-ns, list, smart-log, get-feature and format on a simulated drive.

    The drive, /dev/nvme0 with namespace 1, is a fresh one from --profile (default generic-tlc-1tb) or the one saved in
    --state; output is nvme-cli's, byte for byte where ssdtwin knows the values (the
    others are documented constants, see ssdtwin.nvme.constants).
    """


@command.command("id-ctrl")
@device_argument
@profile_options
@host_options()
@human_option
@output_format_option
def id_ctrl(
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
    hmb: str,
    human: bool,
    output_format: str,
) -> None:
    """Identify Controller, as 'nvme id-ctrl /dev/nvme0'.

    hmpre, hmmin, hmminds and hmmaxd are the profile's HMB request (4 KiB units). With -H,
    the line the host's driver logs when it sets up the HMB (dmesg) follows on stderr.
    """
    device = load_device(profile, state, overrides, host, host_overrides, hmb)
    ctrl = identify_controller(device.identity())
    if output_format == "json":
        click.echo(dumps(id_ctrl_json(ctrl)))
        return
    click.echo(id_ctrl_text(ctrl, human=human), nl=False)
    if human and (message := device.hmb()["message"]):
        click.echo(message, err=True)


@command.command("id-ns")
@device_argument
@profile_options
@human_option
@output_format_option
def id_ns(profile: str | None, state: Path | None, overrides: tuple[str, ...], human: bool, output_format: str) -> None:
    """Identify Namespace, as 'nvme id-ns /dev/nvme0n1'.

    nsze and ncap count blocks of the LBA format in use; nuse counts the blocks the map
    holds (whole 4 KiB map units).
    """
    ns = identify_namespace(load_device(profile, state, overrides).identity())
    if output_format == "json":
        click.echo(dumps(id_ns_json(ns)))
    else:
        click.echo(id_ns_text(ns, NSID, human=human), nl=False)


@command.command("list")
@profile_options
@output_format_option
def list_(profile: str | None, state: Path | None, overrides: tuple[str, ...], output_format: str) -> None:
    """The drive's namespace, as 'nvme list' shows it (-o json: the simple form)."""
    identity = load_device(profile, state, overrides).identity()
    ctrl, ns = identify_controller(identity), identify_namespace(identity)
    if output_format == "json":
        click.echo(dumps(list_json(ctrl, ns)))
    else:
        click.echo(list_text(ctrl, ns), nl=False)


@command.command("smart-log")
@named_device_argument
@profile_options
@click.option(
    "-n", "--namespace-id", "nsid", type=CInteger(1, NSID_ALL), default=NSID_ALL, help="Namespace (default: all)."
)
@human_option
@output_format_option
def smart_log_(
    device: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    nsid: int,
    human: bool,
    output_format: str,
) -> None:
    """SMART / Health log, as 'nvme smart-log /dev/nvme0'.

    Every field comes from the drive's state: wear (Percentage Used, Available Spare), the
    thermal model (temperature, time above the thresholds, HCTM transitions), commands and
    data units, busy time, power-on hours of simulated time and power cycles (a saved state
    loads as a drive powered on again). The drive keeps one log for its one namespace, so
    -n 1 and the default (all) print the same values.
    """
    log = smart_log(load_device(profile, state, overrides).health())
    if output_format == "json":
        click.echo(dumps(smart_log_json(log, human=human)))
    else:
        click.echo(smart_log_text(log, Path(device).name, nsid, human=human), nl=False)


@command.command("get-feature")
@named_device_argument
@profile_options
@host_options()
@click.option(
    "-f",
    "--feature-id",
    "fid",
    type=CInteger(0, 0xFF),
    default=0,
    help="Feature identifier (default 0: every feature the drive supports).",
)
@click.option(
    "-s",
    "--sel",
    "select",
    type=click.Choice([str(v) for v in SELECT_NAMES]),
    default="0",
    help="0 current, 1 default, 2 saved, 3 supported capabilities, 8 changed from default.",
)
@click.option(
    "-n",
    "--namespace-id",
    "nsid",
    type=CInteger(0, NSID_ALL),
    default=0,
    help="Namespace (no feature is per namespace).",
)
@click.option(
    "-c", "--cdw11", "cdw11", type=CInteger(0, 0xFFFF_FFFF), default=0, help="Dword 11 (feature 0x09's vector)."
)
@human_option
def get_feature(
    device: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
    hmb: str,
    fid: int,
    select: str,
    nsid: int,
    cdw11: int,
    human: bool,
) -> None:
    """Get Features, as 'nvme get-feature /dev/nvme0 -f 0x0d -H'.

    Values come from the drive and its host: Temperature Threshold is the warning threshold,
    Volatile Write Cache the profile's cache, Number of Queues the I/O queues, Host Memory
    Buffer what the host's driver allocated (its default is disabled, so -s 8 lists it),
    Autonomous Power State Transition the table the host's driver programmed (drives with a
    non-operational power state), Host Controlled Thermal Management the TMT1 and TMT2 set
    (drives with an HCTM range). Features the twin does not implement are refused with the
    list of those it does.
    """
    del device, nsid  # one drive, one namespace: the name and namespace select nothing
    dev = load_device(profile, state, overrides, host, host_overrides, hmb)
    identity = dev.identity()
    table = features(identity, identify_controller(identity), dev.hmb(), dev.apst())
    if fid and fid not in table:
        listed = ", ".join(f"{f:#04x}" for f in table)
        raise click.BadParameter(
            f"{fid:#04x}: Invalid Field in Command, this drive implements features {listed}", param_hint="-f"
        )
    sel = int(select)
    for feature in table.values():
        if fid and feature.fid != fid:
            continue
        result, data = feature.value(0 if sel == 8 else sel)
        if sel == 8 and (result, data) == feature.value(1):
            continue
        if feature.fid == 0x09 and sel != 3:
            result = cdw11 & 0xFFFF
        click.echo(get_feature_text(feature.fid, sel, result, data, human=human), nl=False)


@command.command("format")
@device_argument
@click.option("--profile", help="Shipped profile name or TOML file, for a fresh drive when FILE does not exist.")
@click.option(
    "--state",
    "state",
    required=True,
    type=OutputFile(),
    help="State file: the drive to format, read from FILE if it exists; the result is written back to FILE.",
)
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="SECTION.FIELD=VALUE",
    help="Change a profile field of the fresh drive (repeatable).",
)
@click.option("-l", "--lbaf", "lbaf", type=int, help="LBA format to switch to (default: keep the one in use).")
def format_(profile: str | None, state: Path, overrides: tuple[str, ...], lbaf: int | None) -> None:
    """Format NVM, as 'nvme format /dev/nvme0n1 [--lbaf N]': unmap everything, optionally
    switching the LBA format, and write the drive back to the --state FILE.

    FILE is the file you name: if it exists, the drive saved in it is formatted and FILE is
    replaced with the result; if not, a fresh drive from --profile is formatted and saved
    there. nvme-cli's 10-second warning is not emulated: nothing but FILE is at stake.
    """
    if state.exists():
        device = load_device(None, state, overrides)
        if profile is not None:
            named = Device(profile).profile_name
            if named != device.profile_name:
                raise click.UsageError(
                    f"{state} holds a '{device.profile_name}' drive, not '{named}'; "
                    "give --profile only to create FILE, or name another FILE"
                )
    elif profile is None:
        raise click.UsageError(f"{state} does not exist; give --profile to format a fresh drive into it")
    else:
        device = load_device(profile, None, overrides)
    identity = device.identity()
    formats = identity["lba_formats"]
    if lbaf is not None and not 0 <= lbaf < len(formats):
        listed = _describe(formats, identity["lba_format"])
        raise click.BadParameter(f"{lbaf}: this namespace has {listed}", param_hint="--lbaf")
    device.format(lbaf)
    device.save(state, overwrite=True)
    click.echo(f"Success formatting namespace:{NSID:x}")
    in_use = identity["lba_format"] if lbaf is None else lbaf
    click.echo(
        f"{state}: {device.profile_name} formatted to LBA format {in_use} ({formats[in_use]['data_bytes']} B), saved",
        err=True,
    )


def _describe(formats: list[dict[str, Any]], in_use: int) -> str:
    """The LBA formats in one phrase: ``LBA formats 0 (512 B, in use), 1 (4096 B)``.

    >>> _describe([{"data_bytes": 512, "metadata_bytes": 0}, {"data_bytes": 4096, "metadata_bytes": 8}], 0)
    'LBA formats 0 (512 B, in use), 1 (4096 B + 8 B metadata)'
    """
    parts = []
    for i, f in enumerate(formats):
        size = f"{f['data_bytes']} B" + (f" + {f['metadata_bytes']} B metadata" if f["metadata_bytes"] else "")
        parts.append(f"{i} ({size}{', in use' if i == in_use else ''})")
    return f"LBA format{'s' if len(parts) > 1 else ''} " + ", ".join(parts)


@command.group("fdp")
def fdp() -> None:
    """nvme-cli's fdp plugin: Flexible Data Placement's log pages and handle status.

    The drive needs an [fdp] section in its profile (e.g. generic-fdp-960g); it has one
    endurance group (1) and one reclaim group. Run fio with fdp=1 and --save-state, then
    read what placement did with --state.
    """


def _fdp_of(profile: str | None, state: Path | None, overrides: tuple[str, ...], endgrp: int | None) -> dict[str, Any]:
    """The drive's FDP data, or a one-line error: no endurance group given, another than
    the drive's one, or a drive without FDP."""
    if endgrp is None:
        raise click.UsageError("endurance group identifier required (-e 1)")
    if endgrp != 1:
        raise click.BadParameter(f"{endgrp}: the drive has one endurance group, 1", param_hint="'-e'")
    device = load_device(profile, state, overrides)
    fdp = device.fdp()
    if fdp is None:
        raise click.UsageError(
            f"{device.profile_name} has no Flexible Data Placement (its profile has no [fdp] section)"
        )
    return fdp


def _endgrp_option(f: F) -> F:
    return click.option(
        "-e", "--endgrp-id", "endgrp", type=CInteger(0, 0xFFFF), default=None, help="Endurance group (the drive has 1)."
    )(f)


@fdp.command("configs")
@named_device_argument
@profile_options
@_endgrp_option
@human_option
@output_format_option
def fdp_configs(
    device: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    endgrp: int | None,
    human: bool,
    output_format: str,
) -> None:
    """FDP Configurations log page, as 'nvme fdp configs /dev/nvme0 -e 1'."""
    data = _fdp_of(profile, state, overrides, endgrp)
    click.echo(
        dumps(fdp_configs_json(data)) + "\n" if output_format == "json" else fdp_configs_text(data, human), nl=False
    )


@fdp.command("usage")
@named_device_argument
@profile_options
@_endgrp_option
@output_format_option
def fdp_usage(
    device: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    endgrp: int | None,
    output_format: str,
) -> None:
    """Reclaim Unit Handle Usage log page, as 'nvme fdp usage /dev/nvme0 -e 1'."""
    data = _fdp_of(profile, state, overrides, endgrp)
    click.echo(dumps(fdp_usage_json(data)) + "\n" if output_format == "json" else fdp_usage_text(data), nl=False)


@fdp.command("stats")
@named_device_argument
@profile_options
@_endgrp_option
@output_format_option
def fdp_stats(
    device: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    endgrp: int | None,
    output_format: str,
) -> None:
    """FDP Statistics log page, as 'nvme fdp stats /dev/nvme0 -e 1': MBMW / HBMW is the
    drive's write amplification."""
    data = _fdp_of(profile, state, overrides, endgrp)
    click.echo(dumps(fdp_stats_json(data)) + "\n" if output_format == "json" else fdp_stats_text(data), nl=False)


@fdp.command("events")
@named_device_argument
@profile_options
@_endgrp_option
@click.option("-E", "--host-events", "host_events", is_flag=True, help="Host events (else the controller's).")
@output_format_option
def fdp_events(
    device: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    endgrp: int | None,
    host_events: bool,
    output_format: str,
) -> None:
    """FDP Events log page, as 'nvme fdp events /dev/nvme0 -e 1'. The twin logs host event
    03h (Invalid Placement Identifier) for a write naming an identifier it does not have;
    its clock is simulated, so the timestamp's wall-clock form prints as '-'. Events are
    not saved with a state."""
    data = _fdp_of(profile, state, overrides, endgrp)
    if output_format == "json":
        click.echo(dumps(fdp_events_json(data, host_events)))
    else:
        click.echo(fdp_events_text(data, host_events), nl=False)


@fdp.command("status")
@named_device_argument
@profile_options
@output_format_option
def fdp_status(
    device: str, profile: str | None, state: Path | None, overrides: tuple[str, ...], output_format: str
) -> None:
    """Reclaim Unit Handle Status, as 'nvme fdp status /dev/nvme0n1': fio's plids= count in
    this list's order."""
    data = _fdp_of(profile, state, overrides, 1)
    click.echo(dumps(fdp_status_json(data)) + "\n" if output_format == "json" else fdp_status_text(data), nl=False)


@command.group("zns")
def zns() -> None:
    """nvme-cli's zns plugin: report zones, the ZNS Identify Namespace, and zone management.

    The drive needs a [zns] section in its profile (e.g. generic-zns-966g). Commands that
    change zones (reset-zone, finish-zone, open-zone, close-zone, zone-append) work on the
    drive saved in --state FILE and write it back; fio's zonemode=zbd runs write its zones.
    """


def _zones_of(device: Device) -> dict[str, Any]:
    zones = device.zones()
    if zones is None:
        name = device.profile_name
        raise click.UsageError(f"{name} is not zoned (its profile has no [zns] section)")
    return zones


@zns.command("report-zones")
@named_device_argument
@profile_options
@click.option("-s", "--start-lba", "slba", type=CInteger(0, 2**64 - 1), default=0, help="First zone's LBA.")
@click.option("-d", "--descs", "descs", type=CInteger(0, 2**32 - 1), default=0, help="Zones to report (0: all).")
@click.option(
    "-S",
    "--zone-state",
    "zone_state",
    type=click.Choice(sorted(STATE_FILTER)),
    default=None,
    help="Only zones in this state (nvme-cli's -S; its long name --state is the state file here).",
)
@click.option("-V", "--verbose", "verbose", is_flag=True, help="States and types by name.")
@output_format_option
def report_zones(
    device: str,
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    slba: int,
    descs: int,
    zone_state: str | None,
    verbose: bool,
    output_format: str,
) -> None:
    """Report Zones, as 'nvme zns report-zones /dev/nvme0n1': each zone's start, write
    pointer, capacity and state."""
    zones = _zones_of(load_device(profile, state, overrides))
    first = slba // zones["size_lbas"]
    if first >= len(zones["zones"]):
        raise click.BadParameter(f"{slba}: beyond the namespace's last zone", param_hint="'-s'")
    count, only = descs or None, STATE_FILTER.get(zone_state or "")
    if output_format == "json":
        click.echo(dumps(report_zones_json(zones, first, count, only)))
    else:
        click.echo(report_zones_text(zones, first, count, only, verbose), nl=False)


@zns.command("id-ns")
@named_device_argument
@profile_options
@output_format_option
def zns_id_ns(
    device: str, profile: str | None, state: Path | None, overrides: tuple[str, ...], output_format: str
) -> None:
    """ZNS Identify Namespace, as 'nvme zns id-ns /dev/nvme0n1': the open and active limits
    (0-based) and the zone size."""
    zones = _zones_of(load_device(profile, state, overrides))
    click.echo(dumps(zns_id_ns_json(zones)) + "\n" if output_format == "json" else zns_id_ns_text(zones), nl=False)


def _zone_state_file(f: F) -> F:
    f = click.option(
        "--state",
        "state",
        required=True,
        type=OutputFile(),
        help="State file: the drive, read from FILE if it exists (else a fresh one from --profile), written back.",
    )(f)
    f = click.option(
        "--profile", help="Shipped profile name or TOML file, for a fresh drive when FILE does not exist."
    )(f)
    return f


def _stateful_device(profile: str | None, state: Path) -> Device:
    if state.exists():
        return load_device(None, state, ())
    if profile is None:
        raise click.UsageError(f"{state} does not exist; give --profile to start from a fresh drive")
    return load_device(profile, None, ())


def _zone_send_command(action: str) -> None:
    @zns.command(f"{action}-zone")
    @named_device_argument
    @_zone_state_file
    @click.option("-s", "--start-lba", "slba", type=CInteger(0, 2**64 - 1), default=0, help="The zone's first LBA.")
    @click.option("-a", "--select-all", "select_all", is_flag=True, help="Every zone the action applies to.")
    def send(device: str, profile: str | None, state: Path, slba: int, select_all: bool) -> None:
        dev = _stateful_device(profile, state)
        _zones_of(dev)
        dev.zone_send(action, slba, select_all)
        dev.save(state, overwrite=True)
        click.echo(send_success(action, slba, select_all, NSID))

    send.__doc__ = (
        f"Zone Management Send '{action}', as 'nvme zns {action}-zone /dev/nvme0n1 -s SLBA [-a]'; "
        "the drive in --state FILE is written back."
    )


for _action in ("reset", "finish", "open", "close"):
    _zone_send_command(_action)


@zns.command("zone-append")
@named_device_argument
@_zone_state_file
@click.option("-s", "--zslba", "zslba", type=CInteger(0, 2**64 - 1), default=0, help="The zone's first LBA.")
@click.option("-z", "--data-size", "size", type=CInteger(1, 2**32 - 1), required=True, help="Bytes to append.")
def zone_append(device: str, profile: str | None, state: Path, zslba: int, size: int) -> None:
    """Zone Append, as 'nvme zns zone-append /dev/nvme0n1 -s ZSLBA -z BYTES': the data goes
    to the zone's write pointer; prints where. The drive in --state FILE is written back."""
    dev = _stateful_device(profile, state)
    _zones_of(dev)
    identity = dev.identity()
    lba_bytes = identity["lba_formats"][identity["lba_format"]]["data_bytes"]
    if size % lba_bytes:
        raise click.BadParameter(f"{size}: a whole number of {lba_bytes}-byte LBAs", param_hint="'-z'")
    lba = dev.zone_append(zslba, size // lba_bytes)
    dev.save(state, overwrite=True)
    click.echo(f"Success appended data to LBA {lba:x}")
