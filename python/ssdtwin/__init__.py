"""ssdtwin: a fast, faithful digital twin of flash SSDs.

Describe a drive (a profile), run the fio jobs you would run on it, and get what the drive
would do (IOPS, bandwidth, latency percentiles over time) with the internals that explain
it (GC, write amplification, map-cache misses, SLC-cache occupancy).

>>> import ssdtwin
>>> dev = ssdtwin.Device()
>>> dev.fill("seq", percent=1)
>>> result = dev.run("--name=r --rw=randread --bs=4k --iodepth=32 --ioengine=libaio --size=1g --runtime=100ms".split())
>>> result.json["jobs"][0]["read"]["iops"] > 100_000
True
"""

from ._ssdtwin import __version__
from .device import (
    DEFAULT_HOST,
    DEFAULT_PROFILE,
    Device,
    RunResult,
    host_toml,
    hosts,
    profile_derived,
    profile_toml,
    profiles,
)
from .errors import (
    DeviceError,
    JobError,
    PoolError,
    PoolFullError,
    PoolUnavailableError,
    ProbeError,
    ProfileError,
    SsdtwinError,
    StateError,
    TraceError,
)
from .traces import convert_trace
from .zfs import Pool, disks, pools

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PROFILE",
    "Device",
    "DeviceError",
    "JobError",
    "Pool",
    "PoolError",
    "PoolFullError",
    "PoolUnavailableError",
    "ProbeError",
    "ProfileError",
    "RunResult",
    "SsdtwinError",
    "StateError",
    "TraceError",
    "__version__",
    "convert_trace",
    "disks",
    "host_toml",
    "hosts",
    "pools",
    "profile_derived",
    "profile_toml",
    "profiles",
]
