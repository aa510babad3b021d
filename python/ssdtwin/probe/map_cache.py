"""Map-cache coverage: QD1 random-read latency against the LBA span read (R1's method, at
queue depth 1), on a drive written end to end.

A drive that caches its logical-to-physical map (SRAM, HMB) reads a span its cache covers
with no extra NAND read; beyond it, a share of reads first loads a translation page. With
reads spread evenly over ``S`` bytes and a cache covering ``C``, any replacement policy that
keeps what it loaded hits ``C / S`` of the time, so past the knee

    latency(S) = L_hit + Δ x (1 - C / S)

a straight line in ``1 / S`` (``Δ`` is what a miss adds). The prober reads spans from 16
MiB upward, doubling; where the latency ends in a rise that does not level off, it adds
spans between the last level point and the whole drive and fits the line there:
``C = slope / Δ``. A lower step that does level off (an SRAM tier in front of the HMB) is
a tier, not the cache's end. No rise up to the full span: the map is wholly cached (DRAM).

Each span warms the cache first: enough reads to touch every 4 MiB of it (a translation
page of 1024 four-byte entries) three times, at the latency the drive had just shown.
Spans start after the region the write-cliff test left in the SLC cache, so every span
holds data of one kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .estimate import Estimate, fit_line
from .facts import Facts
from .floor import UNIT
from .runner import Job, Runner
from .settings import Settings

MEASUREMENT = "map"
#: LBA span one translation page maps (4 B entries, 4 KiB pages): the warm-up's grain.
SEGMENT_SPAN = 4 << 20
#: A point is "level" with the one before while within this factor of it.
LEVEL = 1.05
#: The sweep ends in a rise (the cache's end) only if its last point is this much above the
#: one before: less is within what a drive (or the NBD path) varies by.
RISE = 1.10
#: Spans added between the last level point and the full span.
REFINE = 6
#: Latency within this factor of the smallest span's is "in the first tier".
TIER = 1.02


@dataclass(frozen=True)
class Coverage:
    """The sweep (``span_bytes``, ``iodepth``, ``refined``: a span added past the knee,
    ``iops``, ``mean_lat_us``) and the estimates."""

    table: pd.DataFrame
    coverage_bytes: float | None
    hit_latency_ns: float
    miss_penalty_ns: float | None
    estimates: list[Estimate]


def fill_rest(runner: Runner, facts: Facts, written: int, measurement: str = MEASUREMENT) -> None:
    """Writes the target sequentially from ``written`` to its end (128 KiB at depth 32), a
    64th of the target per job: a drive that throttles writes that fast for hours (a twin
    keeps its counter series per job, and bounds its length)."""
    bs = min(128 << 10, facts.max_io_bytes)
    start = written - written % bs
    chunk = max(facts.size_bytes // 64 // bs * bs, 256 << 20)
    if facts.size_bytes - start < bs:
        return
    while facts.size_bytes - start >= bs:
        size = min(chunk, (facts.size_bytes - start) // bs * bs)
        runner.condition(
            Job(f"fill from {start >> 20} MiB", "write", bs, iodepth=32, offset=start, size=size), measurement
        )
        start += size
    runner.idle(1.0, measurement)


def spans(start: int, end: int) -> list[int]:
    """16 MiB, 64 MiB, 256 MiB, then doubling, up to ``end - start``, which is the last.

    >>> [s >> 20 for s in spans(0, 3 << 30)]
    [16, 64, 256, 512, 1024, 2048, 3072]
    """
    room = end - start
    out = [s for s in (16 << 20, 64 << 20) if s < room]
    s = 256 << 20
    while s < room:
        out.append(s)
        s *= 2
    return [*out, room - room % UNIT]


def measure_coverage(
    runner: Runner, facts: Facts, settings: Settings, start: int, latency_hint_ns: float, depth_check: bool = True
) -> Coverage:
    """The sweep over spans from ``start`` (a drive written end to end), refined past the
    knee, and a depth-16 point at the full span (how many loads overlap)."""
    rows: list[dict[str, object]] = []
    hint = latency_hint_ns

    def point(span: int, depth: int = 1, refined: bool = False) -> None:
        nonlocal hint
        ramp = min(settings.span_ramp_max_s, 3 * span / SEGMENT_SPAN * hint * 1e-9)
        runtime = max(settings.point_s, settings.qd1_ios * hint * 1e-9)
        job = Job(
            f"span {span >> 20} MiB QD{depth}",
            "randread",
            UNIT,
            iodepth=depth,
            offset=start,
            size=span,
            runtime_s=runtime,
            ramp_s=ramp,
        )
        d = runner.run(job, MEASUREMENT).main
        if depth == 1:
            hint = d.mean_lat_ns
        rows.append(
            {
                "span_bytes": span,
                "iodepth": depth,
                "refined": refined,
                "iops": d.iops,
                "mean_lat_us": d.mean_lat_ns / 1e3,
            }
        )

    swept = spans(start, facts.size_bytes)
    for span in swept:
        point(span)
    table = pd.DataFrame(rows)
    knee = last_level(table)
    if knee is not None and knee < len(swept) - 1:
        low, high = swept[knee], swept[-1]
        for k in range(1, REFINE):
            span = int(low * (high / low) ** (k / REFINE))
            span -= span % UNIT
            if all(abs(span - s) > s * 0.02 for s in swept):
                point(span, refined=True)
    if depth_check:
        point(swept[-1], 16)
    table = pd.DataFrame(rows).sort_values(["iodepth", "span_bytes"], ignore_index=True)
    return infer_coverage(table, facts, start)


def last_level(table: pd.DataFrame) -> int | None:
    """Index of the last QD1 point level with the one before it (the sweep's last
    plateau), if the sweep ends in a rise beyond it; None if it ends level (or too short).

    >>> t = pd.DataFrame({"span_bytes": [1, 2, 4, 8, 16], "iodepth": 1, "mean_lat_us": [50, 60, 60, 61, 80]})
    >>> last_level(t)
    3
    """
    qd1 = table[table.iodepth == 1].sort_values("span_bytes")
    lat = list(qd1.mean_lat_us)
    if len(lat) < 3 or lat[-1] <= RISE * lat[-2]:
        return None
    for i in range(len(lat) - 2, 0, -1):
        if lat[i] <= LEVEL * lat[i - 1]:
            return i
    return 0


def infer_coverage(table: pd.DataFrame, facts: Facts, start: int) -> Coverage:
    """The coverage from a finished sweep (see the module doc)."""
    qd1 = table[table.iodepth == 1].sort_values("span_bytes", ignore_index=True)
    coarse = qd1[~qd1.refined].reset_index(drop=True)
    measurement = f"QD1 4 KiB random reads over spans from {start / 2**30:.1f} GiB, warmed"
    knee = last_level(coarse)
    full = float(qd1.span_bytes.iloc[-1])
    if knee is None:
        hit = float(qd1.mean_lat_us.iloc[-1] * 1e3)
        estimate = Estimate(
            "map_coverage_bytes",
            None,
            "bytes",
            None,
            measurement,
            f"latency level up to the full span ({full / 2**30:.1f} GiB): the whole map is cached",
            "absent",
        )
        return Coverage(table, None, hit, None, [estimate])
    level_span = float(coarse.span_bytes.iloc[knee])
    hit = float(coarse.mean_lat_us.iloc[knee] * 1e3)
    past = qd1[qd1.span_bytes > level_span]
    xs = [1 / float(s) for s in past.span_bytes]
    ys = [float(v) * 1e3 for v in past.mean_lat_us]
    estimates = []
    if len(past) >= 2:
        line = fit_line(xs, ys)
        delta = line.intercept - hit
        # A rise the line does not carry (slope within twice its error, or the wrong way) is
        # noise, not a cache running out.
        real = delta > 0 and line.slope < 0 and abs(line.slope) > 2 * line.slope_error
        coverage = -line.slope / delta if real else None
        error = None
        if coverage is not None:
            error = coverage * ((line.slope_error / abs(line.slope)) + line.intercept_error / delta)
            coverage = max(level_span, coverage)
    else:
        delta = float(past.mean_lat_us.iloc[0]) * 1e3 - hit
        coverage, error = level_span, full - level_span
    estimates.append(
        Estimate(
            "map_coverage_bytes",
            coverage,
            "bytes",
            error,
            measurement,
            "past the last level span, latency = a - b / span; coverage = b / (a - the level latency)",
            "inferred" if coverage is not None else "not inferred",
        )
    )
    estimates.append(
        Estimate(
            "map_miss_penalty_ns", delta, "ns", None, measurement, "the fitted line's limit less the level latency"
        )
    )
    # A lower tier (SRAM in front of an HMB): the smallest spans read faster than the level
    # before the knee. Its span is the last coarse span within 2 % of the first.
    first = float(coarse.mean_lat_us.iloc[0]) * 1e3
    if hit > TIER * first:
        within = coarse[coarse.mean_lat_us * 1e3 <= TIER * first]
        estimates.append(
            Estimate(
                "map_sram_span_bytes",
                float(within.span_bytes.iloc[-1]),
                "bytes",
                None,
                measurement,
                "the last span read as fast as the smallest: the first tier's span",
            )
        )
        estimates.append(
            Estimate(
                "map_hmb_hit_ns",
                hit - first,
                "ns",
                None,
                measurement,
                "the level before the knee less the latency within the first tier: a hit in the second tier",
            )
        )
    deep = table[table.iodepth > 1]
    if len(deep) and coverage is not None and delta > 0:
        iops = float(deep.iops.iloc[0])
        miss_share = max(0.0, 1 - coverage / float(deep.span_bytes.iloc[0]))
        loads = max(1, round(iops * miss_share * delta * 1e-9))
        deep_measurement = "4 KiB random reads at depth 16 over the full span"
        estimates.append(
            Estimate(
                "map_loads_in_flight",
                loads,
                "loads",
                None,
                deep_measurement,
                "Little's law: misses per second x a miss's time",
            )
        )
        if loads == 1 and miss_share > 0:
            # One load at a time: at depth the loads run back to back, so the time between
            # them is a load's whole service (what the QD1 penalty hides behind a skipped hit).
            estimates.append(
                Estimate(
                    "map_load_service_ns",
                    1e9 / (iops * miss_share),
                    "ns",
                    None,
                    deep_measurement,
                    "one load at a time: 1 / (IOPS x miss share)",
                )
            )
    return Coverage(table, coverage, hit, delta, estimates)
