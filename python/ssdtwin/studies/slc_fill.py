"""Whole-drive sequential fills as reviewers run them, so the twin can stand beside a review:

* ``slc-fill``, TechPowerUp's protocol: a freshly erased drive, one thread writing 1 MB
  blocks sequentially at QD1 over the whole capacity, the speed sampled twice a second;
* ``whole-fill``, AnandTech's: 128 KiB sequential writes at QD32 over an erased drive.

Each returns one row per sampling window: ``t_s``, ``written_gb`` (10⁹ B so far),
``write_mb_per_s`` (10⁶ B/s in the window), the drive's ``slc_cached_gb`` and
``folded_gb`` at its end, and, the same on every row of a drive, the summary a review
quotes: ``in_cache_mb_per_s``, ``cache_gb`` (written before the speed dropped),
``post_cache_mb_per_s`` (the mean after it) and ``whole_fill_avg_mb_per_s``.
"""

from __future__ import annotations

from collections.abc import Mapping

import click
import numpy as np
import pandas as pd

from ..device import Device
from .base import Advance, Study, seed_option

#: The drop: the first window from which the speed stays below this share of the in-cache
#: speed for ``DROP_WINDOWS`` windows (a review's "the speed drops after N GB").
DROP_SHARE = 0.6
DROP_WINDOWS = 6


def fill_sweep(
    profile: str,
    *,
    bs: str = "1m",
    iodepth: int = 1,
    window_ms: float = 500.0,
    overrides: Mapping[str, object] | None = None,
    host: str = "linux-6.1",
    seed: int = 1,
    advance: Advance = None,
) -> pd.DataFrame:
    """Formats ``profile`` and writes it once over, sequentially (see the module doc)."""
    dev = Device(profile, overrides=overrides, host=host)
    dev.format()
    job = [
        "--name=fill",
        "--rw=write",
        f"--bs={bs}",
        f"--iodepth={iodepth}",
        "--ioengine=libaio",
        "--direct=1",
        "--size=100%",
    ]
    series = dev.run(job, seed=seed, series_window_ms=window_ms).series.iloc[1:]
    table = pd.DataFrame(
        {
            "profile": profile,
            "host": host,
            "bs": bs,
            "iodepth": iodepth,
            "t_s": series.time_s.to_numpy(),
            "written_gb": series.host_write_bytes.to_numpy() / 1e9,
            "write_mb_per_s": series.write_mb_per_s.fillna(0.0).to_numpy(),
            "slc_cached_gb": series.slc_cached_bytes.to_numpy() / 1e9,
            "folded_gb": series.folded_bytes.to_numpy() / 1e9,
        }
    )
    for key, value in summary(table).items():
        table[key] = value
    if advance:
        advance(f"{profile} filled")
    return table


def summary(table: pd.DataFrame) -> dict[str, float]:
    """A review's figures of one fill: the in-cache speed (median of the first
    ``DROP_WINDOWS`` windows), where the speed dropped (``DROP_SHARE`` of it, held ``DROP_WINDOWS`` windows;
    the whole fill when it never did), the mean speed after the drop (NaN without one) and
    over the whole fill.

    >>> t = pd.DataFrame({"t_s": np.arange(1, 41) / 2, "write_mb_per_s": [1600.0] * 20 + [150.0] * 20})
    >>> t["written_gb"] = (t.write_mb_per_s * 0.5 / 1e3).cumsum()
    >>> {k: round(v) for k, v in summary(t).items()}
    {'in_cache_mb_per_s': 1600, 'cache_gb': 16, 'post_cache_mb_per_s': 150, 'whole_fill_avg_mb_per_s': 875}
    """
    rates = table.write_mb_per_s.to_numpy()
    written = table.written_gb.to_numpy()
    seconds = float(table.t_s.iloc[-1])
    whole = written[-1] * 1e3 / seconds if seconds > 0 else float("nan")
    in_cache = float(np.median(rates[:DROP_WINDOWS]))
    below = rates < DROP_SHARE * in_cache
    drop = next(
        (i for i in range(len(rates) - DROP_WINDOWS + 1) if below[i : i + DROP_WINDOWS].all()),
        None,
    )
    if drop is None:
        return {
            "in_cache_mb_per_s": in_cache,
            "cache_gb": float(written[-1]),
            "post_cache_mb_per_s": float("nan"),
            "whole_fill_avg_mb_per_s": whole,
        }
    cache_gb = float(written[drop - 1]) if drop else 0.0
    after_s = seconds - float(table.t_s.iloc[drop - 1] if drop else 0.0)
    return {
        "in_cache_mb_per_s": in_cache,
        "cache_gb": cache_gb,
        "post_cache_mb_per_s": (written[-1] - cache_gb) * 1e3 / after_s,
        "whole_fill_avg_mb_per_s": whole,
    }


SUMMARY_KEYS = ("in_cache_mb_per_s", "cache_gb", "post_cache_mb_per_s", "whole_fill_avg_mb_per_s")


def report(table: pd.DataFrame) -> str:
    """One line per drive: the figures a review quotes."""
    lines = []
    for profile, t in table.groupby("profile", sort=False):
        s = t.iloc[0]
        gb = float(t.written_gb.iloc[-1])
        post = "" if np.isnan(s.post_cache_mb_per_s) else f"; after it {s.post_cache_mb_per_s:,.0f} MB/s"
        lines.append(
            f"{profile}: {s.in_cache_mb_per_s:,.0f} MB/s for the first {s.cache_gb:,.1f} GB{post}; "
            f"{gb:,.0f} GB in {float(t.t_s.iloc[-1]):,.0f} s, {s.whole_fill_avg_mb_per_s:,.0f} MB/s on average "
            "(MB = 10^6 B)"
        )
    return "\n".join(lines)


def _sweep(
    advance: Advance,
    profile: str,
    host: str,
    overrides: Mapping[str, object],
    seed: int,
    bs: str,
    iodepth: int,
) -> pd.DataFrame:
    return fill_sweep(profile, bs=bs, iodepth=iodepth, host=host, overrides=overrides, seed=seed, advance=advance)


def _fill_study(name: str, bs: str, iodepth: int, help: str) -> Study:
    return Study(
        name=name,
        profile="crucial-p1",
        help=help,
        options=[
            click.Option(["--bs"], default=bs, show_default=True, help="Bytes per write (fio's bs)."),
            click.Option(
                ["--iodepth"], type=click.IntRange(1, 4096), default=iodepth, show_default=True, help="Queue depth."
            ),
            seed_option(),
        ],
        sweep=_sweep,
        count=lambda **_: 1,
        report=lambda table, **_: report(table),
    )


SLC_FILL = _fill_study(
    "slc-fill",
    "1m",
    1,
    "TechPowerUp's fill: 1 MB sequential writes at QD1 over an erased drive, speed twice a second.",
)
WHOLE_FILL = _fill_study(
    "whole-fill",
    "128k",
    32,
    "AnandTech's fill: 128 KiB sequential writes at QD32 over an erased drive.",
)
