#!/usr/bin/env python3
"""Wall time of the memory study (reference R6), printed as one JSON object:

    python3 bench/memory_study.py [EXTRA-OPTIONS...]

Runs ``ssdtwin study memory`` with its defaults — both drives, both kernels, mmap and
malloc, three madvise settings, in order and at random, 1 and 8 threads, 40 GiB at 0.75
DRAM: 96 points — with each drive as one point of ``--executor local:2`` (one process per
drive, one per core), and reports the wall time, the points and the seconds per point,
with the machine and the commit, as docs/performance.md records them. Extra options are
passed to the study (``--bench stream`` times another benchmark).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def machine() -> dict[str, object]:
    cpu = ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
    return {"cpu": cpu, "cpus": os.cpu_count(), "memory_gib": round(mem_kib / 2**20, 1), "os": platform.platform()}


def main() -> None:
    extra = sys.argv[1:]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    with tempfile.TemporaryDirectory() as out:
        command = ["ssdtwin", "study", "memory", "--executor", "local:2", "--json", "--out", out, *extra]
        start = time.perf_counter()
        ran = subprocess.run(command, capture_output=True, text=True, check=True)
        wall = time.perf_counter() - start
    rows = json.loads(ran.stdout)
    print(
        json.dumps(
            {
                "machine": machine(),
                "commit": commit.stdout.strip(),
                "command": " ".join(command[:4] + extra),
                "points": len(rows),
                "wall_s": round(wall, 1),
                "wall_s_per_point": round(wall / max(len(rows), 1), 2),
                "simulated_s": round(sum(r["seconds"] for r in rows), 1),
            }
        )
    )


if __name__ == "__main__":
    main()
