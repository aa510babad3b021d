"""Runs side by side: the inputs of ``ssdtwin compare``, loaded and put into one table.

Two kinds of input, never on one figure together:

* **tables**: a study's output (``out/NAME/NAME.csv`` or ``NAME.json``, or the directory
  holding them), a sweep's results directory (or its ``results.*`` files), or any CSV,
  JSON-records or Parquet table. Each file gives one series per drive and host (its
  ``profile`` and ``host`` columns) and per value of the ``by`` columns; the table keeps the
  two columns drawn, ``x`` and ``y``. A known study brings its figure's axes
  (:data:`STUDY_AXES`); a sweep splits its series by the grid's other axes.
* **fio JSON output** (``--output-format=json`` or ``json+``) from ``ssdtwin fio`` or from
  real fio, text printed before the JSON allowed: one record per job and direction that did
  I/O, with its rate, mean latencies and completion-latency (clat) percentiles, named by the
  drive (the twin's JSON names its profile; for real fio, the job's ``filename``).

Everything here is pure (no click, no matplotlib): :func:`compare` returns a
:class:`Comparison` that the CLI draws with :mod:`ssdtwin.plots.compare`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from .errors import SsdtwinError

Kind = Literal["table", "fio"]

#: What ``ssdtwin compare`` reads, for errors about a file it cannot use.
ALLOWED = (
    "allowed: a study's or sweep's table (CSV, JSON records, Parquet, a sweep's --out directory) "
    "or fio JSON output (--output-format=json or json+)"
)

#: Each study's default axes, ``(x, y, by)``: those of the study's own figure, so that a
#: comparison reads like it (slc-write plots its rate against the data written, which puts
#: the drives' SLC cliffs at their cache sizes, where its figure has time and a second
#: axis). Studies whose figures have no single pair of axes (memory, zfs-special) need
#: ``--x`` and ``--y``.
STUDY_AXES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "cdm": ("test", "mb_per_s", ("op",)),
    "dirty-recovery": ("phase", "mb_per_s", ("rw",)),
    "endurance": ("job", "write_amplification", ("variant",)),
    "hmb": ("range_gib", "iops", ("rw", "hmb_mib")),
    "lbaf": ("test", "mb_per_s", ("op", "lbaf")),
    "qd-sweep": ("iodepth", "iops", ("rw", "direction")),
    "qlc-tr": ("written_gib", "mean_lat_us", ()),
    "qos": ("iodepth", "p99_us", ("rw",)),
    "read-after-write": ("t_s", "read_mib_per_s", ("write_s",)),
    "slc-fill": ("written_gb", "write_mb_per_s", ()),
    "slc-write": ("written_gb", "write_mib_per_s", ()),
    "thermal": ("t_s", "write_mb_per_s", ("airflow_m_per_s",)),
    "whole-fill": ("written_gb", "write_mb_per_s", ()),
}
#: Studies that write a table but have no default axes here.
OTHER_STUDIES = ("memory", "placement", "pts", "zfs-special")

#: fio's directions, in its order, and the sum of them all that ``unified_rw_reporting=mixed``
#: reports instead.
DIRECTIONS = ("read", "write", "trim", "mixed")

#: Units named by the end of a column's name (the project's convention), longest first.
_UNITS = (
    ("_mib_per_s", "MiB/s, 2^20 B/s"),
    ("_mb_per_s", "MB/s, 10^6 B/s"),
    ("_bytes_per_s", "B/s"),
    ("_m_per_s", "m/s"),
    ("_per_year", "per year"),
    ("_per_day", "per day"),
    ("_bytes", "bytes"),
    ("_gib", "GiB, 2^30 B"),
    ("_mib", "MiB, 2^20 B"),
    ("_gb", "GB, 10^9 B"),
    ("_us", "µs"),
    ("_ms", "ms"),
    ("_ns", "ns"),
    ("_pct", "%"),
    ("_c", "°C"),
    ("_w", "W"),
    ("_s", "s"),
)


class CompareError(SsdtwinError, ValueError):
    """Inputs that cannot be compared: a file ssdtwin cannot read as a table or fio JSON, a
    column one of them lacks, or inputs of two kinds."""


@dataclass(frozen=True)
class Loaded:
    """One input file as read: a table (``kind`` "table") or fio's normalised records
    (``kind`` "fio", see :func:`fio_records`)."""

    path: Path
    kind: Kind
    table: pd.DataFrame
    #: fio output: the series name its content gives (see :func:`fio_label`); tables name
    #: series by their rows' drive and host instead ("").
    label: str
    #: The study whose output it is, if its name says so.
    study: str | None = None
    #: A sweep's grid axes, in the grid's order (empty for other tables).
    axes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Comparison:
    """What ``ssdtwin compare`` draws: the combined table (a ``series`` column first) and,
    for tables, the columns on each axis."""

    kind: Kind
    table: pd.DataFrame
    title: str
    x: str = ""
    y: str = ""
    by: tuple[str, ...] = field(default=())


def column_label(column: str) -> str:
    """An axis label for a column, its unit spelled out from the end of its name.

    >>> column_label("write_mib_per_s"), column_label("written_gb"), column_label("iops")
    ('write (MiB/s, 2^20 B/s)', 'written (GB, 10^9 B)', 'IOPS')
    >>> column_label("mb_per_s"), column_label("job.bs")
    ('MB/s (10^6 B/s)', 'job.bs')
    """
    if column == "iops" or column.endswith("_iops"):
        return column.removesuffix("iops").replace("_", " ") + "IOPS"
    for suffix, unit in _UNITS:
        if column == suffix[1:]:
            short, _, rest = unit.partition(", ")
            return f"{short} ({rest})" if rest else short
        if column.endswith(suffix):
            return f"{column.removesuffix(suffix).replace('_', ' ')} ({unit})"
    return column


# ---- reading files -----------------------------------------------------------------------


def _bad(path: Path, why: str) -> CompareError:
    return CompareError(f"{path}: {why}; {ALLOWED}")


def _study_of(path: Path) -> str | None:
    stem = path.stem
    return stem if stem in STUDY_AXES or stem in OTHER_STUDIES else None


def _table(path: Path, table: pd.DataFrame, axes: Sequence[str] = ()) -> Loaded:
    if table.empty or len(table.columns) == 0:
        raise _bad(path, "the table has no rows")
    return Loaded(path, "table", table, "", _study_of(path), tuple(axes))


def _sweep(directory: Path) -> Loaded:
    from .sweep.engine import read_results

    table = read_results(directory)
    axes_file = directory / "axes.json"
    axes = list(json.loads(axes_file.read_text())) if axes_file.exists() else []
    return _table(directory, table, axes)


def _find_fio_json(text: str) -> dict[str, Any] | None:
    """fio's JSON document in ``text``: the first ``{`` at the start of a line that opens an
    object with ``jobs`` (fio prints warnings, and ``--output-format=normal,json`` a report,
    around it)."""
    decoder = json.JSONDecoder()
    starts = [0] if text.startswith("{") else []
    starts += [m.start() + 1 for m in re.finditer(r"\n\{", text)]
    for start in starts:
        try:
            doc, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("jobs"), list):
            return doc
    return None


def load(path: Path) -> Loaded:
    """Reads one input, its format told by what it is: a directory (a sweep's results, or a
    study's output directory), a ``.csv`` or ``.parquet`` table, or JSON (records, or fio's
    output with text around it)."""
    if not path.exists():
        raise _bad(path, "no such file or directory")
    if path.is_dir():
        if (path / "results.parquet").exists():
            return _sweep(path)
        tables = sorted(p for p in path.glob("*.csv") if _study_of(p))
        if len(tables) != 1:
            raise _bad(path, "a directory must hold a sweep's results.parquet or one study's NAME.csv")
        return load(tables[0])
    if path.name.startswith("results.") and (path.parent / "results.parquet").exists():
        # A sweep's own table: read back whole, its axes in the grid's order.
        return _sweep(path.parent)
    try:
        if path.suffix.lower() == ".parquet":
            return _table(path, pd.read_parquet(path))
        data = path.read_bytes()
        if b"\0" in data[:4096]:
            raise _bad(path, "it is binary")
        text = data.decode("utf-8")
        if path.suffix.lower() == ".csv":
            from io import StringIO

            return _table(path, pd.read_csv(StringIO(text)))
    except UnicodeDecodeError:
        raise _bad(path, "it is not UTF-8 text") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError, OSError) as e:
        if isinstance(e, CompareError):
            raise
        if isinstance(e, PermissionError | IsADirectoryError):
            raise _bad(path, f"cannot read it ({e.strerror})") from None
        raise _bad(path, f"cannot read it ({str(e).splitlines()[0] if str(e) else type(e).__name__})") from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            records = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise _bad(path, f"its JSON is malformed ({e.msg} at line {e.lineno})") from None
        if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
            raise _bad(path, "its JSON is not a list of records")
        return _table(path, pd.DataFrame(records))
    doc = _find_fio_json(text)
    if doc is None:
        raise _bad(path, "it is neither a table nor fio JSON output (no object with 'jobs' found)")
    return Loaded(path, "fio", fio_records(doc), fio_label(doc, path))


# ---- fio JSON ------------------------------------------------------------------------------


def _option(job: dict[str, Any], doc: dict[str, Any], *names: str) -> str | None:
    """A job's option as written (the job's own, else the global one), under any of its
    names (fio takes ``readwrite`` for ``rw``, ``blocksize`` for ``bs``)."""
    for options in (job.get("job options") or {}, doc.get("global options") or {}):
        for name in names:
            if name in options:
                return str(options[name])
    return None


def _count(text: str | None) -> int:
    """``iodepth`` or ``numjobs`` as a number (fio's default, 1, when not given)."""
    try:
        return int(text) if text is not None else 1
    except ValueError:
        return 1


def percentile_column(percentile: float) -> str:
    """The table's column for a clat percentile, named as the qos study names them.

    >>> percentile_column(99.9), percentile_column(50.0), percentile_column(99.99)
    ('clat_p99_9_us', 'clat_p50_us', 'clat_p99_99_us')
    """
    return f"clat_p{percentile:g}_us".replace(".", "_")


def percentile_of(column: str) -> float | None:
    """The percentile a column of :func:`percentile_column` holds (None for other columns).

    >>> percentile_of("clat_p99_9_us"), percentile_of("iops")
    (99.9, None)
    """
    if not (column.startswith("clat_p") and column.endswith("_us")):
        return None
    try:
        return float(column.removeprefix("clat_p").removesuffix("_us").replace("_", "."))
    except ValueError:
        return None


def fio_records(doc: dict[str, Any]) -> pd.DataFrame:
    """One row per job and direction that did I/O: ``job`` (its name), ``clone`` (how many
    entries of that name came before it: jobs with ``numjobs`` and no ``group_reporting``
    repeat their name), ``groupid``, ``direction``, ``rw``, ``bs`` (as written), ``iodepth``,
    ``numjobs``, ``iops``, ``bw_bytes_per_s``, ``mean_lat_us`` (total latency),
    ``mean_clat_us`` and one ``clat_pNN_us`` column per percentile fio reported.

    >>> doc = {"jobs": [{"jobname": "r", "job options": {"rw": "randread", "iodepth": "8"},
    ...         "read": {"io_bytes": 4096, "iops": 100.0, "bw_bytes": 409600,
    ...                  "lat_ns": {"mean": 12000.0}, "clat_ns": {"mean": 11000.0,
    ...                  "percentile": {"50.000000": 10240, "99.900000": 20480}}},
    ...         "write": {"io_bytes": 0}}]}
    >>> r = fio_records(doc).iloc[0]
    >>> r.direction, r.bs, int(r.iodepth), float(r.iops), float(r.mean_lat_us), float(r.clat_p99_9_us)
    ('read', '4k', 8, 100.0, 12.0, 20.48)
    """
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for job in doc.get("jobs", []):
        if not isinstance(job, dict):
            continue
        name = str(job.get("jobname", ""))
        clone = seen.get(name, 0)
        seen[name] = clone + 1
        for direction in DIRECTIONS:
            stats = job.get(direction)
            if not isinstance(stats, dict) or not stats.get("io_bytes"):
                continue
            lat = stats.get("lat_ns") or {}
            clat = stats.get("clat_ns") or {}
            row: dict[str, Any] = {
                "job": name,
                "clone": clone,
                "groupid": int(job.get("groupid", 0)),
                "direction": direction,
                "rw": _option(job, doc, "rw", "readwrite") or "read",
                # fio's default block size is 4 KiB.
                "bs": _option(job, doc, "bs", "blocksize") or "4k",
                "iodepth": _count(_option(job, doc, "iodepth")),
                "numjobs": _count(_option(job, doc, "numjobs")),
                "iops": float(stats.get("iops", math.nan)),
                "bw_bytes_per_s": float(stats.get("bw_bytes", math.nan)),
                "mean_lat_us": float(lat.get("mean", math.nan)) / 1e3,
                "mean_clat_us": float(clat.get("mean", math.nan)) / 1e3,
            }
            for key, ns in (clat.get("percentile") or {}).items():
                row[percentile_column(float(key))] = float(ns) / 1e3
            rows.append(row)
    if not rows:
        return pd.DataFrame(rows)
    table = pd.DataFrame(rows)
    # Percentile columns in increasing order, whatever order the jobs listed them in.
    fixed = [c for c in table.columns if percentile_of(c) is None]
    ranked = sorted((c for c in table.columns if percentile_of(c) is not None), key=lambda c: percentile_of(c) or 0.0)
    return table[fixed + ranked]


def fio_label(doc: dict[str, Any], path: Path) -> str:
    """A series name for fio output: the twin's profile and host (from its ``ssdtwin``
    section), or for real fio the jobs' ``filename`` (the device or file it ran on) and
    "(real fio)", or the file's stem.

    >>> fio_label({"jobs": [{"ssdtwin": {"profile": "p32a80"}}]}, Path("a.json"))
    'p32a80 (twin)'
    >>> fio_label({"jobs": [{"ssdtwin": {"profile": "p32a80", "host": "linux-6.1"}}]}, Path("a.json"))
    'p32a80 on linux-6.1 (twin)'
    >>> fio_label({"jobs": [{"job options": {"filename": "/dev/nvme0n1"}}]}, Path("a.json"))
    '/dev/nvme0n1 (real fio)'
    """
    jobs = [j for j in doc.get("jobs", []) if isinstance(j, dict)]
    twins = [j["ssdtwin"] for j in jobs if "profile" in (j.get("ssdtwin") or {})]
    if twins:
        named = dict.fromkeys(f"{t['profile']} on {t['host']}" if "host" in t else str(t["profile"]) for t in twins)
        return f"{', '.join(named)} (twin)"
    names = list(dict.fromkeys(n for j in jobs if (n := _option(j, doc, "filename")) is not None))
    return f"{', '.join(names) if names else path.stem} (real fio)"


# ---- combining -----------------------------------------------------------------------------


def resolve_column(name: str, columns: Iterable[str]) -> str | None:
    """``name`` if it is a column, else the one sweep column it is short for (``bs`` for
    ``job.bs``, ``nand.channels`` for ``set.nand.channels``), else None.

    >>> resolve_column("bs", ["job.bs", "iops"]), resolve_column("iops", ["iops"]), resolve_column("x", ["y"])
    ('job.bs', 'iops', None)
    """
    columns = list(columns)
    if name in columns:
        return name
    matches = [f"{prefix}.{name}" for prefix in ("job", "set", "host_set") if f"{prefix}.{name}" in columns]
    return matches[0] if len(matches) == 1 else None


def _column(loaded: Loaded, name: str, option: str) -> str:
    column = resolve_column(name, [str(c) for c in loaded.table.columns])
    if column is None:
        raise CompareError(
            f"{option} {name}: {loaded.path} has no such column; its columns: "
            + ", ".join(str(c) for c in loaded.table.columns)
        )
    return column


def _axes(loaded: Sequence[Loaded], x: str | None, y: str | None) -> tuple[str, str, tuple[str, ...]]:
    """The columns to draw and the study's own ``by``: ``x``/``y`` as given, else the study's."""
    studies = list(dict.fromkeys(item.study for item in loaded))
    default = STUDY_AXES.get(studies[0] or "") if len(studies) == 1 else None
    if (x is None or y is None) and default is None:
        what = (
            "tables of different studies"
            if len(studies) > 1
            else f"{loaded[0].path} (the {studies[0]} study's table)"
            if studies[0]
            else f"{loaded[0].path} (not a study with default axes)"
        )
        raise CompareError(f"give --x and --y for {what}; its columns: {', '.join(map(str, loaded[0].table.columns))}")
    if default is None:
        assert x is not None and y is not None
        return x, y, ()
    return x or default[0], y or default[1], default[2]


def compare_tables(
    loaded: Sequence[Loaded],
    labels: Sequence[str] | None = None,
    x: str | None = None,
    y: str | None = None,
    by: Sequence[str] = (),
) -> Comparison:
    """Study or sweep tables on two columns: one series per file, drive, host and value of
    ``by`` (a known study's figure adds its own, a sweep its other grid axes). Rows of a
    series must differ in ``x``; where they do not, the error names the columns that vary
    among them, to add to ``by``."""
    x_name, y_name, study_by = _axes(loaded, x, y)
    xc = _column(loaded[0], x_name, "--x")
    yc = _column(loaded[0], y_name, "--y")
    # Drive and host name the series themselves; ``by`` splits them further.
    drives = [c for c in ("profile", "host") if all(c in item.table.columns for item in loaded)]
    split_by: list[str] = []
    for item in loaded:
        if (_column(item, x_name, "--x"), _column(item, y_name, "--y")) != (xc, yc):
            raise CompareError(f"--x {x_name} / --y {y_name}: {item.path} has other columns than {loaded[0].path}")
        if not pd.api.types.is_numeric_dtype(item.table[yc]) or pd.api.types.is_bool_dtype(item.table[yc]):
            raise CompareError(f"--y {yc}: not a number in {item.path}")
        columns = [str(c) for c in item.table.columns]
        wanted = [c for c in study_by if c in columns]
        wanted += list(item.axes)
        if item.axes and "direction" in columns and item.table["direction"].nunique() > 1:
            wanted.append("direction")  # a sweep's randrw points have a row per direction
        wanted += [_column(item, b, "--by") for b in by]
        split_by += [c for c in dict.fromkeys(wanted) if c not in (xc, *drives, *split_by)]
    parts = []
    for n, item in enumerate(loaded):
        t = item.table
        keep = [c for c in dict.fromkeys([*drives, *split_by, xc, yc]) if c in t.columns]
        part = t[keep].copy()
        for c in split_by:
            if c not in part.columns:
                part[c] = pd.NA
        # Categories (a sweep's axes) become their text: files may order them differently.
        for c in part.columns:
            if isinstance(part[c].dtype, pd.CategoricalDtype):
                part[c] = part[c].astype(str)
        part.insert(0, "source", str(item.path))
        part["_file"], part["_row"] = n, t.index
        part.insert(0, "series", _names(part, drives, labels[n] if labels else None, item.path))
        parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    table = _tell_files_apart(table, "_file")
    runs = list(dict.fromkeys(table.series))
    # Only the ``by`` values that vary name series; all of them split them.
    varying = [c for c in split_by if table[c].astype(str).nunique() > 1]
    if varying:
        values = table[varying].astype(str).values
        suffix = [", ".join(f"{c}={v}" for c, v in zip(varying, row, strict=True)) for row in values]
        table["series"] = [f"{s}, {extra}" for s, extra in zip(table["series"], suffix, strict=True)]
    _check_unique_x(table, xc, [item.table for item in loaded])
    table = table.drop(columns=["_file", "_row"])
    first = loaded[0]
    what = first.study if first.study and all(i.study == first.study for i in loaded) else None
    if what is None and all(i.axes for i in loaded):
        what = "sweep"
    named = " vs ".join(runs) if len(runs) <= 4 else f"{len(runs)} runs"
    title = f"{what + ': ' if what else ''}{named}"
    return Comparison("table", table, title, xc, yc, tuple(split_by))


def _tell_files_apart(table: pd.DataFrame, file_column: str) -> pd.DataFrame:
    """A series name that two files give (two runs of one drive) gets the file's name, or
    its position among the files if that too is the same (``file_column`` holds it)."""
    files = table.groupby("series", sort=False)[file_column].nunique()
    twice = set(files[files > 1].index)
    paths = table.groupby("series", sort=False)["source"].nunique()
    names = []
    for series, source, n in zip(table.series, table.source, table[file_column], strict=True):
        if series not in twice:
            names.append(series)
        elif paths[series] == files[series]:
            names.append(f"{series} [{source}]")
        else:
            names.append(f"{series} [file {n + 1}]")
    return table.assign(series=names)


def _names(part: pd.DataFrame, drives: Sequence[str], label: str | None, path: Path) -> list[str]:
    """Each row's series before ``by``: ``label``, else its drive and host (``PROFILE on
    HOST``), else the file; a file of several drives names each, after ``label`` if given."""
    if not drives:
        return [label or str(path)] * len(part)
    named = [" on ".join(str(v) for v in values) for values in zip(*(part[c] for c in drives), strict=True)]
    if len(set(named)) == 1:
        return [label or named[0]] * len(part)
    return [f"{label}: {n}" if label else n for n in named]


def _check_unique_x(table: pd.DataFrame, x: str, originals: Sequence[pd.DataFrame]) -> None:
    """A line cannot go through two values at one x: refuses series with repeated x, naming
    the columns of the file's own table (``originals``, by ``_file`` and ``_row``) that
    tell those rows apart."""
    repeated = table[table.duplicated(["series", x], keep=False)]
    if repeated.empty:
        return
    series = repeated["series"].iloc[0]
    rows = repeated[(repeated["series"] == series) & (repeated[x] == repeated[x].iloc[0])]
    same_file = rows[rows["_file"] == rows["_file"].iloc[0]]
    original = originals[int(same_file["_file"].iloc[0])].loc[list(same_file["_row"])]
    varies = [str(c) for c in original.columns if original[c].astype(str).nunique() > 1]
    hint = f"; they differ in {', '.join(varies[:8])}{', ...' if len(varies) > 8 else ''}" if varies else ""
    raise CompareError(
        f"series '{series}' has {len(rows)} rows at {x}={rows[x].iloc[0]}{hint}: "
        "split them with --by COLUMN (the original table's columns)"
    )


def compare_fio(loaded: Sequence[Loaded], labels: Sequence[str] | None = None) -> Comparison:
    """fio outputs side by side: their records (:func:`fio_records`) with ``series`` and
    ``source`` columns first, one series per file."""
    parts = []
    for n, item in enumerate(loaded):
        if item.table.empty:
            raise CompareError(f"{item.path}: fio's output has no job that did I/O")
        part = item.table.copy()
        part.insert(0, "source", str(item.path))
        part.insert(0, "series", labels[n] if labels else item.label)
        part["_file"] = n
        parts.append(part)
    table = _tell_files_apart(pd.concat(parts, ignore_index=True), "_file").drop(columns=["_file"])
    names = list(dict.fromkeys(table.series))
    fixed = [c for c in table.columns if percentile_of(c) is None]
    ranked = sorted((c for c in table.columns if percentile_of(c) is not None), key=lambda c: percentile_of(c) or 0.0)
    return Comparison("fio", table[fixed + ranked], f"fio: {' vs '.join(names)}")


def compare(
    paths: Sequence[Path],
    labels: Sequence[str] = (),
    x: str | None = None,
    y: str | None = None,
    by: Sequence[str] = (),
) -> Comparison:
    """Loads ``paths`` and puts them in one table (see the module doc); ``labels`` name the
    files' series in order (else each file's drive and host, or its name).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> pd.DataFrame({"t_s": [1, 2], "write_mib_per_s": [700.0, 200.0], "written_gb": [0.7, 0.9],
    ...               "profile": "a", "host": "freebsd-11"}).to_csv(d / "slc-write.csv", index=False)
    >>> c = compare([d / "slc-write.csv"])
    >>> c.x, c.y, list(c.table.series.unique())
    ('written_gb', 'write_mib_per_s', ['a on freebsd-11'])
    """
    if not paths:
        raise CompareError(f"give at least one file; {ALLOWED}")
    if labels and len(labels) != len(paths):
        raise CompareError(f"give one --label per file, in order ({len(paths)} files, {len(labels)} labels)")
    if labels and len(set(labels)) != len(labels):
        raise CompareError(f"--label names must differ (given: {', '.join(labels)})")
    loaded = [load(Path(p)) for p in paths]
    kinds = {item.kind for item in loaded}
    if len(kinds) > 1:
        table = next(i for i in loaded if i.kind == "table").path
        fio = next(i for i in loaded if i.kind == "fio").path
        raise CompareError(
            f"{table} is a study or sweep table and {fio} is fio JSON output: they cannot share one figure; "
            "compare each kind in its own command"
        )
    if loaded[0].kind == "fio":
        given = [name for name, value in (("--x", x), ("--y", y)) if value is not None] + (["--by"] if by else [])
        if given:
            raise CompareError(
                f"{', '.join(given)} apply to tables; fio JSON is drawn as bandwidth or IOPS per job (--metric) "
                "and clat percentiles"
            )
        return compare_fio(loaded, labels or None)
    return compare_tables(loaded, labels or None, x, y, by)


__all__ = [
    "ALLOWED",
    "STUDY_AXES",
    "CompareError",
    "Comparison",
    "Loaded",
    "column_label",
    "compare",
    "compare_fio",
    "compare_tables",
    "fio_label",
    "fio_records",
    "load",
    "percentile_column",
    "percentile_of",
    "resolve_column",
]
