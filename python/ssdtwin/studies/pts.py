"""``pts``: SNIA's Solid State Storage Performance Test Specification (PTS 2.0.2, Enterprise
and Client variants) on one drive: the IOPS, throughput and latency tests.

Each test purges the drive (Format NVM), preconditions it independently of the workload
(WIPC: the user capacity written twice with 128 KiB sequential writes), then runs its
workload in *rounds* until steady state by the specification's rule, or ``max_rounds``
(25): the tracking variable's last ``window`` (5) rounds are steady when their range is at
most 20 % of their average (data excursion) and the best linear fit rises or falls by at
most 10 % of the average across the window (slope excursion).

- **IOPS**: every round runs random I/O at each read/write mix (100/0 … 0/100) and block
  size (1024 KiB … 0.5 KiB) for ``cell_s`` (60 s); tracked: 4 KiB 100 % write IOPS.
- **Throughput**: per block size (1024 and 128 KiB; 1024 KiB for the client variant),
  its own purge and WIPC, then rounds of sequential 100 % read and 100 % write; tracked:
  both directions' bandwidth.
- **Latency**: rounds of random I/O at one thread and QD1 for mixes 100/0, 65/35, 0/100 and
  blocks 8, 4 and 0.5 KiB; tracked: 4 KiB 100 % write mean response time; recorded: mean,
  max and the 99 … 99.999 % ("five nines") response times.

The twin also knows what the specification can only infer: each round's write
amplification (NAND bytes written over host bytes written) and whether garbage collection
ran. A test's drive is *truly* steady from the first round after which GC runs in every
round and the round's write amplification stays within ``TRUE_STEADY_WAF_SHARE`` of the last
round's (``twin_steady_round``); the report says whether the rule fired before that.

One row per cell run: ``test``, ``round``, ``rw``, ``read_pct``, ``bs`` (fio's spelling) and
``bs_bytes``, ``iops``, ``mb_per_s`` (10⁶ B/s), response times ``lat_mean_us``,
``lat_max_us``, ``lat_p99_us`` … ``lat_p99_999_us``; the round's ``round_waf``,
``round_gc`` (GC ran) and ``free_superblocks`` at its end; the test's ``pts_steady_round``
and ``twin_steady_round`` (0: not reached) and ``in_window`` (the row is in the test's
measurement window: its last ``window`` rounds); and the run's ``profile``, ``host``,
``variant``, ``threads``, ``iodepth``, ``active_range_pct`` and ``cell_s``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import click
import numpy as np
import pandas as pd

from ..device import Device
from ..errors import SsdtwinError
from .base import Advance, Study, choice_list, seed_option

TESTS = ("iops", "throughput", "latency")
#: The IOPS test's read shares, %, and block sizes (fio's spelling), in the specification's order.
IOPS_READ_PCTS = (100, 95, 65, 50, 35, 5, 0)
IOPS_BLOCKS = ("1024k", "128k", "64k", "32k", "16k", "8k", "4k", "512")
LATENCY_READ_PCTS = (100, 65, 0)
LATENCY_BLOCKS = ("8k", "4k", "512")
#: Response-time percentiles recorded (PTS 2.0's "five nines" and the steps to it).
PERCENTILES = (99.0, 99.9, 99.99, 99.999)
PERCENTILE_COLUMNS = ("lat_p99_us", "lat_p99_9_us", "lat_p99_99_us", "lat_p99_999_us")
#: Steady state by the specification: data excursion and slope excursion limits, shares of the average.
DATA_EXCURSION_LIMIT = 0.20
SLOPE_EXCURSION_LIMIT = 0.10
#: Seconds of each workload of a round, as the specification runs them.
SPEC_CELL_S = 60.0
#: The twin's own steady state: a round's write amplification within this share of the last round's.
TRUE_STEADY_WAF_SHARE = 0.05


@dataclass(frozen=True)
class Variant:
    """What the Enterprise and Client specifications set apart. The outstanding I/O is the
    test operator's choice in both; these are the usual choices (T4Q32, T2Q16)."""

    threads: int
    iodepth: int
    #: Share of the LBA range the tests address, % (preconditioning writes all of it).
    active_range_pct: float
    throughput_blocks: tuple[str, ...]


VARIANTS = {
    "enterprise": Variant(threads=4, iodepth=32, active_range_pct=100.0, throughput_blocks=("1024k", "128k")),
    "client": Variant(threads=2, iodepth=16, active_range_pct=75.0, throughput_blocks=("1024k",)),
}


def block_bytes(bs: str) -> int:
    """fio's spelling of a block size in bytes.

    >>> block_bytes("512"), block_bytes("4k"), block_bytes("1024k")
    (512, 4096, 1048576)
    """
    text = bs.strip().lower()
    scale = {"k": 1 << 10, "m": 1 << 20}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    if not number.isdigit() or int(number) == 0:
        raise click.BadParameter(f"'{bs}': a block size such as 512, 4k or 1024k")
    return int(number) * scale


def block_label(bs_bytes: int) -> str:
    """A block size as the specification writes it.

    >>> block_label(512), block_label(4096)
    ('0.5 KiB', '4 KiB')
    """
    kib = bs_bytes / 1024
    return f"{kib:g} KiB"


@dataclass(frozen=True)
class SteadyCheck:
    """The specification's steady-state test over a measurement window."""

    steady: bool
    average: float
    #: max - min of the window's values.
    data_excursion: float
    #: The best linear fit's change per round, and its value at the window's first round.
    slope: float
    intercept: float
    #: How far the fit line moves across the window: |slope| x (rounds - 1).
    slope_excursion: float


def check_steady(values: Sequence[float]) -> SteadyCheck:
    """Whether ``values`` (one per round, the measurement window) are steady by PTS 2.0.2:
    range ≤ 20 % and fit-line excursion ≤ 10 % of their average.

    >>> check_steady([100, 101, 99, 100, 100]).steady
    True
    >>> check_steady([100, 110, 120, 130, 140]).steady   # slope excursion 40 > 12
    False
    """
    y = np.asarray(values, dtype=float)
    x = np.arange(len(y), dtype=float)
    average = float(y.mean())
    slope, intercept = (float(c) for c in np.polyfit(x, y, 1)) if len(y) > 1 else (0.0, float(y[0]))
    data = float(y.max() - y.min())
    excursion = abs(slope) * (len(y) - 1)
    steady = average > 0 and data <= DATA_EXCURSION_LIMIT * average and excursion <= SLOPE_EXCURSION_LIMIT * average
    return SteadyCheck(bool(steady), average, data, slope, intercept, excursion)


def twin_steady_round(rounds: pd.DataFrame) -> int:
    """The first round from which GC ran in every round and each round's write
    amplification stayed within :data:`TRUE_STEADY_WAF_SHARE` of the last round's; 0 when
    only the last round (or none) is so, which shows nothing.

    ``rounds`` has one row per round, in order: ``round``, ``round_waf``, ``round_gc``.

    >>> waf, gc = [1.0, 2.2, 2.5, 2.52], [False, True, True, True]
    >>> r = pd.DataFrame({"round": [1, 2, 3, 4], "round_waf": waf, "round_gc": gc})
    >>> twin_steady_round(r)
    3
    """
    last_waf = float(rounds.round_waf.iloc[-1])
    first = 0
    for r, waf, gc in zip(rounds["round"], rounds.round_waf, rounds.round_gc, strict=True):
        settled = bool(gc) and abs(float(waf) - last_waf) <= TRUE_STEADY_WAF_SHARE * last_waf
        if not settled:
            first = 0
        elif first == 0:
            first = int(r)
    return first if first and first < int(rounds["round"].iloc[-1]) else 0


#: Picks a round's tracked values from its rows.
Tracked = Callable[[list[dict[str, Any]]], list[float]]


@dataclass(frozen=True)
class Cell:
    """One workload of a round: direction, read share and block size."""

    rw: str
    read_pct: int
    bs: str


def _job(cell: Cell, threads: int, iodepth: int, seconds: float, active_range_pct: float) -> list[str]:
    args = [
        "--name=pts",
        f"--rw={cell.rw}",
        f"--bs={cell.bs}",
        f"--iodepth={iodepth}",
        f"--numjobs={threads}",
        "--group_reporting",
        "--ioengine=libaio",
        "--direct=1",
        f"--runtime={round(seconds * 1e6)}us",
        "--time_based",
        f"--size={active_range_pct:g}%",
        "--unified_rw_reporting=mixed",
        "--percentile_list=" + ":".join(f"{p:g}" for p in PERCENTILES),
    ]
    if cell.rw == "randrw":
        args += [f"--rwmixread={cell.read_pct}", "--norandommap"]
    return args


def _measure(dev: Device, cell: Cell, job: list[str], seed: int) -> dict[str, Any]:
    mixed = dev.run(job, seed=seed).json["jobs"][0]["mixed"]
    lat, clat = mixed["lat_ns"], mixed["clat_ns"]
    # Response time is submission to completion; fio's percentiles are of the completion
    # latency, which the submission latency (tens of ns here) shifts by its mean.
    shift_ns = float(lat["mean"]) - float(clat["mean"])
    percentiles = clat.get("percentile", {})
    row: dict[str, Any] = {
        "rw": cell.rw,
        "read_pct": cell.read_pct,
        "bs": cell.bs,
        "bs_bytes": block_bytes(cell.bs),
        "iops": float(mixed["iops"]),
        "mb_per_s": float(mixed["bw_bytes"]) / 1e6,
        "lat_mean_us": float(lat["mean"]) / 1e3,
        "lat_max_us": float(lat["max"]) / 1e3,
    }
    for p, column in zip(PERCENTILES, PERCENTILE_COLUMNS, strict=True):
        row[column] = (float(percentiles.get(f"{p:f}", 0.0)) + shift_ns) / 1e3
    return row


def _purge_and_precondition(dev: Device, seed: int) -> None:
    """Purge (Format NVM), then WIPC: the user capacity written twice in order, 128 KiB at a
    time (placed without simulating its time: nothing is measured during it)."""
    dev.format()
    dev.fill("steady", 100.0, overwrite_passes=0.0, seed=seed)


def _rounds(
    dev: Device,
    test: str,
    cells: list[Cell],
    tracked: Tracked,
    run_cell: Callable[[Cell], dict[str, Any]],
    max_rounds: int,
    window: int,
    advance: Advance,
) -> list[dict[str, Any]]:
    """Runs ``cells`` round after round until the tracked variables (``tracked`` picks them
    from a round's rows) are steady over the last ``window`` rounds, or ``max_rounds``."""
    rows: list[dict[str, Any]] = []
    history: list[list[float]] = []
    steady_round = 0
    for r in range(1, max_rounds + 1):
        before = dev.counters()
        round_rows = [{"test": test, "round": r, **run_cell(cell)} for cell in cells]
        after = dev.counters()
        host = after["host_write_bytes"] - before["host_write_bytes"]
        nand = after["nand_write_bytes"] - before["nand_write_bytes"]
        state = {
            "round_waf": nand / host if host else float("nan"),
            # GC's own jobs: static wear levelling is counted among them too.
            "round_gc": after["gc_jobs"] - after["wl_jobs"] > before["gc_jobs"] - before["wl_jobs"],
            "free_superblocks": after["free_superblocks"],
        }
        rows += [row | state for row in round_rows]
        values = tracked(round_rows)
        if not values:
            raise SsdtwinError(f"pts {test}: the rounds lack the workload the rule tracks (see docs/pts.md)")
        history.append(values)
        if advance:
            advance(f"{test} round {r}")
        if r >= window and all(check_steady(v).steady for v in zip(*history[-window:], strict=True)):
            steady_round = r
            break
    if advance:
        for _ in range(len(history) + 1, max_rounds + 1):
            advance(f"{test} steady at round {steady_round}: no more rounds")
    last = len(history)
    table = pd.DataFrame(rows)
    per_round = table.groupby("round", sort=True).first().reset_index()
    twin = twin_steady_round(per_round)
    for row in rows:
        row["pts_steady_round"] = steady_round
        row["twin_steady_round"] = twin
        row["in_window"] = row["round"] > last - window
    return rows


def _tracked(read_pct: int, bs: str, column: str) -> Tracked:
    def pick(rows: list[dict[str, Any]]) -> list[float]:
        return [float(r[column]) for r in rows if r["read_pct"] == read_pct and r["bs"] == bs]

    return pick


def _bandwidths(rows: list[dict[str, Any]]) -> list[float]:
    """The throughput test tracks every workload of its round: both directions' MB/s."""
    return [float(r["mb_per_s"]) for r in rows]


def pts_sweep(
    profile: str,
    *,
    variant: str = "enterprise",
    tests: Sequence[str] = TESTS,
    cell_s: float = SPEC_CELL_S,
    max_rounds: int = 25,
    window: int = 5,
    threads: int | None = None,
    iodepth: int | None = None,
    active_range_pct: float | None = None,
    iops_blocks: Sequence[str] = IOPS_BLOCKS,
    iops_read_pcts: Sequence[int] = IOPS_READ_PCTS,
    overrides: Mapping[str, object] | None = None,
    host: str = "linux-6.1",
    seed: int = 1,
    advance: Advance = None,
) -> pd.DataFrame:
    """Runs the specification's ``tests`` on ``profile`` (see the module doc); block sizes
    smaller than the drive's logical block are left out (a 4Kn drive has no 0.5 KiB I/O)."""
    spec = VARIANTS[variant]
    threads = threads or spec.threads
    iodepth = iodepth or spec.iodepth
    active = spec.active_range_pct if active_range_pct is None else active_range_pct
    dev = Device(profile, overrides=overrides, host=host)
    lba_bytes = int(dev.info()["lba_bytes"])

    def fits(bs: str) -> bool:
        return block_bytes(bs) >= lba_bytes

    # Both the IOPS and the latency test track 4 KiB writes; refuse before simulating.
    if not fits("4k") and ("iops" in tests or "latency" in tests):
        raise SsdtwinError(f"pts: the IOPS and latency tests track 4 KiB writes; this drive's LBA is {lba_bytes} B")
    if "iops" in tests and ("4k" not in iops_blocks or 0 not in iops_read_pcts):
        raise SsdtwinError("pts: the IOPS test tracks 4 KiB 100 % writes: its block sizes need 4k, its mixes 0")

    def run(test: str, cells: list[Cell], tracked: Tracked, jobs: int, depth: int) -> list[dict[str, Any]]:
        """One test from a purge: ``cells`` at ``jobs`` threads of ``depth`` each, in rounds."""
        _purge_and_precondition(dev, seed)
        return _rounds(
            dev,
            test,
            cells,
            tracked,
            lambda c: _measure(dev, c, _job(c, jobs, depth, cell_s, active), seed),
            max_rounds,
            window,
            advance,
        )

    rows: list[dict[str, Any]] = []
    if "iops" in tests:
        cells = [Cell("randrw", pct, bs) for pct in iops_read_pcts for bs in iops_blocks if fits(bs)]
        rows += run("iops", cells, _tracked(0, "4k", "iops"), threads, iodepth)
    if "throughput" in tests:
        for bs in spec.throughput_blocks:
            # One thread: several threads' sequential streams would interleave into a
            # random-looking stream; the outstanding I/O is kept as threads x depth.
            cells = [Cell("read", 100, bs), Cell("write", 0, bs)]
            rows += run("throughput", cells, _bandwidths, 1, threads * iodepth)
    if "latency" in tests:
        cells = [Cell("randrw", pct, bs) for pct in LATENCY_READ_PCTS for bs in LATENCY_BLOCKS if fits(bs)]
        rows += run("latency", cells, _tracked(0, "4k", "lat_mean_us"), 1, 1)
    table = pd.DataFrame(rows)
    table.insert(0, "profile", profile)
    table.insert(1, "host", host)
    table.insert(2, "variant", variant)
    table.insert(3, "threads", threads)
    table.insert(4, "iodepth", iodepth)
    table.insert(5, "active_range_pct", active)
    table.insert(6, "cell_s", cell_s)
    return table


def _mix(read_pct: int) -> str:
    return f"{read_pct}/{100 - read_pct}"


def _groups(table: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """Each test's rows, the throughput test once per block size, labelled."""
    groups = []
    for test in TESTS:
        t = table[table.test == test]
        if test == "throughput":
            for bs, b in t.groupby("bs", sort=False):
                groups.append((f"throughput {block_label(block_bytes(str(bs)))}", b))
        elif len(t):
            groups.append((test, t))
    return groups


def steady_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per test: the rounds run, where the specification's rule and the twin saw
    steady state, the measurement window's tracking figures, and the verdict."""
    rows = []
    for label, t in _groups(table):
        rounds = int(t["round"].max())
        pts, twin = int(t.pts_steady_round.iloc[0]), int(t.twin_steady_round.iloc[0])
        per_round = t.groupby("round", sort=True).first()
        window_first = int(t[t.in_window]["round"].min())
        rows.append(
            {
                "test": label,
                "rounds": rounds,
                "pts_steady_round": pts,
                "twin_steady_round": twin,
                "last_round_waf": float(per_round.round_waf.iloc[-1]),
                "verdict": verdict(pts, twin, window_first, rounds, bool(per_round.round_gc.any())),
            }
        )
    return pd.DataFrame(rows).set_index("test")


def verdict(pts: int, twin: int, window_first: int, rounds: int, gc_ran: bool) -> str:
    """Whether the specification's rule agreed with the drive's own state: it did when the
    drive was steady through the whole measurement window (rounds ``window_first`` to
    ``pts``), whose averages are the results.

    >>> verdict(6, 2, 2, 6, True)
    'agreed: steady by the rule at round 6, the drive from round 2'
    >>> verdict(5, 2, 1, 5, True)
    'the rule fired at round 5, but its window (rounds 1-5) began 1 round(s) before the drive was steady (round 2)'
    >>> verdict(5, 0, 1, 5, False)
    'the rule fired at round 5, but GC had not started: the drive was still using up its spare'
    """
    if pts and twin:
        if twin <= window_first:
            return f"agreed: steady by the rule at round {pts}, the drive from round {twin}"
        return (
            f"the rule fired at round {pts}, but its window (rounds {window_first}-{pts}) began "
            f"{twin - window_first} round(s) before the drive was steady (round {twin})"
        )
    if pts:
        if not gc_ran:
            return f"the rule fired at round {pts}, but GC had not started: the drive was still using up its spare"
        return f"the rule fired at round {pts}, but the drive's write amplification was still changing"
    if twin:
        return f"not steady by the rule in {rounds} rounds, though the drive was steady from round {twin}"
    return f"steady neither by the rule nor by the drive's state in {rounds} rounds"


def window_means(t: pd.DataFrame) -> pd.DataFrame:
    """The measurement window's averages per read share and block size (one test's rows)."""
    w = t[t.in_window]
    columns = ["iops", "mb_per_s", "lat_mean_us", "lat_max_us", *PERCENTILE_COLUMNS]
    means = w.groupby(["read_pct", "bs_bytes"], sort=False)[columns].mean()
    # The worst response time of the window, not an average of maxima.
    means["lat_max_us"] = w.groupby(["read_pct", "bs_bytes"], sort=False).lat_max_us.max()
    return means.reset_index()


def matrix(t: pd.DataFrame, column: str) -> pd.DataFrame:
    """The window's ``column`` as the specification tabulates it: block sizes from small
    (top) to large, read/write mixes from all-write (left) to all-read."""
    means = window_means(t)
    grid = means.pivot(index="bs_bytes", columns="read_pct", values=column)
    grid = grid.sort_index().reindex(columns=sorted(grid.columns))
    grid.index = [block_label(int(b)) for b in grid.index]
    grid.index.name = "block size"
    grid.columns = [f"R/W {_mix(int(p))}" for p in grid.columns]
    return grid


def report_tables(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The report's tables: steady state per test, the IOPS matrix, the throughput table and
    the latency tables (mean, max, 99.99 %), each over its measurement window."""
    tables = {"Steady state": steady_summary(table)}
    iops = table[table.test == "iops"]
    if len(iops):
        tables["IOPS (measurement window average)"] = matrix(iops, "iops").round(0)
    tp = table[table.test == "throughput"]
    if len(tp):
        grid = matrix(tp, "mb_per_s").rename(columns={"R/W 0/100": "write MB/s", "R/W 100/0": "read MB/s"})
        tables["Throughput, sequential (measurement window average, MB/s = 10^6 B/s)"] = grid.round(1)
    lat = table[table.test == "latency"]
    if len(lat):
        for column, name in (("lat_mean_us", "mean"), ("lat_max_us", "maximum"), ("lat_p99_99_us", "99.99 %")):
            tables[f"Response time, {name} (µs, QD1, one thread)"] = matrix(lat, column).round(1)
    return tables


def report(table: pd.DataFrame) -> str:
    """Steady state per test, then the tables."""
    lines = []
    for profile, t in table.groupby("profile", sort=False):
        first = t.iloc[0]
        departs = "" if first.cell_s == SPEC_CELL_S else f" (the specification's: {SPEC_CELL_S:g} s)"
        lines.append(
            f"{profile} on {first.host}: SNIA PTS ({first.variant}): IOPS at T{first.threads}Q{first.iodepth}, "
            f"throughput at T1Q{first.threads * first.iodepth}, latency at T1Q1; "
            f"{first.active_range_pct:g} % of the LBA range, {first.cell_s:g} s per workload{departs}"
        )
        for name, grid in report_tables(t).items():
            lines.append(f"\n{name}:")
            lines.append(grid.to_string())
    return "\n".join(lines)


def _sweep(
    advance: Advance,
    profile: str,
    host: str,
    overrides: Mapping[str, object],
    seed: int,
    variant: str,
    tests: str,
    cell_s: float,
    max_rounds: int,
    window: int,
    threads: int | None,
    iodepth: int | None,
    active_range_pct: float | None,
) -> pd.DataFrame:
    return pts_sweep(
        profile,
        variant=variant,
        tests=choice_list(tests, TESTS, "--tests"),
        cell_s=cell_s,
        max_rounds=max_rounds,
        window=window,
        threads=threads,
        iodepth=iodepth,
        active_range_pct=active_range_pct,
        overrides=overrides,
        host=host,
        seed=seed,
        advance=advance,
    )


def _parts(tests: str, **_: Any) -> list[dict[str, Any]]:
    # Each test starts from a purge: a drive of its own, so the tests run on any executor
    # (--executor local:2 runs two at once) and give the same table either way.
    return [{"tests": test} for test in choice_list(tests, TESTS, "--tests")]


def _count(tests: str, max_rounds: int, variant: str, **_: Any) -> int:
    chosen = choice_list(tests, TESTS, "--tests")
    runs = sum(len(VARIANTS[variant].throughput_blocks) if t == "throughput" else 1 for t in chosen)
    return runs * max_rounds


STUDY = Study(
    name="pts",
    profile="micron-9200max",
    help="SNIA PTS 2.0.2: purge, preconditioning, then the IOPS, throughput and latency tests until steady state.",
    options=[
        click.Option(
            ["--variant"],
            type=click.Choice(sorted(VARIANTS)),
            default="enterprise",
            show_default=True,
            help="The Enterprise (T4Q32, whole range) or Client (T2Q16, 75 % of the range) specification.",
        ),
        click.Option(["--tests"], default=",".join(TESTS), show_default=True, help="Tests to run, comma-separated."),
        click.Option(
            ["--cell-s"],
            type=click.FloatRange(0.001, 3600),
            default=60.0,
            show_default=True,
            help="Seconds of each workload of a round (the specification's: 60).",
        ),
        click.Option(
            ["--max-rounds"], type=click.IntRange(1, 1000), default=25, show_default=True, help="Rounds at most."
        ),
        click.Option(
            ["--window"],
            type=click.IntRange(2, 100),
            default=5,
            show_default=True,
            help="Rounds in the steady-state measurement window.",
        ),
        click.Option(["--threads"], type=click.IntRange(1, 256), help="Threads (default: the variant's)."),
        click.Option(["--iodepth"], type=click.IntRange(1, 65536), help="Queue depth per thread (the variant's)."),
        click.Option(
            ["--active-range-pct"],
            type=click.FloatRange(0, 100, min_open=True),
            help="Share of the LBA range the tests address, % (the variant's).",
        ),
        seed_option(),
    ],
    sweep=_sweep,
    count=_count,
    parts=_parts,
    report=lambda table, **_: report(table),
    tables=lambda table: {
        f"{profile}: {caption}": t
        for profile, drive in table.groupby("profile", sort=False)
        for caption, t in report_tables(drive).items()
    },
)
