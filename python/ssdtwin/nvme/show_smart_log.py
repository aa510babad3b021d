"""``nvme smart-log``: the SMART / Health log as nvme-cli 2.3 prints it.

Source: ``nvme_show_smart_log`` and ``json_smart_log`` in nvme-cli's ``nvme-print.c`` (v2.3),
with ``uint128_t_to_string`` and ``uint128_t_to_si_string`` from ``util/types.c``. The
128-bit counters print with the locale's thousands separator (``,`` here:
``uint128_t_to_string`` formats as :func:`.cfmt.thousands` does) and in JSON as *strings*,
as 2.3's ``util_json_object_new_uint128`` makes them; Data Units are followed by their
bytes with an SI prefix (``%.2Lf %sB``). Temperatures are ``%ld°C (%u Kelvin)``; sensors
reading 0 are skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cfmt import hash_x, suffix_si, thousands
from .constants import kelvin_to_celsius
from .health import DATA_UNIT_BYTES

#: The namespace nvme-cli asks for when ``-n`` is not given: all of them.
NSID_ALL = 0xFFFFFFFF

_CRITICAL_WARNING_BITS = (
    "      Available Spare[0]             : {}",
    "      Temp. Threshold[1]             : {}",
    "      NVM subsystem Reliability[2]   : {}",
    "      Read-only[3]                   : {}",
    "      Volatile mem. backup failed[4] : {}",
    "      Persistent Mem. RO[5]          : {}",
)
_CRITICAL_WARNING_KEYS = ("available_spare", "temp_threshold", "reliability_degraded", "ro", "vmbu_failed", "pmr_ro")


def si_bytes(units: int, bytes_per_unit: int) -> str:
    """``uint128_t_to_si_string``: ``units`` of ``bytes_per_unit`` bytes with an SI prefix.

    >>> si_bytes(1_699_027, 512_000), si_bytes(0, 512_000)
    ('869.90 GB', '0.00 B')
    """
    value, prefix = suffix_si(units * bytes_per_unit)
    return f"{value:.2f} {prefix}B"


def smart_log_text(log: Mapping[str, Any], device: str, nsid: int = NSID_ALL, *, human: bool = False) -> str:
    """``nvme smart-log DEVICE`` (``-H`` decodes the Critical Warning bits); ``device`` is the
    name nvme-cli prints (the device path's last component).

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import smart_log
    >>> log = smart_log(Device("generic-tlc-1tb").health()) | {"data_units_read": 1_699_027}
    >>> lines = smart_log_text(log, "nvme0").splitlines()
    >>> lines[0], lines[2].split(": ")[1], lines[7].split(": ")[1]
    ('Smart Log for NVME device:nvme0 namespace-id:ffffffff', '25°C (298 Kelvin)', '1,699,027 (869.90 GB)')
    """
    w = log["critical_warning"]
    out = [f"Smart Log for NVME device:{device} namespace-id:{nsid:x}", f"critical_warning\t\t\t: {hash_x(w)}"]
    if human:
        out += [line.format((w >> bit) & 1) for bit, line in enumerate(_CRITICAL_WARNING_BITS)]
    t = log["temperature"]
    out += [
        f"temperature\t\t\t\t: {kelvin_to_celsius(t)}°C ({t} Kelvin)",
        f"available_spare\t\t\t\t: {log['avail_spare']}%",
        f"available_spare_threshold\t\t: {log['spare_thresh']}%",
        f"percentage_used\t\t\t\t: {log['percent_used']}%",
        f"endurance group critical warning summary: {hash_x(log['endu_grp_crit_warn_sumry'])}",
        f"Data Units Read\t\t\t\t: {thousands(log['data_units_read'])} "
        f"({si_bytes(log['data_units_read'], DATA_UNIT_BYTES)})",
        f"Data Units Written\t\t\t: {thousands(log['data_units_written'])} "
        f"({si_bytes(log['data_units_written'], DATA_UNIT_BYTES)})",
        f"host_read_commands\t\t\t: {thousands(log['host_reads'])}",
        f"host_write_commands\t\t\t: {thousands(log['host_writes'])}",
        f"controller_busy_time\t\t\t: {thousands(log['ctrl_busy_time'])}",
        f"power_cycles\t\t\t\t: {thousands(log['power_cycles'])}",
        f"power_on_hours\t\t\t\t: {thousands(log['power_on_hours'])}",
        f"unsafe_shutdowns\t\t\t: {thousands(log['unsafe_shutdowns'])}",
        f"media_errors\t\t\t\t: {thousands(log['media_errors'])}",
        f"num_err_log_entries\t\t\t: {thousands(log['num_err_log_entries'])}",
        f"Warning Temperature Time\t\t: {log['warning_temp_time']}",
        f"Critical Composite Temperature Time\t: {log['critical_comp_time']}",
    ]
    for i, k in enumerate(log["temp_sensor"][:8]):
        if k:
            out.append(f"Temperature Sensor {i + 1}           : {kelvin_to_celsius(k)}°C ({k} Kelvin)")
    out += [
        f"Thermal Management T1 Trans Count\t: {log['thm_temp1_trans_count']}",
        f"Thermal Management T2 Trans Count\t: {log['thm_temp2_trans_count']}",
        f"Thermal Management T1 Total Time\t: {log['thm_temp1_total_time']}",
        f"Thermal Management T2 Total Time\t: {log['thm_temp2_total_time']}",
    ]
    return "\n".join(out) + "\n"


def smart_log_json(log: Mapping[str, Any], *, human: bool = False) -> dict[str, Any]:
    """``nvme smart-log -o json``, keys in nvme-cli's order (``-H``: the Critical Warning as
    an object of its bits). 128-bit counters are strings, as 2.3 prints them.

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import smart_log
    >>> log = smart_log(Device("generic-tlc-1tb").health()) | {"data_units_read": 1_000, "host_reads": 1_000}
    >>> js = smart_log_json(log)
    >>> js["temperature"], js["data_units_read"], js["host_read_commands"], js["power_cycles"]
    (298, '1,000', '1,000', '1')
    """
    w = log["critical_warning"]
    critical: Any = w
    if human:
        critical = {"value": w} | {key: (w >> bit) & 1 for bit, key in enumerate(_CRITICAL_WARNING_KEYS)}
    root: dict[str, Any] = {
        "critical_warning": critical,
        "temperature": log["temperature"],
        "avail_spare": log["avail_spare"],
        "spare_thresh": log["spare_thresh"],
        "percent_used": log["percent_used"],
        "endurance_grp_critical_warning_summary": log["endu_grp_crit_warn_sumry"],
    }
    for key, field in (
        ("data_units_read", "data_units_read"),
        ("data_units_written", "data_units_written"),
        ("host_read_commands", "host_reads"),
        ("host_write_commands", "host_writes"),
        ("controller_busy_time", "ctrl_busy_time"),
        ("power_cycles", "power_cycles"),
        ("power_on_hours", "power_on_hours"),
        ("unsafe_shutdowns", "unsafe_shutdowns"),
        ("media_errors", "media_errors"),
        ("num_err_log_entries", "num_err_log_entries"),
    ):
        root[key] = thousands(log[field])
    root["warning_temp_time"] = log["warning_temp_time"]
    root["critical_comp_time"] = log["critical_comp_time"]
    for i, k in enumerate(log["temp_sensor"][:8]):
        if k:
            root[f"temperature_sensor_{i + 1}"] = k
    for key in ("thm_temp1_trans_count", "thm_temp2_trans_count", "thm_temp1_total_time", "thm_temp2_total_time"):
        root[key] = log[key]
    return root
