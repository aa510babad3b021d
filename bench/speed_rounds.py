#!/usr/bin/env python3
"""The host path against the bare twin, in rounds that alternate builds: prints one JSON object.

A loaded machine moves one run's rate by several per cent, so a single `bench/speed.py`
gives a noisy `host_stack_speed_share`. This runs the `speed` example's two 16-job read
phases (`SPEED_PHASE=spread` and `SPEED_PHASE=host`) in separate processes, round after
round, alternating the builds it is given, and reports per build the best and the median
rate of each phase and the share from the best rates (the run least disturbed by others):

    cargo build --release -p ssdtwin-core --example speed
    cp target/release/examples/speed /tmp/speed.new     # and another commit's as /tmp/speed.old
    python3 bench/speed_rounds.py /tmp/speed.old /tmp/speed.new [--rounds 10] [--seconds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

PHASES = {"spread": "randread_spread_ios_per_s", "host": "randread_host_ios_per_s"}


def rate(binary: str, phase: str, seconds: int) -> float:
    env = {**os.environ, "SPEED_PHASE": phase}
    out = subprocess.run([binary, str(seconds)], env=env, capture_output=True, text=True, check=True).stdout
    return float(json.loads(out)[PHASES[phase]])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="+", help="builds of crates/ssdtwin-core/examples/speed.rs")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=int, default=5, help="simulated seconds per phase")
    args = parser.parse_args()
    rates: dict[str, dict[str, list[float]]] = {b: {p: [] for p in PHASES} for b in args.binaries}
    for _ in range(args.rounds):
        for binary in args.binaries:
            for phase in PHASES:
                rates[binary][phase].append(rate(binary, phase, args.seconds))
    report: dict[str, object] = {}
    for binary, by_phase in rates.items():
        best = {p: max(v) for p, v in by_phase.items()}
        report[binary] = {
            **{f"{p}_best_ios_per_s": round(best[p]) for p in PHASES},
            **{f"{p}_median_ios_per_s": round(statistics.median(v)) for p, v in by_phase.items()},
            "host_stack_speed_share_of_best": round(best["host"] / best["spread"], 3),
        }
    report["command"] = " ".join(["python3", "bench/speed_rounds.py", *sys.argv[1:]])
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
