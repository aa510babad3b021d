"""What a probe checks before it writes to a real target, and refuses.

Probing writes over the whole target, so on a block device the prober refuses (one line
naming the reason, exit status 2) a device that:

* is a partition, or has partitions (``/sys/class/block/NAME/NAMEp1`` with a ``partition``
  file), or is held by another device (``holders/``: device-mapper, MD RAID, LVM);
* is mounted (itself or a partition: its ``major:minor`` in ``/proc/self/mountinfo``) or
  used as swap (``/proc/swaps``);
* carries any signature ``blkid -p`` or ``wipefs`` finds (a file system, RAID or LVM
  member, swap, a partition table; wipefs also finds a GPT's backup header at the end):
  checked before anything runs and again right before the first write;
* cannot be opened with ``O_EXCL`` (Linux fails that with ``EBUSY`` while the device is in
  use, ``man 2 open``); the exclusive descriptor is held for the whole probe, so nothing can
  mount the device meanwhile;
* lacks ``--destructive``, or whose serial (or WWN/EUI) is not the ``--serial`` given.

A read-only probe (``--read-only``: fio's ``--readonly``, reads only) runs on anything. A
file is written only if it is new or ``--force`` is given. The sysfs, device and proc roots
are parameters (:class:`DeviceTree`), so the checks are tested on a fake tree of image files.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ProbeError


def is_block_special(path: Path) -> bool:
    """True if ``path`` is a block device node."""
    try:
        return stat.S_ISBLK(path.stat().st_mode)
    except OSError:
        return False


@dataclass(frozen=True)
class DeviceTree:
    """Where the kernel's views of devices live; tests point these at a fake tree.
    ``is_block`` says whether a path is a block device node (a fake tree's are files)."""

    sys_root: Path = Path("/sys")
    dev_root: Path = Path("/dev")
    proc_root: Path = Path("/proc")
    is_block: Callable[[Path], bool] = field(default=is_block_special)

    def block(self, name: str) -> Path:
        """The device's sysfs directory."""
        return self.sys_root / "class" / "block" / name


@dataclass(frozen=True)
class BlockDevice:
    """A whole block device that passed every check: its node, name and serial."""

    path: Path
    name: str
    serial: str | None


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def resolve_device(path: Path, tree: DeviceTree) -> tuple[Path, str]:
    """The device node ``path`` names (symlinks such as ``/dev/disk/by-id/…`` resolved, and
    said so in errors) and its kernel name; refuses a path outside the device root or
    without a sysfs entry."""
    real = Path(os.path.realpath(path))
    shown = f"{path} (-> {real})" if real != path.absolute() else str(path)
    if real.parent != tree.dev_root.resolve() or not tree.block(real.name).is_dir():
        raise ProbeError(f"{shown}: not a block device the kernel lists in {tree.sys_root}/class/block")
    return real, real.name


def partitions(name: str, tree: DeviceTree) -> list[str]:
    """The partitions of ``name`` (sysfs subdirectories with a ``partition`` file)."""
    block = tree.block(name)
    return sorted(p.name for p in block.iterdir() if p.is_dir() and (p / "partition").is_file())


def check_device(path: Path, tree: DeviceTree = DeviceTree(), *, destructive: bool, serial: str | None) -> BlockDevice:
    """Every refusal of the module doc except the exclusive open (:func:`claim`), in
    order; returns the device if none applies."""
    real, name = resolve_device(path, tree)
    block = tree.block(name)
    if (block / "partition").is_file():
        raise ProbeError(f"{real} is a partition; probe the whole device (probing writes over all of it)")
    parts = partitions(name, tree)
    if parts:
        raise ProbeError(f"{real} has partitions ({', '.join(parts)}); probing would destroy them")
    holders = sorted(p.name for p in (block / "holders").iterdir()) if (block / "holders").is_dir() else []
    if holders:
        raise ProbeError(
            f"{real} is held by {', '.join(holders)} (device-mapper, RAID or LVM); probing would destroy it"
        )
    mounted = mount_points(name, tree)
    if mounted:
        raise ProbeError(f"{real} is mounted at {', '.join(mounted)}")
    if used_as_swap(real, tree):
        raise ProbeError(f"{real} is in use as swap ({tree.proc_root}/swaps)")
    check_signatures(real)
    if not destructive:
        raise ProbeError(f"probing {real} writes over all of it; add --destructive (and --serial) to allow that")
    own = device_serials(name, tree)
    if serial is None:
        raise ProbeError(f"give --serial with {real}'s serial ({', '.join(own) or 'unknown'}) to confirm the device")
    if serial.strip() not in own:
        raise ProbeError(f"--serial {serial} is not {real}'s ({', '.join(own) or 'it reports none'})")
    return BlockDevice(real, name, serial)


def mount_points(name: str, tree: DeviceTree) -> list[str]:
    """Where ``name`` or one of its partitions is mounted, from ``mountinfo`` (by device
    number, and by source path for file systems that report one)."""
    numbers = {_read(tree.block(name) / "dev")}
    # mountinfo names sources as the kernel does (/dev/NAME), whatever the tree's root.
    names = [name, *partitions(name, tree)]
    sources = {f"/dev/{n}" for n in names} | {str(tree.dev_root / n) for n in names}
    for part in names[1:]:
        numbers.add(_read(tree.block(name) / part / "dev"))
    numbers.discard(None)
    info = _read(tree.proc_root / "self" / "mountinfo") or ""
    found = []
    for line in info.splitlines():
        fields = line.split()
        if len(fields) < 5:
            continue
        tail = fields[fields.index("-") + 1 :] if "-" in fields else []
        source = tail[1] if len(tail) > 1 else ""
        if fields[2] in numbers or source in sources:
            found.append(fields[4])
    return found


def used_as_swap(real: Path, tree: DeviceTree) -> bool:
    """True if ``/proc/swaps`` lists the device or one of its partitions."""
    devices = [real.name, *partitions(real.name, tree)]
    names = {str(real)} | {f"/dev/{d}" for d in devices} | {str(tree.dev_root / d) for d in devices}
    swaps = _read(tree.proc_root / "swaps") or ""
    return any(line.split()[0] in names for line in swaps.splitlines()[1:] if line.split())


def device_serials(name: str, tree: DeviceTree) -> list[str]:
    """The identifiers the device reports: serial, WWID (NVMe ``eui.``/``nvme.``, SCSI
    ``naa.``) and the WWID's bare hex."""
    block = tree.block(name)
    out = []
    for path in (block / "device" / "serial", block / "serial", block / "wwid", block / "device" / "wwid"):
        value = _read(path)
        if value:
            out.append(value)
            if "." in value:
                out.append(value.split(".", 1)[1])
    return list(dict.fromkeys(out))


def check_signatures(path: Path) -> None:
    """Refuses a target on which ``blkid -p`` or ``wipefs`` finds any signature, or where
    either cannot tell (blkid's exit 8: ambivalent; missing tools)."""
    for tool in ("blkid", "wipefs"):
        if shutil.which(tool) is None:
            raise ProbeError(f"cannot check {path} for data: {tool} is not installed (util-linux)")
    out = subprocess.run(["blkid", "-p", "-o", "export", str(path)], capture_output=True, text=True, check=False)
    if out.returncode == 0:
        found = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
        what = found.get("TYPE") or found.get("PTTYPE") or "a signature"
        usage = f" ({found['USAGE']})" if "USAGE" in found else ""
        raise ProbeError(f"{path} holds data: blkid -p finds {what}{usage}; wipe it first if it may be destroyed")
    if out.returncode == 8:
        raise ProbeError(f"{path}: blkid -p finds several signatures (ambivalent result); wipe it first")
    if out.returncode != 2:
        raise ProbeError(f"{path}: blkid -p failed (status {out.returncode}): {out.stderr.strip()}")
    out = subprocess.run(["wipefs", "--json", str(path)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise ProbeError(f"{path}: wipefs failed (status {out.returncode}): {out.stderr.strip()}")
    signatures = json.loads(out.stdout).get("signatures", []) if out.stdout.strip() else []
    if signatures:
        first = signatures[0]
        raise ProbeError(
            f"{path} holds data: wipefs finds {first.get('type', 'a signature')} at offset {first.get('offset', '?')}"
            + (f" and {len(signatures) - 1} more" if len(signatures) > 1 else "")
        )


class Claim:
    """An exclusive open of a block device (``O_EXCL``), held while the probe runs."""

    def __init__(self, path: Path) -> None:
        try:
            self.fd: int | None = os.open(path, os.O_RDONLY | os.O_EXCL)
        except OSError as e:
            why = "in use (mounted, or opened exclusively elsewhere)" if e.errno == errno.EBUSY else e.strerror
            raise ProbeError(f"{path} cannot be opened exclusively (O_EXCL): {why}") from None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def check_file(path: Path, *, force: bool, writes: bool) -> None:
    """Refuses to write a file target that exists unless ``force``; a path that is not a
    regular file (a FIFO, a socket, a directory) is refused whatever the flags."""
    if path.exists() and not path.is_file():
        raise ProbeError(f"{path} is not a regular file or block device")
    if writes and path.exists() and not force:
        raise ProbeError(f"{path} exists and probing writes over it; add --force to overwrite it")
