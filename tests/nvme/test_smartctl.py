"""``smartctl -x`` (``ssdtwin.nvme.smartctl``) against smartmontools 7.3's ``nvmeprint.cpp``:
the information section's 36-column labels, the power state and LBA size tables, the
SMART/Health lines with Data Units and thousands separators."""

from __future__ import annotations

from typing import Any

import ssdtwin
from ssdtwin.nvme import Sections, identify_controller, identify_namespace, smart_log, smartctl_text

LOCAL_TIME = "Thu Jan  1 00:00:00 2026 UTC"


def report(dev: ssdtwin.Device, health: dict[str, Any] | None = None) -> list[str]:
    identity = dev.identity()
    log = smart_log(health if health is not None else dev.health())
    text = smartctl_text(
        identify_controller(identity), identify_namespace(identity), log, Sections.all(), local_time=LOCAL_TIME
    )
    assert text.endswith("\n\n")
    return text.splitlines()


def section(lines: list[str], first: str, end: str = "") -> list[str]:
    start = lines.index(first)
    return lines[start : lines.index(end, start)]


def test_information_section_of_p32a80() -> None:
    lines = report(ssdtwin.Device("p32a80"))
    assert lines[0].startswith("smartctl 7.3 2022-02-28 r5338 [")
    assert lines[1:3] == ["Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org", ""]
    assert section(lines, "=== START OF INFORMATION SECTION ===") == [
        "=== START OF INFORMATION SECTION ===",
        "Model Number:                       SPCC M.2 PCIe SSD",
        "Serial Number:                      SSDTWIN00P32A80",
        "Firmware Version:                   SSDTWIN1",
        "PCI Vendor/Subsystem ID:            0x1987",
        "IEEE OUI Identifier:                0x6479a7",
        "Total NVM Capacity:                 256,060,514,304 [256 GB]",
        "Unallocated NVM Capacity:           0",
        "Controller ID:                      1",
        "NVMe Version:                       1.3",
        "Number of Namespaces:               1",
        "Namespace 1 Size/Capacity:          256,060,514,304 [256 GB]",
        "Namespace 1 Utilization:            0",
        "Namespace 1 Formatted LBA Size:     512",
        f"Local Time is:                      {LOCAL_TIME}",
        "Firmware Updates (0x02):            1 Slot",
        "Optional Admin Commands (0x0002):   Format",
        "Optional NVM Commands (0x0004):     DS_Mngmt",
        "Maximum Data Transfer Size:         32 Pages",
        "Warning  Comp. Temp. Threshold:     70 Celsius",
        "Critical Comp. Temp. Threshold:     80 Celsius",
    ]


def test_every_information_value_starts_at_column_36() -> None:
    lines = section(report(ssdtwin.Device("generic-tlc-1tb")), "=== START OF INFORMATION SECTION ===")[1:]
    for line in lines:
        assert line[35] == " " and line[36] != " " and ":" in line[:36], line


def test_power_state_and_lba_size_tables(small_device: ssdtwin.Device) -> None:
    dev = small_device  # the generic drive's formats, quick to format
    lines = report(dev)
    assert section(lines, "Supported Power States") == [
        "Supported Power States",
        "St Op     Max   Active     Idle   RL RT WL WT  Ent_Lat  Ex_Lat",
        " 0 +     6.00W       -        -    0  0  0  0        0       0",
    ]
    assert section(lines, "Supported LBA Sizes (NSID 0x1)") == [
        "Supported LBA Sizes (NSID 0x1)",
        "Id Fmt  Data  Metadt  Rel_Perf",
        " 0 +     512       0         2",
        " 1 -    4096       0         1",
    ]
    dev.format(1)
    lines = report(dev)
    assert section(lines, "Supported LBA Sizes (NSID 0x1)")[2:] == [
        " 0 -     512       0         2",
        " 1 +    4096       0         1",
    ]
    assert "Namespace 1 Formatted LBA Size:     4096" in lines
    assert "Namespace 1 Size/Capacity:          75,497,472 [75.4 MB]" in lines


def test_profile_power_states_in_the_table() -> None:
    states = [
        {"max_power_mw": 8000},
        {"max_power_mw": 70, "non_operational": True, "entry_latency_us": 210, "exit_latency_us": 1200},
        {"max_power_mw": 5, "non_operational": True, "entry_latency_us": 2000, "exit_latency_us": 8000},
    ]
    lines = report(ssdtwin.Device("p32a80", identity__power_states=states))
    assert section(lines, "Supported Power States")[2:] == [
        " 0 +     8.00W       -        -    0  0  0  0        0       0",
        " 1 -     0.07W       -        -    1  1  1  1      210    1200",
        " 2 -   0.0050W       -        -    2  2  2  2     2000    8000",
    ]


def test_smart_health_section() -> None:
    health = ssdtwin.Device("p32a80").health() | {
        "data_units_read": 1_699_027,
        "data_units_written": 17_586_666,
        "host_read_commands": 16_394_111,
        "host_write_commands": 136_342_875,
        "power_on_hours": 145,
        "controller_busy_minutes": 921,
        "warning_temperature_minutes": 3,
    }
    lines = report(ssdtwin.Device("p32a80"), health)
    assert section(lines, "=== START OF SMART DATA SECTION ===", "SMART/Health Information (NVMe Log 0x02)") == [
        "=== START OF SMART DATA SECTION ===",
        "SMART overall-health self-assessment test result: PASSED",
        "",
    ]
    assert section(lines, "SMART/Health Information (NVMe Log 0x02)") == [
        "SMART/Health Information (NVMe Log 0x02)",
        "Critical Warning:                   0x00",
        "Temperature:                        25 Celsius",
        "Available Spare:                    100%",
        "Available Spare Threshold:          10%",
        "Percentage Used:                    0%",
        "Data Units Read:                    1,699,027 [869 GB]",
        "Data Units Written:                 17,586,666 [9.00 TB]",
        "Host Read Commands:                 16,394,111",
        "Host Write Commands:                136,342,875",
        "Controller Busy Time:               921",
        "Power Cycles:                       1",
        "Power On Hours:                     145",
        "Unsafe Shutdowns:                   0",
        "Media and Data Integrity Errors:    0",
        "Error Information Log Entries:      0",
        "Warning  Comp. Temperature Time:    3",
        "Critical Comp. Temperature Time:    0",
    ]
    assert lines[-3:] == ["Error Information (NVMe Log 0x01, 16 of 64 entries)", "No Errors Logged", ""]


def test_utilization_after_a_fill_and_distinct_vendor_ids() -> None:
    dev = ssdtwin.Device("generic-tlc-1tb", identity__pci_subsystem_vendor_id=0x1028)
    dev.fill("seq", percent=1)
    lines = report(dev)
    assert "Namespace 1 Utilization:            10,002,046,976 [10.0 GB]" in lines
    assert "PCI Vendor ID:                      0x1d79" in lines
    assert "PCI Vendor Subsystem ID:            0x1028" in lines
    assert "NVMe Version:                       1.4" in lines
