"""``nvme list`` (``ssdtwin.nvme.show_list``) against nvme-cli 2.3's ``nvme_show_simple_list``:
column widths, SI usage and binary format units, the simple JSON."""

from __future__ import annotations

import ssdtwin
from ssdtwin.nvme import identify_controller, identify_namespace, list_json, list_text

HEADER = (
    "Node                  Generic               SN                   Model                                    "
    "Namespace Usage                      Format           FW Rev  "
)
RULE = " ".join("-" * w for w in (21, 21, 20, 40, 9, 26, 16, 8))


def listing(dev: ssdtwin.Device) -> list[str]:
    identity = dev.identity()
    return list_text(identify_controller(identity), identify_namespace(identity)).splitlines()


def columns(row: str) -> list[str]:
    """The eight fixed-width columns of a row."""
    out, at = [], 0
    for width in (21, 21, 20, 40, 9, 26, 16, 8):
        out.append(row[at : at + width])
        at += width + 1
    return out


def test_header_rule_and_row_widths() -> None:
    header, rule, row = listing(ssdtwin.Device("p32a80"))
    assert header == HEADER and rule == RULE
    assert columns(row) == [
        "/dev/nvme0n1".ljust(21),
        "/dev/ng0n1".ljust(21),
        "SSDTWIN00P32A80".ljust(20),
        "SPCC M.2 PCIe SSD".ljust(40),
        "1".ljust(9),
        "  0.00   B / 256.06  GB".ljust(26),
        "512   B +  0 B".ljust(16),
        "SSDTWIN1",
    ]


def test_usage_in_si_units_and_format_in_binary_units(small_device: ssdtwin.Device) -> None:
    dev = ssdtwin.Device("generic-tlc-1tb")
    dev.fill("seq", percent=1)
    row = columns(listing(dev)[2])
    # 1 % of 1,000,204,886,016 bytes, in whole 4 KiB map units: 10,002,046,976 bytes.
    assert row[5] == " 10.00  GB /   1.00  TB   "
    assert row[6] == "512   B +  0 B  "
    small_device.fill("seq", percent=50)
    small_device.format(1)
    row = columns(listing(small_device)[2])
    assert row[5] == "  0.00   B /  75.50  MB   "
    assert row[6] == "  4 KiB +  0 B  "


def test_kilo_is_lower_case() -> None:
    dev = ssdtwin.Device("generic-tlc-1tb")
    dev.run({"rw": "write", "bs": "4k", "size": "4k", "iodepth": 1})
    assert columns(listing(dev)[2])[5].startswith("  4.10  kB / ")


def test_json_simple_form(small_device: ssdtwin.Device) -> None:
    dev = small_device
    dev.fill("seq", percent=50)
    dev.format(1)
    dev.fill("seq", percent=25)
    identity = dev.identity()
    j = list_json(identify_controller(identity), identify_namespace(identity))
    (device,) = j["Devices"]
    assert list(device) == [
        "NameSpace",
        "DevicePath",
        "Firmware",
        "ModelNumber",
        "SerialNumber",
        "UsedBytes",
        "MaximumLBA",
        "PhysicalSize",
        "SectorSize",
    ]
    assert device["ModelNumber"] == "ssdtwin Generic TLC 1TB" and device["Firmware"] == "GEN1.0"
    assert (device["MaximumLBA"], device["SectorSize"], device["PhysicalSize"]) == (18_432, 4096, 75_497_472)
    assert device["UsedBytes"] == identity["mapped_units"] * 4096 == 75_497_472 // 4
