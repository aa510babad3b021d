"""Inside the NAND array, from reads of a region written in order: tR, the program unit, the
number of dies, the channel rate, the time besides tR, and the channels.

A controller stripes consecutive program units (a page on every plane of one die) over its
dies, so data written in order lies program unit by program unit on die after die (Chen,
Lee and Zhang, "Essential roles of exploiting internal parallelism of flash memory based
solid state drives", HPCA 2011: chunks striped over domains). On a region written
sequentially from an empty drive the prober runs:

* **the unit scan**: 4 KiB random reads at depth 16 over the first ``k`` x 4 KiB, for
  ``k`` = 1, 2, 4 …. While the span lies in one program unit every read needs the same die,
  which serves one read per tR: IOPS = 1 / tR. The IOPS double once the span reaches a
  second die; the largest span still at the one-die rate is the program unit.
* **the die scan**: 4 KiB reads with a stride of one program unit (fio's ``rw=read:STRIDE``)
  over ``n`` program units, at depth 2 ``n``: each die gets its turn in order, so IOPS =
  ``min(n, dies) / tR`` until something else (firmware, link) bounds them. The highest
  ``IOPS x tR`` is the number of dies (a lower bound when the firmware's ceiling is reached
  first). ``n`` takes values such as 12, 24 and 48 so die counts that are not powers of two
  are met exactly.
* **the pair scan**, where the die scan reached the firmware's or the link's ceiling before
  running out of dies (so its count is only a lower bound): reads alternating between unit
  0 and unit ``k`` at depth 4, for ``k`` from that bound upward. Striped units ``0`` and
  ``k`` share a die exactly when ``k`` is a multiple of the die count, and then run at the
  one-die rate instead of the two-die rate (four reads in flight stay far below any
  ceiling): the first ``k`` that collides is the number of dies (confirmed at ``2k``).
* **the transfer line**: QD1 reads of 4 KiB up to one program unit: each reads one page
  register, so the latency grows by 4 KiB over the channel, the link and the firmware's per-
  unit time for every 4 KiB; less the unmapped line's slope (link and firmware), that is
  the channel's rate.
* **the channel scan**, where a read's transfer over a channel is long against tR (so two
  dies on one channel read visibly slower than two on two channels): reads of the largest
  size up to a unit that shows it, alternating between unit 0 and unit ``k`` at depth 4,
  for ``k`` from 2 up. Dies take the channels in turn, so units ``k`` apart share a channel
  when ``k`` is a multiple of the channel count: the first ``k`` that slows is the number
  of channels.
* **QD1 4 KiB reads**: less the unmapped-LBA latency, tR and the channel transfer, what is
  left is ECC decoding and the channel's command cycles (R2's decomposition, with the link
  and channel transfers measured rather than assumed).
* **sequential reads** at depth 32: when they run below the link's, the firmware's and the
  dies' ceilings, the channels bound them, and their number follows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from .estimate import Estimate, fit_line
from .facts import Facts
from .floor import UNIT, Floor
from .runner import Direction, Job, Runner
from .settings import Settings

#: Bytes written for a region the scans read (256 program units of up to 128 KiB).
REGION_BYTES = 32 << 20
#: Program units the die scan spreads reads over: powers of two and 1.5 times them, so die
#: counts such as 12, 24 or 48 are met exactly.
DIE_SCAN = (1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256)
#: The one-die rate is "held" while IOPS stay below this multiple of it.
ONE_DIE = 1.3
#: Documented default of the channel's command and address cycles (docs/profiles.md).
CHANNEL_CMD_NS = 100
#: The channel scan runs where two dies on one channel read at most this share of the rate
#: of two dies on two channels.
CHANNEL_SHARED = 0.7


@dataclass(frozen=True)
class Region:
    """What the scans found in one written region (``label`` says which)."""

    label: str
    offset: int
    table: pd.DataFrame
    qd1_read_ns: float
    tr_ns: float
    program_unit_bytes: int
    dies: int
    dies_bound: bool
    channel_bytes_per_s: float | None
    read_overhead_ns: float | None
    seq_read_bytes_per_s: float
    estimates: list[Estimate]


def write_region(runner: Runner, facts: Facts, offset: int, measurement: str) -> None:
    """Writes the region at ``offset`` in order, one 128 KiB write at a time, then waits
    half a second so the write buffer has reached NAND."""
    bs = min(128 << 10, facts.max_io_bytes)
    runner.run(Job("region write", "write", bs, offset=offset, size=REGION_BYTES), measurement)
    runner.idle(0.5, measurement)


def measure_region(
    runner: Runner, facts: Facts, floor: Floor, settings: Settings, offset: int, label: str, measurement: str
) -> Region:
    """Runs the scans on the region written at ``offset`` and infers what they show."""
    rows: list[dict[str, object]] = []

    def add(test: str, job: Job, x: int) -> Direction:
        d = runner.run(job, measurement).main
        rows.append(
            {"region": label, "test": test, "x": x, "iodepth": job.iodepth, "iops": d.iops}
            | {"mb_per_s": d.bytes_per_s / 1e6, "mean_lat_us": d.mean_lat_ns / 1e3}
        )
        return d

    qd1 = add(
        "qd1", Job("qd1 read", "randread", UNIT, offset=offset, size=REGION_BYTES, number_ios=settings.qd1_ios), 1
    )
    one = None
    unit = UNIT
    for k in (1 << i for i in range(7)):
        job = Job(
            f"unit scan {k}", "randread", UNIT, iodepth=16, offset=offset, size=k * UNIT, runtime_s=settings.point_s
        )
        d = add("unit scan", job, k)
        if one is None:
            one = d.iops
        elif d.iops < ONE_DIE * one:
            unit = k * UNIT
        else:
            break
    assert one is not None, "the unit scan ran"
    tr_ns = 1e9 / one
    best = 0.0
    for n in DIE_SCAN:
        if n * unit > REGION_BYTES:
            break
        rw = "read" if unit == UNIT else f"read:{unit - UNIT}"
        job = Job(
            f"die scan {n}", rw, UNIT, iodepth=min(2 * n, 512), offset=offset, size=n * unit, runtime_s=settings.point_s
        )
        best = max(best, add("die scan", job, n).iops)
    dies_float = best * tr_ns / 1e9
    pair = None
    if die_bound(best, floor) and 2e9 / tr_ns < 0.75 * floor.read_iops_ceiling:
        pair = pair_scan(runner, settings, offset, unit, max(2, math.ceil(dies_float)), add)
    transfer = []
    bs = UNIT
    while bs <= unit and bs <= facts.max_io_bytes:
        d = add(
            "transfer",
            Job(f"transfer {bs}", "randread", bs, offset=offset, size=REGION_BYTES, number_ios=settings.qd1_ios // 4),
            bs,
        )
        transfer.append((bs / UNIT, d.mean_lat_ns))
        bs *= 2
    dies = pair or max(1, round(dies_float))
    shared = None
    if len(transfer) >= 2:
        per_unit = fit_line([x for x, _ in transfer], [y for _, y in transfer]).slope - floor.read_per_unit_ns
        # The largest read of one unit whose transfer shows a shared channel, below the ceilings.
        sizes = [bs for bs in (unit >> i for i in range(8)) if UNIT <= bs <= min(unit, facts.max_io_bytes)]
        shows = [bs for bs in sizes if per_unit > 0 and channel_pairs_show(tr_ns, transfer_ns(per_unit, bs), bs, floor)]
        if shows:
            bs = shows[0]
            shared = channel_scan(runner, settings, offset, unit, bs, dies, tr_ns, transfer_ns(per_unit, bs), add)
    seq_bs = min(128 << 10, facts.max_io_bytes)
    seq = add(
        "sequential",
        Job(
            "sequential read", "read", seq_bs, iodepth=32, offset=offset, size=REGION_BYTES, runtime_s=settings.point_s
        ),
        seq_bs,
    )
    table = pd.DataFrame(rows)
    return infer_region(
        label, offset, table, floor, qd1.mean_lat_ns, tr_ns, unit, best, transfer, seq, facts, pair, shared
    )


def die_bound(best_iops: float, floor: Floor) -> bool:
    """Whether the die scan's best reached the firmware's or the link's ceiling (then the
    dies it shows are a lower bound)."""
    return best_iops >= 0.9 * min(floor.read_iops_ceiling, floor.link_bytes_per_s / UNIT)


def pair_scan(
    runner: Runner,
    settings: Settings,
    offset: int,
    unit: int,
    first: int,
    add: Callable[[str, Job, int], Direction],
) -> int | None:
    """The pair scan (see the module doc): the first ``k >= first`` at which units 0 and
    ``k`` share a die, confirmed at ``2k`` where the region holds it; None if no pair in the
    region collides."""
    units = (REGION_BYTES - UNIT) // unit

    def iops(k: int) -> float:
        job = Job(
            f"pair scan {k}",
            f"read:{k * unit - UNIT}",
            UNIT,
            iodepth=4,
            offset=offset,
            size=k * unit + UNIT,
            runtime_s=settings.point_s,
        )
        return add("pair scan", job, k).iops

    # Units 0 and 1 lie on two dies: the rate of a pair that does not collide.
    two = iops(1)
    for k in range(first, units + 1):
        if iops(k) < 0.75 * two and (2 * k > units or iops(2 * k) < 0.75 * two):
            return k
    return None


def transfer_ns(per_unit_ns: float, bs: int) -> float:
    """A read of ``bs`` bytes over the channel: command cycles, then ``bs`` at the time per
    4 KiB the transfer line measured."""
    return CHANNEL_CMD_NS + per_unit_ns * bs / UNIT


def distinct_pair_rate(tr_ns: float, read_transfer_ns: float) -> float:
    """Reads per second of two units on two dies of two channels, each die and its channel
    a pipeline (a tR, then the read over the channel)."""
    return 2e9 / max(tr_ns, read_transfer_ns)


def shared_pair_rate(tr_ns: float, read_transfer_ns: float) -> float:
    """The same two dies on one channel: the channel carries both reads."""
    return min(2e9 / tr_ns, 1e9 / read_transfer_ns)


def channel_pairs_show(tr_ns: float, read_transfer_ns: float, bs: int, floor: Floor) -> bool:
    """Whether two dies sharing a channel read ``bs`` visibly slower than two dies on two
    channels (the transfer is long against tR), with both below the firmware's and the
    link's ceilings.

    >>> channel_pairs_show(50e3, 82e3, 16384, Floor(None, 0, 0, None, None, 1.6e9, 4e5, []))
    True
    >>> channel_pairs_show(50e3, 10e3, 16384, Floor(None, 0, 0, None, None, 1.6e9, 4e5, []))
    False
    """
    distinct = distinct_pair_rate(tr_ns, read_transfer_ns)
    below = distinct < 0.75 * floor.read_iops_ceiling and distinct * bs < 0.75 * floor.link_bytes_per_s
    return below and shared_pair_rate(tr_ns, read_transfer_ns) < CHANNEL_SHARED * distinct


def channel_scan(
    runner: Runner,
    settings: Settings,
    offset: int,
    unit: int,
    bs: int,
    dies: int,
    tr_ns: float,
    read_transfer_ns: float,
    add: Callable[[str, Job, int], Direction],
) -> int | None:
    """The channel scan (see the module doc): the first ``k`` below the die count at which
    reads of ``bs`` (at most a unit) from units 0 and ``k`` slow to the shared-channel rate (confirmed at
    ``2k`` where that is no multiple of the dies); the die count if none does (one die a
    channel); None if units 0 and 1 do not run at the rate of two channels (the layout is
    not the one assumed)."""
    units = REGION_BYTES // unit - 1

    def rate(k: int) -> float:
        job = Job(
            f"channel scan {k}",
            f"read:{k * unit - bs}" if k * unit > bs else "read",
            bs,
            iodepth=4,
            offset=offset,
            size=(k + 1) * unit,
            runtime_s=settings.point_s,
        )
        return add("channel scan", job, k).iops

    two = rate(1)
    if abs(two / distinct_pair_rate(tr_ns, read_transfer_ns) - 1) > 0.25:
        return None
    limit = (two + shared_pair_rate(tr_ns, read_transfer_ns)) / 2
    for k in range(2, min(dies, units + 1)):
        if rate(k) < limit and (2 * k > units or (2 * k) % dies == 0 or rate(2 * k) < limit):
            return k
    return dies


def infer_region(
    label: str,
    offset: int,
    table: pd.DataFrame,
    floor: Floor,
    qd1_ns: float,
    tr_ns: float,
    unit: int,
    best_iops: float,
    transfer: list[tuple[float, float]],
    seq: Direction,
    facts: Facts,
    pair: int | None = None,
    shared: int | None = None,
) -> Region:
    """The estimates from the scans of one region (see the module doc)."""
    where = f"{label} region"
    one_die_bound = 1e9 / tr_ns >= 0.9 * floor.read_iops_ceiling
    dies_float = best_iops * tr_ns / 1e9
    dies_bound = die_bound(best_iops, floor)
    dies = max(1, math.floor(dies_float + 0.5)) if not dies_bound else max(1, math.floor(dies_float) + 1)
    dies_measurement = f"die scan of the {where}: reads striding one program unit at depth 2n"
    dies_method = "highest IOPS x tR" + (
        "; the firmware or link ceiling came first, so at least this" if dies_bound else ""
    )
    dies_error: float | None = None if dies_bound else 0.5
    if dies_bound and pair is not None:
        dies, dies_bound, dies_error = pair, False, 0.0
        dies_measurement = f"pair scan of the {where}: reads alternating between unit 0 and unit k at depth 4"
        dies_method = (
            f"units 0 and {pair} (and {2 * pair}) share a die, no nearer pair from the die scan's bound"
            f" ({dies_float:.1f}) on does: striped units collide at multiples of the die count"
        )
    estimates = [
        Estimate(
            f"{label}_qd1_read_latency_ns",
            qd1_ns,
            "ns",
            None,
            f"QD1 4 KiB random reads over the {where}",
            "fio's mean latency",
        ),
        Estimate(
            f"{label}_tr_ns",
            tr_ns,
            "ns",
            tr_ns * 0.01,
            f"unit scan of the {where}: 4 KiB reads at depth 16 within one program unit",
            "one die serves one read per tR: tR = 1 / IOPS",
            "upper bound" if one_die_bound else "inferred",
        ),
        Estimate(
            "program_unit_bytes",
            unit,
            "bytes",
            None,
            f"unit scan of the {where}",
            "the largest span read at the one-die rate",
        ),
        Estimate(
            "dies",
            dies,
            "dies",
            dies_error,
            dies_measurement,
            dies_method,
            "lower bound" if dies_bound else "inferred",
        ),
    ]
    channel = overhead = None
    if len(transfer) >= 2:
        line = fit_line([x for x, _ in transfer], [y for _, y in transfer])
        per_unit = line.slope - floor.read_per_unit_ns
        if per_unit > 0:
            channel = UNIT / per_unit * 1e9
            estimates.append(
                Estimate(
                    "channel_bytes_per_s",
                    channel,
                    "bytes/s",
                    channel * line.slope_error / per_unit,
                    f"QD1 reads of 4 KiB to one program unit in the {where}",
                    "4 KiB over (slope less the unmapped reads' slope)",
                )
            )
            overhead = qd1_ns - floor.value("unwritten_read_latency_ns") - tr_ns - per_unit  # type: ignore[operator]
            estimates.append(
                Estimate(
                    f"{label}_read_overhead_ns",
                    overhead,
                    "ns",
                    line.intercept_error,
                    f"QD1 4 KiB reads of the {where} and of unmapped LBAs",
                    "written less unmapped latency, less tR and the channel transfer: ECC and command cycles",
                )
            )
    if shared is not None:
        estimates.append(
            Estimate(
                "channels",
                shared,
                "channels",
                0.0,
                f"channel scan of the {where}: reads of unit 0 and unit k at depth 4",
                f"units 0 and {shared} read at the rate of one channel, no nearer pair does: striped dies take"
                " the channels in turn, so units a multiple of the channel count apart share one"
                if shared < dies
                else "no pair of units short of the die count shares a channel: one die a channel",
            )
        )
    return Region(
        label,
        offset,
        table,
        qd1_ns,
        tr_ns,
        unit,
        dies,
        dies_bound,
        channel,
        overhead,
        seq.bytes_per_s,
        estimates,
    )


def channels_from_sequential(
    region: Region, floor: Floor, cores: int, read_cmd_ns: float, unit_ns: float, seq_bs: int
) -> Estimate:
    """The number of channels, where sequential reads of the region ran below every other
    ceiling: each channel moves one program unit per ``command cycles + unit / rate``."""
    rate = region.seq_read_bytes_per_s
    measurement = f"sequential reads of the {region.label} region at depth 32"
    if region.channel_bytes_per_s is None:
        return Estimate("channels", None, "channels", None, measurement, "no channel rate measured", "not inferred")
    firmware = cores / ((read_cmd_ns + unit_ns * seq_bs / UNIT) * 1e-9) * seq_bs
    array = region.dies * region.program_unit_bytes / (region.tr_ns * 1e-9)
    others = min(floor.link_bytes_per_s, firmware, array)
    if rate >= 0.9 * others:
        return Estimate(
            "channels",
            None,
            "channels",
            None,
            measurement,
            f"the reads reached another ceiling ({others / 1e9:.2f} GB/s): the channels do not bound them",
            "not inferred",
        )
    per_unit_s = CHANNEL_CMD_NS * 1e-9 + region.program_unit_bytes / region.channel_bytes_per_s
    per_channel = region.program_unit_bytes / per_unit_s
    channels = rate / per_channel
    return Estimate(
        "channels",
        max(1, round(channels)),
        "channels",
        0.5,
        measurement,
        f"rate over one channel's ({per_channel / 1e6:.0f} MB/s: a program unit per command cycles and transfer)",
    )


def sample_tr(runner: Runner, settings: Settings, offsets: list[int], measurement: str) -> list[float]:
    """tR at each offset: 4 KiB reads of that one unit at depth 16, which all wait for its
    die, so IOPS = 1 / tR of the mode the unit is stored in. A ramp of a quarter of each
    point is left out of it: the first read after an idle wakes a drive whose host enabled
    APST, and waits for its power state's exit latency."""
    out = []
    for offset in offsets:
        job = Job(
            f"tR at {offset >> 20} MiB",
            "randread",
            UNIT,
            iodepth=16,
            offset=offset,
            size=UNIT,
            runtime_s=settings.point_s,
            ramp_s=settings.point_s / 4,
        )
        out.append(1e9 / runner.run(job, measurement).main.iops)
    return out


def spread_offsets(start: int, end: int, count: int = 8) -> list[int]:
    """``count`` 4 KiB-aligned offsets spread evenly over ``[start, end)``.

    >>> spread_offsets(0, 1 << 20, 4)
    [131072, 393216, 655360, 917504]
    """
    step = (end - start) / count
    return [int(start + (k + 0.5) * step) // UNIT * UNIT for k in range(count)]


def native_tr(samples: list[float], slc_tr_ns: float | None, measurement: str) -> tuple[Estimate, bool]:
    """tR of the native mode: the mean of the samples that read slower than ``slc_tr_ns``
    (freshly written data) by 30 % (data still in SLC reads faster), or of all of them
    without an SLC cache; and whether any did: if none did, written data has one mode only.
    The mean, not the slowest: units sit on different page types of their word lines, whose
    tR spreads around the mode's mean, and on dies that differ a little.

    >>> native_tr([30e3, 70e3, 80e3, 90e3], 30e3, "m")[0].value
    80000.0
    """
    slower = [s for s in samples if slc_tr_ns is not None and s > ONE_DIE * slc_tr_ns]
    chosen = slower or samples
    mean = sum(chosen) / len(chosen)
    estimate = Estimate(
        "native_tr_ns",
        mean,
        "ns",
        (max(chosen) - min(chosen)) / 2 if len(chosen) > 1 else mean * 0.01,
        measurement,
        f"the mean of the {len(slower)} of {len(samples)} units that read slower than freshly written data"
        if slc_tr_ns is not None
        else f"the mean of {len(samples)} units",
    )
    return estimate, bool(slower)
