"""``ssdtwin nvme``: nvme-cli 2.3's ``id-ctrl``, ``id-ns``, ``list`` and ``format`` on a
simulated drive, printed as nvme-cli prints them (see :mod:`ssdtwin.nvme`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..device import Device
from ..nvme import (
    dumps,
    id_ctrl_json,
    id_ctrl_text,
    id_ns_json,
    id_ns_text,
    identify_controller,
    identify_namespace,
    list_json,
    list_text,
)
from ..nvme.constants import NSID
from .common import device_argument, host_options, load_device, profile_options

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
    """nvme-cli 2.3's id-ctrl, id-ns, list and format on a simulated drive.

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


@command.command("format")
@device_argument
@click.option("--profile", help="Shipped profile name or TOML file, for a fresh drive when FILE does not exist.")
@click.option(
    "--state",
    "state",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
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
