#!/usr/bin/env python3
"""Speed and memory of the simulation core: prints one JSON object.

Builds and runs the Rust benchmark `crates/ssdtwin-core/examples/speed.rs` (release mode,
no Python in the process, so resident memory is the model's own) and adds the machine and
commit, as docs/performance.md records them:

    python3 bench/speed.py [SECONDS]

Keys: ``randread_ios_per_s`` (4 KiB random reads, 128 outstanding, sequentially filled
256 GiB DRAM-mapped TLC drive), ``randwrite_gc_ios_per_s`` (4 KiB random writes on a drive
filled to 90 % and preconditioned to GC steady state), ``randread_spread_ios_per_s`` and
``randread_host_ios_per_s`` (the reads as 16 jobs of 8, on the bare twin and through the
``linux-6.1`` host stack) with ``host_stack_speed_share``, the second over the first,
``bytes_per_4k`` (peak RSS over the capacity in 4 KiB units), plus phase timings.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def machine() -> dict[str, object]:
    cpu = ""
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        cpu = platform.processor()
    mem_kib = 0
    with contextlib.suppress(OSError, StopIteration, ValueError):
        mem_kib = int(
            next(x.split()[1] for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal"))
        )
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(mem_kib / 2**20, 1)}


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> int:
    seconds = sys.argv[1] if len(sys.argv) > 1 else "4"
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "ssdtwin-core", "--example", "speed"], cwd=ROOT, check=True
    )
    exe = ROOT / "target" / "release" / "examples" / "speed"
    out = subprocess.run([str(exe), seconds], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    figures = json.loads(out)
    figures.update({"machine": machine(), "commit": commit(), "command": f"python3 bench/speed.py {seconds}"})
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
