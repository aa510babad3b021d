"""Stubs of the compiled module ``ssdtwin._ssdtwin`` (see crates/ssdtwin-py)."""

from collections.abc import Callable
from typing import Any, final

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MEMORY_LIMIT_BYTES",
    "DEFAULT_POOL",
    "DEFAULT_PROFILE",
    "DEFAULT_RUN_SEED",
    "DEFAULT_SERIES_WINDOW_NS",
    "DEFAULT_SETUP_SEED",
    "Device",
    "LiveFeed",
    "Pool",
    "RunOutput",
    "__version__",
    "check_fio_args",
    "derived",
    "fio_option_names",
    "fio_showcmd",
    "hdd_names",
    "hdd_toml",
    "host_dram_bytes",
    "host_names",
    "host_toml",
    "ideal_host_overrides",
    "ideal_overrides",
    "max_namespace_bytes",
    "pool_names",
    "pool_toml",
    "profile_names",
    "profile_toml",
    "run_fio_on_drive",
    "run_memory",
    "shipped_profile_text",
    "simulated_ns",
    "zdb_plan",
]

__version__: str
# The core's defaults (``ssdtwin_core::defaults``); arguments left out (None) take them.
DEFAULT_HOST: str
DEFAULT_MEMORY_LIMIT_BYTES: int
DEFAULT_POOL: str
DEFAULT_PROFILE: str
DEFAULT_RUN_SEED: int
DEFAULT_SERIES_WINDOW_NS: int
DEFAULT_SETUP_SEED: int

def host_names() -> list[str]:
    """Names of the shipped host profiles."""

def host_toml(host: str, overrides: list[str] = ...) -> str:
    """Resolved, validated TOML of a host profile after overrides; raises ProfileError."""

def host_dram_bytes(host: str, overrides: list[str] = ...) -> int:
    """DRAM of a host profile after overrides, bytes, as the model holds it; raises ProfileError."""

def profile_names() -> list[str]:
    """Names of the shipped profiles."""

def shipped_profile_text(name: str) -> str | None:
    """A shipped drive profile's file as written, with its source comments (``None``: not shipped)."""

def profile_toml(profile: str, overrides: list[str] = ...) -> str:
    """Resolved TOML of a profile after ``section.field=value`` overrides.

    Only the TOML is checked (syntax, override form), not the values: build a ``Device`` to
    validate them (``ssdtwin.profile_toml`` does)."""

def check_fio_args(args: list[str]) -> int:
    """Parses fio-style arguments; returns the number of jobs; raises JobError."""

def fio_option_names() -> list[tuple[str, bool]]:
    """Every fio option name ssdtwin accepts (aliases included), with whether it is a flag."""

def fio_showcmd(args: list[str]) -> str:
    """fio's --showcmd: each job file as the command line that would run it."""

def derived(profile: str, overrides: list[str] = ...) -> dict[str, float]:
    """What the profile implies: capacities, superblocks, map size, bandwidths (unit-named)."""

def simulated_ns() -> int:
    """Simulated ns run in this process so far, by every device, pool and card."""

def run_memory(
    profile: str,
    overrides: list[str],
    host: str,
    host_overrides: list[str],
    bench: str,
    alloc: str,
    madvise: str,
    pattern: str,
    threads: int,
    seed: int,
    fs_layout: str,
    raid_chunk_bytes: int,
    memory_bytes: int | None,
    size_bytes: int,
    unit_bytes: int,
    stream_elements: int,
    stream_ntimes: int,
    himeno_grid: tuple[int, int, int],
    himeno_iterations: int,
    progress: Callable[[int, int], bool] | None = None,
) -> dict[str, Any]:
    """A memory workload (memcpy, stream, himeno) on a fresh drive or card behind a host:
    seconds, bytes, flops, phase_seconds and counters over its timed part."""

def run_fio_on_drive(
    profile: str,
    overrides: list[str],
    host: str,
    host_overrides: list[str],
    args: list[str],
    fs_layout: str,
    raid_chunk_bytes: int,
    memory_bytes: int | None,
    seed: int,
    log_dir: str,
    progress: Callable[[int, int | None, int, int | None], bool] | None = None,
) -> RunOutput:
    """fio-style arguments on a fresh drive or card (its LUNs joined as fs_layout says)
    behind a host, with the memory for pages set if given."""

def ideal_overrides(profile: str) -> list[str]:
    """Overrides (``section.field=value``) that switch off every source of latency
    variability the drive profile can set: the ideal drive."""

def ideal_host_overrides() -> list[str]:
    """Host overrides that make every wakeup cost the same: the ideal host."""

def max_namespace_bytes(profile: str, overrides: list[str] = ...) -> int:
    """The largest namespace the profile's geometry, GC reserve and SLC cache allow."""

def pool_names() -> list[str]:
    """Names of the shipped pools."""

def pool_toml(pool: str, overrides: list[str] = ...) -> str:
    """Resolved TOML of a pool file after overrides, validated; raises PoolError."""

def hdd_names() -> list[str]:
    """Names of the shipped disk profiles."""

def hdd_toml(disk: str, overrides: list[str] = ...) -> str:
    """Resolved TOML of a disk profile after overrides, validated; raises ProfileError."""

def zdb_plan(
    text: str,
    source: str,
    special_ashift: int,
    thresholds: list[int],
    special_size_bytes: int | None = None,
    reserve_pct: int = 25,
) -> dict[str, Any]:
    """The special-vdev planner's rows from zdb -bb/-bbb output; raises PoolError."""

@final
class LiveFeed:
    """Snapshots a running server pushes once a second (JSON text), and its time scale."""

    def __new__(cls) -> LiveFeed: ...
    def since(self, start: int) -> tuple[int, list[str]]:
        """The snapshots from index ``start`` on, and the index to ask from next."""
    def request_time_scale(self, k: float) -> None:
        """Asks the server to serve at time scale ``k`` from the next instant nothing is in flight."""

@final
class Pool:
    """A simulated ZFS pool on a host."""

    def __new__(
        cls, pool: str, overrides: list[str] = ..., host: str | None = None, host_overrides: list[str] = ...
    ) -> Pool: ...
    def copy(self) -> Pool:
        """An independent pool in the same state."""

    def add_tree(
        self,
        dataset: str,
        files: int,
        size_dist: str,
        files_per_dir: int = 1000,
        dirs_per_dir: int = 10,
        name_bytes: int = 20,
        classes: list[str] | None = None,
        seed: int | None = None,
    ) -> None:
        """Generates a file tree for a dataset."""

    def add_scan(self, dataset: str, text: str, source: str, classes: list[str] | None = None) -> None:
        """Reads a directory scan as a dataset's tree."""

    def run_op(
        self,
        dataset: str,
        op: str,
        max_bytes: int = 65536,
        min_bytes: int = 1048576,
        total_bytes: int = 1073741824,
        count: int = 1000,
        io_bytes: int = 4096,
        seed: int | None = None,
        progress: Callable[[int, int], bool] | None = None,
    ) -> dict[str, Any]:
        """Runs a tree operation; returns what it did."""

    def run_fio(
        self,
        host: str,
        host_overrides: list[str],
        args: list[str],
        job_text: str | None = None,
        source: str = "job",
        base_dir: str = ".",
        seed: int | None = None,
        log_dir: str = ".",
        wall_unix_ms: int = 0,
        wall_ctime: str = "",
        series_window_ms: float | None = None,
        progress: Callable[..., bool] | None = None,
    ) -> RunOutput:
        """Runs fio jobs on a dataset named by its mount point."""

    def drop_caches(self) -> None:
        """Empties the ARC."""

    def sync(self) -> None:
        """Runs until every dirty block is on the vdevs."""

    def fail(self, name: str) -> None:
        """Marks a device failed."""

    def check(self) -> None:
        """Raises PoolUnavailableError if the pool is lost."""

    def usage(self) -> dict[str, Any]:
        """Space by class, and what spilled."""

    def list_rows(self) -> list[dict[str, Any]]:
        """zpool list -v's rows."""

    def block_stats(self) -> dict[str, Any]:
        """zdb -bbb's numbers."""

    def txg_log(self) -> list[dict[str, Any]]:
        """Every txg synced."""

    def plan(
        self,
        special_ashift: int,
        thresholds: list[int],
        special_size_bytes: int | None = None,
        reserve_pct: int = 25,
    ) -> dict[str, Any]:
        """The planner's rows for what the pool's trees hold."""

    def info(self) -> dict[str, Any]:
        """Name, datasets, vdevs, dirty-data limit and ARC size."""

    def counters(self) -> dict[str, int]:
        """Every counter of the pool and its devices."""

    def memory_bytes(self) -> int:
        """Memory the model's tables hold for the pool's contents."""

    @property
    def pool_toml(self) -> str:
        """The resolved pool file."""

    @property
    def now_ns(self) -> int:
        """Simulated time now, ns."""

@final
class RunOutput:
    """A finished run."""

    def fio_json(self, plus: bool = False) -> str:
        """fio 3.33 JSON (json+ with ``plus``)."""
    def fio_normal(self) -> str:
        """fio 3.33 normal output."""
    def warnings(self) -> list[str]:
        """One-line warnings about the run (reads mostly of never-written data)."""
    def summary_columns(self) -> dict[str, list[Any]]:
        """One row per job clone and direction, as columns."""
    def series_columns(self) -> dict[str, list[Any]]:
        """Device counters over time, as columns."""
    def job_errors(self) -> list[str]:
        """fio's stderr lines for clones that ended with an error (a missed rate_min)."""
    def series_levels(self) -> list[str]:
        """Names of the series counters that are levels, not running totals."""
    def window_columns(self) -> dict[str, list[Any]]:
        """Per series row and direction, the I/Os, bytes and latencies of its window."""
    def lat_histogram_columns(self) -> dict[str, list[Any]]:
        """Total latency of all jobs per direction in fio's buckets: direction, lat_ns, count."""
    def groups(self) -> list[dict[str, Any]]:
        """Device counter changes per reporting group."""
    @property
    def span_ns(self) -> tuple[int, int]:
        """Simulated start and end of the run."""

@final
class Device:
    """A simulated SSD."""

    def __new__(
        cls, profile: str, overrides: list[str] = ..., verify: bool = False, max_memory_bytes: int | None = None
    ) -> Device: ...
    @staticmethod
    def load(path: str, max_memory_bytes: int | None = None) -> Device:
        """A device restored from a state file."""
    def save(self, path: str, overwrite: bool = False) -> None:
        """Finishes pending work and writes the state."""
    def copy(self) -> Device:
        """Finishes pending work; an independent drive in the same state."""
    def quiesce(self) -> None:
        """Runs until nothing is pending."""
    def fill(
        self,
        pattern: str,
        percent: float = 100.0,
        command_bytes: int = 131072,
        overwrite_passes: float = 2.0,
        seed: int | None = None,
        progress: Callable[[int, int], bool] | None = None,
        exact: bool = False,
    ) -> None:
        """Fills without simulating time ("seq", "random", "steady" or "overwrite"; random
        overwrites are sampled unless ``exact``); progress(done, total) every GiB."""
    def format(self, lbaf: int | None = None) -> None:
        """Format NVM; ``lbaf`` switches the LBA format."""
    def idle(self, seconds: float) -> None:
        """Lets simulated time pass with no host I/O."""
    def run(
        self,
        host: str,
        host_overrides: list[str],
        args: list[str],
        job_text: str | None = None,
        source: str = "job",
        base_dir: str = ".",
        seed: int | None = None,
        log_dir: str = ".",
        device_name: str = "nvme0n1",
        wall_unix_ms: int = 0,
        wall_ctime: str = "",
        series_window_ms: float | None = None,
        progress: Callable[[int, int | None, int, int | None], bool | None] | None = None,
    ) -> RunOutput:
        """Runs fio-style arguments or job-file text."""
    def serve(
        self,
        host: str,
        host_overrides: list[str],
        socket: str | None = None,
        listen: str | None = None,
        export_name: str = "",
        time_scale: float = 1.0,
        data: str | None = None,
        memory_limit_bytes: int | None = None,
        record: str | None = None,
        force: bool = False,
        ready: Callable[[str], object] | None = None,
        live: LiveFeed | None = None,
    ) -> str:
        """Serves the device over NBD until SIGINT or SIGTERM; returns statistics as JSON."""
    def set_hmb(self, setting: str, host: str, host_overrides: list[str] = ...) -> dict[str, Any]:
        """Renegotiates the Host Memory Buffer as ``host``'s driver does ("off", "auto" or a
        cap in MiB)."""
    def hmb(self) -> dict[str, Any]:
        """The current Host Memory Buffer grant."""
    def set_apst(self, host: str, host_overrides: list[str] = ...) -> list[tuple[float, int] | None]:
        """Programs APST as ``host``'s NVMe driver does; returns the table."""
    def apst(self) -> list[tuple[float, int] | None]:
        """The APST table in effect: (idle ms, target state) per power state, None where none."""
    def identity(self) -> dict[str, Any]:
        """Identity and namespace facts for identify and health output.

        Keys: ``model``, ``serial``, ``firmware``, ``pci_vendor_id``,
        ``pci_subsystem_vendor_id``, ``ieee_oui``, ``nvme_version`` (encoded as ``ver``),
        ``mdts``, ``hmpre``, ``hmmin``, ``hmminds``, ``hmmaxd``, ``wctemp_kelvin`` and
        ``cctemp_kelvin`` (the thresholds the model throttles at), ``power_states`` (dicts of
        ``max_power_mw``, ``non_operational``, ``entry_latency_us``, ``exit_latency_us``; at
        least state 0), ``apst_supported``, ``hctm_range_kelvin`` (MNTMT, MXTMT or None),
        ``hctm_tmt1_kelvin``, ``hctm_tmt2_kelvin`` (0: off), ``rated_tb_written``,
        ``rated_tb_written_sequential``, ``rated_dwpd``, ``warranty_years`` (None unless the
        profile gives them), ``capacity_bytes``, ``raw_bytes``,
        ``lba_format``, ``lba_formats`` (dicts of ``data_bytes``, ``metadata_bytes``,
        ``relative_performance``), ``mapped_units`` (4 KiB), ``volatile_write_cache``,
        ``io_queues``, ``queue_depth``, ``pcie_gen``, ``pcie_lanes``."""
    def map_cache(self) -> dict[str, Any]:
        """Where the map lives and how much of it the cache holds."""
    def slc_resident_fraction(self, offset: int, length: int) -> float:
        """Share of the mapped data in a byte range that sits in SLC-mode blocks."""
    def block_columns(self) -> dict[str, list[Any]]:
        """Every physical block's wear, as columns (die, plane, block, superblock, slc_erases,
        native_erases, life_used, endurance, role)."""
    def superblock_columns(self) -> dict[str, list[Any]]:
        """Every superblock, as columns (superblock, state, mode, valid_units, erases,
        slc_erases, life_used)."""
    def counters(self) -> dict[str, Any]:
        """Every counter."""
    def zones(self) -> dict[str, Any] | None:
        """A zoned namespace's zones: sizes, limits, each zone's state and write pointer."""
    def zone_send(self, action: str, slba: int, all: bool) -> float:
        """Zone Management Send of ``action`` to the zone at ``slba`` (or every zone); its latency, s."""
    def zone_append(self, zslba: int, blocks: int) -> int:
        """Zone Append to the zone at ``zslba``; returns the LBA written."""
    def fdp(self) -> dict[str, Any] | None:
        """Flexible Data Placement: configuration, handle usage, statistics, status, events."""
    def health(self) -> dict[str, Any]:
        """The SMART / Health Information log now, every field from the drive's state."""
    def power_cycle(self, unsafe_: bool = False) -> None:
        """Cycles the power after finishing pending work (``unsafe_``: no shutdown notice)."""
    def info(self) -> dict[str, Any]:
        """Capacity, LBA size, geometry (``t_read_ns``: tR of SLC mode and the native mode), link."""
    @property
    def now_ns(self) -> int:
        """Simulated time, ns."""
    @property
    def profile_name(self) -> str:
        """Profile name."""
    @property
    def profile_toml(self) -> str:
        """Resolved profile TOML."""
