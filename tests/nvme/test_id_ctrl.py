"""Identify Controller data and ``nvme id-ctrl`` output (``ssdtwin.nvme.id_ctrl``,
``ssdtwin.nvme.show_id_ctrl``), line by line against nvme-cli 2.3's ``nvme-print.c`` and the
v2.3 JSON key list (interfaces §4.1)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import ssdtwin
from ssdtwin.nvme import dumps, id_ctrl_json, id_ctrl_text, identify_controller

#: nvme_show_id_ctrl's fields, in print order.
TEXT_FIELDS = [
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
#: json_nvme_id_ctrl of v2.3 (interfaces §4.1): the order, then psds.
JSON_KEYS = [
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
    "psds",
]
PSD_KEYS = [
    "max_power",
    "flags",
    "entry_lat",
    "exit_lat",
    "read_tput",
    "read_lat",
    "write_tput",
    "write_lat",
    "idle_power",
    "idle_scale",
    "active_power",
    "active_power_work",
    "active_scale",
]
#: 128-bit fields, JSON strings in v2.3; the ASCII fields and subnqn are strings too.
STRING_KEYS = {"sn", "mn", "fr", "fguid", "tnvmcap", "unvmcap", "megcap", "maxdna", "subnqn"}


def ctrl_of(profile: str = "p32a80", **overrides: Any) -> dict[str, Any]:
    return identify_controller(ssdtwin.Device(profile, **overrides).identity())


def lines_of(profile: str = "p32a80", *, human: bool = False, **overrides: Any) -> list[str]:
    return id_ctrl_text(ctrl_of(profile, **overrides), human=human).splitlines()


def value(lines: list[str], field: str) -> str:
    (line,) = [ln for ln in lines if ln.startswith(f"{field:<10}: ")]
    return line[12:]


# ---- the data ----------------------------------------------------------------------------------


def test_hmb_fields_are_the_profiles_request() -> None:
    c = ctrl_of("p32a80")
    assert (c["hmpre"], c["hmmin"], c["hmminds"], c["hmmaxd"]) == (61440, 2048, 0, 0)
    c = ctrl_of("generic-tlc-1tb", identity__hmpre=8192, identity__hmmin=1024, identity__hmminds=64, identity__hmmaxd=8)
    assert (c["hmpre"], c["hmmin"], c["hmminds"], c["hmmaxd"]) == (8192, 1024, 64, 8)


def test_identity_strings_ids_and_capacity_come_from_the_profile() -> None:
    c = ctrl_of("p32a80")
    assert (c["vid"], c["ssvid"], c["ieee"], c["mdts"], c["ver"]) == (0x1987, 0x1987, 0x6479A7, 5, 0x10300)
    assert (c["sn"], c["mn"], c["fr"]) == ("SSDTWIN00P32A80".ljust(20), "SPCC M.2 PCIe SSD".ljust(40), "SSDTWIN1")
    assert (c["tnvmcap"], c["unvmcap"]) == (256_060_514_304, 0)
    assert c["vwc"] == 0x1, "no power-loss protection: a volatile write cache"
    assert ctrl_of("generic-tlc-1tb", controller__power_protected=True)["vwc"] == 0


def test_controller_type_and_subsystem_nqn_follow_the_nvme_version() -> None:
    assert ctrl_of("p32a80")["cntrltype"] == 0  # NVMe 1.3
    assert ctrl_of("generic-tlc-1tb")["cntrltype"] == 1  # NVMe 1.4: I/O controller
    assert ctrl_of("p32a80")["subnqn"] == (
        "nqn.2014.08.org.nvmexpress:19871987" + "SSDTWIN00P32A80".ljust(20) + "SPCC M.2 PCIe SSD".ljust(40)
    )
    assert ctrl_of("wd-black-256")["subnqn"] == "", "NVMe 1.2 predates the mandatory NQN"


def test_unset_thresholds_and_power_states_report_the_models_defaults() -> None:
    c = ctrl_of("generic-tlc-1tb", identity__power_states=[])
    assert (c["wctemp"], c["cctemp"]) == (343, 358)
    assert c["npss"] == 0
    assert c["psd"][0]["mp"] == 600 and c["psd"][0]["flags"] == 0
    # No non-operational state: no APST; no HCTM range: no HCTM.
    assert (c["apsta"], c["hctma"], c["mntmt"], c["mxtmt"]) == (0, 0, 0, 0)


def test_apst_and_hctm_support_follow_the_profile() -> None:
    states = [{"max_power_mw": 8000}, {"max_power_mw": 5, "non_operational": True, "exit_latency_us": 8000}]
    hctm = {"thermal__hctm_min_kelvin": 273, "thermal__hctm_max_kelvin": 358}
    c = ctrl_of("generic-tlc-1tb", identity__power_states=states, **hctm)
    assert (c["apsta"], c["hctma"], c["mntmt"], c["mxtmt"]) == (1, 1, 273, 358)


def test_profile_thresholds_and_power_states_are_reported() -> None:
    states = [
        {"max_power_mw": 8000},
        {"max_power_mw": 3500, "entry_latency_us": 0, "exit_latency_us": 0},
        {"max_power_mw": 70, "non_operational": True, "entry_latency_us": 210, "exit_latency_us": 1200},
        {"max_power_mw": 5, "non_operational": True, "entry_latency_us": 2000, "exit_latency_us": 8000},
    ]
    c = ctrl_of("p32a80", identity__wctemp_kelvin=354, identity__cctemp_kelvin=355, identity__power_states=states)
    assert (c["wctemp"], c["cctemp"], c["npss"]) == (354, 355, 3)
    assert [(ps["mp"], ps["flags"], ps["enlat"], ps["exlat"]) for ps in c["psd"]] == [
        (800, 0, 0, 0),
        (350, 0, 0, 0),
        (7, 2, 210, 1200),
        (50, 3, 2000, 8000),
    ]


# ---- text --------------------------------------------------------------------------------------


def test_every_field_prints_once_in_order_with_a_10_wide_label() -> None:
    lines = lines_of("p32a80")
    assert lines[0] == "NVME Identify Controller:"
    fields = lines[1:-3]
    assert [ln[:10].rstrip() for ln in fields] == TEXT_FIELDS
    assert all(ln[10:12] == ": " for ln in fields)


def test_text_values_and_the_zero_trap() -> None:
    lines = lines_of("p32a80")
    expected = {
        "vid": "0x1987",
        "ssvid": "0x1987",
        "sn": "SSDTWIN00P32A80     ",
        "mn": "SPCC M.2 PCIe SSD                       ",
        "fr": "SSDTWIN1",
        "rab": "0",
        "ieee": "6479a7",
        "cmic": "0",  # %#x of zero is "0", never "0x0"
        "mdts": "5",
        "cntlid": "0x1",
        "ver": "0x10300",
        "rtd3r": "0",
        "oaes": "0",
        "fguid": "0",
        "oacs": "0x2",
        "frmw": "0x2",
        "lpa": "0",
        "elpe": "63",
        "npss": "0",
        "avscc": "0x1",
        "wctemp": "343",
        "cctemp": "353",
        "hmpre": "61440",
        "hmmin": "2048",
        "tnvmcap": "256060514304",
        "unvmcap": "0",
        "hmminds": "0",
        "hmmaxd": "0",
        "sqes": "0x66",
        "cqes": "0x44",
        "nn": "1",
        "oncs": "0x4",
        "vwc": "0x1",
        "icsvscc": "1",
        "sgls": "0",
        "megcap": "0",
        "ofcs": "0",
    }
    assert {field: value(lines, field) for field in expected} == expected
    assert not any("0x0" in ln for ln in lines)


def test_power_state_lines() -> None:
    assert lines_of("p32a80")[-3:] == [
        "ps      0 : mp:6.00W operational enlat:0 exlat:0 rrt:0 rrl:0",
        "            rwt:0 rwl:0 idle_power:- active_power:-",
        "            active_power_workload:-",
    ]
    states = [{"max_power_mw": 8490}, {"max_power_mw": 5, "non_operational": True, "exit_latency_us": 8000}]
    lines = lines_of("p32a80", identity__power_states=states)
    assert lines[-6] == "ps      0 : mp:8.49W operational enlat:0 exlat:0 rrt:0 rrl:0"
    assert lines[-3:] == [
        "ps      1 : mp:0.0050W non-operational enlat:0 exlat:8000 rrt:1 rrl:1",
        "            rwt:1 rwl:1 idle_power:- active_power:-",
        "            active_power_workload:-",
    ]


def test_human_readable_decodes_as_nvme_cli() -> None:
    text = id_ctrl_text(ctrl_of("p32a80"), human=True)
    blocks = {
        "cmic      : 0\n": "  [3:3] : 0\tANA not supported\n  [2:2] : 0\tPCI\n  [1:1] : 0\tSingle Controller\n"
        "  [0:0] : 0\tSingle Port\n\n",
        # No blank line after the controller type (nvme-cli prints none).
        "cntrltype : 0\n": "  [7:2] : 0\tReserved\n  [1:0] : 0\tController type not reported\nfguid     : 0\n",
        "oacs      : 0x2\n": "  [10:10] : 0\tLockdown Command and Feature Not Supported\n"
        "  [9:9] : 0\tGet LBA Status Capability Not Supported\n"
        "  [8:8] : 0\tDoorbell Buffer Config Not Supported\n"
        "  [7:7] : 0\tVirtualization Management Not Supported\n"
        "  [6:6] : 0\tNVMe-MI Send and Receive Not Supported\n"
        "  [5:5] : 0\tDirectives Not Supported\n"
        "  [4:4] : 0\tDevice Self-test Not Supported\n"
        "  [3:3] : 0\tNS Management and Attachment Not Supported\n"
        "  [2:2] : 0\tFW Commit and Download Not Supported\n"
        "  [1:1] : 0x1\tFormat NVM Supported\n"
        "  [0:0] : 0\tSecurity Send and Receive Not Supported\n\n",
        "frmw      : 0x2\n": "  [5:5] : 0\tMultiple FW or Boot Update Detection Not Supported\n"
        "  [4:4] : 0\tFirmware Activate Without Reset Not Supported\n"
        "  [3:1] : 0x1\tNumber of Firmware Slots\n"
        "  [0:0] : 0\tFirmware Slot 1 Read/Write\n\n",
        "elpe      : 63\n": "  [7:0] : 63 (0's based)\tError Log Page Entries (ELPE)\n\n",
        "wctemp    : 343\n": " [15:0] : 70°C (343 Kelvin)\tWarning Composite Temperature Threshold (WCTEMP)\n\n",
        "mntmt     : 0\n": " [15:0] : -273°C (0 Kelvin)\tMinimum Thermal Management Temperature (MNTMT)\n\n",
        # No decode for the HMB sizes in nvme-cli 2.3.
        "hmpre     : 61440\n": "hmmin     : 2048\ntnvmcap   : 256060514304\n"
        "[127:0] : 256060514304\tTotal NVM Capacity (TNVMCAP)\n\n",
        "sqes      : 0x66\n": "  [7:4] : 0x6\tMax SQ Entry Size (64)\n  [3:0] : 0x6\tMin SQ Entry Size (64)\n\n",
        "oncs      : 0x4\n": "  [8:8] : 0\tCopy Not Supported\n  [7:7] : 0\tVerify Not Supported\n"
        "  [6:6] : 0\tTimestamp Not Supported\n  [5:5] : 0\tReservations Not Supported\n"
        "  [4:4] : 0\tSave and Select Not Supported\n  [3:3] : 0\tWrite Zeroes Not Supported\n"
        "  [2:2] : 0x1\tData Set Management Supported\n  [1:1] : 0\tWrite Uncorrectable Not Supported\n"
        "  [0:0] : 0\tCompare Not Supported\n\n",
        "fna       : 0\n": "  [3:3] : 0\tFormat NVM Broadcast NSID (FFFFFFFFh) Supported\n"
        "  [2:2] : 0\tCrypto Erase Not Supported as part of Secure Erase\n"
        "  [1:1] : 0\tCrypto Erase Applies to Single Namespace(s)\n"
        "  [0:0] : 0\tFormat Applies to Single Namespace(s)\n\n",
        "vwc       : 0x1\n": "  [2:1] : 0\tSupport for the NSID field set to FFFFFFFFh is not indicated\n"
        "  [0:0] : 0x1\tVolatile Write Cache Present\n\n",
        "sgls      : 0\n": " [15:8] : 0\tSGL Descriptor Threshold\n [1:0]  : 0\tScatter-Gather Lists Not Supported\n\n",
        "ofcs      : 0\n": "  [0:0] : 0\tDisconnect command Not Supported\n\nps      0 : mp:6.00W",
    }
    for head, decode in blocks.items():
        assert head + decode in text, head


def test_human_readable_adds_only_decode_lines() -> None:
    plain = lines_of("generic-tlc-1tb")
    human = lines_of("generic-tlc-1tb", human=True)
    decodes = [ln for ln in human if ln not in plain]
    assert all(ln == "" or re.match(r"^ *\[\d+:\d+\] *: ", ln) for ln in decodes), decodes
    assert [ln for ln in human if ln in plain] == plain


# ---- JSON --------------------------------------------------------------------------------------


def test_json_keys_order_and_types_are_v2_3s() -> None:
    j = id_ctrl_json(ctrl_of("p32a80"))
    assert list(j) == JSON_KEYS
    assert [list(ps) for ps in j["psds"]] == [PSD_KEYS]
    for key, v in j.items():
        expected = str if key in STRING_KEYS else (list if key == "psds" else int)
        assert type(v) is expected, key
    assert (j["hmpre"], j["hmmin"], j["hmminds"], j["hmmaxd"]) == (61440, 2048, 0, 0)
    assert (j["tnvmcap"], j["unvmcap"], j["megcap"], j["maxdna"]) == ("256060514304", "0", "0", "0")
    assert (j["vid"], j["ieee"], j["ver"]) == (6535, 0x6479A7, 66304)
    assert (len(j["sn"]), len(j["mn"]), len(j["fr"])) == (20, 40, 8)


def test_json_leaves_out_an_empty_subnqn() -> None:
    j = id_ctrl_json(ctrl_of("wd-black-256"))
    assert "subnqn" not in j
    assert list(j) == [k for k in JSON_KEYS if k != "subnqn"]


def test_json_text_is_json_c_pretty_and_parses_back() -> None:
    j = id_ctrl_json(ctrl_of("p32a80"))
    text = dumps(j)
    assert text.startswith('{\n  "vid":6535,\n  "ssvid":6535,\n  "sn":"SSDTWIN00P32A80     ",\n')
    assert '\n  "tnvmcap":"256060514304",\n' in text
    assert text.endswith('\n      "active_scale":0\n    }\n  ]\n}')
    assert json.loads(text) == j


@pytest.mark.parametrize("profile", ssdtwin.profiles())
def test_every_shipped_profile_renders(profile: str) -> None:
    c = ctrl_of(profile)
    # Three lines per power state.
    lines = 1 + len(TEXT_FIELDS) + 3 * (c["npss"] + 1)
    assert len(id_ctrl_text(c, human=True).splitlines()) > len(id_ctrl_text(c).splitlines()) == lines
    assert json.loads(dumps(id_ctrl_json(c)))["mn"].rstrip() == ssdtwin.Device(profile).identity()["model"]
