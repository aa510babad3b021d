"""Identify Namespace data (NVMe admin Identify, CNS 00h) of the simulated drive's namespace.

A plain dict, one key per field of libnvme's ``struct nvme_id_ns`` in its order, with
decoded values; ``lbaf`` lists the LBA formats as ``{"ms", "ds", "rp"}`` (metadata bytes,
log2 of the data size, relative performance), and ``nguid``/``eui64`` are hex strings.

Sizes are in logical blocks of the format in use: ``nsze`` = ``ncap`` = the namespace's
bytes over the LBA size (no thin provisioning), ``nuse`` = the LBAs the map holds. The map
works in 4 KiB units, so after a 512-byte write all eight LBAs of its unit count as in use;
``nuse`` never exceeds ``nsze``. A Format NVM unmaps everything: ``nuse`` drops to 0 and,
with another LBA format, ``nsze`` is recomputed in the new block size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import constants as k

#: The map's unit, bytes (``mapped_units`` in :meth:`ssdtwin.Device.identity` counts these).
MAP_UNIT_BYTES = 4096


def identify_namespace(identity: Mapping[str, Any]) -> dict[str, Any]:
    """The Identify Namespace fields of the drive ``identity`` describes
    (:meth:`ssdtwin.Device.identity`).

    >>> from ssdtwin import Device
    >>> from ssdtwin.testing import small_overrides
    >>> dev = Device(overrides=small_overrides())  # 72 MiB, the generic drive's LBA formats
    >>> dev.fill("seq", percent=50)
    >>> ns = identify_namespace(dev.identity())
    >>> ns["nsze"], ns["nuse"], ns["flbas"], ns["lbaf"][ns["flbas"]]
    (147456, 73728, 0, {'ms': 0, 'ds': 9, 'rp': 2})
    >>> dev.format(1)
    >>> ns = identify_namespace(dev.identity())
    >>> ns["nsze"], ns["nuse"], ns["flbas"], ns["lbaf"][1]
    (18432, 0, 1, {'ms': 0, 'ds': 12, 'rp': 1})
    """
    formats = list(identity["lba_formats"])
    current = int(identity["lba_format"])
    lba_bytes = int(formats[current]["data_bytes"])
    capacity = int(identity["capacity_bytes"])
    nsze = capacity // lba_bytes
    nuse = min(nsze, int(identity["mapped_units"]) * MAP_UNIT_BYTES // lba_bytes)
    return {
        "nsze": nsze,
        "ncap": nsze,
        "nuse": nuse,
        "nsfeat": k.NSFEAT,
        "nlbaf": len(formats) - 1,
        "flbas": flbas(current),
        "mc": 0,
        "dpc": 0,
        "dps": 0,
        "nmic": 0,
        "rescap": 0,
        "fpi": 0,
        "dlfeat": 0,
        "nawun": 0,
        "nawupf": 0,
        "nacwu": 0,
        "nabsn": 0,
        "nabo": 0,
        "nabspf": 0,
        "noiob": 0,
        "nvmcap": capacity,
        "npwg": 0,
        "npwa": 0,
        "npdg": 0,
        "npda": 0,
        "nows": 0,
        "mssrl": 0,
        "mcl": 0,
        "msrc": 0,
        "nulbaf": 0,
        "anagrpid": 0,
        "nsattr": 0,
        "nvmsetid": 0,
        "endgid": 0,
        "nguid": k.NGUID_HEX,
        "eui64": k.EUI64_HEX,
        "lbaf": [
            {
                "ms": int(f["metadata_bytes"]),
                "ds": int(f["data_bytes"]).bit_length() - 1,
                "rp": int(f["relative_performance"]),
            }
            for f in formats
        ],
    }


def flbas(index: int) -> int:
    """Formatted LBA Size for format ``index``: bits 3:0 hold its low four bits, bits 6:5 the
    next two (NVMe 2.0, for more than 16 formats); metadata is never at the end of the LBA.

    >>> flbas(1), flbas(17)
    (1, 33)
    """
    return (index & 0xF) | ((index >> 4) & 0x3) << 5


def format_in_use(flbas_value: int) -> int:
    """The LBA format index ``flbas`` selects (libnvme's ``nvme_id_ns_flbas_to_lbaf_inuse``).

    >>> format_in_use(33)
    17
    """
    return (flbas_value & 0xF) | ((flbas_value >> 5) & 0x3) << 4
