"""Whether the server keeps time, and at what scale it can: the time scale it picks for
itself (``--time-scale auto``) from its own round trip and the drive's fastest command, and
the watch that says so when replies run late while it serves.

A reply is on time when the server has the request in the twin's hands, and the twin's
thread free to write the reply, before the reply is due: the server's own path (socket,
dispatch, reply) must fit within the drive's service time stretched by the scale. So the
smallest scale that holds is the server's round trip over the drive's fastest command, with
a margin for the round trips slower than the typical one.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .feed import Snapshots

#: The share of the round trips the scale must cover (their 99th percentile) and the margin
#: above it: a scale is a power of two at least this many times the ratio.
ROUND_TRIP_QUANTILE = 0.99
MARGIN = 2.0
#: Late replies above this share of the last seconds' replies make the server say so.
LATE_SHARE_WARN = 0.01
#: The span the watch looks at, seconds of wall time (snapshots), and the replies it needs.
WATCH_S = 5
WATCH_MIN_REPLIES = 50


def power_of_two_at_least(x: float) -> int:
    """The smallest power of two not below ``x`` (1 for anything up to 1).

    >>> power_of_two_at_least(0.3), power_of_two_at_least(5.0), power_of_two_at_least(16.0)
    (1, 8, 16)
    """
    return 1 if x <= 1 else 1 << math.ceil(math.log2(x))


@dataclass(frozen=True)
class Calibration:
    """What ``--time-scale auto`` measured and chose."""

    round_trip_p99_s: float
    fastest_command_s: float
    time_scale: int
    exchanges: int

    @classmethod
    def of(cls, round_trips_s: list[float], fastest_command_s: float) -> Calibration:
        """The scale :func:`choose_time_scale` picks from these measurements."""
        return cls(
            quantile(round_trips_s, ROUND_TRIP_QUANTILE),
            fastest_command_s,
            choose_time_scale(round_trips_s, fastest_command_s),
            len(round_trips_s),
        )

    def text(self) -> str:
        return (
            f"time scale {self.time_scale} (auto: the server's round trip p99 {self.round_trip_p99_s * 1e6:.1f} us, "
            f"the drive's fastest command {self.fastest_command_s * 1e6:.2f} us)"
        )


def choose_time_scale(round_trips_s: list[float], fastest_command_s: float) -> int:
    """The smallest power of two at which the server's round trip (its 99th percentile, with
    :data:`MARGIN`) fits within the drive's fastest command.

    >>> choose_time_scale([20e-6] * 98 + [40e-6] * 2, 5e-6)
    16
    """
    return power_of_two_at_least(MARGIN * quantile(round_trips_s, ROUND_TRIP_QUANTILE) / fastest_command_s)


def quantile(values: list[float], q: float) -> float:
    """The value at or below which a share ``q`` of ``values`` lie (nearest rank).

    >>> quantile([3.0, 1.0, 2.0, 4.0], 0.5), quantile([3.0, 1.0, 2.0, 4.0], 0.99)
    (2.0, 4.0)
    """
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))]


def fastest_command_s(device: Any) -> float:
    """The drive's fastest command, simulated seconds: the shortest completion latency of
    4 KiB writes and reads at QD1, the kinds of command a client's smallest requests make,
    measured on a copy of the drive in its present state (the drive served is untouched)."""
    copy = device.copy()
    fastest = math.inf
    for rw in ("randwrite", "randread"):
        job = [f"--name={rw}", f"--rw={rw}", "--bs=4k", "--iodepth=1", "--size=64m", "--number_ios=64"]
        out = copy.run(job, seed=1).json["jobs"][0]
        side = out["write" if rw == "randwrite" else "read"]
        if side["clat_ns"]["N"]:
            fastest = min(fastest, float(side["clat_ns"]["min"]) / 1e9)
    return fastest if math.isfinite(fastest) else 1e-5


@dataclass
class LateWatch:
    """Watches the snapshots from a thread of its own and, the first time replies run late
    beyond :data:`LATE_SHARE_WARN` of the last :data:`WATCH_S` seconds, calls ``say`` once
    with the late share and the scale that would hold (kept in ``warning`` for the exit)."""

    snapshots: Snapshots
    say: Callable[[str], None]
    warning: str | None = None

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="late-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stops the watch (one that never started, as when the server failed to bind, too)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(1.0) and self.warning is None:
            found = late_warning(self.snapshots.last(WATCH_S))
            if found is not None:
                self.warning = found
                self.say(found)


def late_warning(recent: list[dict[str, Any]]) -> str | None:
    """The warning the last snapshots call for, if replies ran late beyond the threshold:
    the late share, the lateness p99, and the scale that would hold (the present scale
    times the power of two that covers the lateness over the typical stretched command).

    >>> s = {"replies": 100, "late_replies": 20, "lateness_p99_us": 300.0, "time_scale": 4.0,
    ...      "ops": {"read": {"lat_p50_us": 50.0, "completed": 100}, "write": {"lat_p50_us": 0.0, "completed": 0}}}
    >>> late_warning([s])
    '20.0 % of replies in the last 1 s were more than 20 us late (lateness p99 300 us); --time-scale 16 would hold'
    """
    replies = sum(s["replies"] for s in recent)
    late = sum(s["late_replies"] for s in recent)
    if replies < WATCH_MIN_REPLIES or late < LATE_SHARE_WARN * replies:
        return None
    scale = float(recent[-1]["time_scale"])
    lateness_us = max(s["lateness_p99_us"] for s in recent)
    typical = [
        op["lat_p50_us"] for s in recent for op in s["ops"].values() if op.get("completed") and op["lat_p50_us"] > 0
    ]
    stretched_us = scale * min(typical) if typical else 1.0
    holds = scale * power_of_two_at_least(1 + lateness_us / stretched_us)
    return (
        f"{100 * late / replies:.1f} % of replies in the last {len(recent)} s were more than 20 us late "
        f"(lateness p99 {lateness_us:,.0f} us); --time-scale {holds:g} would hold"
    )
