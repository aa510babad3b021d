#!/usr/bin/env python3
"""Wall time of the memory study (reference R6), printed as one JSON object:

    python3 bench/memory_study.py [EXTRA-OPTIONS...]

Runs ``ssdtwin study memory`` with its defaults — both drives, both kernels, mmap and
malloc, three madvise settings, in order and at random, 1 and 8 threads, 40 GiB at 0.75
DRAM: 96 points — as ``--executor local:2`` does, one process per drive at once (two
``ssdtwin study memory --profile DRIVE`` processes, so that each one's CPU time can be
read when it exits), and reports the wall time, each process's CPU time (user + system:
on a machine shared with other work the wall time overstates what two idle cores need;
the longer CPU time is what they would take), and the points, with the machine and the
commit, as docs/performance.md records them. Extra options are passed to the study
(``--bench stream`` times another benchmark).
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
    drives = ["iodrive2-1200", "intel-910-400"]
    rows: list[dict[str, object]] = []
    cpu: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        procs = {}
        for drive in drives:
            command = ["ssdtwin", "study", "memory", "--profile", drive, "--json", "--out", f"{out}/{drive}", *extra]
            procs[drive] = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        for drive, proc in procs.items():
            assert proc.stdout is not None
            text = proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)
            if status != 0:
                raise SystemExit(f"{drive}: exit status {status}")
            cpu[drive] = round(usage.ru_utime + usage.ru_stime, 1)
            rows += json.loads(text)
        wall = time.perf_counter() - start
    command = ["ssdtwin", "study", "memory", "--profile", ",".join(drives)]
    print(
        json.dumps(
            {
                "machine": machine(),
                "commit": commit.stdout.strip(),
                "command": " ".join(command + extra),
                "points": len(rows),
                "wall_s": round(wall, 1),
                "wall_s_per_point": round(wall / max(len(rows), 1), 2),
                "cpu_s_per_drive": cpu,
                "load_average_1min_after": round(os.getloadavg()[0], 1),
                "simulated_s": round(sum(r["seconds"] for r in rows), 1),
            }
        )
    )


if __name__ == "__main__":
    main()
