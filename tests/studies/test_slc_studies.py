"""The SLC-cache studies: qlc-tr (R2), slc-write and read-after-write (R3). Each runs on a
shipped profile with a smaller cache, so the mechanisms show in a few simulated seconds,
and is checked against figures derived from the profile's parameters."""

from __future__ import annotations

import math
import tomllib

import pandas as pd
import pytest
import ssdtwin
from ssdtwin.plots.qlc_tr import plot_qlc_tr
from ssdtwin.plots.read_after_write import plot_read_after_write
from ssdtwin.plots.slc_write import plot_slc_write
from ssdtwin.studies import REGISTRY
from ssdtwin.studies.qlc_tr import decomposition, profile_tr_us, qlc_tr_sweep, report
from ssdtwin.studies.read_after_write import read_after_write_sweep
from ssdtwin.studies.read_after_write import report as raw_report
from ssdtwin.studies.slc_write import knee, slc_write_sweep
from ssdtwin.testing import ideal_overrides

# Folding starts once 4 GiB are cached: during the 4th append, and the reads after it.
SMALL_FOLD = {"slc_cache.fold_high_gib": 4.0, "slc_cache.fold_low_gib": 3.0} | ideal_overrides("crucial-p1")


@pytest.fixture(scope="module")
def qlc_table() -> pd.DataFrame:
    return qlc_tr_sweep("crucial-p1", max_written_gib=7, reads=100_000, overrides=SMALL_FOLD)


def test_qlc_tr_latency_steps_when_the_first_gib_is_folded(qlc_table: pd.DataFrame) -> None:
    t = qlc_table
    assert list(t.written_gib) == list(range(1, 8))
    in_slc = t[t.slc_resident_fraction == 1.0]
    in_qlc = t[t.slc_resident_fraction == 0.0]
    assert list(in_slc.written_gib) == [1, 2, 3] and list(in_qlc.written_gib) == [5, 6, 7]
    # The step is the difference of the two modes' tR: everything else on the path is the same.
    tr = profile_tr_us("crucial-p1")
    quiet_qlc = in_qlc.mean_lat_us.min()
    assert quiet_qlc - in_slc.mean_lat_us.mean() == pytest.approx(tr["qlc"] - tr["slc"], abs=0.5)
    # Reads in SLC never wait on the drive: their spread is the host's (linux-4.15, costs
    # divided by its core's speed): the wakeup's and the calls' costs within 3 sigma (the
    # calls are at most the path besides tR), the calls held up (two per read, chance c each,
    # for a mean t: P(wait > x) = 2c e^(-x / t), so t ln(2c / 1 %) at the p99) and fio's
    # bucket (1/64).
    host = tomllib.loads(ssdtwin.host_toml("linux-4.15"))
    kernel, speed = host["kernel"], host["cpu"]["speed_factor"]
    wakeup_sd = kernel["wakeup_cv"] * kernel["wakeup_ns"] / 1e3 / speed
    calls_sd = kernel["call_cv"] * (in_slc.mean_lat_us.max() - tr["slc"])
    held_up_p99 = kernel["preempt_us"] / speed * math.log(2 * kernel["call_preempt_chance"] / 0.01)
    body = 3 * math.hypot(wakeup_sd, calls_sd)
    assert in_slc.p99_lat_us.max() <= in_slc.mean_lat_us.max() * (1 + 1 / 64) + body + held_up_p99
    # Folding moved at least the first GiB, and nothing before the cache reached 4 GiB.
    assert t.folded_gib.iloc[-1] >= 1.0 and t.folded_gib.iloc[2] == 0.0


def test_qlc_tr_report_names_the_step_and_the_true_tr(qlc_table: pd.DataFrame) -> None:
    tr = profile_tr_us("crucial-p1")
    text = report(qlc_table, tr)
    assert "The first GiB left SLC between 4 and 5 GiB written." in text
    d = decomposition(qlc_table, tr)
    assert list(d["mode"]) == ["slc", "qlc"]
    assert list(d.true_tr_us) == [46.0, 105.0]
    # R2's allowance (9.9 us) is less than the twin's path besides tR, so it overestimates tR.
    assert (d.inferred_tr_us > d.true_tr_us).all()
    assert list(d.inferred_tr_us) == pytest.approx(list(d.mean_lat_us - 9.9))
    assert f"{d.true_tr_us[0]:6.1f} us" in text


def test_slc_write_falls_from_the_write_path_to_tlc_program_bandwidth() -> None:
    t = slc_write_sweep(
        "wd-black-256", seconds=4, overrides={"slc_cache.static_gib": 1.0} | ideal_overrides("wd-black-256")
    )
    assert list(t.columns) == [
        "t_s", "write_mib_per_s", "written_gb", "slc_cached_gb", "folded_gb", "profile", "host", "bs", "threads"
    ]  # fmt: skip
    k = knee(t)
    assert k is not None
    nand = tomllib.loads(ssdtwin.profile_toml("wd-black-256"))["nand"]
    # After the cache: every die programs 2 planes x 16 KiB per tPROG plus the transfer in.
    per_die = 2 * 16384 / (nand["tlc"]["t_prog_us"] * 1e-6 + 100e-9 + 2 * 16384 / (nand["channel_mts"] * 1e6))
    assert k["after_mib_per_s"] == pytest.approx(nand["channels"] * per_die / 2**20, rel=0.01)
    # The knee comes when the 1 GiB cache is full (less what the write buffer holds).
    assert k["written_gb"] == pytest.approx(2**30 / 1e9, rel=0.05)
    assert t.slc_cached_gb.max() == pytest.approx(2**30 / 1e9, rel=0.01)
    assert k["before_mib_per_s"] > 3 * k["after_mib_per_s"]


def test_knee_is_none_without_a_fall() -> None:
    flat = pd.DataFrame({"write_mib_per_s": [700.0, 690, 695, 700], "written_gb": [0.7, 1.4, 2.1, 2.8]})
    assert knee(flat) is None
    assert knee(flat.head(2)) is None


def test_read_after_write_slows_reads_of_the_folding_data() -> None:
    t = read_after_write_sweep("wd-black-256", write_seconds=[0, 1], read_seconds=3)
    assert list(t.columns) == [
        "write_s",
        "t_s",
        "read_mib_per_s",
        "written_gb",
        "slc_cached_gb",
        "folded_gb",
        "profile",
        "host",
        "bs",
    ]
    fresh, after = t[t.write_s == 0], t[t.write_s == 1]
    # A formatted drive reads nothing from NAND: the same rate every second.
    assert fresh.read_mib_per_s.max() - fresh.read_mib_per_s.min() < 1
    # Right after writing, the first reads contend with folding (which the reads started).
    assert after.read_mib_per_s.iloc[0] < 0.6 * fresh.read_mib_per_s.iloc[0]
    assert after.folded_gb.iloc[0] > 0
    # Once past the data written, reads are of unmapped LBAs again.
    assert after.read_mib_per_s.iloc[-1] == pytest.approx(fresh.read_mib_per_s.iloc[0], rel=0.01)
    text = raw_report(t)
    assert text.splitlines()[3].split()[:2] == ["1", f"{after.written_gb.iloc[0]:.2f}"]
    assert "by t = 3 s" in text or "by t = 2 s" in text


def test_reads_after_the_cache_overflowed_meet_urgent_folding_first() -> None:
    # A 0.5 GiB static cache that 1 s of writing (~0.6 GB) overflows; reads start folding.
    # Urgent above 0.3 GiB cached, fold programs are never suspended: reads wait out whole
    # TLC programs. With the watermark above the cache, reads suspend background folds.
    small = {"slc_cache.static_gib": 0.5}
    rates: dict[float, list[float]] = {}
    for watermark in (0.3, 1.0):
        t = read_after_write_sweep(
            "wd-black-256",
            write_seconds=[1],
            read_seconds=4,
            overrides={**small, "slc_cache.fold_urgent_gib": watermark},
        )
        assert t.written_gb.iloc[0] > 0.5 * 2**30 / 1e9
        rates[watermark] = list(t.read_mib_per_s)
    urgent, background = rates[0.3], rates[1.0]
    assert urgent[0] < 0.5 * background[0]
    assert urgent[0] < urgent[1] < urgent[2]
    assert urgent[-1] == pytest.approx(background[-1], rel=0.01)


def test_the_studies_are_registered() -> None:
    names = [s.name for s in REGISTRY]
    assert {"qlc-tr", "slc-write", "read-after-write"} <= set(names)


# ---- figures --------------------------------------------------------------------------------


def test_figures_draw_each_second_over_the_second_it_measures() -> None:
    # Rows are seconds ending at t_s: the second ending at 2 s is drawn over (1 s, 2 s].
    t = pd.DataFrame({"t_s": [1, 2, 3], "write_mib_per_s": [700.0, 300.0, 200.0], "written_gb": [0.7, 1.0, 1.2]})
    t = t.assign(slc_cached_gb=0.0, folded_gb=0.0, profile="wd-black-256", host="freebsd-11")
    ax = plot_slc_write(t).axes[0]
    values, edges, _ = ax.patches[0].get_data()
    # Drawn in MB/s (10^6 B/s), the unit of the data written beside it.
    assert list(edges) == [0.0, 1.0, 2.0, 3.0] and list(values) == pytest.approx(
        [v * 2**20 / 1e6 for v in (700, 300, 200)]
    )
    assert "wd-black-256" in ax.get_title() and "freebsd-11" in ax.get_title()


def test_read_after_write_curves_stay_apart_and_qlc_tr_shading_is_in_the_legend() -> None:
    t = read_after_write_sweep("wd-black-256", write_seconds=[0, 5, 7], read_seconds=2)
    ax = plot_read_after_write(t).axes[0]
    styles = {(patch.get_linestyle(), patch.get_linewidth()) for patch in ax.patches}
    assert len(styles) == 3
    assert "wd-black-256" in ax.get_title()
    q = pd.DataFrame({"written_gib": [1, 2], "mean_lat_us": [60.0, 120.0], "p99_lat_us": [61.0, 130.0]}).assign(
        slc_resident_fraction=[1.0, 0.0], profile="crucial-p1", host="linux-4.15"
    )
    legend = plot_qlc_tr(q).axes[0].get_legend()
    assert "share of the first GiB in SLC" in [text.get_text() for text in legend.get_texts()]
