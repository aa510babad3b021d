"""``ssdtwin smartctl``: smartmontools 7.3's report on a simulated NVMe drive (see
:mod:`ssdtwin.nvme.smartctl`)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from ..nvme import Sections, identify_controller, identify_namespace, smart_log, smartctl_json, smartctl_text
from ..nvme.smartctl import exit_status
from .common import DEVICE_NAMES, check_device_name, load_device, profile_options


@click.command(
    "smartctl",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]},
)
@profile_options
@click.option("-i", "--info", "info", is_flag=True, help="Identity: model, serial, capacities, namespace.")
@click.option("-c", "--capabilities", "capabilities", is_flag=True, help="Capabilities, power states, LBA sizes.")
@click.option("-H", "--health", "health", is_flag=True, help="The health verdict (Critical Warning).")
@click.option("-A", "--attributes", "attributes", is_flag=True, help="The SMART/Health Information log.")
@click.option(
    "-l", "--log", "logs", multiple=True, metavar="error", help="A log to print: 'error' (the Error Information log)."
)
@click.option("-x", "--xall", "xall", is_flag=True, help="Print all SMART and non-SMART information.")
@click.option("-a", "--all", "all_", is_flag=True, help="The same, for NVMe: smartctl 7.3 prints the same sections.")
@click.option("-j", "--json", "as_json", is_flag=True, help="smartctl's JSON instead of text.")
@click.argument("other", nargs=-1, type=click.UNPROCESSED)
def command(
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    info: bool,
    capabilities: bool,
    health: bool,
    attributes: bool,
    logs: tuple[str, ...],
    xall: bool,
    all_: bool,
    as_json: bool,
    other: tuple[str, ...],
) -> None:
    """smartctl on a simulated NVMe drive, as smartmontools 7.3 prints it: -i, -c, -H, -A,
    -l error, or all of them with -x (or -a); -j for its JSON.

    Identity, capacities, LBA formats, power states and the whole SMART/Health log (wear,
    spare, temperature and its times, commands, data units, busy time, power-on hours and
    power cycles) come from the drive; the identify fields it does not model are documented
    constants (ssdtwin.nvme.constants). The device
    name may be given as smartctl takes it (/dev/nvme0 or /dev/nvme0n1: the simulated
    drive, which comes from --profile, default generic-tlc-1tb, or --state). The exit
    status is smartctl's: bit 3 when -H finds a critical warning.
    """
    names = [check_device_name(a) for a in other if a.startswith("/dev/")]
    unknown = [a for a in other if a not in DEVICE_NAMES]
    if unknown:
        raise click.UsageError(
            f"'{unknown[0]}' is not emulated: ssdtwin smartctl takes -i, -c, -H, -A, -l error, -a, -x and -j, "
            "and the drive comes from --profile or --state"
        )
    for name in logs:
        if name != "error":
            raise click.BadParameter(f"'{name}': the log emulated is 'error'", param_hint="-l/--log")
    every = xall or all_
    sections = Sections(
        info=info or every,
        capabilities=capabilities or every,
        health=health or every,
        attributes=attributes or every,
        error_log=bool(logs) or every,
    )
    device = load_device(profile, state, overrides)
    identity = device.identity()
    ctrl, ns, log = identify_controller(identity), identify_namespace(identity), smart_log(device.health())
    now = time.time()
    local_time = time.strftime("%a %b %e %H:%M:%S %Y %Z", time.localtime(now))
    if as_json:
        # smartctl's argv as the options it was given, in its own order (click keeps no raw argv).
        given = (("-i", info), ("-c", capabilities), ("-H", health), ("-A", attributes), ("-a", all_), ("-x", xall))
        argv = ["-j", *(flag for flag, on in given if on), *(f"-l{name}" for name in logs), *names]
        report = smartctl_json(
            ctrl,
            ns,
            log,
            sections,
            argv=argv,
            device_name=names[0] if names else DEVICE_NAMES[0],
            time_t=int(now),
            local_time=local_time,
        )
        click.echo(json.dumps(report, indent=2))
    else:
        click.echo(smartctl_text(ctrl, ns, log, sections, local_time=local_time), nl=False)
    status = exit_status(log, sections)
    if status:
        raise click.exceptions.Exit(status)
