"""Datasheet sheets: what is taken, and the one-line errors for what is not."""

from __future__ import annotations

import re

import pytest
from ssdtwin.datasheet import parse_sheet
from ssdtwin.errors import ProfileError

BASE = """[drive]
name = "Example 1TB"
capacity_gb = 1000
interface = "pcie4x4"
cell = "tlc"
dram_mib = 0
seq_read_mbps = 5000
seq_write_mbps = 4500
rand_read_iops = 700000
rand_write_iops = 800000
"""


def sheet_with(extra: str = "", drop: str | None = None) -> str:
    lines = [line for line in BASE.splitlines() if drop is None or not line.startswith(f"{drop} ")]
    return "\n".join(lines) + "\n" + extra


def test_a_sheet_with_only_the_required_keys_is_taken_with_its_optional_facts_unset() -> None:
    s = parse_sheet(BASE)
    assert (s.capacity_gb, s.interface, s.cell, s.dram_mib) == (1000.0, "pcie4x4", "tlc", 0)
    assert (s.nand_layers, s.nand_dies, s.hmb_mib, s.slc_cache_gb, s.tbw) == (None, None, None, None, None)
    assert s.drive_class == "consumer" and s.measured == ()


def test_measured_figures_are_kept_with_their_sources() -> None:
    s = parse_sheet(
        BASE + '\n[[measured]]\nstudy = "slc-fill"\nmetric = "cache_gb"\nvalue = 140\nsource = "a review, p.6"\n'
    )
    assert [(m.study, m.metric, m.value, m.source) for m in s.measured] == [
        ("slc-fill", "cache_gb", 140.0, "a review, p.6")
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (sheet_with(drop="cell"), "sheet: missing required key drive.cell"),
        (sheet_with("tlc_die = 3"), "sheet: unknown key drive.tlc_die (allowed: name, capacity_gb,"),
        (sheet_with().replace('"pcie4x4"', '"pcie6x16"'), "drive.interface = 'pcie6x16': allowed sata3 | pcie3x2"),
        (sheet_with().replace('cell = "tlc"', 'cell = "plc"'), "drive.cell = 'plc': allowed slc | mlc | tlc | qlc"),
        (sheet_with().replace("dram_mib = 0", "dram_mib = 0.5"), "drive.dram_mib = 0.5: expected an integer"),
        (sheet_with().replace("capacity_gb = 1000", "capacity_gb = -1"), "drive.capacity_gb = -1: allowed 1 to"),
        (sheet_with().replace("capacity_gb = 1000", "capacity_gb = nan"), "drive.capacity_gb = nan: allowed"),
        (sheet_with().replace("capacity_gb = 1000", 'capacity_gb = "1TB"'), "expected a number"),
        (sheet_with("hmb_mib = 64").replace("dram_mib = 0", "dram_mib = 1024"), "drive.hmb_mib: a drive with DRAM"),
        (
            sheet_with("hmb_mib = 64").replace('"pcie4x4"', '"sata3"').replace("5000", "550").replace("4500", "520"),
            "drive.hmb_mib: a SATA drive has no Host Memory Buffer",
        ),
        (sheet_with().replace("5000", "9000"), "drive.seq_read_mbps = 9000: above what pcie4x4 carries (7880 MB/s)"),
        (sheet_with("slc_cache_gb = 400"), "drive.slc_cache_gb = 400: more than TLC cells hold in SLC mode"),
        (sheet_with("post_cache_write_mbps = 5000"), "drive.post_cache_write_mbps = 5000: above the rated"),
        (sheet_with("nand_dies = 4\nnand_die_gbit = 512"), "drive.nand_dies: 4 dies of 512 Gbit hold 275 GB"),
        (sheet_with("[extra]\n"), "sheet: unknown table 'extra'"),
        ("drive = 1", "sheet: missing table [drive]"),
        ("[drive", "sheet: not valid TOML"),
        (
            BASE + '[[measured]]\nstudy = "slc-fill"\nmetric = "iops"\nvalue = 1\nsource = "x"\n',
            "measured[0].metric = 'iops': slc-fill reports in_cache_mb_per_s |",
        ),
        (BASE + '[[measured]]\nstudy = "slc-fill"\nmetric = "cache_gb"\nvalue = 1\n', "missing required key source"),
    ],
)
def test_a_bad_sheet_is_one_line_naming_the_key(text: str, message: str) -> None:
    with pytest.raises(ProfileError) as e:
        parse_sheet(text)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_calibrations_are_kept_in_order_and_checked() -> None:
    s = parse_sheet(BASE + '[[calibrate]]\nfield = "nand.tlc.t_prog_us"\nvalue = 900.0\nreason = "a review, p.6"\n')
    assert [(c.field, c.value, c.reason) for c in s.calibrations] == [("nand.tlc.t_prog_us", 900.0, "a review, p.6")]
    bad = [
        ('field = "tprog"\nvalue = 1\nreason = "x"', "calibrate[0].field = 'tprog': expected a profile field"),
        ('field = "nand.tlc.t_prog_us"\nvalue = 1', "calibrate[0]: missing required key reason"),
        ('field = "nand.tlc.t_prog_us"\nvalue = 1\nreason = "x"\nwhy = 2', "calibrate[0]: unknown key why"),
        ('field = "nand.tlc.t_prog_us"\nvalue = nan\nreason = "x"', "calibrate[0].value = nan"),
    ]
    for body, message in bad:
        with pytest.raises(ProfileError, match=re.escape(message)):
            parse_sheet(BASE + "[[calibrate]]\n" + body + "\n")
