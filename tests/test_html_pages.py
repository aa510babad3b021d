"""The ``--html`` report pages in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium) loads each page with no console errors, every figure
decodes to an image, and the tables are there; a page with a broken or missing figure, or one
that logs an error, is caught."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .helpers import Outcome, headless_chromium

pytestmark = pytest.mark.slow

SMALL = ["--set", "nand.blocks_per_plane=24", "--set", "identity.capacity_bytes=8589934592"]


RECORD_ERRORS = """
window.__errors = [];
const consoleError = console.error;
console.error = (...args) => { window.__errors.push(args.join(' ')); consoleError(...args); };
window.addEventListener('error', event => window.__errors.push(String(event.message)));
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with headless_chromium() as driver:
        # Every page records its console errors and uncaught exceptions itself, before its own
        # scripts run: the browser's log can lag behind the load.
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD_ERRORS})
        yield driver


def problems(browser: Any, page: Path, figures: int, min_tables: int) -> list[str]:
    """What is wrong with ``page`` as Chromium shows it: console errors or warnings, figures
    that did not decode, a figure count other than ``figures``, fewer tables than
    ``min_tables``, no title or no command."""
    browser.get(page.as_uri())
    found = [f"console: {entry['message']}" for entry in browser.get_log("browser") if entry["level"] != "INFO"]
    found += [f"error: {e}" for e in browser.execute_script("return window.__errors")]
    images = browser.execute_script(
        "return Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight])"
    )
    found += [
        f"figure '{alt}' did not load" for alt, complete, width, height in images if not (complete and width and height)
    ]
    if len(images) != figures:
        found.append(f"{len(images)} figures, expected {figures}")
    tables = browser.execute_script("return document.querySelectorAll('table').length")
    if tables < min_tables:
        found.append(f"{tables} tables, expected at least {min_tables}")
    if not browser.title:
        found.append("no title")
    if not browser.execute_script("return document.getElementById('command').textContent").startswith("ssdtwin "):
        found.append("no command")
    return found


@pytest.fixture(scope="module")
def pts_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from ssdtwin.cli import main

    out = tmp_path_factory.mktemp("pts")
    args = ["study", "pts", "--profile", "generic-tlc-1tb", *SMALL, "--cell-s", "0.02", "--max-rounds", "5"]
    assert main([*args, "--host", "none", "--out", str(out), "--html"]) == 0
    return out / "pts.html"


def test_the_pts_report_loads_with_its_figure_and_tables(browser: Any, pts_page: Path) -> None:
    # Steady state, IOPS, throughput, three latency tables and the drive's fields.
    assert problems(browser, pts_page, figures=1, min_tables=7) == []
    headings = browser.execute_script("return Array.from(document.querySelectorAll('h2')).map(h => h.textContent)")
    assert headings == ["Conclusions", "Figures", "Tables", "Drive: generic-tlc-1tb"]


def test_the_probe_report_loads_with_every_measurement_s_figure(
    browser: Any, run_main: Callable[..., Outcome], tmp_path: Path
) -> None:
    page = tmp_path / "probe.html"
    ran = run_main("probe", "--twin", "wd-black-256", "--set", "nand.blocks_per_plane=100", "--set",
                   "slc_cache.static_gib=0.5", "--set", "identity.capacity_bytes=8589934592",
                   "--only", "floor,geometry,slc", "--html", page)  # fmt: skip
    assert ran.status == 0, ran.err
    assert problems(browser, page, figures=2, min_tables=3) == []


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        (lambda html: re.sub(r"base64,[A-Za-z0-9+/=]+", "base64,AAAA", html, count=1), "did not load"),
        (lambda html: re.sub(r"<figure><img [^>]*>.*?</figure>", "", html, count=1, flags=re.S), "0 figures"),
        (lambda html: html.replace("</body>", '<script>console.error("boom")</script></body>'), "boom"),
    ],
    ids=["corrupt figure", "missing figure", "console error"],
)
def test_a_broken_page_is_caught(
    browser: Any, pts_page: Path, tmp_path: Path, breakage: Callable[[str], str], expected: str
) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text(breakage(pts_page.read_text()))
    found = problems(browser, broken, figures=1, min_tables=7)
    assert any(expected in p for p in found), found


def test_the_fio_and_sweep_reports_load_with_their_figures(
    browser: Any, run_main: Callable[..., Outcome], tmp_path: Path
) -> None:
    page = tmp_path / "fio.html"
    ran = run_main("fio", "--host", "none", "--profile", "generic-tlc-1tb", *SMALL, "--name=r", "--rw=randread",
                   "--size=64m", "--runtime=20ms", "--time_based", "--html", page)  # fmt: skip
    assert ran.status == 0, ran.err
    # The jobs and the drive's fields.
    assert problems(browser, page, figures=1, min_tables=2) == []
    grid = tmp_path / "grid.toml"
    grid.write_text(
        '[sweep]\nprofile = "generic-tlc-1tb"\nhost = "none"\n[sweep.set]\n"nand.blocks_per_plane" = 24\n'
        '"identity.capacity_bytes" = 8589934592\n[sweep.job]\nrw = ["randread", "randwrite"]\n'
        'iodepth = [1, 4]\nsize = "64m"\nruntime = "10ms"\ntime_based = true\n'
    )
    ran = run_main("sweep", grid, "--out", tmp_path / "sweep", "--executor", "local:1", "--html")
    assert ran.status == 0, ran.err
    assert problems(browser, tmp_path / "sweep" / "report.html", figures=3, min_tables=1) == []
