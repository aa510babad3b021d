"""The scripts under examples/ run and print what the model gives."""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

import pytest

from .helpers import REPO


@pytest.mark.slow
def test_python_api_tour(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "argv", ["python_api.py", str(tmp_path)])
    runpy.run_path(str(REPO / "examples" / "python_api.py"), run_name="__main__")
    out = capsys.readouterr().out
    small = re.search(r"HMB   8 MiB: +([\d,]+) IOPS over 64 GiB, map hit ratio ([\d.]+)", out)
    whole = re.search(r"HMB 240 MiB: +([\d,]+) IOPS over 64 GiB, map hit ratio ([\d.]+)", out)
    assert small and whole, out
    # The whole map in HMB: R1's ~73 K plateau (docs/validation.md); a cold 8 MiB cache
    # loads a translation page for most reads, near the HMB-off floor.
    assert int(whole[1].replace(",", "")) == pytest.approx(73_000, rel=0.05)
    assert whole[2] == "1.00"
    assert int(small[1].replace(",", "")) < 15_000 and float(small[2]) < 0.2
    # 4 GiB fit in crucial-p1's SLC cache: all of it is still there.
    assert "4 GiB written at" in out and "4.00 GiB of it in the SLC cache" in out
    assert (tmp_path / "slc_fill.png").stat().st_size > 10_000
