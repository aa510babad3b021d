"""Map updates on a DRAM-less drive with an HMB (R1's and R7's p32a80) under mixed reads and
writes: what happens to cached segments when writes update them.

p32a80's controller keeps HMB copies for one journal epoch (``hmb_validity =
"journal-epoch"``): a read that finds its segment in the HMB checks the SRAM journal for newer
entries, so when a journal page is written every HMB copy is dropped; a load's SRAM victim is
copied into the HMB (a fill); without an HMB, writes into deallocated space build their
segments in an SRAM update area. The tests check each of these from the profile's numbers.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from ssdtwin import Device, profile_toml

#: 4 KiB random reads and writes, half each, over 8 GiB of a drive filled that far.
MIXED = {"name": "m", "rw": "randrw", "bs": "4k", "iodepth": 8, "ioengine": "libaio", "size": "8g", "direct": 1}
PROFILE = tomllib.loads(profile_toml("p32a80"))
SEGMENT_BYTES = PROFILE["map_cache"]["segment_bytes"]
#: LBA span of one segment: 4-byte entries, one per 4 KiB unit.
SEGMENT_SPAN = SEGMENT_BYTES // 4 * 4096
SRAM_SEGMENTS = PROFILE["map_cache"]["sram_kib"] * 1024 // SEGMENT_BYTES
JOURNAL_ENTRIES = PROFILE["map_cache"]["journal_entries"]


def delta(dev: Device, job: dict[str, Any]) -> dict[str, Any]:
    before = dev.counters()
    dev.run(job)
    after = dev.counters()
    return {k: after[k] - before[k] for k in after if isinstance(after[k], int)}


def mixed_run(hmb: str, overrides: dict[str, object] | None = None, **job: object) -> dict[str, Any]:
    dev = Device("p32a80", host="linux-4.15", hmb=hmb, overrides=overrides)
    dev.fill("seq", 4)  # 4 % of 256 GB: the first ~10 GB, beyond the 8 GiB span
    return delta(dev, MIXED | {"runtime": "300ms"} | job)


def test_a_journal_page_drops_every_hmb_copy() -> None:
    # 240 MiB of HMB holds the whole map, indexed directly until the first journal page; from
    # then on each page drops what was copied into the HMB since the one before.
    whole_map = -(-int(Device("p32a80").info()["capacity_bytes"]) // SEGMENT_SPAN)
    d = mixed_run("240")
    pages = d["host_write_cmds"] // JOURNAL_ENTRIES
    assert pages >= 2
    assert d["map_hmb_updates"] == 0  # nothing is written through
    later_drops = d["map_hmb_invalidations"] - whole_map
    assert 0 < later_drops <= d["map_hmb_fills"]
    # So reads miss again after every page: at least the segments they had reloaded.
    assert d["map_loads"] >= later_drops


def test_a_load_copies_sram_s_victim_into_the_hmb() -> None:
    # Reads alone never end an epoch: every load past SRAM's 64 segments pushes one down.
    d = mixed_run("128", rw="randread")
    assert d["map_loads"] > SRAM_SEGMENTS
    assert d["map_hmb_fills"] == d["map_loads"] - SRAM_SEGMENTS
    assert d["map_hmb_invalidations"] == 0


def test_write_through_copies_survive_the_journal() -> None:
    d = mixed_run("240", {"map_cache.hmb_validity": "write-through"})
    assert d["map_misses"] == 0 and d["map_hmb_hits"] == d["host_read_cmds"] > 1000
    assert d["map_hmb_updates"] == d["host_write_cmds"] > 1000
    assert d["map_hmb_invalidations"] == 0


@pytest.mark.parametrize(("update_kib", "misses"), [(1024, "none"), (0, "most")])
def test_without_hmb_writes_build_deallocated_segments_in_sram(update_kib: int, misses: str) -> None:
    # R7's method: deallocate everything, then mix over 1 GiB (256 segments): writes build
    # each segment in the update area (1 MiB holds all 256), so no read ever loads one.
    dev = Device("p32a80", host="linux-4.15", hmb="off", overrides={"map_cache.update_sram_kib": update_kib})
    dev.fill("seq", 4)
    dev.run({"name": "trim", "rw": "trim", "bs": "256m", "ioengine": "libaio", "iodepth": 4})
    d = delta(dev, MIXED | {"size": "1g", "runtime": "300ms"})
    assert d["host_read_cmds"] > 1000
    if misses == "none":
        assert d["map_misses"] == 0
    else:
        # Only SRAM's 64 of the 256 segments stay cached once written.
        assert d["map_misses"] > 0.5 * d["host_read_cmds"]


def test_hmb_leaves_random_write_iops_alone() -> None:
    # R1: HMB size does not change random-write IOPS; writes never look up a segment.
    iops = {}
    for hmb in ("off", "240"):
        dev = Device("p32a80", host="linux-4.15", hmb=hmb)
        dev.fill("seq", 4)
        r = dev.run(MIXED | {"rw": "randwrite", "runtime": "300ms"})
        iops[hmb] = float(r.summary.iops.iloc[0])
    assert iops["240"] == pytest.approx(iops["off"], rel=0.02)
