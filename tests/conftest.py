"""Shared fixtures: tiny devices, the shipped drive filled a little, fio's reference outputs,
and a runner for the real ``ssdtwin`` entry point.

Hypothesis runs a fast profile by default; ``HYPOTHESIS_PROFILE=slow`` runs many more
examples (as pydantic-core's tests/conftest.py does), ``nightly`` 100 000 per test.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import ssdtwin
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase
from ssdtwin.cli import main
from ssdtwin.testing import ideal_host_overrides, ideal_overrides, small_overrides

from .helpers import REFERENCE_DIR, REPO, Outcome

# Tests run in temporary directories, so the example database is kept at the repository
# root (.hypothesis/ is ignored by git): a failing example is replayed first next time.
_database = DirectoryBasedExampleDatabase(REPO / ".hypothesis" / "examples")
_common: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "database": _database}
settings.register_profile("fast", max_examples=30, **_common)
settings.register_profile("slow", max_examples=1000, **_common)
settings.register_profile("nightly", max_examples=100_000, **_common)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

# Studies run in the test's own process unless a test names an executor: `--executor
# auto` would start worker processes for every small study of the suite.
os.environ["SSDTWIN_EXECUTOR"] = "serial"


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """fio 3.33's reference outputs (must exist: the compatibility tests are the point)."""
    assert REFERENCE_DIR.is_dir(), f"fio reference outputs not found at {REFERENCE_DIR}"
    return REFERENCE_DIR


@pytest.fixture(autouse=True)
def _in_tmp_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in its own directory: fio log files and ``out/`` land there."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def small() -> dict[str, object]:
    """Overrides for a 72 MiB drive of 64 superblocks of 1.5 MiB (GC after ~20 MiB)."""
    return small_overrides()


@pytest.fixture
def small_device(small: dict[str, object]) -> ssdtwin.Device:
    """A fresh tiny drive."""
    return ssdtwin.Device(overrides=small)


@pytest.fixture
def generic_filled() -> ssdtwin.Device:
    """The shipped 1 TB drive, ideal (no latency variability: its mechanisms' arithmetic is
    exact) on the ideal default host (every wakeup at its mean), with its first 2 % written
    sequentially (about 0.1 s)."""
    dev = ssdtwin.Device(overrides=ideal_overrides(), host_overrides=ideal_host_overrides())
    dev.fill("seq", percent=2)
    return dev


@pytest.fixture(scope="session")
def generic_profile() -> dict[str, Any]:
    """The shipped profile, resolved and parsed."""
    return tomllib.loads(ssdtwin.profile_toml(ssdtwin.DEFAULT_PROFILE))


@pytest.fixture
def small_profile_file(tmp_path: Path, small: dict[str, object]) -> Path:
    """The tiny drive as a profile file, for commands that take ``--profile FILE``."""
    path = tmp_path / "small.toml"
    path.write_text(ssdtwin.profile_toml(ssdtwin.DEFAULT_PROFILE, small))
    return path


@pytest.fixture
def run_main(capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[..., Outcome]]:
    """Runs the real entry point, ``ssdtwin.cli.main(argv)``, and captures its streams."""

    def run(*argv: str | Path) -> Outcome:
        capsys.readouterr()
        status = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return Outcome(status, captured.out, captured.err)

    yield run
