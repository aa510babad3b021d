"""Probes of simulated drives (``--twin``), small cuts of shipped profiles: what each
inference finds against what the profile says, the profile written, and that profile put
through the same jobs. The expected values come from the profile's own parameters."""

from __future__ import annotations

import math
import tempfile
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import ssdtwin
from ssdtwin import _ssdtwin
from ssdtwin.probe import Settings, TwinRunner, compare, probe, summary, twin_facts
from ssdtwin.probe.gc import measure_gc
from ssdtwin.probe.plan import ProbeResult
from ssdtwin.probe.runner import Job
from ssdtwin.probe.suspend import derived_program_time_ns, measure_suspend
from ssdtwin.profile_text import check_profile
from ssdtwin.testing import ideal_overrides

GIB = 1 << 30
#: wd-black-256 cut to 8 GiB with a 0.5 GiB static SLC cache: R3's drive, small.
WD_CUT: dict[str, object] = {
    "nand.blocks_per_plane": 100,
    "slc_cache.static_gib": 0.5,
    "identity.capacity_bytes": 8 * GIB,
}
QUICK = Settings.for_twin().only(("floor", "geometry", "slc", "recovery", "fold-reads", "map", "qd"))


def run(profile: str, overrides: dict[str, object], settings: Settings = QUICK, **runner: Any) -> ProbeResult:
    """Probes `profile` made ideal (no latency variability): each estimate is then checked
    against the exact parameter the probe should recover."""
    r = TwinRunner(profile, ideal_overrides(profile) | overrides, **runner)
    try:
        return probe(r, twin_facts(r.device), settings)
    finally:
        r.close()


def profile_of(profile: str, overrides: dict[str, object]) -> dict[str, Any]:
    return tomllib.loads(ssdtwin.profile_toml(profile, ideal_overrides(profile) | overrides))


@pytest.fixture(scope="module")
def wd_cut() -> ProbeResult:
    return run("wd-black-256", WD_CUT)


def value(result: ProbeResult, name: str) -> float:
    e = result.estimates[name]
    assert e.value is not None, e
    return float(e.value)


def test_the_nand_inside_is_read_off_the_scans(wd_cut: ProbeResult) -> None:
    nand = profile_of("wd-black-256", WD_CUT)["nand"]
    assert value(wd_cut, "first_tr_ns") == pytest.approx(nand["slc"]["t_read_us"] * 1e3, rel=0.02)
    assert value(wd_cut, "native_tr_ns") == pytest.approx(nand["tlc"]["t_read_us"] * 1e3, rel=0.02)
    assert value(wd_cut, "program_unit_bytes") == nand["planes"] * nand["page_bytes"]
    assert value(wd_cut, "dies") == nand["channels"] * nand["dies_per_channel"]
    assert value(wd_cut, "channel_bytes_per_s") == pytest.approx(nand["channel_mts"] * 1e6, rel=0.01)
    # ECC and the channel's command cycles are what the QD1 read has besides tR and transfers.
    overhead = nand["ecc_decode_ns"] + nand["channel_cmd_ns"]
    assert value(wd_cut, "first_read_overhead_ns") == pytest.approx(overhead, rel=0.05)


def test_the_link_and_the_firmware_come_from_unmapped_reads(wd_cut: ProbeResult) -> None:
    p = profile_of("wd-black-256", WD_CUT)
    assert (value(wd_cut, "pcie_gen"), value(wd_cut, "pcie_lanes")) == (p["link"]["pcie_gen"], p["link"]["pcie_lanes"])
    assert value(wd_cut, "controller_cores") == p["controller"]["cores"]
    assert value(wd_cut, "unit_ns") == pytest.approx(p["controller"]["unit_ns"], rel=0.01)
    # The core time per read from the ceiling (Little's law); the rest of the QD1 intercept
    # is the fetch and the post.
    assert value(wd_cut, "read_cmd_ns") == pytest.approx(p["controller"]["read_cmd_ns"], rel=0.01)
    fixed = value(wd_cut, "command_fetch_ns") + value(wd_cut, "completion_post_ns")
    assert fixed == pytest.approx(p["link"]["command_fetch_ns"] + p["link"]["completion_post_ns"], rel=0.01)
    assert value(wd_cut, "write_cmd_ns") == pytest.approx(p["controller"]["write_cmd_ns"], rel=0.01)


def test_the_cache_the_cliff_and_what_folds_it(wd_cut: ProbeResult) -> None:
    derived = ssdtwin.profile_derived("wd-black-256", WD_CUT)
    nand = profile_of("wd-black-256", WD_CUT)["nand"]
    unit = nand["planes"] * nand["page_bytes"]
    transfer_us = nand["channel_cmd_ns"] / 1e3 + unit / nand["channel_mts"]
    post_cache = derived["dies"] * unit / (nand["tlc"]["t_prog_us"] + transfer_us) * 1e6
    assert value(wd_cut, "slc_cache_bytes") == pytest.approx(derived["slc_cache_max_bytes"], rel=0.10)
    assert value(wd_cut, "native_write_bytes_per_s") == pytest.approx(post_cache, rel=0.10)
    # R3's drive: no recovery on idle; reads start folding.
    assert wd_cut.estimates["fold_idle_ms"].status == "absent"
    assert value(wd_cut, "fold_on_read") == 1
    assert wd_cut.estimates["map_coverage_bytes"].status == "absent"


def test_without_map_or_qd_tr_is_sampled_where_fold_reads_left_data(wd_cut: ProbeResult) -> None:
    # fold-reads purges the drive and writes half the cache; sampling past it read unwritten
    # units, no faster fresh than settled, and took the SLC cache for a write buffer.
    only = Settings.for_twin().only(("floor", "geometry", "slc", "recovery", "fold-reads"))
    result = run("wd-black-256", WD_CUT, only)
    assert "write_buffer_bytes" not in result.estimates
    assert value(result, "slc_cache_bytes") == pytest.approx(value(wd_cut, "slc_cache_bytes"), rel=0.05)
    assert value(result, "native_tr_ns") == pytest.approx(value(wd_cut, "native_tr_ns"), rel=0.05)


def test_the_quiet_qd1_latency_is_the_sum_of_the_stages(wd_cut: ProbeResult) -> None:
    p = profile_of("wd-black-256", WD_CUT)
    link, ctrl, nand = p["link"], p["controller"], p["nand"]
    link_bps = ssdtwin.profile_derived("wd-black-256", WD_CUT)["link_bytes_per_sec"]
    stages = (
        link["command_fetch_ns"]
        + ctrl["read_cmd_ns"]
        + ctrl["unit_ns"]
        + nand["tlc"]["t_read_us"] * 1e3
        + nand["channel_cmd_ns"]
        + math.ceil(4096 / nand["channel_mts"] * 1e3)
        + nand["ecc_decode_ns"]
        + math.ceil(4096 / link_bps * 1e9)
        + link["completion_post_ns"]
    )
    assert value(wd_cut, "qd1_read_latency_ns") == pytest.approx(stages, rel=0.01)


def test_the_profile_builds_says_where_each_field_came_from_and_runs_the_same(wd_cut: ProbeResult) -> None:
    text = wd_cut.profile_toml()
    check_profile(text)
    inferred = tomllib.loads(text)
    assert inferred["slc_cache"]["fold_on_read"] is True and "fold_idle_ms" not in inferred["slc_cache"]
    lines = {line.split("=")[0].strip(): line for line in text.splitlines() if "=" in line and "#" in line}
    assert "measured:" in lines["t_read_us"] and "default (not inferred" in lines["t_erase_us"]
    assert "the target's size" in lines["capacity_bytes"] and "reported" in lines["model"]
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inferred.toml"
        path.write_text(text)
        again = run(str(path), {})
    table = compare(wd_cut, again)
    points = table[table.measurement != "estimates"]
    assert len(points) > 50
    worst = points.loc[points.error.abs().idxmax()]
    assert abs(worst.error) <= 0.10, worst.to_dict()
    assert set(summary(table).measurement) >= {"floor", "first", "coverage", "qd"}


def test_a_dram_less_drive_shows_where_its_map_cache_ends() -> None:
    """p32a80 cut to 16 GiB with its host's HMB cap at 8 MiB: 64 SRAM and 2048 HMB
    segments of 4 MiB span, 8.25 GiB; latency rises past it."""
    overrides: dict[str, object] = {"nand.blocks_per_plane": 100, "identity.capacity_bytes": 16 * GIB}
    settings = Settings.for_twin().only(("floor", "geometry", "slc", "map", "qd"))
    result = run("p32a80", overrides, settings, hmb=8)
    device = ssdtwin.Device("p32a80", overrides=overrides, hmb=8)
    cache = device.map_cache()
    coverage = (cache["sram_segments"] + cache["hmb_segments"]) * cache["segment_bytes"] // 4 * 4096
    assert coverage == int(8.25 * GIB)
    assert value(result, "map_coverage_bytes") == pytest.approx(coverage, rel=0.15)
    assert result.estimates["slc_cache_bytes"].status == "absent"
    text = tomllib.loads(result.profile_toml())
    assert (text["map_cache"]["location"], text["map_cache"]["sram_kib"]) == ("hmb", 256)


@pytest.mark.slow
def test_gc_reaches_snia_steady_state_and_its_amplification_is_within_the_fifo_bound() -> None:
    """generic-tlc-1tb cut to 64 superblocks of 96 MiB: the rounds reach the window rules,
    and the write amplification the steady-state IOPS imply is at least 1 and at most
    FIFO's, which greedy GC never exceeds (Desnoyers: (1 + OP) / (2 OP), OP the spare GC
    can use: the largest namespace the array allows over the namespace, less one)."""
    overrides: dict[str, object] = {
        "nand.pages_per_block": 96,
        "nand.blocks_per_plane": 64,
        "identity.capacity_bytes": 4 * GIB,
    }
    settings = replace(Settings.for_twin().only(("floor", "geometry", "slc", "gc")), gc_window_s=1.0)
    result = run("generic-tlc-1tb", overrides, settings)
    assert result.gc is not None and result.gc.steady and result.gc.iops is not None
    rounds = result.gc.table
    window = rounds[rounds.in_window].iops
    assert len(window) == 5 and (window.max() - window.min()) <= 0.2 * window.mean()
    strings = [f"{k}={v}" for k, v in overrides.items()]
    op = _ssdtwin.max_namespace_bytes("generic-tlc-1tb", strings) / (4 * GIB) - 1
    wa = value(result, "steady_write_amplification")
    assert 1.0 <= wa <= (1 + op) / (2 * op)
    # The spare is what makes the profile written, at the drive's size, reach the drive's
    # steady state through the same purge, WIPC and rounds.
    assert result.estimates["spare_share"].status == "inferred"
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inferred.toml"
        path.write_text(result.profile_toml())
        again = TwinRunner(path)
        assert result.cliff is not None and not result.cliff.found  # no SLC cache: the ramp is one window
        state = measure_gc(again, twin_facts(again.device), settings, settings.gc_window_s)
        again.close()
    assert state.iops == pytest.approx(result.gc.iops, rel=0.05)


def test_a_drive_with_several_lba_formats_gets_each_measured() -> None:
    overrides: dict[str, object] = {"nand.blocks_per_plane": 64, "identity.capacity_bytes": 64 * GIB}
    result = run("micron-9200max", overrides, Settings.for_twin().only(("floor", "lbaf")))
    deserved = {name: value(result, name) for name in result.estimates if name.endswith("_deserved_rp")}
    # 512 B formats pay read-modify-write for one-LBA writes; 4 KiB formats do not.
    assert deserved == {"lbaf0_deserved_rp": 1, "lbaf1_deserved_rp": 1, "lbaf2_deserved_rp": 0, "lbaf3_deserved_rp": 0}


@pytest.mark.parametrize("suspend", ["program-erase", "none"])
def test_reads_among_writes_tell_whether_programs_are_suspended(suspend: str) -> None:
    """The generic TLC drive cut to 8 GiB (tPROG 600 us, 32 dies of 32 KiB units), with its
    program/erase suspend (20 us) and without: a read that meets a program costs a suspend
    or, on average, half the program; the line between is a quarter of it. The inferred
    profile carries what was found."""
    overrides: dict[str, object] = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 * GIB}
    overrides["nand.suspend"] = suspend
    result = run("generic-tlc-1tb", overrides, Settings.for_twin().only(("floor", "geometry", "slc", "qd", "suspend")))
    nand = profile_of("generic-tlc-1tb", overrides)["nand"]
    tprog_ns = nand["tlc"]["t_prog_us"] * 1e3
    # Every die programming: the writes' rate is the programs' (and their transfers').
    assert value(result, "program_time_ns") == pytest.approx(tprog_ns, rel=0.1)
    assert result.estimates["program_time_ns"].status == "inferred"
    assert result.suspend is not None
    quiet, loaded = result.suspend.table.read_lat_us * 1e3
    wait = loaded - quiet
    if suspend == "none":
        assert value(result, "program_suspend") == 0.0
        assert tprog_ns / 4 < wait < tprog_ns
        # Programs bind the writes: their rate gives tPROG, with nothing to calibrate.
        assert "native_program_time_ns" not in result.estimates
    else:
        assert value(result, "program_suspend") == 1.0
        assert 0 < wait < 3 * nand["suspend_us"] * 1e3
    assert tomllib.loads(result.profile_toml())["nand"]["suspend"] == suspend


def test_a_drive_that_folds_its_cache_away_when_idle_is_timed_on_its_native_programs() -> None:
    """The WD cut folds its whole SLC cache when idle, so the cache is empty when the suspend
    step writes: the step first fills it at its own rate, and the writes it measures run at
    the native programs' pace, which gives the native tPROG and the suspend found."""
    overrides = WD_CUT | {"slc_cache.fold_idle_low_gib": 0.0, "nand.suspend": "program-erase"}
    result = run("wd-black-256", overrides, Settings.for_twin().only(("floor", "geometry", "slc", "qd", "suspend")))
    assert result.cliff is not None and result.cliff.found and result.suspend is not None
    writes_mb_per_s = float(result.suspend.table.write_mb_per_s.iloc[1])
    post_cache = result.cliff.post_cache_bytes_per_s
    assert post_cache is not None
    assert writes_mb_per_s * 1e6 == pytest.approx(post_cache, rel=0.15)
    assert value(result, "program_suspend") == 1.0


def test_the_suspend_step_needs_the_written_drive() -> None:
    overrides: dict[str, object] = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 * GIB}
    result = run("generic-tlc-1tb", overrides, Settings.for_twin().only(("floor", "geometry", "suspend")))
    assert result.suspend is None
    assert result.skipped == {
        "suspend": "it reads the written drive among writes: it needs the fill that map or qd make"
    }
    assert tomllib.loads(result.profile_toml())["nand"]["suspend"] == "program-erase"


def test_dies_and_channels_behind_the_firmwares_ceiling_come_from_pairs_of_units() -> None:
    """intel-910-400 (one module) cut to 8 GiB: one core at 18 us a read caps 4 KiB reads
    near 55 K IOPS, three dies' worth at tR 50 us, so the die scan shows a lower bound only.
    Units striped over the dies share a die when they are a multiple of the die count apart,
    and a channel when a multiple of the channel count: the pair and channel scans find both.
    The SAS lane (PCIe 2.0 x1 with 1 KiB frames) has the payload rate of Gen1 x2 with 1 KiB
    payloads, which the probe cannot tell from it and need not."""
    overrides: dict[str, object] = {"nand.blocks_per_plane": 96, "identity.capacity_bytes": 8 * GIB}
    result = run("intel-910-400", overrides, Settings.for_twin().only(("floor", "geometry")))
    nand = profile_of("intel-910-400", overrides)["nand"]
    die_scan = result.first.table if result.first is not None else None
    assert die_scan is not None
    best = float(die_scan[die_scan.test == "die scan"].iops.max())
    assert best * value(result, "first_tr_ns") * 1e-9 < nand["channels"] * nand["dies_per_channel"] / 8
    assert value(result, "dies") == nand["channels"] * nand["dies_per_channel"]
    assert result.estimates["dies"].status == "inferred"
    assert value(result, "channels") == nand["channels"]
    inferred = tomllib.loads(result.profile_toml())
    link = [
        f"link.{k}={v}" for k, v in inferred["link"].items() if k in ("pcie_gen", "pcie_lanes", "max_payload_bytes")
    ]
    inferred_rate = _ssdtwin.derived("generic-tlc-1tb", link)["link_bytes_per_sec"]
    true_rate = ssdtwin.profile_derived("intel-910-400", overrides)["link_bytes_per_sec"]
    assert inferred_rate == pytest.approx(true_rate, rel=0.02)


def test_a_link_bound_card_gets_the_cores_its_writes_need_and_its_dies_counted() -> None:
    """iodrive2-1200 cut to 8 GiB: 4 KiB reads at depth fill its PCIe 2.0 x4 link (128-byte
    payloads) long before its 192 dies or 8 pipelines, so neither shows in the read ceiling.
    Writes at depth hold a core 8.4 us each: the cores must carry the link's rate of them
    too, or the inferred card writes at a quarter of its speed; the pair scan counts the
    dies and the channel scan the channels, and the inferred profile's fixed path (writes at
    depth included) is the card's."""
    overrides: dict[str, object] = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 * GIB}
    settings = Settings.for_twin().only(("floor", "geometry"))
    result = run("iodrive2-1200", overrides, settings)
    p = profile_of("iodrive2-1200", overrides)
    nand, ctrl = p["nand"], p["controller"]
    assert value(result, "dies") == nand["channels"] * nand["dies_per_channel"]
    assert value(result, "channels") == nand["channels"]
    link = ssdtwin.profile_derived("iodrive2-1200", overrides)["link_bytes_per_sec"]
    assert value(result, "link_bytes_per_s") == pytest.approx(link, rel=0.01)
    cores = value(result, "controller_cores")
    per_write_ns = value(result, "write_cmd_ns") + value(result, "unit_ns")
    assert cores / per_write_ns * 1e9 >= link / 4096
    assert cores <= ctrl["cores"]
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "inferred.toml"
        path.write_text(result.profile_toml())
        again = run(str(path), {}, Settings.for_twin().only(("floor",)))
    table = compare(result, again)
    floor = table[table.measurement == "floor"]
    assert "test=firmware write bs=4096 iodepth=32" in set(floor.point)
    assert floor.error.abs().max() <= 0.10, floor.loc[floor.error.abs().idxmax()].to_dict()


def test_a_drive_near_its_throttling_threshold_is_let_cool_during_the_cliff() -> None:
    """generic-tlc-1tb (no SLC cache) cut to 16 GiB with a thermal mass of 0.5 J/K: writing
    flat out heats it to WCTEMP within seconds, and the halved power budget halves the rate,
    which is a fall as a full cache's is. Reading the drive's temperature, the cliff lets it
    cool before each segment that could reach WCTEMP and finds no cache; blind to it, the
    same writes show a false cliff."""
    from ssdtwin.probe.slc import measure_cliff

    overrides: dict[str, object] = {
        "nand.blocks_per_plane": 32,
        "identity.capacity_bytes": 16 * GIB,
        "thermal.heat_capacity_j_per_k": 0.5,
    }
    derived = ssdtwin.profile_derived("generic-tlc-1tb", overrides)
    nand = profile_of("generic-tlc-1tb", overrides)["nand"]
    unit = nand["planes"] * nand["page_bytes"]
    post_cache = derived["dies"] * unit / (nand["tlc"]["t_prog_us"] * 1e3 + unit / nand["channel_mts"] * 1e3) * 1e9
    runner = TwinRunner("generic-tlc-1tb", overrides)
    facts = twin_facts(runner.device)
    assert facts.wctemp_kelvin == runner.device.identity()["wctemp_kelvin"]
    cooled = measure_cliff(runner, facts, Settings.for_twin(), derived["link_bytes_per_sec"])
    runner.close()
    assert not cooled.found and "let cool" in cooled.estimates[0].measurement
    assert cooled.estimates[1].value == pytest.approx(post_cache, rel=0.10)
    blind = TwinRunner("generic-tlc-1tb", overrides)
    blind.health = lambda: None  # type: ignore[method-assign]
    hot = measure_cliff(blind, facts, Settings.for_twin(), derived["link_bytes_per_sec"])
    blind.close()
    assert hot.found and (hot.post_cache_bytes_per_s or 0.0) < 0.5 * post_cache


def test_a_link_bound_drive_s_program_time_is_calibrated_on_its_reads_among_writes() -> None:
    """The generic TLC drive cut to 8 GiB without program suspend, behind a PCIe 3.0 x1
    link (0.89 GB/s of payload) that carries less than its 32 dies program (1.75 GB/s):
    the writes' rate only bounds tPROG from above. The reads among writes choose a shorter
    one, nearer the drive's, whose profile reproduces them where the bound's does not."""
    overrides: dict[str, object] = {
        "nand.blocks_per_plane": 24,
        "identity.capacity_bytes": 8 * GIB,
        "nand.suspend": "none",
        "link.pcie_gen": 3,
        "link.pcie_lanes": 1,
    }
    settings = Settings.for_twin().only(("floor", "geometry", "slc", "qd", "suspend"))
    result = run("generic-tlc-1tb", overrides, settings)
    tprog_ns = profile_of("generic-tlc-1tb", overrides)["nand"]["tlc"]["t_prog_us"] * 1e3
    bound_ns = derived_program_time_ns(
        twin_facts(ssdtwin.Device("generic-tlc-1tb", overrides=overrides)), result.estimates
    )
    # The writes' rate is the link's: the tPROG it gives is a bound, and says so.
    assert result.estimates["program_time_ns"].status == "upper bound"
    assert result.estimates["native_program_time_ns"].status == "inferred"
    calibrated_ns = value(result, "native_program_time_ns")
    assert tprog_ns < calibrated_ns < bound_ns
    assert result.suspend is not None
    drive_us = float(result.suspend.table.read_lat_us.iloc[1])
    profile = tomllib.loads(result.profile_toml())
    assert profile["nand"]["tlc"]["t_prog_us"] == pytest.approx(calibrated_ns / 1e3)

    def reads_among_writes_us(t_prog_us: float) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "inferred.toml"
            path.write_text(result.profile_toml())
            r = TwinRunner(path, {"nand.tlc.t_prog_us": t_prog_us})
            try:
                r.condition(Job("fill", "write", 128 << 10, iodepth=32), "test")
                facts = twin_facts(r.device)
                span = facts.size_bytes - facts.size_bytes % (1 << 20)
                table = measure_suspend(r, facts, settings, 0, span, None, None).table
            finally:
                r.close()
        return float(table.read_lat_us.iloc[1])

    assert reads_among_writes_us(calibrated_ns / 1e3) == pytest.approx(drive_us, rel=0.05)
    assert abs(reads_among_writes_us(bound_ns / 1e3) / drive_us - 1) > 0.1
