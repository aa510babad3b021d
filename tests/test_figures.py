"""What the study figures say: every title names the drive and the host, no figure mixes
binary (MiB, GiB) and decimal (MB, GB) rates and amounts, every labelled line is in a
legend, and the thermal figure marks the drive's thresholds and where it throttled.

The tables are the golden cases' (``tests/golden/study-*.txt``, read only) or small
synthetic ones; nothing here simulates."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from matplotlib.text import Text
from ssdtwin import profile_toml
from ssdtwin.plots import FIGURES
from ssdtwin.plots.base import pyplot
from ssdtwin.plots.thermal import plot_thermal
from ssdtwin.studies.cdm import host_note
from ssdtwin.studies.memory import _report as memory_report
from ssdtwin.studies.memory import mmap_over_malloc
from ssdtwin.studies.thermal import slc_exhaustion, throttle_onset

plt = pyplot()

GOLDEN = Path(__file__).parent / "golden"

#: Each study's table from its golden case (the case's name when it differs from the study's).
GOLDEN_TABLES = {
    "cdm": "study-cdm",
    "endurance": "study-endurance",
    "hmb": "study-hmb-randread",
    "lbaf": "study-lbaf",
    "memory": "study-memory",
    "qd-sweep": "study-qd-sweep",
    "qlc-tr": "study-qlc-tr",
    "qos": "study-qos",
    "read-after-write": "study-read-after-write",
    "slc-write": "study-slc-write",
    "thermal": "study-thermal",
    "zfs-special": "study-zfs-special",
}

#: The study figures checked here (every one but those other modules own and test).
STUDIES = sorted([*GOLDEN_TABLES, "dirty-recovery", "slc-fill", "whole-fill"])

BINARY = re.compile(r"\b(?:MiB|GiB|TiB)\b")
DECIMAL = re.compile(r"\b(?:MB|GB|TB)\b")


def golden_table(name: str) -> pd.DataFrame:
    return pd.DataFrame(json.loads((GOLDEN / f"{GOLDEN_TABLES[name]}.txt").read_text()))


def dirty_recovery_table() -> pd.DataFrame:
    rows = [
        {"phase": phase, "rw": rw, "mb_per_s": speed}
        for phase, r, w in (("fresh", 3500.0, 3000.0), ("dirty", 3400.0, 900.0), ("after idle", 3500.0, 2800.0))
        for rw, speed in (("read", r), ("write", w))
    ]
    return pd.DataFrame(rows).assign(profile="generic-tlc-1tb", host="linux-6.1", dirty_iops=120_000.0)


def fill_table() -> pd.DataFrame:
    written = [float(g) for g in range(1, 11)]
    return pd.DataFrame(
        {
            "written_gb": written,
            "write_mb_per_s": [3000.0] * 4 + [900.0] * 6,
            "slc_cached_gb": [min(g, 4.0) for g in written],
        }
    ).assign(
        profile="generic-tlc-1tb",
        host="linux-6.1",
        bs="128k",
        iodepth=32,
        cache_gb=4.0,
        post_cache_mb_per_s=900.0,
        whole_fill_avg_mb_per_s=1500.0,
    )


def table_for(name: str) -> pd.DataFrame:
    if name == "dirty-recovery":
        return dirty_recovery_table()
    if name in ("slc-fill", "whole-fill"):
        return fill_table()
    table = golden_table(name)
    if name == "memory":
        table = table[table.bench == "memcpy"]
    return table


def texts(fig: Any) -> list[str]:
    """Every text the figure draws: titles, axis labels, legends, annotations, ticks."""
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def unit_families(fig: Any) -> set[str]:
    """The unit families of rates and amounts the figure's texts use (KiB, a block size,
    belongs to neither)."""
    found = set()
    for text in texts(fig):
        if BINARY.search(text):
            found.add("binary")
        if DECIMAL.search(text):
            found.add("decimal")
    return found


def titles(fig: Any) -> str:
    parts = [ax.get_title() for ax in fig.axes]
    if fig._suptitle is not None:
        parts.append(fig._suptitle.get_text())
    return " | ".join(parts)


def legend_texts(fig: Any) -> set[str]:
    legends = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    return {t.get_text() for lg in legends if lg is not None for t in lg.get_texts()}


def test_the_unit_checker_catches_a_mix() -> None:
    fig, ax = plt.subplots()
    ax.set(xlabel="written (GB)", ylabel="MiB/s")
    assert unit_families(fig) == {"binary", "decimal"}
    ax.set(ylabel="MB/s", title="4 KiB reads")
    assert unit_families(fig) == {"decimal"}
    plt.close(fig)


@pytest.mark.parametrize("name", STUDIES)
def test_each_figure_keeps_to_one_unit_family(name: str) -> None:
    fig = FIGURES[name](table_for(name))
    assert len(unit_families(fig)) <= 1, (name, [t for t in texts(fig) if BINARY.search(t) or DECIMAL.search(t)])
    plt.close(fig)


@pytest.mark.parametrize("name", STUDIES)
def test_each_title_names_the_drive_and_the_host(name: str) -> None:
    table = table_for(name)
    fig = FIGURES[name](table)
    said = titles(fig)
    host = str(table.host.iloc[0])
    assert (host if host != "none" else "no host (the drive alone)") in said, (name, said)
    if "profile" in table:
        assert str(table.profile.iloc[0]) in said, (name, said)
    else:
        assert "pool" in said, (name, said)
    plt.close(fig)


@pytest.mark.parametrize("name", STUDIES)
def test_every_labelled_line_is_in_a_legend(name: str) -> None:
    fig = FIGURES[name](table_for(name))
    shown = legend_texts(fig)
    for ax in fig.axes:
        for artist in [*ax.lines, *ax.collections]:
            label = str(artist.get_label())
            if label and not label.startswith("_"):
                assert label in shown, (name, label, sorted(shown))
    plt.close(fig)


def test_qd_sweep_ticks_each_depth_plainly_and_draws_the_p99() -> None:
    table = golden_table("qd-sweep")
    fig = FIGURES["qd-sweep"](table)
    iops = fig.axes[0]
    assert [t.get_text() for t in iops.get_xticklabels()] == ["1", "32"]
    assert any(line.get_label().endswith("p99") for line in fig.axes[1].lines)


def test_hmb_draws_the_p99_beside_the_mean() -> None:
    table = golden_table("hmb")
    fig = FIGURES["hmb"](table)
    lat = fig.axes[1]
    by_label = {line.get_label(): line for line in lat.lines}
    off = table[table.hmb_mib == 0]
    assert list(by_label["HMB off, p99"].get_ydata()) == pytest.approx(list(off.p99_lat_us))
    assert list(by_label["HMB off, mean"].get_ydata()) == pytest.approx(list(off.mean_lat_us))


def test_rates_in_mib_are_drawn_in_mb() -> None:
    table = golden_table("read-after-write")
    fig = FIGURES["read-after-write"](table)
    values = fig.axes[0].patches[0].get_data()[0]
    first = table[table.write_s == table.write_s.iloc[0]]
    assert list(values) == pytest.approx(list(first.read_mib_per_s * 2**20 / 1e6))
    assert "MB/s (10^6 B/s)" in fig.axes[0].get_ylabel()


# ---- thermal ---------------------------------------------------------------------------------


def thermal_table() -> pd.DataFrame:
    """Two airflows on crucial-p1 (WCTEMP 336 K in its profile, CCTEMP the 358 K default):
    the still one fills its SLC cache at 4 s and throttles from 6 s, the other never does."""
    t = [float(s) for s in range(1, 9)]
    still = pd.DataFrame(
        {
            "t_s": t,
            "write_mb_per_s": [1600.0, 1600.0, 1600.0, 150.0, 148.0, 40.0, 40.0, 40.0],
            "temperature_c": [30.0, 40.0, 50.0, 55.0, 60.0, 63.0, 62.5, 62.0],
            "throttle_level": [0, 0, 0, 0, 0, 2, 2, 2],
        }
    ).assign(airflow_m_per_s=0.0)
    moving = still.assign(
        airflow_m_per_s=2.0, throttle_level=0, temperature_c=[28.0, 33.0, 37.0, 40.0, 42.0, 43.0, 44.0, 45.0]
    ).assign(write_mb_per_s=[1600.0] * 8)
    return pd.concat([still, moving], ignore_index=True).assign(profile="crucial-p1", power_w=5.0)


def test_throttle_onset_and_slc_exhaustion_are_read_from_the_table() -> None:
    t = thermal_table()
    still, moving = t[t.airflow_m_per_s == 0], t[t.airflow_m_per_s == 2]
    onset, full = throttle_onset(still), slc_exhaustion(still)
    assert onset is not None and float(onset.t_s) == 6.0
    assert full is not None and float(full.t_s) == 4.0
    assert throttle_onset(moving) is None and slc_exhaustion(moving) is None


def test_thermal_figure_marks_the_thresholds_from_the_profile_and_the_throttle_onset() -> None:
    table = thermal_table().assign(host="linux-6.1", bs="128k")
    identity = tomllib.loads(profile_toml("crucial-p1"))["identity"]
    wctemp_c = identity["wctemp_kelvin"] - 273.15
    cctemp_c = identity.get("cctemp_kelvin", 358) - 273.15
    fig = plot_thermal(table)
    temp, rate = fig.axes
    flat = [line for line in temp.lines if len(set(line.get_ydata())) == 1 and list(line.get_xdata()) == [0, 1]]
    assert sorted(float(line.get_ydata()[0]) for line in flat) == pytest.approx(sorted([wctemp_c, cctemp_c]))
    assert any("WCTEMP" in t for t in legend_texts(fig)) and any("CCTEMP" in t for t in legend_texts(fig))
    (onset,) = [line for line in temp.lines if line.get_label() == "throttle onset, 0 m/s"]
    assert list(onset.get_xdata()) == [6.0] and list(onset.get_ydata()) == [63.0]
    assert any(t.startswith("0 m/s airflow (throttles at 6 s)") for t in legend_texts(fig))
    (full,) = [line for line in rate.lines if str(line.get_label()).startswith("SLC cache full, 0 m/s")]
    assert list(full.get_ydata()) == [150.0]
    assert "crucial-p1 on linux-6.1" in temp.get_title() and "128k" in temp.get_title()
    plt.close(fig)


def test_thermal_thresholds_in_the_table_win_over_the_profile_s() -> None:
    table = thermal_table().assign(wctemp_c=70.0, cctemp_c=80.0)
    fig = plot_thermal(table)
    ys = sorted(float(line.get_ydata()[0]) for line in fig.axes[0].lines if list(line.get_xdata()) == [0, 1])
    assert ys == [70.0, 80.0]
    plt.close(fig)


# ---- memory and cross-study notes ------------------------------------------------------------


def test_memory_figure_and_report_give_mmap_against_malloc() -> None:
    table = golden_table("memory")
    memcpy = table[table.bench == "memcpy"]
    pairs = mmap_over_malloc(memcpy)
    keys = ["kernel", "madvise", "pattern", "threads"]
    mmap = memcpy[memcpy.alloc == "mmap"].set_index(keys).mb_per_s
    malloc = memcpy[memcpy.alloc == "malloc"].set_index(keys).mb_per_s
    want = (mmap / malloc).dropna()
    assert len(pairs) == len(want) > 0
    assert sorted(pairs.ratio) == pytest.approx(sorted(want))
    fig = FIGURES["memory"](memcpy)
    assert sorted(t for t in texts(fig) if re.fullmatch(r"x[0-9.]+", t)) == sorted(f"x{r:.2f}" for r in want)
    text = memory_report(table)
    wins = int((want > 1).sum())
    verdict = "in every configuration" if wins == len(want) else f"in {wins} of {len(want)} configurations"
    assert f"memcpy: mmap (a mapped file) beats malloc (swap) {verdict}" in text
    assert "fio: mmap+memcpy reaches" in text
    plt.close(fig)


def test_cdm_says_why_qd_sweep_on_linux_reports_more() -> None:
    table = golden_table("cdm")
    note = host_note(table)
    q32 = table[(table.test == "RND4K Q32T1") & (table.op == "read")]
    assert "qd-sweep" in note and f"{float(q32.iops.iloc[0]):,.0f} IOPS" in note
    assert host_note(table.assign(host="linux-6.1")) == ""
