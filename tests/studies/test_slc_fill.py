"""``study slc-fill`` on a profile built from a sheet: the review's figures come out as the
sheet's ratings, through the mechanisms the builder fitted."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from ssdtwin import _ssdtwin
from ssdtwin.datasheet import build_from_sheet, parse_sheet
from ssdtwin.datasheet.build import write_rates_mbps
from ssdtwin.studies.slc_fill import fill_sweep

SHEET = """[drive]
name = "Small 256GB"
capacity_gb = 256
interface = "pcie3x4"
cell = "tlc"
dram_mib = 256
seq_read_mbps = 3000
seq_write_mbps = 1500
rand_read_iops = 300000
rand_write_iops = 300000
slc_cache_gb = 20
post_cache_write_mbps = 500
"""


@pytest.mark.slow
def test_a_fill_of_a_built_drive_shows_its_rated_cache_and_rates(tmp_path: Path) -> None:
    path = tmp_path / "small.toml"
    path.write_text(build_from_sheet(parse_sheet(SHEET)).toml())
    rates = write_rates_mbps(tomllib.loads(path.read_text()))
    cache_bytes = dict(_ssdtwin.derived(str(path), []))["slc_cache_max_bytes"]
    s = fill_sweep(str(path)).iloc[0]
    # In the cache: the SLC programs' rate, with the write buffer keeping them all busy at QD1.
    assert s.in_cache_mb_per_s == pytest.approx(rates["slc"], rel=0.03)
    # The speed drops when the cache (static and dynamic, all free on an erased drive) is full.
    assert s.cache_gb == pytest.approx(cache_bytes / 1e9, rel=0.03)
    # After it: at most the native programs' rate; less by the dynamic cache folded back as
    # the drive fills, which takes program time from the host's writes.
    assert 0.85 * rates["tlc"] < s.post_cache_mb_per_s <= 1.01 * rates["tlc"]
    assert s.post_cache_mb_per_s < s.whole_fill_avg_mb_per_s < s.in_cache_mb_per_s
