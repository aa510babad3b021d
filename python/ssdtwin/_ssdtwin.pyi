"""Stubs of the compiled module ``ssdtwin._ssdtwin`` (see crates/ssdtwin-py)."""

from collections.abc import Callable
from typing import Any, final

__all__ = [
    "DEFAULT_HOST",
    "Device",
    "RunOutput",
    "__version__",
    "check_fio_args",
    "derived",
    "fio_option_names",
    "fio_showcmd",
    "host_names",
    "host_toml",
    "max_namespace_bytes",
    "profile_names",
    "profile_toml",
]

__version__: str
DEFAULT_HOST: str

def host_names() -> list[str]:
    """Names of the shipped host profiles."""

def host_toml(host: str, overrides: list[str] = ...) -> str:
    """Resolved, validated TOML of a host profile after overrides; raises ProfileError."""

def profile_names() -> list[str]:
    """Names of the shipped profiles."""

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

def max_namespace_bytes(profile: str, overrides: list[str] = ...) -> int:
    """The largest namespace the profile's geometry, GC reserve and SLC cache allow."""

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
        seed: int = 1,
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
        seed: int = ...,
        log_dir: str = ".",
        device_name: str = "nvme0n1",
        wall_unix_ms: int = 0,
        wall_ctime: str = "",
        series_window_ms: float = 100.0,
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
        memory_limit_bytes: int = ...,
        record: str | None = None,
        force: bool = False,
        ready: Callable[[str], object] | None = None,
    ) -> str:
        """Serves the device over NBD until SIGINT or SIGTERM; returns statistics as JSON."""
    def set_hmb(self, setting: str, host: str, host_overrides: list[str] = ...) -> dict[str, Any]:
        """Renegotiates the Host Memory Buffer as ``host``'s driver does ("off", "auto" or a
        cap in MiB)."""
    def hmb(self) -> dict[str, Any]:
        """The current Host Memory Buffer grant."""
    def identity(self) -> dict[str, Any]:
        """Identity and namespace facts for identify and health output.

        Keys: ``model``, ``serial``, ``firmware``, ``pci_vendor_id``,
        ``pci_subsystem_vendor_id``, ``ieee_oui``, ``nvme_version`` (encoded as ``ver``),
        ``mdts``, ``hmpre``, ``hmmin``, ``hmminds``, ``hmmaxd``, ``wctemp_kelvin`` and
        ``cctemp_kelvin`` (``None`` unless the profile sets them), ``power_states`` (dicts of
        ``max_power_mw``, ``non_operational``, ``entry_latency_us``, ``exit_latency_us``;
        empty unless the profile sets them), ``capacity_bytes``, ``raw_bytes``,
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
    def info(self) -> dict[str, Any]:
        """Capacity, LBA size, geometry, link."""
    @property
    def now_ns(self) -> int:
        """Simulated time, ns."""
    @property
    def profile_name(self) -> str:
        """Profile name."""
    @property
    def profile_toml(self) -> str:
        """Resolved profile TOML."""
