"""``ssdtwin precondition``: fill a drive and save its state, so later runs start from it."""

from __future__ import annotations

from pathlib import Path

import click

from ..device import DEFAULT_SETUP_SEED
from ..params import SEED
from . import progress
from .common import OutputFile, load_device, profile_options, write_state


def parse_fill(value: str) -> tuple[str, float]:
    """``seq``, ``random``, ``steady`` or any with ``:PERCENT``.

    >>> parse_fill("random:90")
    ('random', 90.0)
    """
    kind, _, pct = value.partition(":")
    if kind not in ("seq", "random", "steady"):
        raise click.BadParameter(
            f"'{value}': allowed seq, random, steady, seq:PERCENT, random:PERCENT, steady:PERCENT", param_hint="--fill"
        )
    try:
        percent = float(pct) if pct else 100.0
    except ValueError:
        raise click.BadParameter(f"'{value}': PERCENT must be a number from 0 to 100", param_hint="--fill") from None
    if not 0.0 <= percent <= 100.0:
        raise click.BadParameter(f"'{value}': PERCENT must be from 0 to 100", param_hint="--fill")
    return kind, percent


@click.command("precondition")
@profile_options
@click.option(
    "--fill",
    "fill",
    required=True,
    help="seq|random|steady[:PERCENT] (random also overwrites twice at random; steady writes in order twice first).",
)
@click.option("--exact", is_flag=True, help="Place every random overwrite instead of sampling GC (slow).")
@click.option("--save", "save", required=True, type=OutputFile(), help="State file to write.")
@click.option("--force", is_flag=True, help="Replace the state file if it exists.")
@click.option("--seed", type=SEED, default=DEFAULT_SETUP_SEED, show_default=True, help="Seed of the random fill.")
def command(
    profile: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    fill: str,
    save: Path,
    force: bool,
    seed: int,
    exact: bool,
) -> None:
    """Fill a simulated drive (without simulating time) and save its state.

    A sequential fill writes the first PERCENT of the namespace in order; a random fill does
    that, then overwrites it at random twice over, which brings GC to steady state; a steady
    fill writes it in order twice before the random passes (SNIA PTS preconditioning). The
    random passes are sampled superblock by superblock, seconds per TiB; --exact places
    every write instead (hours for large drives).
    """
    kind, percent = parse_fill(fill)
    if save.exists() and not force:
        raise click.UsageError(f"{save} exists; add --force to replace it")
    device = load_device(profile, state, overrides)
    with progress.fill_bar(f"{kind} fill", progress.wanted(False)) as bar:
        device.fill(kind, percent, seed=seed, progress=bar, exact=exact)
    write_state(device, save, force, "--save")
    c = device.counters()
    click.echo(
        f"{save}: {device.profile_name}, {kind} fill of {percent:g}% "
        f"({c['host_write_bytes'] / 2**30:.1f} GiB written, {c['gc_jobs']} GC jobs)"
    )
