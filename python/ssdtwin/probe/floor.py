"""The drive's fixed path, measured on LBAs that hold no data: command costs, the cost per
4 KiB, the host link's ceiling and how many commands the firmware serves at once.

A read of an unmapped LBA touches no NAND: the controller answers from its map, so its
latency is all command fetch, firmware and link (profiles.md: "measured QD1 latencies of an
unmapped LBA (which touches no NAND: it is all link, firmware and host time)"). After a
purge the prober measures, at queue depth 1:

* reads of 4 KiB to 128 KiB: ``latency = a + b x units`` (units of 4 KiB), where ``b`` is
  the firmware's time per unit plus 4 KiB over the link, and ``a`` the per-command time;
* writes of the same sizes, acknowledged once their data is in the write buffer: the same
  line with the write command's time;

and, at depth: sequential reads of the largest I/O (the link's ceiling: nothing else limits
them), 4 KiB random reads at depths 1 to 128, whose highest IOPS the firmware cores bound
(unless the link does first), and 4 KiB random writes at depth 32 (where the link bounds the
reads, the cores these writes keep busy are a second lower bound). Little's law turns the
ceiling into a number of cores: with ``c`` cores each busy ``t`` per command, IOPS saturate
at ``c / t``.

What cannot be separated at the host: the command fetch and the completion post (latency
that holds no core) from the firmware's time (which does). The prober keeps the documented
defaults for the first two (700 + 400 ns) and gives the firmware the rest; the split moves
only where the firmware saturates, and there the number of cores is chosen so the ceiling
comes out as measured.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import pandas as pd

from .. import _ssdtwin
from ..device import DEFAULT_PROFILE
from .estimate import Estimate, fit_line
from .facts import Facts
from .runner import Job, Runner
from .settings import Settings

MEASUREMENT = "floor"
UNIT = 4096
#: Documented defaults (docs/profiles.md, "When the datasheet is silent").
COMMAND_FETCH_NS = 700
COMPLETION_POST_NS = 400
#: PCIe lanes in the order a tie is broken: consumer NVMe drives are x4, then x2.
LANE_PREFERENCE = (4, 2, 8, 1, 16)


@dataclass(frozen=True)
class Floor:
    """The fixed path: the table of points, the fitted lines and the estimates."""

    table: pd.DataFrame
    read_intercept_ns: float
    read_per_unit_ns: float
    write_intercept_ns: float | None
    write_per_unit_ns: float | None
    link_bytes_per_s: float
    read_iops_ceiling: float
    estimates: list[Estimate]

    def value(self, name: str) -> float | None:
        """The value of the estimate ``name``."""
        return next(e.value for e in self.estimates if e.name == name)


def io_sizes(facts: Facts) -> list[int]:
    """4 KiB to 128 KiB by powers of two, within the target's largest I/O.

    >>> io_sizes(Facts(1 << 30, 512, 32 << 10, "example"))
    [4096, 8192, 16384, 32768]
    """
    return [bs for bs in (4096 << k for k in range(6)) if bs <= facts.max_io_bytes]


def link_candidates() -> list[tuple[int, int, float]]:
    """Every PCIe generation and width with its payload bandwidth per direction, as the
    model computes it (default 256-byte payloads and 26 bytes of TLP overhead)."""
    out = []
    for lanes in LANE_PREFERENCE:
        for gen in range(1, 7):
            derived = _ssdtwin.derived(DEFAULT_PROFILE, [f"link.pcie_gen={gen}", f"link.pcie_lanes={lanes}"])
            out.append((gen, lanes, float(derived["link_bytes_per_sec"])))
    return out


#: The Max Payload Sizes PCIe allows (Device Control register), bytes, and the documented
#: default, kept where the link's ceiling was not reached.
PAYLOADS = (128, 256, 512, 1024, 2048, 4096)
DEFAULT_PAYLOAD = 256
#: 4 KiB reads at depth are link-bound when they reach this share of the link's ceiling.
LINK_BOUND = 0.95
#: A read ceiling is the link's plateau when depth 128 adds at most this share to depth 32.
PLATEAU = 0.02


@functools.cache
def link_rate(gen: int, lanes: int, payload: int) -> float:
    """Payload bandwidth per direction of a PCIe link, as the model computes it (default
    TLP overhead)."""
    overrides = [f"link.pcie_gen={gen}", f"link.pcie_lanes={lanes}", f"link.max_payload_bytes={payload}"]
    return float(_ssdtwin.derived(DEFAULT_PROFILE, overrides)["link_bytes_per_sec"])


def nearest_payload(gen: int, lanes: int, bytes_per_s: float) -> tuple[int, float]:
    """The Max Payload Size that brings the link's payload bandwidth nearest ``bytes_per_s``:
    the share of the raw rate that carries data is the payload's over payload and TLP
    overhead, so the measured ceiling tells the payload size once the link is chosen.

    >>> nearest_payload(2, 4, 1.66e9)[0]
    128
    """
    return min(((p, link_rate(gen, lanes, p)) for p in PAYLOADS), key=lambda c: abs(math.log(c[1] / bytes_per_s)))


def nearest_link(bytes_per_s: float) -> tuple[int, int, float]:
    """The PCIe generation and width whose bandwidth is nearest ``bytes_per_s`` (ties: the
    width consumer drives use most).

    >>> nearest_link(3.5e9)[:2]
    (3, 4)
    """
    return min(link_candidates(), key=lambda c: abs(math.log(c[2] / bytes_per_s)))


def measure_floor(runner: Runner, facts: Facts, settings: Settings, *, writes: bool = True) -> Floor:
    """Runs the fixed-path jobs on a purged target (``writes``: the QD1 write line too) and
    infers the command costs, the link and the firmware's parallelism."""
    rows = []
    sizes = io_sizes(facts)
    for bs in sizes:
        out = runner.run(Job(f"floor read {bs}", "randread", bs, number_ios=settings.qd1_ios), MEASUREMENT)
        rows.append(_row("qd1 read", "randread", bs, 1, out.main))
    write_rows = []
    if writes:
        for k, bs in enumerate(sizes):
            # A few writes per size after a pause: the write buffer must not fill, or the
            # latency would include waiting for programs.
            runner.idle(0.05, MEASUREMENT)
            job = Job(f"floor write {bs}", "write", bs, offset=k * (64 << 20), size=64 << 20, number_ios=16)
            out = runner.run(job, MEASUREMENT)
            write_rows.append(_row("qd1 write", "write", bs, 1, out.main))
    big = sizes[-1]
    for depth in (32, 128):
        out = runner.run(Job(f"link {depth}", "read", big, iodepth=depth, runtime_s=settings.point_s), MEASUREMENT)
        rows.append(_row("link", "read", big, depth, out.main))
    for depth in (1, 8, 32, 128):
        job = Job(f"firmware {depth}", "randread", UNIT, iodepth=depth, runtime_s=settings.point_s)
        rows.append(_row("firmware", "randread", UNIT, depth, runner.run(job, MEASUREMENT).main))
    reads = pd.DataFrame(rows)
    if writes and reads[reads.test == "firmware"].iops.max() * UNIT >= LINK_BOUND * link_ceiling(reads)[0]:
        # The link bounds the reads, so their ceiling leaves the cores unknown: writes at
        # depth, which hold a core longer, bound them from below.
        runner.idle(0.05, MEASUREMENT)
        job = Job("firmware write 32", "randwrite", UNIT, iodepth=32, size=64 << 20, runtime_s=settings.point_s)
        write_rows.append(_row("firmware write", "randwrite", UNIT, 32, runner.run(job, MEASUREMENT).main))
    table = pd.DataFrame(rows + write_rows)
    return infer_floor(table)


def _row(test: str, rw: str, bs: int, depth: int, d: object) -> dict[str, object]:
    from .runner import Direction

    assert isinstance(d, Direction)
    return {
        "test": test,
        "rw": rw,
        "bs": bs,
        "iodepth": depth,
        "iops": d.iops,
        "mb_per_s": d.bytes_per_s / 1e6,
        "mean_lat_us": d.mean_lat_ns / 1e3,
    }


def link_ceiling(table: pd.DataFrame) -> tuple[float, bool]:
    """The highest rate any read at depth reached (large sequential reads may stop short of
    the link, a per-command cost on it, where 4 KiB reads at depth fill it), and whether it
    is a plateau: the same within ``PLATEAU`` at depth 32 and 128, as a saturated link is.
    A rate still rising with depth is something else's, and only a lower bound on the link.

    >>> t = pd.DataFrame({"test": ["link", "link"], "iodepth": [32, 128], "mb_per_s": [1500.0, 1700.0]})
    >>> link_ceiling(t)
    (1700000000.0, False)
    """
    reads = table[table.test.isin(("link", "firmware")) & table.iodepth.isin((32, 128))]
    best = reads.loc[reads.mb_per_s.idxmax()]
    same = reads[reads.test == best.test].set_index("iodepth").mb_per_s
    saturated = len(same) == 2 and abs(same[128] / same[32] - 1) <= PLATEAU
    return float(best.mb_per_s * 1e6), bool(saturated)


def infer_floor(table: pd.DataFrame) -> Floor:
    """The estimates from a finished floor table (see the module doc)."""
    reads = table[table.test == "qd1 read"]
    line = fit_line(list(reads.bs / UNIT), list(reads.mean_lat_us * 1e3))
    link, saturated = link_ceiling(table)
    ceiling = float(table[table.test == "firmware"].iops.max())
    gen, lanes, link_model = nearest_link(link)
    payload = DEFAULT_PAYLOAD
    if saturated:
        payload, link_model = nearest_payload(gen, lanes, link)
    link_ns_per_unit = UNIT / link * 1e9
    unit_ns = max(0.0, line.slope - link_ns_per_unit)
    latency_4k = line.at(1)
    estimates = [
        Estimate(
            "unwritten_read_latency_ns",
            latency_4k,
            "ns",
            line.intercept_error + line.slope_error,
            "QD1 random reads of unmapped LBAs, 4 KiB to 128 KiB",
            "the fitted line at 4 KiB",
        ),
        Estimate(
            "link_bytes_per_s",
            link,
            "bytes/s",
            abs(link - link_model),
            "reads of unmapped LBAs at depth: 128 KiB sequential, 4 KiB random",
            f"the highest rate; nearest PCIe link: Gen{gen} x{lanes}, {payload}-byte payloads"
            f" ({link_model / 1e9:.2f} GB/s)" + ("" if saturated else "; still rising with depth: at least this"),
            "inferred" if saturated else "lower bound",
        ),
        Estimate("pcie_gen", gen, "generation", None, "link ceiling", "nearest link bandwidth"),
        Estimate("pcie_lanes", lanes, "lanes", None, "link ceiling", "nearest link bandwidth (ties: x4 first)"),
        Estimate(
            "max_payload_bytes",
            payload,
            "bytes",
            None,
            "link ceiling",
            "with the link chosen, the payload size whose share of the raw rate comes nearest the ceiling"
            if saturated
            else "default: the reads' rate still rose with depth, so the link's own ceiling was not reached",
            "inferred" if saturated else "not inferred",
        ),
        Estimate(
            "unit_ns",
            unit_ns,
            "ns",
            line.slope_error,
            "QD1 reads of unmapped LBAs against size",
            "slope per 4 KiB less 4 KiB at the link's rate",
        ),
    ]
    # The per-command firmware time: the intercept less the fixed fetch and post.
    fixed = COMMAND_FETCH_NS + COMPLETION_POST_NS
    read_cmd = max(0.0, line.intercept - fixed)
    per_read = read_cmd + unit_ns
    link_bound = ceiling * UNIT >= LINK_BOUND * link
    fetch, post = float(COMMAND_FETCH_NS), float(COMPLETION_POST_NS)
    writes = table[table.test == "qd1 write"]
    wline = fit_line(list(writes.bs / UNIT), list(writes.mean_lat_us * 1e3)) if len(writes) >= 2 else None
    if link_bound:
        # Enough cores that the firmware never binds before the link (5 % to spare), for
        # reads and for the 4 KiB writes at depth: Little's law on the writes' rate and the
        # core time each write holds (write command and one unit) counts the cores busy.
        cores = max(1, math.ceil(ceiling * per_read * 1.05e-9))
        deep_writes = table[table.test == "firmware write"]
        if wline is not None and len(deep_writes):
            per_write = max(0.0, wline.intercept - fixed) + unit_ns
            write_iops = float(deep_writes.iops.max())
            busy = write_iops * per_write * 1e-9
            # Writes that fill the link too: enough cores with 5 % to spare; writes bound short
            # of it (by the cores, or by programs): the whole cores they kept busy.
            cores = max(cores, math.ceil(busy * 1.05) if write_iops * UNIT >= LINK_BOUND * link else round(busy))
    else:
        cores = max(1, round(ceiling * per_read * 1e-9))
        # Little's law: the ceiling is cores over the time each read holds one; the time is
        # set so the ceiling comes out as measured with a whole number of cores, and what is
        # left of the intercept is fetch and post (shared as the defaults share it).
        per_read = cores / ceiling * 1e9
        read_cmd = max(0.0, per_read - unit_ns)
        rest = max(0.0, line.intercept - read_cmd)
        fetch, post = rest * COMMAND_FETCH_NS / fixed, rest * COMPLETION_POST_NS / fixed
    estimates += [
        Estimate(
            "read_iops_ceiling",
            ceiling,
            "IOPS",
            None,
            "4 KiB random reads of unmapped LBAs at depth 1 to 128",
            "the highest IOPS" + ("; the link bounds it" if link_bound else ""),
        ),
        Estimate(
            "controller_cores",
            cores,
            "cores",
            None,
            "IOPS ceiling x time per read (Little's law)",
            "the link saturates first: at least this many (for reads and for 4 KiB writes at depth 32)"
            if link_bound
            else "rounded to whole cores",
            "lower bound" if link_bound else "inferred",
        ),
        Estimate(
            "read_cmd_ns",
            read_cmd,
            "ns",
            line.intercept_error,
            "QD1 reads of unmapped LBAs and their IOPS ceiling",
            "the link bounds the ceiling: the line's intercept less the default fetch and post"
            if link_bound
            else "core time per read (cores / ceiling) less the per-unit time",
        ),
        Estimate(
            "command_fetch_ns",
            fetch,
            "ns",
            None,
            "QD1 reads of unmapped LBAs and their IOPS ceiling",
            "default" if link_bound else "the intercept less the core time, shared 7 : 4 with the post",
            "not inferred" if link_bound else "inferred",
        ),
        Estimate(
            "completion_post_ns",
            post,
            "ns",
            None,
            "QD1 reads of unmapped LBAs and their IOPS ceiling",
            "default" if link_bound else "the intercept less the core time, shared 7 : 4 with the fetch",
            "not inferred" if link_bound else "inferred",
        ),
    ]
    write_intercept = write_slope = None
    if wline is not None:
        write_intercept, write_slope = wline.intercept, wline.slope
        estimates.append(
            Estimate(
                "write_cmd_ns",
                max(0.0, wline.intercept - fetch - post),
                "ns",
                wline.intercept_error,
                "QD1 writes into the write buffer, 4 KiB to 128 KiB",
                "the line's intercept less the command fetch and completion post",
            )
        )
    return Floor(table, line.intercept, line.slope, write_intercept, write_slope, link, ceiling, estimates)
