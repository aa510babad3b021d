"""Every refusal before a probe writes, on a fake device tree: sysfs, /dev and /proc
directories built here, with image files standing in for devices (blkid and wipefs read
them as they read a disk). No test touches a real device."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from ssdtwin.errors import ProbeError
from ssdtwin.probe.safety import Claim, DeviceTree, check_device, check_file, check_signatures

SIZE = 64 << 20
SERIAL = "S4EWNX0R123456"


@dataclass
class Tree:
    tree: DeviceTree
    image: Path
    block: Path


def make_tree(tmp: Path, name: str = "nvme9n1") -> Tree:
    """A whole disk ``name`` (259:0) with a blank image, no partitions, holders, mounts or
    swap, and a serial."""
    sys_root, dev_root, proc_root = tmp / "sys", tmp / "dev", tmp / "proc"
    block = sys_root / "class" / "block" / name
    (block / "holders").mkdir(parents=True)
    (block / "device").mkdir()
    (block / "dev").write_text("259:0\n")
    (block / "size").write_text(f"{SIZE // 512}\n")
    (block / "device" / "serial").write_text(f"{SERIAL}   \n")
    (block / "wwid").write_text("eui.0025388b71b2c3d4\n")
    dev_root.mkdir()
    image = dev_root / name
    with open(image, "wb") as f:
        f.truncate(SIZE)
    (proc_root / "self").mkdir(parents=True)
    (proc_root / "self" / "mountinfo").write_text("22 27 0:21 / /proc rw,relatime - proc proc rw\n")
    (proc_root / "swaps").write_text("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")
    tree = DeviceTree(sys_root, dev_root, proc_root, is_block=lambda p: p.parent == dev_root)
    return Tree(tree, image, block)


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (util-linux, e2fsprogs)")


def check(t: Tree, *, destructive: bool = True, serial: str | None = SERIAL) -> None:
    check_device(t.image, t.tree, destructive=destructive, serial=serial)


@pytest.fixture
def disk(tmp_path: Path) -> Tree:
    need("blkid", "wipefs")
    return make_tree(tmp_path)


def test_a_blank_whole_disk_with_its_serial_and_destructive_passes(disk: Tree) -> None:
    check(disk)
    # The WWID and its bare EUI-64 confirm the device as well as the serial.
    check(disk, serial="eui.0025388b71b2c3d4")
    check(disk, serial="0025388b71b2c3d4")


def test_a_partition_is_refused(disk: Tree) -> None:
    (disk.block / "partition").write_text("1\n")
    with pytest.raises(ProbeError, match="is a partition; probe the whole device"):
        check(disk)


def test_a_disk_with_partitions_is_refused(disk: Tree) -> None:
    part = disk.block / "nvme9n1p1"
    part.mkdir()
    (part / "partition").write_text("1\n")
    (part / "dev").write_text("259:1\n")
    with pytest.raises(ProbeError, match=r"has partitions \(nvme9n1p1\)"):
        check(disk)


def test_a_held_disk_is_refused(disk: Tree) -> None:
    (disk.block / "holders" / "dm-0").mkdir()
    with pytest.raises(ProbeError, match="is held by dm-0"):
        check(disk)


@pytest.mark.parametrize(
    "line",
    [
        "40 27 259:0 / /mnt/data rw,relatime - ext4 /dev/nvme9n1 rw\n",  # by device number
        "41 27 0:55 / /mnt/btr rw,relatime - btrfs /dev/nvme9n1 rw\n",  # by source (btrfs reports 0:NN)
    ],
)
def test_a_mounted_disk_is_refused(disk: Tree, line: str) -> None:
    mountinfo = disk.tree.proc_root / "self" / "mountinfo"
    mountinfo.write_text(mountinfo.read_text() + line)
    with pytest.raises(ProbeError, match="is mounted at /mnt/"):
        check(disk)


def test_a_mounted_partition_refuses_its_disk_through_its_device_number(disk: Tree) -> None:
    mountinfo = disk.tree.proc_root / "self" / "mountinfo"
    mountinfo.write_text(mountinfo.read_text() + "42 27 259:7 / /boot rw - vfat /dev/x rw\n")
    part = disk.block / "nvme9n1p2"
    part.mkdir()
    (part / "partition").write_text("2\n")
    (part / "dev").write_text("259:7\n")
    # The partition itself is reported first; the mount is what a bare check would find.
    from ssdtwin.probe.safety import mount_points

    assert mount_points("nvme9n1", disk.tree) == ["/boot"]


def test_a_disk_used_as_swap_is_refused(disk: Tree) -> None:
    swaps = disk.tree.proc_root / "swaps"
    swaps.write_text(swaps.read_text() + "/dev/nvme9n1\tpartition\t65532\t0\t-2\n")
    with pytest.raises(ProbeError, match="is in use as swap"):
        check(disk)


def test_an_ext4_file_system_is_refused(disk: Tree) -> None:
    need("mkfs.ext4")
    subprocess.run(["mkfs.ext4", "-q", "-F", str(disk.image)], check=True, capture_output=True)
    with pytest.raises(ProbeError, match=r"holds data: blkid -p finds ext4 \(filesystem\)"):
        check(disk)


def test_a_swap_signature_is_refused(disk: Tree) -> None:
    need("mkswap")
    subprocess.run(["mkswap", str(disk.image)], check=True, capture_output=True)
    with pytest.raises(ProbeError, match="holds data: blkid -p finds swap"):
        check(disk)


def test_a_partition_table_is_refused(disk: Tree) -> None:
    # An MBR with one Linux partition from sector 2048: boot signature and a table entry.
    mbr = bytearray(512)
    entry = (
        bytes([0, 0, 0, 0, 0x83, 0, 0, 0]) + (2048).to_bytes(4, "little") + (SIZE // 512 - 2048).to_bytes(4, "little")
    )
    mbr[446:462] = entry
    mbr[510:512] = b"\x55\xaa"
    with open(disk.image, "r+b") as f:
        f.write(mbr)
    with pytest.raises(ProbeError, match="holds data: blkid -p finds dos"):
        check(disk)


def test_wipefs_finds_what_blkid_does_not_look_for_at_the_end(tmp_path: Path) -> None:
    """A signature blkid -p gives up on (ambivalent or unknown to it) still refuses the
    disk through wipefs; here wipefs is made to report the GPT backup header at the end."""
    need("blkid")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    wipefs = fake_bin / "wipefs"
    wipefs.write_text(
        '#!/bin/sh\necho \'{"signatures": [{"device": "x", "offset": "0x3fffe00", "type": "gpt", "uuid": null}]}\'\n'
    )
    wipefs.chmod(0o755)
    image = tmp_path / "blank.img"
    with open(image, "wb") as f:
        f.truncate(SIZE)
    old = os.environ["PATH"]
    os.environ["PATH"] = f"{fake_bin}:{old}"
    try:
        with pytest.raises(ProbeError, match="wipefs finds gpt at offset 0x3fffe00"):
            check_signatures(image)
    finally:
        os.environ["PATH"] = old


def test_writing_needs_destructive_and_the_right_serial(disk: Tree) -> None:
    with pytest.raises(ProbeError, match="add --destructive"):
        check(disk, destructive=False)
    with pytest.raises(ProbeError, match=f"give --serial with .*'s serial \\({SERIAL}"):
        check(disk, serial=None)
    with pytest.raises(ProbeError, match=f"--serial WRONG is not .*'s \\({SERIAL}"):
        check(disk, serial="WRONG")


def test_a_symlink_is_resolved_and_a_path_outside_the_device_tree_refused(disk: Tree, tmp_path: Path) -> None:
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "nvme-disk").symlink_to(disk.image)
    check_device(by_id / "nvme-disk", disk.tree, destructive=True, serial=SERIAL)
    stray = tmp_path / "stray.img"
    stray.write_bytes(b"")
    with pytest.raises(ProbeError, match="not a block device the kernel lists"):
        check_device(stray, disk.tree, destructive=True, serial=SERIAL)


def test_a_device_in_use_cannot_be_claimed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The exclusive open: Linux fails O_EXCL on a block device in use with EBUSY (a file
    cannot be made busy, so the open is made to fail as the kernel would)."""

    def busy(path: object, flags: int, *args: object) -> int:
        assert flags & os.O_EXCL
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    monkeypatch.setattr(os, "open", busy)
    with pytest.raises(ProbeError, match=r"cannot be opened exclusively \(O_EXCL\): in use"):
        Claim(tmp_path / "nvme9n1")


def test_a_signature_written_after_the_first_check_stops_the_first_write(disk: Tree) -> None:
    """Checked again right before the first write: a file system made meanwhile stops it."""
    need("mkfs.ext4")
    from ssdtwin.probe.runner import Job, TwinRunner

    check(disk)
    runner = TwinRunner("generic-tlc-1tb", {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30})
    runner.before_first_write = lambda: check_signatures(disk.image)
    runner.run(Job("read", "randread", 4096, number_ios=10), "test")  # reads need no check
    subprocess.run(["mkfs.ext4", "-q", "-F", str(disk.image)], check=True, capture_output=True)
    with pytest.raises(ProbeError, match="blkid -p finds ext4"):
        runner.run(Job("write", "write", 4096, number_ios=10), "test")
    assert [s.job.name for s in runner.steps if s.job] == ["read"]
    runner.close()


def test_a_file_is_overwritten_only_with_force(tmp_path: Path) -> None:
    target = tmp_path / "drive.img"
    target.write_bytes(b"data")
    with pytest.raises(ProbeError, match="exists and probing writes over it; add --force"):
        check_file(target, force=False, writes=True)
    check_file(target, force=True, writes=True)
    check_file(target, force=False, writes=False)  # a read-only probe
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ProbeError, match="not a regular file or block device"):
        check_file(fifo, force=True, writes=True)
