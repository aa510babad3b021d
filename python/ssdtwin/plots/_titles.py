"""What the study figures say about themselves: who a figure is about (drive and host, from
the table's columns or, for tables without a ``host`` column, from what the study noted in
``table.attrs``) and the unit families their labels use."""

from __future__ import annotations

import pandas as pd

from .base import drive_and_host

#: Decimal units, as the studies count rates and amounts (10⁶ B/s, 10⁹ B).
MB_PER_S = "MB/s (10^6 B/s)"
GB = "GB, 10^9 B"
#: Binary units, for figures whose table counts in them (stated where they are used).
GIB = "GiB, 2^30 B"
#: Bytes per MiB over bytes per MB: a rate in MiB/s times this is the rate in MB/s.
MB_PER_MIB = 2**20 / 1e6


def who(table: pd.DataFrame) -> str:
    """``PROFILE on HOST`` for a figure's title: :func:`~ssdtwin.plots.base.drive_and_host`,
    with the host a study noted in ``table.attrs["host"]`` when the table has no ``host``
    column, and the host ``none`` said in words.

    >>> t = pd.DataFrame({"profile": ["p32a80"]})
    >>> t.attrs["host"] = "none"
    >>> who(t)
    'p32a80 on no host (the drive alone)'
    """
    if "host" not in table and "host" in table.attrs:
        table = table.assign(host=str(table.attrs["host"]))
    text = drive_and_host(table)
    return text.replace(" on none", " on no host (the drive alone)") if text.endswith(" on none") else text
