"""The order of the measurements, and the result they add up to.

Each measurement needs the drive in a state the previous ones leave, so the order is fixed:

1. ``floor``: purge, reads of unmapped LBAs, QD1 writes (the fixed path, the link).
2. ``geometry``: purge, a region written in order from LBA 0, scanned (tR of freshly
   written data, program unit, dies, channel rate).
3. ``slc``: purge, the write cliff; then a region written after the cliff, scanned again
   (the native tR where freshly written data sat in SLC).
4. ``recovery``: idle periods and bursts (fold on idle, fold rate, fold on read).
5. ``fold-reads``: purge, half the cache written and read back at once.
6. ``map``: the rest of the drive written; latency against span.
7. ``qd``: the queue-depth sweep over written data.
8. ``suspend``: reads of written data, quiet and among writes (program suspend).
9. ``gc``: purge, SNIA PTS preconditioning and rounds to steady state.
10. ``lbaf``: each LBA format the drive lists, measured.

Measurements left out (``Settings.measurements``) or impossible on a target (no cache: no
recovery) are recorded with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd

from .. import realtime
from ..errors import ProbeError
from ..profile_text import Profile, check_profile
from .estimate import Estimate
from .facts import Facts
from .floor import Floor, measure_floor
from .gc import SteadyState, calibrate_spare, measure_gc
from .geometry import (
    REGION_BYTES,
    Region,
    channels_from_sequential,
    measure_region,
    native_tr,
    sample_tr,
    spread_offsets,
    write_region,
)
from .lbaf import Formats, measure_lbaf
from .map_cache import SEGMENT_SPAN, Coverage, fill_rest, measure_coverage
from .parallelism import QdSweep, measure_qd
from .profile import build_profile
from .runner import Job, Runner
from .settings import Settings
from .slc import Cliff, FoldReads, Recovery, measure_cliff, measure_fold_reads, measure_recovery
from .suspend import (
    Suspend,
    calibrate_program_time,
    measure_suspend,
    reads_wait_for_programs,
    writes_bound_by_link,
)

#: Called with a short label as each measurement starts.
Advance = Callable[[str], None] | None


@dataclass
class ProbeResult:
    """Everything a probe measured and inferred."""

    target: str
    facts: Facts
    settings: Settings
    floor: Floor | None = None
    first: Region | None = None
    native_tr: Estimate | None = None
    cliff: Cliff | None = None
    recovery: Recovery | None = None
    fold_reads: FoldReads | None = None
    coverage: Coverage | None = None
    qd: QdSweep | None = None
    suspend: Suspend | None = None
    gc: SteadyState | None = None
    lbaf: Formats | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    wall_s: float = 0.0
    #: Simulated seconds the probe ran (a twin's; 0 for a real drive).
    simulated_s: float = 0.0
    profile: Profile | None = None

    @property
    def estimates(self) -> dict[str, Estimate]:
        """Every estimate by name (a later measurement's wins over an earlier one's)."""
        out: dict[str, Estimate] = {}
        parts = (
            self.floor,
            self.first,
            self.cliff,
            self.recovery,
            self.fold_reads,
            self.coverage,
            self.qd,
            self.suspend,
            self.gc,
            self.lbaf,
        )
        for part in parts:
            for e in getattr(part, "estimates", None) or []:
                out[e.name] = e
        if self.native_tr is not None:
            out[self.native_tr.name] = self.native_tr
        return out

    def table(self) -> pd.DataFrame:
        """One row per estimate: name, value, unit, uncertainty, status, measurement, method."""
        return pd.DataFrame([e.record() for e in self.estimates.values()])

    def profile_toml(self) -> str:
        """The inferred profile as commented TOML (see :mod:`.profile`)."""
        if self.profile is None:
            self.profile = build_profile(self.facts, self.estimates)
        header = (
            f"Inferred by ssdtwin probe from {self.target}.\n"
            "Each field says whether it was measured (with its uncertainty and measurement),\n"
            "derived from measured values, or left at its documented default."
        )
        return self.profile.toml(header)


def settle(runner: Runner, result: ProbeResult, settings: Settings, say: Callable[[str], None]) -> None:
    """Lets folding empty the SLC cache before quiet measurements: what it takes to fold a
    full cache at the post-cache rate, half as long again (at most ``settle_max_s``), after a
    read if reads are what start folding."""
    cliff = result.cliff
    assert cliff is not None and cliff.cache_bytes is not None
    rate = cliff.post_cache_bytes_per_s or cliff.in_cache_bytes_per_s
    seconds = min(settings.settle_max_s, 1.5 * cliff.cache_bytes / rate)
    on_read = result.estimates.get("fold_on_read")
    say(f"settling: {seconds:.0f} s for folding")
    if on_read is not None and on_read.value:
        runner.run(Job("start folding", "randread", 4096, size=1 << 20, number_ios=4), "settle")
    runner.idle(seconds, "settle")


def map_hit_cost(result: ProbeResult, floor: Floor) -> list[Estimate]:
    """The firmware time a cached-map hit adds, where the queue-depth sweep's ceiling is the
    firmware's: ``cores / ceiling`` is the core time per read (Little's law), less what the
    unmapped reads showed a read costs."""
    assert result.qd is not None
    ceiling = float(result.qd.table.iops.max())
    est = result.estimates
    dies, tr = est.get("dies"), result.native_tr
    if dies is None or dies.value is None or tr is None or tr.value is None:
        return []
    if ceiling >= 0.9 * dies.value / (tr.value * 1e-9):
        return []
    cores = float(floor.value("controller_cores") or 1)
    per_read = cores / ceiling * 1e9
    extra = per_read - float(floor.value("read_cmd_ns") or 0.0) - float(floor.value("unit_ns") or 0.0)
    return [
        Estimate(
            "map_hmb_hit_ns",
            max(0.0, extra),
            "ns",
            None,
            "4 KiB random reads of written data within the map's coverage, at depth (the ceiling)",
            "the ceiling is the firmware's (below the dies'): cores / ceiling less an unmapped read's core time",
        )
    ]


def buffer_not_cache(cliff: Cliff, e: Estimate) -> Estimate:
    """The cliff's estimates when the fast phase was a write buffer, not an SLC cache."""
    why = "freshly written data reads at the native tR: no SLC mode; the fast phase filled a write buffer"
    if e.name == "slc_cache_bytes" and e.value is not None:
        # The buffer drained at the post-cache rate while it filled at the in-cache rate.
        drained = 1 - (cliff.post_cache_bytes_per_s or 0.0) / cliff.in_cache_bytes_per_s
        value, error = e.value * drained, (e.uncertainty or 0.0) * drained
        return Estimate("write_buffer_bytes", value, "bytes", error, e.measurement, why + ", draining meanwhile")
    if e.name == "slc_write_bytes_per_s":
        return Estimate("buffer_write_bytes_per_s", e.value, "bytes/s", None, e.measurement, why)
    return e


def probe(
    runner: Runner, facts: Facts, settings: Settings, *, target: str = "", advance: Advance = None
) -> ProbeResult:
    """Runs the measurements ``settings`` asks for on ``runner``'s target, in order."""
    start, simulated_before = time.monotonic(), realtime.simulated_ns()
    result = ProbeResult(target or runner.description, facts, settings)
    say = advance or (lambda _label: None)
    if facts.size_bytes < 4 * REGION_BYTES:
        raise ProbeError(f"the target holds {facts.size_bytes} bytes; probing needs at least {4 * REGION_BYTES}")
    writable = runner.writable
    if not settings.wants("floor"):
        raise ProbeError("every probe starts with the floor measurement (the other inferences rest on it)")

    def skip(name: str, why: str) -> None:
        if settings.wants(name):
            result.skipped[name] = why

    say("floor: unmapped reads, QD1 writes, link")
    if writable:
        runner.purge("floor")
    floor = result.floor = measure_floor(runner, facts, settings, writes=writable)
    if not writable:
        for name in ("geometry", "slc", "recovery", "fold-reads", "suspend", "gc", "lbaf"):
            skip(name, "it writes; the probe is read-only")

    if writable and settings.wants("geometry"):
        say("geometry: a region written in order, scanned")
        runner.purge("geometry")
        write_region(runner, facts, 0, "geometry")
        result.first = measure_region(runner, facts, floor, settings, 0, "first", "geometry")
        seq_bs = min(128 << 10, facts.max_io_bytes)
        cores = int(floor.value("controller_cores") or 1)
        read_cmd, unit_ns = float(floor.value("read_cmd_ns") or 0.0), float(floor.value("unit_ns") or 0.0)
        if not any(e.name == "channels" and e.value for e in result.first.estimates):
            result.first.estimates.append(
                channels_from_sequential(result.first, floor, cores, read_cmd, unit_ns, seq_bs)
            )
    slc_tr = result.first.tr_ns if result.first is not None else None
    written = REGION_BYTES if result.first is not None else 0

    if writable and settings.wants("slc"):
        say("slc: the write cliff")
        result.cliff = measure_cliff(runner, facts, settings, floor.link_bytes_per_s)
        written = result.cliff.written_bytes
    cliff = result.cliff
    cache = cliff.cache_bytes if cliff is not None and cliff.found else None
    if writable and cache is None:
        for name in ("recovery", "fold-reads"):
            skip(name, "no SLC cache was found" if cliff is not None else "the write cliff was not measured")
    if writable and cache is not None and settings.wants("recovery"):
        say("recovery: idle, then bursts")
        assert cliff is not None
        result.recovery = measure_recovery(runner, facts, settings, cliff, floor.link_bytes_per_s)
        written = int(min(facts.size_bytes, written + result.recovery.table.burst_bytes.sum()))
    coverage_start = 0
    if writable and cache is not None and settings.wants("fold-reads"):
        say("fold-reads: reads right after writing")
        result.fold_reads = measure_fold_reads(runner, facts, settings, cache)
        written = int(cache / 2)
    if cache is not None:
        # Past what may sit in the SLC cache, so every span holds native data: a quarter of the
        # drive at least, since folding while the drive fills lets the cache's data spread.
        coverage_start = min(facts.size_bytes // 2, max(int(1.25 * cache) + (64 << 20), facts.size_bytes // 4))
        coverage_start -= coverage_start % (1 << 30) if coverage_start > 1 << 30 else coverage_start % (1 << 20)
    sample_from, sample_to = coverage_start, facts.size_bytes
    if writable and (settings.wants("map") or settings.wants("qd")):
        say("map: writing the rest of the drive")
        fill_rest(runner, facts, written)
    elif writable and result.fold_reads is not None:
        # fold-reads purged the drive and wrote half the cache: that is all it holds, and
        # settled it is native data (unwritten units would read at the firmware's speed).
        sample_from, sample_to = 0, written
    elif writable and cliff is not None:
        # The drive was written only as far as the cliff test went: sample what it wrote
        # past the cache.
        sample_from = min(int(cache or 0) + (64 << 20), cliff.written_bytes - (64 << 20))
        sample_to = cliff.written_bytes
    elif result.first is not None:
        sample_from, sample_to = 0, REGION_BYTES
    if writable and cache is not None:
        settle(runner, result, settings, say)
    if result.first is not None or not writable:
        say("native tR: units of the written drive")
        offsets = spread_offsets(sample_from, sample_to)
        samples = sample_tr(runner, settings, offsets, "native")
        where = "tR of 8 units spread over the drive once written and settled"
        result.native_tr, two_modes = native_tr(samples, slc_tr if cache is not None else None, where)
        if cliff is not None and cache is not None and not two_modes:
            # Written data reads no faster fresh than settled: no SLC mode. The fast start of
            # the fill was a write buffer (a power-protected DRAM cache) filling.
            cliff.estimates[:] = [buffer_not_cache(cliff, est) for est in cliff.estimates]
    hint = (
        result.native_tr.value if result.native_tr is not None and result.native_tr.value else 0.0
    ) + floor.read_intercept_ns * 2
    if settings.wants("map"):
        say("map: latency against span")
        result.coverage = measure_coverage(runner, facts, settings, coverage_start, hint)
    if settings.wants("qd"):
        say("qd: queue-depth sweep")
        span = facts.size_bytes - coverage_start
        coverage = result.coverage.coverage_bytes if result.coverage is not None else None
        if coverage is not None:
            span = int(min(span, coverage / 2))
        span -= span % (1 << 20)
        tr = result.native_tr.value if result.native_tr is not None else None
        # Enough reads to touch every translation page of the span six times, at QD1.
        warm = 0.0 if coverage is None else min(settings.span_ramp_max_s, 6 * span / SEGMENT_SPAN * hint * 1e-9)
        result.qd = measure_qd(runner, settings, coverage_start, span, tr, warm)
        if coverage is not None:
            result.qd.estimates.extend(map_hit_cost(result, floor))
    if writable and settings.wants("suspend"):
        if not (settings.wants("map") or settings.wants("qd")):
            skip("suspend", "it reads the written drive among writes: it needs the fill that map or qd make")
        else:
            say("suspend: reads among writes")
            # The whole written drive: few reads then find what the writes just wrote
            # still in the write buffer.
            span = sample_to - sample_from
            span -= span % (1 << 20)
            est = result.estimates
            dies, unit = est.get("dies"), est.get("program_unit_bytes")
            link_bound = writes_bound_by_link(est)
            # A drive idle long enough has folded its SLC cache: writes measured at once
            # would program SLC pages, not the native ones the geometry describes. The ramp
            # fills the cache at its own rate first (a tenth more for what folds meanwhile).
            fill_cache_s = 0.0
            if cliff is not None and cliff.found and cliff.in_cache_bytes_per_s:
                fill_cache_s = 1.1 * (cliff.cache_bytes or 0.0) / cliff.in_cache_bytes_per_s
            result.suspend = measure_suspend(
                runner,
                facts,
                settings,
                sample_from,
                span,
                dies.value if dies is not None else None,
                unit.value if unit is not None else None,
                link_bound,
                fill_cache_s,
            )
            if link_bound and reads_wait_for_programs(result.estimates):
                say("suspend: the program time that gives the reads among writes")
                result.suspend.estimates.append(
                    calibrate_program_time(facts, result.estimates, settings, sample_from, span, result.suspend)
                )
    if writable and settings.wants("gc"):
        say("gc: SNIA PTS preconditioning and rounds to steady state")
        # At least a window long, and long enough to fill the cache (or buffer) twice over at
        # its own rate: a write buffer too small for the cliff to show is filled all the same.
        ramp = settings.gc_window_s
        if cliff is not None and cliff.found:
            ramp = max(ramp, 2 * (cliff.cache_bytes or 0.0) / cliff.in_cache_bytes_per_s)
        result.gc = measure_gc(runner, facts, settings, ramp)
        if result.gc.iops is not None:
            say("gc: the spare space that gives the steady-state IOPS")
            result.gc.estimates.append(calibrate_spare(facts, result.estimates, result.gc.iops, settings, ramp))
            native = result.estimates.get("native_write_bytes_per_s")
            if native is not None and native.value:
                result.gc.estimates.append(
                    Estimate(
                        "steady_write_amplification",
                        native.value / (result.gc.iops * 4096),
                        "x",
                        None,
                        "steady-state IOPS and the post-cache write rate",
                        "NAND program rate over host write rate, programs being what bounds both",
                    )
                )
    if writable and settings.wants("lbaf"):
        if len(facts.lba_formats) < 2:
            skip("lbaf", "the drive lists one LBA format")
        elif not runner.can_format:
            skip("lbaf", "this target cannot be formatted from here (nvme format on the drive itself)")
        else:
            say("lbaf: every LBA format, measured")
            result.lbaf = measure_lbaf(runner, facts, settings)
    result.wall_s = time.monotonic() - start
    result.simulated_s = (realtime.simulated_ns() - simulated_before) / 1e9
    check_profile(result.profile_toml())
    return result
