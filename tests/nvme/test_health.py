"""The SMART / Health log (``ssdtwin.nvme.health``): Data Units arithmetic, and every field
moving with the drive's state (commands, wear, temperature, power cycles, power-on hours)."""

from __future__ import annotations

from pathlib import Path

import pytest
import ssdtwin
from ssdtwin.nvme import (
    Sections,
    identify_controller,
    identify_namespace,
    smart_log,
    smart_log_json,
    smart_log_text,
    smartctl_json,
    smartctl_text,
)
from ssdtwin.nvme.health import data_units

SMALL: dict[str, object] = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 14 << 30}


@pytest.mark.parametrize(
    ("byte_count", "units"),
    [(0, 0), (1, 1), (511_999, 1), (512_000, 1), (512_001, 2), (869_901_824_000, 1_699_027), (4096 * 1000, 8)],
)
def test_data_units_are_thousands_of_512_byte_units_rounded_up(byte_count: int, units: int) -> None:
    assert data_units(byte_count) == units


def test_counters_move_after_a_run() -> None:
    dev = ssdtwin.Device("generic-tlc-1tb")
    before = smart_log(dev.health())
    assert (before["data_units_read"], before["data_units_written"], before["host_reads"], before["host_writes"]) == (
        0,
        0,
        0,
        0,
    )
    dev.run({"rw": "randrw", "bs": "4k", "size": "64m", "iodepth": 4, "runtime": "20ms"})
    c = dev.counters()
    log = smart_log(dev.health())
    assert log["host_reads"] == c["host_read_cmds"] > 0
    assert log["host_writes"] == c["host_write_cmds"] > 0
    assert log["data_units_read"] == data_units(c["host_read_bytes"]) > 0
    assert log["data_units_written"] == data_units(c["host_write_bytes"]) > 0


def test_power_on_hours_is_simulated_time_across_saves(tmp_path: Path) -> None:
    dev = ssdtwin.Device("generic-tlc-1tb", overrides=SMALL)
    dev.idle(3_599)
    assert smart_log(dev.health())["power_on_hours"] == 0
    dev.idle(2 * 3_600)
    dev.save(tmp_path / "s")
    back = ssdtwin.Device.load(tmp_path / "s")
    log = smart_log(back.health())
    # Saving shut the drive down, loading powered it on again; its hours go on.
    assert (log["power_on_hours"], log["power_cycles"], log["unsafe_shutdowns"]) == (2, 2, 0)
    back.power_cycle(unsafe=True)
    log = smart_log(back.health())
    assert (log["power_cycles"], log["unsafe_shutdowns"]) == (3, 1)


def test_wear_moves_percentage_used() -> None:
    # TLC rated for 10 cycles: every erase of every superblock is 10 % of the drive's life.
    dev = ssdtwin.Device("generic-tlc-1tb", overrides=SMALL | {"endurance.tlc_pe_cycles": 10})
    dev.fill("random", 95, overwrite_passes=3)
    log = smart_log(dev.health())
    c = dev.counters()
    assert log["percent_used"] == c["life_used_ppm"] // 10_000 > 0
    assert log["percent_used"] == min(255, int(100 * c["erases"] / 24 / 10))


def test_a_fresh_drive_is_cool_spare_and_unworn() -> None:
    log = smart_log(ssdtwin.Device("generic-tlc-1tb").health())
    assert (log["critical_warning"], log["temperature"], log["avail_spare"], log["spare_thresh"]) == (0, 298, 100, 10)
    assert (log["percent_used"], log["power_cycles"], log["unsafe_shutdowns"], log["media_errors"]) == (0, 1, 0, 0)
    assert (log["warning_temp_time"], log["critical_comp_time"], log["thm_temp1_trans_count"]) == (0, 0, 0)
    assert log["temp_sensor"] == [0] * 8


def test_reads_of_a_worn_drive_count_media_errors_in_every_view() -> None:
    # TLC rated for 4 cycles and a high uncorrectable rate at the rating: after the fill the
    # blocks are past their rating, so reading 1 GiB meets errors.
    worn = {"endurance.tlc_pe_cycles": 4, "endurance.uber_per_bit": 1e-9, "endurance.uber_tenfold_pct": 50}
    dev = ssdtwin.Device("generic-tlc-1tb", overrides=SMALL | worn)
    dev.fill("random", 95, overwrite_passes=3)
    assert smart_log(dev.health())["media_errors"] == 0
    dev.run({"rw": "read", "bs": "128k", "size": "1g", "iodepth": 8, "ioengine": "libaio"})
    errors = dev.counters()["media_errors"]
    log = smart_log(dev.health())
    assert log["media_errors"] == errors > 0
    identity = dev.identity()
    ctrl, ns = identify_controller(identity), identify_namespace(identity)
    text = smartctl_text(ctrl, ns, log, Sections.all(), local_time="now")
    assert f"Media and Data Integrity Errors:    {errors:,}" in text.splitlines()
    argv = ["smartctl", "-j", "-x", "/dev/nvme0"]
    js = smartctl_json(ctrl, ns, log, Sections.all(), argv=argv, device_name="/dev/nvme0", time_t=0, local_time="now")
    assert js["nvme_smart_health_information_log"]["media_errors"] == errors
    assert f"media_errors\t\t\t\t: {errors:,}" in smart_log_text(log, "nvme0n1").splitlines()
    assert smart_log_json(log)["media_errors"] == f"{errors:,}"
