"""Running a measurement's fio jobs on a target: the real fio binary or ssdtwin's own fio.

A measurement describes each job it needs as a :class:`Job` (what to do, with times in the
drive's seconds) and hands it to a :class:`Runner`, which returns an :class:`Outcome`
(what fio reported, per direction, and the job's bandwidth log). Two runners:

* :class:`FioRunner` runs the installed ``fio`` binary against a block device, a file or an
  NBD URI, with JSON output. With ``time_scale`` K (a twin served with ``ssdtwin serve
  --time-scale K``), time options are stretched K times and every time fio measures is
  divided by K, so the measurement sees the drive's own time.
* :class:`TwinRunner` runs the same job on a simulated drive with ssdtwin's fio, in virtual
  time.

Both produce the same fio-shaped outcomes, so the inference code is the same for both and
never sees a profile. Besides jobs, a runner can let the drive sit idle and purge it (unmap
every LBA); it keeps a log of everything it did (:attr:`Runner.steps`) for the report.

>>> runner = TwinRunner("generic-tlc-1tb", {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30})
>>> out = runner.run(Job("qd1", "randread", 4096, size=1 << 30, number_ios=200), "example")
>>> out.read.ios, round(out.read.mean_lat_ns) > 0
(200, True)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ProbeError

#: Name of the bandwidth log fio writes for a job that asks for one (``NAME_bw.1.log``).
BW_LOG = "probe"


@dataclass(frozen=True)
class Job:
    """One fio job, with sizes in bytes and times in seconds of the drive's time.

    ``size`` is the region (from ``offset``; None: to the end of the target); the job moves
    ``io_size`` bytes or ``number_ios`` I/Os, or runs for ``runtime_s`` (time-based) after
    ``ramp_s``; ``log_interval_s`` asks for fio's bandwidth log averaged over that interval.

    >>> Job("w", "write", 131072, iodepth=32, size=1 << 30).fio_options(1.0)[:4]
    ['--name=w', '--rw=write', '--bs=131072', '--iodepth=32']
    """

    name: str
    rw: str
    bs: int
    iodepth: int = 1
    offset: int = 0
    size: int | None = None
    io_size: int | None = None
    number_ios: int | None = None
    runtime_s: float | None = None
    ramp_s: float = 0.0
    log_interval_s: float | None = None
    numjobs: int = 1
    seed: int | None = None
    #: Mixed jobs: the writes' block size (``bs`` is then the reads'), and the reads' share
    #: of the I/Os in percent.
    write_bs: int | None = None
    rwmixread: int | None = None

    def fio_options(self, time_scale: float) -> list[str]:
        """fio command-line options for this job; every time is stretched ``time_scale``
        times (the served twin's simulated time runs that much slower than the wall)."""
        bs = str(self.bs) if self.write_bs is None else f"{self.bs},{self.write_bs}"
        opts = [f"--name={self.name}", f"--rw={self.rw}", f"--bs={bs}", f"--iodepth={self.iodepth}"]
        if self.rwmixread is not None:
            opts.append(f"--rwmixread={self.rwmixread}")
        if self.offset:
            opts.append(f"--offset={self.offset}")
        if self.size is not None:
            opts.append(f"--size={self.size}")
        if self.io_size is not None:
            opts.append(f"--io_size={self.io_size}")
        if self.number_ios is not None:
            opts.append(f"--number_ios={self.number_ios}")
        if self.runtime_s is not None:
            opts += ["--time_based", f"--runtime={_ms(self.runtime_s * time_scale)}ms"]
        if self.ramp_s:
            opts.append(f"--ramp_time={_ms(self.ramp_s * time_scale)}ms")
        if self.log_interval_s is not None:
            opts += [f"--write_bw_log={BW_LOG}", f"--log_avg_msec={_ms(self.log_interval_s * time_scale)}"]
        if self.numjobs > 1:
            opts += [f"--numjobs={self.numjobs}", "--group_reporting"]
        if self.seed is not None:
            opts.append(f"--randseed={self.seed}")
        return opts


def _ms(seconds: float) -> int:
    """Whole milliseconds, at least one (fio's resolution for these options)."""
    return max(1, round(seconds * 1000))


@dataclass(frozen=True)
class Direction:
    """One direction of a finished job, in the drive's time: rates per second, latencies
    in ns (fio's total latency, ``lat``)."""

    ios: int
    bytes: int
    iops: float
    bytes_per_s: float
    mean_lat_ns: float
    p99_lat_ns: float


@dataclass(frozen=True)
class Outcome:
    """What fio reported for one job: each direction it used, the job's length, and its
    bandwidth log as (end of interval in s, bytes/s, all directions together)."""

    job: Job
    runtime_s: float
    read: Direction | None = None
    write: Direction | None = None
    trim: Direction | None = None
    bw_log: tuple[tuple[float, float], ...] = ()

    @property
    def main(self) -> Direction:
        """The direction the job's ``rw`` names (reads for mixed jobs)."""
        rw = self.job.rw.split(":")[0]
        d = self.trim if "trim" in rw else self.read if "read" in rw or rw in ("rw", "randrw") else self.write
        if d is None:
            raise ProbeError(f"fio reported nothing for the {rw} job '{self.job.name}'")
        return d


@dataclass(frozen=True)
class Health:
    """What the drive's SMART / Health Information log says about its heat: the composite
    temperature and the critical-warning bit a drive sets while it is above its over-
    temperature threshold (WCTEMP, where a drive throttles)."""

    temperature_k: int
    over_temperature: bool


@dataclass(frozen=True)
class Step:
    """One thing a runner did, for the report: a job and its outcome, an idle period or a
    purge, under the measurement that asked for it."""

    measurement: str
    kind: str
    job: Job | None = None
    outcome: Outcome | None = None
    seconds: float = 0.0


def parse_fio_json(
    text: str,
    job: Job,
    time_scale: float,
    bw_log: tuple[tuple[float, float], ...] = (),
    transport_ns: float = 0.0,
) -> Outcome:
    """An :class:`Outcome` from fio's JSON output (text before the first ``{``, such as the
    nbd engine's connection lines, is skipped), times divided by ``time_scale``, and
    ``transport_ns`` (the drive's time a network transport adds to each request) taken off
    every latency."""
    start = text.find("{")
    try:
        entry = json.loads(text[start:])["jobs"][0] if start >= 0 else None
    except (ValueError, KeyError, IndexError, TypeError):
        entry = None
    if not isinstance(entry, dict):
        raise ProbeError(f"fio printed no JSON report for job '{job.name}': {text[:200]!r}") from None
    if entry.get("error"):
        raise ProbeError(f"fio job '{job.name}' failed with error {entry['error']}")
    directions: dict[str, Direction | None] = {}
    for name in ("read", "write", "trim"):
        d = entry.get(name, {})
        ios = int(d.get("total_ios", 0))
        if ios == 0:
            directions[name] = None
            continue
        lat = d.get("lat_ns", {})
        clat = d.get("clat_ns", {}).get("percentile", {})
        p99 = float(clat.get("99.000000", lat.get("max", 0.0)))
        directions[name] = Direction(
            ios=ios,
            bytes=int(d.get("io_bytes", 0)),
            iops=float(d.get("iops", 0.0)) * time_scale,
            bytes_per_s=float(d.get("bw_bytes", 0.0)) * time_scale,
            mean_lat_ns=max(0.0, float(lat.get("mean", 0.0)) / time_scale - transport_ns),
            p99_lat_ns=max(0.0, p99 / time_scale - transport_ns),
        )
    runtime_s = max(float(entry.get(n, {}).get("runtime", 0)) for n in ("read", "write", "trim")) / 1000 / time_scale
    return Outcome(job, runtime_s, directions["read"], directions["write"], directions["trim"], bw_log)


def parse_bw_log(path: Path, time_scale: float) -> tuple[tuple[float, float], ...]:
    """fio's bandwidth log (``msec, KiB/s, direction, bs, offset`` per line) as (end of
    interval in s, bytes/s), intervals of several directions at one time summed."""
    per_time: dict[float, float] = {}
    if not path.is_file():
        return ()
    for line in path.read_text().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 2:
            continue
        try:
            t_ms, kib_per_s = float(parts[0]), float(parts[1])
        except ValueError:
            continue
        t = t_ms / 1000 / time_scale
        per_time[t] = per_time.get(t, 0.0) + kib_per_s * 1024 * time_scale
    return tuple(sorted(per_time.items()))


class Runner:
    """Runs jobs on one target and keeps a log of what it did (:attr:`steps`).

    Subclasses implement :meth:`_run`, :meth:`_idle` and :meth:`_purge`; the public methods
    log each step under the measurement that asked for it."""

    #: What the runner drives, for reports ("twin generic-tlc-1tb", "fio on /dev/nvme0n1").
    description: str = ""
    #: Whether writes are allowed (false for a read-only probe).
    writable: bool = True

    def __init__(self) -> None:
        self.steps: list[Step] = []
        #: Called once, right before the first job that writes (a last check of the target).
        self.before_first_write: Callable[[], None] | None = None

    def _about_to_write(self) -> None:
        if not self.writable:
            raise ProbeError("the probe is read-only; a measurement tried to write")
        if self.before_first_write is not None:
            check, self.before_first_write = self.before_first_write, None
            check()

    def run(self, job: Job, measurement: str) -> Outcome:
        """Runs ``job`` and returns what fio reported."""
        if _writes(job.rw):
            self._about_to_write()
        outcome = self._run(job)
        self.steps.append(Step(measurement, "job", job, outcome))
        return outcome

    def condition(self, job: Job, measurement: str) -> None:
        """Runs ``job`` to put the drive in a state, reading nothing from its outcome
        (a preconditioning pass). A simulated drive may run it untimed (:class:`TwinRunner`)."""
        if _writes(job.rw):
            self._about_to_write()
        self._condition(job)
        self.steps.append(Step(measurement, "condition", job))

    def _condition(self, job: Job) -> None:
        self._run(job)

    def health(self) -> Health | None:
        """The drive's temperature and over-temperature warning now, or None where the
        target does not report them (a file, an NBD export, a drive without nvme-cli)."""
        return None

    def idle(self, seconds: float, measurement: str, *, wake: bool = True) -> None:
        """Lets ``seconds`` of the drive's time pass with no I/O, then (``wake``) wakes the
        drive with one 4 KiB read: a host that enabled APST lets an idle drive enter a
        low-power state, and the first command after it waits for the state's exit
        latency, which would otherwise land in the next measurement."""
        self._idle(seconds)
        self.steps.append(Step(measurement, "idle", seconds=seconds))
        if wake:
            self.run(Job("wake", "read", 4096, size=4096, number_ios=1), measurement)

    def purge(self, measurement: str) -> None:
        """Unmaps every LBA (a format, or a TRIM of the whole target), so what follows
        starts from an empty drive."""
        self._about_to_write()
        self._purge()
        self.steps.append(Step(measurement, "purge"))

    def format_lba(self, index: int, measurement: str) -> None:
        """Formats the drive to LBA format ``index`` (unmapping everything)."""
        self._about_to_write()
        self._format_lba(index)
        self.steps.append(Step(measurement, f"format lbaf {index}"))

    #: Whether :meth:`format_lba` can switch formats on this target.
    can_format: bool = False

    def _format_lba(self, index: int) -> None:
        raise ProbeError(f"{self.description}: cannot switch LBA formats here")

    def _run(self, job: Job) -> Outcome:
        raise NotImplementedError

    def _idle(self, seconds: float) -> None:
        raise NotImplementedError

    def _purge(self) -> None:
        raise NotImplementedError


def _writes(rw: str) -> bool:
    """True if an fio ``rw`` value writes or trims."""
    kind = rw.split(":")[0]
    return "write" in kind or "trim" in kind or kind in ("rw", "randrw")


class TwinRunner(Runner):
    """A simulated drive, run by ssdtwin's own fio in virtual time.

    The drive sits in ``hmb_host``, whose NVMe driver grants it the Host Memory Buffer
    (``hmb``: ``auto``, ``off`` or a cap in MiB), and jobs run on ``host`` (default
    ``none``: measured at the drive's NVMe interface, with no host software costs)."""

    def __init__(
        self,
        profile: str | Path,
        overrides: Mapping[str, object] | None = None,
        *,
        host: str = "none",
        hmb_host: str = "linux-6.1",
        hmb: str | int = "auto",
    ) -> None:
        super().__init__()
        from ..device import Device

        self.device = Device(profile, overrides=overrides, host=hmb_host, hmb=hmb)
        self.host = host
        self.description = f"ssdtwin's fio on a simulated {self.device.profile_name} (host {host})"
        self._logs = Path(tempfile.mkdtemp(prefix="ssdtwin-probe-"))

    def _run(self, job: Job) -> Outcome:
        args = [*job.fio_options(1.0), "--ioengine=libaio", "--direct=1", "--group_reporting"]
        log = self._logs / f"{BW_LOG}_bw.1.log"
        log.unlink(missing_ok=True)
        result = self.device.run(args, host=self.host, log_dir=self._logs)
        return parse_fio_json(result.fio_json_text(), job, 1.0, parse_bw_log(log, 1.0))

    def _condition(self, job: Job) -> None:
        """Sequential writes of the whole drive and random 4 KiB overwrites run as the bulk
        fill's untimed paths, which leave the state timed writes would (a sequential fill
        exactly; random overwrites by the same process, GC's timing aside: docs/model.md,
        Bulk fill); anything else runs timed."""
        capacity = int(self.device.info()["capacity_bytes"])
        whole = job.offset == 0 and job.size in (None, capacity)
        passes = (job.io_size or capacity) / capacity
        if job.rw == "write" and whole and job.bs >= 128 << 10:
            for _ in range(max(1, round(passes))):
                self.device.fill("seq", command_bytes=job.bs)
        elif job.rw == "randwrite" and whole and job.bs == 4096:
            self.device.fill("overwrite", overwrite_passes=passes, seed=job.seed or 1)
        else:
            self._run(job)

    def _idle(self, seconds: float) -> None:
        self.device.idle(seconds)

    def health(self) -> Health | None:
        """The SMART log ``ssdtwin nvme smart-log`` prints: composite temperature and the
        temperature bit of Critical Warning."""
        log = self.device.health()
        return Health(int(log["temperature_kelvin"]), bool(int(log["critical_warning"]) & 0x02))

    def _purge(self) -> None:
        self.device.format()

    can_format = True

    def _format_lba(self, index: int) -> None:
        self.device.format(index)

    def close(self) -> None:
        """Removes the runner's scratch directory."""
        shutil.rmtree(self._logs, ignore_errors=True)


@dataclass
class FioTarget:
    """Where the real fio binary sends I/O: a block device or file (``filename``), or an
    NBD URI (the nbd engine), with the engine options that go with it."""

    filename: str | None = None
    uri: str | None = None
    ioengine: str = "libaio"
    direct: bool = True
    extra: list[str] = field(default_factory=list)

    def fio_options(self) -> list[str]:
        if self.uri is not None:
            return ["--ioengine=nbd", f"--uri={self.uri}", *self.extra]
        assert self.filename is not None, "a target has a filename or a URI"
        return [
            f"--filename={self.filename}",
            f"--ioengine={self.ioengine}",
            f"--direct={int(self.direct)}",
            *self.extra,
        ]


class FioRunner(Runner):
    """The installed fio binary against ``target``. ``time_scale`` K: the target is a twin
    served K times slower than wall time (``ssdtwin serve --time-scale K``). A purge (a TRIM
    of every LBA) is followed by ``purge_idle_s`` of the drive's time. ``health`` reads the
    drive's temperature where it can (:func:`.facts.nvme_health`)."""

    def __init__(
        self,
        target: FioTarget,
        *,
        time_scale: float = 1.0,
        read_only: bool = False,
        fio: str = "fio",
        timeout_s: float | None = None,
        purge_idle_s: float = 10.0,
        health: Callable[[], Health | None] | None = None,
    ) -> None:
        super().__init__()
        self.purge_idle_s = purge_idle_s
        self._health = health
        if shutil.which(fio) is None:
            raise ProbeError(f"fio is not installed ('{fio}' not found); install fio 3.x (apt-get install fio)")
        self.target = target
        self.time_scale = time_scale
        self.writable = not read_only
        self.fio = fio
        self.timeout_s = timeout_s
        where = target.uri or target.filename
        self.description = f"fio on {where}" + (f" (time scale {time_scale:g})" if time_scale != 1 else "")
        #: The drive's time an NBD transport adds to each request (its wall-clock round
        #: trip over the time scale), taken off every latency fio reports; none on a
        #: block device or file, where the kernel's path is the host's and stays in.
        self.transport_ns = 0.0
        if target.uri is not None:
            from .nbd import round_trip_s  # nbd builds Facts, which need this module

            self.transport_ns = round_trip_s(target.uri) * 1e9 / time_scale
            self.description += f"; its round trip ({self.transport_ns / 1e3:.1f} µs) taken off each latency"
        self._logs = Path(tempfile.mkdtemp(prefix="ssdtwin-probe-"))

    def command(self, job: Job) -> list[str]:
        """The fio command line for ``job``."""
        args = [self.fio, "--output-format=json", *job.fio_options(self.time_scale), *self.target.fio_options()]
        if not self.writable:
            args.append("--readonly")
        return [*args, "--group_reporting"]

    def _run(self, job: Job) -> Outcome:
        log = self._logs / f"{BW_LOG}_bw.1.log"
        log.unlink(missing_ok=True)
        try:
            out = subprocess.run(
                self.command(job), cwd=self._logs, capture_output=True, text=True, timeout=self.timeout_s, check=False
            )
        except subprocess.TimeoutExpired:
            raise ProbeError(f"fio job '{job.name}' did not finish within {self.timeout_s:g} s") from None
        if out.returncode != 0:
            last = (out.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise ProbeError(f"fio job '{job.name}' failed (status {out.returncode}): {last}")
        return parse_fio_json(out.stdout, job, self.time_scale, parse_bw_log(log, self.time_scale), self.transport_ns)

    def _idle(self, seconds: float) -> None:
        time.sleep(seconds * self.time_scale)

    def health(self) -> Health | None:
        """What ``health`` (given at construction: nvme-cli's SMART log of an NVMe drive)
        reads, or None."""
        return self._health() if self._health is not None else None

    def _purge(self) -> None:
        # A TRIM of every LBA, as R1 deallocated its drive before each write test, then the
        # wait R1 gave the drive to settle (ten seconds; ``purge_idle_s``).
        trim = Job("purge", "trim", 64 << 20, iodepth=16)
        self._run(trim)
        self._idle(self.purge_idle_s)

    def close(self) -> None:
        """Removes the runner's scratch directory."""
        shutil.rmtree(self._logs, ignore_errors=True)


def outcome_record(outcome: Outcome) -> dict[str, Any]:
    """A JSON-ready record of an outcome: the job's options and each direction's figures."""
    record: dict[str, Any] = {"job": {k: v for k, v in vars(outcome.job).items() if v is not None}}
    record["runtime_s"] = outcome.runtime_s
    for name in ("read", "write", "trim"):
        d = getattr(outcome, name)
        if d is not None:
            record[name] = vars(d)
    return record
