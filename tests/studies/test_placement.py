"""The placement study: placement lowers write amplification on its adversarial and
lifetimes workloads, the mix holds as the workload says, and a drive without FDP is refused."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest
from ssdtwin.studies.placement import STREAMS, placement

from ..helpers import Outcome, assert_one_line_error


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return placement(
        workloads=["adversarial"], configs=["conventional", "placed"], capacity_gib=4, warm_up=1.0, measure=0.5
    )


def test_placing_the_streams_lowers_the_drive_s_write_amplification(table: pd.DataFrame) -> None:
    device = table[table.kind == "device"].set_index("config")
    assert device.loc["conventional", "waf"] > 1.1, "GC moves data at this fill"
    assert device.loc["placed", "waf"] < device.loc["conventional", "waf"]
    for r in device.itertuples():
        assert r.waf == pytest.approx(r.media_gb / r.host_gb, rel=1e-9)


def test_flow_control_keeps_each_stream_s_share_of_the_bytes(table: pd.DataFrame) -> None:
    for config, rows in table[table.kind == "stream"].groupby("config"):
        total = rows.host_gb.sum()
        for (name, share, _), r in zip(STREAMS["adversarial"], rows.itertuples(), strict=True):
            assert r.stream == name
            assert r.host_gb / total == pytest.approx(share, rel=0.02), (config, name)


def test_streams_have_their_own_write_amplification_only_when_placed(table: pd.DataFrame) -> None:
    streams = table[table.kind == "stream"]
    assert streams[streams.config == "conventional"].waf.isna().all()
    placed = streams[streams.config == "placed"]
    assert (placed.waf >= 1.0).all()
    # What GC moved out of each handle's reclaim units is part of what the drive moved
    # (the rest: data moved out of GC's shared reclaim units again, and padding).
    moved_per_handle = ((placed.waf - 1) * placed.host_gb).sum()
    device = table[(table.kind == "device") & (table.config == "placed")].iloc[0]
    assert 0 < moved_per_handle <= device.media_gb - device.host_gb + 1e-9


def test_a_drive_without_fdp_is_refused(run_main: Callable[..., Outcome]) -> None:
    outcome = run_main("study", "placement", "--profile", "generic-tlc-1tb", "--executor", "serial")
    assert_one_line_error(outcome, "generic-tlc-1tb has no Flexible Data Placement")
