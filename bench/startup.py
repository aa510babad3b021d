#!/usr/bin/env python3
"""Python start-up: wall time of ``import ssdtwin`` and of ``ssdtwin --version``, each in a
fresh interpreter, and of the bare interpreter for comparison; prints one JSON object.

    python3 bench/startup.py [RUNS]      # default 15 runs of each, reported as min and median

Run it from the environment ssdtwin is installed in. On a shared machine the minimum is the
figure to compare (other processes only ever add time); the goal is 0.15 s for both.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time


def wall_s(args: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    cases = {
        "python_bare": [sys.executable, "-c", "pass"],
        "import_ssdtwin": [sys.executable, "-c", "import ssdtwin"],
        "ssdtwin_version": [
            sys.executable,
            "-c",
            "import sys; from ssdtwin.cli import main; sys.exit(main(['--version']))",
        ],
    }
    out: dict[str, object] = {"runs": runs, "command": f"python3 bench/startup.py {runs}"}
    # Alternating cases, so a burst of load on the machine hits all of them alike.
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, args in cases.items():
            times[name].append(wall_s(args))
    for name, ts in times.items():
        out[f"{name}_min_s"] = round(min(ts), 4)
        out[f"{name}_median_s"] = round(statistics.median(ts), 4)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
