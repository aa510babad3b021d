"""Program suspend: whether a read waits for a die's program to finish or suspends it.

A read to a die that is programming either suspends the program (it waits tens of
microseconds, the suspend latency, then reads) or waits for the program to end: on average
half of tPROG, hundreds of microseconds to milliseconds. So 4 KiB reads of written data,
mixed sparsely (one I/O in ten) into 128 KiB random writes that keep every die
programming, are compared with the same reads on a quiet drive: the extra latency is a
suspend's where it is small against tPROG, and a wait for the program where it is not.

tPROG comes from the same job: with every die programming, the writes' rate is dies x
program unit / tPROG (the program's transfer left out), so a quarter of that time is the
line between the two (a suspend costs a small share of a program; waiting for one costs
half of it on average). The program unit and the dies come from ``geometry``; without
them the measurement is recorded and nothing is inferred.

Where the writes are bound by the link rather than by programs, their rate only bounds
tPROG from above: any shorter program gives the same rate. If reads wait for programs,
how long they wait tells more, but through the whole drive (the dies' share of time
programming, the writes queued ahead of a read, the write buffer), not through one formula,
and not even monotonically. So, as the GC step does for the spare, the prober writes the
profile it has inferred with candidate program times, from the bound down to half of it,
runs each through the same fill and jobs, and keeps the one whose reads among writes come
nearest the drive's.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import ProbeError
from .estimate import Estimate
from .facts import Facts
from .floor import UNIT
from .runner import Job, Runner
from .settings import Settings

MEASUREMENT = "suspend"
#: Reads' share of the mixed job's I/Os, percent: sparse enough that few programs meet more
#: than one read (a drive caps the suspends per program).
READ_SHARE_PCT = 10
#: The writes' block size (at most the target's largest I/O) and depth: enough to keep
#: every die programming.
WRITE_BS = 128 << 10
DEPTH = 8
#: A read waiting for a program waits half of it on average; a suspend costs much less.
WAIT_SHARE_OF_TPROG = 0.25
#: Writes at least this share of the link's rate are bound by the link, not by programs.
LINK_BOUND_SHARE = 0.97
#: The program times the calibration tries, as shares of the writes' bound, longest first.
CALIBRATION_SHARES = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
#: The calibration stops at a candidate whose reads among writes are this close (log ratio),
#: and infers nothing if none came within the second.
CALIBRATION_TOLERANCE = 0.02
CALIBRATION_MISS = 0.05


@dataclass(frozen=True)
class Suspend:
    """The quiet and the loaded reads (``table``: ``test``, ``read_lat_us``, ``reads``,
    ``write_mb_per_s``) and the estimates."""

    table: pd.DataFrame
    estimates: list[Estimate]


def measure_suspend(
    runner: Runner,
    facts: Facts,
    settings: Settings,
    start: int,
    span: int,
    dies: float | None,
    program_unit: float | None,
    link_bound: bool = False,
    ramp_s: float = 0.0,
) -> Suspend:
    """Quiet QD1 reads over ``span`` bytes of written data from ``start``, then the same
    reads mixed into random writes of that span (a ramp first, of one point or ``ramp_s``
    if longer, so that the write buffer, and an SLC cache given the time to fill it, are
    full and the writes run at the native programs' pace: the program unit and the dies
    that turn the writes' rate into tPROG are the native mode's). The span should be the
    written drive: reads of what the writes just wrote come from the write buffer.
    ``link_bound``: the post-cache writes ran at the link's rate
    (:func:`writes_bound_by_link`), so the tPROG inferred here is an upper bound."""
    write_bs = min(WRITE_BS, facts.max_io_bytes)
    quiet = runner.run(
        Job("suspend quiet reads", "randread", UNIT, offset=start, size=span, number_ios=settings.qd1_ios), MEASUREMENT
    )
    mixed = runner.run(
        Job(
            "suspend reads among writes",
            "randrw",
            UNIT,
            iodepth=DEPTH,
            offset=start,
            size=span,
            runtime_s=4 * settings.point_s,
            ramp_s=max(settings.point_s, ramp_s),
            write_bs=write_bs,
            rwmixread=READ_SHARE_PCT,
        ),
        MEASUREMENT,
    )
    if mixed.read is None or mixed.write is None:
        raise ProbeError(f"fio reported no reads or no writes for the mixed job '{mixed.job.name}'")
    rows = [
        {"test": "quiet", "read_lat_us": quiet.main.mean_lat_ns / 1e3, "reads": quiet.main.ios, "write_mb_per_s": 0.0},
        {
            "test": "among writes",
            "read_lat_us": mixed.read.mean_lat_ns / 1e3,
            "reads": mixed.read.ios,
            "write_mb_per_s": mixed.write.bytes_per_s / 1e6,
        },
    ]
    table = pd.DataFrame(rows)
    return Suspend(table, infer_suspend(table, dies, program_unit, link_bound))


def infer_suspend(
    table: pd.DataFrame, dies: float | None, program_unit: float | None, link_bound: bool = False
) -> list[Estimate]:
    """Suspends or not (see the module doc); nothing without the dies and program unit.
    The extra wait itself is in the table and the reasoning, not an estimate: a difference
    of two latencies, it is noise where reads suspend programs.

    >>> t = pd.DataFrame({"read_lat_us": [60.0, 380.0], "write_mb_per_s": [0.0, 1680.0]})
    >>> [(e.name, round(e.value)) for e in infer_suspend(t, 32, 32768)]
    [('program_time_ns', 624152), ('program_suspend', 0)]
    """
    wait_ns = float(table.read_lat_us.iloc[1] - table.read_lat_us.iloc[0]) * 1e3
    write_rate = float(table.write_mb_per_s.iloc[1]) * 1e6
    if not dies or not program_unit or write_rate <= 0:
        return []
    measurement = (
        f"4 KiB random reads, quiet at QD1 and as {READ_SHARE_PCT} % of a mix with random writes at depth {DEPTH}"
    )
    tprog_ns = dies * program_unit / write_rate * 1e9
    line = WAIT_SHARE_OF_TPROG * tprog_ns
    suspends = wait_ns < line
    return [
        Estimate(
            "program_time_ns",
            tprog_ns,
            "ns",
            None,
            measurement,
            "dies x program unit / the writes' rate, every die programming (transfers included)"
            + ("; the link binds the writes: at most this" if link_bound else ""),
            "upper bound" if link_bound else "inferred",
        ),
        Estimate(
            "program_suspend",
            1.0 if suspends else 0.0,
            "bool",
            None,
            measurement,
            f"reads among writes wait {wait_ns / 1e3:.0f} us more than quiet ones: "
            f"{'less' if suspends else 'more'} than a quarter of the program time ({line / 1e3:.0f} us), "
            f"so they {'suspend programs' if suspends else 'wait for them'}",
        ),
    ]


def writes_bound_by_link(estimates: Mapping[str, Estimate]) -> bool:
    """Whether the post-cache writes run at the link's rate (:data:`LINK_BOUND_SHARE`), so
    their rate only bounds tPROG from above. A link whose reads were still rising with depth
    is a lower bound and shows nothing."""
    native, link = estimates.get("native_write_bytes_per_s"), estimates.get("link_bytes_per_s")
    if native is None or not native.value or link is None or not link.value or link.status != "inferred":
        return False
    return native.value >= LINK_BOUND_SHARE * link.value


def reads_wait_for_programs(estimates: Mapping[str, Estimate]) -> bool:
    """Whether the suspend step found reads waiting for programs: then how long they wait
    tells tPROG apart where the writes' rate does not (:func:`calibrate_program_time`)."""
    suspends = estimates.get("program_suspend")
    return suspends is not None and suspends.value is not None and not suspends.value


def calibrate_program_time(
    facts: Facts, estimates: Mapping[str, Estimate], settings: Settings, start: int, span: int, measured: Suspend
) -> Estimate:
    """The native tPROG at which the profile the estimates describe, filled in order and run
    through :func:`measure_suspend` over the same span, gives reads among writes nearest
    the drive's (``measured``): candidates from the writes' bound down to half of it
    (:data:`CALIBRATION_SHARES`), until one is within :data:`CALIBRATION_TOLERANCE`."""
    from .profile import build_profile
    from .runner import TwinRunner

    target_us = float(measured.table.read_lat_us.iloc[1])
    bound_ns = derived_program_time_ns(facts, estimates)
    tried: dict[float, float] = {}
    for share in CALIBRATION_SHARES:
        candidate = dict(estimates)
        candidate["native_program_time_ns"] = Estimate(
            "native_program_time_ns", share * bound_ns, "ns", None, "calibration", "candidate"
        )
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "candidate.toml"
            path.write_text(build_profile(facts, candidate).toml())
            runner = TwinRunner(path)
            try:
                # 128 KiB whatever the drive's largest I/O: the twin's bulk fill takes it.
                runner.condition(Job("fill in order", "write", WRITE_BS, iodepth=32), MEASUREMENT)
                got = measure_suspend(runner, facts, settings, start, span, None, None)
            finally:
                runner.close()
        tried[share] = float(got.table.read_lat_us.iloc[1])
        if abs(math.log(tried[share] / target_us)) <= CALIBRATION_TOLERANCE:
            break
    best = min(tried, key=lambda share: abs(math.log(tried[share] / target_us)))
    listed = ", ".join(f"{s:.0%}: {us:,.0f} us" for s, us in tried.items())
    measurement = "the inferred profile filled in order, through the same quiet reads and reads among writes"
    why = (
        f"the writes run at the link's rate, so their rate only bounds tPROG ({bound_ns / 1e3:,.0f} us); "
        f"reads among writes at shares of that bound ({listed}) against the drive's {target_us:,.0f} us"
    )
    if abs(math.log(tried[best] / target_us)) > CALIBRATION_MISS:
        return Estimate(
            "native_program_time_ns",
            None,
            "ns",
            None,
            measurement,
            why + f": none within {CALIBRATION_MISS:.0%}",
            "not inferred",
        )
    return Estimate("native_program_time_ns", best * bound_ns, "ns", None, measurement, why)


def derived_program_time_ns(facts: Facts, estimates: Mapping[str, Estimate]) -> float:
    """The native tPROG the inferred profile derives from the post-cache write rate (its
    upper bound where the link binds the writes)."""
    from .profile import build_profile

    derived = dict(estimates)
    derived.pop("native_program_time_ns", None)
    profile = build_profile(facts, derived)
    t_prog_us = profile.get(f"nand.{profile.get('nand', 'cell')}", "t_prog_us")
    assert isinstance(t_prog_us, float | int), t_prog_us
    return float(t_prog_us) * 1e3
