"""The library: sheets of real drives shipped in ``sheets/``, each the source of the shipped
profile of the same name (built by ``profile new``; docs/profiles.md, "The library")."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def sheets() -> list[str]:
    """The names of the library's sheets (and of the profiles built from them)."""
    return sorted(p.name.removesuffix(".toml") for p in _dir().iterdir() if p.name.endswith(".toml"))


def sheet_path(name: str) -> Traversable | None:
    """The sheet of library profile ``name``, or None if ``name`` is not one."""
    path = _dir().joinpath(f"{name}.toml")
    return path if path.is_file() else None


def sheet_text(name: str) -> str:
    """The text of library sheet ``name``."""
    path = sheet_path(name)
    if path is None:
        raise KeyError(name)
    return path.read_text(encoding="utf-8")


def _dir() -> Traversable:
    return resources.files(__package__).joinpath("sheets")
