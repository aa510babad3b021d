"""Every shipped profile with an SLC cache gives back superblocks whose data went stale.

Rewriting a region smaller than the cache is what CrystalDiskMark does to its test file and
what most desktop writes look like: the rewritten data invalidates whole SLC superblocks,
which firmware erases and reuses, so the rewrites stay in the cache however often they come.
"""

from __future__ import annotations

import tomllib

import pytest
import ssdtwin
from ssdtwin import Device

GIB = 1 << 30
BITS_PER_CELL = {"tlc": 3, "qlc": 4}
REGION = 512 << 20
PASSES = 4


def slc_profiles() -> list[str]:
    out = []
    for name in ssdtwin.profiles():
        slc = tomllib.loads(ssdtwin.profile_toml(name)).get("slc_cache", {})
        if slc.get("static_gib", 0) + slc.get("dynamic_max_gib", 0) > 0:
            out.append(name)
    return out


def test_some_shipped_profiles_have_an_slc_cache() -> None:
    assert {"wd-black-256", "crucial-p1"} <= set(slc_profiles())


@pytest.mark.parametrize("profile", slc_profiles())
def test_rewriting_a_region_smaller_than_the_cache_stays_in_the_cache(profile: str) -> None:
    p = tomllib.loads(ssdtwin.profile_toml(profile))
    slc, n = p["slc_cache"], p["nand"]
    # A superblock in SLC mode holds one bit per cell: its native bytes over bits per cell.
    native_sb = n["channels"] * n["dies_per_channel"] * n["planes"] * n["pages_per_block"] * n["page_bytes"]
    slc_sb = native_sb // BITS_PER_CELL[n["cell"]]
    assert slc["static_gib"] * GIB >= 2 * REGION, "the region must fit the static cache twice"
    dev = Device(profile, host="none")
    job = {"rw": "write", "bs": "128k", "iodepth": 32, "size": REGION, "loops": PASSES}
    before = dev.counters()
    dev.run(job)
    # Long enough for the write buffer to drain, short of the idle time that starts folding.
    dev.idle(min(1.0, slc.get("fold_idle_ms", 2000.0) / 2000.0))
    c = dev.counters()
    host = c["host_slc_write_bytes"] - before["host_slc_write_bytes"]
    assert host == PASSES * REGION, f"{profile}: only {host / GIB:.2f} GiB of {PASSES * REGION / GIB} went to SLC"
    assert c["nand_native_write_bytes"] - before["nand_native_write_bytes"] == 0
    # What stays cached is the region's last copy; the superblocks of the earlier passes are
    # erased: the cache holds the region's superblocks, one it straddles and the open one.
    assert c["slc_cached_bytes"] == REGION
    assert c["slc_superblocks"] <= -(-REGION // slc_sb) + 2, f"{profile}: {c['slc_superblocks']} superblocks"
    emptied = (PASSES - 1) * REGION // slc_sb - 1
    assert c["erases"] - before["erases"] >= emptied
