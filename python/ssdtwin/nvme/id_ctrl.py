"""Identify Controller data (NVMe admin Identify, CNS 01h) of a simulated drive.

The result is a plain dict with one key per field, named and ordered as nvme-cli's
``struct nvme_id_ctrl`` (libnvme ``src/nvme/types.h``), holding decoded values: integers,
the ASCII fields space-padded to their width as the controller stores them (``sn`` 20,
``mn`` 40, ``fr`` 8), 128-bit fields as Python ints, and ``psd`` as a list of power state
descriptors. Renderers (:mod:`.show_id_ctrl`, :mod:`.smartctl`) print it.

Values come from :meth:`ssdtwin.Device.identity`: the IDs, strings, version, MDTS, the
HMB request (``hmpre``, ``hmmin``, ``hmminds``, ``hmmaxd`` exactly as the profile gives
them), the capacity (``tnvmcap``), the volatile write cache (a drive without power-loss
protection has one), the temperature thresholds the model throttles at (``wctemp``,
``cctemp``), its power states (``psd``), APST support (``apsta``: a non-operational state to
go to) and Host Controlled Thermal Management (``hctma``, ``mntmt``, ``mxtmt``). Every other
value is in :mod:`.constants`, with the reason for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import constants as k

#: NVMe 1.4 made the Controller Type field mandatory; earlier controllers report 0.
_CNTRLTYPE_FROM_VERSION = 0x10400
_CNTRLTYPE_IO = 1


def identify_controller(identity: Mapping[str, Any]) -> dict[str, Any]:
    """The Identify Controller fields of the drive ``identity`` describes
    (:meth:`ssdtwin.Device.identity`).

    >>> from ssdtwin import Device
    >>> ctrl = identify_controller(Device("p32a80").identity())
    >>> ctrl["hmpre"], ctrl["hmmin"], ctrl["mdts"], hex(ctrl["ver"])
    (61440, 2048, 5, '0x10300')
    >>> ctrl["mn"]
    'SPCC M.2 PCIe SSD                       '
    >>> [ps["mp"] for ps in ctrl["psd"]]
    [600]
    """
    ver = int(identity["nvme_version"])
    vid, ssvid = int(identity["pci_vendor_id"]), int(identity["pci_subsystem_vendor_id"])
    sn, mn, fr = (_ascii(identity[key], width) for key, width in (("serial", 20), ("model", 40), ("firmware", 8)))
    states = list(identity["power_states"])
    hctm = identity.get("hctm_range_kelvin")
    subnqn = f"{k.SUBNQN_PREFIX}{vid:04x}{ssvid:04x}{sn}{mn}" if ver >= k.SUBNQN_FROM_VERSION else ""
    return {
        "vid": vid,
        "ssvid": ssvid,
        "sn": sn,
        "mn": mn,
        "fr": fr,
        "rab": k.RAB,
        "ieee": int(identity["ieee_oui"]),
        "cmic": 0,
        "mdts": int(identity["mdts"]),
        "cntlid": k.CNTLID,
        "ver": ver,
        "rtd3r": 0,
        "rtd3e": 0,
        "oaes": 0,
        "ctratt": 0,
        "rrls": 0,
        "cntrltype": _CNTRLTYPE_IO if ver >= _CNTRLTYPE_FROM_VERSION else 0,
        "fguid": 0,
        "crdt1": 0,
        "crdt2": 0,
        "crdt3": 0,
        "nvmsr": 0,
        "vwci": 0,
        "mec": 0,
        "oacs": k.OACS,
        "acl": k.ACL,
        "aerl": k.AERL,
        "frmw": k.FRMW,
        "lpa": k.LPA,
        "elpe": k.ELPE,
        "npss": len(states) - 1,
        "avscc": k.AVSCC,
        "apsta": 1 if identity.get("apst_supported") else 0,
        "wctemp": int(identity["wctemp_kelvin"]),
        "cctemp": int(identity["cctemp_kelvin"]),
        "mtfa": 0,
        "hmpre": int(identity["hmpre"]),
        "hmmin": int(identity["hmmin"]),
        "tnvmcap": int(identity["capacity_bytes"]),
        "unvmcap": 0,
        "rpmbs": 0,
        "edstt": 0,
        "dsto": 0,
        "fwug": 0,
        "kas": 0,
        "hctma": 1 if hctm else 0,
        "mntmt": int(hctm[0]) if hctm else 0,
        "mxtmt": int(hctm[1]) if hctm else 0,
        "sanicap": 0,
        "hmminds": int(identity["hmminds"]),
        "hmmaxd": int(identity["hmmaxd"]),
        "nsetidmax": 0,
        "endgidmax": 0,
        "anatt": 0,
        "anacap": 0,
        "anagrpmax": 0,
        "nanagrpid": 0,
        "pels": 0,
        "domainid": 0,
        "megcap": 0,
        "sqes": k.SQES,
        "cqes": k.CQES,
        "maxcmd": 0,
        "nn": k.NN,
        "oncs": k.ONCS,
        "fuses": 0,
        "fna": k.FNA,
        "vwc": 0x1 if identity["volatile_write_cache"] else 0,
        "awun": 0,
        "awupf": 0,
        "icsvscc": k.ICSVSCC,
        "nwpc": 0,
        "acwu": 0,
        "ocfs": 0,
        "sgls": 0,
        "mnan": 0,
        "maxdna": 0,
        "maxcna": 0,
        "subnqn": subnqn,
        "ioccsz": 0,
        "iorcsz": 0,
        "icdoff": 0,
        "fcatt": 0,
        "msdbd": 0,
        "ofcs": 0,
        "psd": [power_state_descriptor(i, ps) for i, ps in enumerate(states)],
    }


def power_state_descriptor(index: int, state: Mapping[str, Any]) -> dict[str, int]:
    """A power state descriptor from a profile's power state (``max_power_mw``,
    ``non_operational``, ``entry_latency_us``, ``exit_latency_us``).

    The maximum power uses the coarse scale (0.01 W, ``flags`` bit 0 clear) when it is a
    whole number of 10 mW, else the fine one (0.0001 W, bit 0 set), as drives do for their
    low-power states. The relative throughput and latency ranks are the state's index
    (state 0 is the fastest), the usual convention; idle and active power are not reported.

    >>> power_state_descriptor(0, {"max_power_mw": 6000})["mp"]
    600
    >>> ps = power_state_descriptor(3, {"max_power_mw": 5, "non_operational": True, "exit_latency_us": 1200})
    >>> ps["mp"], ps["flags"], ps["exlat"], ps["rrt"]
    (50, 3, 1200, 3)
    """
    milliwatts = int(state["max_power_mw"])
    fine = milliwatts % 10 != 0
    flags = (0x1 if fine else 0) | (0x2 if state.get("non_operational") else 0)
    return {
        "mp": milliwatts * 10 if fine else milliwatts // 10,
        "flags": flags,
        "enlat": int(state.get("entry_latency_us", 0)),
        "exlat": int(state.get("exit_latency_us", 0)),
        "rrt": index,
        "rrl": index,
        "rwt": index,
        "rwl": index,
        "idlp": 0,
        "ips": 0,
        "actp": 0,
        "apws": 0,
    }


def _ascii(text: str, width: int) -> str:
    """An identify string field: the text, space-padded to the field's width."""
    return str(text).ljust(width)
