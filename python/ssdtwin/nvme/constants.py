"""What ssdtwin reports for identify fields the model does not know.

Every field nvme-cli and smartctl print needs a value. Those the twin knows come from the
device: the profile's ``[identity]`` and ``[namespace]`` sections, the map (units in use),
the power states, thermal thresholds and APST support, and the whole SMART / Health log
(:meth:`ssdtwin.Device.health`: wear, spare, temperature, counters, clock). Everything else
is set here, in one place, with the reason for each value. The rules behind the choices:

* A field that describes a feature the twin implements says so: Format NVM (``ssdtwin nvme
  format``) in ``oacs``, Dataset Management (fio's trims) in ``oncs``.
* A field that describes something the twin does not simulate (firmware slots, error and
  telemetry logs, self-test, security, multipath, NVMe-MI, ...) reports the absence of that
  feature, usually 0.
* Where the specification leaves no "absent" value (a 0's-based count), the value is a
  typical one for a consumer M.2 drive, and says so.

Identify fields not named in this module are 0 (in ``id_ctrl.py``/``id_ns.py``), because the
features they describe (reservations, ANA, NVM sets, endurance groups, protection
information, namespace management, SGLs, fabrics) are absent from the twin.

>>> kelvin_to_celsius(343)
70
"""

from __future__ import annotations

from typing import Final

#: Kelvin at 0 °C as nvme-cli and smartctl convert (``t - 273``, integer).
ABSOLUTE_ZERO_CELSIUS: Final = -273


def kelvin_to_celsius(kelvin: int) -> int:
    """Celsius as nvme-cli and smartctl print it (``kelvin - 273``).

    >>> kelvin_to_celsius(343)
    70
    """
    return kelvin + ABSOLUTE_ZERO_CELSIUS


# ---- Identify Controller ----------------------------------------------------------------

#: Controller ID. One controller; consumer drives report small IDs (0, 1, 4, 6 are common).
CNTLID: Final = 0x1
#: Recommended Arbitration Burst, log2. The twin does not model NVMe queue arbitration, so it
#: recommends nothing beyond one command per burst (2^0).
RAB: Final = 0
#: Optional Admin Command Support: bit 1, Format NVM, the only optional admin command the twin
#: implements. Security, firmware download, self-test, namespace management are absent.
OACS: Final = 0x0002
#: Abort Command Limit, 0's based: 4. The field cannot say "none"; 3 is the common consumer
#: value, and the twin never aborts (it completes everything).
ACL: Final = 3
#: Asynchronous Event Request Limit, 0's based: 4, the common consumer value; no events occur.
AERL: Final = 3
#: Firmware Updates: one slot (bits 3:1 = 1), read/write, activation needs a reset. The least
#: a controller can report; firmware download is not implemented.
FRMW: Final = 0x02
#: Log Page Attributes: none of the optional log pages (per-namespace SMART, command effects,
#: extended data, telemetry, persistent events) is implemented.
LPA: Final = 0
#: Error Log Page Entries, 0's based: 64, the common consumer value. The log stays empty: the
#: twin has no media or command errors.
ELPE: Final = 63
#: Admin Vendor Specific Command Configuration: bit 0, vendor-specific commands would use the
#: standard command format. There are none; 1 is what most drives report.
AVSCC: Final = 0x1
#: NVM Vendor Specific Command Configuration: the same, for NVM commands.
ICSVSCC: Final = 1
#: Submission / Completion Queue Entry Size: 64 B and 16 B (min = max), the only sizes NVMe over
#: PCIe uses.
SQES: Final = 0x66
CQES: Final = 0x44
#: Number of Namespaces: the twin has one.
NN: Final = 1
#: Optional NVM Command Support: bit 2, Dataset Management (trim, which fio jobs issue). Compare,
#: Write Uncorrectable, Write Zeroes, Save/Select, Reservations, Timestamp, Verify, Copy are
#: absent.
ONCS: Final = 0x0004
#: Format NVM Attributes: a format applies to the one namespace; no cryptographic erase.
FNA: Final = 0
#: The NQN a controller without an assigned one reports (NVMe 1.3, 7.9): this prefix, then the
#: PCI vendor and subsystem vendor IDs (4 hex digits each), the serial number (20 characters)
#: and the model number (40), space-padded. Controllers of NVMe 1.2.1 and later must report a
#: Subsystem NQN; older ones leave the field empty.
SUBNQN_PREFIX: Final = "nqn.2014.08.org.nvmexpress:"
SUBNQN_FROM_VERSION: Final = 0x10201

# ---- Identify Namespace -----------------------------------------------------------------

#: Namespace ID of the one namespace, and the device names Linux would give it.
NSID: Final = 1
DEVICE_PATH: Final = "/dev/nvme0n1"
GENERIC_PATH: Final = "/dev/ng0n1"
#: Namespace Features: no thin provisioning (``ncap`` = ``nsze``), no deallocated-block errors,
#: no preferred write granularity fields.
NSFEAT: Final = 0
#: Namespace globally unique identifiers (NGUID, EUI-64): not assigned (all zero), so smartctl
#: prints no EUI-64 line. A made-up identifier would look like a real drive's.
NGUID_HEX: Final = "0" * 32
EUI64_HEX: Final = "0" * 16
