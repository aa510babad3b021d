"""``study dirty-recovery``: the phases, and what a secure erase restores."""

from __future__ import annotations

import pytest
from ssdtwin.studies.dirty_recovery import METRICS, PHASES, dirty_recovery_sweep

# A 12 GiB namespace on a 36 GiB slice of the P1, with 1 GiB of static SLC cache.
SMALL = {
    "nand.blocks_per_plane": 48,
    "identity.capacity_bytes": 12 << 30,
    "slc_cache.static_gib": 1.0,
    "slc_cache.dynamic_max_gib": 2.0,
    "slc_cache.fold_high_gib": 2.0,
    "slc_cache.fold_low_gib": 1.0,
}


def test_the_phases_each_measure_read_and_write_and_an_erase_frees_every_superblock() -> None:
    t = dirty_recovery_sweep("crucial-p1", overrides=SMALL, dirty_minutes=0.05, idle_minutes=0.01, measure_s=0.2)
    assert list(zip(t.phase, t.rw, strict=True)) == [(p, rw) for p in PHASES for rw in ("read", "write")]
    writes = t[t.rw == "write"].set_index("phase").mb_per_s
    for phase, metric in METRICS.items():
        assert (t[metric] == writes[phase]).all()
    erased = t[t.phase == "after erase"].iloc[0]
    assert erased.free_superblocks == 48 and erased.slc_cached_gb == 0
    # Random writes leave the drive with less room than an erased one: its writes are slower.
    assert writes["dirty"] < writes["after erase"]
    assert t.dirty_iops.iloc[0] > 0


@pytest.mark.slow
def test_the_p1_recovers_with_idle_and_with_a_secure_erase_as_cdrlabs_measured() -> None:
    """CDRLabs' P1 1 TB: 48.8 MB/s dirty, 1,550.9 MB/s after 30 minutes of idle, 1,584 MB/s
    after a secure erase. Dirty, writes share the QLC programs with GC; idle folds the whole
    cache (`fold_idle_low_gib`) and the writes run into SLC until its 11.2 GiB static part
    fills, 7 of the 10 s measured (hence the wider bound there); erased, the in-cache rate."""
    t = dirty_recovery_sweep("crucial-p1")
    writes = t[t.rw == "write"].set_index("phase").mb_per_s
    assert writes["dirty"] == pytest.approx(48.8, rel=0.25)
    assert writes["after idle"] == pytest.approx(1550.9, rel=0.25)
    assert writes["after erase"] == pytest.approx(1584, rel=0.05)
