"""Calls only go down: no module of ssdtwin-core names a module on a floor above its own.

The floors are the layers of ``crates/ssdtwin-core/src/lib.rs``, top to bottom, checked
against the code: ``setup`` composes hosts, targets and drives above everything;
``config`` builds the drive's parts' configurations (``nvme``'s link,
``controller``'s, ``ftl``'s, ``nand``'s timings) and ``ssd`` is built from the result, so
``config`` sits between them; ``block`` is the seam every target implements, so it sits
under all of them. Every ``crate::MODULE`` path outside a comment counts, in ``use`` lines
and inline alike.
"""

from __future__ import annotations

import re
from pathlib import Path

from .helpers import REPO

SRC = REPO / "crates" / "ssdtwin-core" / "src"

#: Top to bottom; modules on one floor may use each other.
FLOORS: list[set[str]] = [
    {"setup"},
    {"workload"},
    {"os"},
    {"zfs"},
    {"hdd"},
    {"ssd"},
    {"config"},
    {"nvme"},
    {"controller"},
    {"ftl"},
    {"nand"},
    {"block"},
    {"engine", "stats", "input", "profile_file", "defaults"},
]

#: Today's known imports from a floor above, as (importer, imported). They are being
#: removed; delete an entry once its import is gone, so that it cannot come back.
KNOWN_UPWARD: set[tuple[str, str]] = {
    # block::AnyDevice, the one enum over the concrete targets, names them.
    ("block", "hdd"),
    ("block", "ssd"),
    # The map cache sizes its HMB share from the drive's HMB request (nvme::HmbRequest).
    ("controller", "nvme"),
}

_PATH = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")
_USE = re.compile(r"\buse\s+crate::\{([^;]*)\}", re.DOTALL)


def _floor(module: str) -> int:
    return next(i for i, floor in enumerate(FLOORS) if module in floor)


def _code(text: str) -> str:
    """``text`` without its comments (line comments and doc comments)."""
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def _top_level(items: str) -> list[str]:
    """The first segment of each item of a ``use crate::{...}`` list (nested lists skipped)."""
    depth, starts = 0, [0]
    for i, c in enumerate(items):
        depth += {"{": 1, "}": -1}.get(c, 0)
        if c == "," and depth == 0:
            starts.append(i + 1)
    heads = [re.match(r"\s*([a-z_][a-z0-9_]*)", items[s:]) for s in starts]
    return [h.group(1) for h in heads if h]


def imports(src: Path) -> dict[tuple[str, str], list[str]]:
    """Every (module, module it names) pair under ``src``, with the places (``file:line``)."""
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(src.rglob("*.rs")):
        rel = path.relative_to(src)
        module = rel.parts[0].removesuffix(".rs")
        code = _code(path.read_text())
        named: list[tuple[str, int]] = [(m.group(1), m.start()) for m in _PATH.finditer(code)]
        # `use crate::{a::X, b::Y};` names a and b.
        for m in _USE.finditer(code):
            named += [(t, m.start()) for t in _top_level(m.group(1))]
        for target, at in named:
            if target != module:
                line = code.count("\n", 0, at) + 1
                found.setdefault((module, target), []).append(f"{rel}:{line}")
    return found


def upward(src: Path) -> dict[tuple[str, str], list[str]]:
    """The imports of ``src`` from a floor above the importer's."""
    return {pair: at for pair, at in imports(src).items() if _floor(pair[1]) < _floor(pair[0])}


def test_every_module_of_the_crate_is_on_one_floor() -> None:
    declared = set(re.findall(r"^pub mod ([a-z_]+);", (SRC / "lib.rs").read_text(), re.MULTILINE))
    placed = [m for floor in FLOORS for m in floor]
    assert len(placed) == len(set(placed))
    assert declared == set(placed)


def test_no_module_imports_from_a_floor_above_it() -> None:
    found = upward(SRC)
    new = {pair: at for pair, at in found.items() if pair not in KNOWN_UPWARD}
    assert not new, "imports from a floor above: " + "; ".join(
        f"{a} -> {b} at {', '.join(at)}" for (a, b), at in new.items()
    )


def test_an_upward_import_is_found_in_use_lines_and_paths(tmp_path: Path) -> None:
    (tmp_path / "nand").mkdir()
    (tmp_path / "nand" / "die.rs").write_text(
        "//! Not [`crate::ssd`]: a comment.\n"
        "use crate::engine::SimTime;\n"
        "use crate::{engine::{self, SimDuration},\n    controller::ControllerConfig};\n"
        "fn f(x: crate::ssd::Ssd) {} // crate::os\n"
    )
    assert upward(tmp_path) == {("nand", "controller"): ["nand/die.rs:3"], ("nand", "ssd"): ["nand/die.rs:5"]}
