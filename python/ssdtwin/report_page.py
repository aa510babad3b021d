"""One self-contained HTML page for a run, to hand on: its conclusions, figures (embedded as
PNG data), tables, the drives' profiles with where each value came from, and the exact
command. The page needs nothing beside itself: no scripts, no fonts, no files.

Commands build a :class:`Page` from their own results and :func:`write` it; nothing here
simulates.
"""

from __future__ import annotations

import base64
import html
import io
import shlex
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from . import __version__, _ssdtwin
from .files import place_text

#: Rows of a table a page shows; the whole table is in the command's CSV/JSON.
MAX_TABLE_ROWS = 300


@dataclass(frozen=True)
class Figure:
    """A figure as PNG bytes, with what it shows."""

    png: bytes
    caption: str


@dataclass(frozen=True)
class Table:
    frame: pd.DataFrame
    caption: str
    #: Whether the frame's index is part of the table (a matrix's row labels).
    index: bool = False


@dataclass(frozen=True)
class Text:
    """Preformatted text: a report as the command prints it."""

    text: str


Part = Figure | Table | Text


@dataclass
class Section:
    heading: str
    parts: list[Part] = field(default_factory=list)


@dataclass
class Page:
    title: str
    #: The command line that made the page, as typed.
    command: str
    sections: list[Section] = field(default_factory=list)


def command_line() -> str:
    """The running command as a shell would take it back."""
    return shlex.join(["ssdtwin", *sys.argv[1:]])


def png(figure: Any) -> bytes:
    """A matplotlib figure as PNG bytes (the figure is closed)."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        figure.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
    finally:
        plt.close(figure)
    return buffer.getvalue()


def figure_file(path: Path, caption: str) -> Figure:
    """A figure a command has written as a PNG file."""
    return Figure(path.read_bytes(), caption)


def _table_html(table: Table) -> str:
    frame = table.frame
    note = ""
    if len(frame) > MAX_TABLE_ROWS:
        note = f'<p class="note">First {MAX_TABLE_ROWS} of {len(frame):,} rows.</p>'
        frame = frame.head(MAX_TABLE_ROWS)
    body = frame.to_html(index=table.index, border=0, classes="data", na_rep="", float_format=_number)
    return f"<figure><figcaption>{html.escape(table.caption)}</figcaption>{body}{note}</figure>"


def _number(value: float) -> str:
    """A table cell: integers as such, others to four significant digits."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def _part_html(part: Part) -> str:
    if isinstance(part, Figure):
        data = base64.b64encode(part.png).decode("ascii")
        caption = html.escape(part.caption)
        return (
            f'<figure><img src="data:image/png;base64,{data}" alt="{caption}">'
            f"<figcaption>{caption}</figcaption></figure>"
        )
    if isinstance(part, Table):
        return _table_html(part)
    return f"<pre>{html.escape(part.text)}</pre>"


STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 2em; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; white-space: pre-wrap; }
img { max-width: 100%; } figure { margin: 1em 0; } figcaption { font-weight: bold; margin: 0.3em 0; }
table.data { border-collapse: collapse; font-size: 0.85em; }
table.data th, table.data td { border: 1px solid #ddd; padding: 0.2em 0.5em; }
table.data td { text-align: left; }
.note, footer { color: #666; font-size: 0.85em; }
"""


def render(page: Page) -> str:
    """The page as one HTML document."""
    sections = "\n".join(
        f"<section><h2>{html.escape(s.heading)}</h2>\n" + "\n".join(_part_html(p) for p in s.parts) + "</section>"
        for s in page.sections
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(page.title)}</title><style>{STYLE}</style></head>\n"
        f"<body><h1>{html.escape(page.title)}</h1>\n"
        f'<p>Made by <code id="command">{html.escape(page.command)}</code></p>\n'
        f"{sections}\n"
        f"<footer><p>ssdtwin {html.escape(__version__)}: a simulated drive; same command, same output.</p></footer>"
        "</body></html>\n"
    )


def write(page: Page, path: Path) -> None:
    """Writes the page to ``path`` (through a temporary file renamed over it)."""
    place_text(path, render(page))


def _flatten(value: object, prefix: str) -> Iterator[tuple[str, object]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _flatten(inner, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, value


def _comments(text: str) -> tuple[str, dict[str, str]]:
    """A profile file's leading comment block, and each field's comment by its dotted name:
    the comment after its value (``key = value  # comment``, on the first line of a
    multi-line value), else the comment lines just above it.

    >>> text = "# A drive.\\n\\n[nand]\\n# Two lines\\n# of why.\\ndies = 8\\nplanes = 2  # datasheet\\n"
    >>> _comments(text)
    ('A drive.', {'nand.dies': 'Two lines of why.', 'nand.planes': 'datasheet'})
    """
    about: list[str] = []
    comments: dict[str, str] = {}
    above: list[str] = []
    section = ""
    started = False
    for line in text.splitlines():
        stripped = line.strip()
        if not started and stripped.startswith("#"):
            about.append(stripped.lstrip("#").strip())
            continue
        if stripped:
            started = True
        if stripped.startswith("#"):
            above.append(stripped.lstrip("#").strip())
            continue
        if stripped.startswith("["):
            section = stripped.strip("[]").strip()
        elif "=" in stripped:
            key, rest = (s.strip() for s in stripped.split("=", 1))
            comment = _trailing_comment(rest) or " ".join(a for a in above if a)
            if comment:
                comments[f"{section}.{key}" if section else key] = comment
        above = []
    return " ".join(a for a in about if a), comments


def _trailing_comment(value: str) -> str:
    """The comment after a TOML value, ``#`` inside strings ignored.

    >>> _trailing_comment('"a # b"   # from the datasheet')
    'from the datasheet'
    """
    quote = ""
    for i, ch in enumerate(value):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return value[i + 1 :].strip()
    return ""


def profile_fields(profile: str, overrides: Mapping[str, object] | None = None) -> tuple[str, pd.DataFrame]:
    """A drive profile's description and its fields as resolved (after ``overrides``):
    ``field``, ``value`` and ``source`` (the file's comment for the field, ``--set`` for
    an override, ``model default`` for a field the file leaves out)."""
    from .device import override_strings, resolved_toml

    resolved = tomllib.loads(resolved_toml(profile, override_strings(overrides, {})))
    text = _ssdtwin.shipped_profile_text(profile)
    if text is None and Path(profile).is_file():
        text = Path(profile).read_text(encoding="utf-8")
    return _fields(resolved, text or "", set((overrides or {}).keys()))


def text_fields(text: str) -> tuple[str, pd.DataFrame]:
    """:func:`profile_fields` of a profile's text as written (a probe's inferred profile)."""
    return _fields(tomllib.loads(text), text, set())


def _fields(resolved: dict[str, object], text: str, changed: set[str]) -> tuple[str, pd.DataFrame]:
    about, comments = _comments(text)
    set_here = _set_fields(text)
    rows = []
    for name, value in _flatten(resolved, ""):
        if name in changed:
            source = "--set"
        else:
            source = comments.get(name, "in the file" if name in set_here else "model default")
        rows.append({"field": name, "value": str(value), "source": source})
    return about, pd.DataFrame(rows)


def _set_fields(text: str) -> set[str]:
    """The dotted names a profile file sets itself."""
    try:
        return {name for name, _ in _flatten(tomllib.loads(text), "")} if text else set()
    except tomllib.TOMLDecodeError:
        return set()


def profile_section(profile: str, overrides: Mapping[str, object] | None = None) -> Section:
    """A section naming a drive profile, what it is, and each field with its source."""
    about, fields = profile_fields(profile, overrides)
    parts: list[Part] = [Text(about)] if about else []
    parts.append(Table(fields, f"{profile}: every field and where its value came from"))
    return Section(f"Drive: {profile}", parts)
