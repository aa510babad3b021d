"""LBA-format study (reference R4): measure every LBA format a drive lists and say which
Relative Performance (RP) each deserves, beside the RP the drive advertises.

For each format the drive is built fresh in that format (as after ``nvme format --lbaf``),
its first ``span`` is written sequentially, and the same fio jobs run: random 4 KiB and
random one-LBA I/O (512 B on a 512 B format: the smallest I/O the format allows) at QD1
and QD32, reads then writes, and sequential 128 KiB at QD32. Sub-4 KiB writes cost a
read-modify-write of the 4 KiB map unit and small I/O pays per-command costs per fewer
bytes, which is what the RP field warns of.

Deserved RP: each format's MB/s on every test over the best format's, combined as a
geometric mean (the score); a score of at least 0.9 deserves 0 (Best), 0.5 1 (Better),
0.2 2 (Good), below that 3 (Degraded).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import click
import pandas as pd

from ..device import DEFAULT_HOST, Device
from ..params import FiniteFloat
from .base import Advance, Study, int_list, seed_option

RP_NAMES = ("Best", "Better", "Good", "Degraded")
#: Lowest score for RP 0, 1 and 2; anything lower deserves 3.
RP_THRESHOLDS = (0.9, 0.5, 0.2)
#: (test, rw, bytes per I/O or None for one LBA, iodepth)
TESTS: tuple[tuple[str, str, int | None, int], ...] = (
    ("RND4K Q1", "rand", 4096, 1),
    ("RND4K Q32", "rand", 4096, 32),
    ("RNDLBA Q1", "rand", None, 1),
    ("RNDLBA Q32", "rand", None, 32),
    ("SEQ128K Q32", "seq", 128 << 10, 32),
)


def deserved_rp(score: float) -> int:
    """RP a format deserves for its score (its MB/s over the best format's).

    >>> [deserved_rp(s) for s in (1.0, 0.9, 0.7, 0.3, 0.1)]
    [0, 0, 1, 2, 3]
    """
    return next((rp for rp, floor in enumerate(RP_THRESHOLDS) if score >= floor), 3)


def lbaf_sweep(
    profile: str = "micron-9200max",
    *,
    span_gib: float = 8.0,
    seconds: float = 1.0,
    seed: int = 1,
    overrides: Mapping[str, object] | None = None,
    host: str = DEFAULT_HOST,
    formats: list[int] | None = None,
    advance: Advance = None,
) -> pd.DataFrame:
    """On ``host``, one row per (format, test, op): ``lbaf``, ``data_bytes``, ``metadata_bytes``,
    ``test``, ``op``, ``bs``, ``iodepth``, ``iops``, ``mb_per_s`` (10^6 B/s), ``lat_us``, and
    per format ``advertised_rp``, ``score`` and ``deserved_rp`` (:func:`score_formats`, among
    the formats measured: ``formats``, indexes into the drive's list, default all). Each point
    runs ``seconds`` after a ramp of as long (which fills the write buffer)."""
    return score_formats(
        measure_formats(profile, span_gib, seconds, seed, overrides, host, formats or [], advance=advance)
    )


def measure_formats(
    profile: str,
    span_gib: float,
    seconds: float,
    seed: int,
    overrides: Mapping[str, object] | None,
    host: str,
    formats: list[int],
    advance: Advance = None,
) -> pd.DataFrame:
    """:func:`lbaf_sweep`'s measurements, unscored, for ``formats`` (all when empty)."""
    listed = Device(profile, overrides=overrides).identity()["lba_formats"]
    for lbaf in formats:
        if not 0 <= lbaf < len(listed):
            raise click.BadParameter(
                f"LBA format {lbaf}: the drive lists 0 to {len(listed) - 1}", param_hint="--formats"
            )
    rows = []
    for lbaf in formats or range(len(listed)):
        fmt = listed[lbaf]
        dev = Device(profile, overrides={**(overrides or {}), "namespace.current_format": lbaf}, host=host)
        capacity = dev.info()["capacity_bytes"]
        span = min(int(span_gib * 2**30), capacity)
        dev.fill("seq", 100.0 * span / capacity)
        for op in ("read", "write"):
            for test, pattern, bs, depth in TESTS:
                size = bs or fmt["data_bytes"]
                rw = ("rand" if pattern == "rand" else "") + op
                job = {
                    "name": f"{test} {op}",
                    "rw": rw,
                    "bs": size,
                    "iodepth": depth,
                    "ioengine": "libaio",
                    "direct": 1,
                    "size": span // size * size,
                    "time_based": True,
                    "ramp_time": f"{round(seconds * 1e6)}us",
                    "runtime": f"{round(seconds * 1e6)}us",
                    "randseed": seed,
                }
                s = dev.run(job).summary.iloc[0]
                rows.append(
                    {
                        "lbaf": lbaf,
                        "data_bytes": fmt["data_bytes"],
                        "metadata_bytes": fmt["metadata_bytes"],
                        "test": test,
                        "op": op,
                        "bs": size,
                        "iodepth": depth,
                        "iops": float(s.iops),
                        "mb_per_s": float(s.iops) * size / 1e6,
                        "lat_us": float(s.mean_lat_us),
                        "advertised_rp": fmt["relative_performance"],
                        "host": host,
                    }
                )
        if advance:
            advance(f"LBA format {lbaf} ({fmt['data_bytes']}+{fmt['metadata_bytes']})")
    return pd.DataFrame(rows)


def score_formats(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each format's ``score`` (geometric mean over the tests of its MB/s over
    the best format's) and the ``deserved_rp`` for it."""
    table = table.copy()
    best = table.groupby(["test", "op"]).mb_per_s.transform("max")
    ratio = (table.mb_per_s / best).clip(lower=1e-9)
    scores = ratio.apply(math.log).groupby(table.lbaf).mean().apply(math.exp)
    table["score"] = table.lbaf.map(scores)
    table["deserved_rp"] = table.score.map(deserved_rp)
    return table


def verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """One row per format: sizes, advertised and deserved RP, score, and whether they agree."""
    per = table.groupby("lbaf").first()[["data_bytes", "metadata_bytes", "advertised_rp", "deserved_rp", "score"]]
    per["agrees"] = per.advertised_rp == per.deserved_rp
    return per.reset_index()


def report(table: pd.DataFrame, profile: str) -> str:
    v = verdicts(table)
    lines = [f"{'lbaf':>4} {'format':>9} {'advertised':>13} {'deserved':>13} {'score':>6}"]
    for r in v.itertuples():
        fmt = f"{r.data_bytes}+{r.metadata_bytes}"
        adv = f"{r.advertised_rp} {RP_NAMES[r.advertised_rp]}"
        des = f"{r.deserved_rp} {RP_NAMES[r.deserved_rp]}"
        lines.append(f"{r.lbaf:>4} {fmt:>9} {adv:>13} {des:>13} {r.score:6.3f}{'' if r.agrees else '  DISAGREES'}")
    pivot = table.pivot_table(index=["test", "op"], columns="lbaf", values="mb_per_s", sort=False).round(1)
    lines += ["", "MB/s by test and LBA format:", pivot.to_string()]
    wrong = v[~v.agrees]
    if wrong.empty:
        lines.append(f"\n{profile}: the advertised Relative Performance agrees with the measurements.")
    else:
        formats = ", ".join(str(x) for x in wrong.lbaf)
        lines.append(f"\n{profile}: the advertised Relative Performance disagrees for LBA format(s) {formats}.")
    return "\n".join(lines)


def _formats(text: str) -> list[int]:
    return int_list(text, "--formats") if text != "all" else []


def _sweep(
    advance: Advance,
    profile: str,
    span_gib: float,
    seconds: float,
    seed: int,
    formats: str,
    host: str,
    overrides: Mapping[str, object],
) -> pd.DataFrame:
    return measure_formats(profile, span_gib, seconds, seed, overrides, host, _formats(formats), advance=advance)


def _count(profile: str, formats: str, overrides: Mapping[str, object] | None = None, **_: Any) -> int:
    return len(_formats(formats)) or len(Device(profile, overrides=overrides).identity()["lba_formats"])


def _parts(profile: str, formats: str, overrides: Mapping[str, object] | None = None, **_: Any) -> list[dict[str, Any]]:
    # Each format is a drive of its own, built in that format.
    chosen = _formats(formats) or range(len(Device(profile, overrides=overrides).identity()["lba_formats"]))
    return [{"formats": str(f)} for f in chosen]


STUDY = Study(
    name="lbaf",
    profile="micron-9200max",
    help="Every LBA format measured, and the Relative Performance each deserves beside the advertised one (R4).",
    options=[
        click.Option(
            ["--span-gib"], type=FiniteFloat(min=0.001), default=8.0, show_default=True, help="LBA span tested."
        ),
        click.Option(
            ["--seconds"], type=FiniteFloat(min=0.001), default=1.0, show_default=True, help="Runtime per test."
        ),
        seed_option(),
        click.Option(
            ["--formats"], default="all", show_default=True, help="LBA format indexes to measure (comma-separated)."
        ),
    ],
    sweep=_sweep,
    count=_count,
    report=lambda table, profile, **_: report(table, profile),
    parts=_parts,
    finish=score_formats,
)
