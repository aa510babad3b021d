"""Watching a served drive: the time scale the server picks for itself, the warning when
replies run late, Prometheus metrics that count what the client did, and the dashboard
(in a real browser, where Chromium is installed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from ssdtwin.live.pacing import choose_time_scale, late_warning, power_of_two_at_least

from ..helpers import headless_chromium
from .test_serve import READ, WRITE, Served, start

SMALL = ("--set", "identity.capacity_bytes=1073741824")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        body: bytes = response.read()
        return body


def metrics(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the server's metrics, parsed by prometheus-client's own parser."""
    text = get(f"http://127.0.0.1:{port}/metrics").decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def eventually(check: Any, timeout_s: float = 5.0) -> Any:
    """``check()`` once it is truthy (snapshots come once a second), or its last value."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Served, int, int]]:
    dashboard, prometheus = free_port(), free_port()
    s = start(
        tmp_path, *SMALL, "--dashboard", str(dashboard), "--metrics", str(prometheus),
        "--stats", str(tmp_path / "stats.json"),
    )  # fmt: skip
    yield s, dashboard, prometheus
    if s.process.poll() is None:
        s.stop()


def test_the_scale_is_the_power_of_two_that_covers_the_round_trip_over_the_fastest_command() -> None:
    # p99 of the round trips is 30 us, twice that over a 4 us command is 15: 16.
    assert choose_time_scale([10e-6] * 98 + [30e-6] * 2, 4e-6) == 16
    assert choose_time_scale([1e-6] * 100, 1e-3) == 1
    assert [power_of_two_at_least(x) for x in (1.0, 1.5, 2.0, 2.1, 1000.0)] == [1, 2, 2, 4, 1024]


def test_late_replies_beyond_one_percent_call_for_a_larger_scale() -> None:
    quiet = {"replies": 1000, "late_replies": 9, "lateness_p99_us": 5.0, "time_scale": 8.0, "ops": {}}
    assert late_warning([quiet] * 5) is None
    few = {"replies": 10, "late_replies": 10, "lateness_p99_us": 500.0, "time_scale": 8.0, "ops": {}}
    assert late_warning([few] * 4) is None  # 40 replies: too few to judge
    late = {
        "replies": 100,
        "late_replies": 50,
        "lateness_p99_us": 1500.0,
        "time_scale": 2.0,
        "ops": {"read": {"completed": 100, "lat_p50_us": 100.0}},
    }
    # Lateness 1500 us over 2 x 100 us stretched: 1 + 7.5 -> 16 times the scale.
    said = late_warning([late] * 5)
    assert said is not None and said.startswith("50.0 % of replies in the last 5 s") and "--time-scale 32" in said


def test_auto_picks_a_power_of_two_says_why_and_serves_at_it(tmp_path: Path) -> None:
    s = start(tmp_path, *SMALL, "--time-scale", "auto", "--stats", str(tmp_path / "stats.json"))
    status, err = s.stop()
    assert status == 0, err
    line = next(x for x in err.splitlines() if x.startswith("serving "))
    stats = json.loads((tmp_path / "stats.json").read_text())
    k = stats["calibration"]["time_scale"]
    assert k == power_of_two_at_least(k) and f"(time scale {k} (auto: the server's round trip p99" in line
    assert stats["time_scale"] == k
    # Its own requests are told apart from the clients'.
    assert stats["calibration"]["requests"] == stats["requests"] == 200
    assert "served 0 requests on 0 connections (and 200 of the time-scale calibration on one more)" in err


def test_replies_late_beyond_the_threshold_are_said_once_and_at_the_exit(tmp_path: Path) -> None:
    # Simulated time 1000 times faster than wall time: every reply is due before it can be written.
    s = start(tmp_path, *SMALL, "--time-scale", "0.001")
    client = s.connect()
    client.go()
    for i in range(400):
        assert client.request(WRITE, i * 4096, 4096, b"x" * 4096, cookie=i)[0] == 0
        if i % 100 == 99:
            time.sleep(0.6)
    time.sleep(1.5)
    status, err = s.stop()
    assert status == 0, err
    warnings = [x for x in err.splitlines() if x.startswith("ssdtwin: warning: ")]
    assert len(warnings) == 1 and "% of replies in the last" in warnings[0] and "would hold" in warnings[0]
    assert err.splitlines()[-1].startswith("ssdtwin: replies ran late: ")


def test_prometheus_counts_what_the_client_did(watched: tuple[Served, int, int]) -> None:
    s, _, port = watched
    client = s.connect()
    client.go()
    for i in range(8):
        assert client.request(WRITE, i * 65536, 65536, bytes([i]) * 65536, cookie=i)[0] == 0
    for i in range(3):
        assert client.request(READ, i * 65536, 65536, cookie=100 + i)[0] == 0

    def caught_up() -> Any:
        m = metrics(port)
        return m if m.get(("ssdtwin_serve_requests_total", (("op", "read"),))) == 3 else None

    m = eventually(caught_up)
    assert m, "the metrics never showed the client's reads"
    assert m[("ssdtwin_serve_requests_total", (("op", "write"),))] == 8
    assert m[("ssdtwin_serve_bytes_total", (("op", "write"),))] == 8 * 65536
    assert m[("ssdtwin_serve_bytes_total", (("op", "read"),))] == 3 * 65536
    # The drive itself took the client's bytes, alone (--host none): its own counter agrees.
    assert m[("ssdtwin_drive_host_write_bytes_total", ())] == 8 * 65536
    assert m[("ssdtwin_serve_time_scale", ())] == 1.0
    assert ("ssdtwin_serve_latency_seconds", (("op", "write"), ("quantile", "0.99"))) in m


def test_the_dashboard_serves_its_page_plotly_and_the_snapshots(watched: tuple[Served, int, int]) -> None:
    import plotly

    _, port, _ = watched
    page = get(f"http://127.0.0.1:{port}/").decode()
    assert "<title>ssdtwin serve: generic-tlc-1tb at nbd+unix:" in page and 'src="plotly.min.js"' in page
    assert "https://" not in page and "http://" not in page  # nothing fetched from elsewhere
    js = get(f"http://127.0.0.1:{port}/plotly.min.js")
    assert js == (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    body = eventually(lambda: (b := json.loads(get(f"http://127.0.0.1:{port}/snapshots?since=0")))["next"] and b)
    first = body["snapshots"][0]
    assert {"ops", "totals", "drive", "drive_levels", "time_scale", "sim_s"} <= set(first)
    assert "slc_cached_bytes" in first["drive"] and "temperature_mk" in first["drive_levels"]
    later = json.loads(get(f"http://127.0.0.1:{port}/snapshots?since={body['next']}"))
    assert later["next"] >= body["next"] and len(later["snapshots"]) == later["next"] - body["next"]


@pytest.mark.slow
def test_the_dashboard_in_a_browser_moves_while_a_real_client_writes(
    watched: tuple[Served, int, int], tmp_path: Path
) -> None:
    if shutil.which("qemu-io") is None:
        pytest.skip("needs qemu-io (qemu-utils)")
    s, port, _ = watched
    with headless_chromium() as driver:
        driver.get(f"http://127.0.0.1:{port}/")

        def writes() -> int:
            return int(driver.find_element("id", "total-writes").text.replace(",", "") or 0)

        assert eventually(lambda: int(driver.find_element("id", "snapshots").text) > 0)
        before = writes()
        done = subprocess.run(
            ["qemu-io", "-f", "raw", "-c", "write -P 0x5a 0 1M", "-c", "write -P 0x5b 1M 1M", s.uri],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert eventually(lambda: writes() >= before + 2, timeout_s=8.0), (before, writes())
        charts = driver.execute_script("return document.querySelectorAll('.js-plotly-plot').length")
        assert charts == 9
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []


def test_a_calibration_that_fails_still_gives_clients_the_uri() -> None:
    """The calibration's client cannot reach an IPv6 address (its URI parser takes IPv4): the
    server warns, serves at scale 1 and prints the URI all the same."""
    import signal
    import socket
    import sys

    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
            port = s.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback here")
    process = subprocess.Popen(
        [sys.executable, "-m", "ssdtwin", "serve", *SMALL, "--listen", f"[::1]:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    uri = process.stdout.readline().strip()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert uri == f"nbd://[::1]:{port}/", err
    assert "the time-scale calibration failed" in err and "(time scale 1)" in err
