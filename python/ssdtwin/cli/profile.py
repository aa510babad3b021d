"""``ssdtwin profile new``: a drive profile from a datasheet sheet."""

from __future__ import annotations

import tempfile
import tomllib
from pathlib import Path

import click

from .. import _ssdtwin
from ..datasheet import load_sheet
from ..datasheet.build import profile_text, write_rates_mbps
from ..files import place_text


@click.group("profile")
def command() -> None:
    """Make drive profiles ('profile new --datasheet SHEET.toml --out PROFILE.toml')."""


@command.command("new")
@click.option(
    "--datasheet",
    "sheet_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The drive's sheet (docs/profiles.md, 'Profiles from datasheets').",
)
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The profile to write.")
@click.option("--force", is_flag=True, help="Replace --out if it exists.")
@click.option(
    "--no-calibration",
    is_flag=True,
    help="Leave out the sheet's [[calibrate]] fields: the sheet's facts and priors only.",
)
def new(sheet_path: Path, out: Path, force: bool, no_calibration: bool) -> None:
    """Build a drive profile from a datasheet sheet: every field from the sheet, derived from
    it, or a cited prior for that class of drive, each with a comment that says which. The
    profile is checked with the model's own loader, and what its parts can do is printed
    beside the sheet's ratings."""
    if out.exists() and not force:
        raise click.UsageError(f"{out} exists; add --force to replace it (--out)")
    sheet = load_sheet(sheet_path)
    text = profile_text(sheet, str(sheet_path), str(sheet_path), calibrate=not no_calibration)
    place_text(out, text, replace=force)
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "built.toml"
        built.write_text(text)
        d = dict(_ssdtwin.derived(str(built), []))
    mbps = {k: v / 1e6 for k, v in d.items() if k.endswith("_bytes_per_sec")}
    click.echo(f"wrote {out}: {sheet.name}, {d['namespace_bytes'] / 1e9:,.0f} GB on {d['dies']} dies")
    click.echo(
        f"  reads: array {mbps['nand_read_bytes_per_sec']:,.0f} MB/s, link {mbps['link_bytes_per_sec']:,.0f} MB/s"
        f" (rated {sheet.seq_read_mbps:,.0f})"
    )
    rates = write_rates_mbps(tomllib.loads(text))
    writes = f"  writes: native {rates[sheet.cell]:,.0f} MB/s"
    if d.get("slc_cache_max_bytes", 0):
        writes += f", SLC {rates['slc']:,.0f} MB/s into a cache of up to {d['slc_cache_max_bytes'] / 1e9:,.0f} GB"
    click.echo(writes + f" (rated {sheet.seq_write_mbps:,.0f})")
