"""Profiles built from sheets: each derivation checked against what the model then does."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from ssdtwin import _ssdtwin
from ssdtwin.datasheet import build_from_sheet, idema_bytes, parse_sheet
from ssdtwin.datasheet.build import write_rates_mbps
from ssdtwin.datasheet.priors import nand_generation, priors
from ssdtwin.errors import ProfileError

from .test_sheet import BASE, sheet_with


def built(text: str, tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The profile a sheet builds, as TOML, and what the model derives from it."""
    path = tmp_path / "built.toml"
    path.write_text(build_from_sheet(parse_sheet(text)).toml())
    return tomllib.loads(path.read_text()), dict(_ssdtwin.derived(str(path), []))


def test_the_namespace_is_the_idema_size_and_the_dies_hold_it_with_the_spare(tmp_path: Path) -> None:
    p, d = built(BASE, tmp_path)
    assert p["identity"]["capacity_bytes"] == idema_bytes(1000) == 1_953_525_168 * 512
    # 176L TLC (the usual generation of PCIe 4 drives): 512 Gbit dies; 1000 GB plus 7 % spare
    # needs 16 of them, on a DRAM-less controller's 4 channels.
    assert nand_generation("tlc", 176)["die_gbit"] == 512
    assert (d["dies"], p["nand"]["channels"], p["nand"]["dies_per_channel"]) == (16, 4, 4)
    assert d["raw_bytes"] <= 16 * 512 * 2**30 // 8
    assert d["namespace_bytes"] == idema_bytes(1000)


def test_the_rated_writes_set_the_program_times(tmp_path: Path) -> None:
    """In-cache: the rated sequential write over the dies' SLC programs; after the cache:
    the rated post-cache write over the native programs (tPROG rounded to 0.1 us)."""
    p, _ = built(sheet_with("post_cache_write_mbps = 1200"), tmp_path)
    rates = write_rates_mbps(p)
    assert rates["slc"] == pytest.approx(4500, rel=1e-3)
    assert rates["tlc"] == pytest.approx(1200, rel=1e-3)


def test_a_rating_more_than_the_dies_can_program_leaves_the_generation_s_time(tmp_path: Path) -> None:
    # 4 dies of a 256 GB drive cannot take 4.5 GB/s: 64 KiB per die would need programs
    # shorter than their own 41 us transfer.
    p, _ = built(sheet_with().replace("capacity_gb = 1000", "capacity_gb = 256"), tmp_path)
    assert p["nand"]["slc"]["t_prog_us"] == nand_generation("tlc", 176)["slc_t_prog_us"]


def test_without_a_post_cache_rating_the_generation_sets_the_native_program_time(tmp_path: Path) -> None:
    p, _ = built(BASE, tmp_path)
    assert p["nand"]["tlc"]["t_prog_us"] == nand_generation("tlc", 176)["t_prog_us"]
    assert p["nand"]["tlc"]["t_read_us"] == nand_generation("tlc", 176)["t_read_us"]


def test_firmware_time_per_command_is_the_cores_share_of_the_rated_iops(tmp_path: Path) -> None:
    p, _ = built(BASE, tmp_path)
    cores, share = p["controller"]["cores"], priors()["firmware"]["iops_share"]
    assert p["controller"]["read_cmd_ns"] == round(cores * 1e9 / 700_000 * share)
    assert p["controller"]["write_cmd_ns"] == round(cores * 1e9 / 800_000 * share)


def test_the_map_follows_dram_and_hmb(tmp_path: Path) -> None:
    p, d = built(sheet_with("hmb_mib = 64"), tmp_path)
    assert p["map_cache"]["location"] == "hmb" and p["identity"]["hmpre"] == 64 * 256
    assert d["map_hmb_requested_bytes"] == 64 * 2**20
    p, _ = built(BASE, tmp_path)
    assert p["map_cache"]["location"] == "sram"
    p, _ = built(sheet_with().replace("dram_mib = 0", "dram_mib = 1024"), tmp_path)
    assert p["map_cache"]["location"] == "dram" and p["nand"]["channels"] == 8


def test_a_rated_slc_cache_is_what_the_drive_can_hold_on_an_empty_drive(tmp_path: Path) -> None:
    _, d = built(sheet_with("slc_cache_gb = 200"), tmp_path)
    # The static part is rounded up to whole SLC superblocks.
    assert d["slc_cache_max_bytes"] == pytest.approx(200e9, rel=0.01)


def test_a_sata_drive_has_one_ncq_queue_and_the_sata_line_rate(tmp_path: Path) -> None:
    text = sheet_with().replace('"pcie4x4"', '"sata3"').replace("5000", "560").replace("4500", "510")
    p, d = built(text, tmp_path)
    assert p["link"]["transport"] == "sata" and (p["link"]["io_queues"], p["link"]["queue_depth"]) == (1, 33)
    # 6 Gb/s after 8b/10b, 8192-byte data FIS with 24 bytes of framing each.
    assert d["link_bytes_per_sec"] == pytest.approx(600e6 * 8192 / 8216, rel=1e-6)


def test_an_enterprise_drive_has_no_slc_cache_and_acknowledges_flushes(tmp_path: Path) -> None:
    text = sheet_with('class = "enterprise"').replace("dram_mib = 0", "dram_mib = 4096")
    p, d = built(text.replace("capacity_gb = 1000", "capacity_gb = 3840"), tmp_path)
    assert "slc_cache" not in p and p["controller"]["power_protected"] is True
    assert p["nand"]["channels"] == 16 and d["dies"] == 64
    # Without a cache the rated sequential write is the array's program rate.
    assert write_rates_mbps(p)["tlc"] == pytest.approx(4500, rel=1e-3)


def test_every_prior_cites_a_source_the_file_lists() -> None:
    p = priors()
    keys = set(p["sources"])

    def cited(entry: dict[str, Any]) -> list[str]:
        return [k.strip() for k in str(entry["source"]).split(",")]

    entries = [*p["interface"].values(), *p["nand"], p["controller_class"], p["read_spread"], p["pe_cycles"]]
    entries += [p["slc_cache"], p["dramless_map"], p["spare"], p["firmware"]]
    for entry in entries:
        assert set(cited(entry)) <= keys, entry


def test_nand_that_cannot_hold_the_capacity_is_refused_naming_the_key() -> None:
    # 16 dies of 512 Gbit hold 1,100 GB raw: not a 1,080 GB namespace with the reserves.
    text = sheet_with("nand_dies = 16\nnand_die_gbit = 512").replace("capacity_gb = 1000", "capacity_gb = 1080")
    with pytest.raises(ProfileError, match=r"drive.nand_dies: 16 dies hold at most a [\d,]+ GB namespace"):
        build_from_sheet(parse_sheet(text))


def test_calibrations_replace_derived_fields_and_say_so(tmp_path: Path) -> None:
    cal = '[[calibrate]]\nfield = "nand.tlc.t_prog_us"\nvalue = 900.0\nreason = "a review: 1.2 GB/s after the cache"\n'
    sheet = parse_sheet(BASE + cal)
    text = build_from_sheet(sheet).toml()
    assert tomllib.loads(text)["nand"]["tlc"]["t_prog_us"] == 900.0
    assert "# calibrated: a review: 1.2 GB/s after the cache" in text
    plain = tomllib.loads(build_from_sheet(sheet, calibrate=False).toml())
    assert plain["nand"]["tlc"]["t_prog_us"] == nand_generation("tlc", 176)["t_prog_us"]


def test_a_calibration_of_a_field_no_profile_has_names_the_calibration() -> None:
    cal = '[[calibrate]]\nfield = "nand.tlc.t_prgo_us"\nvalue = 900.0\nreason = "x"\n'
    with pytest.raises(ProfileError, match=r"^sheet: calibrate \(nand.tlc.t_prgo_us\): .*unknown field `t_prgo_us`"):
        build_from_sheet(parse_sheet(BASE + cal))
