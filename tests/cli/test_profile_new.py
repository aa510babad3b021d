"""``ssdtwin profile new``: a profile from a datasheet sheet, and one-line refusals."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path

from ssdtwin import Device

from ..datasheet.test_sheet import BASE
from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]


def test_a_sheet_becomes_a_profile_that_loads_and_says_what_its_parts_do(run_main: RunMain, tmp_path: Path) -> None:
    sheet = tmp_path / "drive.sheet.toml"
    sheet.write_text(BASE + "hmb_mib = 64\n")
    out = tmp_path / "drive.toml"
    outcome = run_main("profile", "new", "--datasheet", sheet, "--out", out)
    assert outcome.status == 0, outcome
    lines = outcome.out.splitlines()
    assert lines[0] == f"wrote {out}: Example 1TB, 1,000 GB on 16 dies"
    # The rated 4,500 MB/s in-cache write is what 16 dies' SLC programs give (tPROG to
    # 0.1 us), and the PCIe 4.0 x4 link carries 7,151 MB/s of payload.
    assert "SLC 4,499 MB/s" in lines[2] and "link 7,151 MB/s (rated 5,000)" in lines[1]
    text = out.read_text()
    profile = tomllib.loads(text)
    assert profile["identity"]["hmpre"] == 64 * 256
    assert "# sheet: drive.name" in text and "# prior [micron-176]" in text and "# [micron-176] Micron 176L" in text
    assert Device(str(out)).hmb()["bytes"] == 64 * 2**20


def test_an_existing_profile_is_kept_without_force(run_main: RunMain, tmp_path: Path) -> None:
    sheet = tmp_path / "drive.sheet.toml"
    sheet.write_text(BASE)
    out = tmp_path / "drive.toml"
    out.write_text("mine")
    assert_one_line_error(run_main("profile", "new", "--datasheet", sheet, "--out", out), "add --force")
    assert out.read_text() == "mine"
    assert run_main("profile", "new", "--datasheet", sheet, "--out", out, "--force").status == 0
    assert out.read_text() != "mine"


def test_a_bad_sheet_exits_2_with_one_line_naming_the_key(run_main: RunMain, tmp_path: Path) -> None:
    sheet = tmp_path / "bad.toml"
    sheet.write_text(BASE.replace("cell = ", "cel = "))
    outcome = run_main("profile", "new", "--datasheet", sheet, "--out", tmp_path / "x.toml")
    assert_one_line_error(outcome, f"{sheet}: missing required key drive.cell")
    assert not (tmp_path / "x.toml").exists()
