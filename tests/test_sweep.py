"""Sweeps: grids run in this process, on local processes and on a Dask LocalCluster give
the same table row for row; finished points are kept and a rerun resumes; a failing point
is recorded and the sweep goes on."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ssdtwin import SsdtwinError
from ssdtwin.studies import run_study, study_parts
from ssdtwin.studies.lbaf import lbaf_sweep
from ssdtwin.sweep import GridError, from_dict, load_grid, open_executor, read_results, sweep
from ssdtwin.sweep.executors import resolve

from .cli.test_fio import RunMain
from .helpers import assert_one_line_error

GRID: dict[str, Any] = {
    "sweep": {
        "host": "none",
        "fill": "seq:50",
        "set": {"identity.capacity_bytes": 1 << 30},
        "job": {
            "rw": ["randread", "randwrite"],
            "iodepth": [1, 16],
            "bs": "4k",
            "ioengine": "libaio",
            "size": "256m",
            "runtime": "20ms",
            "time_based": True,
        },
    }
}


class CountingExecutor(ThreadPoolExecutor):
    """Counts the points submitted to it."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.submitted = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        return super().submit(fn, *args, **kwargs)


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return sweep(from_dict(GRID))


def test_the_grid_is_the_cross_product_in_written_order(reference: pd.DataFrame) -> None:
    grid = from_dict(GRID)
    assert grid.axes == ["job.rw", "job.iodepth"]
    assert [(p.job["rw"], p.job["iodepth"]) for p in grid.points] == [
        ("randread", 1),
        ("randread", 16),
        ("randwrite", 1),
        ("randwrite", 16),
    ]
    assert list(reference["point"]) == [0, 1, 2, 3]
    for column in ("job.rw", "job.iodepth", "seed", "ssdtwin_version", "profile_sha256", "iops"):
        assert column in reference.columns
    # QD16 does more than QD1 for both directions: the points are what they say.
    iops = dict(zip(zip(reference["job.rw"], reference["job.iodepth"], strict=True), reference["iops"], strict=True))
    assert iops[("randread", 16)] > 4 * iops[("randread", 1)]


@pytest.mark.parametrize("spec", ["local:2", pytest.param("dask-local:2", marks=pytest.mark.slow)])
def test_every_executor_gives_the_same_table(reference: pd.DataFrame, spec: str) -> None:
    if spec.startswith("dask"):
        pytest.importorskip("distributed", reason="Dask is not installed (pip install 'ssdtwin[dask]')")
    with open_executor(spec) as ex:
        table = sweep(from_dict(GRID), executor=ex)
    pd.testing.assert_frame_equal(table, reference)


def test_a_rerun_resumes_without_recomputing_finished_points(reference: pd.DataFrame, tmp_path: Path) -> None:
    grid = from_dict(GRID)
    first = CountingExecutor()
    with first:
        sweep(grid, executor=first, out=tmp_path)
    assert first.submitted == 4
    # As if the sweep had been killed after two points.
    for p in grid.points[2:]:
        (tmp_path / "points" / f"{p.id}.parquet").unlink()
    with pytest.raises(SsdtwinError, match="resume it with --resume"):
        sweep(grid, out=tmp_path)
    second = CountingExecutor()
    with second:
        table = sweep(grid, executor=second, out=tmp_path, resume=True)
    assert second.submitted == 2
    pd.testing.assert_frame_equal(table, reference)
    stored = read_results(tmp_path)
    assert list(stored["iops"]) == list(reference["iops"])
    # Partitioned by the axes.
    assert (tmp_path / "results.parquet" / "job.rw=randread" / "job.iodepth=16").is_dir()


def test_axes_read_back_in_the_grid_s_order_and_numbers_as_numbers(tmp_path: Path) -> None:
    spec = json.loads(json.dumps(GRID))
    spec["sweep"]["job"]["rw"] = ["randwrite", "randread"]
    spec["sweep"]["job"]["iodepth"] = [16, 1]
    sweep(from_dict(spec), out=tmp_path)
    t = read_results(tmp_path)
    assert list(t["job.rw"].cat.categories) == ["randwrite", "randread"] and t["job.rw"].cat.ordered
    assert t["job.iodepth"].dtype.kind == "i" and list(t["job.iodepth"]) == [16, 1, 16, 1]
    assert list(t.sort_values(["job.rw", "job.iodepth"])["point"]) == [1, 0, 3, 2]


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path: Path) -> None:
    spec = json.loads(json.dumps(GRID))
    spec["sweep"]["job"]["bs"] = ["4k", "1000"]
    spec["sweep"]["job"]["iodepth"] = 1
    table = sweep(from_dict(spec), out=tmp_path)
    failed = table[table["error"].notna()]
    assert sorted(failed["job.rw"]) == ["randread", "randwrite"]
    assert all("1000" in e and "LBA" in e for e in failed["error"])
    assert table["error"].isna().sum() == 2
    errors = list((tmp_path / "errors").glob("*.json"))
    assert len(errors) == 2 and json.loads(errors[0].read_text())["job.bs"] == "1000"


def test_a_point_ssdtwin_would_refuse_stops_the_sweep_before_any_point_runs(tmp_path: Path) -> None:
    spec = json.loads(json.dumps(GRID))
    spec["sweep"]["job"]["runtime"] = ["20ms", "0.5s"]
    with pytest.raises(SsdtwinError, match=r"^sweep point 1 \(job.rw=randread, job.iodepth=1, job.runtime=0.5s\): "):
        sweep(from_dict(spec), out=tmp_path)
    assert not list((tmp_path / "points").glob("*"))
    spec = json.loads(json.dumps(GRID))
    spec["sweep"]["set"]["nand.chanels"] = 4
    with pytest.raises(SsdtwinError, match=r"^sweep point 0 \(.*unknown field `chanels`"):
        sweep(from_dict(spec))
    spec = json.loads(json.dumps(GRID))
    spec["sweep"]["host"] = ["none", "no-such-host"]
    with pytest.raises(SsdtwinError, match=r"^sweep point 4 \(host=no-such-host, .*no-such-host"):
        sweep(from_dict(spec))


def test_the_cli_exits_1_naming_how_many_points_failed_and_the_first_error(run_main: RunMain, tmp_path: Path) -> None:
    grid = tmp_path / "g.toml"
    grid.write_text(
        '[sweep]\nhost = "none"\n[sweep.set]\n"identity.capacity_bytes" = 1073741824\n'
        '[sweep.job]\nrw = "read"\nsize = "16m"\nbs = ["4k", "1000", "8k", "1500"]\n'
    )
    outcome = run_main("sweep", grid, "--out", tmp_path / "out", "--executor", "local:1")
    assert outcome.status == 1, outcome
    assert "4 points (2 failed), 4 rows" in outcome.out
    # Stderr is no terminal here: a line per finished point, then the one error line.
    *points, error = outcome.err.splitlines()
    assert points == [f"sweep: {i + 1}/4 point {i} {'failed' if i % 2 else 'done'}" for i in range(4)]
    assert error.startswith("ssdtwin: 2 of 4 points failed; the first, point 1: ")
    assert "1000" in error and f"every error is in {tmp_path / 'out'}/errors" in error


def test_listed_points_and_malformed_grids(tmp_path: Path) -> None:
    listed = from_dict({"point": [{"host": "none", "job": {"rw": "read"}}, {"host": "none", "job": {"rw": "write"}}]})
    assert [p.job["rw"] for p in listed.points] == ["read", "write"] and listed.axes == ["job.rw"]
    bad = tmp_path / "g.toml"
    bad.write_text('[sweep]\nprofile = "a"\nspeed = [1, 2]\n')
    with pytest.raises(GridError, match=r"g\.toml: \[sweep\]: unknown key 'speed'"):
        load_grid(bad)
    bad.write_text('[sweep]\nfill = "half"\n')
    with pytest.raises(GridError, match=r"\[sweep\]\.fill: 'half'; allowed none"):
        load_grid(bad)


def test_the_cli_runs_a_grid_file_and_refuses_bad_input(run_main: RunMain, tmp_path: Path) -> None:
    grid = tmp_path / "g.toml"
    grid.write_text(
        '[sweep]\nhost = "none"\n[sweep.set]\n"identity.capacity_bytes" = 1073741824\n'
        '[sweep.job]\nrw = ["read", "write"]\nsize = "16m"\n'
    )
    ok = run_main("sweep", grid, "--out", tmp_path / "out", "--executor", "local:1")
    assert ok.status == 0, ok
    assert "2 points (0 failed), 2 rows" in ok.out
    assert len(read_results(tmp_path / "out")) == 2
    assert_one_line_error(run_main("sweep", grid, "--out", tmp_path / "o2", "--executor", "cloud"), "allowed local[:N]")


@pytest.mark.slow
def test_a_study_runs_its_parts_on_an_executor(run_main: RunMain, tmp_path: Path) -> None:
    small = ["--set", "nand.blocks_per_plane=24", "--set", "identity.capacity_bytes=8589934592"]
    args = ["study", "qd-sweep", "--host", "none", "--profile", "generic-tlc-1tb,micron-9200max", "--depths", "1,4"]
    args += ["--rw", "randread,randwrite", "--seconds", "0.02", "--span-gib", "1", "--json", *small]
    here = run_main(*args, "--out", tmp_path / "a")
    there = run_main(*args, "--out", tmp_path / "b", "--executor", "local:2")
    assert here.status == there.status == 0, there
    assert json.loads(there.out) == json.loads(here.out)
    rows = json.loads(here.out)
    assert [(r["profile"], r["rw"], r["iodepth"]) for r in rows][:4] == [
        ("generic-tlc-1tb", "randread", 1),
        ("generic-tlc-1tb", "randread", 4),
        ("generic-tlc-1tb", "randwrite", 1),
        ("generic-tlc-1tb", "randwrite", 4),
    ]


def test_auto_runs_a_studys_parts_on_one_worker_per_core(
    run_main: RunMain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("ssdtwin.sweep.executors.usable_cores", lambda: 2)
    small = ["--set", "nand.blocks_per_plane=24", "--set", "identity.capacity_bytes=8589934592"]
    args = ["study", "qd-sweep", "--host", "none", "--profile", "generic-tlc-1tb", "--depths", "1,4"]
    args += ["--rw", "randread,randwrite", "--seconds", "0.01", "--span-gib", "1", "--json", *small]
    here = run_main(*args, "--out", tmp_path / "a", "--executor", "serial")
    there = run_main(*args, "--out", tmp_path / "b", "--executor", "auto")
    assert here.status == there.status == 0, there
    assert json.loads(there.out) == json.loads(here.out)
    # Progress says what ran where: points in this process, parts (one per direction) on
    # workers, in the order they finished.
    points = [("randread", 1), ("randread", 4), ("randwrite", 1), ("randwrite", 4)]
    assert here.err.splitlines()[:-1] == [f"qd-sweep: {k}/4 {rw} QD{qd}" for k, (rw, qd) in enumerate(points, 1)]
    parts = [line.split(" ", 2) for line in there.err.splitlines()[:-1]]
    assert [p[1] for p in parts] == ["1/2", "2/2"]
    assert sorted(p[2] for p in parts) == ["generic-tlc-1tb randread", "generic-tlc-1tb randwrite"]


def test_auto_leaves_out_the_workers_memory_cannot_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ssdtwin.sweep.executors.usable_cores", lambda: 8)
    monkeypatch.setattr("ssdtwin.sweep.executors.available_memory_bytes", lambda: 20 << 30)
    assert resolve("auto", parts=6, part_bytes=2 << 30) == "local:5"
    assert resolve("auto", parts=3, part_bytes=2 << 30) == "local:3"
    assert resolve("auto", parts=6, part_bytes=12 << 30) is None
    assert resolve("serial", parts=6, part_bytes=0) is None
    assert resolve("local:3", parts=1, part_bytes=0) == "local:3"


def test_each_independent_part_of_a_study_is_one_point() -> None:
    small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30}
    options: dict[str, Any] = {
        "rw": "randread,read",
        "depths": "1,2",
        "bs": "4k",
        "seconds": 0.01,
        "span_gib": 1.0,
        "seed": 1,
    }
    # Two drives, two access patterns each: four parts, whatever the queue depths.
    assert len(study_parts("qd-sweep", ["generic-tlc-1tb", "micron-9200max"], small, options | {"host": "none"})) == 4
    counting = CountingExecutor()
    with counting:
        there = run_study("qd-sweep", ["generic-tlc-1tb"], overrides=small, executor=counting, host="none", **options)
    here = run_study("qd-sweep", ["generic-tlc-1tb"], overrides=small, host="none", **options)
    assert counting.submitted == 2
    pd.testing.assert_frame_equal(there["generic-tlc-1tb"][0], here["generic-tlc-1tb"][0])
    assert there["generic-tlc-1tb"][1] == here["generic-tlc-1tb"][1]


def test_lbaf_scores_compare_formats_measured_as_separate_parts() -> None:
    small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30}
    options: dict[str, Any] = {"span_gib": 0.25, "seconds": 0.005, "seed": 1, "host": "none", "formats": "0,1"}
    with CountingExecutor() as counting:
        table, _ = run_study("lbaf", ["micron-9200max"], overrides=small, executor=counting, **options)[
            "micron-9200max"
        ]
    assert counting.submitted == 2
    # Scores compare each format with the best one of all parts, as in one run over both.
    whole = lbaf_sweep("micron-9200max", span_gib=0.25, seconds=0.005, host="none", overrides=small, formats=[0, 1])
    pd.testing.assert_frame_equal(table, whole)
    assert table.groupby("lbaf").score.first().min() < 1.0


def _docs_examples() -> tuple[str, list[str]]:
    """docs/sweeps.md's grid file and its ``ssdtwin sweep`` command lines, as written."""
    text = (Path(__file__).parents[1] / "docs" / "sweeps.md").read_text()
    blocks = re.findall(r"```(\w+)\n(.*?)```", text, re.S)
    grid = next(body for lang, body in blocks if lang == "toml" and "[sweep]" in body)
    commands = [
        line.split("#")[0].strip()
        for lang, body in blocks
        if lang == "sh"
        for line in body.splitlines()
        if line.startswith("ssdtwin sweep grid.toml")
    ]
    return grid, commands


@pytest.mark.slow
def test_the_sweep_examples_of_the_docs_run_as_written(
    run_main: RunMain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    grid, commands = _docs_examples()
    assert len(commands) == 4
    monkeypatch.chdir(tmp_path)
    (tmp_path / "grid.toml").write_text(grid)
    for command in commands:
        if "dask" in command:
            pytest.importorskip("distributed", reason="Dask's distributed is not installed")
        outcome = run_main(*shlex.split(command)[1:])
        assert outcome.status == 0, (command, outcome)
        assert "16 points (0 failed), 16 rows" in outcome.out, (command, outcome.out)
    one, two = read_results(tmp_path / "runs/one"), read_results(tmp_path / "runs/two")
    assert list(one.sort_values("point")["iops"]) == list(two.sort_values("point")["iops"])


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc), recursively."""
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            child = int(stat.parent.name)
            kids += [child, *_children(child)]
    return kids


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to find the workers")
def test_sigterm_stops_the_sweep_and_its_workers(tmp_path: Path) -> None:
    grid = tmp_path / "long.toml"
    # Two points of ten simulated minutes each: far longer than the test waits.
    grid.write_text(
        '[sweep]\nhost = "none"\n[sweep.job]\nrw = ["randwrite", "randread"]\nbs = "4k"\niodepth = 32\n'
        'ioengine = "libaio"\nsize = "8g"\nruntime = "600s"\ntime_based = true\n'
    )
    command = [
        sys.executable,
        "-m",
        "ssdtwin",
        "sweep",
        str(grid),
        "--out",
        str(tmp_path / "out"),
        "--executor",
        "local:2",
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = _children(proc.pid)
    assert len(workers) >= 2, "the workers never started"
    time.sleep(1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err == "ssdtwin: interrupted\n"
    time.sleep(1)
    alive = [w for w in workers if Path(f"/proc/{w}").exists() and "Z" not in Path(f"/proc/{w}/stat").read_text()]
    assert alive == [], f"workers left running: {alive}"
