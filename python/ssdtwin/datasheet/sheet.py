"""A datasheet sheet: the facts a user can find about a drive (its datasheet, a review), in
the TOML layout of docs/profiles.md, "Profiles from datasheets", checked field by field.

Unknown keys, missing required ones, values of the wrong type or out of range, and
combinations no drive has (an HMB on SATA, rated rates above the interface) are a
:class:`~ssdtwin.errors.ProfileError` whose one line names the file and the key.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ProfileError

INTERFACES = ("sata3", "pcie3x2", "pcie3x4", "pcie4x4", "pcie5x4")
CELLS = ("slc", "mlc", "tlc", "qlc")
CLASSES = ("consumer", "enterprise")

#: Public measurements a sheet may record, by study: the metrics each study reports.
MEASURED_METRICS = {
    "slc-fill": ("in_cache_mb_per_s", "cache_gb", "post_cache_mb_per_s", "whole_fill_avg_mb_per_s"),
    "whole-fill": ("avg_mb_per_s", "cache_gb", "post_cache_mb_per_s"),
    "dirty-recovery": ("dirty_write_mb_per_s", "after_idle_write_mb_per_s", "after_erase_write_mb_per_s"),
}


@dataclass(frozen=True)
class Measured:
    """A public measurement of the drive: what a study of the twin reports beside it."""

    study: str
    metric: str
    value: float
    source: str
    note: str = ""


@dataclass(frozen=True)
class Calibration:
    """A profile field set from public measurements rather than derived: applied after the
    derivations unless the build is asked for without calibration."""

    field: str
    value: float | int | str | bool
    reason: str


@dataclass(frozen=True)
class Sheet:
    """The drive's facts; optional ones are ``None`` where the sheet is silent."""

    name: str
    capacity_gb: float
    interface: str
    cell: str
    dram_mib: int
    seq_read_mbps: float
    seq_write_mbps: float
    rand_read_iops: float
    rand_write_iops: float
    drive_class: str = "consumer"
    nand: str | None = None
    nand_layers: int | None = None
    nand_die_gbit: int | None = None
    nand_dies: int | None = None
    channels: int | None = None
    controller: str | None = None
    hmb_mib: int | None = None
    slc_cache_gb: float | None = None
    post_cache_write_mbps: float | None = None
    tbw: float | None = None
    sources: tuple[str, ...] = ()
    measured: tuple[Measured, ...] = field(default=())
    calibrations: tuple[Calibration, ...] = field(default=())

    @property
    def bits_per_cell(self) -> int:
        return CELLS.index(self.cell) + 1


#: Each ``[drive]`` key: (required, kind, low, high). Kinds: str, int, float, list.
_KEYS: dict[str, tuple[bool, str, float, float]] = {
    "name": (True, "str", 1, 80),
    "capacity_gb": (True, "float", 1, 200_000),
    "interface": (True, "str", 0, 0),
    "cell": (True, "str", 0, 0),
    "class": (False, "str", 0, 0),
    "nand": (False, "str", 1, 200),
    "nand_layers": (False, "int", 1, 1000),
    "nand_die_gbit": (False, "int", 16, 4096),
    "nand_dies": (False, "int", 1, 4096),
    "channels": (False, "int", 1, 64),
    "controller": (False, "str", 1, 200),
    "dram_mib": (True, "int", 0, 1 << 20),
    "hmb_mib": (False, "int", 0, 4096),
    "seq_read_mbps": (True, "float", 1, 100_000),
    "seq_write_mbps": (True, "float", 1, 100_000),
    "rand_read_iops": (True, "float", 100, 100_000_000),
    "rand_write_iops": (True, "float", 100, 100_000_000),
    "slc_cache_gb": (False, "float", 0, 200_000),
    "post_cache_write_mbps": (False, "float", 1, 100_000),
    "tbw": (False, "float", 1, 1e9),
    "sources": (False, "list", 0, 0),
}
_ENUMS = {"interface": INTERFACES, "cell": CELLS, "class": CLASSES}
_MEASURED_KEYS = {"study", "metric", "value", "source", "note"}


def load_sheet(path: str | Path) -> Sheet:
    """The sheet at ``path``, checked (see the module doc)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ProfileError(f"{p}: not a UTF-8 text file") from None
    return parse_sheet(text, str(p))


def parse_sheet(text: str, where: str = "sheet") -> Sheet:
    """The sheet in ``text`` (``where`` names it in errors).

    >>> s = parse_sheet('''[drive]
    ... name = "X 1TB"
    ... capacity_gb = 1000
    ... interface = "pcie3x4"
    ... cell = "tlc"
    ... dram_mib = 1024
    ... seq_read_mbps = 3500
    ... seq_write_mbps = 3000
    ... rand_read_iops = 500000
    ... rand_write_iops = 450000''')
    >>> s.name, s.bits_per_cell, s.drive_class
    ('X 1TB', 3, 'consumer')
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{where}: not valid TOML: {e}") from None
    unknown = sorted(set(doc) - {"drive", "measured", "calibrate"})
    if unknown:
        raise ProfileError(f"{where}: unknown table '{unknown[0]}' (allowed: [drive], [[measured]], [[calibrate]])")
    drive = doc.get("drive")
    if not isinstance(drive, dict):
        raise ProfileError(f"{where}: missing table [drive]")
    values = {key: _value(where, key, drive) for key in _KEYS}
    unknown = sorted(set(drive) - set(_KEYS))
    if unknown:
        raise ProfileError(f"{where}: unknown key drive.{unknown[0]} (allowed: {', '.join(_KEYS)})")
    measured = tuple(
        _measured(where, i, m) for i, m in enumerate(_list_of_tables(where, "measured", doc.get("measured", [])))
    )
    calibrations = tuple(
        _calibration(where, i, c) for i, c in enumerate(_list_of_tables(where, "calibrate", doc.get("calibrate", [])))
    )
    sheet = Sheet(
        name=values["name"],
        capacity_gb=values["capacity_gb"],
        interface=values["interface"],
        cell=values["cell"],
        dram_mib=values["dram_mib"],
        seq_read_mbps=values["seq_read_mbps"],
        seq_write_mbps=values["seq_write_mbps"],
        rand_read_iops=values["rand_read_iops"],
        rand_write_iops=values["rand_write_iops"],
        drive_class=values["class"] or "consumer",
        nand=values["nand"],
        nand_layers=values["nand_layers"],
        nand_die_gbit=values["nand_die_gbit"],
        nand_dies=values["nand_dies"],
        channels=values["channels"],
        controller=values["controller"],
        hmb_mib=values["hmb_mib"],
        slc_cache_gb=values["slc_cache_gb"],
        post_cache_write_mbps=values["post_cache_write_mbps"],
        tbw=values["tbw"],
        sources=tuple(values["sources"] or ()),
        measured=measured,
        calibrations=calibrations,
    )
    _check_combinations(where, sheet)
    return sheet


def _value(where: str, key: str, drive: dict[str, Any]) -> Any:
    required, kind, low, high = _KEYS[key]
    if key not in drive:
        if required:
            raise ProfileError(f"{where}: missing required key drive.{key}")
        return None
    v = drive[key]
    if kind == "str":
        if not isinstance(v, str):
            raise ProfileError(f"{where}: drive.{key} = {v!r}: expected a string")
        if key in _ENUMS:
            if v not in _ENUMS[key]:
                raise ProfileError(f"{where}: drive.{key} = {v!r}: allowed {' | '.join(_ENUMS[key])}")
        elif not low <= len(v) <= high:
            raise ProfileError(f"{where}: drive.{key}: {len(v)} characters, allowed {low:g} to {high:g}")
        return v
    if kind == "list":
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise ProfileError(f"{where}: drive.{key}: expected a list of strings")
        return v
    if isinstance(v, bool) or not isinstance(v, int | float) or (kind == "int" and not isinstance(v, int)):
        raise ProfileError(f"{where}: drive.{key} = {v!r}: expected {'an integer' if kind == 'int' else 'a number'}")
    if not (math.isfinite(v) and low <= v <= high):
        raise ProfileError(f"{where}: drive.{key} = {v!r}: allowed {low:g} to {high:g}")
    return v if kind == "int" else float(v)


def _list_of_tables(where: str, name: str, v: object) -> list[dict[str, Any]]:
    if not isinstance(v, list) or not all(isinstance(m, dict) for m in v):
        raise ProfileError(f"{where}: {name}: expected [[{name}]] tables")
    return v


_FIELD = re.compile(r"[a-z_]+(\.[a-z_]+){1,2}")


def _calibration(where: str, i: int, c: dict[str, Any]) -> Calibration:
    at = f"{where}: calibrate[{i}]"
    unknown = sorted(set(c) - {"field", "value", "reason"})
    if unknown:
        raise ProfileError(f"{at}: unknown key {unknown[0]} (allowed: field, value, reason)")
    for key in ("field", "value", "reason"):
        if key not in c:
            raise ProfileError(f"{at}: missing required key {key}")
    field_, value, reason = c["field"], c["value"], c["reason"]
    if not isinstance(field_, str) or not _FIELD.fullmatch(field_):
        raise ProfileError(f"{at}.field = {field_!r}: expected a profile field such as 'nand.tlc.t_prog_us'")
    if not isinstance(value, bool | int | float | str) or (isinstance(value, float) and not math.isfinite(value)):
        raise ProfileError(f"{at}.value = {value!r}: expected a number, string or boolean")
    if not isinstance(reason, str) or not reason.strip():
        raise ProfileError(f"{at}.reason: expected the measurement that sets it")
    return Calibration(field_, value, reason)


def _measured(where: str, i: int, m: dict[str, Any]) -> Measured:
    at = f"{where}: measured[{i}]"
    unknown = sorted(set(m) - _MEASURED_KEYS)
    if unknown:
        raise ProfileError(f"{at}: unknown key {unknown[0]} (allowed: {', '.join(sorted(_MEASURED_KEYS))})")
    for key in ("study", "metric", "value", "source"):
        if key not in m:
            raise ProfileError(f"{at}: missing required key {key}")
    study, metric, value = m["study"], m["metric"], m["value"]
    if study not in MEASURED_METRICS:
        raise ProfileError(f"{at}.study = {study!r}: allowed {' | '.join(MEASURED_METRICS)}")
    if metric not in MEASURED_METRICS[study]:
        raise ProfileError(f"{at}.metric = {metric!r}: {study} reports {' | '.join(MEASURED_METRICS[study])}")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ProfileError(f"{at}.value = {value!r}: expected a number of at least 0")
    for key in ("source", "note"):
        if not isinstance(m.get(key, ""), str):
            raise ProfileError(f"{at}.{key}: expected a string")
    return Measured(study, metric, float(value), m["source"], m.get("note", ""))


def _check_combinations(where: str, s: Sheet) -> None:
    """Combinations no drive has: one line naming the key that cannot be."""
    from .priors import interface_prior

    max_mbps = interface_prior(s.interface)["max_mbps"]
    for key in ("seq_read_mbps", "seq_write_mbps", "post_cache_write_mbps"):
        v = getattr(s, key)
        if v is not None and v > max_mbps:
            raise ProfileError(f"{where}: drive.{key} = {v:g}: above what {s.interface} carries ({max_mbps:g} MB/s)")
    if s.hmb_mib:
        if s.interface == "sata3":
            raise ProfileError(f"{where}: drive.hmb_mib: a SATA drive has no Host Memory Buffer (NVMe only)")
        if s.dram_mib:
            raise ProfileError(f"{where}: drive.hmb_mib: a drive with DRAM (dram_mib = {s.dram_mib}) asks for no HMB")
    if s.slc_cache_gb is not None and s.slc_cache_gb > 0:
        if s.cell == "slc":
            raise ProfileError(f"{where}: drive.slc_cache_gb: SLC NAND has no SLC cache")
        most = s.capacity_gb / s.bits_per_cell * 1.1
        if s.slc_cache_gb > most:
            raise ProfileError(
                f"{where}: drive.slc_cache_gb = {s.slc_cache_gb:g}: more than {s.cell.upper()} cells "
                f"hold in SLC mode ({most:,.0f} GB at most: raw capacity / {s.bits_per_cell} bits per cell)"
            )
    if s.post_cache_write_mbps is not None and s.post_cache_write_mbps > s.seq_write_mbps:
        raise ProfileError(
            f"{where}: drive.post_cache_write_mbps = {s.post_cache_write_mbps:g}: above the rated "
            f"sequential write ({s.seq_write_mbps:g} MB/s)"
        )
    if s.nand_dies is not None and s.nand_die_gbit is not None:
        raw_gb = s.nand_dies * s.nand_die_gbit * 2**30 / 8 / 1e9
        if raw_gb < s.capacity_gb:
            raise ProfileError(
                f"{where}: drive.nand_dies: {s.nand_dies} dies of {s.nand_die_gbit} Gbit hold "
                f"{raw_gb:,.0f} GB, less than capacity_gb = {s.capacity_gb:g}"
            )
    if s.drive_class == "enterprise" and s.hmb_mib:
        raise ProfileError(f"{where}: drive.hmb_mib: enterprise drives carry DRAM, not an HMB")
