"""nvme-cli's ``fdp`` plugin output (``configs``, ``usage``, ``stats``, ``events``, ``status``)
for a drive with Flexible Data Placement, from :meth:`ssdtwin.Device.fdp`.

The layouts follow nvme-cli's ``stdout_fdp_*`` and ``json_fdp_*`` printers (v2.16): the
normal output's lines and the JSON keys in their order. Where nvme-cli prints a wall-clock
time (an event's timestamp as ``%c %Z``) the twin, whose clock is simulated, prints ``-``
as nvme-cli does for a time it cannot convert.

>>> from ssdtwin import Device
>>> print(fdp_stats_text(Device("generic-fdp-960g").fdp()), end="")
Host Bytes with Metadata Written (HBMW): 0
Media Bytes with Metadata Written (MBMW): 0
Media Bytes Erased (MBE): 0
"""

from __future__ import annotations

from typing import Any

from .cfmt import hash_x
from .constants import NSID

#: The FDP Attributes' Valid bit and volatile-write-cache bit (RGIF, bits 3:0, is 0: one
#: reclaim group).
_FDPA_VALID = 0x80
_FDPA_VWC = 0x10
#: The Reclaim Unit Handle Type codes.
_RUHT = {"Initially Isolated": 1, "Persistently Isolated": 2}
#: The RUH Usage attribute names.
_RUHA = {0: "Unused", 1: "Host Specified", 2: "Controller Specified"}
#: Event flags: PID valid, NSID valid.
_EVENT_FLAGS = 0x3
#: Host events are those below this type; the controller's from it.
_CONTROLLER_EVENTS = 0x80


def _fdpa(fdp: dict[str, Any]) -> int:
    return _FDPA_VALID | (_FDPA_VWC if fdp["volatile_write_cache"] else 0)


def fdp_configs_text(fdp: dict[str, Any], human: bool = False) -> str:
    """``nvme fdp configs``: the drive's one FDP configuration."""
    fdpa = _fdpa(fdp)
    lines = [f"FDP Attributes: {hash_x(fdpa)}"]
    if human:
        lines += [
            f"  [7:7] : {hash_x(fdpa >> 7 & 1)}\tFDP Configuration {'' if fdpa & _FDPA_VALID else 'Not '}Valid",
            f"  [4:4] : {hash_x(fdpa >> 4 & 1)}\tFDP Volatile Write Cache {'' if fdpa & _FDPA_VWC else 'Not '}Present",
            f"  [3:0] : {hash_x(fdpa & 0xF)}\tReclaim Group Identifier Format",
        ]
    lines += [
        "Vendor Specific Size: 0",
        f"Number of Reclaim Groups: {fdp['reclaim_groups']}",
        f"Number of Reclaim Unit Handles: {fdp['handles']}",
        "Number of Namespaces Supported: 1",
        f"Reclaim Unit Nominal Size: {fdp['reclaim_unit_bytes']}",
        "Estimated Reclaim Unit Time Limit: 0",
        "Reclaim Unit Handle List:",
    ]
    lines += [f"  [{h}]: {fdp['handle_type']}" for h in range(fdp["handles"])]
    return "\n".join(lines) + "\n"


def fdp_configs_json(fdp: dict[str, Any]) -> dict[str, Any]:
    """``nvme fdp configs -o json`` (``n`` counts from 0, as the log page does)."""
    config = {
        "fdpa": _fdpa(fdp),
        "vss": 0,
        "nrg": fdp["reclaim_groups"],
        "nruh": fdp["handles"],
        "nnss": 1,
        "runs": fdp["reclaim_unit_bytes"],
        "erutl": 0,
    }
    return {"n": 0, "configs": [config]}


def fdp_usage_text(fdp: dict[str, Any]) -> str:
    """``nvme fdp usage``: each handle's RUH Usage attribute."""
    return "".join(
        f"Reclaim Unit Handle {h} Attributes: {hash_x(a)} ({_RUHA[a]})\n" for h, a in enumerate(fdp["usage"])
    )


def fdp_usage_json(fdp: dict[str, Any]) -> dict[str, Any]:
    """``nvme fdp usage -o json``."""
    return {"nruh": fdp["handles"], "ruhus": [{"ruha": a} for a in fdp["usage"]]}


def fdp_stats_text(fdp: dict[str, Any]) -> str:
    """``nvme fdp stats``: the FDP Statistics log page (C locale: no thousands separator)."""
    s = fdp["stats"]
    return (
        f"Host Bytes with Metadata Written (HBMW): {s['host_bytes_written']}\n"
        f"Media Bytes with Metadata Written (MBMW): {s['media_bytes_written']}\n"
        f"Media Bytes Erased (MBE): {s['media_bytes_erased']}\n"
    )


def fdp_stats_json(fdp: dict[str, Any]) -> dict[str, Any]:
    """``nvme fdp stats -o json``."""
    s = fdp["stats"]
    return {"hbmw": s["host_bytes_written"], "mbmw": s["media_bytes_written"], "mbe": s["media_bytes_erased"]}


def _events(fdp: dict[str, Any], host_events: bool) -> list[dict[str, Any]]:
    return [e for e in fdp["events"] if (e["type"] < _CONTROLLER_EVENTS) == host_events]


def fdp_events_text(fdp: dict[str, Any], host_events: bool = False) -> str:
    """``nvme fdp events`` (``-E``: the host events, else the controller's)."""
    out = []
    for k, e in enumerate(_events(fdp, host_events)):
        out += [
            f"Event[{k}]",
            f"  Event Type: {hash_x(e['type'])} ({e['name']})",
            f"  Event Timestamp: {e['timestamp_ms']} (-)",
            f"  Placement Identifier (PID): {hash_x(e['pid'])}",
            f"  Namespace Identifier (NSID): {NSID}",
            "",
        ]
    return "\n".join(out) + ("\n" if out else "")


def fdp_events_json(fdp: dict[str, Any], host_events: bool = False) -> dict[str, Any]:
    """``nvme fdp events -o json``."""
    events = [
        {"type": e["type"], "fdpef": _EVENT_FLAGS, "pid": e["pid"], "timestamp": e["timestamp_ms"], "nsid": NSID}
        for e in _events(fdp, host_events)
    ]
    return {"n": len(events), "events": events}


def fdp_status_text(fdp: dict[str, Any]) -> str:
    """``nvme fdp status``: the Reclaim Unit Handle Status of I/O Management Receive, whose
    order is what fio's ``plids=`` indices count in."""
    return "".join(
        f"Placement Identifier {s['pid']}; Reclaim Unit Handle Identifier {s['ruhid']}\n"
        f"  Estimated Active Reclaim Unit Time Remaining (EARUTR): {s['earutr']}\n"
        f"  Reclaim Unit Available Media Writes (RUAMW): {s['ruamw']}\n\n"
        for s in fdp["status"]
    )


def fdp_status_json(fdp: dict[str, Any]) -> dict[str, Any]:
    """``nvme fdp status -o json``."""
    return {"nruhsd": len(fdp["status"]), "ruhss": [dict(s) for s in fdp["status"]]}
