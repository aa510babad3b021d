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
import gzip
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


@pytest.mark.slow
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


# ---- traces ----

TRACE_LINES = st.one_of(
    st.builds(
        lambda t, f, a, o, n: f"{t} {f} {a} {o} {n}",
        st.sampled_from(["0", "1", "100", "-5", "x", "18446744073709551616"]),
        st.sampled_from(["/dev/nvme0n1", "f"]),
        st.sampled_from(["read", "write", "trim", "sync", "datasync", "wait", "add", "open", "close", "fly"]),
        st.sampled_from(["0", "512", "4096", "1000", "-1", "99999999999999999999", "x"]),
        st.sampled_from(["0", "512", "4096", "100", "-1", "x"]),
    ),
    st.builds(lambda f, a: f"{f} {a}", st.sampled_from(["f", "/dev/sda"]), st.sampled_from(["add", "open", "read"])),
    st.text(max_size=40),
)


@given(
    st.sampled_from(["fio version 2 iolog", "fio version 3 iolog", "fio version 4 iolog", ""]),
    st.lists(TRACE_LINES, max_size=10),
)
@pytest.mark.slow
def test_any_iolog_replays_or_is_one_line(
    tmp_path_factory: pytest.TempPathFactory, head: str, lines: list[str]
) -> None:
    path = tmp_path_factory.mktemp("traces") / "t.log"
    path.write_text("\n".join([head, *lines]) + "\n")
    one_line_or_clean(*cli("fio", "--host", "none", "--name=r", f"--read_iolog={path}", "--output-format=terse"))


@pytest.mark.slow
@given(st.binary(max_size=400), st.booleans())
def test_any_blktrace_bytes_replay_or_are_one_line(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, magic: bool
) -> None:
    # Half the cases behind a valid little-endian magic and version, so records get parsed.
    if magic:
        data = (0x65617407).to_bytes(4, "little") + data
    path = tmp_path_factory.mktemp("traces") / "t.bin"
    path.write_bytes(data)
    one_line_or_clean(*cli("fio", "--host", "none", "--name=r", f"--read_iolog={path}", "--output-format=terse"))


@given(st.sampled_from(["msr", "blkparse", "spc", "alibaba", "tencent"]), st.lists(st.text(max_size=60), max_size=8))
def test_any_trace_text_converts_or_is_one_line(
    tmp_path_factory: pytest.TempPathFactory, fmt: str, lines: list[str]
) -> None:
    d = tmp_path_factory.mktemp("convert")
    (d / "in.txt").write_text("\n".join(lines) + "\n")
    one_line_or_clean(*cli("trace", "convert", d / "in.txt", "--format", fmt, "--out", d / "out.log", "--force"))


@given(st.binary(max_size=600), st.sampled_from(["plain", "gzip", "cut-gzip"]), st.sampled_from(["msr", "blkparse"]))
def test_any_trace_bytes_plain_or_gzipped_convert_or_are_one_line(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, packing: str, fmt: str
) -> None:
    d = tmp_path_factory.mktemp("convert")
    if packing != "plain":
        data = gzip.compress(data)
        if packing == "cut-gzip":
            data = data[: len(data) // 2]
    path = d / ("in.gz" if packing != "plain" else "in.txt")
    path.write_bytes(data)
    one_line_or_clean(*cli("trace", "convert", path, "--format", fmt, "--out", d / "out.log", "--force"))


NUMBERS = st.one_of(
    st.sampled_from(["0", "1", "nan", "inf", "-inf", "1e400", "-1", "9223372036854775808", "0x10", "", "4096"]),
    st.integers(-(2**80), 2**80).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


@given(st.lists(st.tuples(NUMBERS, st.sampled_from(["Read", "Write", "x"]), NUMBERS, NUMBERS, NUMBERS), max_size=6))
def test_any_numbers_in_an_msr_trace_convert_or_are_one_line(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, str, str, str, str]]
) -> None:
    # MSR Cambridge: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime.
    d = tmp_path_factory.mktemp("convert")
    (d / "in.csv").write_text("".join(f"{t},host,0,{k},{o},{n},{r}\n" for t, k, o, n, r in rows))
    one_line_or_clean(*cli("trace", "convert", d / "in.csv", "--format", "msr", "--out", d / "out.log", "--force"))


@pytest.mark.slow
@given(st.integers(1, 6000), st.sampled_from(["", "rw=randread\n", "numjobs=2\n", "bs=\n"]))
def test_job_files_of_many_sections_parse_or_are_one_line_in_bounded_time(
    tmp_path_factory: pytest.TempPathFactory, sections: int, body: str
) -> None:
    path = tmp_path_factory.mktemp("jobs") / "many.fio"
    path.write_text("".join(f"[j{i}]\n{body}" for i in range(sections)))
    status, err = cli("fio", "--parse-only", path)
    one_line_or_clean(status, err)
    # At most 4096 jobs (docs/promises.md): beyond, one line saying so.
    if sections * (2 if "numjobs" in body else 1) > 4096 and "bs=" not in body:
        assert status == 2 and "4096" in err, err
