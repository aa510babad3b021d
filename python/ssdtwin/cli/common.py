"""Options shared by commands that build a device."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..device import DEFAULT_HOST, DEFAULT_PROFILE, Device, RawToml
from ..params import FiniteFloat

F = TypeVar("F", bound=Callable[..., Any])


def profile_options(f: F) -> F:
    """``--profile``, ``--state`` and ``--set`` for commands that simulate a drive."""
    f = click.option(
        "--set",
        "overrides",
        multiple=True,
        metavar="SECTION.FIELD=VALUE",
        help="Change a profile field (repeatable), e.g. --set nand.channels=16.",
    )(f)
    f = click.option(
        "--state",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Start from a saved device state (it carries its profile).",
    )(f)
    f = click.option("--profile", help="Shipped profile name or TOML file (default: generic-tlc-1tb).")(f)
    f = click.option(
        "--max-memory",
        type=FiniteFloat(min=0, min_open=True),
        metavar="GIB",
        expose_value=False,
        callback=_remember_max_memory,
        help="Memory the drive's model may take (default: the machine's memory and swap).",
    )(f)
    return f


def _remember_max_memory(ctx: click.Context, _param: click.Parameter, value: float | None) -> None:
    """Keeps ``--max-memory`` for :func:`load_device` (commands need not pass it along)."""
    if value is not None:
        ctx.meta["ssdtwin.max_memory_gib"] = value


def host_options(default: str = DEFAULT_HOST) -> Callable[[F], F]:
    """``--host``, ``--host-set`` and ``--hmb`` for commands that put a drive in a machine."""

    def decorate(f: F) -> F:
        f = click.option(
            "--hmb",
            "hmb",
            default="auto",
            show_default=True,
            help="Host Memory Buffer cap of the host's NVMe driver: off, auto (the host's default) or MiB.",
        )(f)
        f = click.option(
            "--host-set",
            "host_overrides",
            multiple=True,
            metavar="SECTION.FIELD=VALUE",
            help="Change a host profile field (repeatable), e.g. --host-set cpu.cores=4.",
        )(f)
        f = click.option(
            "--host",
            "host",
            default=default,
            show_default=True,
            help="Host profile (shipped name or TOML file): the machine and OS the drive is in; "
            "'none' for the drive alone.",
        )(f)
        return f

    return decorate


#: The simulated drive's device names: its controller and its one namespace.
DEVICE_NAMES = ("/dev/nvme0", "/dev/nvme0n1")


def check_device_name(name: str) -> str:
    """``name`` if it names the simulated drive (as users paste ``nvme id-ctrl /dev/nvme0``);
    otherwise a usage error saying which names there are."""
    if name not in DEVICE_NAMES:
        raise click.UsageError(
            f"'{name}': the simulated drive is /dev/nvme0 (namespace /dev/nvme0n1); choose it with --profile or --state"
        )
    return name


class OutputFile(click.Path):
    """A file ssdtwin writes: a new path or an existing regular file, never a device, FIFO,
    socket or directory, whatever the flags (a report or a state written onto a block device
    destroys what is on it)."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        converted = super().convert(value, param, ctx)
        assert isinstance(converted, Path)  # path_type=Path
        path = converted
        # Checked before anything is simulated: a run must not end in a write that cannot be.
        parent = path.absolute().parent
        if not parent.is_dir():
            self.fail(f"'{value}': its directory {parent} does not exist (or is not a directory)", param, ctx)
        if os.path.lexists(path) and not path.is_file():
            self.fail(
                f"'{value}' is not a regular file (a device, FIFO or socket); ssdtwin writes only files", param, ctx
            )
        # Files are placed through a temporary file beside them: the directory must take one.
        try:
            with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{path.name}.", suffix=".check"):
                pass
        except OSError as e:
            self.fail(f"'{value}': cannot write in {parent} ({e.strerror or e})", param, ctx)
        return path


def write_state(target: Any, path: Path, force: bool, option: str = "--save-state") -> None:
    """Saves a drive's or pool's state to ``path``: replacing a file there only with
    ``force``, and placing it exclusively otherwise, so that of two runs saving to one new
    name, one wins and the other is told. The loser's state is kept beside it, not lost."""
    try:
        target.save(path, overwrite=force)
    except FileExistsError:
        kept = path.with_name(f"{path.name}.{os.getpid()}")
        target.save(kept, overwrite=False)
        raise click.UsageError(
            f"{option} {path} was written by another run meanwhile; this state is in {kept} (add --force to replace)"
        ) from None


def save_figure(figure: Any, path: Path) -> None:
    """Saves a matplotlib figure to ``path`` (its suffix names the format) through a
    temporary file renamed over it, then closes the figure."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp{path.suffix}")
    try:
        figure.savefig(tmp, dpi=120, bbox_inches="tight")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        import matplotlib.pyplot as plt

        plt.close(figure)


class CInteger(click.ParamType[int, Any]):
    """An integer as nvme-cli's option parser reads one (``strtoul`` base 0: ``13``, ``0x0d``,
    ``015``), within ``[low, high]``."""

    name = "integer"

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            number = value
        else:
            text = str(value).strip().lower()
            try:
                number = int(text, 8) if len(text) > 1 and text.startswith("0") and text[1].isdigit() else int(text, 0)
            except ValueError:
                self.fail(f"'{value}' is not an integer (decimal, 0x hex or 0 octal)", param, ctx)
        if not self.low <= number <= self.high:
            self.fail(f"{value} is outside {self.low:#x}..{self.high:#x}", param, ctx)
        return number


def device_argument(f: F) -> F:
    """An optional DEVICE argument, as nvme-cli and smartctl take one: the simulated
    drive's name or nothing."""
    return _device_argument(expose=False)(f)


def named_device_argument(f: F) -> F:
    """:func:`device_argument` passed to the command as ``device`` (``/dev/nvme0`` when not
    given), for outputs that print the name."""
    return _device_argument(expose=True)(f)


def _device_argument(*, expose: bool) -> Callable[[F], F]:
    def check(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str:
        return DEVICE_NAMES[0] if value is None else check_device_name(value)

    return click.argument(
        "device", required=False, metavar="[/dev/nvme0|/dev/nvme0n1]", callback=check, expose_value=expose
    )


def parse_overrides(overrides: tuple[str, ...], option: str = "--set") -> dict[str, str]:
    """``section.field=value`` strings as a dict of raw TOML values."""
    out = {}
    for o in overrides:
        key, sep, value = o.partition("=")
        if not sep or "." not in key:
            raise click.BadParameter(f"'{o}': expected SECTION.FIELD=VALUE", param_hint=option)
        out[key.strip()] = value.strip()
    return out


def load_device(
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str = DEFAULT_HOST,
    host_overrides: tuple[str, ...] = (),
    hmb: str = "auto",
) -> Device:
    """A device from a profile (with overrides) or from a state file; with neither, a fresh
    device of the default profile (what ``--profile`` promises). It sits in ``host``, whose
    NVMe driver grants it the HMB ``hmb`` asks for."""
    # Values stay as the user wrote them: the core parses them as TOML.
    host_raw = {k: RawToml(v) for k, v in parse_overrides(host_overrides, "--host-set").items()}
    ctx = click.get_current_context(silent=True)
    max_memory = None if ctx is None else ctx.meta.get("ssdtwin.max_memory_gib")
    if state is not None:
        if profile is not None:
            raise click.UsageError("give --profile or --state, not both (a state carries its profile)")
        if overrides:
            raise click.UsageError("--set applies to profiles; a state keeps the profile it was saved with")
        return Device.load(state, host=host, host_overrides=host_raw, hmb=hmb, max_memory_gib=max_memory)
    raw = {k: RawToml(v) for k, v in parse_overrides(overrides).items()}
    return Device(
        profile or DEFAULT_PROFILE,
        host=host,
        host_overrides=host_raw,
        hmb=hmb,
        overrides=raw,
        max_memory_gib=max_memory,
    )
