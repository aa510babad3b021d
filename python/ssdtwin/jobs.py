"""Turning the ways a user can give a job into what the core parses.

A job may be fio command-line arguments (``["--name=a", "--rw=randread"]``), the text of a
job file, the path of a job file, or a dict: flat (``{"rw": "randread", "bs": "4k"}``, one
job) or nested by section (``{"global": {...}, "a": {...}, "b": {...}}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import JobError


@dataclass(frozen=True)
class JobInput:
    """What to hand the core: fio-style arguments, or job-file text with its origin."""

    args: list[str]
    text: str | None = None
    source: str = "job"
    base_dir: str = "."


#: Time options whose plain numbers fio reads as seconds.
SECONDS_OPTIONS = frozenset({"runtime", "timeout", "ramp_time", "startdelay", "thinktime_iotime"})


def _option_args(options: Mapping[str, object]) -> list[str]:
    args = []
    for key, value in options.items():
        if isinstance(value, Mapping):
            raise JobError(f"job dict: option '{key}' has a nested dict; nest jobs one level only")
        if value is True:
            args.append(f"--{key}")
        elif value is False or value is None:
            continue
        elif isinstance(value, float) and key in SECONDS_OPTIONS:
            # fio reads whole numbers only; a float of seconds becomes whole microseconds
            # (fio's own resolution), so {"runtime": 0.5} means runtime=500000us.
            if not value >= 0 or value * 1e6 >= 2**63:
                raise JobError(f"job dict: {key}={value}: expected seconds, 0 or more")
            args.append(f"--{key}={round(value * 1e6)}us")
        else:
            args.append(f"--{key}={value}")
    return args


def _is_file(text: str) -> bool:
    """True if ``text`` names an existing file; names the OS cannot take are not files."""
    try:
        return Path(text).is_file()
    except OSError:  # e.g. ENAMETOOLONG: certainly not a job file
        return False


def job_input(job: str | Path | Mapping[str, object] | Sequence[str]) -> JobInput:
    """Classifies ``job`` (see the module doc).

    >>> job_input({"rw": "randread", "bs": "4k", "time_based": True}).args
    ['--name=job', '--rw=randread', '--bs=4k', '--time_based']
    >>> job_input({"runtime": 0.5, "ramp_time": 1}).args
    ['--name=job', '--runtime=500000us', '--ramp_time=1']
    >>> job_input({"global": {"bs": "4k"}, "a": {"rw": "read"}, "b": {"name": "bee", "rw": "write"}}).args
    ['--bs=4k', '--name=a', '--rw=read', '--name=bee', '--rw=write']
    >>> job_input("[a]\\nrw=write\\n").text
    '[a]\\nrw=write\\n'
    """
    if isinstance(job, Path) or (isinstance(job, str) and "\n" not in job and _is_file(job)):
        return JobInput(args=[str(job)])
    if isinstance(job, str):
        if "\n" in job or job.lstrip().startswith("["):
            return JobInput(args=[], text=job, source="<job text>", base_dir=str(Path.cwd()))
        raise JobError(f"job '{job}': not a job file, job text, dict or argument list")
    if isinstance(job, Mapping):
        if job and all(isinstance(v, Mapping) for v in job.values()):
            args: list[str] = []
            sections = dict(job)
            glob = sections.pop("global", None)
            if isinstance(glob, Mapping):
                args += _option_args(glob)
            for section, options in sections.items():
                assert isinstance(options, Mapping)
                # As in a job file, name= inside a section renames that job; on a command
                # line a second --name would start another job instead.
                rest = dict(options)
                name = rest.pop("name", section)
                args += [f"--name={name}", *_option_args(rest)]
            return JobInput(args=args)
        options = dict(job)
        name = str(options.pop("name", "job"))
        return JobInput(args=[f"--name={name}", *_option_args(options)])
    if isinstance(job, Sequence) and all(isinstance(a, str) for a in job):
        return JobInput(args=list(job))
    raise JobError(f"job of type {type(job).__name__}: give fio arguments, job text, a job file path or a dict")
