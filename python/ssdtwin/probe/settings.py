"""How long the prober measures: the length of each point and the optional steps.

Times are in the drive's seconds (a served twin's simulated seconds). A simulated drive
measures in virtual time, where a point costs simulated I/Os rather than wall time, so its
points can be short; a real drive is noisy and needs longer points.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

#: Every measurement the prober knows, in the order it runs them.
MEASUREMENTS = ("floor", "geometry", "slc", "recovery", "fold-reads", "map", "qd", "suspend", "gc", "lbaf")
#: The measurements that only read: what ``--read-only`` runs.
READ_ONLY = ("floor", "map", "qd")


@dataclass(frozen=True)
class Settings:
    """How long each kind of point runs, and which measurements run.

    >>> Settings.for_twin().point_s < Settings.for_device().point_s
    True
    """

    #: Seconds per throughput point (IOPS at a queue depth, a scan step).
    point_s: float = 2.0
    #: I/Os per queue-depth-1 latency point.
    qd1_ios: int = 2000
    #: Idle periods after the write cliff, each followed by a burst: cache recovery.
    recovery_idle_s: tuple[float, ...] = (2.0, 10.0, 60.0)
    #: How long reads are followed right after writing (reads slowed by folding, R3).
    fold_read_s: float = 10.0
    #: Longest wait for folding to empty the SLC cache before quiet measurements.
    settle_max_s: float = 3600.0
    #: Longest warm-up of one span of the map-coverage sweep.
    span_ramp_max_s: float = 10.0
    #: GC steady state: most rounds (SNIA PTS: 25), and each round's random 4 KiB writes
    #: as a share of the capacity, then its measurement window in seconds.
    gc_max_rounds: int = 25
    gc_round_share: float = 0.25
    gc_window_s: float = 2.0
    #: Measurements to run (a subset of :data:`MEASUREMENTS`).
    measurements: tuple[str, ...] = MEASUREMENTS

    @classmethod
    def for_twin(cls) -> Settings:
        """Short points: a simulated drive is deterministic and its time is virtual."""
        return cls(point_s=0.1, qd1_ios=1000, fold_read_s=10.0, gc_window_s=5.0)

    @classmethod
    def for_device(cls) -> Settings:
        """Points long enough to average a real drive's noise."""
        return cls()

    def only(self, names: tuple[str, ...]) -> Settings:
        """These settings running only ``names`` (in the prober's order)."""
        return replace(self, measurements=tuple(m for m in MEASUREMENTS if m in names))

    def wants(self, name: str) -> bool:
        """Whether the measurement ``name`` runs."""
        return name in self.measurements
