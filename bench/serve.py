#!/usr/bin/env python3
"""Throughput, CPU per request and pacing error of ``ssdtwin serve`` under real fio (the
nbd engine), printed as JSON lines, one per time scale:

    python3 bench/serve.py [SECONDS]

For each time scale (0.001, which makes the drive's own latency negligible and so measures
the protocol path, then 1, 4 and 16) it serves a sequentially filled 4 GiB drive on a Unix
socket, runs fio 4 KiB random reads at QD32 for SECONDS (default 5), and reports fio's IOPS,
the server's CPU time per request (from /proc) and its reply lateness percentiles.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    seconds = sys.argv[1] if len(sys.argv) > 1 else "5"
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "filled.state"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "ssdtwin",
                "precondition",
                "--fill",
                "seq:100",
                "--save",
                str(state),
                "--set",
                "identity.capacity_bytes=4294967296",
            ],
            check=True,
            capture_output=True,
        )
        for scale in (0.001, 1, 4, 16):
            sock, stats = Path(tmp) / "b.sock", Path(tmp) / f"stats-{scale}.json"
            server = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "ssdtwin",
                    "serve",
                    "--state",
                    str(state),
                    "--socket",
                    str(sock),
                    "--time-scale",
                    str(scale),
                    "--stats",
                    str(stats),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            assert server.stdout is not None
            uri = server.stdout.readline().strip()
            before = cpu_seconds(server.pid)
            out = subprocess.run(
                [
                    "fio",
                    "--output-format=json",
                    "--name=b",
                    "--ioengine=nbd",
                    f"--uri={uri}",
                    "--rw=randread",
                    "--bs=4k",
                    "--size=4g",
                    "--iodepth=32",
                    f"--runtime={seconds}",
                    "--time_based",
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            cpu = cpu_seconds(server.pid) - before
            server.send_signal(signal.SIGINT)
            server.communicate(timeout=30)
            job = json.loads(out.stdout[out.stdout.index("{") :])["jobs"][0]["read"]
            s = json.loads(stats.read_text())
            print(
                json.dumps(
                    {
                        "time_scale": scale,
                        "fio_iops": round(job["iops"]),
                        "fio_clat_mean_us": round(job["clat_ns"]["mean"] / 1000, 1),
                        "server_cpu_us_per_request": round(cpu / max(s["requests"], 1) * 1e6, 2),
                        "late_replies_pct": round(100 * s["late_replies"] / max(s["replies"], 1), 1),
                        "lateness_p50_us": s["lateness"]["p50_ns"] / 1000,
                        "lateness_p99_us": s["lateness"]["p99_ns"] / 1000,
                    }
                )
            )


if __name__ == "__main__":
    main()
