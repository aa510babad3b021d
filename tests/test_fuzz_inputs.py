"""Malformed input of every kind a user hands ssdtwin, generated: job files (INI structure,
options, includes, variables, junk), profiles (the shipped TOML mutated line by line) and
state files (random bytes behind a valid magic). Each is either accepted or refused with one
line and exit status 2 (or the library's own error type); never a traceback, a panic or a
hang.

``HYPOTHESIS_PROFILE=slow`` runs 1000 examples per test instead of 30; ``nightly`` runs
100 000 (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ssdtwin import Device, ProfileError, StateError, profile_toml
from ssdtwin.cli import main
from ssdtwin.testing import SUPPORTED_OPTIONS

#: Values that stress fio's value parsers: suffixes, ranges, lists, percentages, signs.
VALUES = st.one_of(
    st.sampled_from(["4k", "1m", "0", "-1", "1:2", "4k-8k", "50%", "1/2:3/4", "1e9", "0x10", "k", ",", "", "inf"]),
    st.text(max_size=12),
    st.integers(-(2**70), 2**70).map(str),
)
LINES = st.one_of(
    st.builds(lambda name: f"[{name}]", st.sampled_from(["global", "a", "b", "", "global x", "a b"])),
    st.builds(lambda o, v: f"{o}={v}", st.sampled_from(sorted(SUPPORTED_OPTIONS)), VALUES),
    st.sampled_from(sorted(SUPPORTED_OPTIONS)),
    st.sampled_from(["include missing.fio", "include ", "; comment", "# c", "rw=${NOPE}", "=x", "[", "]", "\t"]),
    st.text(max_size=30),
)


def cli(*args: str | Path) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main([str(a) for a in args])
    return status, err.getvalue()


def one_line_or_clean(status: int, err: str) -> None:
    assert status in (0, 2), (status, err)
    assert "Traceback" not in err and "panicked" not in err, err
    if status == 2:
        assert err.startswith("ssdtwin: ") and err.count("\n") == 1, err


@given(st.lists(LINES, max_size=12))
def test_any_job_file_parses_or_is_one_line(tmp_path_factory: pytest.TempPathFactory, lines: list[str]) -> None:
    path = tmp_path_factory.mktemp("jobs") / "job.fio"
    path.write_text("\n".join(lines) + "\n")
    one_line_or_clean(*cli("fio", "--parse-only", path))


SHIPPED = profile_toml("generic-tlc-1tb").splitlines()


@given(
    st.lists(
        st.tuples(
            st.integers(0, len(SHIPPED) - 1),
            st.one_of(st.none(), st.builds(lambda v: v, VALUES), st.text(max_size=20)),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_any_mutated_profile_builds_or_is_a_profile_error(
    tmp_path_factory: pytest.TempPathFactory, edits: list[tuple[int, str | None]]
) -> None:
    lines = list(SHIPPED)
    for index, value in edits:
        if value is None:
            lines[index] = ""  # a deleted line
        elif "=" in lines[index]:
            lines[index] = lines[index].split("=", 1)[0] + "= " + value
        else:
            lines[index] = value
    path = tmp_path_factory.mktemp("profiles") / "mutant.toml"
    path.write_text("\n".join(lines) + "\n")
    with contextlib.suppress(ProfileError):
        profile_toml(path)
    one_line_or_clean(*cli("profiles", "show", path))


@given(st.binary(max_size=300))
def test_any_bytes_after_a_state_magic_are_a_state_error(tmp_path_factory: pytest.TempPathFactory, body: bytes) -> None:
    path = tmp_path_factory.mktemp("states") / "x.state"
    for head in (b"SSDTWIN\0", b"SSDTWIN\0\x02\0\0\0", b""):
        path.write_bytes(head + body)
        with contextlib.suppress(StateError):
            Device.load(path)
        one_line_or_clean(*cli("smartctl", "-H", "--state", path))
