"""The public face of the simulator: :class:`Device` and :class:`RunResult`."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _ssdtwin
from .errors import DeviceError, SsdtwinError
from .jobs import job_input

if TYPE_CHECKING:
    # Imported where a table is built: ``import ssdtwin`` stays quick without it.
    import pandas as pd

# Every default is the core's (``ssdtwin_core::defaults``); none is written here.
#: The profile used when none is named.
DEFAULT_PROFILE: str = _ssdtwin.DEFAULT_PROFILE
#: The host jobs run on when none is named.
DEFAULT_HOST: str = _ssdtwin.DEFAULT_HOST
#: Seed of every random stream of a run when none is given.
DEFAULT_RUN_SEED: int = _ssdtwin.DEFAULT_RUN_SEED
#: Seed of the draws that prepare a target (a random fill, a ZFS file tree) when none is given.
DEFAULT_SETUP_SEED: int = _ssdtwin.DEFAULT_SETUP_SEED
#: Width of a run's series rows, ms.
DEFAULT_SERIES_WINDOW_MS: float = _ssdtwin.DEFAULT_SERIES_WINDOW_NS / 1e6
#: Client data a served drive keeps in memory without a backing file, GiB.
DEFAULT_MEMORY_LIMIT_GIB: float = _ssdtwin.DEFAULT_MEMORY_LIMIT_BYTES / 2**30

ProgressCallback = Callable[[int, int | None, int, int | None], bool | None]


def report_stamp() -> tuple[int, str]:
    """The time a fio report says it was made, as (Unix ms, ctime text in UTC).

    A simulation must not read the wall clock (the same inputs give byte-identical output),
    so this is ``SOURCE_DATE_EPOCH`` (the reproducible-builds convention) when set, else
    the Unix epoch.
    """
    text = os.environ.get("SOURCE_DATE_EPOCH", "0")
    try:
        seconds = int(text)
    except ValueError:
        raise SsdtwinError(f"SOURCE_DATE_EPOCH={text!r}: allowed a whole number of seconds since 1970") from None
    if not 0 <= seconds < 2**40:
        raise SsdtwinError(f"SOURCE_DATE_EPOCH={text!r}: allowed 0 to {2**40 - 1}")
    return seconds * 1000, time.asctime(time.gmtime(seconds))


class RawToml(str):
    """A value already written as TOML (as a user typed it after ``--set``): passed on as is.

    >>> toml_literal(RawToml("[1, 2]")), toml_literal("[1, 2]")
    ('[1, 2]', '"[1, 2]"')
    """

    __slots__ = ()


def toml_literal(value: object) -> str:
    """``value`` as a TOML literal for an override.

    >>> toml_literal(True), toml_literal(4), toml_literal("dram"), toml_literal([1, 2])
    ('true', '4', '"dram"', '[1, 2]')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, RawToml):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {toml_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    raise TypeError(f"cannot express {value!r} in TOML")


def override_strings(overrides: Mapping[str, object] | None, keywords: Mapping[str, object]) -> list[str]:
    """``section.field=value`` strings from a dict and from keywords (``nand__channels=4``).

    >>> override_strings({"nand.channels": 4}, {"controller__cores": 2})
    ['nand.channels=4', 'controller.cores=2']
    """
    items = dict(overrides or {})
    items.update({k.replace("__", "."): v for k, v in keywords.items()})
    return [f"{k}={toml_literal(v)}" for k, v in items.items()]


def _memory_limit_bytes(gib: float) -> int:
    """``max_memory_gib`` in bytes; a positive, finite number is required."""
    if not (isinstance(gib, int | float) and gib > 0 and gib < 2**33):
        raise DeviceError(f"max_memory_gib {gib}: a positive number of GiB")
    return int(gib * 2**30)


class _Observer:
    """A user's progress callback as the core calls it. The core only hears "go on" or
    "stop" (False stops), so an exception the callback raises stops the call and is kept, to
    be raised in place of the core's KeyboardInterrupt (:meth:`raising`)."""

    def __init__(self, progress: Callable[..., bool | None] | None) -> None:
        self._progress = progress
        self._raised: BaseException | None = None

    def for_core(self) -> Callable[..., bool] | None:
        """What the core is given: this observer, or None without a callback."""
        return None if self._progress is None else self

    def __call__(self, *args: int | None) -> bool:
        assert self._progress is not None
        try:
            return self._progress(*args) is not False
        except BaseException as e:
            self._raised = self._raised or _busy_device(e)
            return False

    @contextmanager
    def raising(self) -> Iterator[None]:
        """Around the core call: its KeyboardInterrupt becomes the callback's exception."""
        try:
            yield
        except KeyboardInterrupt:
            if self._raised is not None:
                raise self._raised from None
            raise


def _busy_device(e: BaseException) -> BaseException:
    """A progress callback that used the device it reports on gets pyo3's "Already (mutably)
    borrowed" (a pool's), or its Device's word for it; say what happened and what to do
    instead."""
    if isinstance(e, _ConcurrentUse) or (isinstance(e, RuntimeError) and "borrowed" in str(e)):
        return DeviceError(
            "the device is busy with the run or fill that called this progress callback: the callback cannot use "
            "it; read the progress arguments, and use the device once the call returns"
        )
    return e


class _OneCallAtATime:
    """The core's device, which serves one call at a time: a call made while another is
    under way (from another thread, which the core lets run while it works) fails in pyo3
    with "Already borrowed"; this says what happened and what to do instead."""

    __slots__ = ("_core",)

    def __init__(self, core: Any) -> None:
        self._core = core

    def __getattr__(self, name: str) -> Any:
        with _refusing_concurrent_use():
            attribute = getattr(self._core, name)
        if not callable(attribute):
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            with _refusing_concurrent_use():
                return attribute(*args, **kwargs)

        return call

    def __repr__(self) -> str:
        return repr(self._core)


class _ConcurrentUse(DeviceError):
    """A call on a Device while another call on it is under way."""


@contextmanager
def _refusing_concurrent_use() -> Iterator[None]:
    try:
        yield
    except RuntimeError as e:
        if "borrowed" not in str(e):
            raise
        raise _ConcurrentUse(
            "this Device is busy with a call from another thread: a Device serves one call at a time; give each "
            "thread its own (Device.copy()) or hold a lock around its calls"
        ) from None


class RunResult:
    """A finished run: fio's reports, a tidy summary, device counters over time.

    ``json`` is fio 3.33's JSON (a dict); ``summary`` has one row per job clone and
    direction; ``series`` the device counters per sampling window; ``groups`` the device
    activity per reporting group, with write amplification.
    """

    def __init__(self, output: _ssdtwin.RunOutput) -> None:
        self._output = output

    @cached_property
    def json(self) -> dict[str, Any]:
        """fio JSON output, parsed."""
        return json.loads(self._output.fio_json(False))  # type: ignore[no-any-return]

    @cached_property
    def json_plus(self) -> dict[str, Any]:
        """fio json+ output (with latency bins), parsed."""
        return json.loads(self._output.fio_json(True))  # type: ignore[no-any-return]

    def fio_json_text(self, plus: bool = False) -> str:
        """fio JSON (or json+) as text, exactly as ``--output-format`` prints it."""
        return self._output.fio_json(plus)

    @cached_property
    def normal(self) -> str:
        """fio's human-readable report."""
        return self._output.fio_normal()

    @cached_property
    def warnings(self) -> list[str]:
        """One-line warnings about the run, e.g. reads mostly of never-written data (which
        return zeros without touching NAND: such results describe memory, not flash)."""
        return list(self._output.warnings())

    @property
    def errors(self) -> list[str]:
        """fio's stderr lines for jobs that ended with an error (a missed ``rate_min``):
        its message, then ``fio: pid=N, err=5/..., func=check_min_rate, ...``; empty when
        every job ran to its end."""
        return list(self._output.job_errors())

    @cached_property
    def summary(self) -> pd.DataFrame:
        """One row per job clone and direction: ``rw`` is the job's fio pattern (``randrw``),
        ``direction`` the row's (``read``, ``write``, ``trim``); ``iops``, ``bw_mb_per_s``
        (10⁶ B/s), latencies in µs.

        Clones stay separate rows under ``group_reporting`` too (``groupid`` says which
        group each belongs to): a group's IOPS are the sum of its rows, as in the merged
        job fio's JSON (:attr:`json`) reports."""
        import pandas as pd

        return pd.DataFrame(self._output.summary_columns())

    @cached_property
    def latency_histogram(self) -> pd.DataFrame:
        """The distribution of total latency (fio's ``lat``) of all jobs together, per
        direction, in fio's log-linear buckets: ``direction``, ``lat_us`` (the bucket's value),
        ``count``, one row per non-empty bucket in order. ``count.cumsum() / count.sum()`` is
        the CDF from which fio reads its percentiles."""
        import pandas as pd

        df = pd.DataFrame(self._output.lat_histogram_columns())
        df["lat_us"] = df.pop("lat_ns") / 1e3
        return df[["direction", "lat_us", "count"]]

    @cached_property
    def series(self) -> pd.DataFrame:
        """The run over time, one row per window (``series_window_ms``; the first row is the
        run's start, the last its end): ``time_s`` is seconds since the start, ``window_s``
        the window's length and ``partial`` true for a last window cut short by the run's
        end (its figures rest on fewer I/Os: read them as such, not as a spike); then, per
        direction the jobs used, what completed in the window ending at the row —
        ``read_iops``, ``read_mb_per_s`` (10⁶ B/s), ``read_mean_lat_us``, ``read_p50_lat_us``,
        ``read_p99_lat_us``, ``read_p999_lat_us``, ``read_max_lat_us`` (total latency, fio's
        ``lat``, ramp time included; NaN where nothing completed) — and the device's and
        host's counters: running totals as changes since the run's start, levels (free
        superblocks, bytes cached, dirty bytes) as their value at the row.
        """
        import numpy as np
        import pandas as pd

        counters = pd.DataFrame(self._output.series_columns())
        if counters.empty:
            return counters
        levels = set(self._output.series_levels())
        totals = [c for c in counters.columns if c != "time_ns" and c not in levels]
        counters[totals] = counters[totals] - counters[totals].iloc[0]
        windows = pd.DataFrame(self._output.window_columns())
        seconds = counters["time_ns"].diff().to_numpy() / 1e9
        # The run ends when its last I/O does, mid-window: that window is shorter than the
        # others, and its rates and percentiles rest on fewer I/Os.
        partial = np.zeros(len(seconds), dtype=bool)
        if len(seconds) >= 3 and seconds[-1] < seconds[-2]:
            partial[-1] = True
        df = pd.DataFrame(
            {
                "time_s": counters["time_ns"] / 1e9,
                "time_ns": counters["time_ns"],
                "window_s": np.nan_to_num(seconds),
                "partial": partial,
            }
        )
        for direction in ("read", "write", "trim"):
            ios = windows[f"{direction}_ios"]
            if not ios.any():
                continue
            done = ios.where(ios > 0)
            df[f"{direction}_iops"] = ios / seconds
            df[f"{direction}_mb_per_s"] = windows[f"{direction}_bytes"] / seconds / 1e6
            for stat in ("mean", "p50", "p99", "p999", "max"):
                df[f"{direction}_{stat}_lat_us"] = (windows[f"{direction}_{stat}_lat_ns"] / 1e3).where(done.notna())
        return pd.concat([df, counters.drop(columns="time_ns")], axis=1)

    @cached_property
    def groups(self) -> pd.DataFrame:
        """One row per reporting group (``groupid``): the device's counter changes over the
        group's measured span (``time_ns`` long), levels as their value at its end, and
        ``write_amplification`` (NaN where nothing was written)."""
        import pandas as pd

        return pd.DataFrame(self._output.groups()).astype({"write_amplification": float})

    def __repr__(self) -> str:
        rows = ", ".join(f"{r.direction} {r.iops:,.0f} IOPS" for r in self.summary.itertuples())
        return f"RunResult({rows})"


class Device:
    """A simulated SSD that keeps its state (maps, blocks, counters, clock) between runs.

    ``profile`` is a shipped profile name or a TOML file; ``overrides`` and keywords change
    fields (``nand__channels=4`` means ``nand.channels = 4``). ``host`` is the machine the
    drive is attached to (a shipped host profile or a TOML file, ``host_overrides``
    changing its fields): jobs run on its CPU with its engines' costs, and its NVMe driver
    grants the Host Memory Buffer (``hmb``: ``"auto"`` for the host's default, ``"off"``,
    or a cap in MiB). ``host="none"`` is the drive alone, at its NVMe interface. The model's
    maps take 4 B per logical and per physical 4 KiB unit; a drive needing more than the
    machine's memory and swap (or ``max_memory_gib``) is refused before anything is allocated.

    >>> dev = Device("generic-tlc-1tb")
    >>> dev.fill("seq", percent=1)
    >>> r = dev.run({"rw": "randread", "bs": "4k", "iodepth": 1, "size": "1g", "runtime": "50ms"})
    >>> 50 < float(r.summary["mean_lat_us"][0]) < 80
    True
    """

    def __init__(
        self,
        profile: str | Path = DEFAULT_PROFILE,
        *,
        host: str | Path = DEFAULT_HOST,
        host_overrides: Mapping[str, object] | None = None,
        verify: bool = False,
        hmb: str | int = "auto",
        overrides: Mapping[str, object] | None = None,
        max_memory_gib: float | None = None,
        **keyword_overrides: object,
    ) -> None:
        limit = None if max_memory_gib is None else _memory_limit_bytes(max_memory_gib)
        self._dev = _OneCallAtATime(
            _ssdtwin.Device(str(profile), override_strings(overrides, keyword_overrides), verify, limit)
        )
        self._attach(host, host_overrides, hmb)

    def _attach(self, host: str | Path, host_overrides: Mapping[str, object] | None, hmb: str | int) -> None:
        """Attaches the drive to ``host``, whose driver negotiates the HMB and programs APST."""
        self._host = str(host)
        self._host_overrides = override_strings(host_overrides, {})
        self.set_hmb(hmb)
        self._dev.set_apst(self._host, self._host_overrides)

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        host: str | Path = DEFAULT_HOST,
        host_overrides: Mapping[str, object] | None = None,
        hmb: str | int = "auto",
        max_memory_gib: float | None = None,
    ) -> Device:
        """A device restored from a state file written by :meth:`save`, attached to
        ``host`` (a state keeps the drive, not the machine it was in); a drive whose model
        would exceed the machine's memory and swap (or ``max_memory_gib``) is refused first."""
        dev = cls.__new__(cls)
        limit = None if max_memory_gib is None else _memory_limit_bytes(max_memory_gib)
        dev._dev = _OneCallAtATime(_ssdtwin.Device.load(str(path), limit))
        dev._attach(host, host_overrides, hmb)
        return dev

    @property
    def host(self) -> str:
        """The host profile jobs run on unless :meth:`run` names another."""
        return self._host

    def save(self, path: str | Path, *, overwrite: bool = False) -> None:
        """Finishes pending work and writes the whole state to ``path``; refuses to replace
        an existing file unless ``overwrite``."""
        if Path(path).exists() and not overwrite:
            raise FileExistsError(f"{path} exists; pass overwrite=True to replace it")
        try:
            self._dev.save(str(path), overwrite)
        except FileExistsError:
            # Another save put a file there after the check above.
            raise FileExistsError(f"{path} exists; pass overwrite=True to replace it") from None

    def copy(self) -> Device:
        """Finishes pending work and returns an independent drive in the same state, on the
        same host: its map, blocks, caches, counters, clock and HMB grant. Precondition once,
        then run each point of a sweep on a copy; copying costs a memory copy of the map.

        >>> dev = Device("generic-tlc-1tb", **{"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30})
        >>> dev.fill("seq", percent=50)
        >>> twin = dev.copy()
        >>> twin.counters() == dev.counters(), twin.now_s == dev.now_s
        (True, True)
        >>> _ = twin.run({"rw": "write", "bs": "128k", "size": "64m"})
        >>> twin.counters()["host_write_bytes"] - dev.counters()["host_write_bytes"]
        67108864
        """
        twin = Device.__new__(Device)
        twin._dev = _OneCallAtATime(self._dev.copy())
        twin._host, twin._host_overrides = self._host, list(self._host_overrides)
        return twin

    def fill(
        self,
        pattern: str = "seq",
        percent: float = 100.0,
        *,
        command_bytes: int = 128 * 1024,
        overwrite_passes: float = 2.0,
        seed: int = DEFAULT_SETUP_SEED,
        progress: Callable[[int, int], bool | None] | None = None,
        exact: bool = False,
    ) -> None:
        """Preconditions without simulating time: ``seq`` writes the first ``percent`` of the
        namespace in order; ``random`` then overwrites it randomly ``overwrite_passes``
        times (GC reaches steady state); ``steady`` writes it in order twice before the
        random passes, as SNIA's PTS preconditions; ``overwrite`` does only the random
        overwrites, over what the drive holds (to continue a preconditioning). Random
        overwrites are sampled superblock by superblock (seconds per TiB; docs/model.md,
        Bulk fill) where the drive holds exactly the span and has no SLC cache, unless
        ``exact``, which places every one (the slow path). ``progress(done, total)`` (4 KiB
        units) is called at the start, every GiB and at the end; returning False, or Ctrl-C,
        stops the fill with ``KeyboardInterrupt``, leaving the drive part-filled or, while
        sampling, empty (discard it).

        >>> dev = Device("generic-tlc-1tb", **{"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30})
        >>> seen = []
        >>> dev.fill("seq", 50, progress=lambda done, total: seen.append((done, total)))
        >>> seen[0], seen[-1], len(seen)
        ((0, 1048576), (1048576, 1048576), 5)
        """

        observe = _Observer(progress)
        with observe.raising():
            self._dev.fill(pattern, percent, command_bytes, overwrite_passes, seed, observe.for_core(), exact)

    def format(self, lbaf: int | None = None) -> None:
        """Format NVM: unmaps everything; ``lbaf`` selects another LBA format."""
        self._dev.format(lbaf)

    def idle(self, seconds: float) -> None:
        """Lets ``seconds`` of simulated time pass without host I/O."""
        self._dev.idle(seconds)

    def quiesce(self) -> None:
        """Runs until no command or background work is pending."""
        self._dev.quiesce()

    def run(
        self,
        job: str | Path | Mapping[str, object] | Sequence[str],
        *,
        seed: int = DEFAULT_RUN_SEED,
        log_dir: str | Path = ".",
        series_window_ms: float = DEFAULT_SERIES_WINDOW_MS,
        progress: ProgressCallback | None = None,
        host: str | Path | None = None,
        host_overrides: Mapping[str, object] | None = None,
    ) -> RunResult:
        """Runs a fio job (arguments, job text, job file path or dict) on this device, on
        its host or on ``host`` for this run (the HMB stays as the device's host granted).

        ``progress``, if given, is called now and then with ``(elapsed_ns, expected_ns,
        bytes_done, bytes_expected)``; returning ``False`` stops the run with
        ``KeyboardInterrupt``, and an exception it raises ends the run and propagates.
        """
        ji = job_input(job)
        observe = _Observer(progress)
        stamp_ms, stamp_text = report_stamp()
        with observe.raising():
            out = self._dev.run(
                self._host if host is None else str(host),
                self._host_overrides if host is None else override_strings(host_overrides, {}),
                ji.args,
                ji.text,
                ji.source,
                ji.base_dir,
                seed,
                str(log_dir),
                "nvme0n1",
                stamp_ms,
                stamp_text,
                series_window_ms,
                observe.for_core(),
            )
        return RunResult(out)

    def serve(
        self,
        *,
        socket: str | Path | None = None,
        listen: str | None = None,
        export_name: str = "",
        time_scale: float = 1.0,
        data: str | Path | None = None,
        memory_limit_gib: float = DEFAULT_MEMORY_LIMIT_GIB,
        record: str | Path | None = None,
        force: bool = False,
        ready: Callable[[str], object] | None = None,
        live: _ssdtwin.LiveFeed | None = None,
    ) -> dict[str, Any]:
        """Serves this drive as an NBD export on a Unix ``socket`` or a TCP ``listen``
        address (``HOST:PORT``) until SIGINT or SIGTERM, with simulated time ``time_scale``
        times slower than wall time. ``ready`` is called with the NBD URI once clients can
        connect. Client data is kept in memory (at most ``memory_limit_gib``) or in the file
        ``data``; ``record`` writes every request as a fio iolog v3. Given ``live``, the
        server pushes a snapshot there once a second and takes time-scale requests from it
        (:mod:`ssdtwin.live`). Returns the server's statistics (requests, pacing lateness).
        """
        if not (isinstance(memory_limit_gib, int | float) and 0 < memory_limit_gib < 2**33):
            raise DeviceError(f"memory_limit_gib {memory_limit_gib}: a positive number of GiB")
        previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        # The server stops on these signals itself; Python must not raise on top of that.
        for sig in previous:
            signal.signal(sig, signal.SIG_IGN)
        try:
            text = self._dev.serve(
                self._host,
                self._host_overrides,
                socket=None if socket is None else str(socket),
                listen=listen,
                export_name=export_name,
                time_scale=time_scale,
                data=None if data is None else str(data),
                memory_limit_bytes=int(memory_limit_gib * 2**30),
                record=None if record is None else str(record),
                force=force,
                ready=ready,
                live=live,
            )
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        stats: dict[str, Any] = json.loads(text)
        return stats

    def set_hmb(self, setting: str | int) -> dict[str, Any]:
        """Renegotiates the Host Memory Buffer as the host's NVMe driver does with its cap
        (Linux: ``max_host_mem_size_mb``): ``"off"``, ``"auto"`` (the host's default: 128 MiB
        on Linux) or a cap in MiB. The map cache starts cold. Returns the grant: ``bytes``,
        ``segments``, ``chunk_bytes`` and the driver's ``message``."""
        return dict(self._dev.set_hmb(str(setting), self._host, self._host_overrides))

    def hmb(self) -> dict[str, Any]:
        """The Host Memory Buffer the host granted (``bytes`` 0 when none)."""
        return dict(self._dev.hmb())

    def apst(self) -> list[tuple[float, int] | None]:
        """The Autonomous Power State Transition table the host's driver programmed: for each
        power state, ``(idle_ms, target_state)`` or None; empty when APST is off (the drive
        has no non-operational state, or the host does not enable APST).

        >>> dev = Device("generic-tlc-1tb", overrides={"identity.power_states": RawToml(
        ...     "[{max_power_mw=6000}, {max_power_mw=50, non_operational=true, entry_latency_us=2000,"
        ...     " exit_latency_us=3000}]")}, host="linux-4.15")
        >>> dev.apst()
        [(250.0, 1), None]
        >>> Device("generic-tlc-1tb", host="linux-4.15").apst()
        []
        """
        return list(self._dev.apst())

    def identity(self) -> dict[str, Any]:
        """Identify data: model, serial, firmware, IDs, HMB request, capacities, LBA formats."""
        return dict(self._dev.identity())

    def map_cache(self) -> dict[str, Any]:
        """Where the map lives and how much of it the cache holds."""
        return dict(self._dev.map_cache())

    def slc_resident_fraction(self, offset: int = 0, length: int = 1 << 30) -> float:
        """Share of the written data in ``length`` bytes from ``offset`` held in SLC mode."""
        return float(self._dev.slc_resident_fraction(offset, length))

    def counters(self) -> dict[str, Any]:
        """Every device counter now (host and NAND bytes, GC, wear, ...)."""
        return dict(self._dev.counters())

    def zones(self) -> dict[str, Any] | None:
        """A zoned namespace now (``None`` on a conventional one): ``size_lbas``,
        ``capacity_lbas``, ``max_open``, ``max_active`` and ``zones``, each with ``slba``,
        ``wp`` (LBAs), ``state`` (nvme-cli's name) and ``code`` (the Zone State)."""
        zones = self._dev.zones()
        return None if zones is None else dict(zones)

    def zone_send(self, action: str, slba: int = 0, all: bool = False) -> float:
        """Zone Management Send: ``close``, ``finish``, ``open`` or ``reset`` the zone starting
        at ``slba``, or (``all``) every zone the action applies to; waits for the work it
        starts (a finish's padding, a reset's erase); returns the command's latency in seconds.
        Raises :class:`DeviceError` with the NVMe status the zone's state gives."""
        return float(self._dev.zone_send(action, slba, all))

    def zone_append(self, zslba: int, blocks: int) -> int:
        """Zone Append of ``blocks`` LBAs to the zone starting at ``zslba``; returns the LBA
        the data went to."""
        return int(self._dev.zone_append(zslba, blocks))

    def fdp(self) -> dict[str, Any] | None:
        """Flexible Data Placement now (``None`` on a drive without it): ``reclaim_groups``,
        ``handles``, ``handle_type``, ``reclaim_unit_bytes``, ``volatile_write_cache``; ``usage`` (each handle's RUH
        Usage attribute: 0 unused, 1 host specified, 2 controller specified); ``stats``
        (``host_bytes_written``, ``media_bytes_written``, ``media_bytes_erased``); ``status``
        (per handle ``pid``, ``ruhid``, ``earutr``, ``ruamw`` in logical blocks); ``events``
        (``type``, ``name``, ``pid``, ``timestamp_ms``); ``per_handle`` (``host_units``,
        ``gc_units`` moved out of its reclaim units, ``reclaim_units`` opened, in 4 KiB
        units) and ``unowned_gc_units``."""
        fdp = self._dev.fdp()
        return None if fdp is None else dict(fdp)

    def health(self) -> dict[str, Any]:
        """The SMART / Health Information log now, every field from the drive's state:
        ``critical_warning``, ``temperature_kelvin``, ``available_spare_pct``,
        ``available_spare_threshold_pct``, ``percentage_used``, ``data_units_read`` and
        ``_written`` (thousands of 512 bytes, rounded up), ``host_read_commands`` and
        ``_write_commands``, ``controller_busy_minutes``, ``power_cycles``,
        ``power_on_hours``, ``unsafe_shutdowns``, ``media_errors``, ``error_log_entries``,
        ``warning_temperature_minutes``, ``critical_temperature_minutes``,
        ``tmt1_transitions``, ``tmt2_transitions``, ``tmt1_seconds``, ``tmt2_seconds``.
        :func:`ssdtwin.nvme.smart_log` names them as nvme-cli does.

        >>> dev = Device("generic-tlc-1tb")
        >>> h = dev.health()
        >>> h["temperature_kelvin"], h["power_cycles"], h["percentage_used"], h["available_spare_pct"]
        (298, 1, 0, 100)
        """
        return dict(self._dev.health())

    def power_cycle(self, *, unsafe: bool = False) -> None:
        """Finishes pending work, then turns the drive off and on: it comes back at ambient
        temperature, in power state 0, its map cache cold, and counts a Power Cycle; with
        ``unsafe`` the power is lost without a shutdown notification, an Unsafe Shutdown
        (the model loses no data: it finishes the work in flight first, as a drive with
        power-loss protection does).

        >>> dev = Device("generic-tlc-1tb")
        >>> dev.power_cycle()
        >>> dev.power_cycle(unsafe=True)
        >>> dev.health()["power_cycles"], dev.health()["unsafe_shutdowns"]
        (3, 1)
        """
        self._dev.power_cycle(unsafe)

    def blocks(self) -> pd.DataFrame:
        """Every physical NAND block, one row each: ``die``, ``plane``, ``block`` (its index
        in the plane: the superblock slots, then the spares), ``superblock`` it serves (-1:
        none), ``slc_erases`` and ``native_erases`` (its P/E cycles in each mode),
        ``life_used`` (share of its rated life: SLC cycles over the SLC rating plus native
        cycles over the native one), ``endurance`` (the life share at which it fails) and
        ``role`` (``in-service``, ``spare`` or ``bad``).

        >>> dev = Device("generic-tlc-1tb", **{"nand.blocks_per_plane": 24, "identity.capacity_bytes": 14 << 30,
        ...              "endurance.spare_blocks_per_plane": 2})
        >>> dev.fill("random", 90, overwrite_passes=1)
        >>> b = dev.blocks()
        >>> len(b) == 32 * 2 * (24 + 2), sorted(b["role"].unique())
        (True, ['in-service', 'spare'])
        >>> int(b["native_erases"].sum()) == dev.counters()["block_erases"] > 0
        True
        """
        import pandas as pd

        return pd.DataFrame(self._dev.block_columns())

    def superblocks(self) -> pd.DataFrame:
        """Every superblock, one row each: ``state`` (free, open, full, victim, erasing,
        retired), ``mode`` it is written in, ``valid_units`` (4 KiB), ``erases`` and
        ``slc_erases`` (P/E cycles, all modes and SLC mode) and ``life_used``.

        >>> dev = Device("generic-tlc-1tb", **{"nand.blocks_per_plane": 24, "identity.capacity_bytes": 14 << 30})
        >>> dev.fill("random", 90, overwrite_passes=1)
        >>> s = dev.superblocks()
        >>> int(s["erases"].sum()) == dev.counters()["erases"] > 0
        True
        >>> int(s["valid_units"].sum()) == round((14 << 30) * 0.9 / 4096)
        True
        """
        import pandas as pd

        return pd.DataFrame(self._dev.superblock_columns())

    def info(self) -> dict[str, Any]:
        """Capacity, LBA size, geometry (``t_read_ns``: tR of SLC mode and of the native mode, by
        mode name) and link of the configured drive."""
        return dict(self._dev.info())

    @property
    def profile_name(self) -> str:
        """Name of the profile this device was built from."""
        return str(self._dev.profile_name)

    @property
    def profile_toml(self) -> str:
        """The resolved profile, as TOML."""
        return str(self._dev.profile_toml)

    @property
    def now_s(self) -> float:
        """Simulated time, seconds."""
        return float(self._dev.now_ns) / 1e9

    def __repr__(self) -> str:
        return repr(self._dev)


def profiles() -> list[str]:
    """Names of the shipped profiles.

    >>> "generic-tlc-1tb" in profiles()
    True
    """
    return list(_ssdtwin.profile_names())


def hosts() -> list[str]:
    """Names of the shipped host profiles.

    >>> "linux-6.1" in hosts() and "none" in hosts()
    True
    """
    return list(_ssdtwin.host_names())


def host_toml(host: str | Path, overrides: Mapping[str, object] | None = None) -> str:
    """The resolved, validated TOML of a host profile after ``overrides``.

    >>> import tomllib
    >>> tomllib.loads(host_toml("linux-6.1", {"cpu.cores": 4}))["cpu"]["cores"]
    4
    """
    return str(_ssdtwin.host_toml(str(host), override_strings(overrides, {})))


def profile_toml(profile: str | Path, overrides: Mapping[str, object] | None = None) -> str:
    """The resolved, validated TOML of a profile after ``overrides``; raises
    :class:`~ssdtwin.ProfileError` if the result would not build a device.

    >>> import tomllib
    >>> tomllib.loads(profile_toml("generic-tlc-1tb", {"nand.channels": 16}))["nand"]["channels"]
    16
    """
    return resolved_toml(str(profile), override_strings(overrides, {}))


def profile_derived(profile: str | Path, overrides: Mapping[str, object] | None = None) -> dict[str, float]:
    """What a profile implies but does not state, after ``overrides``: namespace and raw
    bytes, superblocks and their sizes, the largest SLC cache, the map's size and the share
    the controller holds, per-die, per-channel, array and link bandwidths (field names carry
    the units).

    >>> d = profile_derived("generic-tlc-1tb")
    >>> d["superblock_bytes"] * d["superblocks"] == d["raw_bytes"], d["map_bytes"] == d["namespace_bytes"] // 1024
    (True, True)
    """
    return dict(_ssdtwin.derived(str(profile), override_strings(overrides, {})))


def resolved_toml(profile: str, overrides: list[str]) -> str:
    """The resolved TOML of ``profile`` after raw ``section.field=value`` overrides, checked
    by building the device configuration (not a device: a profile too large for this
    machine's memory is shown all the same; simulating it is what is refused)."""
    return str(_ssdtwin.profile_toml(profile, overrides))
