"""``nvme id-ns`` output as nvme-cli 2.3 prints it: normal, ``-H`` and ``-o json``.

Sources: ``nvme_show_id_ns`` and the ``nvme_show_id_ns_*`` decoders of nvme-cli's
``nvme-print.c`` (the v2.2/v2.3 copy also followed by :mod:`.show_id_ctrl`) for the text;
labels are 8 characters wide (``nsattr`` is followed by a tab, as in the source), sizes are
``%#"PRIx64`` (zero prints ``0``), and the LBA formats print as

* ``lbaf %2d : ms:%-3d lbads:%-2d rp:%#x %s`` (``lbaf  0 : ms:0   lbads:9  rp:0x2 (in use)``;
  a format not in use ends with a space), or with ``-H``
* ``LBA Format %2d : Metadata Size: %-3d bytes - Data Size: %-2d bytes - Relative
  Performance: %#x %s %s`` (``... Relative Performance: 0 Best`` for rp 0).

JSON follows ``json_nvme_id_ns`` of v2.3 (key order as the shared interface reference,
``interfaces.md`` §4.2, lists it): integers, ``nvmcap`` as a string (128-bit),
``eui64``/``nguid`` hex strings, ``lbafs`` as ``{"ms", "ds", "rp"}``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .cfmt import hash_x, supported
from .id_ns import format_in_use

Ns = Mapping[str, Any]

_RELATIVE_PERFORMANCE = ("Best", "Better", "Good", "Degraded")


def id_ns_text(ns: Ns, nsid: int = 1, *, human: bool = False) -> str:
    """``nvme id-ns`` (``human``: ``-H``) output for Identify Namespace data
    (:func:`.id_ns.identify_namespace`).

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_namespace
    >>> lines = id_ns_text(identify_namespace(Device("generic-tlc-1tb").identity())).splitlines()
    >>> print("\\n".join(lines[:4] + lines[-2:-1]))
    NVME Identify Namespace 1:
    nsze    : 0x74706db0
    ncap    : 0x74706db0
    nuse    : 0
    lbaf  0 : ms:0   lbads:9  rp:0x2 (in use)
    >>> lines[-1]  # a format not in use ends with a space
    'lbaf  1 : ms:0   lbads:12 rp:0x1 '
    """
    out = [f"NVME Identify Namespace {nsid}:"]

    def field(name: str, value: str, decode: Callable[[int], list[str]] | None = None) -> None:
        out.append(f"{name:<8}: {value}")
        if human and decode is not None:
            out.extend(decode(ns[name]))

    field("nsze", hash_x(ns["nsze"]))
    field("ncap", hash_x(ns["ncap"]))
    field("nuse", hash_x(ns["nuse"]))
    field("nsfeat", hash_x(ns["nsfeat"]), _nsfeat)
    field("nlbaf", str(ns["nlbaf"]))
    field("flbas", hash_x(ns["flbas"]), _flbas)
    field("mc", hash_x(ns["mc"]), _mc)
    field("dpc", hash_x(ns["dpc"]), _dpc)
    field("dps", hash_x(ns["dps"]), _dps)
    field("nmic", hash_x(ns["nmic"]), _nmic)
    field("rescap", hash_x(ns["rescap"]), _rescap)
    field("fpi", hash_x(ns["fpi"]), _fpi)
    field("dlfeat", str(ns["dlfeat"]), _dlfeat)
    for name in ("nawun", "nawupf", "nacwu", "nabsn", "nabo", "nabspf", "noiob", "nvmcap"):
        field(name, str(ns[name]))
    if ns["nsfeat"] & 0x10:
        for name in ("npwg", "npwa", "npdg", "npda", "nows"):
            field(name, str(ns[name]))
    for name in ("mssrl", "mcl", "msrc", "nulbaf", "anagrpid"):
        field(name, str(ns[name]))
    out.append(f"nsattr\t: {ns['nsattr']}")
    field("nvmsetid", str(ns["nvmsetid"]))
    field("endgid", str(ns["endgid"]))
    field("nguid", ns["nguid"])
    field("eui64", ns["eui64"])
    in_use = format_in_use(ns["flbas"])
    for i, lbaf in enumerate(ns["lbaf"][: ns["nlbaf"] + ns["nulbaf"] + 1]):
        mark = "(in use)" if i == in_use else ""
        rp = lbaf["rp"]
        if human:
            out.append(
                f"LBA Format {i:2d} : Metadata Size: {lbaf['ms']:<3d} bytes - Data Size: {1 << lbaf['ds']:<2d} bytes"
                f" - Relative Performance: {hash_x(rp)} {_RELATIVE_PERFORMANCE[rp & 0x3]} {mark}"
            )
        else:
            out.append(f"lbaf {i:2d} : ms:{lbaf['ms']:<3d} lbads:{lbaf['ds']:<2d} rp:{hash_x(rp)} {mark}")
    return "\n".join(out) + "\n"


def id_ns_json(ns: Ns) -> dict[str, Any]:
    """``nvme id-ns -o json`` as nvme-cli 2.3 builds it (print with :func:`.jsonc.dumps`).

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_namespace
    >>> j = id_ns_json(identify_namespace(Device("generic-tlc-1tb").identity()))
    >>> j["nsze"], j["nvmcap"], j["lbafs"]
    (1953525168, '1000204886016', [{'ms': 0, 'ds': 9, 'rp': 2}, {'ms': 0, 'ds': 12, 'rp': 1}])
    """
    keys = list(_JSON_KEYS_HEAD)
    if ns["nsfeat"] & 0x10:
        keys += ["npwg", "npwa", "npdg", "npda", "nows"]
    keys += _JSON_KEYS_TAIL
    out: dict[str, Any] = {key: str(ns[key]) if key == "nvmcap" else ns[key] for key in keys}
    out["lbafs"] = [{"ms": f["ms"], "ds": f["ds"], "rp": f["rp"]} for f in ns["lbaf"][: ns["nlbaf"] + 1]]
    return out


#: ``json_nvme_id_ns`` of v2.3, around the fields present only with ``nsfeat`` bit 4.
_JSON_KEYS_HEAD = [
    "nsze",
    "ncap",
    "nuse",
    "nsfeat",
    "nlbaf",
    "flbas",
    "mc",
    "dpc",
    "dps",
    "nmic",
    "rescap",
    "fpi",
    "dlfeat",
    "nawun",
    "nawupf",
    "nacwu",
    "nabsn",
    "nabo",
    "nabspf",
    "noiob",
    "nvmcap",
    "nsattr",
    "nvmsetid",
]
_JSON_KEYS_TAIL = ["mssrl", "mcl", "msrc", "nulbaf", "anagrpid", "endgid", "eui64", "nguid"]


# ---- -H decoders (nvme_show_id_ns_*) ----------------------------------------------------------


def _nsfeat(v: int) -> list[str]:
    rsvd, ioopt, reuse, dulbe, na, thin = (v & 0xE0) >> 5, (v >> 4) & 1, (v >> 3) & 1, (v >> 2) & 1, (v >> 1) & 1, v & 1
    return [
        *([f"  [7:5] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [4:4] : {supported(ioopt, 'NPWG, NPWA, NPDG, NPDA, and NOWS are')}",
        f"  [3:3] : {hash_x(reuse)}\tNGUID and EUI64 fields if non-zero, {'Never ' if reuse else ''}Reused",
        f"  [2:2] : {supported(dulbe, 'Deallocated or Unwritten Logical Block error')}",
        f"  [1:1] : {hash_x(na)}\tNamespace uses {'NAWUN, NAWUPF, and NACWU' if na else 'AWUN, AWUPF, and ACWU'}",
        f"  [0:0] : {supported(thin, 'Thin Provisioning')}",
        "",
    ]


def _flbas(v: int) -> list[str]:
    rsvd, mdedata = (v & 0x80) >> 7, (v & 0x10) >> 4
    where = "at End of Data LBA" if mdedata else "in Separate Contiguous Buffer"
    return [
        *([f"  [7:7] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [6:5] : {hash_x((v & 0x60) >> 5)}\tMost significant 2 bits of Current LBA Format Selected",
        f"  [4:4] : {hash_x(mdedata)}\tMetadata Transferred {where}",
        f"  [3:0] : {hash_x(v & 0xF)}\tLeast significant 4 bits of Current LBA Format Selected",
        "",
    ]


def _mc(v: int) -> list[str]:
    rsvd = (v & 0xFC) >> 2
    return [
        *([f"  [7:2] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [1:1] : {supported((v >> 1) & 1, 'Metadata Pointer')}",
        f"  [0:0] : {supported(v & 1, 'Metadata as Part of Extended Data LBA')}",
        "",
    ]


def _dpc(v: int) -> list[str]:
    rsvd = (v & 0xE0) >> 5
    pi = "Protection Information"
    return [
        *([f"  [7:5] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [4:4] : {supported((v >> 4) & 1, f'{pi} Transferred as Last 8 Bytes of Metadata')}",
        f"  [3:3] : {supported((v >> 3) & 1, f'{pi} Transferred as First 8 Bytes of Metadata')}",
        f"  [2:2] : {supported((v >> 2) & 1, f'{pi} Type 3')}",
        f"  [1:1] : {supported((v >> 1) & 1, f'{pi} Type 2')}",
        f"  [0:0] : {supported(v & 1, f'{pi} Type 1')}",
        "",
    ]


def _dps(v: int) -> list[str]:
    rsvd, first, pit = (v & 0xF0) >> 4, (v >> 3) & 1, v & 0x7
    kind = {3: "Type 3 Enabled", 2: "Type 2 Enabled", 1: "Type 1 Enabled", 0: "Disabled"}.get(pit, "Reserved Enabled")
    return [
        *([f"  [7:4] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [3:3] : {hash_x(first)}\tProtection Information is Transferred as {'First' if first else 'Last'}"
        " 8 Bytes of Metadata",
        f"  [2:0] : {hash_x(pit)}\tProtection Information {kind}",
        "",
    ]


def _nmic(v: int) -> list[str]:
    rsvd, mp = (v & 0xFE) >> 1, v & 1
    return [
        *([f"  [7:1] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [0:0] : {hash_x(mp)}\tNamespace Multipath {'' if mp else 'Not '}Capable",
        "",
    ]


def _rescap(v: int) -> list[str]:
    iekr = (v & 0x80) >> 7
    return [
        f"  [7:7] : {hash_x(iekr)}\tIgnore Existing Key - Used as defined in revision "
        f"{'1.3 or later' if iekr else '1.2.1 or earlier'}",
        f"  [6:6] : {supported((v >> 6) & 1, 'Exclusive Access - All Registrants')}",
        f"  [5:5] : {supported((v >> 5) & 1, 'Write Exclusive - All Registrants')}",
        f"  [4:4] : {supported((v >> 4) & 1, 'Exclusive Access - Registrants Only')}",
        f"  [3:3] : {supported((v >> 3) & 1, 'Write Exclusive - Registrants Only')}",
        f"  [2:2] : {supported((v >> 2) & 1, 'Exclusive Access')}",
        f"  [1:1] : {supported((v >> 1) & 1, 'Write Exclusive')}",
        f"  [0:0] : {supported(v & 1, 'Persist Through Power Loss')}",
        "",
    ]


def _fpi(v: int) -> list[str]:
    fpis, fpii = (v & 0x80) >> 7, v & 0x7F
    lines = [f"  [7:7] : {supported(fpis, 'Format Progress Indicator')}"]
    if fpis or fpii:
        lines.append(f"  [6:0] : {hash_x(fpii)}\tFormat Progress Indicator (Remaining {fpii}%)")
    return [*lines, ""]


def _dlfeat(v: int) -> list[str]:
    rsvd, guard, dwz, val = (v & 0xE0) >> 5, (v >> 4) & 1, (v >> 3) & 1, v & 0x7
    reads = {2: "0xFF", 1: "0x00", 0: "Not Reported"}.get(val, "Reserved Value")
    return [
        *([f"  [7:5] : {hash_x(rsvd)}\tReserved"] if rsvd else []),
        f"  [4:4] : {hash_x(guard)}\tGuard Field of Deallocated Logical Blocks is set to "
        f"{'CRC of The Value Read' if guard else '0xFFFF'}",
        f"  [3:3] : {supported(dwz, 'Deallocate Bit in the Write Zeroes Command is')}",
        f"  [2:0] : {hash_x(val)}\tBytes Read From a Deallocated Logical Block and its Metadata are {reads}",
        "",
    ]
