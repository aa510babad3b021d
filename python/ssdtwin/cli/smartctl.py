"""``ssdtwin smartctl -x``: smartmontools 7.3's report on a simulated NVMe drive (see
:mod:`ssdtwin.nvme.smartctl`)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ..nvme import identify_controller, identify_namespace, smart_log, smartctl_x
from .common import DEVICE_NAMES, check_device_name, load_device, profile_options


@click.command(
    "smartctl",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]},
)
@profile_options
@click.option("-x", "--xall", "xall", is_flag=True, help="Print all SMART and non-SMART information.")
@click.option("-a", "--all", "all_", is_flag=True, help="The same, for NVMe: smartctl 7.3 prints the same sections.")
@click.argument("other", nargs=-1, type=click.UNPROCESSED)
def command(
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    xall: bool,
    all_: bool,
    other: tuple[str, ...],
) -> None:
    """smartctl -x (or -a) on a simulated NVMe drive, as smartmontools 7.3 prints it.

    Identity, capacities, LBA formats and the SMART/Health counters that move (data units
    and commands read and written, power-on hours of simulated time) come from the drive;
    the other health values are documented constants (ssdtwin.nvme.constants). The device
    name may be given as smartctl takes it (/dev/nvme0 or /dev/nvme0n1: the simulated
    drive, which comes from --profile, default generic-tlc-1tb, or --state); other smartctl
    options are refused.
    """
    for name in other:
        if name.startswith("/dev/"):
            check_device_name(name)
    other = tuple(a for a in other if a not in DEVICE_NAMES)
    if other:
        raise click.UsageError(
            f"'{other[0]}' is not emulated: ssdtwin smartctl takes -x or -a, "
            "and the drive comes from --profile or --state"
        )
    if not (xall or all_):
        raise click.UsageError("give -x (or -a): ssdtwin emulates smartctl's full report only")
    device = load_device(profile, state, overrides)
    identity = device.identity()
    local_time = time.strftime("%a %b %e %H:%M:%S %Y %Z")
    text = smartctl_x(
        identify_controller(identity), identify_namespace(identity), smart_log(device.counters()), local_time=local_time
    )
    click.echo(text, nl=False)
