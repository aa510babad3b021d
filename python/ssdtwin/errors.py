"""The exceptions ssdtwin raises.

Every error the Rust core reports arrives as one of these classes, with the core's
one-line message unchanged. Bad input (profiles, jobs, options, state files) subclasses
``ValueError`` too, so generic handlers catch it; missing or unreadable files raise the
built-in ``FileNotFoundError`` and ``PermissionError``.
"""

from __future__ import annotations


class SsdtwinError(Exception):
    """Root of every ssdtwin error."""


class ProfileError(SsdtwinError, ValueError):
    """A device profile is malformed or a value is out of range (names file and field)."""


class JobError(SsdtwinError, ValueError):
    """A fio job or option is malformed, unsupported, or does not fit the device."""


class TraceError(SsdtwinError, ValueError):
    """A block trace is malformed."""


class StateError(SsdtwinError, ValueError):
    """A saved device state is damaged, from another version, or does not fit."""


class DeviceError(SsdtwinError, ValueError):
    """A device operation was refused (bad argument, or the device is busy)."""


class ProbeError(SsdtwinError, ValueError):
    """A probe cannot run: the target is refused (it is in use, holds data, or the flags
    that allow writing it are missing), or a measurement failed (fio reported an error)."""


class PoolError(SsdtwinError, ValueError):
    """A pool file, file tree, directory scan or zdb output is malformed or out of range, or
    names a dataset or device the pool does not have."""


class PoolUnavailableError(SsdtwinError):
    """The pool has lost a top-level vdev (a special vdev included): nothing on it can be read."""


class PoolFullError(SsdtwinError):
    """The pool's normal class has no room left for a block."""


__all__ = [
    "DeviceError",
    "JobError",
    "PoolError",
    "PoolFullError",
    "PoolUnavailableError",
    "ProbeError",
    "ProfileError",
    "SsdtwinError",
    "StateError",
    "TraceError",
]
