"""``ssdtwin profiles``: list the shipped drive and host profiles, or show one resolved."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path

import click

from .. import _ssdtwin
from ..device import host_toml, hosts, profile_toml, profiles, resolved_toml
from ..zfs import disk_toml, disks, pool_toml, pools
from .common import parse_overrides


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(r[i]) for r in [*rows, header]) for i in range(len(header))]
    for r in [header, *rows]:
        click.echo("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())


@click.group("profiles", invoke_without_command=True)
@click.pass_context
def command(ctx: click.Context) -> None:
    """List shipped drive, host and disk profiles and pools (or 'profiles show NAME')."""
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
    click.echo()
    disk_rows = []
    for name in disks():
        d = tomllib.loads(disk_toml(name))
        mech = d["mechanics"]
        disk_rows.append(
            (
                name,
                d["identity"]["model"],
                f"{d['identity']['capacity_bytes'] / 1e12:,.1f} TB",
                f"{mech['rpm']} rpm, {mech['outer_sustained_mbps']:g}-{mech['inner_sustained_mbps']:g} MB/s, "
                f"seek {mech['seek_average_ms']:g} ms",
            )
        )
    _table(("disk", "model", "capacity", "mechanics"), disk_rows)
    click.echo()
    pool_rows = []
    for name in pools():
        t = tomllib.loads(pool_toml(name))
        layout = " + ".join(
            f"{v['class']} {v['layout']} of {len(v['drives'])}x {v['drives'][0]}" for v in t.get("vdevs", [])
        )
        pool_rows.append((name, t["pool"]["name"], layout))
    _table(("pool", "name", "vdevs"), pool_rows)


@command.command("show")
@click.argument("name")
@click.option("--set", "overrides", multiple=True, metavar="SECTION.FIELD=VALUE", help="Apply overrides first.")
def show(name: str, overrides: tuple[str, ...]) -> None:
    """Print the resolved, validated TOML of a drive, host or disk profile or of a pool file;
    for a drive, the values it implies follow as TOML comments (capacities, superblocks, SLC
    cache, map size, bandwidths)."""
    raw = [f"{k}={v}" for k, v in parse_overrides(overrides).items()]
    kind = _kind(name)
    if kind == "disk":
        click.echo(_ssdtwin.hdd_toml(name, raw), nl=False)
        return
    if kind == "pool":
        click.echo(_ssdtwin.pool_toml(name, raw), nl=False)
        return
    if _is_host(name):
        click.echo(_ssdtwin.host_toml(name, raw), nl=False)
    else:
        click.echo(resolved_toml(name, raw), nl=False)
        click.echo()
        click.echo("\n".join(f"# {line}" for line in derived_lines(dict(_ssdtwin.derived(name, raw)))))


def derived_lines(d: dict[str, float]) -> list[str]:
    """The derived values of a drive profile (:func:`ssdtwin.profile_derived`) as text lines.

    >>> derived_lines(dict(_ssdtwin.derived("p32a80", [])))[3]
    'map: 238.5 MiB in 61,050 segments of 4.0 KiB; the controller holds 256.0 KiB (0.1 %), asks for 240.0 MiB of HMB'
    """

    def mib(b: float) -> str:
        return (
            f"{b / 2**30:,.1f} GiB"
            if b >= 2**30
            else f"{b / 2**20:,.1f} MiB"
            if b >= 2**20
            else f"{b / 2**10:,.1f} KiB"
        )

    def mbps(b: float) -> str:
        return f"{b / 1e6:,.0f} MB/s"

    lba_bytes = d["namespace_bytes"] // d["namespace_lbas"]
    hmb = f", asks for {mib(d['map_hmb_requested_bytes'])} of HMB" if d["map_hmb_requested_bytes"] else ""
    slc = (
        f"; SLC cache up to {d['slc_static_superblocks']:,} static + {d['slc_dynamic_max_superblocks']:,} dynamic "
        f"superblocks = {mib(d['slc_cache_max_bytes'])}"
        if d["slc_cache_max_bytes"]
        else "; no SLC cache"
    )
    slc_program = (
        f", SLC program {mbps(d['die_slc_program_bytes_per_sec'])}" if d["die_slc_program_bytes_per_sec"] else ""
    )
    array_slc = (
        f", SLC program {mbps(d['nand_slc_program_bytes_per_sec'])}" if d["nand_slc_program_bytes_per_sec"] else ""
    )
    return [
        "derived (not settable; ssdtwin.profile_derived gives them as numbers):",
        f"namespace: {d['namespace_bytes']:,} B = {d['namespace_lbas']:,} LBAs of {lba_bytes} B; "
        f"raw {d['raw_bytes']:,} B ({d['spare_pct']:.1f} % spare)",
        f"superblocks: {d['superblocks']:,} of {mib(d['superblock_bytes'])} (SLC mode {mib(d['slc_superblock_bytes'])})"
        f" over {d['dies']} dies{slc}",
        f"map: {mib(d['map_bytes'])} in {d['map_segments']:,} segments of "
        f"{mib(d['map_bytes'] / max(d['map_segments'], 1))}; the controller holds {mib(d['map_controller_bytes'])} "
        f"({d['map_controller_bytes'] / d['map_bytes'] * 100:.1f} %){hmb}",
        f"per die: read {mbps(d['die_read_bytes_per_sec'])} (a page per tR), "
        f"program {mbps(d['die_program_bytes_per_sec'])} (all planes per tPROG){slc_program}; "
        f"per channel {mbps(d['channel_bytes_per_sec'])}",
        f"array ceilings: read {mbps(d['nand_read_bytes_per_sec'])}, program {mbps(d['nand_program_bytes_per_sec'])}"
        f"{array_slc}; host link {mbps(d['link_bytes_per_sec'])}",
    ]


def _kind(name: str) -> str:
    """``disk`` for a disk profile (shipped, or a file with ``[mechanics]``), ``pool`` for a
    pool file (``[pool]`` and ``[[vdevs]]``), else ``other``."""
    if name in disks():
        return "disk"
    if name in pools():
        return "pool"
    path = Path(name)
    if not path.is_file():
        return "other"
    try:
        table = tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "other"
    if "mechanics" in table:
        return "disk"
    return "pool" if "pool" in table and "vdevs" in table else "other"


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
