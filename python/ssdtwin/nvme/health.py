"""The SMART / Health Information log (NVMe log page 02h) of a simulated drive.

A plain dict named after the log's fields (libnvme ``struct nvme_smart_log``). The twin
fills what it counts:

* ``data_units_read`` / ``data_units_written``: host bytes in units of 1000 x 512 bytes,
  rounded up, whatever the LBA size ("reported in thousands of 512-byte units ... rounded
  up", NVMe Base 1.4, 5.14.1.2). Host bytes only: the NAND's extra writes (write
  amplification) do not show in this log, as on a real drive.
* ``host_reads`` / ``host_writes``: read and write commands the controller completed (after
  the host split I/Os at MDTS); trims are neither.
* ``power_on_hours``: whole hours of simulated time the device has lived (its clock).

Everything else is a constant from :mod:`.constants`, with its reason there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import constants as k

#: Bytes in one Data Unit: a thousand 512-byte units.
DATA_UNIT_BYTES = 1000 * 512
NS_PER_HOUR = 3_600 * 10**9


def data_units(byte_count: int) -> int:
    """Host bytes as Data Units, rounded up.

    >>> data_units(0), data_units(1), data_units(512_000), data_units(512_001)
    (0, 1, 1, 2)
    """
    return -(-byte_count // DATA_UNIT_BYTES)


def smart_log(counters: Mapping[str, Any]) -> dict[str, Any]:
    """The SMART / Health log of a drive with these counters (:meth:`ssdtwin.Device.counters`).

    >>> log = smart_log({"host_read_bytes": 869_901_824_000, "host_write_bytes": 0,
    ...                  "host_read_cmds": 16_394_111, "host_write_cmds": 0, "time_ns": 7_300 * 10**9})
    >>> log["data_units_read"], log["host_reads"], log["power_on_hours"], log["temperature"]
    (1699027, 16394111, 2, 313)
    """
    return {
        "critical_warning": k.CRITICAL_WARNING,
        "temperature": k.TEMPERATURE_KELVIN,
        "avail_spare": k.AVAILABLE_SPARE_PCT,
        "spare_thresh": k.AVAILABLE_SPARE_THRESHOLD_PCT,
        "percent_used": k.PERCENTAGE_USED,
        "endu_grp_crit_warn_sumry": 0,
        "data_units_read": data_units(int(counters["host_read_bytes"])),
        "data_units_written": data_units(int(counters["host_write_bytes"])),
        "host_reads": int(counters["host_read_cmds"]),
        "host_writes": int(counters["host_write_cmds"]),
        "ctrl_busy_time": k.CONTROLLER_BUSY_MINUTES,
        "power_cycles": k.POWER_CYCLES,
        "power_on_hours": int(counters["time_ns"]) // NS_PER_HOUR,
        "unsafe_shutdowns": k.UNSAFE_SHUTDOWNS,
        "media_errors": k.MEDIA_ERRORS,
        "num_err_log_entries": k.ERROR_LOG_ENTRIES,
        "warning_temp_time": k.WARNING_TEMP_MINUTES,
        "critical_comp_time": k.CRITICAL_TEMP_MINUTES,
        "temp_sensor": [0] * 8,
        "thm_temp1_trans_count": 0,
        "thm_temp2_trans_count": 0,
        "thm_temp1_total_time": 0,
        "thm_temp2_total_time": 0,
    }
