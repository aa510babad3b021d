"""The SLC cache from outside (R3's method and the reviews' whole-drive fill): the write
cliff, the rates around it, recovery after idle, and reads slowed by folding.

**The cliff.** From an empty drive, sequential 128 KiB writes at depth 32, their rate
logged every short interval (fio's bandwidth log), as AnandTech logs a whole-drive fill per
GB and TechPowerUp twice a second. The writes run in segments of a fixed size until the rate
has fallen and stayed down for a while, or the drive is full. In-cache rate: the median of
the intervals before the fall; the cache size: bytes written when the rate crossed halfway
between the two levels (interpolated inside the interval that straddles it, as
:func:`ssdtwin.studies.slc_write.knee` does); post-cache rate: the median after the fall.
No fall of a quarter over the whole drive means no SLC cache.

**Recovery.** After the cliff the cache is full. For each idle period ``t`` the drive sits
idle, then a burst of writes runs: what it writes at the in-cache rate before falling is what
folding freed during ``t``. No recovery at any ``t`` means the drive does not fold on idle
(R3: "does not recover within 20 s of idle"); otherwise the points give the fold rate and the
idle delay before folding starts.

**Reads during folding** (R3): from a purged drive, write half the cache, then read it back
at once, 128 KiB at queue depth 1, rate logged; then idle and read again for the baseline.
Reads that run slower at first and recover show folding competing for the dies.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .cooling import Cooling
from .estimate import Estimate, median
from .facts import Facts
from .runner import Job, Runner
from .settings import Settings

MEASUREMENT = "slc"
#: A fall to below this share of the in-cache rate, held, is the cliff.
FALL = 0.75
#: Intervals the rate must stay down to count as a fall (short dips are GC or noise).
HOLD = 3
#: Intervals logged per segment at the link's rate (more as the rate falls).
SAMPLES_PER_SEGMENT = 64
#: Writes an interval holds at least, at a tenth of the link's rate.
MIN_WRITES = 32


@dataclass(frozen=True)
class Cliff:
    """The write cliff: one row per logged interval (``written_bytes`` at its end,
    ``bytes_per_s``), the levels and where the rate fell, and the estimates."""

    table: pd.DataFrame
    found: bool
    cache_bytes: float | None
    in_cache_bytes_per_s: float
    post_cache_bytes_per_s: float | None
    written_bytes: int
    estimates: list[Estimate]


def write_bs(facts: Facts) -> int:
    """The size of each sequential write: 128 KiB, or the target's largest I/O below it."""
    return min(128 << 10, facts.max_io_bytes)


def segment_bytes(facts: Facts) -> int:
    """Bytes per write segment: a 64th of the target, at least 256 MiB, whole 128 KiB writes."""
    size = max(facts.size_bytes // 64, 256 << 20)
    return size - size % (1 << 20)


def log_interval(size: int, bs: int, link_bytes_per_s: float) -> float:
    """The bandwidth log's interval for writing ``size`` bytes: ``SAMPLES_PER_SEGMENT``
    intervals at the link's rate, but long enough for ``MIN_WRITES`` writes at a tenth of it
    (fewer writes per interval and the logged rate comes in steps of one write).

    >>> round(log_interval(256 << 20, 128 << 10, 3.5e9) * 1e3, 1)
    12.0
    """
    return max(size / link_bytes_per_s / SAMPLES_PER_SEGMENT, MIN_WRITES * bs / (link_bytes_per_s / 10))


def measure_cliff(runner: Runner, facts: Facts, settings: Settings, link_bytes_per_s: float) -> Cliff:
    """Purges the drive and writes it sequentially until the cliff is found and the rate
    after it has held for a while (at least 5 % of the drive), or the drive is full. Where
    the drive reports its temperature and throttling threshold, it is let cool before a
    segment that could reach the threshold (:class:`Cooling`), and intervals of a segment
    that ended near it are kept out of the inference: a thermal throttle is a fall in the
    rate too, and not the cache's."""
    runner.purge(MEASUREMENT)
    bs = write_bs(facts)
    segment = segment_bytes(facts)
    interval_s = log_interval(segment, bs, link_bytes_per_s)
    cooling = Cooling.start(runner, facts, MEASUREMENT)
    cliff = None
    written = 0
    samples: list[tuple[int, float, bool]] = []
    while written + bs <= facts.size_bytes:
        size = min(cooling.segment(segment), facts.size_bytes - written)
        size -= size % bs
        # Idling to cool would let the cache fold once it is full: past the cliff, segments
        # that ran hot are only left out.
        if cliff is None:
            cooling.before(written)
        else:
            cooling.note_temperature()
        job = Job(
            f"cliff {written >> 20} MiB", "write", bs, iodepth=32, offset=written, size=size, log_interval_s=interval_s
        )
        out = runner.run(job, MEASUREMENT)
        hot = cooling.after()
        done = written
        previous = 0.0
        for t, rate in out.bw_log:
            done += int(rate * (t - previous))
            previous = t
            samples.append((min(done, written + size), rate, hot))
        written += size
        cliff = find_cliff([(w, r) for w, r, h in samples if not h])
        if cliff is not None and written - cliff[0] >= max(2 * segment, facts.size_bytes // 20):
            break
    table = pd.DataFrame(samples, columns=["written_bytes", "bytes_per_s", "throttled"])
    return infer_cliff(table, written, cooling.cooled_at)


def levels(samples: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Where the rate fell and stayed down: (index of the first interval of each level, its
    median rate), the first level from index 0. A fall is ``HOLD`` intervals below ``FALL``
    times the current level; rises (folding freeing space for a while) are not levels. The
    last interval of a run is partial and left out.

    >>> s = [(k, 3500.0) for k in range(4)] + [(k, 700.0) for k in range(4, 14)] + [(k, 200.0) for k in range(14, 24)]
    >>> levels(s)
    [(0, 3500.0), (4, 700.0), (14, 200.0)]
    """
    rates = [r for _, r in samples][:-1]
    n = len(rates)
    if n < HOLD + 1:
        return [(0, median(rates))] if rates else []
    found = [(0, median(rates[: max(1, min(HOLD, n))]))]
    i = 1
    while i <= n - HOLD:
        level = found[-1][1]
        if all(r < FALL * level for r in rates[i : i + HOLD]):
            found.append((i, median(rates[i : i + max(HOLD, min(40, n - i))])))
            i += HOLD
        else:
            i += 1
    # Each level's rate over its whole span, now its end is known.
    ends = [start for start, _ in found[1:]] + [n]
    return [(start, median(rates[start:end])) for (start, _), end in zip(found, ends, strict=True)]


def find_cliff(samples: list[tuple[int, float]]) -> tuple[float, float, float] | None:
    """Where the rate fell to its last level: (bytes written at the fall, the rate of the
    level before, the last level's rate), or None without a fall. Earlier, shorter levels
    (a write buffer filling at the link's rate) come before it.

    >>> s = [(k * 100, 700.0) for k in range(1, 11)] + [(1000 + k * 30, 210.0) for k in range(1, 11)]
    >>> find_cliff(s)
    (1000.0, 700.0, 210.0)
    """
    found = levels(samples)
    if len(found) < 2:
        return None
    (_, before), (i, after) = found[-2], found[-1]
    rates = [r for _, r in samples]
    # The interval ending at sample i ran at `before` for a share of its time, then `after`.
    t_share = min(1.0, max(0.0, (rates[i] - after) / (before - after)))
    written_before = samples[i - 1][0] if i else 0
    width = samples[i][0] - written_before
    byte_share = t_share * before / (t_share * before + (1 - t_share) * after) if width else 0.0
    return written_before + byte_share * width, before, after


def infer_cliff(table: pd.DataFrame, written: int, cooled_at: list[int] | tuple[int, ...] = ()) -> Cliff:
    """The estimates from a finished cliff table (intervals marked ``throttled`` left out;
    ``cooled_at``: bytes written when the drive was let cool)."""
    kept = table[~table.throttled] if "throttled" in table.columns else table
    samples = list(zip(kept.written_bytes, kept.bytes_per_s, strict=True))
    measurement = "sequential 128 KiB writes at depth 32 after a purge, rate logged per interval"
    notes = []
    if cooled_at:
        notes.append(f"the drive let cool {len(cooled_at)} times near its throttling threshold")
    if len(kept) < len(table):
        notes.append(f"{len(table) - len(kept)} intervals of segments that reached it left out")
    if notes:
        measurement += f" ({'; '.join(notes)})"
    found = find_cliff(samples)
    if found is None:
        rate = median(list(kept.bytes_per_s)) if len(kept) else 0.0
        estimates = [
            Estimate(
                "slc_cache_bytes",
                0.0,
                "bytes",
                None,
                measurement,
                f"the rate held within {1 - FALL:.0%} of its start over {written / 2**30:.1f} GiB: no SLC cache",
                "absent",
            ),
            Estimate("native_write_bytes_per_s", rate, "bytes/s", None, measurement, "median rate over the fill"),
        ]
        return Cliff(table, False, None, rate, None, written, estimates)
    at, before, after = found
    i = next(k for k, (w, _) in enumerate(samples) if w >= at)
    cooled_before = [w for w in cooled_at if w < at]
    width = samples[i][0] - samples[i - 1][0] if i else samples[0][0]
    post = [r for w, r in samples[i + 1 : -1]]
    # The median absolute deviation: dips while GC or padding runs do not widen it.
    spread = 1.4826 * median([abs(r - after) for r in post]) if post else 0.0
    estimates = [
        Estimate(
            "slc_cache_bytes",
            at,
            "bytes",
            width / 2,
            measurement,
            "bytes written when the rate crossed halfway between its two levels"
            + (
                "; the drive cooled before the fall, and a cache that folds while idle grew meanwhile: at most this"
                if cooled_before
                else ""
            ),
        ),
        Estimate("slc_write_bytes_per_s", before, "bytes/s", None, measurement, "median rate before the cliff"),
        Estimate(
            "native_write_bytes_per_s",
            after,
            "bytes/s",
            spread,
            measurement,
            "median rate after the cliff (± the intervals' scaled median absolute deviation)",
        ),
    ]
    return Cliff(table, True, at, before, after, written, estimates)


@dataclass(frozen=True)
class Recovery:
    """Cache recovered after each idle period: one row per period (``idle_s``,
    ``recovered_bytes``), and the estimates."""

    table: pd.DataFrame
    estimates: list[Estimate]


def measure_recovery(
    runner: Runner, facts: Facts, settings: Settings, cliff: Cliff, link_bytes_per_s: float
) -> Recovery:
    """After the cliff: idle, then a burst; the burst's bytes at the in-cache rate are what
    folding freed (see the module doc). Folding programs native blocks, so it frees no more
    than the post-cache rate times the idle period: each burst is twice that (and at most
    1.25 times the cache), or it would spend the free space a dynamic cache lives in. If no
    idle period frees anything, reads may be what starts folding (R3's drive): the drive
    reads for ``settings.fold_read_s``, then bursts once more."""
    assert cliff.found and cliff.cache_bytes is not None, "recovery needs a cache that was found full"
    assert cliff.post_cache_bytes_per_s is not None
    bs = write_bs(facts)
    state = {"written": cliff.written_bytes}
    rows: list[dict[str, object]] = []

    def burst(trigger: str, seconds: float) -> None:
        size = int(min(1.25 * cliff.cache_bytes, 2 * cliff.post_cache_bytes_per_s * seconds + 64 * bs))  # type: ignore[operator]
        size = min(size, facts.size_bytes - state["written"])
        size -= size % bs
        if size < 16 * bs:
            return
        if trigger == "idle":
            # No wake-up read: where reads start folding it would free what the idle did not
            # (the burst measures bandwidth, which one exit latency barely moves).
            runner.idle(seconds, "recovery", wake=False)
        else:
            read = Job("reads before a burst", "read", bs, size=int(cliff.cache_bytes or bs), runtime_s=seconds)
            runner.run(read, "recovery")
        interval_s = log_interval(size, bs, link_bytes_per_s)
        job = Job(
            f"burst after {seconds:g} s of {trigger}",
            "write",
            bs,
            iodepth=32,
            offset=state["written"],
            size=size,
            log_interval_s=interval_s,
        )
        fast = 0.0
        previous = 0.0
        for t, rate in runner.run(job, "recovery").bw_log:
            if rate < FALL * cliff.in_cache_bytes_per_s:
                break
            fast += rate * (t - previous)
            previous = t
        state["written"] += size
        rows.append({"trigger": trigger, "seconds": seconds, "recovered_bytes": fast, "burst_bytes": size})

    for idle_s in settings.recovery_idle_s:
        burst("idle", idle_s)
    table = pd.DataFrame(rows, columns=["trigger", "seconds", "recovered_bytes", "burst_bytes"])
    estimates = infer_recovery(table, cliff)
    if estimates[0].status == "absent" and settings.fold_read_s > 0:
        burst("reads", settings.fold_read_s)
        table = pd.DataFrame(rows, columns=["trigger", "seconds", "recovered_bytes", "burst_bytes"])
        estimates.append(infer_read_trigger(table))
    return Recovery(table, estimates)


def _net(table: pd.DataFrame) -> pd.DataFrame:
    """Idle rows with what each burst gained beyond the least any burst got (the write
    buffer's share, which needs no folding)."""
    idle = table[table.trigger == "idle"]
    return idle.assign(net_bytes=idle.recovered_bytes - idle.recovered_bytes.min())


def infer_recovery(table: pd.DataFrame, cliff: Cliff) -> list[Estimate]:
    """Fold on idle or not; the fold rate and the idle delay before folding starts."""
    measurement = "idle, then sequential 128 KiB writes at depth 32; bytes at the in-cache rate"
    assert cliff.cache_bytes is not None
    net = _net(table)
    longest = float(net.seconds.max()) if len(net) else 0.0
    grew = net[net.net_bytes > 64 << 20]
    if grew.empty:
        return [
            Estimate(
                "fold_idle_ms",
                None,
                "ms",
                None,
                measurement,
                f"no cache recovered after up to {longest:g} s idle: the drive does not fold on idle",
                "absent",
            )
        ]
    points = [(float(r.seconds), float(r.net_bytes)) for r in grew.itertuples()]
    unsaturated = [p for p in points if p[1] < 0.9 * cliff.cache_bytes] or points
    (t0, r0), (t1, r1) = (unsaturated[-2], unsaturated[-1]) if len(unsaturated) >= 2 else ((0.0, 0.0), unsaturated[0])
    rate = (r1 - r0) / (t1 - t0)
    first_t = points[0][0]
    before = net[net.seconds < first_t]
    floor_t = float(before.seconds.max()) if not before.empty else 0.0
    delay_s = min(first_t, max(floor_t, t1 - r1 / rate)) if rate > 0 else floor_t
    return [
        Estimate(
            "fold_bytes_per_s",
            rate,
            "bytes/s",
            None,
            measurement,
            "cache recovered per second of idle, between the two longest periods short of a full cache",
        ),
        Estimate(
            "fold_idle_ms",
            delay_s * 1000,
            "ms",
            (first_t - floor_t) * 500,
            measurement,
            "idle before folding starts: where the recovery line meets zero, between the last period that "
            "recovered nothing and the first that did",
        ),
    ]


def infer_read_trigger(table: pd.DataFrame) -> Estimate:
    """Whether reads start folding: the burst after reading gained what idle bursts did not."""
    idle = table[table.trigger == "idle"].recovered_bytes
    read = table[table.trigger == "reads"].recovered_bytes
    gained = float(read.iloc[0] - idle.min()) if len(read) and len(idle) else 0.0
    measurement = "reads for a while, then sequential 128 KiB writes at depth 32"
    if gained > 64 << 20:
        return Estimate(
            "fold_on_read",
            1.0,
            "bool",
            None,
            measurement,
            f"{gained / 2**30:.2f} GiB recovered after reads, none after idle",
        )
    return Estimate("fold_on_read", 0.0, "bool", None, measurement, "nothing recovered after reads either", "absent")


@dataclass(frozen=True)
class FoldReads:
    """Reads right after writing: one row per logged interval (``t_s``, ``bytes_per_s``),
    and the estimates."""

    table: pd.DataFrame
    estimates: list[Estimate]


def measure_fold_reads(runner: Runner, facts: Facts, settings: Settings, cache_bytes: float) -> FoldReads:
    """Purge, write half the cache, and read it back at once, 128 KiB at QD1, for
    ``settings.fold_read_s``, the rate logged 50 times."""
    runner.purge("fold-reads")
    bs = write_bs(facts)
    size = int(cache_bytes / 2)
    size -= size % bs
    runner.run(Job("fill half the cache", "write", bs, iodepth=32, size=size), "fold-reads")
    interval = settings.fold_read_s / 50
    job = Job("reads after writing", "read", bs, size=size, runtime_s=settings.fold_read_s, log_interval_s=interval)
    rows = [{"t_s": t, "bytes_per_s": rate} for t, rate in runner.run(job, "fold-reads").bw_log]
    table = pd.DataFrame(rows, columns=["t_s", "bytes_per_s"])
    return FoldReads(table, infer_fold_reads(table))


def infer_fold_reads(table: pd.DataFrame) -> list[Estimate]:
    """How much slower reads ran right after writing than at the end of the window (their
    baseline), and for how long."""
    measurement = "128 KiB sequential reads at QD1 right after writing half the cache"
    rates = list(table.bytes_per_s)[:-1]
    times = list(table.t_s)[:-1]
    if len(rates) < 5:
        return []
    baseline = median(rates[-max(1, len(rates) // 5) :])
    slow = [r < 0.9 * baseline for r in rates]
    slowed_s = times[max(i for i, s in enumerate(slow) if s)] if any(slow) else 0.0
    return [
        Estimate("read_baseline_bytes_per_s", baseline, "bytes/s", None, measurement, "median of the last fifth"),
        Estimate(
            "read_during_fold_bytes_per_s",
            median([r for r, s in zip(rates, slow, strict=True) if s]) if any(slow) else baseline,
            "bytes/s",
            None,
            measurement,
            "median of the intervals more than 10 % below the baseline",
            "inferred" if any(slow) else "absent",
        ),
        Estimate(
            "reads_slowed_s",
            slowed_s,
            "s",
            None,
            measurement,
            "end of the last interval more than 10 % below the baseline"
            + ("" if slowed_s < times[-1] else "; still slow at the end of the window"),
            "inferred" if any(slow) else "absent",
        ),
    ]
