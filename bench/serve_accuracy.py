#!/usr/bin/env python3
"""How faithfully ``ssdtwin serve`` paces real clients: real fio (the nbd engine) reading a
served drive at QD1 and QD8, its completion latencies scaled back by the time scale the
server picked for itself (``--time-scale auto``), beside what ``ssdtwin fio`` predicts for
the same job on the same drive. Prints one JSON line per drive and depth:

    python3 bench/serve_accuracy.py [SECONDS] [PROFILE ...]

Defaults: 10 s of fio per point; micron-9200max (TLC with DRAM) and crucial-p1 (QLC), each
cut to a 16 GiB namespace and filled in order, so that reads reach NAND. The goal
(docs/serving.md): the client's p50 within 10 % and p99 within 20 % of the twin's.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CUT = ["--set", "identity.capacity_bytes=17179869184"]
SPAN = "16g"


def ssdtwin(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ssdtwin", *args], capture_output=True, text=True, check=True, **kwargs
    )


def percentiles(side: dict[str, Any]) -> tuple[float, float]:
    """p50 and p99 of fio's completion latency, µs."""
    p = side["clat_ns"]["percentile"]
    return float(p["50.000000"]) / 1e3, float(p["99.000000"]) / 1e3


def point(state: Path, tmp: Path, qd: int, seconds: float) -> dict[str, Any]:
    sock, stats = tmp / "s.sock", tmp / f"stats-{qd}.json"
    server = subprocess.Popen(
        [sys.executable, "-m", "ssdtwin", "serve", "--state", str(state), "--socket", str(sock), "--force",
         "--stats", str(stats)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert server.stdout is not None
    uri = server.stdout.readline().strip()
    job = ["--name=r", "--rw=randread", "--bs=4k", f"--iodepth={qd}", f"--size={SPAN}", "--output-format=json"]
    out = subprocess.run(
        ["fio", "--ioengine=nbd", f"--uri={uri}", *job, f"--runtime={seconds}", "--time_based"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    server.send_signal(signal.SIGINT)
    server.communicate(timeout=60)
    s = json.loads(stats.read_text())
    scale = float(s["time_scale"])
    client = json.loads(out.stdout[out.stdout.index("{") :])["jobs"][0]["read"]
    c50, c99 = percentiles(client)
    # The twin, alone (as served), for the simulated time the client ran.
    twin_out = ssdtwin(
        "fio", "--state", str(state), "--host", "none", *job, "--ioengine=libaio",
        f"--runtime={max(round(seconds / scale * 1000), 50)}ms", "--time_based",
    )  # fmt: skip
    t50, t99 = percentiles(json.loads(twin_out.stdout)["jobs"][0]["read"])
    return {
        "qd": qd,
        "time_scale": scale,
        "client_p50_us": round(c50 / scale, 1),
        "client_p99_us": round(c99 / scale, 1),
        "twin_p50_us": round(t50, 1),
        "twin_p99_us": round(t99, 1),
        "p50_error_pct": round(100 * (c50 / scale / t50 - 1), 1),
        "p99_error_pct": round(100 * (c99 / scale / t99 - 1), 1),
        "late_replies_pct": round(100 * s["late_replies"] / max(s["replies"], 1), 2),
        "lateness_p99_us": s["lateness"]["p99_ns"] / 1000,
    }


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    profiles = sys.argv[2:] or ["micron-9200max", "crucial-p1"]
    for profile in profiles:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            state = tmp / "filled.state"
            ssdtwin("precondition", "--profile", profile, *CUT, "--fill", "seq:100", "--save", str(state))
            for qd in (1, 8):
                print(json.dumps({"profile": profile, **point(state, tmp, qd, seconds)}), flush=True)


if __name__ == "__main__":
    main()
