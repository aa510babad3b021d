"""The server's snapshots as Python reads them: one a wall second, each the last second's
requests, bytes and latency percentiles by operation, queue depth, lateness of replies,
totals, and every counter of the drive (the names of :meth:`ssdtwin.Device.counters`)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from .. import _ssdtwin

#: Snapshots kept on the Python side: ten minutes at one a second.
KEPT = 600


class Snapshots:
    """Parsed snapshots of one server, read from its feed as they come (thread-safe)."""

    def __init__(self, feed: _ssdtwin.LiveFeed | None = None) -> None:
        self.feed = feed if feed is not None else _ssdtwin.LiveFeed()
        self._lock = threading.Lock()
        self._next = 0
        self._kept: list[dict[str, Any]] = []
        #: Index of ``_kept[0]`` among every snapshot read.
        self._first = 0

    def refresh(self) -> None:
        """Reads the snapshots the server pushed since the last call."""
        with self._lock:
            self._next, texts = self.feed.since(self._next)
            self._kept += [json.loads(t) for t in texts]
            drop = max(0, len(self._kept) - KEPT)
            self._kept, self._first = self._kept[drop:], self._first + drop

    def since(self, start: int) -> tuple[int, list[dict[str, Any]]]:
        """The snapshots from index ``start`` on, and the index to ask from next."""
        self.refresh()
        with self._lock:
            end = self._first + len(self._kept)
            return end, self._kept[max(0, start - self._first) :]

    def latest(self) -> dict[str, Any] | None:
        self.refresh()
        with self._lock:
            return self._kept[-1] if self._kept else None

    def wait_for(self, test: Callable[[dict[str, Any]], bool], timeout_s: float) -> bool:
        """Waits (polling every 50 ms) until a snapshot passes ``test``, at most ``timeout_s``
        of wall time; says whether one did."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            latest = self.latest()
            if latest is not None and test(latest):
                return True
            time.sleep(0.05)
        return False

    def last(self, n: int) -> list[dict[str, Any]]:
        """The last ``n`` snapshots, oldest first."""
        self.refresh()
        with self._lock:
            return self._kept[-n:]
