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
from types import SimpleNamespace
from typing import Any, cast

import pandas as pd
import pytest
from matplotlib.text import Text
from ssdtwin import profile_toml
from ssdtwin.cli.fio import _title as fio_title
from ssdtwin.plots import FIGURES
from ssdtwin.plots.base import pyplot
from ssdtwin.plots.latency import plot_latency
from ssdtwin.plots.probe import plot_cliff, plot_die_scan, plot_qd, plot_rounds, plot_span
from ssdtwin.plots.thermal import plot_thermal
from ssdtwin.probe.plan import ProbeResult
from ssdtwin.probe.report import figures as probe_figures
from ssdtwin.studies.cdm import host_note
from ssdtwin.studies.memory import _report as memory_report
from ssdtwin.studies.memory import mmap_over_malloc
from ssdtwin.studies.slc_write import knee
from ssdtwin.studies.slc_write import report as slc_write_report
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


# ---- probe figures ---------------------------------------------------------------------------

TARGET = "--twin wd-black-256"


def probe_cliff() -> pd.DataFrame:
    written = [k * 0.25e9 for k in range(1, 17)]
    return pd.DataFrame({"written_bytes": written, "bytes_per_s": [7.3e8] * 8 + [2.0e8] * 8})


def probe_recovery() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "trigger": ["idle", "idle", "idle", "reads"],
            "seconds": [2.0, 10.0, 60.0, 10.0],
            "recovered_bytes": [1.9e7, 1.9e7, 1.9e7, 4.8e8],
            "burst_bytes": [6.9e8] * 4,
        }
    )


def probe_span() -> pd.DataFrame:
    spans = [16 << 20, 64 << 20, 256 << 20, 512 << 20, 1 << 30, 2 << 30, 4 << 30, 6 << 30]
    return pd.DataFrame({"span_bytes": spans, "iodepth": 1, "refined": False, "iops": 10_800.0, "mean_lat_us": 92.5})


def probe_qd() -> pd.DataFrame:
    depths = [1 << i for i in range(9)]
    return pd.DataFrame(
        {
            "iodepth": depths,
            "iops": [min(11_000.0 * d, 107_000.0) for d in depths],
            "mean_lat_us": [91.0 * max(1, d / 10) for d in depths],
            "p99_lat_us": [112.0 * max(1, d / 10) for d in depths],
        }
    )


def probe_rounds() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "round": [1, 2, 3, 4, 5],
            "iops": [48_000.0, 48_000.0, 35_500.0, 40_600.0, 38_500.0],
            "in_window": [False, False, True, True, True],
        }
    )


def probe_region() -> pd.DataFrame:
    rows = [("qd1", 1, 20_800.0)]
    rows += [("unit scan", k, 33_800.0 if k < 16 else 64_000.0) for k in (1, 2, 4, 8, 16)]
    rows += [("die scan", n, min(34_000.0 * n, 260_000.0)) for n in (1, 2, 4, 8, 12, 16, 24, 32, 64, 128, 256)]
    rows += [("transfer", 4096, 20_000.0)]
    return pd.DataFrame(rows, columns=["test", "x", "iops"]).assign(region="first")


PROBE_FIGURES: dict[str, Any] = {
    "cliff": lambda target: plot_cliff(probe_cliff(), 2.2e9, probe_recovery(), target),
    "cliff alone": lambda target: plot_cliff(probe_cliff(), 2.2e9, None, target),
    "span": lambda target: plot_span(probe_span(), 1 << 30, target),
    "qd": lambda target: plot_qd(probe_qd(), target),
    "gc-rounds": lambda target: plot_rounds(probe_rounds(), target),
    "die-scan": lambda target: plot_die_scan(probe_region(), target, 32 << 10),
}


def labelled_artists(fig: Any) -> list[str]:
    """The labels of every line, patch and collection drawn that asks for a legend entry."""
    return [
        str(artist.get_label())
        for ax in fig.axes
        for artist in [*ax.lines, *ax.collections, *ax.patches]
        if str(artist.get_label()) and not str(artist.get_label()).startswith("_")
    ]


def tick_labels(fig: Any) -> list[str]:
    fig.canvas.draw()
    return [t.get_text() for ax in fig.axes for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]]


@pytest.mark.parametrize("name", PROBE_FIGURES)
def test_probe_figures_keep_to_one_unit_family_and_say_which(name: str) -> None:
    fig = PROBE_FIGURES[name](TARGET)
    said = texts(fig)
    assert len(unit_families(fig)) <= 1, (name, [t for t in said if BINARY.search(t) or DECIMAL.search(t)])
    if "binary" in unit_families(fig):
        assert any("2^30 B" in t for t in said), name
    if "decimal" in unit_families(fig):
        assert any("10^9 B" in t or "10^6 B" in t for t in said), name
    plt.close(fig)


def test_the_cliff_counts_in_decimal_units() -> None:
    cliff = probe_cliff()
    fig = plot_cliff(cliff, 2.2e9, probe_recovery(), TARGET)
    assert unit_families(fig) == {"decimal"}
    rate, recovered = fig.axes
    (line,) = [ln for ln in rate.lines if ln.get_label() == "write rate"]
    assert list(line.get_xdata()) == pytest.approx(list(cliff.written_bytes / 1e9))
    assert list(line.get_ydata()) == pytest.approx(list(cliff.bytes_per_s / 1e6))
    assert "cliff at 2.20 GB" in legend_texts(fig)
    (idle,) = [ln for ln in recovered.lines if ln.get_label() == "after idle"]
    assert list(idle.get_ydata()) == pytest.approx([19.0, 19.0, 19.0])
    assert [t for t in tick_labels(fig) if t in ("2", "10", "60")] == ["2", "10", "60"]
    plt.close(fig)


def test_the_span_counts_in_binary_units_ticked_plainly() -> None:
    fig = plot_span(probe_span(), 1 << 30, TARGET)
    assert unit_families(fig) == {"binary"}
    assert "2^20 B" in fig.axes[0].get_xlabel() and "2^30 B" in fig.axes[0].get_xlabel()
    labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert labels == ["16 MiB", "64 MiB", "256 MiB", "1 GiB", "4 GiB"]
    plt.close(fig)


def test_powers_of_two_axes_are_ticked_plainly() -> None:
    qd = plot_qd(probe_qd(), TARGET)
    assert [t.get_text() for t in qd.axes[0].get_xticklabels()] == [str(1 << i) for i in range(9)]
    scan = plot_die_scan(probe_region(), TARGET, 32 << 10)
    assert [t.get_text() for t in scan.axes[0].get_xticklabels()] == [str(1 << i) for i in range(9)]
    for fig in (qd, scan):
        assert not [t for t in tick_labels(fig) if "^" in t or "$" in t]
        plt.close(fig)


@pytest.mark.parametrize("name", PROBE_FIGURES)
def test_every_probe_line_is_in_a_legend(name: str) -> None:
    fig = PROBE_FIGURES[name](TARGET)
    shown = legend_texts(fig)
    for ax in fig.axes:
        for line in ax.lines:
            assert not str(line.get_label()).startswith("_"), (name, "a line without a label")
    for label in labelled_artists(fig):
        assert label in shown, (name, label, sorted(shown))
    plt.close(fig)


@pytest.mark.parametrize("name", PROBE_FIGURES)
def test_each_probe_title_names_the_target(name: str) -> None:
    fig = PROBE_FIGURES[name](TARGET)
    assert "wd-black-256 (twin)" in titles(fig)
    assert "--twin" not in titles(fig)
    plt.close(fig)
    fig = PROBE_FIGURES[name]("/dev/nvme0n1")
    assert "/dev/nvme0n1" in titles(fig)
    plt.close(fig)


def test_the_probe_report_draws_its_figures_about_its_target() -> None:
    result = ProbeResult(
        target=TARGET,
        facts=cast(Any, None),
        settings=cast(Any, None),
        qd=cast(Any, SimpleNamespace(table=probe_qd())),
        gc=cast(Any, SimpleNamespace(table=probe_rounds())),
    )
    drawn = dict(probe_figures(result))
    assert sorted(drawn) == ["gc-rounds", "qd"]
    for fig in drawn.values():
        assert titles(fig).startswith("wd-black-256 (twin): ")
        plt.close(fig)


# ---- fio's latency figure --------------------------------------------------------------------


def latency_hist() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "direction": ["read"] * 5,
            "lat_us": [90.0, 120.0, 130.0, 240.0, 260.0],
            "count": [100, 300, 200, 20, 3],
        }
    )


def latency_series(ends: list[float], partial_s: float | None) -> pd.DataFrame:
    """Windows of 0.1 s ending at ``ends`` after the row at time 0 (no I/Os yet), and a
    last window ``partial_s`` long that the run's end cut short."""
    rows: list[dict[str, object]] = [{"time_s": 0.0, "window_s": 0.0, "partial": False}]
    for k, end in enumerate(ends):
        rows.append(
            dict[str, object]({"time_s": end, "window_s": 0.1, "partial": False})
            | {"read_p50_lat_us": 130.0 + k, "read_p99_lat_us": 249.0 + k, "read_p999_lat_us": 257.0 + k}
        )
    if partial_s is not None:
        end = (ends[-1] if ends else 0.0) + partial_s
        rows.append(
            dict[str, object]({"time_s": end, "window_s": partial_s, "partial": True})
            | {"read_p50_lat_us": 243.0, "read_p99_lat_us": 243.0, "read_p999_lat_us": 243.0}
        )
    return pd.DataFrame(rows)


TITLE = "p32a80 on linux-6.1 — r: randread 4k"


def test_one_window_is_drawn_across_it_with_a_plain_time_axis() -> None:
    fig = plot_latency(latency_hist(), latency_series([0.1], 8.3e-5), TITLE)
    over_time = fig.axes[1]
    steps = {str(p.get_label()): p for p in over_time.patches}
    assert sorted(steps) == ["read p50", "read p99", "read p99.9"]
    values, edges = steps["read p50"].get_data()[:2]
    assert list(values) == [130.0] and list(edges) == pytest.approx([0.0, 0.1])
    assert over_time.get_xlim()[0] == 0.0
    fig.canvas.draw()
    assert over_time.xaxis.get_offset_text().get_text() == ""
    assert "1 whole window" in over_time.get_xlabel()
    assert "per 100 ms window" in over_time.get_title()
    (cut,) = [ln for ln in over_time.lines if ln.get_label() == "last window, cut short by the run's end"]
    assert list(cut.get_ydata()) == [243.0]
    plt.close(fig)


def test_many_windows_are_steps_with_no_note() -> None:
    ends = [round(0.1 * k, 1) for k in range(1, 21)]
    fig = plot_latency(latency_hist(), latency_series(ends, None), TITLE)
    over_time = fig.axes[1]
    (p99,) = [p for p in over_time.patches if p.get_label() == "read p99"]
    values, edges = p99.get_data()[:2]
    assert len(values) == 20 and list(edges) == pytest.approx([0.0, *ends])
    assert over_time.get_xlabel() == "time (s)"
    assert not [ln for ln in over_time.lines if str(ln.get_label()).startswith("last window")]
    plt.close(fig)


@pytest.mark.parametrize("ends", [[0.1], [0.1, 0.2], [round(0.1 * k, 1) for k in range(1, 21)]])
def test_the_latency_figure_says_what_it_shows(ends: list[float]) -> None:
    fig = plot_latency(latency_hist(), latency_series(ends, 3e-5), TITLE)
    assert fig.get_suptitle() == TITLE
    assert len(unit_families(fig)) <= 1
    shown = legend_texts(fig)
    for label in labelled_artists(fig):
        assert label in shown, (label, sorted(shown))
    fig.canvas.draw()
    distribution, over_time = fig.axes
    ticks = [*distribution.get_xticklabels(which="both"), *over_time.get_yticklabels(which="both")]
    plain = [t.get_text() for t in ticks if t.get_text()]
    assert plain and not [t for t in plain if "$" in t or "^" in t or "times" in t], plain
    assert {"100", "200"} <= set(plain)
    plt.close(fig)


def test_fio_titles_name_the_drive_and_the_host() -> None:
    result = SimpleNamespace(json={"jobs": [{"jobname": "r", "job options": {"rw": "randread", "bs": "4k"}}]})
    assert fio_title(cast(Any, result), "p32a80", "linux-6.1") == TITLE


# ---- the slc-write report --------------------------------------------------------------------


def test_slc_write_report_gives_rates_in_decimal_mb() -> None:
    table = pd.DataFrame({"write_mib_per_s": [700.0, 700, 400, 210, 210, 210]})
    table["written_gb"] = (table.write_mib_per_s * 2**20 / 1e9).cumsum()
    k = knee(table)
    assert k is not None
    text = slc_write_report(table)
    before, after = (round(k[f"{w}_mib_per_s"] * 2**20 / 1e6) for w in ("before", "after"))
    assert f"{before} MB/s before, {after} MB/s after (MB = 10^6 B, GB = 10^9 B" in text
    assert (before, after) == (734, 220)
    assert 'prints 700 and 210 "MB/s"' in text
    assert "MiB" not in text
    flat = slc_write_report(pd.DataFrame({"write_mib_per_s": [500.0] * 4, "written_gb": [0.5, 1.0, 1.6, 2.1]}))
    assert f"median {round(500 * 2**20 / 1e6)} MB/s; MB = 10^6 B" in flat
