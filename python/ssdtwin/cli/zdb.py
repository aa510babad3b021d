"""``ssdtwin zdb -bbb``: a simulated pool's block statistics, as ``zdb`` prints them."""

from __future__ import annotations

from pathlib import Path

import click

from ..zfs import zdb_text
from .zfs import load_pool, pool_options


@click.command("zdb")
@click.option("-b", "b", count=True, help="Block statistics: -b summary, -bb by type and histogram, -bbb by level.")
@click.option("-L", "no_leaks", is_flag=True, help="As zdb's: skip the leak check (it always passes here).")
@click.option("-P", "parsable", is_flag=True, help="Exact numbers instead of human-readable ones.")
@click.option("-s", "stats", is_flag=True, help="Accepted as zdb's (I/O statistics are not printed).")
@pool_options
def command(
    b: int,
    no_leaks: bool,
    parsable: bool,
    stats: bool,
    pool: str | None,
    state: Path | None,
    overrides: tuple[str, ...],
    host: str,
    host_overrides: tuple[str, ...],
) -> None:
    """Traverse every block of a simulated pool and print zdb's statistics: counts and sizes
    by type and level, the Metadata Total, and the block-size histogram (the input of
    'ssdtwin zfs plan --zdb').

    \b
      ssdtwin zfs run --pool hdd-mirror-special --files 100000 --ops create --save-state tank.state
      ssdtwin zdb -Lbbbs --state tank.state
    """
    del stats
    if b == 0:
        raise click.UsageError("give -b (up to -bbb): the block statistics are what ssdtwin zdb prints")
    p = load_pool(pool, state, overrides, host, host_overrides)
    p.check()
    click.echo(zdb_text(p.block_stats(), b=b, parsable=parsable, leaks_checked=not no_leaks), nl=False)
