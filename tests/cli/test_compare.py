"""``ssdtwin compare``: study tables, sweep results and fio JSON (the twin's and real fio's)
loaded, normalised and drawn on one figure, and every input it refuses refused in one line
with exit status 2."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from ssdtwin.cli import main
from ssdtwin.comparison import OTHER_STUDIES, STUDY_AXES, compare, fio_records, load, percentile_column
from ssdtwin.plots.compare import plot_compare_fio, plot_compare_table
from ssdtwin.studies import REGISTRY
from ssdtwin.sweep import from_dict, read_results, sweep

from ..helpers import REFERENCE_DIR, REPO, Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]
FIO = shutil.which("fio")
PNG = b"\x89PNG\r\n\x1a\n"


def fio_json(path: Path) -> dict[str, Any]:
    """fio's JSON document in ``path`` (the files here hold only JSON)."""
    doc = json.loads(path.read_text())
    assert isinstance(doc, dict)
    return doc


def labelled_lines(ax: Any) -> list[Any]:
    """The lines of ``ax`` that have a legend entry."""
    return [line for line in ax.get_lines() if not str(line.get_label()).startswith("_")]


@pytest.fixture(scope="module")
def slc_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``ssdtwin study slc-write`` for 3 s on two drives, each in its own directory."""
    root = tmp_path_factory.mktemp("slc")
    out = {}
    for profile in ("p32a80", "crucial-p1"):
        status = main(["study", "slc-write", "--profile", profile, "--seconds", "3", "--out", str(root / profile)])
        assert status == 0
        out[profile] = root / profile
    return out


@pytest.fixture
def twin_json(run_main: RunMain, tmp_path: Path) -> Path:
    """``ssdtwin fio --output-format=json`` of 100 ms of 4 KiB random reads on p32a80."""
    job = ["--name=r", "--rw=randread", "--bs=4k", "--size=64m", "--runtime=100ms", "--time_based"]
    ran = run_main("fio", "--profile", "p32a80", *job, "--output-format=json")
    assert ran.status == 0, ran
    path = tmp_path / "twin.json"
    path.write_text(ran.out)
    return path


# ---- study tables --------------------------------------------------------------------------


def test_the_default_axes_name_studies() -> None:
    # Every study is known: drawn on default axes, or named as one that needs --x and --y.
    assert set(STUDY_AXES) | set(OTHER_STUDIES) == {s.name for s in REGISTRY} | {"zfs-special"}
    assert {"slc-write", "qd-sweep", "cdm", "hmb"} <= set(STUDY_AXES)


def test_two_drives_slc_write_overlaid(slc_outputs: dict[str, Path], run_main: RunMain, tmp_path: Path) -> None:
    a = slc_outputs["p32a80"] / "slc-write.csv"
    b = slc_outputs["crucial-p1"] / "slc-write.json"  # one as CSV, one as JSON records
    ran = run_main("compare", a, b, "--out", "both.png", "--table", "both.csv")
    assert ran.status == 0, ran
    assert ran.out == "wrote both.png, both.csv\n"
    assert (tmp_path / "both.png").read_bytes()[:8] == PNG
    written = pd.read_csv(tmp_path / "both.csv")
    assert list(dict.fromkeys(written.series)) == ["p32a80 on freebsd-11", "crucial-p1 on freebsd-11"]

    # The study's axes: its rate against the data written, one line per drive.
    c = compare([a, b])
    assert (c.x, c.y) == ("written_gb", "write_mib_per_s")
    assert c.title == "slc-write: p32a80 on freebsd-11 vs crucial-p1 on freebsd-11"
    fig = plot_compare_table(c.table, c.x, c.y, c.title)
    ax = fig.axes[0]
    lines = labelled_lines(ax)
    assert [line.get_label() for line in lines] == ["p32a80 on freebsd-11", "crucial-p1 on freebsd-11"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [line.get_label() for line in lines]
    for line, path in zip(lines, (a, b), strict=True):
        study = pd.read_csv(path) if path.suffix == ".csv" else pd.DataFrame(json.loads(path.read_text()))
        assert list(line.get_xdata()) == pytest.approx(list(study.written_gb))
        assert list(line.get_ydata()) == pytest.approx(list(study.write_mib_per_s))
    assert ax.get_xlabel() == "written (GB, 10^9 B)" and ax.get_ylabel() == "write (MiB/s, 2^20 B/s)"
    plt.close(fig)
    # The crucial-p1 writes into its SLC cache far faster than the DRAM-less p32a80.
    means = c.table.groupby("series", sort=False).write_mib_per_s.mean()
    assert means["crucial-p1 on freebsd-11"] > 3 * means["p32a80 on freebsd-11"]


def test_study_directory_labels_and_json(slc_outputs: dict[str, Path], run_main: RunMain) -> None:
    # The study's output directory stands for its table; --label names the series in order.
    ran = run_main(
        "compare", slc_outputs["p32a80"], slc_outputs["crucial-p1"], "--label", "A", "--label", "B", "--json"
    )
    assert ran.status == 0, ran
    records = json.loads(ran.out)
    study = pd.read_csv(slc_outputs["crucial-p1"] / "slc-write.csv")
    b = [r for r in records if r["series"] == "B"]
    assert [r["write_mib_per_s"] for r in b] == pytest.approx(list(study.write_mib_per_s))
    assert {r["series"] for r in records} == {"A", "B"}
    assert Path("compare.png").read_bytes()[:8] == PNG


def test_x_and_y_override_and_one_drive_twice(slc_outputs: dict[str, Path]) -> None:
    path = slc_outputs["p32a80"] / "slc-write.csv"
    c = compare([path, path], x="t_s", y="slc_cached_gb")
    assert (c.x, c.y) == ("t_s", "slc_cached_gb")
    # Two runs of one drive are told apart by their place among the files.
    assert list(dict.fromkeys(c.table.series)) == ["p32a80 on freebsd-11 [file 1]", "p32a80 on freebsd-11 [file 2]"]


def test_unknown_column_lists_the_columns(slc_outputs: dict[str, Path], run_main: RunMain) -> None:
    path = slc_outputs["p32a80"] / "slc-write.csv"
    ran = run_main("compare", path, "--x", "t_s", "--y", "nope")
    assert_one_line_error(ran, "--y nope", str(path), "its columns: t_s, write_mib_per_s, written_gb")
    ran = run_main("compare", path, "--by", "colour")
    assert_one_line_error(ran, "--by colour", "its columns: t_s")
    assert not Path("compare.png").exists()


def test_a_table_without_default_axes_asks_for_them(tmp_path: Path, run_main: RunMain) -> None:
    pd.DataFrame({"a": [1, 2], "b": [3.0, 4.0]}).to_csv(tmp_path / "mine.csv", index=False)
    assert_one_line_error(run_main("compare", "mine.csv"), "give --x and --y", "its columns: a, b")
    assert run_main("compare", "mine.csv", "--x", "a", "--y", "b").status == 0


def test_rows_that_a_line_cannot_hold_ask_for_by(tmp_path: Path, run_main: RunMain) -> None:
    table = pd.DataFrame({"qd": [1, 1, 4, 4], "rw": ["read", "write"] * 2, "iops": [10.0, 20, 30, 40]})
    table.to_csv(tmp_path / "t.csv", index=False)
    ran = run_main("compare", "t.csv", "--x", "qd", "--y", "iops")
    assert_one_line_error(ran, "has 2 rows at qd=1", "they differ in rw", "--by")
    c = compare([Path("t.csv")], x="qd", y="iops", by=["rw"])
    assert list(dict.fromkeys(c.table.series)) == ["t.csv, rw=read", "t.csv, rw=write"]


# ---- sweeps ------------------------------------------------------------------------------


@pytest.fixture
def sweep_dir(tmp_path: Path) -> Path:
    """A sweep of 4 KiB and 64 KiB random reads at QD1 and QD8 on a 1 GiB drive, 20 ms each."""
    grid = from_dict(
        {
            "sweep": {
                "host": "none",
                "set": {"identity.capacity_bytes": 1 << 30},
                "job": {
                    "rw": "randread",
                    "ioengine": "libaio",
                    "iodepth": [1, 8],
                    "bs": ["64k", "4k"],
                    "size": "64m",
                    "runtime": "20ms",
                    "time_based": True,
                },
            }
        }
    )
    out = tmp_path / "runs"
    sweep(grid, out=out)
    return out


def test_a_sweep_on_two_axes(sweep_dir: Path, run_main: RunMain) -> None:
    results = read_results(sweep_dir)
    # "bs" and "iodepth" are short for the grid's job.bs and job.iodepth.
    c = compare([sweep_dir], x="bs", y="iops", by=["iodepth"])
    assert (c.x, c.y) == ("job.bs", "iops")
    series = list(dict.fromkeys(c.table.series))
    assert series == ["generic-tlc-1tb on none, job.iodepth=1", "generic-tlc-1tb on none, job.iodepth=8"]
    fig = plot_compare_table(c.table, c.x, c.y, c.title)
    ax = fig.axes[0]
    # Text on x: grouped bars, one container per series, the grid's order of sizes kept.
    assert len(ax.containers) == 2 and all(len(bars) == 2 for bars in ax.containers)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["64k", "4k"]
    for bars, depth in zip(ax.containers, (1, 8), strict=True):
        expected = [
            float(results[(results["job.iodepth"] == depth) & (results["job.bs"] == bs)].iops.iloc[0])
            for bs in ("64k", "4k")
        ]
        assert [b.get_height() for b in bars] == pytest.approx(expected)
    plt.close(fig)
    # Deeper queues keep more dies busy: QD8 reads 4 KiB faster than QD1.
    assert ax.containers[1][1].get_height() > 2 * ax.containers[0][1].get_height()
    # Without --by, the grid's other axes split the series all the same.
    assert list(dict.fromkeys(compare([sweep_dir], x="bs", y="iops").table.series)) == series
    ran = run_main("compare", sweep_dir / "results.csv", "--x", "iodepth", "--y", "bw_mb_per_s", "--out", "s.png")
    assert ran.status == 0, ran


# ---- fio JSON ------------------------------------------------------------------------------


def test_twin_beside_real_fio_reference(twin_json: Path, run_main: RunMain) -> None:
    real = REFERENCE_DIR / "randread-psync.json"  # real fio 3.33 on a file named fiotest
    c = compare([twin_json, real])
    assert c.kind == "fio"
    assert list(c.table.series) == ["p32a80 on linux-6.1 (twin)", "fiotest (real fio)"]
    for row, path in zip(c.table.itertuples(), (twin_json, real), strict=True):
        job = fio_json(path)["jobs"][0]
        assert row.iops == job["read"]["iops"]
        assert row.bw_bytes_per_s == job["read"]["bw_bytes"]
        assert row.mean_lat_us == pytest.approx(job["read"]["lat_ns"]["mean"] / 1e3)
        assert row.clat_p99_us == job["read"]["clat_ns"]["percentile"]["99.000000"] / 1e3
        assert (row.job, row.direction, row.rw, row.bs, row.iodepth, row.numjobs) == (
            "r" if path == twin_json else "t",
            "read",
            "randread",
            "4k",
            1,
            1,
        )

    fig = plot_compare_fio(c.table)
    bars_ax, lat_ax = fig.axes
    # Two jobs of other names: two groups, one bar per series (the other's slot empty).
    assert len(bars_ax.containers) == 2
    heights = [[b.get_height() for b in bars] for bars in bars_ax.containers]
    assert heights[0][0] == pytest.approx(c.table.bw_bytes_per_s.iloc[0] / 1e6)
    assert heights[1][1] == pytest.approx(c.table.bw_bytes_per_s.iloc[1] / 1e6)
    assert bars_ax.get_ylabel() == "bandwidth (MB/s, 10^6 B/s)"
    lines = labelled_lines(lat_ax)
    assert [line.get_label() for line in lines] == ["p32a80 on linux-6.1 (twin): r read", "fiotest (real fio): t read"]
    assert lines[1].get_ydata()[-1] == fio_json(real)["jobs"][0]["read"]["clat_ns"]["percentile"]["99.990000"] / 1e3
    assert lat_ax.get_yscale() == "log" and lat_ax.get_ylabel() == "completion latency (µs)"
    plt.close(fig)

    ran = run_main(
        "compare", twin_json, real, "--metric", "iops", "--label", "twin", "--label", "mine", "--out", "f.png"
    )
    assert ran.status == 0, ran
    assert Path("f.png").read_bytes()[:8] == PNG


def test_group_reporting_randrw_and_json_plus() -> None:
    for name in ("randrw-2jobs-group.json", "randrw-2jobs-jsonplus.json"):
        path = REFERENCE_DIR / name
        doc = fio_json(path)
        records = load(path).table
        job = doc["jobs"][0]
        # One record per direction with I/O (trim did none); options from [global] and the job.
        assert list(records.direction) == ["read", "write"]
        assert set(zip(records.rw, records.bs, records.iodepth, records.numjobs, strict=True)) == {
            ("randrw", "4k", 8, 2)
        }
        assert list(records.iops) == [job["read"]["iops"], job["write"]["iops"]]
        # percentile_list=50:99:99.9:99.99: exactly those columns.
        assert [c for c in records.columns if c.startswith("clat_p")] == [
            percentile_column(p) for p in (50, 99, 99.9, 99.99)
        ]
        assert records.clat_p99_99_us.iloc[1] == job["write"]["clat_ns"]["percentile"]["99.990000"] / 1e3
        assert load(path).label == "fiotest2 (real fio)"


def test_text_before_the_json(tmp_path: Path) -> None:
    real = REFERENCE_DIR / "randrw-2jobs-group.json"
    noisy = tmp_path / "noisy.log"
    noisy.write_text(
        "fio: file hash not empty on exit\nnote: both iodepth >= 1 and synchronous I/O engine\n"
        + real.read_text()
        + "\nRun status group 0:\n"
    )
    assert load(noisy).table.equals(load(real).table)


def test_several_twin_jobs(run_main: RunMain, tmp_path: Path) -> None:
    jobs = ["--size=32m", "--runtime=50ms", "--time_based"]
    jobs += ["--name=mix", "--rw=randrw", "--bs=4k", "--numjobs=2", "--group_reporting"]
    jobs += ["--name=seq", "--rw=write", "--bs=128k", "--iodepth=8", "--ioengine=libaio"]
    ran = run_main("fio", "--profile", "crucial-p1", *jobs, "--output-format=json+")
    assert ran.status == 0, ran
    (tmp_path / "two.json").write_text(ran.out)
    doc = json.loads(ran.out)
    records = fio_records(doc)
    # seq read nothing: its read direction is left out.
    assert list(zip(records.job, records.direction, strict=True)) == [
        ("mix", "read"),
        ("mix", "write"),
        ("seq", "write"),
    ]
    assert list(records.iops) == [
        doc["jobs"][0]["read"]["iops"],
        doc["jobs"][0]["write"]["iops"],
        doc["jobs"][1]["write"]["iops"],
    ]
    assert list(records.numjobs) == [2, 2, 1] and list(records.iodepth) == [1, 1, 8]
    c = compare([tmp_path / "two.json"])
    fig = plot_compare_fio(c.table, "iops")
    bars_ax, lat_ax = fig.axes
    assert [b.get_height() for b in bars_ax.containers[0]] == pytest.approx(list(records.iops))
    assert len(labelled_lines(lat_ax)) == 3
    plt.close(fig)


def test_fio_clones_are_told_apart() -> None:
    def job(iops: float) -> dict[str, Any]:
        return {"jobname": "w", "job options": {"numjobs": "2"}, "write": {"io_bytes": 1, "iops": iops}}

    records = fio_records({"jobs": [job(1.0), job(2.0)]})
    assert list(zip(records.job, records.clone, records.iops, strict=True)) == [("w", 0, 1.0), ("w", 1, 2.0)]


@pytest.mark.slow
def test_real_fio_beside_the_twin(twin_json: Path, tmp_path: Path, run_main: RunMain) -> None:
    if FIO is None:
        pytest.skip("real fio is not installed")
    target = tmp_path / "target"
    job = ["--name=r", f"--filename={target}", "--size=16m", "--rw=randread", "--bs=4k", "--runtime=1", "--time_based"]
    run = subprocess.run([FIO, *job, "--output-format=json"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    real = tmp_path / "real.json"
    real.write_text(run.stdout)
    ran = run_main("compare", twin_json, real, "--json", "--out", "tr.png")
    assert ran.status == 0, ran
    records = json.loads(ran.out)
    assert [r["series"] for r in records] == ["p32a80 on linux-6.1 (twin)", f"{target} (real fio)"]
    assert records[1]["iops"] == json.loads(run.stdout)["jobs"][0]["read"]["iops"]
    assert records[1]["clat_p50_us"] > 0
    assert Path("tr.png").read_bytes()[:8] == PNG


# ---- refusals -----------------------------------------------------------------------------


def test_a_bad_file_is_named_with_what_is_allowed(tmp_path: Path, run_main: RunMain) -> None:
    (tmp_path / "notes.txt").write_text("not a table\n")
    (tmp_path / "blob.json").write_bytes(b"\x00\x01\x02")
    (tmp_path / "broken.json").write_text('[{"a": 1},')
    for name in ("notes.txt", "blob.json", "broken.json", "missing.csv"):
        assert_one_line_error(run_main("compare", name), name, "allowed: a study's or sweep's table", "fio JSON output")
    (tmp_path / "empty").mkdir()
    assert_one_line_error(run_main("compare", "empty"), "empty", "results.parquet")


def test_mixed_kinds_cannot_share_a_figure(slc_outputs: dict[str, Path], run_main: RunMain) -> None:
    table = slc_outputs["p32a80"] / "slc-write.csv"
    real = REFERENCE_DIR / "randread-psync.json"
    assert_one_line_error(run_main("compare", table, real), str(table), str(real), "cannot share one figure")
    assert not Path("compare.png").exists()


def test_options_that_do_not_fit_the_input(slc_outputs: dict[str, Path], run_main: RunMain) -> None:
    table = slc_outputs["p32a80"] / "slc-write.csv"
    real = REFERENCE_DIR / "randread-psync.json"
    assert_one_line_error(run_main("compare", real, "--x", "iops"), "--x apply to tables")
    assert_one_line_error(run_main("compare", table, "--metric", "iops"), "--metric", "applies to fio JSON")
    assert_one_line_error(
        run_main("compare", real, real, "--label", "one"), "one --label per file, in order (2 files, 1 labels)"
    )
    assert_one_line_error(run_main("compare", real, "--out", "f.txt"), "--out", "allowed: ")
    assert_one_line_error(run_main("compare", real, "--table", "t.parquet"), "--table", ".csv, .json")


def test_outputs_are_not_replaced_without_force(run_main: RunMain) -> None:
    real = REFERENCE_DIR / "randread-psync.json"
    Path("compare.png").write_text("mine")
    assert_one_line_error(run_main("compare", real), "compare.png exists; add --force")
    assert Path("compare.png").read_text() == "mine"
    assert run_main("compare", real, "--force").status == 0
    assert Path("compare.png").read_bytes()[:8] == PNG


# ---- the documentation --------------------------------------------------------------------


def doc_commands() -> list[str]:
    """The commands of docs/compare.md's ``sh`` blocks, in order."""
    text = (REPO / "docs" / "compare.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    return [line.split("  #")[0].strip() for block in blocks for line in block.splitlines() if line.strip()]


@pytest.mark.slow
def test_the_documented_examples_run_as_written(tmp_path: Path) -> None:
    commands = doc_commands()
    assert any(c.startswith("ssdtwin compare") for c in commands)
    if FIO is None and any(c.startswith("fio ") for c in commands):
        pytest.skip("real fio is not installed (docs/compare.md runs it)")
    ssdtwin = f"{shlex.quote(sys.executable)} -m ssdtwin"
    for command in commands:
        line = re.sub(r"^ssdtwin ", ssdtwin + " ", command)
        run = subprocess.run(line, shell=True, cwd=tmp_path, timeout=300, capture_output=True, text=True)
        assert run.returncode == 0, (command, run.stderr)
    assert list(tmp_path.glob("*.png"))


def test_fio_json_with_unified_reporting_gives_its_mixed_direction(run_main: RunMain, tmp_path: Path) -> None:
    ran = run_main("fio", "--host", "none", "--name=m", "--rw=randrw", "--size=16m", "--runtime=10ms",
                   "--time_based", "--unified_rw_reporting=mixed", "--output-format=json")  # fmt: skip
    assert ran.status == 0, ran.err
    doc = json.loads(ran.out)
    records = fio_records(doc)
    assert list(records.direction) == ["mixed"]
    assert records.iops.iloc[0] == doc["jobs"][0]["mixed"]["iops"]
