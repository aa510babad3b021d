"""A drive profile as commented TOML: each field with the comment that says where its value
came from (a measurement, a datasheet, a derivation or a prior), and the checks that build it
with ssdtwin's own loader. The probe and ``profile new`` both write profiles this way."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import _ssdtwin


@dataclass
class Field:
    """One profile field: value and the comment saying where it came from."""

    value: object
    comment: str


@dataclass
class Profile:
    """An inferred profile: sections of fields, in the order they are written."""

    sections: dict[str, dict[str, Field]] = field(default_factory=dict)

    def set(self, section: str, name: str, value: object, comment: str) -> None:
        self.sections.setdefault(section, {})[name] = Field(value, comment)

    def get(self, section: str, name: str) -> object:
        return self.sections[section][name].value

    def toml(self, header: str = "") -> str:
        """The profile as commented TOML."""
        lines = [f"# {line}" if line else "#" for line in header.splitlines()]
        for section, fields in self.sections.items():
            lines += ["", f"[{section}]"]
            width = max(
                (len(f"{name} = {literal(f.value)}") for name, f in fields.items() if not isinstance(f.value, list)),
                default=0,
            )
            for name, f in fields.items():
                text = f"{name} = {literal(f.value)}"
                lines.append(f"{text:<{width}}  # {f.comment}" if f.comment else text)
        return "\n".join(lines) + "\n"

    def records(self) -> list[dict[str, object]]:
        """One record per field: section, name, value and where it came from."""
        return [
            {"field": f"{section}.{name}", "value": f.value, "source": f.comment}
            for section, fields in self.sections.items()
            for name, f in fields.items()
        ]


def literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(round(value, 3))
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        if value and isinstance(value[0], Mapping):
            inner = ",\n".join("  { " + ", ".join(f"{k} = {literal(v)}" for k, v in d.items()) + " }" for d in value)
            return "[\n" + inner + ",\n]"
        return "[" + ", ".join(literal(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def max_namespace(p: Profile) -> int:
    """The largest namespace the profile's array allows (ssdtwin's capacity rule)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "profile.toml"
        path.write_text(p.toml())
        return int(_ssdtwin.max_namespace_bytes(str(path), []))


def check_profile(text: str) -> None:
    """Builds the profile with ssdtwin's own loader; raises :class:`ProfileError` if it
    does not validate."""
    from .device import resolved_toml

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "profile.toml"
        path.write_text(text)
        resolved_toml(str(path), [])
