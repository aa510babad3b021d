"""The SMART / Health Information log (NVMe log page 02h) of a simulated drive.

A plain dict named after the log's fields (libnvme ``struct nvme_smart_log``), filled from
:meth:`ssdtwin.Device.health`, where the model derives every field from the drive's state
(``docs/model.md`` § "SMART health"):

* ``critical_warning``: bit 0 when Available Spare is below its threshold, bit 1 when the
  Composite Temperature is at or above the over-temperature threshold (WCTEMP), bit 2 when
  worn-out blocks had to stay in service (reliability degraded).
* ``temperature``: the thermal model's Composite Temperature, kelvin.
* ``avail_spare`` / ``spare_thresh``: the share of the blocks the drive can lose (spares,
  and superblocks beyond the namespace's need) that it has not lost; the profile's threshold.
* ``percent_used``: mean P/E cycles over the rated ones (SLC-mode cycles at the SLC rating).
* ``data_units_read`` / ``data_units_written``: host bytes in units of 1000 x 512 bytes,
  rounded up (NVMe Base 1.4, 5.14.1.2); host bytes only, as on a real drive.
* ``host_reads`` / ``host_writes``: read and write commands (after the host split I/Os at
  MDTS); trims are neither.
* ``ctrl_busy_time``: minutes with a command outstanding.
* ``power_cycles``, ``power_on_hours``, ``unsafe_shutdowns``: a new drive was powered once;
  loading a saved state and :meth:`ssdtwin.Device.power_cycle` power it on again; hours of
  simulated time powered, across saves.
* ``media_errors``: uncorrectable errors reads met, at the rate the blocks' wear gives
  (``docs/model.md`` § "Media errors"); ``num_err_log_entries``: 0 (no command fails: the
  model counts the errors but still returns the data).
* ``warning_temp_time`` / ``critical_comp_time``: minutes at or above WCTEMP / CCTEMP;
  ``thm_temp1_*`` / ``thm_temp2_*``: Host Controlled Thermal Management transitions and
  seconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Bytes in one Data Unit: a thousand 512-byte units.
DATA_UNIT_BYTES = 1000 * 512


def data_units(byte_count: int) -> int:
    """Host bytes as Data Units, rounded up.

    >>> data_units(0), data_units(1), data_units(512_000), data_units(512_001)
    (0, 1, 1, 2)
    """
    return -(-byte_count // DATA_UNIT_BYTES)


def smart_log(health: Mapping[str, Any]) -> dict[str, Any]:
    """The SMART / Health log in libnvme's field names, from :meth:`ssdtwin.Device.health`.

    >>> from ssdtwin import Device
    >>> dev = Device("generic-tlc-1tb", **{"nand.blocks_per_plane": 24, "identity.capacity_bytes": 14 << 30})
    >>> dev.fill("seq", 10)
    >>> _ = dev.run({"rw": "randread", "bs": "4k", "size": "1g", "runtime": "10ms"})
    >>> log = smart_log(dev.health())
    >>> log["temperature"], log["power_cycles"], log["percent_used"], log["avail_spare"]
    (298, 1, 0, 100)
    >>> log["data_units_read"] == data_units(dev.counters()["host_read_bytes"])
    True
    """
    return {
        "critical_warning": int(health["critical_warning"]),
        "temperature": int(health["temperature_kelvin"]),
        "avail_spare": int(health["available_spare_pct"]),
        "spare_thresh": int(health["available_spare_threshold_pct"]),
        "percent_used": int(health["percentage_used"]),
        "endu_grp_crit_warn_sumry": 0,
        "data_units_read": int(health["data_units_read"]),
        "data_units_written": int(health["data_units_written"]),
        "host_reads": int(health["host_read_commands"]),
        "host_writes": int(health["host_write_commands"]),
        "ctrl_busy_time": int(health["controller_busy_minutes"]),
        "power_cycles": int(health["power_cycles"]),
        "power_on_hours": int(health["power_on_hours"]),
        "unsafe_shutdowns": int(health["unsafe_shutdowns"]),
        "media_errors": int(health["media_errors"]),
        "num_err_log_entries": int(health["error_log_entries"]),
        "warning_temp_time": int(health["warning_temperature_minutes"]),
        "critical_comp_time": int(health["critical_temperature_minutes"]),
        "temp_sensor": [0] * 8,
        "thm_temp1_trans_count": int(health["tmt1_transitions"]),
        "thm_temp2_trans_count": int(health["tmt2_transitions"]),
        "thm_temp1_total_time": int(health["tmt1_seconds"]),
        "thm_temp2_total_time": int(health["tmt2_seconds"]),
    }
