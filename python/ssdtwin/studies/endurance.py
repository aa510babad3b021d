"""Endurance study: how long a drive lasts under a workload, and what write amplification
costs.

Each workload runs on a preconditioned drive (filled, then, for random workloads,
overwritten at random until GC reaches its steady state, as SNIA's PTS preconditions) in
windows of simulated time until its write amplification settles: the last ``rounds``
windows within ``tolerance`` of their mean. Over those windows the drive's counters give the
host and NAND bytes written and the rated life the NAND's programs use (P/E cycles over
their ratings, SLC-mode cycles at the SLC rating: ``life_programmed_ppb``, which Percentage
Used follows erase by erase). Scaled to a day of the workload's duty cycle they project
Percentage Used over time, the host writes the NAND's rated life allows, and when the
datasheet's rated TBW is reached. Variants (other over-provisioning, another LBA format, ...) are profile
overrides; comparing their rows shows what write amplification costs in years.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click
import pandas as pd

from ..device import Device, RawToml
from ..errors import JobError
from ..params import FiniteFloat
from .base import Advance, Study

#: Seconds in a day.
DAY_S = 86_400

#: The random seed of the first measuring window; each later window takes the next.
FIRST_WINDOW_SEED = 100

#: Workloads by name: the two ends of write amplification, 4 KiB random writes over the
#: whole drive (datasheets' random-write workload) and 128 KiB sequential writes, and
#: JESD219's skewed enterprise workload, which enterprise endurance ratings are measured
#: under. ``precondition="auto"`` prepares each as its rating does: a sequential fill for
#: the sequential one, random overwrites to GC's steady state for the others (and for job
#: files).
BUILTIN_JOBS: dict[str, dict[str, object]] = {
    "random-4k": {
        "name": "random-4k",
        "rw": "randwrite",
        "bs": "4k",
        "iodepth": 32,
        "ioengine": "libaio",
        "direct": 1,
        "norandommap": True,
    },
    "sequential-128k": {
        "name": "sequential-128k",
        "rw": "write",
        "bs": "128k",
        "iodepth": 32,
        "ioengine": "libaio",
        "direct": 1,
    },
    # JEDEC JESD219's enterprise endurance workload, as fio's examples/jesd219.fio writes
    # it: its mix of transfer sizes (two thirds 4 KiB, a tenth below 4 KiB, the rest up
    # to 64 KiB), 4 KiB aligned, half the accesses to the first 5 % of the LBAs, 30 % to
    # the next 15 %, 20 % to the rest; 60 % writes.
    "jesd219": {
        "name": "jesd219",
        "rw": "randrw",
        "rwmixread": 40,
        "bssplit": "512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3",
        "blockalign": "4k",
        "random_distribution": "zoned:50/5:30/15:20/80",
        "iodepth": 32,
        "ioengine": "libaio",
        "direct": 1,
        "norandommap": True,
    },
}


#: The workloads run when none is named: the two ends of write amplification.
DEFAULT_JOBS = ("random-4k", "sequential-128k")

#: (workload, preconditioning) pairs where the preconditioning leaves the workload's own
#: steady state: uniform random overwrites sampled to GC's steady state, and a sequential
#: fill under sequential overwrites (whole superblocks go invalid). Any other workload
#: writes a drive's worth (``turnover``) before its windows count.
PRECONDITION_IS_STEADY = {("random-4k", "random"), ("sequential-128k", "sequential")}

#: The most drive writes of warm-up a study may ask for.
MAX_TURNOVER = 10.0


def _job_for_window(job: str, window_s: float) -> str | dict[str, object]:
    """The job to run for one window: a built-in job dict, or a job file's text under a
    ``[global]`` section that makes it time-based (a runtime the job sets itself wins)."""
    if job in BUILTIN_JOBS:
        return BUILTIN_JOBS[job] | {"time_based": True, "runtime": float(window_s)}
    path = Path(job)
    if not path.is_file():
        raise JobError(f"job '{job}': neither a built-in workload ({', '.join(BUILTIN_JOBS)}) nor a job file")
    return f"[global]\ntime_based\nruntime={round(window_s * 1e6)}us\n\n" + path.read_text()


def _variants(variants: Mapping[str, Mapping[str, object]] | None) -> dict[str, dict[str, object]]:
    return {k: dict(v) for k, v in (variants or {"as-shipped": {}}).items()}


def measure_steady_state(
    dev: Device,
    job: str,
    *,
    window_s: float,
    rounds: int,
    tolerance: float,
    max_windows: int,
    warmup_bytes: int = 0,
) -> dict[str, float]:
    """Runs ``job`` on ``dev`` in windows of ``window_s``: first until it has written
    ``warmup_bytes``, then until the write amplification of the last ``rounds`` windows is
    within ``tolerance`` (a share) of their mean, or ``max_windows`` more have run; returns
    the rates over those last windows and the bytes the warm-up wrote."""
    keys = ("time_ns", "host_write_bytes", "nand_write_bytes", "life_programmed_ppb")
    seeds = itertools.count(FIRST_WINDOW_SEED)

    def window() -> dict[str, int]:
        was = dev.counters()
        # A seed of its own per window: one seed would replay the same offsets (fio's
        # randrepeat), so every window after the first would overwrite what the one before
        # had just written, and GC would find its victims all but empty. (A job file's own
        # randseed still wins, as fio's does.)
        dev.run(_job_for_window(job, window_s), seed=next(seeds))
        now = dev.counters()
        sample = {k: int(now[k]) - int(was[k]) for k in keys}
        if sample["host_write_bytes"] == 0:
            raise JobError(f"job '{job}' wrote nothing: the endurance study needs a workload that writes")
        return sample

    warmed = 0
    while warmed < warmup_bytes:
        warmed += window()["host_write_bytes"]
    samples: list[dict[str, int]] = []
    for _ in range(max_windows):
        samples.append(window())
        if len(samples) >= rounds:
            wa = [s["nand_write_bytes"] / s["host_write_bytes"] for s in samples[-rounds:]]
            if max(wa) - min(wa) <= tolerance * sum(wa) / rounds:
                break
    last = samples[-rounds:]
    seconds = sum(s["time_ns"] for s in last) / 1e9
    host = sum(s["host_write_bytes"] for s in last)
    nand = sum(s["nand_write_bytes"] for s in last)
    return {
        "warmup_bytes": float(warmed),
        "windows": float(len(samples)),
        "measured_s": seconds,
        "host_bytes_per_s": host / seconds,
        "nand_bytes_per_s": nand / seconds,
        "life_per_s": sum(s["life_programmed_ppb"] for s in last) / 1e9 / seconds,
    }


def endurance_projection(
    profile: str = "micron-9200max",
    jobs: Sequence[str] = DEFAULT_JOBS,
    *,
    duty_cycle: float = 1.0,
    variants: Mapping[str, Mapping[str, object]] | None = None,
    overrides: Mapping[str, object] | None = None,
    host: str = "none",
    precondition: str = "auto",
    window_s: float = 30.0,
    rounds: int = 3,
    tolerance: float = 0.05,
    max_windows: int = 40,
    turnover: float | None = None,
    start_date: dt.date | None = None,
    advance: Advance = None,
) -> pd.DataFrame:
    """One row per variant and job: ``write_amplification``, ``host_write_mb_per_s`` and
    ``nand_write_mb_per_s`` in steady state (10⁶ B/s while the workload runs),
    ``host_tb_per_day`` and ``drive_writes_per_day`` at ``duty_cycle`` (the share of each
    day it runs), ``percentage_used_per_year``, ``years_to_100pct_used`` and the host writes
    by then (``projected_tb_written``), the profile's ``rated_tb_written`` (its sequential
    rating for ``sequential-128k`` when it has one) and ``years_to_rated_tbw``, their ratio
    ``projected_over_rated``, and with ``start_date`` the dates both are reached.
    ``variants`` are named sets of profile overrides, applied over ``overrides``.

    Before its windows count, each workload writes ``turnover`` times the drive's capacity
    (``warmup_drive_writes``, as written): enough for GC's victims to hold what this
    workload leaves in them rather than what the preconditioning left. By default none
    where the preconditioning already is the workload's steady state (``random-4k`` after
    the random fill, ``sequential-128k`` after the sequential one), else one drive write.

    >>> small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 12 << 30}
    >>> t = endurance_projection("generic-tlc-1tb", overrides=small, window_s=0.3)
    >>> list(t.job), bool(t.write_amplification.iloc[0] > t.write_amplification.iloc[1] > 0.99)
    (['random-4k', 'sequential-128k'], True)
    >>> bool(t.projected_tb_written.iloc[0] < t.projected_tb_written.iloc[1])  # 1/WA of the NAND's life
    True
    """
    if not 0.0 < duty_cycle <= 1.0:
        raise click.BadParameter(f"{duty_cycle}: a share of the day, above 0 and at most 1", param_hint="--duty-cycle")
    if precondition not in ("auto", "random", "sequential", "none"):
        raise click.BadParameter(
            f"'{precondition}': allowed auto, random, sequential, none", param_hint="--precondition"
        )
    if turnover is not None and not 0.0 <= turnover <= MAX_TURNOVER:
        raise click.BadParameter(f"{turnover}: drive writes, 0 to {MAX_TURNOVER}", param_hint="--turnover")
    rows = []
    for variant, settings in _variants(variants).items():
        for job in jobs:
            dev = Device(profile, overrides=dict(overrides or {}) | settings, host=host)
            how = precondition
            if how == "auto":
                how = "sequential" if job == "sequential-128k" else "random"
            if how != "none":
                dev.fill("random" if how == "random" else "seq", 100.0, overwrite_passes=2.0)
            identity = dev.identity()
            drive_writes = turnover
            if drive_writes is None:
                drive_writes = 0.0 if (job, how) in PRECONDITION_IS_STEADY else 1.0
            m = measure_steady_state(
                dev,
                job,
                window_s=window_s,
                rounds=rounds,
                tolerance=tolerance,
                max_windows=max_windows,
                warmup_bytes=round(drive_writes * int(identity["capacity_bytes"])),
            )
            rows.append(_row(profile, variant, job, m, identity, duty_cycle, start_date))
            if advance:
                advance(f"{variant} {job}")
    table = pd.DataFrame(rows)
    table.insert(1, "host", host)
    return table


def _row(
    profile: str,
    variant: str,
    job: str,
    m: dict[str, float],
    identity: Mapping[str, Any],
    duty_cycle: float,
    start_date: dt.date | None,
) -> dict[str, Any]:
    capacity = int(identity["capacity_bytes"])
    host_per_day = m["host_bytes_per_s"] * DAY_S * duty_cycle
    life_per_day = m["life_per_s"] * DAY_S * duty_cycle
    days_to_end = 1.0 / life_per_day if life_per_day > 0 else float("inf")
    rated = rated_tb_written(identity, sequential=job == "sequential-128k")
    days_to_rated = rated * 1e12 / host_per_day if rated else float("nan")
    projected_tb = host_per_day * days_to_end / 1e12
    row: dict[str, Any] = {
        "profile": profile,
        "variant": variant,
        "job": job,
        "duty_cycle": duty_cycle,
        "warmup_drive_writes": m["warmup_bytes"] / capacity,
        "windows": int(m["windows"]),
        "measured_s": m["measured_s"],
        "host_write_mb_per_s": m["host_bytes_per_s"] / 1e6,
        "nand_write_mb_per_s": m["nand_bytes_per_s"] / 1e6,
        "write_amplification": m["nand_bytes_per_s"] / m["host_bytes_per_s"],
        "host_tb_per_day": host_per_day / 1e12,
        "drive_writes_per_day": host_per_day / capacity,
        "percentage_used_per_year": 100.0 * life_per_day * 365.0,
        "years_to_100pct_used": days_to_end / 365.0,
        "projected_tb_written": projected_tb,
        "rated_tb_written": rated if rated else float("nan"),
        "years_to_rated_tbw": days_to_rated / 365.0,
        "projected_over_rated": projected_tb / rated if rated else float("nan"),
    }
    if start_date is not None:
        row["date_100pct_used"] = _date_after(start_date, days_to_end)
        row["date_rated_tbw"] = _date_after(start_date, days_to_rated)
    return row


def rated_tb_written(identity: Mapping[str, Any], *, sequential: bool = False) -> float | None:
    """The profile's rated TBW: ``endurance.rated_tb_written``, or DWPD x capacity x 365 x
    warranty years when only those are given; for a ``sequential`` workload the sequential
    rating (``rated_tb_written_sequential``) when the profile has one.

    >>> rated_tb_written({"rated_tb_written": 8800.0, "capacity_bytes": 1})
    8800.0
    >>> round(rated_tb_written({"rated_tb_written": None, "rated_dwpd": 3.0, "warranty_years": 5.0,
    ...                         "capacity_bytes": 1_600_000_000_000}))
    8760
    >>> rated_tb_written({"rated_tb_written": 8800.0, "rated_tb_written_sequential": 17500.0}, sequential=True)
    17500.0
    """
    if sequential and identity.get("rated_tb_written_sequential"):
        return float(identity["rated_tb_written_sequential"])
    if identity.get("rated_tb_written"):
        return float(identity["rated_tb_written"])
    dwpd, years = identity.get("rated_dwpd"), identity.get("warranty_years")
    if dwpd and years:
        return float(dwpd) * int(identity["capacity_bytes"]) * 365.0 * float(years) / 1e12
    return None


def _date_after(start: dt.date, days: float) -> str:
    """The date ``days`` after ``start`` (ISO), or empty when never (or beyond year 9999)."""
    if not days < (dt.date.max - start).days:
        return ""
    return (start + dt.timedelta(days=days)).isoformat()


def report(table: pd.DataFrame) -> str:
    """A few lines per row: write amplification, the years to 100 % Percentage Used, and the
    rated TBW's date against the model's projection."""
    lines = []
    for r in table.itertuples():
        rated = (
            f"rated {r.rated_tb_written:,.0f} TB reached in {r.years_to_rated_tbw:.1f} years; "
            f"the NAND's rated life allows {r.projected_tb_written:,.0f} TB "
            f"({100 * r.projected_over_rated:.0f} % of the rating)"
            if r.rated_tb_written == r.rated_tb_written
            else f"the NAND's rated life allows {r.projected_tb_written:,.0f} TB (no rated TBW in the profile)"
        )
        lines.append(
            f"{r.variant} / {r.job}: WA {r.write_amplification:.2f}, {r.host_tb_per_day:.2f} TB/day "
            f"({r.drive_writes_per_day:.2f} DWPD): 100 % used after {r.years_to_100pct_used:.1f} years; {rated}"
        )
    return "\n".join(lines)


def _parse_variants(values: tuple[str, ...]) -> dict[str, dict[str, object]] | None:
    """``--variant NAME:SECTION.FIELD=VALUE[,SECTION.FIELD=VALUE]`` options as override sets."""
    if not values:
        return None
    out: dict[str, dict[str, object]] = {}
    for text in values:
        name, sep, rest = text.partition(":")
        pairs = [p.strip() for p in rest.split(",") if p.strip()]
        if not sep or not name.strip() or not pairs or any("=" not in p for p in pairs):
            raise click.BadParameter(
                f"'{text}': expected NAME:SECTION.FIELD=VALUE[,SECTION.FIELD=VALUE]", param_hint="--variant"
            )
        out[name.strip()] = {k.strip(): RawToml(v.strip()) for k, v in (p.split("=", 1) for p in pairs)}
    return out


def sweep(
    profile: str,
    jobs: tuple[str, ...],
    duty_cycle: float,
    variant: tuple[str, ...],
    precondition: str,
    window: float,
    turnover: float | None,
    start_date: str | None,
    overrides: Mapping[str, object],
    host: str,
    advance: Advance = None,
) -> pd.DataFrame:
    if start_date is None:
        start = None
    else:
        try:
            start = dt.date.fromisoformat(start_date)
        except ValueError:
            raise click.BadParameter(f"'{start_date}': expected YYYY-MM-DD", param_hint="--start-date") from None
    for job in jobs:
        _job_for_window(job, window)
    return endurance_projection(
        profile,
        jobs or DEFAULT_JOBS,
        duty_cycle=duty_cycle,
        variants=_parse_variants(variant),
        overrides=overrides,
        host=host,
        precondition=precondition,
        window_s=window,
        turnover=turnover,
        start_date=start,
        advance=advance,
    )


def parts(jobs: tuple[str, ...], variant: tuple[str, ...], **_: object) -> list[dict[str, Any]]:
    """Each variant and job runs on a drive of its own: one part each, variants outer."""
    return [
        {"jobs": (job,), "variant": (v,) if v else ()}
        for v in (tuple(dict.fromkeys(variant)) or (None,))
        for job in (jobs or DEFAULT_JOBS)
    ]


def count(jobs: tuple[str, ...], variant: tuple[str, ...], **_: object) -> int:
    return max(1, len(jobs) or len(DEFAULT_JOBS)) * max(1, len(variant))


STUDY = Study(
    name="endurance",
    profile="micron-9200max",
    help=(
        "How long the drive lasts under each JOB (a fio job file, or random-4k, sequential-128k (these two "
        "by default) or jesd219): precondition, run to steady state, project Percentage Used and the rated TBW's date."
    ),
    options=[
        click.Option(
            ["--duty-cycle"],
            type=FiniteFloat(),
            default=1.0,
            show_default=True,
            help="Share of each day the workload runs (0 to 1).",
        ),
        click.Option(
            ["--variant"],
            multiple=True,
            metavar="NAME:SECTION.FIELD=VALUE[,...]",
            help="A named set of profile overrides to compare (repeatable), e.g. op28:identity.capacity_bytes=...",
        ),
        click.Option(
            ["--precondition"],
            type=click.Choice(["auto", "random", "sequential", "none"]),
            default="auto",
            show_default=True,
            help=(
                "How the drive is prepared: filled and overwritten at random (GC steady state), filled, or new; "
                "auto: sequential for sequential-128k, random otherwise."
            ),
        ),
        click.Option(
            ["--window"],
            type=FiniteFloat(min=0.001),
            default=30.0,
            show_default=True,
            help="Simulated seconds per measuring window; steady state is three windows within 5 %.",
        ),
        click.Option(
            ["--turnover"],
            type=FiniteFloat(min=0.0, max=MAX_TURNOVER),
            default=None,
            help=(
                "Drive writes each workload makes before its windows count, so GC's victims hold what it "
                "leaves in them; default 0 for random-4k after the random fill and sequential-128k after the "
                "sequential one, 1 otherwise."
            ),
        ),
        click.Option(["--start-date"], default=None, help="Date the drive enters service (YYYY-MM-DD), for dates."),
    ],
    arguments=[click.Argument(["jobs"], nargs=-1)],
    sweep=sweep,
    count=count,
    report=lambda table, **_: report(table),
    parts=parts,
    host="none",
)

__all__ = ["BUILTIN_JOBS", "STUDY", "endurance_projection", "rated_tb_written", "report"]
