"""``ssdtwin profiles``: list the shipped profiles, or show one resolved."""

from __future__ import annotations

import tomllib

import click

from ..device import profile_toml, profiles, resolved_toml
from .common import parse_overrides


@click.group("profiles", invoke_without_command=True)
@click.pass_context
def command(ctx: click.Context) -> None:
    """List shipped profiles (or 'profiles show NAME')."""
    if ctx.invoked_subcommand is not None:
        return
    rows = []
    for name in profiles():
        p = tomllib.loads(profile_toml(name))
        ident, nand = p["identity"], p["nand"]
        cap = ident.get("capacity_bytes")
        rows.append(
            (
                name,
                ident["model"],
                f"{cap / 1e9:,.0f} GB" if cap else "",
                f"{nand['cell'].upper()}, {nand['channels']} ch",
                p.get("map_cache", {}).get("location", "dram"),
            )
        )
    widths = [max(len(r[i]) for r in [*rows, ("name", "model", "capacity", "nand", "map")]) for i in range(5)]
    header = ("name", "model", "capacity", "nand", "map")
    for r in [header, *rows]:
        click.echo("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


@command.command("show")
@click.argument("name")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Apply overrides first.")
def show(name: str, overrides: tuple[str, ...]) -> None:
    """Print the resolved, validated TOML of a profile (shipped name or file)."""
    raw = parse_overrides(overrides)
    click.echo(resolved_toml(name, [f"{k}={v}" for k, v in raw.items()]), nl=False)
