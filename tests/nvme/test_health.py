"""The SMART / Health log (``ssdtwin.nvme.health``): Data Units arithmetic, command counters,
power-on hours from the simulated clock, constants for the rest."""

from __future__ import annotations

import pytest
import ssdtwin
from ssdtwin.nvme import constants, smart_log
from ssdtwin.nvme.health import data_units


@pytest.mark.parametrize(
    ("byte_count", "units"),
    [(0, 0), (1, 1), (511_999, 1), (512_000, 1), (512_001, 2), (869_901_824_000, 1_699_027), (4096 * 1000, 8)],
)
def test_data_units_are_thousands_of_512_byte_units_rounded_up(byte_count: int, units: int) -> None:
    assert data_units(byte_count) == units


def test_counters_move_after_a_run() -> None:
    dev = ssdtwin.Device("generic-tlc-1tb")
    before = smart_log(dev.counters())
    assert (before["data_units_read"], before["data_units_written"], before["host_reads"], before["host_writes"]) == (
        0,
        0,
        0,
        0,
    )
    dev.run({"rw": "randrw", "bs": "4k", "size": "64m", "iodepth": 4, "runtime": "20ms"})
    c = dev.counters()
    log = smart_log(c)
    assert log["host_reads"] == c["host_read_cmds"] > 0
    assert log["host_writes"] == c["host_write_cmds"] > 0
    assert log["data_units_read"] == -(-c["host_read_bytes"] // 512_000) > 0
    assert log["data_units_written"] == -(-c["host_write_bytes"] // 512_000) > 0


def test_power_on_hours_is_simulated_time() -> None:
    assert smart_log(_counters(time_ns=3_599 * 10**9))["power_on_hours"] == 0
    assert smart_log(_counters(time_ns=7_200 * 10**9))["power_on_hours"] == 2


def test_unmodelled_values_are_the_documented_constants() -> None:
    log = smart_log(_counters())
    assert log["critical_warning"] == constants.CRITICAL_WARNING == 0
    assert log["temperature"] == constants.TEMPERATURE_KELVIN
    assert (log["avail_spare"], log["spare_thresh"], log["percent_used"]) == (100, 10, 0)
    assert (log["power_cycles"], log["unsafe_shutdowns"], log["media_errors"], log["num_err_log_entries"]) == (
        1,
        0,
        0,
        0,
    )
    assert log["temp_sensor"] == [0] * 8


def _counters(time_ns: int = 0) -> dict[str, int]:
    return {"host_read_bytes": 0, "host_write_bytes": 0, "host_read_cmds": 0, "host_write_cmds": 0, "time_ns": time_ns}
