"""Map updates on a DRAM-less drive with an HMB (R1's p32a80) under mixed reads and writes:
the controller writes changed entries through to the segment's cached copy (issue: what
happens to cached segments when writes update them). Writes never leave a cached copy stale,
so they cause no reloads; each write command into an HMB-resident segment costs one write of
``hmb_access_bytes`` into host memory."""

from __future__ import annotations

from typing import Any

import pytest
from ssdtwin import Device

#: 4 KiB random reads and writes, half each, over 8 GiB of a drive filled that far.
MIXED = {"name": "m", "rw": "randrw", "bs": "4k", "iodepth": 8, "ioengine": "libaio", "size": "8g", "direct": 1}
#: p32a80 maps 4 MiB of namespace per 4 KiB segment (1024 entries of 4 B).
SEGMENT_BYTES = 4 << 20


def mixed_run(hmb: str, rw: str = "randrw") -> dict[str, Any]:
    dev = Device("p32a80", host="linux-4.15", hmb=hmb)
    dev.fill("seq", 4)  # 4 % of 256 GB: the first ~10 GB, beyond the 8 GiB span
    before = dev.counters()
    dev.run(MIXED | {"rw": rw, "runtime": "300ms"})
    after = dev.counters()
    return {k: after[k] - before[k] for k in after if isinstance(after[k], int)}


def test_a_fully_resident_hmb_map_is_written_through_on_every_write() -> None:
    # 240 MiB of HMB holds p32a80's whole 238.5 MiB map: every lookup hits, and every 4 KiB
    # write updates one entry in host memory.
    d = mixed_run("240")
    assert d["map_misses"] == 0 and d["map_hmb_hits"] == d["host_read_cmds"] > 1000
    assert d["map_hmb_updates"] == d["host_write_cmds"] > 1000


def test_writes_keep_cached_segments_valid() -> None:
    # 128 MiB of HMB holds every segment of the 8 GiB span (2048 of them) once read: the
    # only misses are first touches, whether writes update the segments in between or not.
    segments = (8 << 30) // SEGMENT_BYTES
    mixed = mixed_run("128")
    assert 0 < mixed["map_misses"] <= segments
    assert mixed["map_hmb_updates"] > 0.5 * mixed["host_write_cmds"]
    # Without an HMB nothing is written to host memory and the SRAM holds too little.
    off = mixed_run("off")
    assert off["map_hmb_updates"] == 0
    assert off["map_misses"] > 0.9 * off["host_read_cmds"]


def test_write_through_leaves_random_write_iops_alone() -> None:
    # R1: HMB size does not change random-write IOPS; the 64 B entry writes go up the link,
    # the 4 KiB write data comes down it.
    iops = {}
    for hmb in ("off", "240"):
        dev = Device("p32a80", host="linux-4.15", hmb=hmb)
        dev.fill("seq", 4)
        r = dev.run(MIXED | {"rw": "randwrite", "runtime": "300ms"})
        iops[hmb] = float(r.summary.iops.iloc[0])
    assert iops["240"] == pytest.approx(iops["off"], rel=0.02)
