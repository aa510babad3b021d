"""The R4 studies: lbaf (measure every LBA format, judge its Relative Performance) and cdm
(CrystalDiskMark 8's tests and text export). Both run on a tiny drive in milliseconds."""

from __future__ import annotations

import re

import click
import pandas as pd
import pytest
import ssdtwin
from ssdtwin.studies import REGISTRY
from ssdtwin.studies.cdm import PRESETS, CdmTest, cdm_sweep, parse_test_size, text_export
from ssdtwin.studies.lbaf import RP_THRESHOLDS, deserved_rp, lbaf_sweep, report, verdicts
from ssdtwin.testing import small_overrides

# A 4 KiB format advertised Best, a 512 B format wrongly advertised Best, and a 512+8 B
# format honestly advertised Good.
FORMATS = [
    {"data_bytes": 4096, "relative_performance": 0},
    {"data_bytes": 512, "relative_performance": 0},
    {"data_bytes": 512, "metadata_bytes": 8, "relative_performance": 2},
]


@pytest.fixture(scope="module")
def lbaf_table() -> pd.DataFrame:
    overrides = {**small_overrides(), "namespace.lba_formats": FORMATS}
    return lbaf_sweep("generic-tlc-1tb", span_gib=0.03, seconds=0.01, overrides=overrides)


def mb_per_s(table: pd.DataFrame, lbaf: int, test: str, op: str) -> float:
    return float(table[(table.lbaf == lbaf) & (table.test == test) & (table.op == op)].mb_per_s.iloc[0])


def lat(table: pd.DataFrame, lbaf: int, test: str, op: str) -> float:
    return float(table[(table.lbaf == lbaf) & (table.test == test) & (table.op == op)].lat_us.iloc[0])


def test_lbaf_measures_every_format_with_the_smallest_io_it_allows(lbaf_table: pd.DataFrame) -> None:
    t = lbaf_table
    assert len(t) == 3 * 2 * 5
    assert list(t.columns) == [
        "lbaf",
        "data_bytes",
        "metadata_bytes",
        "test",
        "op",
        "bs",
        "iodepth",
        "iops",
        "mb_per_s",
        "lat_us",
        "advertised_rp",
        "host",
        "score",
        "deserved_rp",
    ]
    one_lba = t[t.test.str.startswith("RNDLBA")]
    assert list(one_lba.groupby("lbaf").bs.first()) == [4096, 512, 512]
    assert list(t.mb_per_s) == pytest.approx(list(t.iops * t.bs / 1e6))


def test_sub_4k_writes_pay_a_read_modify_write(lbaf_table: pd.DataFrame) -> None:
    t = lbaf_table
    # A 512 B write at QD1 is acknowledged only after the old 4 KiB unit has been read from
    # NAND: it takes longer than a 4 KiB read, where a whole-unit write is acknowledged from
    # the write buffer in a fraction of that.
    assert lat(t, 1, "RNDLBA Q1", "write") > lat(t, 0, "RND4K Q1", "read")
    assert lat(t, 1, "RNDLBA Q1", "write") > 3 * lat(t, 1, "RND4K Q1", "write")
    # So per byte it is far slower than 4 KiB writes on the 4 KiB format, at any depth.
    for depth in ("Q1", "Q32"):
        assert mb_per_s(t, 1, f"RNDLBA {depth}", "write") < mb_per_s(t, 0, f"RND4K {depth}", "write") / 8
    # Whole-unit I/O is the same on every format: the map unit is 4 KiB whatever the LBA.
    for test in ("RND4K Q1", "SEQ128K Q32"):
        for op in ("read", "write"):
            assert mb_per_s(t, 1, test, op) == pytest.approx(mb_per_s(t, 0, test, op), rel=0.02)


def test_rmw_counters_account_every_partial_unit() -> None:
    dev = ssdtwin.Device(overrides={**small_overrides(), "namespace.lba_formats": [{"data_bytes": 512}]})
    dev.fill("seq", 50)
    result = dev.run({"name": "w", "rw": "randwrite", "bs": 512, "iodepth": 4, "size": "16m", "number_ios": 1000})
    c = result.json["jobs"][0]["ssdtwin"]
    assert c["partial_units_written"] == 1000
    # Each partial unit reads its old 4 KiB from NAND, unless the unit is still in the write
    # buffer (a few of 1000 random units over 16 MiB of a 64 KiB buffer).
    assert c["nand_rmw_read_bytes"] % 4096 == 0
    assert 990 <= c["nand_rmw_read_bytes"] // 4096 <= 1000
    # And programs the whole merged unit: 4096 NAND bytes per 512 host bytes.
    assert c["write_amplification"] == pytest.approx(4096 / 512, rel=0.02)


def test_a_wrongly_advertised_format_is_flagged(lbaf_table: pd.DataFrame) -> None:
    v = verdicts(lbaf_table)
    assert list(v.lbaf) == [0, 1, 2]
    assert list(v.advertised_rp) == [0, 0, 2]
    assert v.score[0] == 1.0 and v.deserved_rp[0] == 0
    # Both 512 B formats measure alike (8 B of metadata per LBA is a little more link time).
    assert v.score[1] == pytest.approx(v.score[2], rel=0.02)
    assert RP_THRESHOLDS[2] <= v.score[1] < RP_THRESHOLDS[1]
    assert list(v.deserved_rp) == [0, 2, 2]
    assert list(v.agrees) == [True, False, True]
    text = report(lbaf_table, "tiny")
    assert re.search(r"^ +1 +512\+0 +0 Best +2 Good +0\.\d{3}  DISAGREES$", text, re.M)
    assert re.search(r"^ +2 +512\+8 +2 Good +2 Good +0\.\d{3}$", text, re.M)
    assert text.endswith("tiny: the advertised Relative Performance disagrees for LBA format(s) 1.")


def test_the_score_is_the_geometric_mean_of_ratios_to_the_best(lbaf_table: pd.DataFrame) -> None:
    t = lbaf_table
    best = t.groupby(["test", "op"]).mb_per_s.transform("max")
    ratios = (t.mb_per_s / best)[t.lbaf == 1]
    assert float(t[t.lbaf == 1].score.iloc[0]) == pytest.approx(float(ratios.prod()) ** (1 / len(ratios)))


@pytest.mark.parametrize(("score", "rp"), [(1.0, 0), (0.9, 0), (0.899, 1), (0.5, 1), (0.2, 2), (0.199, 3), (0.0, 3)])
def test_deserved_rp_thresholds(score: float, rp: int) -> None:
    assert deserved_rp(score) == rp


def test_micron_advertises_4k_as_best() -> None:
    formats = ssdtwin.Device("micron-9200max").identity()["lba_formats"]
    assert [(f["data_bytes"], f["metadata_bytes"], f["relative_performance"]) for f in formats] == [
        (512, 0, 2),
        (512, 8, 2),
        (4096, 0, 0),
        (4096, 8, 0),
    ]
    lbaf = next(s for s in REGISTRY if s.name == "lbaf")
    assert lbaf.count_points(profile="micron-9200max", formats="all") == 4
    assert lbaf.count_points(profile="micron-9200max", formats="1,3") == 2


# CrystalDiskMark


def test_cdm_lines_follow_crystaldiskmarks_format() -> None:
    # "  %s %4d%s (Q=%3d, T=%2d): %9.3f MB/s [%9.1f IOPS] <%9.2f us>", IOPS from MB/s.
    assert (
        CdmTest(True, 1024, 8, 1).line(3500.123, 2394.12)
        == "  SEQ    1MiB (Q=  8, T= 1):  3500.123 MB/s [   3338.0 IOPS] <  2394.12 us>"
    )
    assert CdmTest(True, 128, 32, 1).line(3000.0, 1398.5).startswith("  SEQ  128KiB (Q= 32, T= 1):  3000.000 MB/s [")
    assert CdmTest(False, 4, 32, 16).name == "RND4K Q32T16"


def test_presets_have_crystaldiskmarks_rows() -> None:
    assert [t.name for t in PRESETS["default"]] == ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
    assert [t.name for t in PRESETS["nvme"]] == ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"]


@pytest.mark.parametrize(
    ("text", "size"), [("16m", 16 << 20), ("1g", 1 << 30), ("64G", 64 << 30), ("512MiB", 512 << 20), ("32GB", 32 << 30)]
)
def test_test_sizes(text: str, size: int) -> None:
    assert parse_test_size(text) == size


@pytest.mark.parametrize("text", ["8m", "65g", "1t", "g", "1.5g", "-1g", ""])
def test_test_sizes_outside_crystaldiskmarks_range_are_refused(text: str) -> None:
    with pytest.raises(click.BadParameter, match="allowed 16m to 64g"):
        parse_test_size(text)


@pytest.fixture(scope="module")
def cdm_table() -> pd.DataFrame:
    return cdm_sweep(
        "generic-tlc-1tb",
        preset="nvme",
        size=32 << 20,
        count=3,
        measure=0.01,
        interval=0.0,
        overrides=small_overrides(),
    )


def test_cdm_scores_are_the_best_run_and_latency_the_lowest_mean(cdm_table: pd.DataFrame) -> None:
    t = cdm_table
    assert list(t.columns) == ["test", "op", "mb_per_s", "iops", "lat_us", "runs_mb_per_s", "host"]
    assert set(t.host) == {"windows-10"}
    assert list(t.op) == ["read"] * 4 + ["write"] * 4
    assert list(t.test) == [test.name for test in PRESETS["nvme"]] * 2
    for r in t.itertuples():
        assert len(r.runs_mb_per_s) == 3
        assert r.mb_per_s == pytest.approx(max(r.runs_mb_per_s), abs=1e-3)
    kib = {test.name: test.kib for test in PRESETS["nvme"]}
    assert list(t.iops) == pytest.approx(list(t.mb_per_s * 1e6 / (t.test.map(kib) * 1024)))
    # Little's law per test: with Q x T outstanding, MB/s x latency ~ bytes in flight.
    rnd = t[(t.test == "RND4K Q1T1") & (t.op == "read")].iloc[0]
    assert rnd.iops == pytest.approx(1e6 / rnd.lat_us, rel=0.05)


def test_cdm_refuses_a_test_file_larger_than_the_drive() -> None:
    with pytest.raises(click.BadParameter, match="more than the drive's"):
        cdm_sweep("generic-tlc-1tb", size=1 << 30, overrides=small_overrides())


def test_cdm_text_export_layout(cdm_table: pd.DataFrame) -> None:
    text = text_export(cdm_table, preset="nvme", size=32 << 20, count=3, measure=5, interval=0, drive="X: 1% (0/72GiB)")
    lines = text.splitlines()
    assert lines[0] == "-" * 78
    assert lines[1].startswith("CrystalDiskMark 8.0.4 x64")
    assert lines[4] == "* MB/s = 1,000,000 bytes/s [SATA/600 = 600,000,000 bytes/s]"
    assert lines[5] == "* KB = 1000 bytes, KiB = 1024 bytes"
    assert lines[7] == "[Read]" and lines[13] == "[Write]"
    row = re.compile(
        r"^  (SEQ|RND) {1,4}\d+(MiB|KiB) \(Q=[ \d]{3}, T=[ \d]{2}\): "
        r"[ \d]{4}\d\.\d{3} MB/s \[[ \d]{6}\d\.\d IOPS\] <[ \d]{5}\d\.\d\d us>$"
    )
    for i in [*range(8, 12), *range(14, 18)]:
        assert row.match(lines[i]), lines[i]
    assert lines[9].startswith("  SEQ  128KiB (Q= 32, T= 1):")
    assert lines[10].startswith("  RND    4KiB (Q= 32, T=16):")
    assert lines[19] == "Profile: NVMe SSD"
    assert lines[20] == "   Test: 32 MiB (x3) [X: 1% (0/72GiB)]"
    assert lines[21] == "   Mode: [Admin]"
    assert lines[22] == "   Time: Measure 5 sec / Interval 0 sec "
    assert re.fullmatch(r"   Date: \d{4}/\d\d/\d\d \d{1,2}:\d\d:\d\d", lines[23])
    assert lines[24].startswith("     OS: ssdtwin ")
    assert len(lines) == 25
