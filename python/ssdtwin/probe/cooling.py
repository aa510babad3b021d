"""Keeping a drive from throttling while a measurement writes: a thermal throttle lowers the
write rate as a full SLC cache or GC does, and would be read as one.

A drive reports its composite temperature in its SMART / Health Information log and the
threshold it throttles at in Identify Controller (WCTEMP). Where both are known (a twin; an
NVMe drive with nvme-cli), a measurement that writes in segments lets the drive idle before
a segment that could take it to the threshold, and marks a segment that ended near it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .facts import Facts
from .runner import Runner

#: The drive cools before a segment when its temperature plus this many times the last
#: segment's rise would reach WCTEMP ...
COOL_MARGIN = 1.5
#: ... idling this long at a time, at most this long before one segment ...
COOL_STEP_S = 30.0
COOL_MAX_S = 1800.0
#: ... and a segment that ends within this of WCTEMP may have throttled (the model's and
#: many drives' hysteresis is 2 K: a drive leaves throttling that far below the threshold).
THROTTLE_BAND_K = 2


@dataclass
class Cooling:
    """Keeps a drive that reports its temperature (:meth:`Runner.health`) and its throttling
    threshold (WCTEMP) from throttling while a measurement writes in segments (the write
    cliff's, GC's rounds).

    Before a segment: if the temperature plus ``COOL_MARGIN`` times the last segment's rise
    (and ``THROTTLE_BAND_K``) would reach WCTEMP, the drive idles (``COOL_STEP_S`` at a
    time, at most ``COOL_MAX_S``) until it is back below halfway between its temperature at
    rest and WCTEMP, or stops cooling (idle alone may hold it warmer); segments shrink while
    one segment's rise is more than that half. After each: a segment that ended within
    ``THROTTLE_BAND_K`` of WCTEMP, or with the over-temperature warning set, ran throttled
    for some of its time. Without a temperature this does nothing."""

    runner: Runner
    measurement: str
    wctemp_k: int | None
    rest_k: int | None
    rise_k: float = 0.0
    before_k: int | None = None
    cooled_at: list[int] = field(default_factory=list)
    shrink: int = 1
    settle: bool = False

    @classmethod
    def start(cls, runner: Runner, facts: Facts, measurement: str, *, settle: bool = False) -> Cooling:
        """Cooling for ``runner``'s drive, its temperature now taken as its rest. ``settle``:
        each cooling waits until idle no longer lowers the temperature, not only to halfway,
        so every segment after one starts from the same state (GC's rounds, whose windows
        may heat the drive to WCTEMP whatever it starts from)."""
        health = runner.health()
        if health is None or facts.wctemp_kelvin is None:
            return cls(runner, measurement, None, None, settle=settle)
        return cls(runner, measurement, facts.wctemp_kelvin, health.temperature_k, settle=settle)

    def segment(self, size: int) -> int:
        """The next segment's size: ``size``, halved while one segment heats the drive by
        more than half its room below WCTEMP."""
        if self.wctemp_k is not None and self.rest_k is not None:
            room = (self.wctemp_k - self.rest_k) / 2
            while self.rise_k / self.shrink > room / COOL_MARGIN and self.shrink < 64:
                self.shrink *= 2
        return max(size // self.shrink, 64 << 20)

    def before(self, written: int) -> None:
        """Lets the drive cool if the next segment could reach WCTEMP (``written``: where,
        for the record)."""
        if self.wctemp_k is None or self.rest_k is None:
            return
        health = self.runner.health()
        assert health is not None
        rise = self.rise_k / self.shrink
        target = 0.0 if self.settle else (self.rest_k + self.wctemp_k) / 2
        if health.temperature_k + COOL_MARGIN * rise + THROTTLE_BAND_K >= self.wctemp_k or health.over_temperature:
            waited = 0.0
            while health.temperature_k > target and waited < COOL_MAX_S:
                self.runner.idle(COOL_STEP_S, self.measurement, wake=False)
                waited += COOL_STEP_S
                was, health = health.temperature_k, self.runner.health()
                assert health is not None
                if health.temperature_k >= was:
                    break  # idle holds it this warm (or warmer): waiting does not help
            self.cooled_at.append(written)
        self.before_k = health.temperature_k

    def note_temperature(self) -> None:
        """Records the temperature a segment starts at, without cooling."""
        health = self.runner.health() if self.wctemp_k is not None else None
        self.before_k = health.temperature_k if health is not None else None

    def after(self) -> bool:
        """Whether the segment just written came near enough WCTEMP to have throttled."""
        if self.wctemp_k is None or self.before_k is None:
            return False
        health = self.runner.health()
        assert health is not None
        self.rise_k = max(0.0, float(health.temperature_k - self.before_k)) * self.shrink
        return health.over_temperature or health.temperature_k >= self.wctemp_k - THROTTLE_BAND_K
