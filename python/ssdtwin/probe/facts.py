"""What a target says about itself before anything is measured: its size, LBA size, the
largest I/O to send, and, where it has them, NVMe Identify data and the HMB grant.

Sources, by target:

* a simulated drive (``--twin``): Identify Controller and Identify Namespace in nvme-cli's
  JSON shape (:mod:`ssdtwin.nvme`), and the Host Memory Buffer feature (``get-feature
  0x0d``), exactly what ``ssdtwin nvme id-ctrl``/``id-ns``/``get-feature`` print;
* a block device: sysfs (``size``, ``queue/logical_block_size``,
  ``queue/max_hw_sectors_kb``, ``device/model``, ``device/serial``), and nvme-cli's JSON
  where it is installed and the device is NVMe;
* a file: its length;
* an NBD export: the export size and block sizes from the NBD handshake.

Nothing here reads a profile: a twin's facts are its Identify data, as a real drive's are.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .runner import Health


@dataclass(frozen=True)
class LbaFormat:
    """One LBA format of Identify Namespace: data and metadata bytes, Relative Performance."""

    data_bytes: int
    metadata_bytes: int = 0
    relative_performance: int = 0


@dataclass(frozen=True)
class Facts:
    """What the target reports. ``source`` says where each came from."""

    size_bytes: int
    lba_bytes: int
    max_io_bytes: int
    source: str
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    mdts: int | None = None
    hmpre_units: int = 0
    hmmin_units: int = 0
    hmb_granted_bytes: int | None = None
    #: Warning Composite Temperature Threshold (Identify Controller WCTEMP): at and above it
    #: a drive throttles. None where the target does not report one.
    wctemp_kelvin: int | None = None
    volatile_write_cache: bool | None = None
    lba_formats: tuple[LbaFormat, ...] = ()
    current_format: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """A JSON-ready record."""
        out = {k: v for k, v in vars(self).items() if k not in ("lba_formats", "extra")}
        out["lba_formats"] = [vars(f) for f in self.lba_formats]
        return out


#: The largest I/O the prober sends when the target does not say (fio's usual sequential size).
DEFAULT_MAX_IO_BYTES = 128 << 10


def from_nvme(
    id_ctrl: Mapping[str, Any], id_ns: Mapping[str, Any], hmb_granted_bytes: int | None, source: str
) -> Facts:
    """Facts from nvme-cli's ``id-ctrl -o json`` and ``id-ns -o json`` output and the HMB
    size the host granted (``get-feature -f 0x0d``: HSIZE x 4 KiB), if known.

    MDTS is in units of the controller's minimum page size, 4 KiB on every drive that
    matters; 0 means no limit, where the prober keeps to 1 MiB."""
    formats = tuple(
        LbaFormat(1 << int(f["ds"]), int(f.get("ms", 0)), int(f.get("rp", 0))) for f in id_ns.get("lbaf", [])
    )
    current = int(id_ns.get("flbas", 0)) & 0x0F
    lba = formats[current].data_bytes if current < len(formats) else 512
    mdts = int(id_ctrl.get("mdts", 0))
    max_io = 4096 << mdts if mdts else 1 << 20
    return Facts(
        size_bytes=int(id_ns["nsze"]) * lba,
        lba_bytes=lba,
        max_io_bytes=max_io,
        source=source,
        model=str(id_ctrl.get("mn", "")).strip() or None,
        serial=str(id_ctrl.get("sn", "")).strip() or None,
        firmware=str(id_ctrl.get("fr", "")).strip() or None,
        mdts=mdts,
        hmpre_units=int(id_ctrl.get("hmpre", 0)),
        hmmin_units=int(id_ctrl.get("hmmin", 0)),
        hmb_granted_bytes=hmb_granted_bytes,
        wctemp_kelvin=int(id_ctrl.get("wctemp", 0)) or None,
        volatile_write_cache=bool(int(id_ctrl.get("vwc", 0)) & 1),
        lba_formats=formats,
        current_format=current,
    )


def twin_facts(device: Any) -> Facts:
    """Facts of a simulated drive, from the Identify data ``ssdtwin nvme`` prints and the
    HMB feature (``device`` is an :class:`ssdtwin.Device`)."""
    from ..nvme.id_ctrl import identify_controller
    from ..nvme.id_ns import identify_namespace

    identity = device.identity()
    granted = int(device.hmb()["bytes"]) if identity["hmpre"] else None
    return from_nvme(
        identify_controller(identity),
        identify_namespace(identity),
        granted,
        "Identify Controller and Namespace, HMB feature (as ssdtwin nvme prints them)",
    )


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def block_facts(name: str, sys_root: Path = Path("/sys"), dev_root: Path = Path("/dev")) -> Facts:
    """Facts of the block device ``name`` (``nvme0n1``, ``sda``) from sysfs, completed by
    nvme-cli's Identify data where the device is NVMe and nvme-cli is installed."""
    block = sys_root / "class" / "block" / name
    sectors = int(_read(block / "size") or 0)
    lba = int(_read(block / "queue" / "logical_block_size") or 512)
    max_kb = int(_read(block / "queue" / "max_hw_sectors_kb") or 0)
    max_io = min(max_kb * 1024, 1 << 20) if max_kb else DEFAULT_MAX_IO_BYTES
    serial = _read(block / "device" / "serial") or _read(block / "serial")
    facts = Facts(
        size_bytes=sectors * 512,
        lba_bytes=lba,
        max_io_bytes=max_io,
        source=f"sysfs ({block})",
        model=_read(block / "device" / "model"),
        serial=serial,
        firmware=_read(block / "device" / "firmware_rev"),
    )
    if name.startswith("nvme") and shutil.which("nvme") and sys_root == Path("/sys"):
        nvme = _nvme_facts(str(dev_root / name))
        if nvme is not None:
            return nvme
    return facts


def _nvme_facts(device: str) -> Facts | None:
    """nvme-cli's Identify data for ``device``, or None if nvme-cli cannot read it."""
    try:
        ctrl = json.loads(
            subprocess.run(["nvme", "id-ctrl", device, "-o", "json"], capture_output=True, check=True).stdout
        )
        ns = json.loads(subprocess.run(["nvme", "id-ns", device, "-o", "json"], capture_output=True, check=True).stdout)
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
    granted = None
    if ctrl.get("hmpre"):
        try:
            feature = subprocess.run(
                ["nvme", "get-feature", device, "-f", "0x0d", "-o", "json"], capture_output=True, check=True
            )
            granted = int(json.loads(feature.stdout).get("hsize", 0)) * 4096
        except (OSError, subprocess.CalledProcessError, ValueError):
            granted = None
    return from_nvme(ctrl, ns, granted, f"nvme-cli Identify data of {device}")


def nvme_health(device: str) -> Health | None:
    """The composite temperature and the temperature bit of Critical Warning from nvme-cli's
    ``smart-log -o json`` of ``device`` (Kelvin, as nvme-cli's JSON gives it), or None if
    nvme-cli cannot read it."""
    try:
        out = subprocess.run(["nvme", "smart-log", device, "-o", "json"], capture_output=True, check=True).stdout
        log = json.loads(out)
        return Health(int(log["temperature"]), bool(int(log.get("critical_warning", 0)) & 0x02))
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError, TypeError):
        return None


def file_facts(path: Path) -> Facts:
    """Facts of a regular file: its length (512-byte LBAs assumed)."""
    return Facts(
        size_bytes=path.stat().st_size, lba_bytes=512, max_io_bytes=DEFAULT_MAX_IO_BYTES, source=f"file {path}"
    )
