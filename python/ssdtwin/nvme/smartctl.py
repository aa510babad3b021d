"""``smartctl`` on an NVMe drive, as smartmontools 7.3 prints it: the text report (``-i``,
``-c``, ``-H``, ``-A``, ``-l error`` and their unions ``-a``/``-x``) and ``-j``'s JSON.

Source: ``nvmePrintMain`` and the functions it calls in smartmontools' ``nvmeprint.cpp``
(``print_drive_info``, ``print_drive_capabilities``, ``print_critical_warning``,
``print_smart_log``, ``print_error_log``), with ``format_with_thousands_sep`` and
``format_capacity`` from ``utility.cpp`` (:mod:`.cfmt`). The stored copies are from 2016
(6.5) and 2023 (7.4 development); 7.3 sits between them, and a 7.3 NVMe report (a Kingston
SNV2S, ``smartctl 7.3 2022-02-28 r5338``) confirms what differs: the heading is
``SMART/Health Information (NVMe Log 0x02)`` without an NSID, the error log reads ``16 of N
entries``, and no self-test log follows (that came in 7.4). For NVMe, 7.3's ``-a`` and
``-x`` print the same sections.

Layout: labels padded to 36 columns; capacities with thousands separators and a bracketed
three-digit SI size (``1,024,209,543,168 [1.02 TB]``, truncated); Data Units in thousands of
512-byte units, bracketed as bytes (``1,699,027 [869 GB]``); the ``Supported LBA Sizes
(NSID 0x1)`` rows ``%2d %c %7u %7d %9d`` with ``+`` on the format in use; optional lines
(thresholds, utilization, EUI-64, temperature sensors) only when their values are not
zero, as smartctl decides without ``-d nvme,debug``. Power values not reported print as
``- `` (dash, space), as ``format_power`` writes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import __version__
from .cfmt import capacity, thousands, watts
from .constants import kelvin_to_celsius

#: The first lines smartctl prints. The platform field names ssdtwin rather than the host.
BANNER = (
    f"smartctl 7.3 2022-02-28 r5338 [ssdtwin-{__version__}] (ssdtwin emulation)",
    "Copyright (C) 2002-22, Bruce Allen, Christian Franke, www.smartmontools.org",
    "",
)
#: ``smartctl -a``/``-x`` read this many error log entries.
ERROR_LOG_ENTRIES_READ = 16
#: smartctl's exit status bit 3: the SMART status (here the Critical Warning) says "failing".
FAILSTATUS = 1 << 3
#: ``smartctl -j``'s ``smartctl`` object: 7.3's version and revision, and the platform and
#: build fields naming ssdtwin as the banner does.
JSON_SMARTCTL = {
    "version": [7, 3],
    "svn_revision": "5338",
    "platform_info": f"ssdtwin-{__version__}",
    "build_info": "(ssdtwin emulation)",
}


@dataclass(frozen=True)
class Sections:
    """What smartctl was asked to print (its ``nvme_print_options``): ``-i`` the drive's
    identity, ``-c`` its capabilities, ``-H`` the health verdict, ``-A`` the SMART / Health
    log, ``-l error`` the error log; ``-a`` and ``-x`` are all of them.

    >>> Sections(health=True).any(), Sections().any(), Sections.all() == Sections(True, True, True, True, True)
    (True, False, True)
    """

    info: bool = False
    capabilities: bool = False
    health: bool = False
    attributes: bool = False
    error_log: bool = False

    @classmethod
    def all(cls) -> Sections:
        """``-a`` / ``-x``: every section (7.3 prints the same for NVMe)."""
        return cls(True, True, True, True, True)

    def any(self) -> bool:
        return self.info or self.capabilities or self.health or self.attributes or self.error_log


def exit_status(log: Mapping[str, Any], sections: Sections) -> int:
    """smartctl's exit status: :data:`FAILSTATUS` when ``-H`` finds a critical warning.

    >>> exit_status({"critical_warning": 0x04}, Sections(health=True))
    8
    >>> exit_status({"critical_warning": 0}, Sections.all())
    0
    """
    return FAILSTATUS if sections.health and log["critical_warning"] else 0


def smartctl_text(
    ctrl: Mapping[str, Any],
    ns: Mapping[str, Any],
    log: Mapping[str, Any],
    sections: Sections,
    *,
    local_time: str,
    nsid: int = 1,
) -> str:
    """smartctl's report of ``sections`` for Identify Controller and Namespace data and a
    SMART / Health log (:mod:`.id_ctrl`, :mod:`.id_ns`, :mod:`.health`), as ``nvmePrintMain``
    lays it out. ``local_time`` is what smartctl prints after ``Local Time is:``
    (``%a %b %e %H:%M:%S %Y %Z``).

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_controller, identify_namespace, smart_log
    >>> dev = Device("p32a80")
    >>> ctrl, ns = identify_controller(dev.identity()), identify_namespace(dev.identity())
    >>> log = smart_log(dev.health())
    >>> text = smartctl_text(ctrl, ns, log, Sections.all(), local_time="Thu Jan  1 00:00:00 2026 UTC")
    >>> lines = text.splitlines()
    >>> print("\\n".join(lines[3:7]))
    === START OF INFORMATION SECTION ===
    Model Number:                       SPCC M.2 PCIe SSD
    Serial Number:                      SSDTWIN00P32A80
    Firmware Version:                   SSDTWIN1
    >>> print("\\n".join(lines[lines.index("Supported LBA Sizes (NSID 0x1)") :][:3]))
    Supported LBA Sizes (NSID 0x1)
    Id Fmt  Data  Metadt  Rel_Perf
     0 +     512       0         0
    >>> print(smartctl_text(ctrl, ns, smart_log(dev.health()), Sections(health=True), local_time="")[-94:], end="")
    === START OF SMART DATA SECTION ===
    SMART overall-health self-assessment test result: PASSED
    <BLANKLINE>
    """
    out = list(BANNER)
    if not sections.any():
        out += [
            "NVMe device successfully opened",
            "",
            "Use 'smartctl -a' (or '-x') to print SMART (and more) information",
            "",
        ]
        return "\n".join(out) + "\n"
    if sections.info or sections.capabilities:
        out.append("=== START OF INFORMATION SECTION ===")
        if sections.info:
            out += _drive_info(ctrl, ns, nsid, local_time)
        if sections.capabilities:
            out += _drive_capabilities(ctrl, ns, nsid)
        out.append("")
    if sections.health or sections.attributes or sections.error_log:
        out.append("=== START OF SMART DATA SECTION ===")
    if sections.health:
        out += _critical_warning(log["critical_warning"])
    if sections.attributes:
        out += _smart_log(log, ctrl)
    if sections.error_log:
        out += _error_log(ctrl)
    return "\n".join(out) + "\n"


def smartctl_json(
    ctrl: Mapping[str, Any],
    ns: Mapping[str, Any],
    log: Mapping[str, Any],
    sections: Sections,
    *,
    argv: Sequence[str],
    device_name: str,
    time_t: int,
    local_time: str,
    nsid: int = 1,
) -> dict[str, Any]:
    """``smartctl -j``: the JSON object smartctl 7.3 builds while printing ``sections``, keys in
    its insertion order (``json.dumps(..., indent=2)`` lays it out as smartctl does). Only what
    7.3 reports through ``jout``/``jglb`` is there: capabilities and the error log are text
    only in 7.3. ``argv`` is the command line after ``smartctl``.

    >>> from ssdtwin import Device
    >>> from ssdtwin.nvme import identify_controller, identify_namespace, smart_log
    >>> dev = Device("p32a80")
    >>> ctrl, ns = identify_controller(dev.identity()), identify_namespace(dev.identity())
    >>> js = smartctl_json(ctrl, ns, smart_log(dev.health()), Sections.all(), argv=["-j", "-x"],
    ...                    device_name="/dev/nvme0", time_t=0, local_time="Thu Jan  1 00:00:00 1970 UTC")
    >>> list(js)[:6]
    ['json_format_version', 'smartctl', 'local_time', 'device', 'model_name', 'serial_number']
    >>> js["user_capacity"], js["nvme_smart_health_information_log"]["temperature"], js["smartctl"]["exit_status"]
    ({'blocks': 500118192, 'bytes': 256060514304}, 25, 0)
    """
    root: dict[str, Any] = {
        "json_format_version": [1, 0],
        "smartctl": {**JSON_SMARTCTL, "argv": ["smartctl", *argv]},
        "local_time": {"time_t": time_t, "asctime": local_time},
        "device": {"name": device_name, "info_name": device_name, "type": "nvme", "protocol": "NVMe"},
    }
    if sections.info:
        _drive_info_json(root, ctrl, ns, nsid)
    if sections.health:
        w = log["critical_warning"]
        nvme: dict[str, Any] = {"value": w}
        if w:
            for bit, key in _CRITICAL_WARNING_KEYS:
                nvme[key] = bool(w & bit)
            nvme["other"] = w & ~0x3F
        root["smart_status"] = {"passed": not w, "nvme": nvme}
    if sections.attributes:
        _smart_log_json(root, log, ctrl)
    root["smartctl"]["exit_status"] = exit_status(log, sections)
    return root


_CRITICAL_WARNING_KEYS = (
    (0x01, "spare_below_threshold"),
    (0x02, "temperature_above_or_below_threshold"),
    (0x04, "reliability_degraded"),
    (0x08, "media_read_only"),
    (0x10, "volatile_memory_backup_failed"),
    (0x20, "persistent_memory_region_unreliable"),
)


def _drive_info_json(root: dict[str, Any], ctrl: Mapping[str, Any], ns: Mapping[str, Any], nsid: int) -> None:
    """``print_drive_info``'s ``jglb`` entries."""
    root["model_name"] = ctrl["mn"].strip()
    root["serial_number"] = ctrl["sn"].strip()
    root["firmware_version"] = ctrl["fr"].strip()
    root["nvme_pci_vendor"] = {"id": ctrl["vid"], "subsystem_id": ctrl["ssvid"]}
    root["nvme_ieee_oui_identifier"] = ctrl["ieee"]
    if ctrl["tnvmcap"] or ctrl["unvmcap"]:
        root["nvme_total_capacity"] = ctrl["tnvmcap"]
        root["nvme_unallocated_capacity"] = ctrl["unvmcap"]
    root["nvme_controller_id"] = ctrl["cntlid"]
    if ctrl["ver"]:
        root["nvme_version"] = {"string": _version(ctrl["ver"]), "value": ctrl["ver"]}
    root["nvme_number_of_namespaces"] = ctrl["nn"]
    if nsid and ns["nsze"]:
        lba_bytes = _lba_bytes(ns)
        namespace: dict[str, Any] = {"id": nsid}
        for key, field in (("size", "nsze"), ("capacity", "ncap")):
            namespace[key] = {"blocks": ns[field], "bytes": ns[field] * lba_bytes}
        root["nvme_namespaces"] = [namespace]
        root["user_capacity"] = {"blocks": ns["ncap"], "bytes": ns["ncap"] * lba_bytes}
        namespace["utilization"] = {"blocks": ns["nuse"], "bytes": ns["nuse"] * lba_bytes}
        namespace["formatted_lba_size"] = lba_bytes
        root["logical_block_size"] = lba_bytes
        eui = int(ns["eui64"], 16)
        if eui:
            namespace["eui64"] = {"oui": eui >> 40, "ext_id": eui & ((1 << 40) - 1)}
    root["smart_support"] = {"available": True, "enabled": True}


def _smart_log_json(root: dict[str, Any], log: Mapping[str, Any], ctrl: Mapping[str, Any]) -> None:
    """``print_smart_log``'s ``jglb`` entries."""
    health: dict[str, Any] = {"critical_warning": log["critical_warning"]}
    root["nvme_smart_health_information_log"] = health
    if log["temperature"]:
        health["temperature"] = kelvin_to_celsius(log["temperature"])
        root["temperature"] = {"current": kelvin_to_celsius(log["temperature"])}
    health["available_spare"] = log["avail_spare"]
    health["available_spare_threshold"] = log["spare_thresh"]
    health["percentage_used"] = log["percent_used"]
    for key, field in (
        ("data_units_read", "data_units_read"),
        ("data_units_written", "data_units_written"),
        ("host_reads", "host_reads"),
        ("host_writes", "host_writes"),
        ("controller_busy_time", "ctrl_busy_time"),
        ("power_cycles", "power_cycles"),
    ):
        health[key] = log[field]
    root["power_cycle_count"] = log["power_cycles"]
    health["power_on_hours"] = log["power_on_hours"]
    root["power_on_time"] = {"hours": log["power_on_hours"]}
    health["unsafe_shutdowns"] = log["unsafe_shutdowns"]
    health["media_errors"] = log["media_errors"]
    health["num_err_log_entries"] = log["num_err_log_entries"]
    if ctrl["wctemp"] or log["warning_temp_time"]:
        health["warning_temp_time"] = log["warning_temp_time"]
    if ctrl["cctemp"] or log["critical_comp_time"]:
        health["critical_comp_time"] = log["critical_comp_time"]
    sensors = [kelvin_to_celsius(k) if k else None for k in log["temp_sensor"][:8]]
    while sensors and sensors[-1] is None:
        sensors.pop()
    if sensors:
        health["temperature_sensors"] = sensors


def le128(value: int, bytes_per_unit: int = 0) -> str:
    """smartctl's ``le128_to_str`` for values below 2^64: thousands separators, then the size
    of ``value`` units of ``bytes_per_unit`` bytes in brackets (none for zero).

    >>> le128(1_699_027, 1000 * 512), le128(0, 1), le128(16_394_111)
    ('1,699,027 [869 GB]', '0', '16,394,111')
    """
    text = thousands(value)
    if value and bytes_per_unit and value < (2**64 - 1) // bytes_per_unit:
        text += f" [{capacity(value * bytes_per_unit)}]"
    return text


def _version(ver: int) -> str:
    """``ver`` as smartctl writes it: ``major.minor``, and ``.tertiary`` when not zero.

    >>> _version(0x10300), _version(0x10401)
    ('1.3', '1.4.1')
    """
    return f"{ver >> 16}.{(ver >> 8) & 0xFF}" + (f".{ver & 0xFF}" if ver & 0xFF else "")


def _lba_bytes(ns: Mapping[str, Any]) -> int:
    """Data bytes of the namespace's LBA format in use (smartctl reads ``flbas``' low bits)."""
    return int(1 << ns["lbaf"][ns["flbas"] & 0xF]["ds"])


def _align(nsid: int) -> str:
    """The padding that keeps ``Namespace N ...:`` labels 36 wide for 1- to 3-digit NSIDs."""
    return "  "[(0 if nsid < 10 else 1 if nsid < 100 else 2) :]


def _kelvin(k: int) -> str:
    """``kelvin_to_str``: ``-`` for an unsupported (zero) value."""
    return f"{kelvin_to_celsius(k)} Celsius" if k else "-"


def _power(power: int, scale: int) -> str:
    """``format_power``: smartctl takes the scale from the low two bits of its byte."""
    scale &= 0x3
    return watts(power, scale) or ("- " if scale == 0 else "?")


def _drive_info(ctrl: Mapping[str, Any], ns: Mapping[str, Any], nsid: int, local_time: str) -> list[str]:
    out = [
        f"Model Number:                       {ctrl['mn'].strip()}",
        f"Serial Number:                      {ctrl['sn'].strip()}",
        f"Firmware Version:                   {ctrl['fr'].strip()}",
    ]
    if ctrl["vid"] != ctrl["ssvid"]:
        out.append(f"PCI Vendor ID:                      0x{ctrl['vid']:04x}")
        out.append(f"PCI Vendor Subsystem ID:            0x{ctrl['ssvid']:04x}")
    else:
        out.append(f"PCI Vendor/Subsystem ID:            0x{ctrl['vid']:04x}")
    out.append(f"IEEE OUI Identifier:                0x{ctrl['ieee']:06x}")
    if ctrl["tnvmcap"] or ctrl["unvmcap"]:
        out.append(f"Total NVM Capacity:                 {le128(ctrl['tnvmcap'], 1)}")
        out.append(f"Unallocated NVM Capacity:           {le128(ctrl['unvmcap'], 1)}")
    out.append(f"Controller ID:                      {ctrl['cntlid']}")
    out.append(f"NVMe Version:                       {_version(ctrl['ver']) if ctrl['ver'] else '<1.2'}")
    out.append(f"Number of Namespaces:               {ctrl['nn']}")
    if nsid and ns["nsze"]:
        align = _align(nsid)
        lba_bytes = _lba_bytes(ns)
        thin = ns["nsfeat"] & 0x01
        if ns["ncap"] != ns["nsze"] or thin:
            out.append(f"Namespace {nsid} Size:                 {align}{le128(ns['nsze'] * lba_bytes, 1)}")
            out.append(f"Namespace {nsid} Capacity:             {align}{le128(ns['ncap'] * lba_bytes, 1)}")
        else:
            out.append(f"Namespace {nsid} Size/Capacity:        {align}{le128(ns['nsze'] * lba_bytes, 1)}")
        if ns["nuse"] != ns["ncap"] or thin:
            out.append(f"Namespace {nsid} Utilization:          {align}{le128(ns['nuse'] * lba_bytes, 1)}")
        out.append(f"Namespace {nsid} Formatted LBA Size:   {align}{lba_bytes}")
        eui = ns["eui64"]
        if int(eui, 16):
            out.append(f"Namespace {nsid} IEEE EUI-64:          {align}{eui[:6]} {eui[6:]}")
    out.append(f"Local Time is:                      {local_time}")
    return out


def _drive_capabilities(ctrl: Mapping[str, Any], ns: Mapping[str, Any], nsid: int) -> list[str]:
    frmw, oacs, oncs, lpa = ctrl["frmw"], ctrl["oacs"], ctrl["oncs"], ctrl["lpa"]
    slots = (frmw >> 1) & 0x7
    out = [
        f"Firmware Updates (0x{frmw:02x}):            {slots} Slot{'' if slots == 1 else 's'}"
        f"{', Slot 1 R/O' if frmw & 0x01 else ''}{', no Reset required' if frmw & 0x10 else ''}"
    ]
    if oacs:
        out.append(f"Optional Admin Commands (0x{oacs:04x}):  {_flags(oacs, _OACS, 0x03FF)}")
    if oncs:
        out.append(f"Optional NVM Commands (0x{oncs:04x}):    {_flags(oncs, _ONCS, 0x00FF)}")
    if lpa:
        out.append(f"Log Page Attributes (0x{lpa:02x}):        {_flags(lpa, _LPA, 0x001F)}")
    if ctrl["mdts"]:
        out.append(f"Maximum Data Transfer Size:         {1 << ctrl['mdts']} Pages")
    if ctrl["wctemp"]:
        out.append(f"Warning  Comp. Temp. Threshold:     {_kelvin(ctrl['wctemp'])}")
    if ctrl["cctemp"]:
        out.append(f"Critical Comp. Temp. Threshold:     {_kelvin(ctrl['cctemp'])}")
    if nsid and ns["nsfeat"]:
        align = _align(nsid)
        out.append(
            f"Namespace {nsid} Features (0x{ns['nsfeat']:02x}):     {align}{_flags(ns['nsfeat'], _NSFEAT, 0x1F)}"
        )
    out += ["", "Supported Power States", "St Op     Max   Active     Idle   RL RT WL WT  Ent_Lat  Ex_Lat"]
    for i, ps in enumerate(ctrl["psd"][:32]):
        out.append(
            f"{i:2d} {'-' if ps['flags'] & 0x02 else '+'} {_power(ps['mp'], 1 if ps['flags'] & 0x01 else 2):>9} "
            f"{_power(ps['actp'], ps['apws']):>8} {_power(ps['idlp'], ps['ips']):>8} "
            f"{ps['rrl'] & 0x1F:3d} {ps['rrt'] & 0x1F:2d} {ps['rwl'] & 0x1F:2d} {ps['rwt'] & 0x1F:2d} "
            f"{ps['enlat']:8d} {ps['exlat']:7d}"
        )
    if nsid and ns["lbaf"][0]["ds"]:
        out += ["", f"Supported LBA Sizes (NSID {nsid:#x})", "Id Fmt  Data  Metadt  Rel_Perf"]
        for i, lbaf in enumerate(ns["lbaf"][: min(ns["nlbaf"] + 1, 16)]):
            mark = "+" if i == ns["flbas"] else "-"
            out.append(f"{i:2d} {mark} {1 << lbaf['ds']:7d} {lbaf['ms']:7d} {lbaf['rp']:9d}")
    return out


def _flags(value: int, names: tuple[tuple[int, str], ...], known: int) -> str:
    """The space-prefixed names of the bits set in ``value`` (`` -`` for none, `` *Other*`` for
    bits outside ``known``)."""
    text = "" if value else " -"
    text += "".join(name for bit, name in names if value & bit)
    return text + (" *Other*" if value & ~known else "")


_OACS = (
    (0x0001, " Security"),
    (0x0002, " Format"),
    (0x0004, " Frmw_DL"),
    (0x0008, " NS_Mngmt"),
    (0x0010, " Self_Test"),
    (0x0020, " Directvs"),
    (0x0040, " MI_Snd/Rec"),
    (0x0080, " Vrt_Mngmt"),
    (0x0100, " Drbl_Bf_Cfg"),
    (0x0200, " Get_LBA_Sts"),
)
_ONCS = (
    (0x0001, " Comp"),
    (0x0002, " Wr_Unc"),
    (0x0004, " DS_Mngmt"),
    (0x0008, " Wr_Zero"),
    (0x0010, " Sav/Sel_Feat"),
    (0x0020, " Resv"),
    (0x0040, " Timestmp"),
    (0x0080, " Verify"),
)
_LPA = (
    (0x01, " S/H_per_NS"),
    (0x02, " Cmd_Eff_Lg"),
    (0x04, " Ext_Get_Lg"),
    (0x08, " Telmtry_Lg"),
    (0x10, " Pers_Ev_Lg"),
)
_NSFEAT = (
    (0x01, " Thin_Prov"),
    (0x02, " NA_Fields"),
    (0x04, " Dea/Unw_Error"),
    (0x08, " No_ID_Reuse"),
    (0x10, " NP_Fields"),
)


def _critical_warning(w: int) -> list[str]:
    out = [f"SMART overall-health self-assessment test result: {'FAILED!' if w else 'PASSED'}"]
    for bit, text in (
        (0x01, "- available spare has fallen below threshold"),
        (0x02, "- temperature is above or below threshold"),
        (0x04, "- NVM subsystem reliability has been degraded"),
        (0x08, "- media has been placed in read only mode"),
        (0x10, "- volatile memory backup device has failed"),
        (0x20, "- persistent memory region has become read-only or unreliable"),
    ):
        if w & bit:
            out.append(text)
    if w & ~0x3F:
        out.append(f"- unknown critical warning(s) (0x{w & ~0x3F:02x})")
    return [*out, ""]


def _smart_log(log: Mapping[str, Any], ctrl: Mapping[str, Any]) -> list[str]:
    out = [
        "SMART/Health Information (NVMe Log 0x02)",
        f"Critical Warning:                   0x{log['critical_warning']:02x}",
        f"Temperature:                        {_kelvin(log['temperature'])}",
        f"Available Spare:                    {log['avail_spare']}%",
        f"Available Spare Threshold:          {log['spare_thresh']}%",
        f"Percentage Used:                    {log['percent_used']}%",
        f"Data Units Read:                    {le128(log['data_units_read'], 1000 * 512)}",
        f"Data Units Written:                 {le128(log['data_units_written'], 1000 * 512)}",
        f"Host Read Commands:                 {le128(log['host_reads'])}",
        f"Host Write Commands:                {le128(log['host_writes'])}",
        f"Controller Busy Time:               {le128(log['ctrl_busy_time'])}",
        f"Power Cycles:                       {le128(log['power_cycles'])}",
        f"Power On Hours:                     {le128(log['power_on_hours'])}",
        f"Unsafe Shutdowns:                   {le128(log['unsafe_shutdowns'])}",
        f"Media and Data Integrity Errors:    {le128(log['media_errors'])}",
        f"Error Information Log Entries:      {le128(log['num_err_log_entries'])}",
    ]
    if ctrl["wctemp"] or log["warning_temp_time"]:
        out.append(f"Warning  Comp. Temperature Time:    {log['warning_temp_time']}")
    if ctrl["cctemp"] or log["critical_comp_time"]:
        out.append(f"Critical Comp. Temperature Time:    {log['critical_comp_time']}")
    for i, k in enumerate(log["temp_sensor"][:8]):
        if k:
            out.append(f"Temperature Sensor {i + 1}:               {_kelvin(k)}")
    for key, label in (
        ("thm_temp1_trans_count", "Thermal Temp. 1 Transition Count:   "),
        ("thm_temp2_trans_count", "Thermal Temp. 2 Transition Count:   "),
        ("thm_temp1_total_time", "Thermal Temp. 1 Total Time:         "),
        ("thm_temp2_total_time", "Thermal Temp. 2 Total Time:         "),
    ):
        if log[key]:
            out.append(f"{label}{log[key]}")
    return [*out, ""]


def _error_log(ctrl: Mapping[str, Any]) -> list[str]:
    """The Error Information log: the twin logs no errors."""
    entries = ctrl["elpe"] + 1  # 0's based
    read = min(ERROR_LOG_ENTRIES_READ, entries)
    return [f"Error Information (NVMe Log 0x01, {read} of {entries} entries)", "No Errors Logged", ""]
