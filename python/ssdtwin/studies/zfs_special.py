"""ZFS special allocation class (reference R5): the same file tree and operations on a pool
with and without its special vdev, and a special vdev filled until it spills.

For each configuration (the pool without its special vdevs, then with them at each
``special_small_blocks`` choice) a tree is generated, copied in, and then walked, read and
scrubbed, each read operation from a cold ARC (the pool exported and imported). The
fill-to-spill run copies a larger tree onto the same pool with a small special partition and
records the space of each class after every txg: where small blocks stop (75 % full, the
metadata reserve) and where metadata starts to spill to the disks.
"""

from __future__ import annotations

import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pandas as pd

from ..sweep.engine import run_parts
from ..zfs import DEFAULT_POOL, OPERATIONS, Pool, nicenum, pool_toml
from .base import Advance, choice_list

#: The table's leading columns (the issue's contract); fill-to-spill rows add their own.
COLUMNS = [
    "workload",
    "special",
    "special_small_blocks",
    "seconds",
    "ops_per_s",
    "special_alloc_bytes",
    "normal_alloc_bytes",
    "spilled_bytes",
]


def _without_special(pool: str, overrides: Mapping[str, object], tmp: Path) -> Path:
    """The pool file with its special vdevs taken out (everything else alike)."""
    data = tomllib.loads(pool_toml(pool, overrides))
    data["vdevs"] = [v for v in data.get("vdevs", []) if v.get("class") != "special"]
    path = tmp / "without-special.toml"
    path.write_text(_to_toml(data))
    return path


def _to_toml(value: Mapping[str, Any]) -> str:
    """A pool table as TOML: scalars first, then sub-tables and arrays of tables."""
    from ..device import toml_literal

    lines: list[str] = []

    def table(prefix: str, t: Mapping[str, Any], array: bool = False) -> None:
        if prefix:
            lines.append(f"[[{prefix}]]" if array else f"[{prefix}]")
        for k, v in t.items():
            if not isinstance(v, dict) and not (isinstance(v, list) and v and isinstance(v[0], dict)):
                lines.append(f"{k} = {toml_literal(v)}")
        for k, v in t.items():
            name = f"{prefix}.{k}" if prefix else k
            if isinstance(v, dict):
                table(name, v)
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                for item in v:
                    table(name, item, array=True)

    table("", value)
    return "\n".join(lines) + "\n"


def _class_bytes(usage: Mapping[str, Any], name: str) -> int:
    return int(usage[name]["allocated_bytes"])


@dataclass(frozen=True)
class ZfsSpecialPart:
    """One independent part of the study: the pool without its special vdevs
    (``kind="disks"``), with them at one ``special_small_blocks`` (``"special"``), or the
    fill-to-spill run (``"fill"``); each builds pools of its own."""

    kind: str
    threshold: int
    pool: str
    overrides: Mapping[str, object]
    dataset: str
    files: int
    size_dist: str
    files_per_dir: int
    workloads: tuple[str, ...]
    fill_files: int
    fill_special_bytes: int
    host: str
    seed: int

    @property
    def label(self) -> str:
        return {"disks": "disks only", "fill": "fill to spill"}.get(self.kind, f"special {nicenum(self.threshold)}")


def zfs_special_sweep(
    pool: str = DEFAULT_POOL,
    *,
    files: int = 100_000,
    size_dist: str = "lognormal:16K:2.0",
    files_per_dir: int = 1000,
    special_small_blocks: Sequence[int] = (0, 32 << 10),
    workloads: Sequence[str] = OPERATIONS,
    fill_files: int = 300_000,
    fill_special_bytes: int = 1 << 30,
    overrides: Mapping[str, object] | None = None,
    host: str = "linux-6.1",
    seed: int = 1,
    advance: Advance = None,
    executor: Executor | None = None,
) -> pd.DataFrame:
    """On pool ``pool`` (without its special vdevs, then with them at each
    ``special_small_blocks``), one row per workload: ``workload``, ``special`` (whether the
    pool has a special vdev), ``special_small_blocks`` (bytes), ``seconds`` (simulated),
    ``ops_per_s`` (per the operation's unit), ``special_alloc_bytes``, ``normal_alloc_bytes``,
    ``spilled_bytes`` after it, then ``host``, ``ops``, ``op_unit`` and the leaves' reads per class
    (bytes, and read commands).
    With ``fill_files``, a fill-to-spill run adds one row per txg (``workload`` =
    ``fill-to-spill``): ``data_written_bytes`` and the special class's metadata and small
    data bytes, size, and what was redirected or spilled.

    Each configuration and the fill run are independent parts of the sweep engine, run in
    this process or on ``executor`` (any :class:`concurrent.futures.Executor`) with the same
    table; ``advance`` is called per workload in this process, per part on an executor.

    >>> t = zfs_special_sweep(files=300, workloads=["create", "stat"], fill_files=0)
    >>> t.groupby("special").size().to_dict()
    {False: 2, True: 4}
    >>> bool(t[t.special].special_alloc_bytes.min() > 0)
    True
    """
    parts = zfs_special_parts(
        pool,
        files=files,
        size_dist=size_dist,
        files_per_dir=files_per_dir,
        special_small_blocks=special_small_blocks,
        workloads=workloads,
        fill_files=fill_files,
        fill_special_bytes=fill_special_bytes,
        overrides=overrides,
        host=host,
        seed=seed,
    )
    tables = run_parts(run_zfs_special_part, parts, executor, advance)
    table = pd.DataFrame([row for rows in tables for row in rows])
    # After the contract's columns: what every row shares.
    return table.assign(pool=Path(str(pool)).stem, files=files, size_dist=size_dist)


def zfs_special_parts(
    pool: str,
    *,
    files: int,
    size_dist: str,
    files_per_dir: int,
    special_small_blocks: Sequence[int],
    workloads: Sequence[str],
    fill_files: int,
    fill_special_bytes: int,
    overrides: Mapping[str, object] | None,
    host: str,
    seed: int,
) -> list[ZfsSpecialPart]:
    """The study's parts, in table order, after checking the workloads and the pool."""
    bad = [w for w in workloads if w not in OPERATIONS]
    if bad or not workloads or workloads[0] != "create":
        raise click.BadParameter(
            f"'{','.join(workloads)}': create first, then any of {', '.join(OPERATIONS[1:])}",
            param_hint="--workloads",
        )
    probe = Pool(pool, overrides=overrides, host=host)
    if probe.usage()["special"]["size_bytes"] == 0:
        raise click.BadParameter(f"pool '{pool}' has no special vdev to compare", param_hint="--pool")
    kinds = [("disks", 0), *(("special", t) for t in special_small_blocks)]
    if fill_files > 0:
        kinds.append(("fill", max(special_small_blocks)))
    return [
        ZfsSpecialPart(
            kind,
            threshold,
            pool=pool,
            overrides=dict(overrides or {}),
            dataset=probe.default_dataset,
            files=files,
            size_dist=size_dist,
            files_per_dir=files_per_dir,
            workloads=tuple(workloads),
            fill_files=fill_files,
            fill_special_bytes=fill_special_bytes,
            host=host,
            seed=seed,
        )
        for kind, threshold in kinds
    ]


def run_zfs_special_part(part: ZfsSpecialPart, advance: Advance = None) -> list[dict[str, Any]]:
    """One part's rows (a top-level function, so that another process can import it)."""
    dataset = part.dataset
    ds_key = dataset.split("/", 1)[1] if "/" in dataset else dataset
    if part.kind == "fill":
        spill = _fill_to_spill(
            part.pool,
            part.overrides,
            ds_key,
            dataset,
            part.fill_files,
            part.fill_special_bytes,
            part.size_dist,
            part.files_per_dir,
            part.threshold,
            part.host,
            part.seed,
        )
        if advance:
            advance(part.label)
        return spill
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        if part.kind == "disks":
            p = Pool(_without_special(part.pool, part.overrides, Path(tmp)), host=part.host)
        else:
            o = {**part.overrides, f"datasets.{ds_key}.special_small_blocks_bytes": part.threshold}
            p = Pool(part.pool, overrides=o, host=part.host)
        special = part.kind == "special"
        p.add_tree(
            dataset, files=part.files, size_dist=part.size_dist, files_per_dir=part.files_per_dir, seed=part.seed
        )
        for w in part.workloads:
            if w != "create":
                p.drop_caches()
            r = p.run_op(w, dataset, seed=part.seed)
            u = p.usage()
            rows.append(
                {
                    "workload": w,
                    "special": special,
                    "special_small_blocks": part.threshold,
                    "seconds": r["seconds"],
                    "ops_per_s": r["ops_per_s"],
                    "special_alloc_bytes": _class_bytes(u, "special"),
                    "normal_alloc_bytes": _class_bytes(u, "normal"),
                    "spilled_bytes": u["spilled_bytes"],
                    "host": part.host,
                    "ops": r["ops"],
                    "op_unit": r["op_unit"],
                    "normal_read_bytes": r["leaf_read_bytes"][0],
                    "special_read_bytes": r["leaf_read_bytes"][1],
                    "normal_reads": r["leaf_reads"][0],
                    "special_reads": r["leaf_reads"][1],
                }
            )
            if advance:
                advance(f"{part.label} {w}")
    return rows


def _fill_to_spill(
    pool: str,
    overrides: Mapping[str, object],
    ds_key: str,
    dataset: str,
    files: int,
    special_bytes: int,
    size_dist: str,
    files_per_dir: int,
    threshold: int,
    host: str,
    seed: int,
) -> list[dict[str, Any]]:
    """The pool with a special partition of ``special_bytes``, small txgs (a 256 MiB dirty
    limit) for a fine record, and ``files`` files: one row per txg."""
    info = Pool(pool, overrides=overrides, host=host).info()
    special = next(i for i, v in enumerate(info["vdevs"]) if v["class"] == "special")
    o = {
        **overrides,
        f"vdevs.{special}.partition_bytes": special_bytes,
        f"datasets.{ds_key}.special_small_blocks_bytes": threshold,
        "tunables.zfs_dirty_data_max": 256 << 20,
    }
    p = Pool(pool, overrides=o, host=host)
    first_txg = len(p.txg_log())
    p.add_tree(dataset, files=files, size_dist=size_dist, files_per_dir=files_per_dir, seed=seed + 1)
    p.run_op("create", dataset)
    log = p.txg_log().iloc[first_txg:]
    rows = []
    for t in log.itertuples():
        special_alloc = t.special_metadata_bytes + t.special_data_bytes + t.special_log_bytes
        rows.append(
            {
                "workload": "fill-to-spill",
                "special": True,
                "special_small_blocks": threshold,
                "seconds": t.end_s,
                "ops_per_s": float("nan"),
                "special_alloc_bytes": special_alloc,
                "normal_alloc_bytes": t.normal_metadata_bytes + t.normal_data_bytes,
                "spilled_bytes": t.metadata_spilled_bytes + t.data_spilled_bytes,
                "host": host,
                "txg": t.txg,
                "data_written_bytes": t.special_data_bytes + t.normal_data_bytes,
                "special_metadata_bytes": t.special_metadata_bytes,
                "special_data_bytes": t.special_data_bytes,
                "special_size_bytes": t.special_size_bytes,
                "small_blocks_redirected_bytes": t.small_blocks_redirected_bytes,
            }
        )
    return rows


def report(table: pd.DataFrame) -> str:
    """Per workload: time without and with the special vdev (each threshold), the speedup;
    then where the fill run's small blocks stopped and its metadata spilled."""
    ops = table[table.workload != "fill-to-spill"]
    base = ops[~ops.special].set_index("workload").seconds
    lines = [
        f"{'workload':12s} {'disks only':>11s}  "
        + "  ".join(
            f"{'special ' + (nicenum(t) if t else 'md'):>14s}"
            for t in sorted(ops[ops.special].special_small_blocks.unique())
        )
    ]
    for w in base.index:
        cells = []
        for t in sorted(ops[ops.special].special_small_blocks.unique()):
            s = ops[(ops.special) & (ops.workload == w) & (ops.special_small_blocks == t)].seconds.iloc[0]
            cells.append(f"{s:8.2f} s {base[w] / s:4.1f}x" if s > 0 else f"{'-':>14s}")
        lines.append(f"{w:12s} {base[w]:9.2f} s  " + "  ".join(cells))
    fill = table[table.workload == "fill-to-spill"]
    if len(fill):
        size = int(fill.special_size_bytes.iloc[0])
        stopped = fill[fill.small_blocks_redirected_bytes > 0]
        spilled = fill[fill.spilled_bytes > 0]
        lines.append("")
        lines.append(f"fill to spill, special class {nicenum(size)}B:")
        if len(stopped):
            s = stopped.iloc[0]
            lines.append(
                f"  small blocks stop at {100 * s.special_alloc_bytes / size:.0f} % full "
                f"(after {nicenum(int(s.data_written_bytes))}B of data)"
            )
        if len(spilled):
            s = spilled.iloc[0]
            lines.append(
                f"  metadata spills to the disks at {100 * s.special_alloc_bytes / size:.0f} % full "
                f"(after {nicenum(int(s.data_written_bytes))}B of data)"
            )
    return "\n".join(lines)


def size_list(text: str, param_hint: str) -> list[int]:
    """Comma-separated sizes (``0,32K,1M``) as bytes.

    >>> size_list("0, 32K,1M", "--special-small-blocks")
    [0, 32768, 1048576]
    """
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        value = _parse_size(part)
        if value is None:
            raise click.BadParameter(f"'{part}': a size (512, 4K, 1M)", param_hint=param_hint)
        out.append(value)
    if not out:
        raise click.BadParameter(f"'{text}': give at least one size", param_hint=param_hint)
    return out


def _parse_size(text: str) -> int | None:
    """A byte count as ZFS prints sizes (``128K``)."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    shift = {"K": 10, "M": 20, "G": 30, "T": 40}.get(t[-1:], 0)
    digits = t[:-1] if shift else t
    try:
        value = float(digits)
    except ValueError:
        return None
    if value < 0 or value != value:
        return None
    return round(value * (1 << shift))


__all__ = ["COLUMNS", "report", "size_list", "zfs_special_sweep"]


def workload_list(text: str) -> list[str]:
    """``--workloads`` as a list.

    >>> workload_list("create,stat")
    ['create', 'stat']
    """
    return choice_list(text, OPERATIONS, "--workloads")
