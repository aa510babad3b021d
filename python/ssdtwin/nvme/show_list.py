"""``nvme list`` output as nvme-cli 2.3 prints it: the plain table and ``-o json``.

Source: ``nvme_show_simple_list``, ``nvme_show_list_item`` and ``json_simple_list`` /
``json_list_item`` in nvme-cli's ``nvme-print.c`` (the v2.2/v2.3 copy also followed by
:mod:`.show_id_ctrl`), with ``util/suffix.c`` for the units:

* header and rows ``%-21s %-21s %-20s %-40s %-9s %-26s %-16s %-8s`` (Node, Generic, SN,
  Model, Namespace, Usage, Format, FW Rev), under a rule of dashes of each width;
* Usage ``%6.2f %2sB / %6.2f %2sB``: bytes in use and namespace bytes with SI prefixes
  (``k``, ``M``, ``G``, ``T``; powers of 1000), e.g. ``  0.00   B / 256.06  GB``;
* Format ``%3.0f %2sB + %2d B``: the LBA size with binary prefixes and the metadata bytes,
  ``512   B +  0 B`` or ``  4 KiB +  0 B``.

The strings come from sysfs, where Linux trims the identify fields' trailing spaces. The
JSON is the simple form; v2.3 has no ``GenericPath`` (added in v2.4) and prints the byte
counts as 64-bit integers (the 32-bit overflow was fixed in v2.3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import constants as k
from .cfmt import suffix_binary, suffix_si
from .id_ns import format_in_use

_ROW = "{:<21} {:<21} {:<20} {:<40} {:<9} {:<26} {:<16} {:<8}"
_WIDTHS = (21, 21, 20, 40, 9, 26, 16, 8)


def _sizes(ns: Mapping[str, Any]) -> tuple[int, int, int, int]:
    """LBA bytes, metadata bytes, namespace bytes and bytes in use."""
    lbaf = ns["lbaf"][format_in_use(ns["flbas"])]
    lba = 1 << lbaf["ds"]
    return lba, lbaf["ms"], ns["nsze"] * lba, ns["nuse"] * lba


def list_text(ctrl: Mapping[str, Any], ns: Mapping[str, Any]) -> str:
    """``nvme list`` for the one namespace of a controller (:mod:`.id_ctrl`, :mod:`.id_ns`).

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_controller, identify_namespace
    >>> dev = Device("p32a80")
    >>> ctrl, ns = identify_controller(dev.identity()), identify_namespace(dev.identity())
    >>> header, rule, row = list_text(ctrl, ns).splitlines()
    >>> row[:65].rstrip()
    '/dev/nvme0n1          /dev/ng0n1            SSDTWIN00P32A80'
    >>> row[106:]
    '1           0.00   B / 256.06  GB    512   B +  0 B   SSDTWIN1'
    """
    lba, ms, size, used = _sizes(ns)
    used_value, used_suffix = suffix_si(used)
    size_value, size_suffix = suffix_si(size)
    lba_value, lba_suffix = suffix_binary(lba)
    usage = f"{used_value:6.2f} {used_suffix:>2}B / {size_value:6.2f} {size_suffix:>2}B"
    fmt = f"{float(lba_value):3.0f} {lba_suffix:>2}B + {ms:2d} B"
    rows = [
        _ROW.format("Node", "Generic", "SN", "Model", "Namespace", "Usage", "Format", "FW Rev"),
        " ".join("-" * w for w in _WIDTHS),
        _ROW.format(
            k.DEVICE_PATH,
            k.GENERIC_PATH,
            ctrl["sn"].rstrip(),
            ctrl["mn"].rstrip(),
            k.NSID,
            usage,
            fmt,
            ctrl["fr"].rstrip(),
        ),
    ]
    return "\n".join(rows) + "\n"


def list_json(ctrl: Mapping[str, Any], ns: Mapping[str, Any]) -> dict[str, Any]:
    """``nvme list -o json`` (the simple form) of nvme-cli 2.3.

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_controller, identify_namespace
    >>> dev = Device("p32a80")
    >>> list_json(identify_controller(dev.identity()), identify_namespace(dev.identity()))["Devices"][0]
    {'NameSpace': 1, 'DevicePath': '/dev/nvme0n1', 'Firmware': 'SSDTWIN1', 'ModelNumber': 'SPCC M.2 PCIe SSD',
     'SerialNumber': 'SSDTWIN00P32A80', 'UsedBytes': 0, 'MaximumLBA': 500118192, 'PhysicalSize': 256060514304,
     'SectorSize': 512}
    """
    lba, _, size, used = _sizes(ns)
    device = {
        "NameSpace": k.NSID,
        "DevicePath": k.DEVICE_PATH,
        "Firmware": ctrl["fr"].rstrip(),
        "ModelNumber": ctrl["mn"].rstrip(),
        "SerialNumber": ctrl["sn"].rstrip(),
        "UsedBytes": used,
        "MaximumLBA": ns["nsze"],
        "PhysicalSize": size,
        "SectorSize": lba,
    }
    return {"Devices": [device]}
