"""Identify Namespace data and ``nvme id-ns`` output (``ssdtwin.nvme.id_ns``,
``ssdtwin.nvme.show_id_ns``) against nvme-cli 2.3's ``nvme_show_id_ns`` and the v2.3 JSON key
list (interfaces §4.2)."""

from __future__ import annotations

import json
from typing import Any

import ssdtwin
from ssdtwin.nvme import dumps, id_ns_json, id_ns_text, identify_namespace

#: nvme_show_id_ns's fields (nsfeat bit 4 clear), in print order; "nsattr" is followed by a tab.
TEXT_FIELDS = [
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
    "mssrl",
    "mcl",
    "msrc",
    "nulbaf",
    "anagrpid",
    "nsattr",
    "nvmsetid",
    "endgid",
    "nguid",
    "eui64",
]
#: json_nvme_id_ns of v2.3 (interfaces §4.2), nsfeat bit 4 clear.
JSON_KEYS = [
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
    "mssrl",
    "mcl",
    "msrc",
    "nulbaf",
    "anagrpid",
    "endgid",
    "eui64",
    "nguid",
    "lbafs",
]


def ns_of(device: ssdtwin.Device) -> dict[str, Any]:
    return identify_namespace(device.identity())


def test_sizes_count_blocks_of_the_format_in_use(small_device: ssdtwin.Device) -> None:
    ns = ns_of(ssdtwin.Device("generic-tlc-1tb"))
    assert (ns["nsze"], ns["ncap"], ns["nuse"], ns["nvmcap"]) == (1_953_525_168, 1_953_525_168, 0, 1_000_204_886_016)
    assert (ns["nlbaf"], ns["flbas"]) == (1, 0)
    assert ns["lbaf"] == [{"ms": 0, "ds": 9, "rp": 2}, {"ms": 0, "ds": 12, "rp": 1}]
    # The small drive: 72 MiB in 512 B blocks, then in 4 KiB blocks.
    assert ns_of(small_device)["nsze"] == 147_456
    small_device.format(1)
    ns = ns_of(small_device)
    assert (ns["nsze"], ns["ncap"], ns["flbas"]) == (18_432, 18_432, 1)


def test_nuse_counts_the_blocks_the_map_holds(small: dict[str, object]) -> None:
    dev = ssdtwin.Device(overrides=small)
    dev.fill("seq", percent=50)
    ns = ns_of(dev)
    assert ns["nuse"] == dev.identity()["mapped_units"] * 8 == ns["nsze"] // 2
    dev.format()
    assert ns_of(dev)["nuse"] == 0


def test_text_fields_labels_and_the_zero_trap() -> None:
    lines = id_ns_text(ns_of(ssdtwin.Device("p32a80"))).splitlines()
    assert lines[0] == "NVME Identify Namespace 1:"
    fields = lines[1:-1]
    assert [ln.split(":")[0].rstrip() for ln in fields] == TEXT_FIELDS
    assert all(ln[8:10] == ": " for ln in fields if not ln.startswith("nsattr"))
    assert "nsattr\t: 0" in fields
    assert fields[:4] == ["nsze    : 0x1dcf32b0", "ncap    : 0x1dcf32b0", "nuse    : 0", "nsfeat  : 0"]
    assert "nvmcap  : 256060514304" in fields
    assert fields[-2:] == ["nguid   : " + "0" * 32, "eui64   : " + "0" * 16]
    # rp 0 prints as "0", not "0x0".
    assert lines[-1] == "lbaf  0 : ms:0   lbads:9  rp:0 (in use)"


def test_lbaf_lines_plain_and_human(small_device: ssdtwin.Device) -> None:
    dev = small_device  # the shipped generic drive's formats, but quick to format
    assert id_ns_text(ns_of(dev)).splitlines()[-2:] == [
        "lbaf  0 : ms:0   lbads:9  rp:0x2 (in use)",
        "lbaf  1 : ms:0   lbads:12 rp:0x1 ",
    ]
    assert id_ns_text(ns_of(dev), human=True).splitlines()[-2:] == [
        "LBA Format  0 : Metadata Size: 0   bytes - Data Size: 512 bytes - Relative Performance: 0x2 Good (in use)",
        "LBA Format  1 : Metadata Size: 0   bytes - Data Size: 4096 bytes - Relative Performance: 0x1 Better ",
    ]
    dev.format(1)
    assert id_ns_text(ns_of(dev)).splitlines()[-2:] == [
        "lbaf  0 : ms:0   lbads:9  rp:0x2 ",
        "lbaf  1 : ms:0   lbads:12 rp:0x1 (in use)",
    ]
    p32 = id_ns_text(ns_of(ssdtwin.Device("p32a80")), human=True).splitlines()
    assert p32[-1] == (
        "LBA Format  0 : Metadata Size: 0   bytes - Data Size: 512 bytes - Relative Performance: 0 Best (in use)"
    )


def test_relative_performance_names_and_metadata() -> None:
    formats = [
        {"data_bytes": 512, "metadata_bytes": 8, "relative_performance": 3},
        {"data_bytes": 4096, "metadata_bytes": 64, "relative_performance": 0},
    ]
    dev = ssdtwin.Device("generic-tlc-1tb", namespace__lba_formats=formats)
    assert id_ns_text(ns_of(dev), human=True).splitlines()[-2:] == [
        "LBA Format  0 : Metadata Size: 8   bytes - Data Size: 512 bytes - Relative Performance: 0x3 Degraded (in use)",
        "LBA Format  1 : Metadata Size: 64  bytes - Data Size: 4096 bytes - Relative Performance: 0 Best ",
    ]
    assert id_ns_text(ns_of(dev)).splitlines()[-2:] == [
        "lbaf  0 : ms:8   lbads:9  rp:0x3 (in use)",
        "lbaf  1 : ms:64  lbads:12 rp:0 ",
    ]


def test_human_flbas_and_nsfeat_decodes() -> None:
    text = id_ns_text(ns_of(ssdtwin.Device("generic-tlc-1tb")), human=True)
    assert (
        "flbas   : 0\n"
        "  [6:5] : 0\tMost significant 2 bits of Current LBA Format Selected\n"
        "  [4:4] : 0\tMetadata Transferred in Separate Contiguous Buffer\n"
        "  [3:0] : 0\tLeast significant 4 bits of Current LBA Format Selected\n"
        "\n"
        "mc      : 0\n"
    ) in text
    assert (
        "nsfeat  : 0\n"
        "  [4:4] : 0\tNPWG, NPWA, NPDG, NPDA, and NOWS are Not Supported\n"
        "  [3:3] : 0\tNGUID and EUI64 fields if non-zero, Reused\n"
        "  [2:2] : 0\tDeallocated or Unwritten Logical Block error Not Supported\n"
        "  [1:1] : 0\tNamespace uses AWUN, AWUPF, and ACWU\n"
        "  [0:0] : 0\tThin Provisioning Not Supported\n"
        "\n"
        "nlbaf   : 1\n"
    ) in text
    assert "fpi     : 0\n  [7:7] : 0\tFormat Progress Indicator Not Supported\n\ndlfeat  : 0\n" in text
    assert "dps     : 0\n  [3:3] : 0\tProtection Information is Transferred as Last 8 Bytes of Metadata\n" in text


def test_json_keys_order_and_types_are_v2_3s() -> None:
    dev = ssdtwin.Device("generic-tlc-1tb")
    j = id_ns_json(ns_of(dev))
    assert list(j) == JSON_KEYS
    strings = {"nvmcap", "eui64", "nguid"}
    for key, v in j.items():
        assert type(v) is (str if key in strings else list if key == "lbafs" else int), key
    assert (j["nsze"], j["nvmcap"], j["flbas"]) == (1_953_525_168, "1000204886016", 0)
    assert j["lbafs"] == [{"ms": 0, "ds": 9, "rp": 2}, {"ms": 0, "ds": 12, "rp": 1}]
    assert (len(j["eui64"]), len(j["nguid"])) == (16, 32)
    assert json.loads(dumps(j)) == j
