"""Options shared by commands that build a device."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..device import DEFAULT_PROFILE, Device

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
    return f


def parse_overrides(overrides: tuple[str, ...]) -> dict[str, str]:
    """``section.field=value`` strings as a dict of raw TOML values."""
    out = {}
    for o in overrides:
        key, sep, value = o.partition("=")
        if not sep or "." not in key:
            raise click.BadParameter(f"'{o}': expected SECTION.FIELD=VALUE", param_hint="--set")
        out[key.strip()] = value.strip()
    return out


def load_device(profile: str | None, state: Path | None, overrides: tuple[str, ...]) -> Device:
    """A device from a profile (with overrides) or from a state file; with neither, a fresh
    device of the default profile (what ``--profile`` promises)."""
    if state is not None:
        if profile is not None:
            raise click.UsageError("give --profile or --state, not both (a state carries its profile)")
        if overrides:
            raise click.UsageError("--set applies to profiles; a state keeps the profile it was saved with")
        return Device.load(state)
    raw = parse_overrides(overrides)
    # Values stay as the user wrote them: the core parses them as TOML.
    dev = Device.__new__(Device)
    from .. import _ssdtwin

    dev._dev = _ssdtwin.Device(profile or DEFAULT_PROFILE, [f"{k}={v}" for k, v in raw.items()], False)
    return dev
