"""nvme-cli's ``zns`` plugin output (``report-zones``, ``id-ns`` and the zone management
commands' success lines) for a zoned drive, from :meth:`ssdtwin.Device.zones`.

The layouts follow nvme-cli's ``plugins/zns/zns.c`` and its printers (v2.x): C's ``%#x``
prints zero as ``0`` (:func:`.cfmt.hash_x`), a zone's state is the raw Zone State byte in
the normal output and nvme-cli's name with ``-V``. Every zone is Sequential Write Required
(type 2) with no attributes or descriptor extension.

>>> from ssdtwin import Device
>>> print(report_zones_text(Device("generic-zns-966g").zones(), first=0, count=2), end="")
nr_zones: 800
SLBA: 0          WP: 0          Cap: 0x48000    State: 0x10 Type: 0x2  Attrs: 0    AttrsInfo: 0
SLBA: 0x80000    WP: 0x80000    Cap: 0x48000    State: 0x10 Type: 0x2  Attrs: 0    AttrsInfo: 0
"""

from __future__ import annotations

from typing import Any

from .cfmt import hash_x

#: Sequential Write Required, the one zone type of the ZNS command set.
ZONE_TYPE = 0x2
ZONE_TYPE_NAME = "SEQWRITE_REQ"
#: nvme-cli's ``-S`` filter values, by state name.
STATE_FILTER = {
    "empty": "EMPTY",
    "implicitly-opened": "IMP_OPENED",
    "explicitly-opened": "EXP_OPENED",
    "closed": "CLOSED",
    "full": "FULL",
}


def _zones(zones: dict[str, Any], first: int, count: int | None, state: str | None) -> list[dict[str, Any]]:
    chosen = [z for z in zones["zones"][first:] if state is None or z["state"] == state]
    return chosen if count is None else chosen[:count]


def report_zones_text(
    zones: dict[str, Any], first: int = 0, count: int | None = None, state: str | None = None, verbose: bool = False
) -> str:
    """``nvme zns report-zones``: from zone ``first``, ``count`` zones (all by default), of
    ``state`` only if given (an nvme-cli name)."""
    cap = zones["capacity_lbas"]
    lines = [f"nr_zones: {len(zones['zones'])}"]
    for z in _zones(zones, first, count, state):
        head = f"SLBA: {hash_x(z['slba']):<10} WP: {hash_x(z['wp']):<10} Cap: {hash_x(cap):<10} "
        if verbose:
            lines.append(head + f"State: {z['state']:<12} Type: {ZONE_TYPE_NAME:<14}")
            lines.append("Attrs: Zone Descriptor Extension is Not Vaild")
        else:
            zs = z["code"] << 4
            lines.append(
                head
                + f"State: {hash_x(zs):<4} Type: {hash_x(ZONE_TYPE):<4} Attrs: {hash_x(0):<4} AttrsInfo: {hash_x(0):<4}"
            )
    return "\n".join(lines) + "\n"


def report_zones_json(
    zones: dict[str, Any], first: int = 0, count: int | None = None, state: str | None = None
) -> dict[str, Any]:
    """``nvme zns report-zones -o json``."""
    cap = zones["capacity_lbas"]
    listed = [
        {
            "slba": z["slba"],
            "wp": z["wp"],
            "cap": cap,
            "state": z["state"],
            "type": ZONE_TYPE_NAME,
            "attrs": 0,
            "attrs_info": 0,
        }
        for z in _zones(zones, first, count, state)
    ]
    return {"nr_zones": len(zones["zones"]), "zone_list": listed}


def id_ns_text(zones: dict[str, Any]) -> str:
    """``nvme zns id-ns``: the ZNS Identify Namespace (0-based MAR and MOR; the zone size of
    the one LBA format, in LBAs)."""
    lines = [
        "ZNS Command Set Identify Namespace:",
        "zoc     : 0",
        "ozcs    : 0",
        f"mar     : {hash_x(zones['max_active'] - 1)}",
        f"mor     : {hash_x(zones['max_open'] - 1)}",
        *(f"{name:<8}: 0" for name in ("rrl", "frl", "rrl1", "rrl2", "rrl3", "frl1", "frl2", "frl3")),
        "numzrwa : 0",
        "zrwafg  : 0",
        "zrwasz  : 0",
        "zrwacap : 0",
        f"lbafe  0: zsze:{hash_x(zones['size_lbas'])} zdes:0 (in use)",
    ]
    return "\n".join(lines) + "\n"


def id_ns_json(zones: dict[str, Any]) -> dict[str, Any]:
    """``nvme zns id-ns -o json``."""
    out: dict[str, Any] = {"zoc": 0, "ozcs": 0, "mar": zones["max_active"] - 1, "mor": zones["max_open"] - 1}
    out |= dict.fromkeys(("rrl", "frl", "rrl1", "rrl2", "rrl3", "frl1", "frl2", "frl3"), 0)
    out |= {"numzrwa": 0, "zrwafg": 0, "zrwasz": 0, "zrwacap": 0}
    out["lbafe"] = [{"zsze": zones["size_lbas"], "zdes": 0}]
    return out


#: Each zone management command's name and action code.
ACTIONS = {"close": 1, "finish": 2, "open": 3, "reset": 4}


def send_success(action: str, slba: int, all_zones: bool, nsid: int) -> str:
    """nvme-cli's success line of ``zns <action>-zone``.

    >>> send_success("reset", 0x80000, False, 1)
    'zns-reset-zone: Success, action:4 zone:80000 all:0 zcapc:0 nsid:1'
    """
    if action == "open":
        return f"zns-open-zone: Success zone slba:{slba:x} nsid:{nsid}"
    return (
        f"zns-{action}-zone: Success, action:{ACTIONS[action]} zone:{slba:x} all:{int(all_zones)} zcapc:0 nsid:{nsid}"
    )
