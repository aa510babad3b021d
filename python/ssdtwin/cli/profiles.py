"""``ssdtwin profiles``: list the shipped drive and host profiles, or show one resolved."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path

import click

from ..device import host_toml, hosts, profile_toml, profiles, resolved_toml
from .common import parse_overrides


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [*rows, header]) for i in range(len(header))]
    for r in [header, *rows]:
        click.echo("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


@click.group("profiles", invoke_without_command=True)
@click.pass_context
def command(ctx: click.Context) -> None:
    """List shipped drive and host profiles (or 'profiles show NAME')."""
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
    _table(("name", "model", "capacity", "nand", "map"), rows)
    click.echo()
    host_rows = []
    for name in hosts():
        h = tomllib.loads(host_toml(name))
        cpu = h["cpu"]
        cores = "" if h["host"]["os"] == "none" else f"{cpu['cores']} x {cpu['speed_factor']:g}"
        host_rows.append((name, h["host"]["os"], cores, ", ".join(sorted(h.get("engines", {})))))
    _table(("host", "os", "cores x speed", "engines"), host_rows)


@command.command("show")
@click.argument("name")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Apply overrides first.")
def show(name: str, overrides: tuple[str, ...]) -> None:
    """Print the resolved, validated TOML of a drive or host profile (shipped name or file)."""
    raw = [f"{k}={v}" for k, v in parse_overrides(overrides).items()]
    if _is_host(name):
        from .. import _ssdtwin

        click.echo(_ssdtwin.host_toml(name, raw), nl=False)
    else:
        click.echo(resolved_toml(name, raw), nl=False)


def _is_host(name: str) -> bool:
    """A shipped host name, or a TOML file with a host profile's ``[cpu]`` section."""
    if name in hosts():
        return True
    path = Path(name)
    if not path.is_file():
        return False
    try:
        return "cpu" in tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
