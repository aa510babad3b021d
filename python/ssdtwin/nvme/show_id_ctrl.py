"""``nvme id-ctrl`` output as nvme-cli 2.3 prints it: normal, ``-H`` and ``-o json``.

Sources followed, line by line:

* Normal and ``-H`` text: ``nvme_show_id_ctrl`` and the ``nvme_show_id_ctrl_*`` decoders in
  nvme-cli's ``nvme-print.c`` of the v2.2/v2.3 line (the stored copy with ``cntrltype``,
  ``fguid``, ``nvmsr``/``vwci``/``mec``, ``endgidmax``, ``pels``, ``mnan`` and ``maxcna``
  printed, and ``ps   %4d : mp:`` power states). Labels are ``%-10s``-wide; ``%#x`` fields
  print zero as ``0`` (:func:`.cfmt.hash_x`); 128-bit fields print with ``%.0Lf`` (plain
  digits, no separators); the ASCII fields print their full width, trailing spaces included.
  The decoders keep nvme-cli's quirks (``nvmsr``/``mec`` reserved masks, ``vwci`` bits 6:0
  masked with ``0xfe``, no blank line after ``cntrltype``, ``Disconnect command  Supported``).
  ``fguid`` prints as that source prints it, the 128-bit number (``0``); later nvme-cli
  versions print a UUID (``00000000-0000-...``) instead.
* JSON: the v2.3 key order and types of ``json_nvme_id_ctrl``, as the shared interface
  reference lists them (``interfaces.md`` §4.1; a later stored ``nvme-print-json.c`` keeps
  the order): integers, ``sn``/``mn``/``fr`` padded strings, the 128-bit ``tnvmcap``,
  ``unvmcap``, ``megcap``, ``maxdna`` (and ``fguid``) as strings of decimal digits,
  ``subnqn`` only when not empty, and ``psds`` entries ``max_power`` ... ``active_scale``.
  Laid out by :mod:`.jsonc`.

nvme-cli 2.3 has no ``-H`` decode for ``hmpre``/``hmmin``: they print as plain 4 KiB-unit
counts; what the host granted is the driver's log line (the ``ssdtwin nvme id-ctrl -H``
command prints it on stderr).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .cfmt import hash_x, supported, watts
from .constants import kelvin_to_celsius

Ctrl = Mapping[str, Any]


def id_ctrl_text(ctrl: Ctrl, *, human: bool = False) -> str:
    """``nvme id-ctrl`` (``human``: ``-H``) output for Identify Controller data
    (:func:`.id_ctrl.identify_controller`).

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_controller
    >>> lines = id_ctrl_text(identify_controller(Device("p32a80").identity())).splitlines()
    >>> wanted = ("NVME", "vid", "ver", "cmic", "hmpre", "hmmin")
    >>> print("\\n".join(line for line in lines if line.split(" ")[0] in wanted))
    NVME Identify Controller:
    vid       : 0x1987
    cmic      : 0
    ver       : 0x10300
    hmpre     : 61440
    hmmin     : 2048
    """
    out: list[str] = ["NVME Identify Controller:"]

    def field(name: str, value: str, decode: Callable[[Any], list[str]] | None = None) -> None:
        out.append(f"{name:<10}: {value}")
        if human and decode is not None:
            out.extend(decode(ctrl[name]))

    c = ctrl
    field("vid", hash_x(c["vid"]))
    field("ssvid", hash_x(c["ssvid"]))
    field("sn", c["sn"])
    field("mn", c["mn"])
    field("fr", c["fr"])
    field("rab", str(c["rab"]))
    field("ieee", f"{c['ieee']:06x}")
    field("cmic", hash_x(c["cmic"]), _cmic)
    field("mdts", str(c["mdts"]))
    field("cntlid", hash_x(c["cntlid"]))
    field("ver", hash_x(c["ver"]))
    field("rtd3r", hash_x(c["rtd3r"]))
    field("rtd3e", hash_x(c["rtd3e"]))
    field("oaes", hash_x(c["oaes"]), _oaes)
    field("ctratt", hash_x(c["ctratt"]), _ctratt)
    field("rrls", hash_x(c["rrls"]))
    field("cntrltype", str(c["cntrltype"]), _cntrltype)
    field("fguid", str(c["fguid"]))
    for name in ("crdt1", "crdt2", "crdt3"):
        field(name, str(c[name]))
    field("nvmsr", str(c["nvmsr"]), _nvmsr)
    field("vwci", str(c["vwci"]), _vwci)
    field("mec", str(c["mec"]), _mec)
    field("oacs", hash_x(c["oacs"]), _oacs)
    field("acl", str(c["acl"]))
    field("aerl", str(c["aerl"]))
    field("frmw", hash_x(c["frmw"]), _frmw)
    field("lpa", hash_x(c["lpa"]), _lpa)
    field("elpe", str(c["elpe"]), _elpe)
    field("npss", str(c["npss"]), _npss)
    field("avscc", hash_x(c["avscc"]), _avscc)
    field("apsta", hash_x(c["apsta"]), _apsta)
    field("wctemp", str(c["wctemp"]), _temperature("Warning Composite Temperature Threshold (WCTEMP)"))
    field("cctemp", str(c["cctemp"]), _temperature("Critical Composite Temperature Threshold (CCTEMP)"))
    field("mtfa", str(c["mtfa"]))
    field("hmpre", str(c["hmpre"]))
    field("hmmin", str(c["hmmin"]))
    field("tnvmcap", str(c["tnvmcap"]), _capacity("Total NVM Capacity (TNVMCAP)"))
    field("unvmcap", str(c["unvmcap"]), _capacity("Unallocated NVM Capacity (UNVMCAP)"))
    field("rpmbs", hash_x(c["rpmbs"]), _rpmbs)
    for name in ("edstt", "dsto", "fwug", "kas"):
        field(name, str(c[name]))
    field("hctma", hash_x(c["hctma"]), _hctma)
    field("mntmt", str(c["mntmt"]), _temperature("Minimum Thermal Management Temperature (MNTMT)"))
    field("mxtmt", str(c["mxtmt"]), _temperature("Maximum Thermal Management Temperature (MXTMT)"))
    field("sanicap", hash_x(c["sanicap"]), _sanicap)
    for name in ("hmminds", "hmmaxd", "nsetidmax", "endgidmax", "anatt"):
        field(name, str(c[name]))
    field("anacap", str(c["anacap"]), _anacap)
    for name in ("anagrpmax", "nanagrpid", "pels", "domainid", "megcap"):
        field(name, str(c[name]))
    field("sqes", hash_x(c["sqes"]), _entry_sizes("SQ"))
    field("cqes", hash_x(c["cqes"]), _entry_sizes("CQ"))
    field("maxcmd", str(c["maxcmd"]))
    field("nn", str(c["nn"]))
    field("oncs", hash_x(c["oncs"]), _oncs)
    field("fuses", hash_x(c["fuses"]), _fuses)
    field("fna", hash_x(c["fna"]), _fna)
    field("vwc", hash_x(c["vwc"]), _vwc)
    field("awun", str(c["awun"]))
    field("awupf", str(c["awupf"]))
    field("icsvscc", str(c["icsvscc"]), _icsvscc)
    field("nwpc", str(c["nwpc"]), _nwpc)
    field("acwu", str(c["acwu"]))
    field("ocfs", hash_x(c["ocfs"]), _ocfs)
    field("sgls", hash_x(c["sgls"]), _sgls)
    for name in ("mnan", "maxdna", "maxcna", "subnqn", "ioccsz", "iorcsz", "icdoff"):
        field(name, str(c[name]))
    field("fcatt", hash_x(c["fcatt"]), _fcatt)
    field("msdbd", str(c["msdbd"]))
    field("ofcs", str(c["ofcs"]), _ofcs)
    for i, ps in enumerate(c["psd"]):
        out.extend(_power_state(i, ps))
    return "\n".join(out) + "\n"


def id_ctrl_json(ctrl: Ctrl) -> dict[str, Any]:
    """``nvme id-ctrl -o json`` as nvme-cli 2.3 builds it: keys in its order, 128-bit fields as
    strings (print with :func:`.jsonc.dumps`).

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_controller
    >>> j = id_ctrl_json(identify_controller(Device("p32a80").identity()))
    >>> list(j)[:6], j["ver"], j["hmpre"], j["tnvmcap"]
    (['vid', 'ssvid', 'sn', 'mn', 'fr', 'rab'], 66304, 61440, '256060514304')
    """
    c = ctrl
    out: dict[str, Any] = {}
    for key in _JSON_KEYS:
        if key == "subnqn" and not c["subnqn"]:
            continue  # nvme-cli adds it only when the field is not empty
        out[key] = str(c[key]) if key in _JSON_UINT128 else c[key]
    out["psds"] = [
        {
            "max_power": ps["mp"],
            "flags": ps["flags"],
            "entry_lat": ps["enlat"],
            "exit_lat": ps["exlat"],
            "read_tput": ps["rrt"],
            "read_lat": ps["rrl"],
            "write_tput": ps["rwt"],
            "write_lat": ps["rwl"],
            "idle_power": ps["idlp"],
            "idle_scale": _power_scale(ps["ips"]),
            "active_power": ps["actp"],
            "active_power_work": ps["apws"] & 0x7,
            "active_scale": _power_scale(ps["apws"]),
        }
        for ps in c["psd"]
    ]
    return out


#: ``json_nvme_id_ctrl`` of v2.3, before ``psds``.
_JSON_KEYS = [
    "vid",
    "ssvid",
    "sn",
    "mn",
    "fr",
    "rab",
    "ieee",
    "cmic",
    "mdts",
    "cntlid",
    "ver",
    "rtd3r",
    "rtd3e",
    "oaes",
    "ctratt",
    "rrls",
    "cntrltype",
    "fguid",
    "crdt1",
    "crdt2",
    "crdt3",
    "nvmsr",
    "vwci",
    "mec",
    "oacs",
    "acl",
    "aerl",
    "frmw",
    "lpa",
    "elpe",
    "npss",
    "avscc",
    "apsta",
    "wctemp",
    "cctemp",
    "mtfa",
    "hmpre",
    "hmmin",
    "tnvmcap",
    "unvmcap",
    "rpmbs",
    "edstt",
    "dsto",
    "fwug",
    "kas",
    "hctma",
    "mntmt",
    "mxtmt",
    "sanicap",
    "hmminds",
    "hmmaxd",
    "nsetidmax",
    "endgidmax",
    "anatt",
    "anacap",
    "anagrpmax",
    "nanagrpid",
    "pels",
    "domainid",
    "megcap",
    "sqes",
    "cqes",
    "maxcmd",
    "nn",
    "oncs",
    "fuses",
    "fna",
    "vwc",
    "awun",
    "awupf",
    "icsvscc",
    "nwpc",
    "acwu",
    "ocfs",
    "sgls",
    "mnan",
    "maxdna",
    "maxcna",
    "subnqn",
    "ioccsz",
    "iorcsz",
    "icdoff",
    "fcatt",
    "msdbd",
    "ofcs",
]
#: 128-bit fields: JSON strings in v2.3 (``json_object_add_value_uint128``), numbers from v2.4.
_JSON_UINT128 = frozenset(("fguid", "tnvmcap", "unvmcap", "megcap", "maxdna"))


# ---- power states -------------------------------------------------------------------------


def _power_scale(scale_byte: int) -> int:
    """``nvme_psd_power_scale``: bits 7:6 of ``ips``/``apws``."""
    return (scale_byte >> 6) & 0x3


def _power(value: int, scale: int) -> str:
    """``print_ps_power_and_scale``."""
    return watts(value, scale) or ("-" if scale == 0 else "reserved")


def _power_state(i: int, ps: Mapping[str, int]) -> list[str]:
    """``nvme_show_id_ctrl_power`` for one state: three lines."""
    max_power = watts(ps["mp"], 1 if ps["flags"] & 0x1 else 2)
    non = "non-" if ps["flags"] & 0x2 else ""
    workload = {0: "-", 1: "1MiB 32 RW, 30s idle", 2: "80K 128KiB SW"}.get(ps["apws"] & 0x7, "reserved")
    return [
        f"ps   {i:4d} : mp:{max_power} {non}operational enlat:{ps['enlat']} exlat:{ps['exlat']} "
        f"rrt:{ps['rrt']} rrl:{ps['rrl']}",
        f"            rwt:{ps['rwt']} rwl:{ps['rwl']} idle_power:{_power(ps['idlp'], _power_scale(ps['ips']))}"
        f" active_power:{_power(ps['actp'], _power_scale(ps['apws']))}",
        f"            active_power_workload:{workload}",
    ]


# ---- -H decoders (nvme_show_id_ctrl_*) -------------------------------------------------------


def _bits(value: int, high: int, low: int) -> int:
    return (value >> low) & ((1 << (high - low + 1)) - 1)


def _cmic(v: int) -> list[str]:
    rsvd = (v & 0xF0) >> 4
    ana, sriov, mctl, mp = _bits(v, 3, 3), _bits(v, 2, 2), _bits(v, 1, 1), _bits(v, 0, 0)
    return [
        *([f"  [7:4] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [3:3] : {hash_x(ana)}\tANA {'' if ana else 'not '}supported",
        f"  [2:2] : {hash_x(sriov)}\t{'SR-IOV' if sriov else 'PCI'}",
        f"  [1:1] : {hash_x(mctl)}\t{'Multi' if mctl else 'Single'} Controller",
        f"  [0:0] : {hash_x(mp)}\t{'Multi' if mp else 'Single'} Port",
        "",
    ]


def _oaes(v: int) -> list[str]:
    rsvd0, rsvd1, rsvd2, rsvd3 = (v & 0x70000000) >> 28, (v & 0x07FF0000) >> 16, (v >> 10) & 0x1, v & 0xFF
    return [
        f"  [31:31] : {supported(_bits(v, 31, 31), 'Discovery Log Change Notice')}",
        *([f"  [30:28] : {hash_x(rsvd0)}\tReserved"] if rsvd0 else []),
        f"  [27:27] : {supported(_bits(v, 27, 27), 'Zone Descriptor Changed Notices')}",
        *([f"  [26:16] : {hash_x(rsvd1)}\tReserved"] if rsvd1 else []),
        f"  [15:15] : {supported(_bits(v, 15, 15), 'Normal NSS Shutdown Event')}",
        f"  [14:14] : {supported(_bits(v, 14, 14), 'Endurance Group Event Aggregate Log Page Change Notice')}",
        f"  [13:13] : {supported(_bits(v, 13, 13), 'LBA Status Information Notices')}",
        f"  [12:12] : {supported(_bits(v, 12, 12), 'Predictable Latency Event Aggregate Log Change Notices')}",
        f"  [11:11] : {supported(_bits(v, 11, 11), 'Asymmetric Namespace Access Change Notices')}",
        *([f"  [10:10] : {hash_x(rsvd2)}\tReserved"] if rsvd2 else []),
        f"  [9:9] : {supported(_bits(v, 9, 9), 'Firmware Activation Notices')}",
        f"  [8:8] : {supported(_bits(v, 8, 8), 'Namespace Attribute Changed Event')}",
        *([f"  [7:0] : {hash_x(rsvd3)}\tReserved"] if rsvd3 else []),
        "",
    ]


def _ctratt(v: int) -> list[str]:
    rsvd = v >> 16
    names = {
        15: "Extended LBA Formats",
        14: "Delete NVM Set",
        13: "Delete Endurance Group",
        12: "Variable Capacity Management",
        11: "Fixed Capacity Management",
        10: "Multi Domain Subsystem",
        9: "UUID List",
        8: "SQ Associations",
        7: "Namespace Granularity",
        6: "Traffic Based Keep Alive",
        5: "Predictable Latency Mode",
        4: "Endurance Groups",
        3: "Read Recovery Levels",
        2: "NVM Sets",
        1: "Non-Operational Power State Permissive",
        0: "128-bit Host Identifier",
    }
    lines = [f" [31:16] : {hash_x(rsvd)}\tReserved"] if rsvd else []
    lines += [f"  [{bit}:{bit}] : {supported(_bits(v, bit, bit), name)}" for bit, name in names.items()]
    return [*lines, ""]


def _cntrltype(v: int) -> list[str]:
    kinds = ("Controller type not reported", "I/O Controller", "Discovery Controller", "Administrative Controller")
    # nvme-cli prints the whole byte in [1:0] and no blank line after this decode.
    return [f"  [7:2] : {hash_x((v & 0xFC) >> 2)}\tReserved", f"  [1:0] : {hash_x(v)}\t{kinds[v & 0x3]}"]


def _nvmsr(v: int) -> list[str]:
    rsvd = (v >> 2) & 0xFC  # nvme-cli's mask, kept as printed
    nvmee, nvmesd = (v >> 1) & 0x1, v & 0x1
    return [
        *([f" [7:2] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [1:1] : {hash_x(nvmee)}\tNVM subsystem {'' if nvmee else 'Not '}part of an Enclosure",
        f"  [0:0] : {hash_x(nvmesd)}\tNVM subsystem {'' if nvmesd else 'Not '}part of an Storage Device",
        "",
    ]


def _vwci(v: int) -> list[str]:
    valid = (v >> 7) & 0x1
    return [
        f"  [7:7] : {hash_x(valid)}\tVPD Write Cycles Remaining field is {'' if valid else 'Not '}valid.",
        f"  [6:0] : {hash_x(v & 0xFE)}\tVPD Write Cycles Remaining ",
        "",
    ]


def _mec(v: int) -> list[str]:
    rsvd = (v >> 2) & 0xFC
    pcie, smbus = (v >> 1) & 0x1, v & 0x1
    return [
        *([f" [7:2] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [1:1] : {hash_x(pcie)}\tNVM subsystem {'' if pcie else 'Not '}contains a Management Endpoint"
        " on a PCIe port",
        f"  [0:0] : {hash_x(smbus)}\tNVM subsystem {'' if smbus else 'Not '}contains a Management Endpoint"
        " on an SMBus/I2C port",
        "",
    ]


def _oacs(v: int) -> list[str]:
    rsvd = (v & 0xF800) >> 11
    names = {
        10: "Lockdown Command and Feature",
        9: "Get LBA Status Capability",
        8: "Doorbell Buffer Config",
        7: "Virtualization Management",
        6: "NVMe-MI Send and Receive",
        5: "Directives",
        4: "Device Self-test",
        3: "NS Management and Attachment",
        2: "FW Commit and Download",
        1: "Format NVM",
        0: "Security Send and Receive",
    }
    lines = [f" [15:11] : {hash_x(rsvd)}\tReserved"] if rsvd else []
    lines += [f"  [{bit}:{bit}] : {supported(_bits(v, bit, bit), name)}" for bit, name in names.items()]
    return [*lines, ""]


def _frmw(v: int) -> list[str]:
    rsvd, s1ro = (v & 0xC0) >> 6, v & 0x1
    return [
        *([f"  [7:6] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [5:5] : {supported(_bits(v, 5, 5), 'Multiple FW or Boot Update Detection')}",
        f"  [4:4] : {supported(_bits(v, 4, 4), 'Firmware Activate Without Reset')}",
        f"  [3:1] : {hash_x((v & 0xE) >> 1)}\tNumber of Firmware Slots",
        f"  [0:0] : {hash_x(s1ro)}\tFirmware Slot 1 Read{'-Only' if s1ro else '/Write'}",
        "",
    ]


def _lpa(v: int) -> list[str]:
    rsvd = (v & 0x80) >> 7
    return [
        *([f"  [7:7] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [6:6] : {supported(_bits(v, 6, 6), 'Telemetry Log Data Area 4')}",
        f"  [5:5] : {supported(_bits(v, 5, 5), 'LID 0x0, Scope of each command in LID 0x5, 0x12, 0x13')}",
        f"  [4:4] : {supported(_bits(v, 4, 4), 'Persistent Event log')}",
        f"  [3:3] : {supported(_bits(v, 3, 3), 'Telemetry host/controller initiated log page')}",
        f"  [2:2] : {supported(_bits(v, 2, 2), 'Extended data for Get Log Page')}",
        f"  [1:1] : {supported(_bits(v, 1, 1), 'Command Effects Log Page')}",
        f"  [0:0] : {supported(_bits(v, 0, 0), 'SMART/Health Log Page per NS')}",
        "",
    ]


def _elpe(v: int) -> list[str]:
    return [f"  [7:0] : {v} (0's based)\tError Log Page Entries (ELPE)", ""]


def _npss(v: int) -> list[str]:
    return [f"  [7:0] : {v} (0's based)\tNumber of Power States Support (NPSS)", ""]


def _avscc(v: int) -> list[str]:
    rsvd, fmt = (v & 0xFE) >> 1, v & 0x1
    return [
        *([f"  [7:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [0:0] : {hash_x(fmt)}\tAdmin Vendor Specific Commands uses {'NVMe' if fmt else 'Vendor Specific'} Format",
        "",
    ]


def _apsta(v: int) -> list[str]:
    rsvd = (v & 0xFE) >> 1
    return [
        *([f"  [7:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [0:0] : {supported(v & 0x1, 'Autonomous Power State Transitions')}",
        "",
    ]


def _temperature(what: str) -> Callable[[int], list[str]]:
    """The ``wctemp``/``cctemp``/``mntmt``/``mxtmt`` decode: ``%ld°C (%u Kelvin)``."""

    def decode(kelvin: int) -> list[str]:
        return [f" [15:0] : {kelvin_to_celsius(kelvin)}°C ({kelvin} Kelvin)\t{what}", ""]

    return decode


def _capacity(what: str) -> Callable[[int], list[str]]:
    """The ``tnvmcap``/``unvmcap`` decode."""

    def decode(value: int) -> list[str]:
        return [f"[127:0] : {value}\t{what}", ""]

    return decode


def _rpmbs(v: int) -> list[str]:
    rsvd = (v & 0xFFC0) >> 6
    return [
        f" [31:24]: {hash_x((v & 0xFF000000) >> 24)}\tAccess Size",
        f" [23:16]: {hash_x((v & 0xFF0000) >> 16)}\tTotal Size",
        *([f" [15:6] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [5:3] : {hash_x((v & 0x38) >> 3)}\tAuthentication Method",
        f"  [2:0] : {hash_x(v & 0x7)}\tNumber of RPMB Units",
        "",
    ]


def _hctma(v: int) -> list[str]:
    rsvd = (v & 0xFFFE) >> 1
    return [
        *([f" [15:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [0:0] : {supported(v & 0x1, 'Host Controlled Thermal Management')}",
        "",
    ]


def _sanicap(v: int) -> list[str]:
    media = (
        "Additional media modification after sanitize operation completes successfully is not defined",
        "Media is not additionally modified after sanitize operation completes successfully",
        "Media is additionally modified after sanitize operation completes successfully",
        "Reserved",
    )
    nodmmas, ndi, rsvd = (v & 0xC0000000) >> 30, (v & 0x20000000) >> 29, (v & 0x1FFFFFF8) >> 3
    return [
        f"  [31:30] : {hash_x(nodmmas)}\t{media[nodmmas]}",
        # nvme-cli's wording: the bit set means the No-Deallocate bit is *not* supported.
        f"  [29:29] : {supported(ndi, 'No-Deallocate After Sanitize bit in Sanitize command', 'Not ', '')}",
        *([f"  [28:3] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"    [2:2] : {supported(_bits(v, 2, 2), 'Overwrite Sanitize Operation')}",
        f"    [1:1] : {supported(_bits(v, 1, 1), 'Block Erase Sanitize Operation')}",
        f"    [0:0] : {supported(_bits(v, 0, 0), 'Crypto Erase Sanitize Operation')}",
        "",
    ]


def _anacap(v: int) -> list[str]:
    static, rsvd = _bits(v, 6, 6), _bits(v, 5, 5)
    return [
        f"  [7:7] : {supported(_bits(v, 7, 7), 'Non-zero group ID')}",
        f"  [6:6] : {hash_x(static)}\tGroup ID does {'not ' if static else ''}change",
        *([f" [5:5] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [4:4] : {supported(_bits(v, 4, 4), 'ANA Change state')}",
        f"  [3:3] : {supported(_bits(v, 3, 3), 'ANA Persistent Loss state')}",
        f"  [2:2] : {supported(_bits(v, 2, 2), 'ANA Inaccessible state')}",
        f"  [1:1] : {supported(_bits(v, 1, 1), 'ANA Non-optimized state')}",
        f"  [0:0] : {supported(_bits(v, 0, 0), 'ANA Optimized state')}",
        "",
    ]


def _entry_sizes(queue: str) -> Callable[[int], list[str]]:
    """The ``sqes``/``cqes`` decode."""

    def decode(v: int) -> list[str]:
        high, low = (v & 0xF0) >> 4, v & 0xF
        return [
            f"  [7:4] : {hash_x(high)}\tMax {queue} Entry Size ({1 << high})",
            f"  [3:0] : {hash_x(low)}\tMin {queue} Entry Size ({1 << low})",
            "",
        ]

    return decode


def _oncs(v: int) -> list[str]:
    rsvd = (v & 0xFE00) >> 9
    names = {
        8: "Copy",
        7: "Verify",
        6: "Timestamp",
        5: "Reservations",
        4: "Save and Select",
        3: "Write Zeroes",
        2: "Data Set Management",
        1: "Write Uncorrectable",
        0: "Compare",
    }
    lines = [f" [15:9] : {hash_x(rsvd)}\tReserved"] if rsvd else []
    lines += [f"  [{bit}:{bit}] : {supported(_bits(v, bit, bit), name)}" for bit, name in names.items()]
    return [*lines, ""]


def _fuses(v: int) -> list[str]:
    rsvd = (v & 0xFE) >> 1
    return [
        *([f" [15:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [0:0] : {supported(v & 0x1, 'Fused Compare and Write')}",
        "",
    ]


def _fna(v: int) -> list[str]:
    rsvd, bcnsid, cese, cens, fmns = (v & 0xF0) >> 4, _bits(v, 3, 3), _bits(v, 2, 2), _bits(v, 1, 1), v & 0x1
    return [
        *([f"  [7:4] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        # nvme-cli's wording again: the bit set reads "Not Supported".
        f"  [3:3] : {supported(bcnsid, 'Format NVM Broadcast NSID (FFFFFFFFh)', 'Not ', '')}",
        f"  [2:2] : {hash_x(cese)}\tCrypto Erase {'' if cese else 'Not '}Supported as part of Secure Erase",
        f"  [1:1] : {hash_x(cens)}\tCrypto Erase Applies to {'All' if cens else 'Single'} Namespace(s)",
        f"  [0:0] : {hash_x(fmns)}\tFormat Applies to {'All' if fmns else 'Single'} Namespace(s)",
        "",
    ]


def _vwc(v: int) -> list[str]:
    flush_behavior = (
        "Support for the NSID field set to FFFFFFFFh is not indicated",
        "Reserved",
        "The Flush command does not support NSID set to FFFFFFFFh",
        "The Flush command supports NSID set to FFFFFFFFh",
    )
    rsvd, flush, present = (v & 0xF8) >> 3, (v & 0x6) >> 1, v & 0x1
    return [
        *([f"  [7:3] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [2:1] : {hash_x(flush)}\t{flush_behavior[flush]}",
        f"  [0:0] : {hash_x(present)}\tVolatile Write Cache {'' if present else 'Not '}Present",
        "",
    ]


def _icsvscc(v: int) -> list[str]:
    rsvd, fmt = (v & 0xFE) >> 1, v & 0x1
    return [
        *([f"  [7:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [0:0] : {hash_x(fmt)}\tNVM Vendor Specific Commands uses {'NVMe' if fmt else 'Vendor Specific'} Format",
        "",
    ]


def _nwpc(v: int) -> list[str]:
    rsvd = (v & 0xF8) >> 3
    return [
        *([f"  [7:3] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [2:2] : {supported(_bits(v, 2, 2), 'Permanent Write Protect')}",
        f"  [1:1] : {supported(_bits(v, 1, 1), 'Write Protect Until Power Supply')}",
        f"  [0:0] : {supported(_bits(v, 0, 0), 'No Write Protect and Write Protect Namespace')}",
        "",
    ]


def _ocfs(v: int) -> list[str]:
    rsvd = (v & 0xFFFC) >> 2
    return [
        *([f"  [15:2] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [1:1] : {supported(_bits(v, 1, 1), 'Controller Copy Format 1h')}",
        f"  [0:0] : {supported(_bits(v, 0, 0), 'Controller Copy Format 0h')}",
        "",
    ]


def _sgls(v: int) -> list[str]:
    rsvd0, sdt, rsvd1, sglsp = (v & 0xFFC00000) >> 22, (v >> 8) & 0xFF, (v & 0xF8) >> 3, v & 0x3
    lines = [f" [31:22]: {hash_x(rsvd0)}\tReserved"] if rsvd0 else []
    for bit, name in (
        (21, "Transport SGL Data Block Descriptor"),
        (20, "Address Offsets"),
        (19, "Metadata Pointer Containing SGL Descriptor is"),
        (18, "SGL Length Larger than Buffer"),
        (17, "Byte-Aligned Contig. MD Buffer"),
        (16, "SGL Bit-Bucket"),
    ):
        bitval = _bits(v, bit, bit)
        if sglsp or bitval:
            lines.append(f" [{bit}:{bit}]: {supported(bitval, name)}")
    lines.append(f" [15:8] : {hash_x(sdt)}\tSGL Descriptor Threshold")
    if rsvd1:
        lines.append(f" [7:3] : {hash_x(rsvd1)}\tReserved")
    key = _bits(v, 2, 2)
    if sglsp or key:
        lines.append(f"  [2:2] : {supported(key, 'Keyed SGL Data Block descriptor')}")
    if sglsp == 0x3:
        lines.append(f"  [1:0] : {hash_x(sglsp)}\tReserved")
    elif sglsp == 0x2:
        lines.append(f"  [1:0] : {hash_x(sglsp)}\tScatter-Gather Lists Supported. Dword alignment required.")
    elif sglsp == 0x1:
        lines.append(f"  [1:0] : {hash_x(sglsp)}\tScatter-Gather Lists Supported. No Dword alignment required.")
    else:
        lines.append(f" [1:0]  : {hash_x(sglsp)}\tScatter-Gather Lists Not Supported")
    return [*lines, ""]


def _fcatt(v: int) -> list[str]:
    rsvd, scm = (v & 0xFE) >> 1, v & 0x1
    return [
        *([f"  [7:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [0:0] : {hash_x(scm)}\t{'Static' if scm else 'Dynamic'} Controller Model",
        "",
    ]


def _ofcs(v: int) -> list[str]:
    rsvd, disconnect = (v & 0xFFFE) >> 1, v & 0x1
    return [
        *([f"  [15:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        # nvme-cli's "%s Supported" with "" leaves two spaces; kept.
        f"  [0:0] : {hash_x(disconnect)}\tDisconnect command {'' if disconnect else 'Not'} Supported",
        "",
    ]
