"""Every reference point of docs/validation.md (R1 to R7), run as `validation/run.py` runs
it, must stay within its band: a change that moves a validated result fails here.

This is the slow tier's longest module (the studies run at their published protocols);
figures are drawn into a temporary directory, never over docs/validation/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .helpers import REPO

pytestmark = pytest.mark.slow

sys.path.insert(0, str(REPO / "validation"))
run = pytest.importorskip("run", reason="validation/run.py needs matplotlib")

#: Each reference and the validation sections that check its points.
SECTIONS = {
    "R1": ["hmb"],
    "R2": ["qlc-tr"],
    "R3": ["slc-write", "read-after-write"],
    "R4": ["micron", "lbaf", "cdm", "qos"],
    "R5": ["zfs-special"],
    "R6": ["memory"],
    "R7": ["hmb-mix"],
}


@pytest.mark.parametrize(("reference", "section"), [(r, s) for r, names in SECTIONS.items() for s in names])
def test_reference_points_stay_in_their_band(
    reference: str, section: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run, "FIGURES", tmp_path)
    assert run.STUDIES[section](), f"{reference}: a point of validation section '{section}' left its band"
