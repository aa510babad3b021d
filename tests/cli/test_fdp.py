"""Flexible Data Placement end to end: fio's placement options on a shipped FDP profile,
what ``ssdtwin nvme fdp`` then reports, and the one-line errors of both."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]

PROFILE = "generic-fdp-960g"
#: The profile's reclaim unit: one superblock, 32 dies x 2 planes x 1152 pages x 16 KiB.
RECLAIM_UNIT_BYTES = 32 * 2 * 1152 * 16384

JOB = """[global]
ioengine=io_uring_cmd
cmd_type=nvme
iodepth=32
bs=4k
fdp=1
size=64m
offset=0
[placed]
rw=randwrite
fdp_pli=1,3
"""


def write_job(tmp_path: Path, text: str = JOB) -> Path:
    job = tmp_path / "fdp.fio"
    job.write_text(text)
    return job


def test_placed_writes_land_on_the_named_handles(run_main: RunMain, tmp_path: Path) -> None:
    state = tmp_path / "fdp.state"
    fio = run_main("fio", "--profile", PROFILE, "--output-format=json", "--save-state", state, write_job(tmp_path))
    assert fio.status == 0, fio
    written = json.loads(fio.out)["jobs"][0]["write"]["io_bytes"]
    assert written == 64 << 20

    usage = run_main("nvme", "fdp", "usage", "/dev/nvme0", "-e", "1", "--state", state)
    assert usage.status == 0, usage
    lines = usage.out.splitlines()
    assert lines[1] == "Reclaim Unit Handle 1 Attributes: 0x1 (Host Specified)"
    assert lines[3] == "Reclaim Unit Handle 3 Attributes: 0x1 (Host Specified)"
    assert [ln.endswith("(Unused)") for ln in lines] == [True, False, True, False] + [True] * 4

    stats = json.loads(run_main("nvme", "fdp", "stats", "/dev/nvme0", "-e", "1", "--state", state, "-o", "json").out)
    assert stats["hbmw"] == written
    # Nothing to collect on a fresh drive: the media took what the host wrote and, at most,
    # the padding that closed each handle's last program unit (2 x 16 KiB x 2 planes).
    assert written <= stats["mbmw"] <= written + 2 * 2 * 16384
    assert stats["mbe"] == 0

    status = json.loads(run_main("nvme", "fdp", "status", "/dev/nvme0", "--state", state, "-o", "json").out)
    ruamw = [s["ruamw"] for s in status["ruhss"]]
    # In logical blocks of the format in use (512 B).
    full = RECLAIM_UNIT_BYTES // 512
    # Round robin over 1 and 3: each took half the writes.
    assert ruamw[1] == ruamw[3] == full - (written // 2) // 512
    assert ruamw[0] == full and ruamw[7] == full


def test_configs_report_the_profile_s_handles(run_main: RunMain) -> None:
    out = run_main("nvme", "fdp", "configs", "/dev/nvme0", "-e", "1", "--profile", PROFILE).out
    assert f"Reclaim Unit Nominal Size: {RECLAIM_UNIT_BYTES}\n" in out
    assert "Number of Reclaim Unit Handles: 8\n" in out
    assert out.count(": Initially Isolated\n") == 8
    persistent = run_main(
        "nvme",
        "fdp",
        "configs",
        "/dev/nvme0",
        "-e",
        "1",
        "--profile",
        PROFILE,
        "--set",
        'fdp.handle_type="persistently-isolated"',
        "--set",
        "fdp.handles=2",
        "-o",
        "json",
    )
    config = json.loads(persistent.out)["configs"][0]
    # Valid, no volatile write cache (the buffer is power-protected), one reclaim group.
    assert (config["fdpa"], config["nruh"], config["nrg"]) == (0x80, 2, 1)


def test_fdp_errors_are_one_line(run_main: RunMain, tmp_path: Path) -> None:
    plain = run_main("nvme", "fdp", "stats", "/dev/nvme0", "-e", "1", "--profile", "generic-tlc-1tb")
    assert_one_line_error(plain, "generic-tlc-1tb has no Flexible Data Placement")
    assert_one_line_error(
        run_main("nvme", "fdp", "stats", "/dev/nvme0", "--profile", PROFILE), "endurance group identifier required"
    )
    job = write_job(tmp_path)
    assert_one_line_error(run_main("fio", "--profile", "generic-tlc-1tb", job), "fdp fetch ruhs failed")
    assert_one_line_error(
        run_main("fio", "--profile", PROFILE, write_job(tmp_path, JOB.replace("io_uring_cmd", "libaio"))),
        "engine (libaio) lacks fetch ruhs",
    )
    assert_one_line_error(
        run_main("fio", "--profile", PROFILE, write_job(tmp_path, JOB.replace("1,3", "1,8"))),
        "PID index 8 must be smaller than 8",
    )
    assert_one_line_error(
        run_main("profiles", "show", PROFILE, "--set", 'fdp.handle_type="mixed"'),
        "fdp.handle_type",
    )
