"""Golden outputs: each case of ``tests/golden/cases.py`` must print exactly what it printed
when its file in ``tests/golden/`` was written, byte for byte.

A change that is meant to move results regenerates the files and says so in its commit::

    SSDTWIN_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

Files are compared after one normalisation: the version and the temporary paths a case
prints, which differ between checkouts and runs, are replaced by fixed words.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from ssdtwin import __version__, profile_toml
from ssdtwin.cli import main
from ssdtwin.testing import small_overrides

from .golden.cases import CASES

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("SSDTWIN_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def small_profile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("golden") / "small.toml"
    path.write_text(profile_toml("generic-tlc-1tb", small_overrides()))
    return path


def _normalised(text: str, tmp: Path, small: Path) -> str:
    return text.replace(str(tmp), "{tmp}").replace(str(small), "{small}").replace(__version__, "{version}")


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_output(
    name: str, small_profile: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    status = main([a.format(small=small_profile, tmp=tmp_path / "out") for a in shlex.split(CASES[name])])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    got = _normalised(captured.out, tmp_path, small_profile)
    path = GOLDEN / f"{name}.txt"
    if UPDATE:
        path.write_text(got)
    assert path.exists(), f"{path.name} is missing: run with SSDTWIN_UPDATE_GOLDEN=1 to write it"
    want = path.read_text()
    at = _first_difference(got, want)
    assert got == want, f"{name}: output differs from {path.name} from byte {at}: {got[at : at + 80]!r}"


def _first_difference(a: str, b: str) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
