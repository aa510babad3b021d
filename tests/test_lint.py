"""The tools that keep the Python code in shape (STYLE.md §1, §4): ruff lint and format,
stubtest of the compiled module against its stub, and strict mypy over package and tests."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .helpers import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "command",
    [
        ("ruff", "check", "python", "tests", "examples", "bench", "validation"),
        ("ruff", "format", "--check", "python", "tests", "examples", "bench", "validation"),
        ("mypy.stubtest", "ssdtwin._ssdtwin", "--allowlist", ".mypy-stubtest-allowlist"),
        ("mypy", "python/ssdtwin", "tests"),
    ],
    ids=["ruff check", "ruff format", "stubtest", "mypy"],
)
def test_tool_passes(command: tuple[str, ...]) -> None:
    result = run(*command)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_allowlist_entry_says_why() -> None:
    lines = (REPO / ".mypy-stubtest-allowlist").read_text().splitlines()
    entries = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    for i in entries:
        assert i > 0 and lines[i - 1].startswith("#"), f"allowlist entry {lines[i]!r} needs a comment above it"
