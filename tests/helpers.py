"""Helpers the tests share: CLI outcomes, fio JSON shape comparison, and a headless browser."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ssdtwin

#: The repository and the real fio 3.33 outputs the compatibility tests compare with.
REPO = Path(__file__).resolve().parents[1]
REFERENCE_DIR = REPO / "tests" / "data" / "fio-3.33"


@dataclass
class Outcome:
    """What ``ssdtwin ARGS`` did: exit status and the two streams."""

    status: int
    out: str
    err: str


def assert_one_line_error(outcome: Outcome, *fragments: str) -> None:
    """Exit status 2, nothing on stdout, and one line ``ssdtwin: ...`` containing each
    fragment on stderr (never a traceback)."""
    assert outcome.status == 2, outcome
    assert outcome.out == "", outcome
    assert outcome.err.startswith("ssdtwin: "), outcome.err
    assert outcome.err.endswith("\n") and outcome.err.count("\n") == 1, outcome.err
    assert "Traceback" not in outcome.err
    for fragment in fragments:
        assert fragment in outcome.err, (fragment, outcome.err)


def run_and_save(run_main: Callable[..., Outcome], profile: Path, state: Path, rw: str) -> dict[str, Any]:
    """Runs 20 ms of 4 KiB ``rw`` at QD8 over 32 MiB through ``ssdtwin fio`` on ``profile``,
    saves the drive to ``state`` and returns its counters as loaded back."""
    job = ["--name=w", f"--rw={rw}", "--bs=4k", "--size=32m", "--runtime=20ms", "--ioengine=libaio", "--iodepth=8"]
    ran = run_main("fio", "--profile", profile, "--save-state", state, "--output-format=json", *job)
    assert ran.status == 0, ran
    return dict(ssdtwin.Device.load(state).counters())


def json_kind(value: object) -> str:
    """The JSON type of a parsed value as fio distinguishes them (int and float apart)."""
    if isinstance(value, bool):
        return "bool"
    for kind, cls in (("int", int), ("float", float), ("string", str), ("array", list), ("object", dict)):
        if isinstance(value, cls):
            return kind
    return "null" if value is None else type(value).__name__


def assert_same_shape(ours: Any, theirs: Any, path: str = "") -> None:
    """``ours`` has exactly the keys of ``theirs`` at every level, in the same order, with
    values of the same JSON types; ssdtwin's own ``ssdtwin`` key is ignored. Keys of
    json+ ``bins`` are latencies, so only their counts' type is compared."""
    assert json_kind(ours) == json_kind(theirs), f"type of {path or '/'}: {json_kind(ours)} vs {json_kind(theirs)}"
    if isinstance(theirs, dict):
        if path.endswith("/bins"):
            assert all(json_kind(v) == "int" for v in [*ours.values(), *theirs.values()]), f"{path}: counts are ints"
            return
        assert [k for k in ours if k != "ssdtwin"] == list(theirs), f"keys of {path or '/'}"
        for key, value in theirs.items():
            assert_same_shape(ours[key], value, f"{path}/{key}")
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), f"length of {path}"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same_shape(a, b, f"{path}[{i}]")


def without_wall_clock(report: dict[str, Any]) -> dict[str, Any]:
    """fio JSON without the fields that come from the wall clock."""
    return {k: v for k, v in report.items() if k not in ("timestamp", "timestamp_ms", "time")}


@contextmanager
def headless_chromium() -> Iterator[Any]:
    """Debian's Chromium driven by Selenium through its own chromedriver, headless, keeping
    the browser's console log; the test is skipped, with the reason, where either is missing."""
    import pytest

    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.skip("needs chromium and chromedriver (Debian: chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.binary_location = chromium
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
