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
"""

from __future__ import annotations

from dataclasses import dataclass

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
) -> Suspend:
    """Quiet QD1 reads over ``span`` bytes of written data from ``start``, then the same
    reads mixed into random writes of that span (a ramp of one point first, so the write
    buffer is full and the writes run at the programs' pace). The span should be the
    written drive: reads of what the writes just wrote come from the write buffer."""
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
            ramp_s=settings.point_s,
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
    return Suspend(table, infer_suspend(table, dies, program_unit))


def infer_suspend(table: pd.DataFrame, dies: float | None, program_unit: float | None) -> list[Estimate]:
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
            "dies x program unit / the writes' rate, every die programming (transfers included)",
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
