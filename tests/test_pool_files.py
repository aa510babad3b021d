"""Property tests of pool files: any pool file, however malformed, builds a pool or is refused
by ``ssdtwin zpool list`` with one line naming the file, exit status 2; never a traceback.
Malformed files are valid ones with a field removed, retyped, set to a stray value, or
misspelled, and raw text. ``HYPOTHESIS_PROFILE=slow`` runs many more (tests/conftest.py)."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from ssdtwin.cli import main
from ssdtwin.device import toml_literal
from ssdtwin.zfs import pool_toml

from .helpers import Outcome, assert_one_line_error

BASE: dict[str, Any] = tomllib.loads(pool_toml("hdd-mirror-special"))

scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["0", "512", "4K", "128K", "1M", "16M", "-1", "mirror", "raidz9", "exos-x18-16tb", "p32a80"]),
)
values = st.one_of(scalars, st.lists(scalars, max_size=4))


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a leaf value of the parsed file."""
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _paths(v, (*prefix, k))] or [prefix]
    if isinstance(node, list) and node and isinstance(node[0], dict):
        return [p for i, v in enumerate(node) for p in _paths(v, (*prefix, i))]
    return [prefix]


PATHS = _paths(BASE)


def _to_toml(node: dict[str, Any], prefix: str = "") -> str:
    lines = [f"[{prefix}]"] if prefix else []
    for k, v in node.items():
        if not isinstance(v, dict) and not (isinstance(v, list) and v and isinstance(v[0], dict)):
            lines.append(f"{k} = {toml_literal(v)}")
    out = "\n".join(lines) + "\n"
    for k, v in node.items():
        name = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out += _to_toml(v, name)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            for item in v:
                out += f"[[{name}]]\n" + _to_toml(item, "").replace("\n[", "\n[" + name + ".")
    return out


def _mutate(data: st.DataObject) -> str:
    import copy

    tree = copy.deepcopy(BASE)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(PATHS))
        parent: Any = tree
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        action = data.draw(st.sampled_from(["delete", "set", "rename"]))
        with contextlib.suppress(KeyError, IndexError, TypeError):
            if action == "delete":
                del parent[key]
            elif action == "set":
                parent[key] = data.draw(values)
            else:
                parent[f"{key}x"] = parent.pop(key)
    try:
        return _to_toml(tree)
    except TypeError:
        return "[pool]\nname = 1\n"


def _zpool_list(text: str) -> tuple[Outcome, str]:
    fd, name = tempfile.mkstemp(suffix=".toml")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["zpool", "list", "-v", "--pool", name])
        return Outcome(status, out.getvalue(), err.getvalue()), name
    finally:
        Path(name).unlink()


@given(st.data())
def test_any_mutated_pool_file_builds_or_is_refused_on_one_line(data: st.DataObject) -> None:
    outcome, name = _zpool_list(_mutate(data))
    if outcome.status == 0:
        assert outcome.out.startswith("NAME")
    else:
        assert_one_line_error(outcome, name)


@given(st.text(max_size=200))
def test_any_text_as_a_pool_file_is_refused_on_one_line(text: str) -> None:
    outcome, name = _zpool_list(text)
    if outcome.status != 0:
        assert_one_line_error(outcome, name)


def test_the_base_file_round_trips(run_main: Callable[..., Outcome]) -> None:
    """The shipped pool, parsed and written out again, is the same pool: the mutations
    above start from a file that builds."""
    outcome, _ = _zpool_list(_to_toml(BASE))
    assert outcome == run_main("zpool", "list", "-v", "--pool", "hdd-mirror-special")
    assert outcome.out.startswith("NAME") and "special" in outcome.out
