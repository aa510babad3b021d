"""ZFS pools: :class:`Pool`, and the views ZFS users know (``zpool list -v``, ``zdb -bbb``).

A pool is described by a pool file (``profiles/pools/*.toml`` ship with ssdtwin): vdevs of
disks and SSD twins in allocation classes, datasets and their properties. File trees are
generated or read from a directory scan, created on a dataset, then walked, read and
scrubbed; fio jobs run on a dataset by naming its mount point (``directory=/tank/data``).

>>> pool = Pool("hdd-mirror-special")
>>> pool.add_tree(files=500, size_dist="fixed:8K")
>>> created = pool.run_op("create")
>>> created["ops"], pool.usage()["special"]["data_bytes"] > 0
(500, True)
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _ssdtwin
from .device import (
    DEFAULT_HOST,
    DEFAULT_RUN_SEED,
    DEFAULT_SERIES_WINDOW_MS,
    DEFAULT_SETUP_SEED,
    RunResult,
    _Observer,
    override_strings,
    report_stamp,
)
from .errors import PoolError
from .files import place_text
from .jobs import job_input

if TYPE_CHECKING:
    import pandas as pd

#: The pool used when none is named: a two-way disk mirror with a two-way SSD special mirror.
DEFAULT_POOL: str = _ssdtwin.DEFAULT_POOL

#: What a saved pool state file starts with.
STATE_FORMAT = "ssdtwin-pool-state"

#: Tree operations, in the order a study runs them.
OPERATIONS = ("create", "find", "stat", "read-small", "read-seq", "read-random", "scrub")

TreeProgress = Callable[[int, int], bool | None]


def pools() -> list[str]:
    """Names of the shipped pools.

    >>> "hdd-mirror" in pools()
    True
    """
    return list(_ssdtwin.pool_names())


def disks() -> list[str]:
    """Names of the shipped disk (HDD) profiles.

    >>> "exos-x18-16tb" in disks()
    True
    """
    return list(_ssdtwin.hdd_names())


def pool_toml(pool: str | Path, overrides: Mapping[str, object] | None = None) -> str:
    """The resolved TOML of a pool file after ``overrides``, checked.

    >>> 'name = "tank"' in pool_toml("hdd-mirror")
    True
    """
    return str(_ssdtwin.pool_toml(str(pool), override_strings(overrides, {})))


def disk_toml(disk: str | Path, overrides: Mapping[str, object] | None = None) -> str:
    """The resolved TOML of a disk profile after ``overrides``, checked.

    >>> "rpm = 7200" in disk_toml("exos-x18-16tb")
    True
    """
    return str(_ssdtwin.hdd_toml(str(disk), override_strings(overrides, {})))


def is_pool_state(path: str | Path) -> bool:
    """Whether ``path`` is a saved pool state (rather than a drive's).

    >>> is_pool_state("/nonexistent")
    False
    """
    # Only a regular file is opened: opening a FIFO would wait for a writer for ever.
    if not Path(path).is_file():
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and STATE_FORMAT.encode() in head


class Pool:
    """A simulated ZFS pool on a host. State persists across calls.

    ``pool`` is a shipped pool name or a pool file; ``overrides`` change its fields
    (``vdevs.1.partition_bytes``, ``datasets.data.special_small_blocks_bytes``,
    ``tunables.zfs_txg_timeout``); ``host`` is the machine (its DRAM sizes the ARC and the
    dirty-data limit).

    >>> p = Pool("hdd-mirror", overrides={"datasets.data.recordsize_bytes": "1M"})
    >>> p.info()["dataset_properties"][1]["recordsize_bytes"]
    1048576
    """

    def __init__(
        self,
        pool: str | Path = DEFAULT_POOL,
        *,
        overrides: Mapping[str, object] | None = None,
        host: str | Path = DEFAULT_HOST,
        host_overrides: Mapping[str, object] | None = None,
    ) -> None:
        self._overrides = override_strings(overrides, {})
        self._host = str(host)
        self._host_overrides = override_strings(host_overrides, {})
        self._pool = _ssdtwin.Pool(str(pool), self._overrides, self._host, self._host_overrides)
        self._log: list[dict[str, Any]] = []

    # ---- identity ----

    def info(self) -> dict[str, Any]:
        """Name, datasets and their properties, vdevs, the dirty-data limit and ARC size."""
        return dict(self._pool.info())

    @property
    def name(self) -> str:
        """The pool's name (``tank``)."""
        return str(self.info()["name"])

    @property
    def default_dataset(self) -> str:
        """The dataset operations use when none is named: the first below the pool, else
        the pool's own."""
        names = self.info()["datasets"]
        return str(names[1] if len(names) > 1 else names[0])

    @property
    def pool_toml(self) -> str:
        """The resolved pool file."""
        return str(self._pool.pool_toml)

    @property
    def now_s(self) -> float:
        """Simulated seconds since the pool was created."""
        return float(self._pool.now_ns) / 1e9

    def __repr__(self) -> str:
        return str(self._pool.__repr__())

    # ---- trees and operations ----

    def add_tree(
        self,
        dataset: str | None = None,
        *,
        files: int,
        size_dist: str = "lognormal:16K:2.0",
        files_per_dir: int = 1000,
        dirs_per_dir: int = 10,
        name_bytes: int = 20,
        classes: Sequence[str] | None = None,
        seed: int = DEFAULT_SETUP_SEED,
    ) -> None:
        """Gives ``dataset`` a generated tree: ``files`` files of sizes drawn from
        ``size_dist`` (``fixed:SIZE``, ``lognormal:MEDIAN:SIGMA``, ``hist:UPPER=WEIGHT,…``),
        in directories of ``files_per_dir`` files and ``dirs_per_dir`` subdirectories;
        ``classes`` say how each kind of file compresses (``NAME[=EXT/…]:SHARE:LZ4[:ZSTD[:GZIP]]``).
        Run ``create`` to write it."""
        args: dict[str, Any] = {
            "dataset": dataset or self.default_dataset,
            "files": files,
            "size_dist": size_dist,
            "files_per_dir": files_per_dir,
            "dirs_per_dir": dirs_per_dir,
            "name_bytes": name_bytes,
            "classes": None if classes is None else list(classes),
            "seed": seed,
        }
        self._pool.add_tree(**args)
        self._log.append({"call": "add_tree", **args})

    def add_scan(self, path: str | Path, dataset: str | None = None, *, classes: Sequence[str] | None = None) -> None:
        """Gives ``dataset`` the tree a directory scan describes: the output of
        ``find DIR -type f -printf '%s %p\\n'``."""
        text = Path(path).read_text()
        args: dict[str, Any] = {
            "dataset": dataset or self.default_dataset,
            "text": text,
            "source": str(path),
            "classes": None if classes is None else list(classes),
        }
        self._pool.add_scan(**args)
        self._log.append({"call": "add_scan", **args})

    def run_op(
        self,
        op: str,
        dataset: str | None = None,
        *,
        max_bytes: int = 64 << 10,
        min_bytes: int = 1 << 20,
        total_bytes: int = 1 << 30,
        count: int = 1000,
        io_bytes: int = 4096,
        seed: int = DEFAULT_SETUP_SEED,
        progress: TreeProgress | None = None,
    ) -> dict[str, Any]:
        """Runs tree operation ``op`` on ``dataset``: ``create`` (copy the tree in),
        ``find``, ``stat`` (``ls -lR``), ``read-small`` (files up to ``max_bytes``),
        ``read-seq`` (files of at least ``min_bytes``, ``total_bytes`` in all),
        ``read-random`` (``count`` reads of ``io_bytes`` in files of at least ``min_bytes``)
        or ``scrub``. Returns the simulated seconds, the operations done and what the leaves
        read and wrote per class (normal, special, dedup, log)."""
        args: dict[str, Any] = {
            "dataset": dataset or self.default_dataset,
            "op": op,
            "max_bytes": max_bytes,
            "min_bytes": min_bytes,
            "total_bytes": total_bytes,
            "count": count,
            "io_bytes": io_bytes,
            "seed": seed,
        }
        observer = _Observer(progress)
        with observer.raising():
            result = dict(self._pool.run_op(**args, progress=observer.for_core()))
        self._log.append({"call": "run_op", **args})
        return result

    def run(
        self,
        job: str | Path | Mapping[str, object] | Sequence[str],
        *,
        seed: int = DEFAULT_RUN_SEED,
        log_dir: str | Path = ".",
        series_window_ms: float = DEFAULT_SERIES_WINDOW_MS,
        progress: Callable[..., bool | None] | None = None,
        host: str | Path | None = None,
        host_overrides: Mapping[str, object] | None = None,
    ) -> RunResult:
        """Runs a fio job on the pool. Jobs name their dataset by its mount point
        (``directory=/tank/data``, or a ``filename=`` below it); I/O goes through the ARC
        and the intent log, and the host's page cache is not used."""
        ji = job_input(job)
        observer = _Observer(progress)
        stamp_ms, stamp_text = report_stamp()
        host_name = self._host if host is None else str(host)
        host_set = self._host_overrides if host is None else override_strings(host_overrides, {})
        with observer.raising():
            out = self._pool.run_fio(
                host_name,
                host_set,
                ji.args,
                ji.text,
                ji.source,
                ji.base_dir,
                seed,
                str(log_dir),
                stamp_ms,
                stamp_text,
                series_window_ms,
                observer.for_core(),
            )
        self._log.append(
            {
                "call": "run_fio",
                "host": host_name,
                "host_overrides": host_set,
                "args": ji.args,
                "job_text": ji.text,
                "source": ji.source,
                "base_dir": ji.base_dir,
                "seed": seed,
                "series_window_ms": series_window_ms,
            }
        )
        return RunResult(out)

    def drop_caches(self) -> None:
        """Empties the ARC, as exporting and importing the pool does."""
        self._pool.drop_caches()
        self._log.append({"call": "drop_caches"})

    def sync(self) -> None:
        """Waits until every dirty block is on the vdevs."""
        self._pool.sync()
        self._log.append({"call": "sync"})

    def fail(self, device: str) -> None:
        """Marks ``device`` (``sda``, ``nvme0n1``) failed. Losing every copy of a top-level
        vdev, a special vdev included, loses the pool: :meth:`check` then raises
        :class:`~ssdtwin.errors.PoolUnavailableError`."""
        self._pool.fail(device)
        self._log.append({"call": "fail", "name": device})

    def check(self) -> None:
        """Raises :class:`~ssdtwin.errors.PoolUnavailableError` if the pool is lost."""
        self._pool.check()

    # ---- what the pool holds ----

    def usage(self) -> dict[str, Any]:
        """Allocated bytes by class (metadata, data, intent log) and class sizes; small
        blocks the metadata reserve redirected; bytes that spilled from special to normal."""
        return dict(self._pool.usage())

    def txg_log(self) -> pd.DataFrame:
        """One row per txg synced: ``txg``, ``start_s``, ``end_s``, ``written_bytes`` and the
        space by class when it was done."""
        import pandas as pd

        rows = []
        for t in self._pool.txg_log():
            u = t["usage"]
            rows.append(
                {
                    "txg": t["txg"],
                    "start_s": t["start_ns"] / 1e9,
                    "end_s": t["end_ns"] / 1e9,
                    "written_bytes": t["written_bytes"],
                    "special_metadata_bytes": u["special"]["metadata_bytes"],
                    "special_data_bytes": u["special"]["data_bytes"],
                    "special_log_bytes": u["special"]["log_bytes"],
                    "special_size_bytes": u["special"]["size_bytes"],
                    "normal_metadata_bytes": u["normal"]["metadata_bytes"],
                    "normal_data_bytes": u["normal"]["data_bytes"],
                    "small_blocks_redirected_bytes": u["small_blocks_redirected_bytes"],
                    "metadata_spilled_bytes": u["metadata_spilled_bytes"],
                    "data_spilled_bytes": u["data_spilled_bytes"],
                }
            )
        return pd.DataFrame(rows)

    def block_stats(self) -> dict[str, Any]:
        """``zdb -bbb``'s numbers (see :func:`zdb_text` for its layout)."""
        return dict(self._pool.block_stats())

    def list_rows(self) -> list[dict[str, Any]]:
        """``zpool list -v``'s rows (see :func:`zpool_list_text`)."""
        return [dict(r) for r in self._pool.list_rows()]

    def counters(self) -> dict[str, int]:
        """Every counter of the pool and its devices."""
        return dict(self._pool.counters())

    def memory_bytes(self) -> int:
        """Memory the model's tables hold for the pool's contents (the drives' own state
        aside), bytes."""
        return int(self._pool.memory_bytes())

    def plan(
        self,
        thresholds: Sequence[int],
        *,
        special_ashift: int = 12,
        special_size_bytes: int | None = None,
        reserve_pct: int = 25,
    ) -> dict[str, Any]:
        """The special-vdev planner on what this pool's trees hold (see
        :func:`plan_table`)."""
        return dict(self._pool.plan(special_ashift, list(thresholds), special_size_bytes, reserve_pct))

    def copy(self) -> Pool:
        """An independent pool in the same state (every drive's model is copied: with SSD
        twins of a terabyte this takes gigabytes and seconds)."""
        other = Pool.__new__(Pool)
        other._overrides, other._host, other._host_overrides = self._overrides, self._host, self._host_overrides
        other._pool = self._pool.copy()
        other._log = list(self._log)
        return other

    # ---- states ----

    def save(self, path: str | Path, *, overwrite: bool = False) -> None:
        """Writes the pool's state: its resolved pool file, host and every call made on it.
        The model is deterministic, so :meth:`load` replays the calls to the same state."""
        path = Path(path)
        state = {
            "format": STATE_FORMAT,
            "version": 1,
            "pool_toml": self.pool_toml,
            "host_toml": _ssdtwin.host_toml(self._host, self._host_overrides),
            "host": self._host,
            "calls": self._log,
        }
        try:
            place_text(path, json.dumps(state) + "\n", replace=overwrite)
        except FileExistsError:
            raise FileExistsError(f"{path} exists; pass overwrite=True to replace it") from None

    @classmethod
    def load(cls, path: str | Path, *, progress: TreeProgress | None = None) -> Pool:
        """A pool rebuilt from a state :meth:`save` wrote."""
        try:
            state = json.loads(Path(path).read_text())
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise PoolError(f"{path}: not a pool state file ({e})") from None
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT or state.get("version") != 1:
            raise PoolError(f"{path}: not a pool state file of version 1 (format '{STATE_FORMAT}')")
        with tempfile.TemporaryDirectory() as tmp:
            pool_file, host_file = Path(tmp) / "pool.toml", Path(tmp) / "host.toml"
            pool_file.write_text(str(state["pool_toml"]))
            host_file.write_text(str(state["host_toml"]))
            pool = cls(pool_file, host=host_file)
            pool._host = str(state.get("host", DEFAULT_HOST))
            for call in state["calls"]:
                pool._replay(dict(call), Path(tmp), progress)
        return pool

    def _replay(self, call: dict[str, Any], tmp: Path, progress: TreeProgress | None) -> None:
        kind = call.pop("call")
        if kind == "add_tree":
            self._pool.add_tree(**call)
        elif kind == "add_scan":
            self._pool.add_scan(**call)
        elif kind == "run_op":
            observer = _Observer(progress)
            with observer.raising():
                self._pool.run_op(**call, progress=observer.for_core())
        elif kind == "run_fio":
            self._pool.run_fio(
                call["host"],
                call["host_overrides"],
                call["args"],
                call["job_text"],
                call["source"],
                call["base_dir"],
                call["seed"],
                str(tmp),
                0,
                "",
                call["series_window_ms"],
                None,
            )
        elif kind == "drop_caches":
            self._pool.drop_caches()
        elif kind == "sync":
            self._pool.sync()
        elif kind == "fail":
            self._pool.fail(call["name"])
        else:
            raise PoolError(f"pool state: unknown call '{kind}'")
        self._log.append({"call": kind, **call})


# ---- zpool list ----


def nicenum(n: int) -> str:
    """A number as zfs prints it (``zfs_nicenum_format``, powers of 1024, at most 5
    characters where it can).

    >>> nicenum(512), nicenum(1024), nicenum(1536), nicenum(24_159_191_040), nicenum(10_239)
    ('512', '1K', '1.50K', '22.5G', '10.0K')
    """
    units = ["", "K", "M", "G", "T", "P", "E"]
    index, m = 0, n
    while m >= 1024 and index < len(units) - 1:
        m //= 1024
        index += 1
    if index == 0 or n % (1024**index) == 0:
        return f"{m}{units[index]}"
    value = n / 1024**index
    for precision in (2, 1, 0):
        text = f"{value:.{precision}f}{units[index]}"
        if len(text) <= 5:
            return text
    return text


_LIST_COLUMNS = [
    ("SIZE", 5),
    ("ALLOC", 5),
    ("FREE", 5),
    ("CKPOINT", 7),
    ("EXPANDSZ", 8),
    ("FRAG", 5),
    ("CAP", 5),
    ("DEDUP", 5),
    ("HEALTH", 8),
]


def zpool_list_text(
    rows: list[dict[str, Any]], *, verbose: bool = True, parsable: bool = False, scripted: bool = False
) -> str:
    """``zpool list`` (``-v``: with its vdevs, ``-p``: exact numbers, ``-H``: no header,
    tab-separated) in ``zpool_main.c``'s layout.

    >>> print(zpool_list_text(Pool("hdd-mirror").list_rows()).splitlines()[0])
    NAME         SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT
    """
    shown = rows if verbose else rows[:1]
    width = max(9, *(len(r["name"]) + r["depth"] for r in shown))

    def num(n: int) -> str:
        return str(n) if parsable else nicenum(n)

    def cap_vdev(alloc: int, size: int) -> str:
        permyriad = alloc * 10000 // size if size else 0
        if parsable:
            return str(permyriad // 100)
        value = permyriad / 100
        return f"{value:1.2f}%" if permyriad < 1000 else f"{value:2.1f}%" if permyriad < 10000 else f"{value:3.0f}%"

    lines = []
    if not scripted:
        header = "NAME".ljust(width) + "".join(f"  {h:>{w}}" for h, w in _LIST_COLUMNS) + "  ALTROOT"
        lines.append(header)
    for r in shown:
        kind, size, alloc = r["kind"], r["size"], r["alloc"]
        frag = "-" if r["frag"] is None else (str(r["frag"]) if parsable else f"{r['frag']}%")
        if kind == "pool":
            cap = str(alloc * 100 // size if size else 0) + ("" if parsable else "%")
            values = [num(size), num(alloc), num(size - alloc), "-", "-", frag, cap, "1.00" if parsable else "1.00x"]
            values += [r["health"], "-"]
        elif kind == "top":
            values = [num(size), num(alloc), num(size - alloc), "-", "-", frag, cap_vdev(alloc, size), "-", r["health"]]
        elif kind == "leaf":
            values = [num(size), "-", "-", "-", "-", "-", "-", "-", r["health"]]
        else:
            values = ["-"] * 10
        if scripted:
            lines.append("\t".join([r["name"], *values]))
            continue
        name = " " * r["depth"] + r["name"]
        line = name.ljust(width)
        for (_, w), v in zip(_LIST_COLUMNS, values, strict=False):
            line += f"  {v:>{w}}"
        if len(values) > len(_LIST_COLUMNS):
            # ALTROOT: a value is left-justified (the last column); print_line's dashes
            # under a class name are right-justified to the column's width.
            line += f"  {values[-1]}" if kind == "pool" else f"  {values[-1]:>7}"
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


# ---- zdb -bbb ----

#: ``dmu_ot[]``'s names (``module/zfs/dmu.c``), then zdb's extra rows.
DMU_OT_NAMES = [
    "unallocated",
    "object directory",
    "object array",
    "packed nvlist",
    "packed nvlist size",
    "bpobj",
    "bpobj header",
    "SPA space map header",
    "SPA space map",
    "ZIL intent log",
    "DMU dnode",
    "DMU objset",
    "DSL directory",
    "DSL directory child map",
    "DSL dataset snap map",
    "DSL props",
    "DSL dataset",
    "ZFS znode",
    "ZFS V0 ACL",
    "ZFS plain file",
    "ZFS directory",
    "ZFS master node",
    "ZFS delete queue",
    "zvol object",
    "zvol prop",
    "other uint8[]",
    "other uint64[]",
    "other ZAP",
    "persistent error log",
    "SPA history",
    "SPA history offsets",
    "Pool properties",
    "DSL permissions",
    "ZFS ACL",
    "ZFS SYSACL",
    "FUID table",
    "FUID table size",
    "DSL dataset next clones",
    "scan work queue",
    "ZFS user/group/project used",
    "ZFS user/group/project quota",
    "snapshot refcount tags",
    "DDT ZAP algorithm",
    "DDT statistics",
    "System attributes",
    "SA master node",
    "SA attr registration",
    "SA attr layouts",
    "scan translations",
    "deduplicated block",
    "DSL deadlist map",
    "DSL deadlist map hdr",
    "DSL dir clones",
    "bpobj subobj",
    "deferred free",
    "dedup ditto",
    "other",
    "Total",
]


def zdb_text(stats: dict[str, Any], *, b: int = 3, parsable: bool = False, leaks_checked: bool = True) -> str:
    """``zdb -b…`` in ``dump_block_stats``' layout: the summary, with ``-bb`` the table of
    block types (``-bbb`` adds a row per level) and the block-size histogram.

    >>> text = zdb_text(Pool("hdd-mirror").block_stats())
    >>> "Metadata Total" in text and "Block Size Histogram" in text
    True
    """

    def num(n: int) -> str:
        return str(n) if parsable else nicenum(n)

    count, lsize, psize, asize = stats["total"]
    per = max(count, 1)
    out = [f"\nTraversing all blocks {'to verify nothing leaked ' if leaks_checked else ''}...\n\n"]
    if leaks_checked:
        out.append("\n\tNo leaks (block sum matches space maps exactly)\n")
    out.append("\n")
    out.append(f"\t{'bp count:':<16} {count:14d}\n")
    out.append(f"\t{'ganged count:':<16} {0:14d}\n")
    out.append(f"\t{'bp logical:':<16} {lsize:14d}      avg: {lsize // per:6d}\n")
    comp_p = lsize / psize if psize else 0.0
    comp_a = lsize / asize if asize else 0.0
    out.append(f"\t{'bp physical:':<16} {psize:14d}      avg: {psize // per:6d}     compression: {comp_p:6.2f}\n")
    out.append(f"\t{'bp allocated:':<16} {asize:14d}      avg: {asize // per:6d}     compression: {comp_a:6.2f}\n")
    out.append(f"\t{'bp deduped:':<16} {0:14d}    ref>1: {0:6d}   deduplication: {1.0:6.2f}\n")
    out.append(f"\t{'bp cloned:':<16} {0:14d}    count: {0:6d}\n")
    usage = stats["usage"]
    for label, key in (("Normal class:", "normal"), ("Special class", "special"), ("Dedup class", "dedup")):
        c = usage[key]
        if key != "normal" and c["size_bytes"] == 0:
            continue
        used = 100.0 * c["allocated_bytes"] / c["size_bytes"] if c["size_bytes"] else 0.0
        out.append(f"\t{label:<16} {c['allocated_bytes']:14d}     used: {used:5.2f}%\n")
    if stats["embedded"]:
        out.append(f"\n\tadditional, non-pointer bps of type 0: {stats['embedded']:10d}\n")
    if stats["ditto_same_vdev"]:
        out.append(f"\tDittoed blocks on same vdev: {stats['ditto_same_vdev']}\n")
    if b >= 2:
        out.append("\nBlocks\tLSIZE\tPSIZE\tASIZE\t  avg\t comp\t%Total\tType\n")
        by_type: dict[int, list[dict[str, Any]]] = {}
        for row in stats["types"]:
            by_type.setdefault(row["ot"], []).append(row)
        totals = {"level": None, "count": count, "lsize": lsize, "psize": psize, "asize": asize}
        for t, name in enumerate(DMU_OT_NAMES):
            rows = [totals] if name == "Total" else by_type.get(t, [])
            type_total = next((r for r in rows if r["level"] is None), None)
            if type_total is None or type_total["asize"] == 0:
                out.append(f"{'-':>6}\t{'-':>5}\t{'-':>5}\t{'-':>5}\t{'-':>5}\t{'-':>5}\t{'-':>6}\t{name}\n")
                continue
            levels = sorted((r for r in rows if r["level"] is not None), key=lambda r: -r["level"])
            for r in [*levels, type_total]:
                level = r["level"]
                skip_level = level is not None and (b < 3 or (level == 0 and r["asize"] == type_total["asize"]))
                if r["asize"] == 0 or skip_level:
                    continue
                out.append(_type_row(r, asize, num))
                out.append(f"{name}\n" if level is None else f"    L{level} {name}\n")
        m_count, m_lsize, m_psize, m_asize = stats["metadata_total"]
        metadata = {"count": m_count, "lsize": m_lsize, "psize": m_psize, "asize": m_asize}
        out.append(_type_row(metadata, asize, num) + "Metadata Total\n")
        out.append(_histogram_text(stats, parsable))
    out.append("\n")
    return "".join(out)


def _type_row(r: Mapping[str, int], total_asize: int, num: Callable[[int], str]) -> str:
    """One row of zdb's block-type table, up to its name."""
    comp = r["lsize"] / r["psize"] if r["psize"] else 0.0
    share = 100.0 * r["asize"] / total_asize if total_asize else 0.0
    avg = r["asize"] // max(r["count"], 1)
    return (
        f"{num(r['count']):>6}\t{num(r['lsize']):>5}\t{num(r['psize']):>5}\t{num(r['asize']):>5}\t"
        f"{num(avg):>5}\t{comp:5.2f}\t{share:6.2f}\t"
    )


def _histogram_text(stats: dict[str, Any], parsable: bool) -> str:
    """``dump_size_histograms``: rows 512 to 16M, count, size and cumulative size of psize,
    lsize and asize, each binned on its own."""

    def num(n: int) -> str:
        return str(n) if parsable else nicenum(n)

    out = ["\nBlock Size Histogram\n", "(note: all categories are binned separately)\n"]
    if parsable:
        out.append("\nblock\tpsize\t\t\tlsize\t\t\t  asize\n")
        out.append("size\t" + "Count\tSize\tCum.\t" * 3 + "\n")
    else:
        out.append(f"\n{'block':>7}   {'psize':<7}              {'lsize':<7}              asize\n")
        out.append(f"{'size':>7} " + f"{'Count':>7}{'Size':>7}{'Cum.':>7}" * 3 + "\n")
    hists = [stats["psize_hist"], stats["lsize_hist"], stats["asize_hist"]]
    cumulative = [0, 0, 0]
    for i in range(9, 25):
        cells = []
        for j, h in enumerate(hists):
            count, size = h[i]
            cumulative[j] += size
            cells += [num(count), num(size), num(cumulative[j])]
        if parsable:
            out.append("\t".join([num(1 << i), *cells]) + "\n")
        else:
            out.append(f"{nicenum(1 << i):>7}:" + "".join(f"{v:>7}" for v in cells) + "\n")
    return "".join(out)


# ---- the planner ----

#: ``special_small_blocks`` choices the planner weighs, bytes (0: metadata only).
PLAN_THRESHOLDS = [
    0,
    512,
    1 << 10,
    2 << 10,
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
]


def plan_table(plan: Mapping[str, Any]) -> pd.DataFrame:
    """The planner's rows as a table, one per ``special_small_blocks`` choice, bytes.

    >>> p = Pool("hdd-mirror-special")
    >>> p.add_tree(files=300, size_dist="fixed:4K")
    >>> _ = p.run_op("create")
    >>> t = plan_table(p.plan([0, 4096]))
    >>> bool(t.needed_bytes.iloc[1] > t.needed_bytes.iloc[0])
    True
    """
    import pandas as pd

    return pd.DataFrame(plan["rows"])


def zdb_plan(
    text: str,
    source: str = "zdb",
    *,
    special_ashift: int = 12,
    thresholds: Sequence[int] = PLAN_THRESHOLDS,
    special_size_bytes: int | None = None,
    reserve_pct: int = 25,
) -> dict[str, Any]:
    """The planner on a real pool's ``zdb -bb``/``-bbb`` output."""
    return dict(_ssdtwin.zdb_plan(text, source, special_ashift, list(thresholds), special_size_bytes, reserve_pct))


__all__ = [
    "DEFAULT_POOL",
    "OPERATIONS",
    "PLAN_THRESHOLDS",
    "Pool",
    "disk_toml",
    "disks",
    "is_pool_state",
    "nicenum",
    "plan_table",
    "pool_toml",
    "pools",
    "zdb_plan",
    "zdb_text",
    "zpool_list_text",
]
