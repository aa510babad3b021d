#!/usr/bin/env python3
"""A tour of the Python API: build a drive from a shipped profile, precondition it, save and
reload its state, run fio jobs given as a dict and as job-file text, and read the results
as pandas DataFrames: the fio summary, the device counters, and their time series.

    python3 examples/python_api.py [OUT_DIR]

It compares random reads on the DRAM-less `p32a80` with 8 MiB of Host Memory Buffer (the
map cache still warming up: most reads load a translation page from flash) and with its
preferred 240 MiB (the whole map), then writes 4 GiB into the SLC cache of `crucial-p1` and plots
the cache filling against time (OUT_DIR/slc_fill.png, default the current directory).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import ssdtwin

READS = {
    "name": "randread",
    "rw": "randread",
    "bs": "4k",
    "ioengine": "libaio",
    "iodepth": 16,
    "numjobs": 8,
    "size": "64g",
    "runtime": "200ms",
    "time_based": True,
}

# The same kind of job as fio job-file text: 128 KiB sequential writes at QD32.
WRITES = """
[global]
ioengine=libaio
direct=1
bs=128k
iodepth=32

[fill-slc]
rw=write
size=4g
"""


def hmb_comparison(state: Path) -> None:
    """Fill once, save the state, and load it for each HMB size."""
    dev = ssdtwin.Device("p32a80")
    dev.fill("seq", 100)
    dev.save(state, overwrite=True)
    for hmb in (8, 240):
        drive = ssdtwin.Device.load(state)
        drive.set_hmb(hmb)
        result = drive.run(READS)
        iops = result.summary.iops.sum()  # one row per clone: the group is their sum
        counters = drive.counters()
        hit = (counters["map_sram_hits"] + counters["map_hmb_hits"]) / counters["map_lookups"]
        print(f"p32a80, HMB {hmb:3d} MiB: {iops:9,.0f} IOPS over 64 GiB, map hit ratio {hit:.2f}")


def slc_fill(out: Path) -> None:
    """Sequential writes into the SLC cache, sampled over time."""
    dev = ssdtwin.Device("crucial-p1")
    result = dev.run(WRITES)
    s = result.summary.iloc[0]
    internals = result.json["jobs"][0]["ssdtwin"]  # the device counters fio's JSON carries
    cached = internals["slc_cached_bytes"] / 2**30
    print(f"crucial-p1: 4 GiB written at {s.bw_mb_per_s:,.0f} MB/s, {cached:.2f} GiB of it in the SLC cache")
    series = result.series
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(series.time_s, series.slc_cached_bytes / 2**30, label="SLC-cached data")
    ax.plot(series.time_s, series.host_write_bytes / 2**30, ls="--", label="host writes")
    ax.set(xlabel="simulated s", ylabel="GiB", title="crucial-p1: writing into the SLC cache")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "slc_fill.png", dpi=100)
    print(f"wrote {out / 'slc_fill.png'} ({len(series)} samples)")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        hmb_comparison(Path(tmp) / "p32a80.state")
    slc_fill(out)


if __name__ == "__main__":
    main()
