"""The end-to-end loop on a served twin: ``ssdtwin serve`` exports a small cut of a shipped
profile over NBD, time-scaled, and ``ssdtwin probe`` measures it with real fio's nbd engine,
as it would a drive it knows nothing about. Skipped where fio is not installed."""

from __future__ import annotations

import math
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
import ssdtwin

GIB = 1 << 30
#: wd-black-256 cut to 1 GiB with a 0.25 GiB static SLC cache.
CUT = {"nand.blocks_per_plane": 30, "slc_cache.static_gib": 0.25, "identity.capacity_bytes": GIB}
#: Simulated time runs this much slower than wall time, so the NBD path's own time (tens of
#: microseconds per request) is small beside the drive's.
SCALE = 16

#: A server process and real fio: end to end.
pytestmark = pytest.mark.slow


def test_probe_over_nbd_with_real_fio_finds_the_served_drive(tmp_path: Path) -> None:
    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (apt-get install fio)")
    sock = tmp_path / "twin.sock"
    sets = [a for k, v in CUT.items() for a in ("--set", f"{k}={v}")]
    server = subprocess.Popen(
        [
            *(sys.executable, "-m", "ssdtwin", "serve", "--profile", "wd-black-256", *sets, "--socket", str(sock)),
            *("--time-scale", str(SCALE), "--memory-limit", "1.5"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        uri = server.stdout.readline().strip()
        assert uri.startswith("nbd+unix:"), server.stderr.read() if server.stderr else ""
        out = tmp_path / "served.toml"
        start = time.monotonic()
        probed = subprocess.run(
            [
                *(sys.executable, "-m", "ssdtwin", "probe", uri, "--destructive", "--time-scale", str(SCALE)),
                *("--only", "floor,geometry,slc,qd", "--point-seconds", "0.05", "--purge-idle", "0.1"),
                *("--json", "--out", str(out)),
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        wall = time.monotonic() - start
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    assert probed.returncode == 0, probed.stderr
    import json

    found = {e["name"]: e for e in json.loads(probed.stdout)["estimates"]}
    cfg = tomllib.loads(ssdtwin.profile_toml("wd-black-256", CUT))
    derived = ssdtwin.profile_derived("wd-black-256", CUT)
    nand = cfg["nand"]
    unit = nand["planes"] * nand["page_bytes"]
    post_cache = (
        derived["dies"]
        * unit
        / (nand["tlc"]["t_prog_us"] * 1e3 + nand["channel_cmd_ns"] + unit / nand["channel_mts"] * 1e3)
        * 1e9
    )

    def close(name: str, expected: float, rel: float) -> None:
        got = found[name]["value"]
        assert got is not None and math.isclose(got, expected, rel_tol=rel), (name, got, expected)

    # Throughput and die-bound measurements: the NBD path's own time hardly shows.
    close("slc_cache_bytes", derived["slc_cache_max_bytes"], 0.10)
    close("native_write_bytes_per_s", post_cache, 0.10)
    close("first_tr_ns", nand["slc"]["t_read_us"] * 1e3, 0.15)
    close("native_tr_ns", nand["tlc"]["t_read_us"] * 1e3, 0.15)
    assert found["program_unit_bytes"]["value"] == unit
    # The transport's round trip (over the scale) is taken off every latency; what stays is
    # the real-time server's lateness in replying, which only adds: never shorter.
    twin = ssdtwin.Device("wd-black-256", overrides=CUT, host="none")
    twin.fill("seq")
    quiet = twin.run({"rw": "randread", "bs": "4k", "number_ios": 2000, "offset": "512m", "size": "512m"})
    twin_us = quiet.json["jobs"][0]["read"]["lat_ns"]["mean"] / 1e3
    served_us = found["qd1_read_latency_ns"]["value"] / 1e3
    assert twin_us * 0.98 <= served_us <= twin_us * 1.5, (served_us, twin_us)
    ssdtwin.Device(out)  # the profile written loads and builds
    print(f"NBD probe: {wall:.0f} s wall")
