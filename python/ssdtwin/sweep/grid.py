"""A sweep's grid: the points to run, from a TOML file or a dict.

``[sweep]`` gives the axes and the fixed values: ``profile``, ``host``, ``fill``
(``none``, ``seq[:PERCENT]`` or ``random[:PERCENT]``), ``seed``, and the tables ``set``
(profile fields), ``host_set`` (host profile fields) and ``job`` (fio options). A list is an
axis, anything else is fixed; points are the cross product, in the order the axes are
written. ``[[point]]`` tables instead list points one by one (with the same keys).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..device import DEFAULT_HOST, DEFAULT_PROFILE, DEFAULT_RUN_SEED
from ..errors import SsdtwinError

#: Keys of ``[sweep]`` and of each ``[[point]]``.
KEYS = ("profile", "host", "fill", "seed", "set", "host_set", "job")
TABLES = ("set", "host_set", "job")
DEFAULT_SEED = DEFAULT_RUN_SEED


class GridError(SsdtwinError, ValueError):
    """A grid is malformed (the message names the file and key)."""


@dataclass(frozen=True)
class Point:
    """One run: a drive in a host, filled, running one fio job."""

    index: int
    profile: str
    host: str
    fill: str
    seed: int
    set: dict[str, Any]
    host_set: dict[str, Any]
    job: dict[str, Any]

    @property
    def params(self) -> dict[str, Any]:
        """The point's parameters as flat columns (``set.FIELD``, ``job.OPTION``)."""
        flat: dict[str, Any] = {"profile": self.profile, "host": self.host, "fill": self.fill, "seed": self.seed}
        for table in TABLES:
            for key, value in getattr(self, table).items():
                flat[f"{table}.{key}"] = value
        return flat

    @property
    def id(self) -> str:
        """A stable name for the point: a hash of its parameters (not of its index)."""
        text = json.dumps(self.params, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Grid:
    """The points of a sweep and which columns vary between them."""

    points: list[Point]
    axes: list[str]


def _check(where: str, spec: dict[str, Any]) -> None:
    for key in spec:
        if key not in KEYS:
            raise GridError(f"{where}: unknown key '{key}'; allowed {', '.join(KEYS)}")
    for table in TABLES:
        if table in spec and not isinstance(spec[table], dict):
            raise GridError(f"{where}.{table}: expected a table of FIELD = value")
    for key in ("profile", "host", "fill"):
        values = spec.get(key)
        for v in values if isinstance(values, list) else [values]:
            if v is not None and not isinstance(v, str):
                raise GridError(f"{where}.{key}: expected a string or a list of strings, got {v!r}")
    seed = spec.get("seed", DEFAULT_SEED)
    for s in seed if isinstance(seed, list) else [seed]:
        if not isinstance(s, int) or isinstance(s, bool) or s < 0:
            raise GridError(f"{where}.seed: expected a non-negative integer, got {s!r}")
    fill = spec.get("fill")
    for f in fill if isinstance(fill, list) else [fill]:
        if f is not None and f != "none" and f.partition(":")[0] not in ("seq", "random", "steady"):
            raise GridError(f"{where}.fill: '{f}'; allowed none, seq[:PERCENT], random[:PERCENT], steady[:PERCENT]")


def from_dict(spec: dict[str, Any], source: str = "grid") -> Grid:
    """The grid a parsed TOML document (or an equivalent dict) describes."""
    unknown = set(spec) - {"sweep", "point"}
    if unknown:
        raise GridError(f"{source}: unknown table '{sorted(unknown)[0]}'; allowed [sweep] or [[point]]")
    if ("sweep" in spec) == ("point" in spec):
        raise GridError(f"{source}: give either [sweep] (a grid) or [[point]] tables (a list)")
    if "point" in spec:
        listed = spec["point"]
        if not isinstance(listed, list) or not listed:
            raise GridError(f"{source}: [[point]] tables expected")
        points = []
        for k, entry in enumerate(listed):
            _check(f"{source}: point {k + 1}", entry)
            if any(isinstance(v, list) for v in entry.values()):
                raise GridError(f"{source}: point {k + 1}: a listed point takes no lists")
            points.append(_point(k, entry))
        varying = [c for c in points[0].params if len({json.dumps(pt.params.get(c), default=str) for pt in points}) > 1]
        return Grid(points, varying)
    base = spec["sweep"]
    _check(f"{source}: [sweep]", base)
    # Axes in the order they are written: top-level keys, then each table's fields.
    axes: list[tuple[str, str | None, list[Any]]] = []
    for key, value in base.items():
        if key in TABLES:
            for field, v in value.items():
                if isinstance(v, list):
                    if not v:
                        raise GridError(f"{source}: [sweep].{key}.{field}: an empty list")
                    axes.append((key, field, v))
        elif isinstance(value, list):
            if not value:
                raise GridError(f"{source}: [sweep].{key}: an empty list")
            axes.append((key, None, value))
    points = []
    for k, combo in enumerate(itertools.product(*(values for _, _, values in axes))):
        p: dict[str, Any] = {key: (dict(v) if key in TABLES else v) for key, v in base.items()}
        for (key, field, _), value in zip(axes, combo, strict=True):
            if field is None:
                p[key] = value
            else:
                p[key][field] = value
        points.append(_point(k, p))
    return Grid(points, [key if field is None else f"{key}.{field}" for key, field, _ in axes])


def _point(index: int, p: dict[str, Any]) -> Point:
    return Point(
        index=index,
        profile=p.get("profile") or DEFAULT_PROFILE,
        host=p.get("host") or DEFAULT_HOST,
        fill=p.get("fill") or "none",
        seed=int(p.get("seed", DEFAULT_SEED)),
        set=dict(p.get("set", {})),
        host_set=dict(p.get("host_set", {})),
        job=dict(p.get("job", {})),
    )


def load_grid(path: str | Path) -> Grid:
    """The grid in a TOML file.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "g.toml"
    >>> _ = f.write_text('[sweep]\\nprofile = ["a", "b"]\\n[sweep.job]\\nrw = ["read", "write"]\\nbs = "4k"\\n')
    >>> g = load_grid(f)
    >>> [(p.profile, p.job["rw"]) for p in g.points], g.axes
    ([('a', 'read'), ('a', 'write'), ('b', 'read'), ('b', 'write')], ['profile', 'job.rw'])
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise GridError(f"{p}: not UTF-8 text") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise GridError(f"{p}: {e}") from None
    return from_dict(doc, str(p))
