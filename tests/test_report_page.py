"""Report pages (``--html``): self-contained, escaped, each profile field beside the comment
that says where it came from, and the pages of fio and sweep runs."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from ssdtwin import report_page
from ssdtwin.report_page import MAX_TABLE_ROWS, Figure, Page, Section, Table, Text, profile_fields, render

from .helpers import Outcome

SMALL = ["--set", "nand.blocks_per_plane=24", "--set", "identity.capacity_bytes=8589934592"]


def test_a_page_embeds_its_figures_escapes_text_and_shortens_long_tables() -> None:
    png = b"\x89PNG fake"
    rows = pd.DataFrame({"n": range(MAX_TABLE_ROWS + 5)})
    page = Page(
        "a <b> & c",
        "ssdtwin fio --name=<x>",
        [Section("S", [Text("1 < 2"), Figure(png, "fig"), Table(rows, "rows")])],
    )
    html = render(page)
    assert "<title>a &lt;b&gt; &amp; c</title>" in html and "1 &lt; 2" in html and "--name=&lt;x&gt;" in html
    assert f"data:image/png;base64,{base64.b64encode(png).decode()}" in html
    assert html.count("<tr") == MAX_TABLE_ROWS + 1  # the header and the rows shown
    assert f"First {MAX_TABLE_ROWS} of {MAX_TABLE_ROWS + 5:,} rows." in html
    # Nothing but itself: no scripts, no links to other files.
    assert "<script" not in html and not re.search(r"(src|href)=\"(?!data:)", html)


def test_each_field_of_a_shipped_profile_says_where_it_came_from() -> None:
    about, fields = profile_fields("micron-9200max", {"controller.cores": 8})
    assert about.startswith("Micron 9200 MAX 1.6 TB")
    source = dict(zip(fields.field, fields.source, strict=True))
    value = dict(zip(fields.field, fields.value, strict=True))
    assert "throttling from 85 C" in source["identity.wctemp_kelvin"] and value["identity.wctemp_kelvin"] == "358"
    assert source["controller.cores"] == "--set" and value["controller.cores"] == "8"
    # A comment block above a field is its source when the line itself has none.
    assert source["namespace.lba_formats"].startswith("Four formats: 512 B and 4096 B data")
    assert all(fields.source.str.len() > 0)


def test_fio_and_sweep_pages_hold_the_run(run_main: Callable[..., Outcome], tmp_path: Path) -> None:
    page = tmp_path / "fio.html"
    ran = run_main(
        "fio", "--host", "none", "--profile", "generic-tlc-1tb", *SMALL, "--name=r", "--rw=randread",
        "--size=64m", "--runtime=20ms", "--time_based", "--output-format=json", "--html", page,
    )  # fmt: skip
    assert ran.status == 0, ran.err
    html = page.read_text()
    assert "<title>ssdtwin fio: generic-tlc-1tb on none" in html and html.count("<img ") == 1
    assert "r: (groupid=0, jobs=1)" in html and "identity.capacity_bytes" in html
    grid = tmp_path / "grid.toml"
    grid.write_text(
        '[sweep]\nprofile = "generic-tlc-1tb"\nhost = "none"\n[sweep.set]\n"nand.blocks_per_plane" = 24\n'
        '"identity.capacity_bytes" = 8589934592\n[sweep.job]\nrw = "randread"\niodepth = [1, 4]\n'
        'size = "64m"\nruntime = "10ms"\ntime_based = true\n'
    )
    out = tmp_path / "sweep"
    ran = run_main("sweep", grid, "--out", out, "--executor", "local:1", "--html")
    assert ran.status == 0, ran.err
    html = (out / "report.html").read_text()
    # IOPS, bandwidth and p99 against the grid's axis, and the grid itself.
    assert html.count("<img ") == 3 and "iops against job.iodepth" in html and "iodepth = [1, 4]" in html


def test_page_writes_go_through_a_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "p.html"
    path.write_text("old")
    report_page.write(Page("t", "ssdtwin x"), path)
    assert path.read_text().startswith("<!DOCTYPE html>") and [p.name for p in tmp_path.iterdir()] == ["p.html"]
