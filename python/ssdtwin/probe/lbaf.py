"""LBA formats and what each costs, where the drive lists several (R4's question: which
format performs, whatever the Relative Performance field says).

For each format the drive is formatted to it (``nvme format --lbaf``; a simulated drive's
Format NVM), a 64 MiB region is written in order, and the same jobs run on it: QD1 4 KiB
random reads and writes, random writes at depth 32 of 4 KiB and of one LBA (512 B on a 512 B
format: what a sub-4 KiB write costs, a read-modify-write of the 4 KiB map unit). Each
format's score is its throughput on every test over the best format's, as a geometric mean;
the Relative Performance it deserves follows :func:`ssdtwin.studies.lbaf.deserved_rp`. The
drive is formatted back to the format it was in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from ..studies.lbaf import deserved_rp
from .estimate import Estimate
from .facts import Facts
from .runner import Job, Runner
from .settings import Settings

MEASUREMENT = "lbaf"
REGION = 64 << 20


@dataclass(frozen=True)
class Formats:
    """One row per format and test (``lbaf``, ``data_bytes``, ``metadata_bytes``, ``test``,
    ``bs``, ``iodepth``, ``iops``, ``mb_per_s``, ``mean_lat_us``), and the estimates."""

    table: pd.DataFrame
    estimates: list[Estimate]


def measure_lbaf(runner: Runner, facts: Facts, settings: Settings) -> Formats:
    """Every format the drive lists, measured (see the module doc)."""
    rows = []
    for index, fmt in enumerate(facts.lba_formats):
        runner.format_lba(index, MEASUREMENT)
        runner.run(Job(f"lbaf {index}: region", "write", 128 << 10, iodepth=32, size=REGION), MEASUREMENT)
        runner.idle(0.5, MEASUREMENT)
        tests = (
            ("QD1 read 4K", "randread", 4096, 1),
            ("QD1 write 4K", "randwrite", 4096, 1),
            ("QD32 write 4K", "randwrite", 4096, 32),
            ("QD32 write 1 LBA", "randwrite", fmt.data_bytes, 32),
        )
        for test, rw, bs, depth in tests:
            # Writes run half a second unmeasured first: what the write buffer absorbs fast
            # is not the format's cost.
            ramp = max(0.5, settings.point_s) if "write" in rw else 0.0
            job = Job(
                f"lbaf {index}: {test}", rw, bs, iodepth=depth, size=REGION, runtime_s=settings.point_s, ramp_s=ramp
            )
            d = runner.run(job, MEASUREMENT).main
            rows.append(
                {"lbaf": index, "data_bytes": fmt.data_bytes, "metadata_bytes": fmt.metadata_bytes}
                | {"advertised_rp": fmt.relative_performance, "test": test, "bs": bs, "iodepth": depth}
                | {"iops": d.iops, "mb_per_s": d.bytes_per_s / 1e6, "mean_lat_us": d.mean_lat_ns / 1e3}
            )
    runner.format_lba(facts.current_format or 0, MEASUREMENT)
    table = pd.DataFrame(rows)
    return Formats(table, infer_lbaf(table))


def infer_lbaf(table: pd.DataFrame) -> list[Estimate]:
    """Each format's score (geometric mean of its MB/s over the best format's, test by
    test, on the tests every format ran) and the Relative Performance that deserves."""
    common = table.groupby("test").lbaf.nunique()
    shared = table[table.test.isin(common[common == table.lbaf.nunique()].index)]
    best = shared.groupby("test").mb_per_s.max()
    estimates = []
    for lbaf, rows in shared.groupby("lbaf"):
        ratios = [r.mb_per_s / best[r.test] for r in rows.itertuples()]
        score = math.exp(sum(math.log(max(x, 1e-9)) for x in ratios) / len(ratios))
        advertised = int(rows.advertised_rp.iloc[0])
        fmt = f"{int(rows.data_bytes.iloc[0])}+{int(rows.metadata_bytes.iloc[0])} B"
        estimates.append(
            Estimate(
                f"lbaf{lbaf}_deserved_rp",
                deserved_rp(score),
                "RP",
                None,
                f"LBA format {lbaf} ({fmt}): QD1 and QD32 random reads and writes",
                f"score {score:.3f} (MB/s over the best format's, geometric mean); advertised RP {advertised}",
            )
        )
    return estimates
