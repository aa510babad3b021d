"""``ssdtwin probe``: measure a drive with fio and write the profile its internals imply.

TARGET is a block device, a file or an NBD URI (``nbd+unix:///?socket=PATH``,
``nbd://HOST:PORT/NAME``), measured with the installed fio; or ``--twin PROFILE``, the same
jobs run by ssdtwin's own fio on a simulated drive in virtual time. Writing to a device
needs ``--destructive`` and its ``--serial`` and is refused on anything in use or holding
data (:mod:`ssdtwin.probe.safety`); ``--read-only`` runs the measurements that only read, on
anything.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import click

from .. import report_page
from ..device import DEFAULT_HOST, RawToml
from ..errors import ProbeError
from ..files import place_text
from ..params import FiniteFloat
from ..probe import MEASUREMENTS, READ_ONLY, Settings, probe
from ..probe.facts import Facts, block_facts, file_facts, nvme_health, twin_facts
from ..probe.nbd import nbd_facts
from ..probe.report import document, figures, page, text, write_report
from ..probe.runner import FioRunner, FioTarget, Runner, TwinRunner
from ..probe.safety import Claim, DeviceTree, check_device, check_file, check_signatures
from .common import OutputFile, parse_overrides


def measurement_list(value: str | None, option: str) -> tuple[str, ...] | None:
    """Comma-separated measurement names, each one the prober knows.

    >>> measurement_list("floor, slc", "--only")
    ('floor', 'slc')
    """
    if value is None:
        return None
    names = tuple(v.strip() for v in value.split(",") if v.strip())
    bad = [n for n in names if n not in MEASUREMENTS]
    if bad or not names:
        raise click.BadParameter(f"'{value}': allowed {', '.join(MEASUREMENTS)} (comma-separated)", param_hint=option)
    return names


def _size(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    t = text.strip().lower().removesuffix("b").removesuffix("i")
    scale = units.get(t[-1:], 1)
    digits = t[:-1] if t[-1:] in units else t
    if not digits.isdigit() or int(digits) == 0:
        raise click.BadParameter(f"'{text}': a size such as 4g or 1073741824", param_hint="--size")
    return int(digits) * scale


def _direct_io(path: Path) -> bool:
    """Whether the file system under ``path`` takes O_DIRECT (tmpfs does not)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECT", 0))
    except OSError:
        return False
    os.close(fd)
    return True


@click.command("probe")
@click.argument("target", required=False)
@click.option("--twin", "twin", metavar="PROFILE", help="Probe a simulated drive (shipped name or TOML file).")
@click.option(
    "--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Change a field of --twin's profile."
)
@click.option(
    "--host", default="none", show_default=True, help="Host the --twin jobs run on ('none': the drive alone)."
)
@click.option(
    "--hmb", default="auto", show_default=True, help="HMB cap the --twin drive's Linux host grants: off, auto or MiB."
)
@click.option("--out", "out", type=OutputFile(), help="Write the inferred profile here (TOML).")
@click.option(
    "--report", "report", type=click.Path(file_okay=False, path_type=Path), help="Write tables, figures and jobs here."
)
@click.option("--json", "as_json", is_flag=True, help="Print the estimates and the profile's fields as JSON.")
@click.option(
    "--html",
    "html",
    type=OutputFile(),
    help="Write a self-contained report page: estimates, figures, tables and the inferred profile.",
)
@click.option("--force", is_flag=True, help="Replace --out, and write over an existing file TARGET.")
@click.option("--destructive", is_flag=True, help="Allow writing over the whole TARGET (a device or NBD export).")
@click.option("--serial", help="The device's serial (or WWN/EUI-64), required with --destructive on a device.")
@click.option("--read-only", "read_only", is_flag=True, help="Only the measurements that read (fio --readonly).")
@click.option("--size", "size", help="Create a file TARGET of this size (e.g. 8g).")
@click.option(
    "--time-scale",
    type=FiniteFloat(0.001, 1e6),
    default=1.0,
    show_default=True,
    help="An NBD TARGET served with ssdtwin serve --time-scale K: divide what fio measures by K.",
)
@click.option("--only", "only", help=f"Run only these measurements ({', '.join(MEASUREMENTS)}).")
@click.option("--skip", "skip", help="Leave these measurements out.")
@click.option("--point-seconds", type=FiniteFloat(min=0.001), help="Seconds per throughput point.")
@click.option("--qd1-ios", type=click.IntRange(min=10), help="I/Os per queue-depth-1 latency point.")
@click.option(
    "--purge-idle",
    type=FiniteFloat(min=0),
    default=10.0,
    show_default=True,
    help="Seconds a TARGET rests after the TRIM of every LBA that purges it.",
)
@click.option("--recovery-idle", "recovery_idle", help="Idle periods of the recovery test, seconds (e.g. 2,10,60).")
def command(
    target: str | None,
    twin: str | None,
    overrides: tuple[str, ...],
    host: str,
    hmb: str,
    out: Path | None,
    report: Path | None,
    as_json: bool,
    html: Path | None,
    force: bool,
    destructive: bool,
    serial: str | None,
    read_only: bool,
    size: str | None,
    time_scale: float,
    only: str | None,
    skip: str | None,
    point_seconds: float | None,
    qd1_ios: int | None,
    purge_idle: float,
    recovery_idle: str | None,
) -> None:
    """Measure TARGET with fio and infer the drive's internals; --out writes the profile.

    Every inferred value carries the measurement it came from and an uncertainty; fields
    no measurement reaches keep their documented defaults and say so in the profile.
    """
    if (target is None) == (twin is None):
        raise click.UsageError("give a TARGET (device, file or NBD URI) or --twin PROFILE, one of them")
    if out is not None and out.exists() and not force:
        raise click.UsageError(f"{out} exists; add --force to replace it (--out)")
    if html is not None and html.exists() and not force:
        raise click.UsageError(f"{html} exists; add --force to replace it (--html)")
    if report is not None and report.exists() and not report.is_dir():
        raise click.UsageError(f"--report {report}: not a directory")
    settings = Settings.for_twin() if twin is not None else Settings.for_device()
    names = measurement_list(only, "--only") or MEASUREMENTS
    dropped = measurement_list(skip, "--skip") or ()
    names = tuple(n for n in names if n not in dropped)
    if read_only:
        names = tuple(n for n in names if n in READ_ONLY)
    settings = settings.only(names)
    if point_seconds is not None:
        settings = replace(settings, point_s=point_seconds)
    if qd1_ios is not None:
        settings = replace(settings, qd1_ios=qd1_ios)
    if recovery_idle is not None:
        try:
            periods = tuple(float(v) for v in recovery_idle.split(",") if v.strip())
        except ValueError:
            raise click.BadParameter(
                f"'{recovery_idle}': seconds, comma-separated", param_hint="--recovery-idle"
            ) from None
        settings = replace(settings, recovery_idle_s=periods)

    claim: Claim | None = None
    runner: Runner
    if twin is not None:
        if time_scale != 1.0:
            raise click.UsageError(
                "--time-scale is for an NBD TARGET served by ssdtwin serve; --twin runs in virtual time"
            )
        raw = {k: RawToml(v) for k, v in parse_overrides(overrides).items()}
        twin_runner = TwinRunner(twin, raw, host=host, hmb_host=DEFAULT_HOST if host == "none" else host, hmb=hmb)
        runner, facts, label = twin_runner, twin_facts(twin_runner.device), f"--twin {twin}"
    else:
        assert target is not None
        if overrides:
            raise click.UsageError("--set changes a --twin profile; a real TARGET is what it is")
        runner, facts, claim = _real_target(target, destructive, serial, read_only, force, size, time_scale)
        if isinstance(runner, FioRunner):
            runner.purge_idle_s = purge_idle
        label = target
    try:
        say = None if as_json else (lambda step: click.echo(f"probe: {step}", err=True))
        result = probe(runner, facts, settings, target=label, advance=say)
        profile = result.profile_toml()
        if out is not None:
            place_text(out, profile)
        # Both outputs show the same figures: drawn once for the two.
        drawn = figures(result) if report is not None and html is not None else None
        try:
            if report is not None:
                write_report(result, runner, report, drawn)
            if html is not None:
                report_page.write(page(result, drawn), html)
        finally:
            if drawn:
                import matplotlib.pyplot as plt

                for _, figure in drawn:
                    plt.close(figure)
        if as_json:
            click.echo(json.dumps(document(result), indent=1))
        else:
            click.echo(text(result), nl=False)
            if out is not None:
                click.echo(f"wrote {out}")
    finally:
        if claim is not None:
            claim.release()
        close = getattr(runner, "close", None)
        if close is not None:
            close()


def _real_target(
    target: str,
    destructive: bool,
    serial: str | None,
    read_only: bool,
    force: bool,
    size: str | None,
    time_scale: float,
) -> tuple[Runner, Facts, Claim | None]:
    """The runner and facts of a real TARGET, after the checks writing it needs."""
    if target.startswith(("nbd:", "nbd+unix:")):
        if not read_only and not destructive:
            raise ProbeError(f"probing {target} writes over the whole export; add --destructive to allow that")
        facts = nbd_facts(target)
        return FioRunner(FioTarget(uri=target), time_scale=time_scale, read_only=read_only), facts, None
    if time_scale != 1.0:
        raise click.UsageError("--time-scale applies to an NBD TARGET served by ssdtwin serve")
    path = Path(target)
    tree = DeviceTree()
    if tree.is_block(Path(os.path.realpath(path))):
        if size is not None:
            raise click.UsageError("--size creates a file TARGET; a device has its own size")
        claim = None
        if not read_only:
            device = check_device(path, tree, destructive=destructive, serial=serial)
            claim = Claim(device.path)
            name = device.name
        else:
            name = Path(os.path.realpath(path)).name
        facts = block_facts(name)
        # The drive's temperature, where nvme-cli can read its SMART log: the write cliff
        # lets a drive that nears its throttling threshold cool (docs/probe.md).
        health = (lambda: nvme_health(str(path))) if name.startswith("nvme") and shutil.which("nvme") else None
        runner = FioRunner(FioTarget(filename=str(path)), read_only=read_only, health=health)
        if claim is not None:
            runner.before_first_write = lambda: check_signatures(Path(os.path.realpath(path)))
        return runner, facts, claim
    check_file(path, force=force, writes=not read_only)
    if not path.exists():
        if size is None:
            raise ProbeError(f"{path} does not exist; give --size to create it")
        with open(path, "wb") as f:
            f.truncate(_size(size))
    elif size is not None:
        raise click.UsageError(f"{path} exists; --size only creates a new file")
    facts = file_facts(path)
    runner = FioRunner(FioTarget(filename=str(path), direct=_direct_io(path)), read_only=read_only)
    return runner, facts, None
