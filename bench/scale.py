#!/usr/bin/env python3
"""Preconditioning and reads against capacity, and the README command's wall time: prints
one JSON object.

Builds and runs the Rust benchmark `crates/ssdtwin-core/examples/scale.rs` (release mode,
one process per phase and size, so each has its memory to itself) on the shipped
`generic-tlc-1tb` scaled to each capacity, then times the README's first command:

    python3 bench/scale.py [--sizes 256,1024,4096,8192] [--steady-sizes 256,1024,4096] [--seconds 10]
                           [--repeat 3] [--no-readme]

Keys, per size in GiB: ``fill_seq_s_per_tib`` (bulk sequential fill), ``fill_steady_s_per_tib``
(sequential fill then two random passes with GC, sampled), ``randread_ios_per_s`` (4 KiB
random reads at QD128 for SECONDS of simulated time on the sequentially filled drive),
``randread_steady_ios_per_s`` (the same on the steady-state drive, whose map is written out
in full), with each run's peak resident memory. Each read figure is the median of
``--repeat`` runs, each a process of its own, with every run's figure beside it
(``randread_ios_per_s_runs``): on a virtual machine the first touch of memory varies from
run to run (the hypervisor backs pages afresh), and the median is the simulator's own speed.
``readme_command_wall_s`` is
``ssdtwin study cdm --profile micron-9200max`` into a temporary directory (or, where that
command fails, a string saying why: the other figures are kept). A size whose
model would not fit in the machine's available memory (8 bytes per 4 KiB for a
steady-state map, 0.2 for a sequential one, plus fio's random map) is skipped and said so.
Wall-clock figures depend on the machine's load: on a shared machine run it twice.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import commit, machine

ROOT = Path(__file__).resolve().parents[1]
EXE = ROOT / "target" / "release" / "examples" / "scale"


def available_bytes() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def needed_bytes(phase: str, gib: int) -> int:
    units = gib << 18
    per_unit = {"fill-seq": 0.2, "read": 0.4, "fill-steady": 8.6, "read-steady": 8.8}[phase]
    return int(units * per_unit) + (256 << 20)


def read_rate(figures: dict[str, object]) -> float | None:
    rate = figures.get("randread_ios_per_s")
    return float(rate) if isinstance(rate, (int, float)) else None


def run_median(phase: str, gib: int, seconds: int, repeat: int) -> tuple[dict[str, object], list[float]]:
    """The run of `repeat` whose random-read rate is the median (the lower middle one for an
    even count), and every run's rate in the order run; the first run if none has a rate."""
    runs = [run(phase, gib, seconds) for _ in range(repeat)]
    rated = [(rate, r) for r in runs if (rate := read_rate(r)) is not None]
    if not rated:
        return runs[0], []
    by_rate = sorted(rated, key=lambda pair: pair[0])
    return by_rate[(len(by_rate) - 1) // 2][1], [rate for rate, _ in rated]


def run(phase: str, gib: int, seconds: int) -> dict[str, object]:
    if needed_bytes(phase, gib) > 0.8 * available_bytes():
        return {"skipped": f"needs about {needed_bytes(phase, gib) / 2**30:.1f} GiB; not that much memory is free"}
    out = subprocess.run([str(EXE), phase, str(gib), str(seconds)], capture_output=True, text=True, check=True)
    figures: dict[str, object] = json.loads(out.stdout)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="256,1024,4096,8192", help="GiB, comma-separated (sequential fills, reads)")
    parser.add_argument("--steady-sizes", default="256,1024,4096", help="GiB for the steady-state fills")
    parser.add_argument("--seconds", type=int, default=10, help="simulated seconds of random reads")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each read phase; the median is reported")
    parser.add_argument("--no-readme", action="store_true", help="skip timing the README command")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "ssdtwin-core", "--example", "scale"], cwd=ROOT, check=True
    )
    sizes = [int(s) for s in args.sizes.split(",") if s]
    steady = [int(s) for s in args.steady_sizes.split(",") if s]
    result: dict[str, object] = {}
    for gib in sizes:
        seq = run("fill-seq", gib, args.seconds)
        read, rates = run_median("read", gib, args.seconds, args.repeat)
        result[f"{gib}_gib"] = {
            "fill_seq_s_per_tib": seq.get("fill_s_per_tib", seq.get("skipped")),
            "fill_seq_peak_rss_bytes": seq.get("peak_rss_bytes"),
            "randread_ios_per_s": read.get("randread_ios_per_s", read.get("skipped")),
            "randread_ios_per_s_runs": rates,
            "randread_peak_rss_bytes": read.get("peak_rss_bytes"),
        }
    for gib in steady:
        fill = run("fill-steady", gib, args.seconds)
        read, rates = run_median("read-steady", gib, args.seconds, args.repeat)
        entry = result.setdefault(f"{gib}_gib", {})
        assert isinstance(entry, dict)
        entry.update(
            {
                "fill_steady_s_per_tib": fill.get("fill_s_per_tib", fill.get("skipped")),
                "fill_steady_write_amplification": fill.get("fill_write_amplification"),
                "fill_steady_peak_rss_bytes": fill.get("peak_rss_bytes"),
                "randread_steady_ios_per_s": read.get("randread_ios_per_s", read.get("skipped")),
                "randread_steady_ios_per_s_runs": rates,
            }
        )
    if not args.no_readme:
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            readme = subprocess.run(
                [sys.executable, "-m", "ssdtwin", "study", "cdm", "--profile", "micron-9200max", "--out", out],
                capture_output=True,
                text=True,
            )
            if readme.returncode == 0:
                result["readme_command_wall_s"] = round(time.perf_counter() - t, 2)
            else:
                # The figures above stand; say why this one is missing rather than lose them.
                why = (readme.stderr.strip().splitlines() or [f"exit status {readme.returncode}"])[-1]
                result["readme_command_wall_s"] = f"failed ({sys.executable}): {why}"
    result.update(
        {
            "machine": machine(),
            "load_average": os.getloadavg(),
            "commit": commit(),
            "command": "python3 bench/scale.py " + " ".join(sys.argv[1:]),
        }
    )
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
