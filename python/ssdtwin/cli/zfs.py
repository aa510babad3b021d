"""``ssdtwin zfs``: plan a special vdev (``zfs plan``) and run file-tree operations on a pool
(``zfs run``). The options every pool command shares are here too."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import pandas as pd

from ..device import DEFAULT_HOST, DEFAULT_SETUP_SEED, RawToml
from ..params import SEED
from ..studies.zfs_special import size_list
from ..zfs import DEFAULT_POOL, OPERATIONS, PLAN_THRESHOLDS, Pool, is_pool_state, nicenum, plan_table, zdb_plan
from . import progress
from .common import OutputFile, parse_overrides, write_state

F = TypeVar("F", bound=Callable[..., Any])


def pool_options(f: F) -> F:
    """``--pool``, ``--state``, ``--set``, ``--host`` and ``--host-set`` for commands that build a pool."""
    f = click.option(
        "--host-set",
        "host_overrides",
        multiple=True,
        metavar="SECTION.FIELD=VALUE",
        help="Change a host profile field (repeatable).",
    )(f)
    f = click.option(
        "--host",
        default=DEFAULT_HOST,
        show_default=True,
        help="Host profile: its DRAM sizes the ARC and the dirty-data limit.",
    )(f)
    f = click.option(
        "--set",
        "overrides",
        multiple=True,
        metavar="KEY=VALUE",
        help="Change a pool-file field (repeatable): vdevs.N.FIELD, datasets.NAME.FIELD, tunables.NAME, ...",
    )(f)
    f = click.option(
        "--state",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Start from a saved pool state ('zfs run --save-state'; it carries its pool file).",
    )(f)
    f = click.option("--pool", help=f"Shipped pool name or pool file (default: {DEFAULT_POOL}).")(f)
    return f


def load_pool(
    pool: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str = DEFAULT_HOST,
    host_overrides: tuple[str, ...] = (),
) -> Pool:
    """A pool from a pool file (with overrides) or from a saved state."""
    host_raw = {k: RawToml(v) for k, v in parse_overrides(host_overrides, "--host-set").items()}
    if state is not None:
        if pool is not None or overrides:
            raise click.UsageError("give --pool (with --set) or --state, not both: a state carries its pool file")
        if not state.exists():
            raise FileNotFoundError(f"--state {state}: no such file")
        if not is_pool_state(state):
            raise click.UsageError(
                f"--state {state}: not a pool state (those come from 'ssdtwin zfs run --save-state')"
            )
        with progress.fill_bar("replaying the state", progress.wanted(False)) as bar:
            return Pool.load(state, progress=bar)
    raw: dict[str, object] = {k: RawToml(v) for k, v in _pool_overrides(overrides).items()}
    return Pool(pool or DEFAULT_POOL, overrides=raw, host=host, host_overrides=host_raw)


def _pool_overrides(overrides: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for o in overrides:
        key, sep, value = o.partition("=")
        if not sep or "." not in key:
            raise click.BadParameter(f"'{o}': expected KEY=VALUE with a dotted key", param_hint="--set")
        out[key.strip()] = value.strip()
    return out


def tree_options(f: F) -> F:
    """What tree to generate, or which directory scan to read."""
    for option in reversed(
        [
            click.option("--files", type=click.IntRange(min=1), default=100_000, show_default=True, help="Files."),
            click.option(
                "--size-dist",
                default="lognormal:16K:2.0",
                show_default=True,
                help="File sizes: fixed:SIZE, lognormal:MEDIAN:SIGMA or hist:UPPER=WEIGHT,...",
            ),
            click.option("--files-per-dir", type=click.IntRange(min=1), default=1000, show_default=True),
            click.option("--dirs-per-dir", type=click.IntRange(min=1), default=10, show_default=True),
            click.option(
                "--classes",
                help="File classes NAME[=EXT/...]:SHARE:LZ4[:ZSTD[:GZIP]], comma-separated "
                "(default: 40 % text at lz4 2.0, 60 % incompressible media).",
            ),
            click.option(
                "--scan",
                type=click.Path(exists=True, dir_okay=False, path_type=Path),
                help="A directory scan to use instead: find DIR -type f -printf '%s %p\\n' > FILE.",
            ),
            click.option("--dataset", help="Dataset (default: the pool's first below its root)."),
            click.option(
                "--seed", type=SEED, default=DEFAULT_SETUP_SEED, show_default=True, help="Seed of the sizes drawn."
            ),
        ]
    ):
        f = option(f)
    return f


def add_tree(pool: Pool, kw: dict[str, Any]) -> str:
    """Gives the pool the tree the tree options describe; returns the dataset."""
    dataset = kw.pop("dataset") or pool.default_dataset
    classes = [c.strip() for c in kw.pop("classes").split(",")] if kw.get("classes") else None
    kw.pop("classes", None)
    scan = kw.pop("scan")
    files, size_dist = kw.pop("files"), kw.pop("size_dist")
    files_per_dir, dirs_per_dir, seed = kw.pop("files_per_dir"), kw.pop("dirs_per_dir"), kw.pop("seed")
    if scan is not None:
        pool.add_scan(scan, dataset, classes=classes)
    else:
        pool.add_tree(
            dataset,
            files=files,
            size_dist=size_dist,
            files_per_dir=files_per_dir,
            dirs_per_dir=dirs_per_dir,
            classes=classes,
            seed=seed,
        )
    return dataset


def _op_bar(op: str, enabled: bool) -> Any:
    return progress.fill_bar(op, enabled)


@click.group("zfs")
def command() -> None:
    """ZFS datasets: plan a special vdev, or run file-tree operations on a pool."""


@command.command("run")
@pool_options
@tree_options
@click.option(
    "--ops",
    default=",".join(OPERATIONS),
    show_default=True,
    help="Operations in order (create first on a new tree): " + ", ".join(OPERATIONS) + ".",
)
@click.option("--warm", is_flag=True, help="Keep the ARC between operations (default: each read starts cold).")
@click.option("--save-state", type=OutputFile(), help="Save the pool's state afterwards (for --state).")
@click.option("--force", is_flag=True, help="Let --save-state replace an existing file.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON records.")
def run(
    pool: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
    ops: str,
    warm: bool,
    save_state: Path | None,
    force: bool,
    as_json: bool,
    **tree: Any,
) -> None:
    """Make a file tree on a pool's dataset and run operations on it; one row per operation.

    \b
      ssdtwin zfs run --pool hdd-mirror-special --files 200000 --ops create,find,stat,scrub
    """
    operations = [o.strip() for o in ops.split(",") if o.strip()]
    bad = [o for o in operations if o not in OPERATIONS]
    if bad or not operations:
        raise click.BadParameter(f"'{ops}': allowed {', '.join(OPERATIONS)} (comma-separated)", param_hint="--ops")
    if save_state is not None and save_state.exists() and not force:
        raise click.UsageError(f"--save-state {save_state} exists; add --force to replace it")
    p = load_pool(pool, state, overrides, host, host_overrides)
    dataset = add_tree(p, tree) if state is None or "create" in operations else tree["dataset"] or p.default_dataset
    rows = []
    show = progress.wanted(as_json)
    for op in operations:
        if op != "create" and not warm:
            p.drop_caches()
        with _op_bar(op, show) as bar:
            r = p.run_op(op, dataset, progress=bar)
        u = p.usage()
        rows.append(
            {
                "workload": op,
                "seconds": r["seconds"],
                "ops": r["ops"],
                "op_unit": r["op_unit"],
                "ops_per_s": r["ops_per_s"],
                "special_alloc_bytes": u["special"]["allocated_bytes"],
                "normal_alloc_bytes": u["normal"]["allocated_bytes"],
                "spilled_bytes": u["spilled_bytes"],
                "normal_read_bytes": r["leaf_read_bytes"][0],
                "special_read_bytes": r["leaf_read_bytes"][1],
                "normal_reads": r["leaf_reads"][0],
                "special_reads": r["leaf_reads"][1],
            }
        )
    table = pd.DataFrame(rows)
    if save_state is not None:
        write_state(p, save_state, force)
    if as_json:
        click.echo(json.dumps(json.loads(table.to_json(orient="records")), indent=1))
    else:
        click.echo(table.to_string(index=False))


@command.command("plan")
@click.option(
    "--zdb",
    "zdb_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Output of zdb -bb / -bbb (zdb -Lbbbs POOL) of a real pool.",
)
@click.option(
    "--size-hist",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A file-size histogram: lines 'UPPER COUNT' (4K 1200), files spread within each bucket.",
)
@pool_options
@tree_options
@click.option("--ashift", type=click.IntRange(9, 16), help="The special vdev's ashift (default: the pool's).")
@click.option("--special-size", help="Special vdev size to place spill points for (default: the pool's).")
@click.option(
    "--reserve-pct",
    type=click.IntRange(0, 99),
    default=25,
    show_default=True,
    help="zfs_special_class_metadata_reserve_pct.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the plan as JSON.")
def plan(
    zdb_file: Path | None,
    size_hist: Path | None,
    pool: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
    ashift: int | None,
    special_size: str | None,
    reserve_pct: int,
    as_json: bool,
    **tree: Any,
) -> None:
    """How big a special vdev must be: for metadata alone and for each special_small_blocks
    choice, with the metadata reserve and ashift rounding; when one of the given size stops
    taking small blocks and starts spilling metadata; and the risks.

    From a real pool's zdb output, or from a tree (a directory scan, a size histogram, or a
    generated tree) copied onto a model of the pool.

    \b
      zdb -Lbbbs tank > zdb.txt && ssdtwin zfs plan --zdb zdb.txt
      find /data -type f -printf '%s %p\\n' > scan.txt && ssdtwin zfs plan --scan scan.txt --pool mypool.toml
    """
    if sum(x is not None for x in (zdb_file, size_hist, tree["scan"])) > 1:
        raise click.UsageError("give one of --zdb, --scan and --size-hist")
    p = load_pool(pool, state, overrides, host, host_overrides)
    info = p.info()
    special_vdevs = [v for v in info["vdevs"] if v["class"] == "special"]
    normal_vdevs = [v for v in info["vdevs"] if v["class"] == "normal"]
    unit_ashift = ashift or (special_vdevs[0]["ashift"] if special_vdevs else normal_vdevs[0]["ashift"])
    size = None
    if special_size is not None:
        size = size_list(special_size, "--special-size")[0]
    elif special_vdevs:
        size = p.usage()["special"]["size_bytes"]
    if zdb_file is not None:
        result = zdb_plan(
            zdb_file.read_text(),
            str(zdb_file),
            special_ashift=unit_ashift,
            special_size_bytes=size,
            reserve_pct=reserve_pct,
        )
    else:
        if size_hist is not None:
            tree["size_dist"], tree["files"] = _hist_dist(size_hist)
        if state is None:
            dataset = add_tree(p, tree)
            with _op_bar("copying the tree in", progress.wanted(as_json)) as bar:
                p.run_op("create", dataset, progress=bar)
        result = p.plan(PLAN_THRESHOLDS, special_ashift=unit_ashift, special_size_bytes=size, reserve_pct=reserve_pct)
    notes = risk_notes(info)
    if as_json:
        click.echo(json.dumps({**result, "special_size_bytes": size, "notes": notes}, indent=1))
        return
    click.echo(plan_text(result, size, reserve_pct))
    click.echo("\n".join(notes))


def _hist_dist(path: Path) -> tuple[str, int]:
    """A size histogram file as a ``hist:`` distribution and its file count."""
    buckets, total = [], 0
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        sizes = size_list(parts[0], "--size-hist") if len(parts) == 2 else []
        if len(parts) != 2 or not parts[1].isdigit():
            raise click.BadParameter(f"{path}:{n}: expected 'UPPER COUNT' (4K 1200)", param_hint="--size-hist")
        buckets.append(f"{sizes[0]}={parts[1]}")
        total += int(parts[1])
    if total == 0:
        raise click.BadParameter(f"{path}: no files in the histogram", param_hint="--size-hist")
    return "hist:" + ",".join(buckets), total


def plan_text(result: dict[str, Any], size: int | None, reserve_pct: int) -> str:
    """The planner's table as text."""
    t = plan_table(result)
    lines = [
        f"from {result['source']}: {nicenum(result['data_bytes'])}B of data, "
        f"{nicenum(result['metadata_bytes'])}B of metadata on the special class (every copy)",
        "",
        f"{'special_small_blocks':>20s} {'metadata':>9s} {'small data':>11s} {'special needed':>15s}"
        + (f"  {'small blocks stop':>18s} {'metadata spills':>16s}" if size else ""),
    ]
    for r in t.itertuples():
        label = "0 (metadata only)" if r.special_small_blocks_bytes == 0 else nicenum(int(r.special_small_blocks_bytes))
        line = (
            f"{label:>20s} {nicenum(int(r.metadata_bytes)):>9s} {nicenum(int(r.small_data_bytes)):>11s} "
            f"{nicenum(int(r.needed_bytes)):>15s}"
        )
        if size:
            stop = (
                "-" if pd.isna(r.small_blocks_stop_at_data_bytes) else nicenum(int(r.small_blocks_stop_at_data_bytes))
            )
            spill = "-" if pd.isna(r.metadata_spills_at_data_bytes) else nicenum(int(r.metadata_spills_at_data_bytes))
            line += f"  {stop:>18s} {spill:>16s}"
        lines.append(line)
    lines.append("")
    lines.append(
        f"special needed: metadata alone may fill the class; with small blocks, metadata and small data must fit in "
        f"{100 - reserve_pct} % of it (zfs_special_class_metadata_reserve_pct = {reserve_pct})."
    )
    if size:
        lines.append(
            f"stop/spill: for a special class of {nicenum(size)}B, the data written (of this make-up) at which small "
            "blocks stop going to special, and at which metadata starts to spill to the normal vdevs."
        )
    if result.get("includes_metadata"):
        lines.append("small data from zdb's histogram includes small metadata blocks: the sizes err large.")
    return "\n".join(lines)


def risk_notes(info: dict[str, Any]) -> list[str]:
    """What can go wrong with the pool's special vdevs: redundancy below the normal vdevs',
    ashifts that block removal.

    >>> risk_notes(Pool("hdd-mirror").info())[0].startswith("risk: the special class holds")
    True
    """

    def tolerated(v: dict[str, Any]) -> int:
        layout = v["layout"]
        if layout == "mirror":
            return len(v["devices"]) - 1
        if layout.startswith("raidz"):
            return int(layout.removeprefix("raidz").strip("()") or 1)
        return 0

    normal = [v for v in info["vdevs"] if v["class"] == "normal"]
    special = [v for v in info["vdevs"] if v["class"] == "special"]
    need = min(tolerated(v) for v in normal)
    notes = [
        "risk: the special class holds the only copy of the pool's metadata (and of small blocks): losing a special "
        f"vdev loses the whole pool. Give it the redundancy of the normal vdevs (here {need} failed device"
        f"{'s' if need != 1 else ''} tolerated): a mirror of at least {need + 1} devices, never a single disk."
    ]
    for v in special:
        if tolerated(v) < need:
            notes.append(
                f"risk: special vdev {'/'.join(v['devices'])} ({v['layout']}) tolerates {tolerated(v)} failed devices, "
                f"fewer than the normal vdevs' {need}."
            )
    ashifts = {v["ashift"] for v in info["vdevs"] if v["class"] in ("normal", "special", "dedup")}
    if any(v["layout"].startswith("raidz") for v in normal):
        notes.append("note: with RAID-Z normal vdevs a special vdev can never be removed (zpool remove).")
    elif len(ashifts) > 1:
        notes.append(
            f"note: vdevs of different ashift ({', '.join(str(a) for a in sorted(ashifts))}) keep a special vdev from "
            "being removed: use the same ashift everywhere."
        )
    return notes
