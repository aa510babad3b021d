"""``ssdtwin trace convert``: block traces from other formats to a fio iolog v3."""

from __future__ import annotations

from pathlib import Path

import click

from ..device import DEFAULT_PROFILE, RawToml, profile_derived
from ..params import FiniteFloat
from ..traces import FORMATS, convert_trace
from .common import OutputFile, parse_overrides


@click.group("trace")
def command() -> None:
    """Work with block traces (replay them with fio's read_iolog=)."""


@command.command("convert")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True, help="The trace's format.")
@click.option("--out", type=OutputFile(), required=True, help="The fio iolog v3 to write.")
@click.option(
    "--profile",
    default=None,
    help=f"The drive the trace will replay on (its namespace size), default {DEFAULT_PROFILE}.",
)
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Change a profile field.")
@click.option("--disk", "--volume", "stream", help="Keep one disk, device or volume of a multi-volume trace.")
@click.option(
    "--time-scale",
    type=FiniteFloat(min=0.000001),
    default=1.0,
    show_default=True,
    help="Replay this many times faster (times are divided by it).",
)
@click.option("--event", type=click.Choice(["Q", "D"]), default="Q", show_default=True, help="blkparse events to keep.")
@click.option("--force", is_flag=True, help="Replace the output file if it exists.")
def convert(
    source: Path,
    fmt: str,
    out: Path,
    profile: str | None,
    overrides: tuple[str, ...],
    stream: str | None,
    time_scale: float,
    event: str,
    force: bool,
) -> None:
    """Convert SOURCE (MSR Cambridge, blkparse text, UMass/SPC, Alibaba 2020 or Tencent CBS;
    .gz read as is) to a fio iolog v3 for read_iolog=. Offsets are aligned to 512 bytes and
    wrapped onto the drive's namespace."""
    raw = {k: RawToml(v) for k, v in parse_overrides(overrides).items()}
    namespace = int(profile_derived(profile or DEFAULT_PROFILE, raw)["namespace_bytes"])
    done = convert_trace(
        source,
        fmt,
        out,
        namespace_bytes=namespace,
        stream=stream,
        time_scale=time_scale,
        event=event,
        overwrite=force,
    )
    click.echo(
        f"{out}: {done.written} I/Os over {done.duration_us / 1e6:.3f} s "
        f"({done.records} records read, {done.skipped} left out, {done.wrapped} wrapped onto the namespace)"
    )
