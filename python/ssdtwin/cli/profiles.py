"""``ssdtwin profiles``: list the shipped drive and host profiles, or show one resolved."""

from __future__ import annotations

import json
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


def drive_record(name: str) -> dict[str, object]:
    """One shipped drive profile as the listing shows it: what it is and where its facts
    came from (a datasheet sheet of the library, or a profile built by hand from sources)."""
    p = tomllib.loads(profile_toml(name))
    ident, nand, link = p["identity"], p["nand"], p["link"]
    interface = (
        f"sata{link.get('sata_gen', 3)}"
        if link.get("transport") == "sata"
        else f"pcie{link['pcie_gen']}x{link['pcie_lanes']}"
    )
    sheet = library_sheet(name)
    return {
        "name": name,
        "kind": "library" if sheet is not None else "hand-built",
        "model": ident["model"],
        "capacity_bytes": ident.get("capacity_bytes"),
        "cell": nand["cell"],
        "interface": interface,
        "channels": nand["channels"],
        "map": p.get("map_cache", {}).get("location", "dram"),
        "facts": "datasheet sheet, not calibrated" if sheet is not None else "sources in the profile",
    }


def library_sheet(name: str) -> str | None:
    """The package path of the sheet a library profile was built from, if it is one."""
    from ..datasheet.library import sheet_path

    path = sheet_path(name)
    return None if path is None else f"ssdtwin/datasheet/sheets/{path.name}"


@click.group("profiles", invoke_without_command=True)
@click.option(
    "--cell", "cells", multiple=True, type=click.Choice(["slc", "mlc", "tlc", "qlc"]), help="Only these cells."
)
@click.option(
    "--interface",
    "interfaces",
    multiple=True,
    type=click.Choice(["sata3", "pcie3x2", "pcie3x4", "pcie4x4", "pcie5x4"]),
    help="Only drives on these links.",
)
@click.option("--map", "maps", multiple=True, type=click.Choice(["dram", "hmb", "sram"]), help="Where the map lives.")
@click.option("--min-capacity-gb", type=click.FloatRange(min=0), help="At least this capacity (10^9 B).")
@click.option("--max-capacity-gb", type=click.FloatRange(min=0), help="At most this capacity (10^9 B).")
@click.option("--json", "as_json", is_flag=True, help="Print the drives as JSON records.")
@click.pass_context
def command(
    ctx: click.Context,
    cells: tuple[str, ...],
    interfaces: tuple[str, ...],
    maps: tuple[str, ...],
    min_capacity_gb: float | None,
    max_capacity_gb: float | None,
    as_json: bool,
) -> None:
    """List shipped drive, host and disk profiles and pools (or 'profiles show NAME'); with
    a filter or --json, the drives alone."""
    if ctx.invoked_subcommand is not None:
        return
    records = [drive_record(name) for name in profiles()]

    def keep(r: dict[str, object]) -> bool:
        gb = float(r["capacity_bytes"] or 0) / 1e9  # type: ignore[arg-type]
        return (
            (not cells or r["cell"] in cells)
            and (not interfaces or r["interface"] in interfaces)
            and (not maps or r["map"] in maps)
            and (min_capacity_gb is None or gb >= min_capacity_gb)
            and (max_capacity_gb is None or gb <= max_capacity_gb)
        )

    records = [r for r in records if keep(r)]
    if as_json:
        click.echo(json.dumps(records, indent=1))
        return
    rows = [
        (
            str(r["name"]),
            str(r["model"]),
            f"{float(r['capacity_bytes']) / 1e9:,.0f} GB" if r["capacity_bytes"] else "",  # type: ignore[arg-type]
            str(r["interface"]),
            f"{str(r['cell']).upper()}, {r['channels']} ch",
            str(r["map"]),
            str(r["facts"]),
        )
        for r in records
    ]
    _table(("name", "model", "capacity", "link", "nand", "map", "facts"), rows)
    if cells or interfaces or maps or min_capacity_gb is not None or max_capacity_gb is not None:
        return
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
        sheet = library_sheet(name)
        if sheet is not None:
            from ..datasheet.library import sheet_text

            click.echo(f"#\n# built by 'ssdtwin profile new' from its sheet, {sheet}:")
            click.echo("\n".join(f"#   {line}".rstrip() for line in sheet_text(name).splitlines()))


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
