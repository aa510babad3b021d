"""``nvme get-feature``: the Features a simulated drive reports, as nvme-cli 2.3 prints them.

Data: :func:`features` gives each supported Feature Identifier's value (Completion Queue
Entry Dword 0) and, for Host Memory Buffer, its data structure, from the drive's identity and
its HMB negotiation; current and default values differ only where the host changed them at
start-up (the HMB, which the host's driver enables). Renderer: :func:`get_feature_text` is
``get_feature_id_print`` in nvme-cli's ``nvme.c`` with ``nvme_feature_show_fields`` and ``d``
from ``nvme-print.c`` (v2.3): ``get-feature:%#0*x (%s), %s value:%#0*x``, then with ``-H``
the decoded fields, without it a hex dump of the data structure (if any).

Autonomous Power State Transition (0Ch) is there when the drive has a non-operational power
state: enabled with the table the host's driver programmed (:meth:`ssdtwin.Device.apst`), if
any; Host Controlled Thermal Management (10h) when the profile gives the drive an HCTM range,
with the TMT1 and TMT2 the host set. Features the twin does not implement (LBA Range Type,
Timestamp, Keep Alive and the rest) answer Invalid Field, as a drive without them would:
nvme-cli skips them when it lists every feature and reports the status when one is asked for.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .constants import kelvin_to_celsius

#: Select values of Get Features (``-s``): current, default, saved, supported capabilities,
#: and nvme-cli's own "changed" (8: current values that differ from the defaults).
SELECT_NAMES = {0: "Current", 1: "Default", 2: "Saved", 3: "Supported capabilities", 8: "Changed"}
#: Supported capabilities (select 3) of every implemented feature: changeable, not saveable,
#: not per namespace. Nothing survives a power cycle, so there is nothing to save.
CAPABILITY_CHANGEABLE = 0x4
#: The Host Memory Descriptor List's address the twin reports. A host physical address does
#: not exist in a simulation; this one, page aligned below 4 GiB, stands in for it.
HMB_DESCRIPTOR_LIST_ADDRESS = 0xFFFE_0000
#: Bytes of the Host Memory Buffer attributes structure (``struct nvme_host_mem_buf_attrs``).
HMB_ATTRS_BYTES = 4096
#: The memory page size the host's driver sets (CC.MPS): HSIZE counts these.
MEMORY_PAGE_BYTES = 4096
#: Entries in the APST data structure (``struct nvme_feat_auto_pst``), 8 bytes each.
APST_ENTRIES = 32

NAMES = {
    0x01: "Arbitration",
    0x02: "Power Management",
    0x03: "LBA Range Type",
    0x04: "Temperature Threshold",
    0x05: "Error Recovery",
    0x06: "Volatile Write Cache",
    0x07: "Number of Queues",
    0x08: "Interrupt Coalescing",
    0x09: "Interrupt Vector Configuration",
    0x0A: "Write Atomicity Normal",
    0x0B: "Async Event Configuration",
    0x0C: "Autonomous Power State Transition",
    0x0D: "Host Memory Buffer",
    0x0E: "Timestamp",
    0x0F: "Keep Alive Timer",
    0x10: "Host Controlled Thermal Management",
    0x11: "Non-Operational Power State Config",
    0x12: "Read Recovery Level",
    0x13: "Predictable Latency Mode Config",
    0x14: "Predictable Latency Mode Window",
    0x16: "Host Behavior",
    0x17: "Sanitize",
    0x18: "Endurance Event Group Configuration",
    0x19: "I/O Command Set Profile",
    0x1A: "Spinup Control",
    0x1D: "Flexible Direct Placement",
    0x1E: "Flexible Direct Placement Events",
    0x7D: "Enhanced Controller Metadata",
    0x7E: "Controller Metadata",
    0x7F: "Namespace Metadata",
    0x80: "Software Progress",
    0x81: "Host Identifier",
    0x82: "Reservation Notification Mask",
    0x83: "Reservation Persistence",
    0x84: "Namespace Write Protect",
}


@dataclass(frozen=True)
class Feature:
    """One feature's value as Get Features returns it: Dword 0 and the data structure."""

    fid: int
    current: int
    default: int
    data: bytes | None = None
    default_data: bytes | None = None

    def value(self, select: int) -> tuple[int, bytes | None]:
        """Dword 0 and data for a select value (saved is the default: nothing is saveable)."""
        if select == 3:
            return CAPABILITY_CHANGEABLE, None
        if select in (1, 2):
            return self.default, self.default_data
        return self.current, self.data


def features(
    identity: Mapping[str, Any],
    ctrl: Mapping[str, Any],
    hmb: Mapping[str, Any],
    apst: Sequence[tuple[float, int] | None] = (),
) -> dict[int, Feature]:
    """The features a drive supports, by identifier, from :meth:`ssdtwin.Device.identity`,
    Identify Controller (:func:`.identify_controller`), :meth:`ssdtwin.Device.hmb` and
    :meth:`ssdtwin.Device.apst`.

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_controller
    >>> dev = Device("p32a80")
    >>> f = features(dev.identity(), identify_controller(dev.identity()), dev.hmb())
    >>> hex(f[0x07].current), f[0x0D].current, f[0x0D].default, struct.unpack_from("<I", f[0x0D].data)[0]
    ('0x70007', 1, 0, 32768)
    """
    queues = identity["io_queues"] - 1
    found = {
        0x01: Feature(0x01, ctrl["rab"], ctrl["rab"]),
        0x02: Feature(0x02, 0, 0),
        0x04: Feature(0x04, ctrl["wctemp"], ctrl["wctemp"]),
        0x05: Feature(0x05, 0, 0),
        0x06: Feature(0x06, int(identity["volatile_write_cache"]), int(identity["volatile_write_cache"])),
        0x07: Feature(0x07, queues << 16 | queues, queues << 16 | queues),
        0x08: Feature(0x08, 0, 0),
        0x09: Feature(0x09, 0, 0),
        0x0A: Feature(0x0A, 0, 0),
        0x0B: Feature(0x0B, 0, 0),
    }
    if not identity["volatile_write_cache"]:
        del found[0x06]
    if ctrl["hmpre"]:
        hmb_bytes = int(hmb["bytes"])
        enabled = hmb_bytes > 0
        data = struct.pack(
            "<IIII",
            hmb_bytes // MEMORY_PAGE_BYTES,
            HMB_DESCRIPTOR_LIST_ADDRESS if enabled else 0,
            0,
            int(hmb["segments"]) if enabled else 0,
        ).ljust(HMB_ATTRS_BYTES, b"\0")
        found[0x0D] = Feature(0x0D, int(enabled), 0, data, bytes(HMB_ATTRS_BYTES))
    if ctrl["apsta"]:
        entries = [0] * APST_ENTRIES
        for i, entry in enumerate(apst[:APST_ENTRIES]):
            if entry is not None:
                itpt_ms, itps = entry
                entries[i] = (round(itpt_ms) << 8) | (int(itps) << 3)
        table = struct.pack(f"<{APST_ENTRIES}Q", *entries)
        found[0x0C] = Feature(0x0C, int(any(entries)), 0, table, bytes(8 * APST_ENTRIES))
    if ctrl["hctma"]:
        tmt = (int(identity["hctm_tmt1_kelvin"]) << 16) | int(identity["hctm_tmt2_kelvin"])
        found[0x10] = Feature(0x10, tmt, 0)
    return found


def get_feature_text(fid: int, select: int, result: int, data: bytes | None, *, human: bool) -> str:
    """nvme-cli's output for one feature read with ``select``.

    >>> print(get_feature_text(0x06, 0, 1, None, human=True), end="")
    get-feature:0x06 (Volatile Write Cache), Current value:0x00000001
        Volatile Write Cache Enable (WCE): Enabled
    >>> print(get_feature_text(0x02, 0, 0, None, human=False), end="")
    get-feature:0x02 (Power Management), Current value:00000000
    """
    fid_text = f"{fid:#04x}" if fid else f"{fid:02x}"
    value_text = f"{result:#010x}" if result else f"{result:08x}"
    name, selected = NAMES.get(fid, "Unknown"), SELECT_NAMES.get(select, "Reserved")
    out = [f"get-feature:{fid_text} ({name}), {selected} value:{value_text}"]
    if select == 3:
        out += [
            text
            for bit, text in (
                (0x1, "  Feature is saveable"),
                (0x2, "  Feature is per-namespace"),
                (0x4, "  Feature is changeable"),
            )
            if result & bit
        ]
    elif human:
        out += show_fields(fid, result, data)
    elif data is not None:
        out += hex_dump(data)
    return "\n".join(out) + "\n"


def show_fields(fid: int, result: int, data: bytes | None) -> list[str]:
    """``nvme_feature_show_fields`` for the features the twin implements."""
    if fid == 0x01:
        burst = result & 0x7
        return [
            f"\tHigh Priority Weight   (HPW): {((result >> 24) & 0xFF) + 1}",
            f"\tMedium Priority Weight (MPW): {((result >> 16) & 0xFF) + 1}",
            f"\tLow Priority Weight    (LPW): {((result >> 8) & 0xFF) + 1}",
            f"\tArbitration Burst       (AB): {'No limit' if burst == 7 else 1 << burst}",
        ]
    if fid == 0x02:
        hint = (result >> 5) & 0x7
        hints = ("No Workload", "Extended Idle Period with a Burst of Random Writes", "Heavy Sequential Writes")
        return [
            f"\tWorkload Hint (WH): {hint} - {hints[hint] if hint < len(hints) else 'Reserved'}",
            f"\tPower State   (PS): {result & 0x1F}",
        ]
    if fid == 0x04:
        thsel, tmpsel, k = (result >> 20) & 0x3, (result >> 16) & 0xF, result & 0xFFFF
        types = ("Over Temperature Threshold", "Under Temperature Threshold")
        sensor = (
            "Composite Temperature" if tmpsel == 0 else f"Temperature Sensor {tmpsel}" if tmpsel <= 8 else "Reserved"
        )
        return [
            f"\tThreshold Type Select         (THSEL): {thsel} - {types[thsel] if thsel < 2 else 'Reserved'}",
            f"\tThreshold Temperature Select (TMPSEL): {tmpsel} - {sensor}",
            f"\tTemperature Threshold         (TMPTH): {kelvin_to_celsius(k)}°C ({k} Kelvin)",
        ]
    if fid == 0x05:
        return [
            "\tDeallocated or Unwritten Logical Block Error Enable (DULBE): "
            + ("Enabled" if result & 0x10000 else "Disabled"),
            f"\tTime Limited Error Recovery                          (TLER): {(result & 0xFFFF) * 100} ms",
        ]
    if fid == 0x06:
        return [f"\tVolatile Write Cache Enable (WCE): {'Enabled' if result & 1 else 'Disabled'}"]
    if fid == 0x07:
        return [
            f"\tNumber of IO Completion Queues Allocated (NCQA): {(result >> 16) + 1}",
            f"\tNumber of IO Submission Queues Allocated (NSQA): {(result & 0xFFFF) + 1}",
        ]
    if fid == 0x08:
        return [
            f"\tAggregation Time     (TIME): {((result >> 8) & 0xFF) * 100} usec",
            f"\tAggregation Threshold (THR): {(result & 0xFF) + 1}",
        ]
    if fid == 0x09:
        return [
            f"\tCoalescing Disable (CD): {'True' if result & 0x10000 else 'False'}",
            f"\tInterrupt Vector   (IV): {result & 0xFFFF}",
        ]
    if fid == 0x0A:
        return [f"\tDisable Normal (DN): {'True' if result & 1 else 'False'}"]
    if fid == 0x0B:
        return [
            f"\t{label:<58}: {'Send async event' if result & mask else 'Do not send async event'}"
            for label, mask in _AEN
        ]
    if fid == 0x0C:
        out = [f"\tAutonomous Power State Transition Enable (APSTE): {'Enabled' if result & 1 else 'Disabled'}"]
        if data is not None:
            out.append("\tAuto PST Entries\t.................")
            for i, value in enumerate(struct.unpack_from(f"<{APST_ENTRIES}Q", data)):
                out += [
                    f"\tEntry[{i:2d}]   ",
                    "\t.................",
                    f"\tIdle Time Prior to Transition (ITPT): {(value >> 8) & 0xFFFFFF} ms",
                    f"\tIdle Transition Power State   (ITPS): {(value >> 3) & 0x1F}",
                    "\t.................",
                ]
        return out
    if fid == 0x10:
        t1, t2 = result >> 16, result & 0xFFFF
        return [
            f"\t\tThermal Management Temperature 1 (TMT1) : {t1} K ({kelvin_to_celsius(t1)} °C)",
            f"\t\tThermal Management Temperature 2 (TMT2) : {t2} K ({kelvin_to_celsius(t2)} °C)",
        ]
    if fid == 0x0D:
        out = [f"\tEnable Host Memory (EHM): {'Enabled' if result & 1 else 'Disabled'}"]
        if data is not None:
            hsize, hmdlal, hmdlau, hmdlec = struct.unpack_from("<IIII", data)
            out += [
                f"\tHost Memory Descriptor List Entry Count (HMDLEC): {hmdlec}",
                f"\tHost Memory Descriptor List Address     (HMDLAU): {hmdlau:#x}",
                f"\tHost Memory Descriptor List Address     (HMDLAL): {hmdlal:#x}",
                f"\tHost Memory Buffer Size                  (HSIZE): {hsize}",
            ]
        return out
    return []


_AEN = (
    ("Discovery Log Page Change Notices", 0x80000000),
    ("Endurance Group Event Aggregate Log Change Notices", 0x00004000),
    ("LBA Status Information Notices", 0x00002000),
    ("Predictable Latency Event Aggregate Log Change Notices", 0x00001000),
    ("Asymmetric Namespace Access Change Notices", 0x00000800),
    ("Telemetry Log Notices", 0x00000400),
    ("Firmware Activation Notices", 0x00000200),
    ("Namespace Attribute Notices", 0x00000100),
    ("SMART / Health Critical Warnings", 0x000000FF),
)


def hex_dump(data: bytes, width: int = 16) -> list[str]:
    """nvme-cli's ``d(buf, len, 16, 1)``: a column header, then offset, bytes and their
    printable characters per line.

    >>> hex_dump(b"AB" + bytes(14))[1]
    '0000: 41 42 00 00 00 00 00 00 00 00 00 00 00 00 00 00 "AB.............."'
    """
    out = ["     " + "".join(f"{i:3x}" for i in range(16))]
    for offset in range(0, len(data), width):
        line = data[offset : offset + width]
        ascii_ = "".join(chr(b) if 0x21 <= b <= 0x7E else "." for b in line)
        hexes = "".join(f" {b:02x}" for b in line)
        pad = " " * (3 * (width - len(line)) + 1) if len(line) < width else ""
        out.append(f'{offset:04x}:{hexes}{pad} "{ascii_}"')
    return out
