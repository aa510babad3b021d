"""GC steady state, as SNIA's PTS IOPS test reaches it, and the spare space it implies.

The protocol (serve-probe-facts §2.2): purge; precondition with sequential 128 KiB writes
of twice the capacity (WIPC); then rounds of random 4 KiB writes over the whole drive, each
a share of the capacity written and then a measurement window whose IOPS are the round's
tracking value, until the last five rounds meet the steady-state rules (:mod:`.steady`) or
25 rounds have run. The steady-state IOPS are the window's average.

On a simulated drive the preconditioning and each round's bulk of writes are conditioning
passes (:meth:`~.runner.Runner.condition`): the bulk fill's untimed paths, then the timed
window. A real drive runs them all as fio jobs.

Write amplification sets the steady-state IOPS, and the spare space (raw less namespace)
sets the write amplification. How much it sets it depends on what no measurement shows:
pages per block and the number of superblocks (greedy GC picks among superblocks; a larger
erase unit holds more valid data when chosen). So the prober does not compute the spare from
a formula: it writes the profile it has inferred with a candidate spare, at the target's own
size and with the geometry it will write, runs it through the same purge, WIPC and rounds,
and moves the spare until the steady-state IOPS match the drive's. The spare it reports is
the one that makes the inferred profile reproduce the measurement; where the inferred pages
per block differ from the drive's, it differs from the drive's own spare by what makes up
for them.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .cooling import Cooling
from .estimate import Estimate
from .facts import Facts
from .profile import DEFAULT_SPARE
from .runner import Job, Runner
from .settings import Settings
from .steady import MAX_ROUNDS, window

MEASUREMENT = "gc"
UNIT = 4096
#: The spares the calibration may choose between (shares of the namespace beyond GC's reserve).
MIN_SPARE, MAX_SPARE = 0.01, 1.5
#: The calibration stops once the inferred profile's IOPS are this close (log ratio) ...
CALIBRATION_TOLERANCE = 0.02
#: ... or after this many runs of the inferred profile.
CALIBRATION_RUNS = 6


@dataclass(frozen=True)
class SteadyState:
    """One row per round (``round``, ``iops``, ``mean_lat_us``, ``written_bytes``, ``hot``:
    the window ended near the throttling threshold, ``in_window``), whether steady state
    was reached, and the estimates."""

    table: pd.DataFrame
    steady: bool
    iops: float | None
    estimates: list[Estimate]


def measure_gc(runner: Runner, facts: Facts, settings: Settings, ramp_s: float = 0.0) -> SteadyState:
    """Purge, WIPC, and rounds until steady (see the module doc). Each window first writes
    for ``ramp_s`` unmeasured: what an SLC cache and write buffer absorb fast is not the
    steady state (a real drive written without pause keeps them full; a simulated drive's
    untimed rounds end with the cache folded)."""
    capacity = facts.size_bytes - facts.size_bytes % UNIT
    bs = min(128 << 10, facts.max_io_bytes)
    runner.purge(MEASUREMENT)
    runner.condition(
        Job("WIPC: twice the capacity in order", "write", bs, iodepth=32, io_size=2 * capacity), MEASUREMENT
    )
    rows = []
    written = 2 * capacity
    share = int(settings.gc_round_share * capacity) // UNIT * UNIT
    values: list[float] = []
    cooling = Cooling.start(runner, facts, MEASUREMENT, settle=True)
    for r in range(1, min(settings.gc_max_rounds, MAX_ROUNDS) + 1):
        # A drive that heats toward its throttling threshold over the rounds would bring
        # the throttle's steps into them: it cools between rounds, as far as idle cools it,
        # so a window that heats it to WCTEMP all the same starts where every other did
        # (the random writes that follow bring back whatever GC did meanwhile).
        cooling.before(written)
        runner.condition(
            Job(f"round {r}: random writes", "randwrite", UNIT, iodepth=32, io_size=share, seed=r), MEASUREMENT
        )
        job = Job(
            f"round {r}: window",
            "randwrite",
            UNIT,
            iodepth=32,
            runtime_s=settings.gc_window_s,
            ramp_s=ramp_s,
            seed=1000 + r,
        )
        d = runner.run(job, MEASUREMENT).main
        hot = cooling.after()
        written += share + d.bytes
        values.append(d.iops)
        rows.append(
            {"round": r, "iops": d.iops, "mean_lat_us": d.mean_lat_ns / 1e3, "written_bytes": written, "hot": hot}
        )
        w = window(values)
        if w is not None and w.steady:
            break
    w = window(values)
    steady = w is not None and w.steady
    table = pd.DataFrame(rows)
    table["in_window"] = table["round"] >= (w.first_round if steady and w is not None else len(rows) + 1)
    measurement = "SNIA PTS: purge, 2x capacity sequential, rounds of random 4 KiB writes at depth 32"
    if not steady:
        last = values[-1] if values else None
        estimate = Estimate(
            "steady_write_iops",
            last,
            "IOPS",
            None,
            measurement,
            f"no steady state within {len(values)} rounds: the last round's IOPS",
            "not inferred",
        )
        return SteadyState(table, False, None, [estimate])
    assert w is not None
    estimates = [
        Estimate(
            "steady_write_iops",
            w.average,
            "IOPS",
            w.data_excursion / 2,
            measurement,
            f"average of rounds {w.first_round} to {len(values)} (excursion {w.data_excursion / w.average:.1%}, "
            f"slope excursion {w.slope_excursion / w.average:.1%})",
        ),
        Estimate("steady_rounds", len(values), "rounds", None, measurement, "rounds until the window met both rules"),
    ]
    return SteadyState(table, True, w.average, estimates)


def calibrate_spare(
    facts: Facts, estimates: Mapping[str, Estimate], steady_iops: float, settings: Settings, ramp_s: float
) -> Estimate:
    """The spare share (room beyond GC's reserve, over the namespace) at which the profile
    the estimates describe, at the target's own size, reaches ``steady_iops`` through the
    same purge, WIPC and rounds (see the module doc). IOPS rise with the spare, roughly in
    proportion while the spare is small (write amplification goes as its inverse): from the
    default, the first step assumes that proportion, then secant steps on log IOPS against
    log spare until the measured IOPS are bracketed and false position after, until within
    ``CALIBRATION_TOLERANCE`` or ``CALIBRATION_RUNS`` runs."""
    measurement = "the inferred profile at the target's size, through the same purge, WIPC and rounds"
    tried: dict[float, float] = {}

    def error(x: float) -> float:
        """log IOPS over the measured, at spare ``exp(x)``."""
        spare = min(MAX_SPARE, max(MIN_SPARE, math.exp(x)))
        if spare not in tried:
            tried[spare] = inferred_steady_iops(facts, estimates, spare, settings, ramp_s)
        return math.log(tried[spare] / steady_iops)

    lo, hi = math.log(MIN_SPARE), math.log(MAX_SPARE)
    points = [(math.log(DEFAULT_SPARE), error(math.log(DEFAULT_SPARE)))]
    x = points[0][0] - points[0][1]
    for _ in range(CALIBRATION_RUNS - 1):
        x = min(hi, max(lo, x))
        y = error(x)
        if abs(y) <= CALIBRATION_TOLERANCE or any(x == p for p, _ in points):
            break
        points.append((x, y))
        below = [p for p in points if p[1] < 0]
        above = [p for p in points if p[1] > 0]
        if below and above:
            # Bracketed: false position between the nearest points on either side (the IOPS
            # step with whole blocks, so a secant through two points on one side may stall).
            (xa, ya), (xb, yb) = max(below, key=lambda p: p[1]), min(above, key=lambda p: p[1])
            x = xa - ya * (xb - xa) / (yb - ya)
        else:
            (xa, ya), (xb, yb) = points[-2], points[-1]
            slope = (yb - ya) / (xb - xa) if xb != xa and yb != ya else 1.0
            # Not bracketed yet: a secant step, at most a factor of four in the spare.
            x = xb - max(-math.log(4), min(math.log(4), yb / max(slope, 0.1)))
    best = min(tried, key=lambda spare: abs(math.log(tried[spare] / steady_iops)))
    off = math.log(tried[best] / steady_iops)
    if abs(off) > 0.05:
        why = f"no spare from {MIN_SPARE:.0%} to {MAX_SPARE:.0%} tried came within 5 % ({len(tried)} runs)"
        return Estimate("spare_share", None, "share", None, measurement, why, "not inferred")
    return Estimate(
        "spare_share",
        best,
        "share",
        None,
        measurement,
        f"IOPS {tried[best]:,.0f} against the measured {steady_iops:,.0f} ({off:+.1%}) after {len(tried)} runs "
        "(secant and false-position steps on log IOPS against log spare)",
    )


def inferred_steady_iops(
    facts: Facts, estimates: Mapping[str, Estimate], spare: float, settings: Settings, ramp_s: float
) -> float:
    """Steady-state random-write IOPS of the profile the estimates describe with ``spare``
    beyond GC's reserve, at the target's size, through :func:`measure_gc` (the last five
    rounds' average where no steady state came)."""
    from .profile import build_profile
    from .runner import TwinRunner

    chosen = dict(estimates)
    chosen["spare_share"] = Estimate("spare_share", spare, "share", None, "calibration", "candidate")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "candidate.toml"
        path.write_text(build_profile(facts, chosen).toml())
        runner = TwinRunner(path)
        try:
            state = measure_gc(runner, facts, settings, ramp_s)
        finally:
            runner.close()
    if state.iops is not None:
        return state.iops
    return float(state.table.iops.tail(5).mean())
