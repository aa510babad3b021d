"""``ssdtwin probe``: its options, outputs and one-line refusals; a read-only probe of a file
with the real fio binary."""

from __future__ import annotations

import json
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from ssdtwin.testing import ideal_overrides

from ..helpers import Outcome, assert_one_line_error

#: wd-black-256 cut to a few GiB, ideal (no latency variability), so the probe's estimates
#: can be checked against the exact parameters.
CUT = [
    *(f"--set={k}={v}" for k, v in ideal_overrides("wd-black-256").items()),
    "--set",
    "nand.blocks_per_plane=100",
    "--set",
    "slc_cache.static_gib=0.5",
    "--set",
    "identity.capacity_bytes=8589934592",
]
QUICK = ["--only", "floor,geometry,slc"]


def test_a_twin_probe_writes_the_profile_the_table_and_the_report(
    run_main: Callable[..., Outcome], tmp_path: Path
) -> None:
    out, report = tmp_path / "probed.toml", tmp_path / "report"
    ran = run_main("probe", "--twin", "wd-black-256", *CUT, *QUICK, "--out", out, "--report", report)
    assert ran.status == 0, ran
    assert "first_tr_ns" in ran.out and f"wrote {out}" in ran.out
    assert "not measured: map" not in ran.out  # left out by --only, not skipped
    profile = tomllib.loads(out.read_text())
    assert profile["nand"]["slc"]["t_read_us"] == pytest.approx(30.0, rel=0.02)
    files = {p.name for p in report.iterdir()}
    assert {"cliff.png", "die-scan.png", "estimates.csv", "floor.csv", "cliff.csv", "probe.json", "jobs.json"} <= files
    jobs = json.loads((report / "jobs.json").read_text())
    assert jobs[0]["kind"] == "purge" and any(j.get("job", {}).get("rw") == "read:28672" for j in jobs)


def test_the_report_holds_the_suspend_step_s_reads(run_main: Callable[..., Outcome], tmp_path: Path) -> None:
    report = tmp_path / "report"
    only = ["--only", "floor,geometry,qd,suspend"]
    ran = run_main("probe", "--twin", "wd-black-256", *CUT, *only, "--out", tmp_path / "p.toml", "--report", report)
    assert ran.status == 0, ran
    rows = (report / "suspend.csv").read_text().splitlines()
    assert rows[0] == "test,read_lat_us,reads,write_mb_per_s"
    assert [r.split(",")[0] for r in rows[1:]] == ["quiet", "among writes"]
    # wd-black-256 suspends programs (its profile: suspend = "program").
    assert tomllib.loads((tmp_path / "p.toml").read_text())["nand"]["suspend"] == "program-erase"


def test_json_carries_every_estimate_and_where_each_field_came_from(run_main: Callable[..., Outcome]) -> None:
    ran = run_main("probe", "--twin", "wd-black-256", *CUT, "--only", "floor", "--json")
    assert ran.status == 0, ran
    doc = json.loads(ran.out)
    names = {e["name"] for e in doc["estimates"]}
    assert {"link_bytes_per_s", "controller_cores", "read_cmd_ns"} <= names
    sources = {f["field"]: f["source"] for f in doc["profile"]}
    assert sources["link.pcie_gen"].startswith("measured:")
    assert sources["nand.t_erase_us" if "nand.t_erase_us" in sources else "nand.tlc.t_erase_us"].startswith("default")
    assert doc["facts"]["model"] == "WDC WDS256G1X0C-00ENX0"


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        ((), ["give a TARGET (device, file or NBD URI) or --twin PROFILE"]),
        (("x.img", "--twin", "p32a80"), ["give a TARGET (device, file or NBD URI) or --twin PROFILE"]),
        (("--twin", "p32a80", "--only", "floor,magic"), ["--only", "'floor,magic': allowed floor, geometry"]),
        (("--twin", "p32a80", "--time-scale", "8"), ["--time-scale is for an NBD TARGET"]),
        (("nbd+unix:///?socket=/nonexistent.sock",), ["writes over the whole export; add --destructive"]),
        (("nbd+unix:///?socket=/nonexistent.sock", "--destructive"), ["cannot read the export's size"]),
        (("nbd+unix:///", "--read-only"), ["an nbd+unix URI needs ?socket=PATH"]),
        (("--twin", "no-such-drive"), ["no-such-drive"]),
    ],
)
def test_bad_invocations_are_one_line_errors(
    run_main: Callable[..., Outcome], args: tuple[str, ...], fragments: list[str]
) -> None:
    assert_one_line_error(run_main("probe", *args), *fragments)


def test_an_existing_profile_is_kept_without_force(run_main: Callable[..., Outcome], tmp_path: Path) -> None:
    out = tmp_path / "mine.toml"
    out.write_text("keep")
    assert_one_line_error(run_main("probe", "--twin", "p32a80", "--out", out), "exists; add --force")
    assert out.read_text() == "keep"


def test_a_file_target_is_refused_before_anything_is_written(run_main: Callable[..., Outcome], tmp_path: Path) -> None:
    target = tmp_path / "drive.img"
    target.write_bytes(b"precious" * 100)
    assert_one_line_error(run_main("probe", target), "exists and probing writes over it; add --force")
    assert target.read_bytes() == b"precious" * 100
    assert_one_line_error(run_main("probe", tmp_path / "new.img"), "does not exist; give --size")
    assert_one_line_error(run_main("probe", target, "--set", "nand.channels=4"), "--set changes a --twin profile")


@pytest.mark.slow
def test_a_read_only_probe_of_a_file_runs_real_fio_and_writes_nothing(
    run_main: Callable[..., Outcome], tmp_path: Path
) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (apt-get install fio)")
    target = tmp_path / "drive.img"
    pattern = bytes(range(256)) * 4096
    with open(target, "wb") as f:
        for _ in range(160):
            f.write(pattern)
    before = target.stat().st_mtime_ns
    ran = run_main(
        "probe", target, "--read-only", "--only", "floor", "--point-seconds", "0.05", "--qd1-ios", "100", "--json"
    )
    assert ran.status == 0, ran
    doc = json.loads(ran.out)
    names = {e["name"] for e in doc["estimates"]}
    assert {"link_bytes_per_s", "read_iops_ceiling", "unit_ns"} <= names
    assert "write_cmd_ns" not in names  # no write line: nothing was written
    assert doc["skipped"] == {}  # what writes was left out by --read-only before it was asked for
    assert target.stat().st_mtime_ns == before


def test_the_report_and_the_page_show_the_same_figures_drawn_once(
    run_main: Callable[..., Outcome], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ssdtwin.probe import report as probe_report

    drawn: list[int] = []
    real = probe_report.figures

    def counted(result: object) -> list[tuple[str, object]]:
        figures = real(result)  # type: ignore[arg-type]
        drawn.append(len(figures))
        return figures

    monkeypatch.setattr(probe_report, "figures", counted)
    monkeypatch.setattr("ssdtwin.cli.probe.figures", counted)
    report, page = tmp_path / "report", tmp_path / "probe.html"
    ran = run_main("probe", "--twin", "wd-black-256", *CUT, *QUICK, "--report", report, "--html", page)
    assert ran.status == 0, ran
    assert len(drawn) == 1 and drawn[0] >= 2, drawn
    pngs = sorted(p.stem for p in report.glob("*.png"))
    assert len(pngs) == drawn[0]
    assert page.read_text().count("<img ") == drawn[0]
