"""``ssdtwin profiles``: list the shipped profiles; ``profiles show`` prints resolved,
validated TOML that loads back as the same profile."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
import ssdtwin
from click.testing import CliRunner
from ssdtwin.cli import cli

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]


def show(*args: str) -> str:
    result = CliRunner().invoke(cli, ["profiles", "show", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_profiles_lists_the_shipped_drives() -> None:
    result = CliRunner().invoke(cli, ["profiles"], catch_exceptions=False)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert [line.split("  ")[0] for line in lines[:3]] == ["name", "generic-tlc-1tb", "p32a80"]
    assert lines[0].split() == ["name", "model", "capacity", "link", "nand", "map", "facts"]
    assert lines[3].split()[:8] == ["crucial-p1", "CT1000P1SSD8", "1,000", "GB", "pcie3x4", "QLC,", "4", "ch"]
    assert lines[3].endswith("dram  sources in the profile")
    qvo = next(line for line in lines if line.startswith("samsung-870-qvo-4tb "))
    assert "4,001 GB  sata3" in qvo and qvo.endswith("datasheet sheet, not calibrated")


def records(*args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["profiles", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    out: list[dict[str, object]] = json.loads(result.stdout)
    return out


def test_profiles_json_gives_one_record_per_drive_and_filters_narrow_it() -> None:
    every = records()
    assert [r["name"] for r in every] == ssdtwin.profiles()
    assert set(every[0]) == {"name", "kind", "model", "capacity_bytes", "cell", "interface", "channels", "map", "facts"}
    p1 = next(r for r in every if r["name"] == "crucial-p1")
    assert (p1["kind"], p1["cell"], p1["interface"], p1["map"]) == ("hand-built", "qlc", "pcie3x4", "dram")
    qlc_sata = records("--cell", "qlc", "--interface", "sata3")
    assert {r["name"] for r in qlc_sata} == {"samsung-870-qvo-1tb", "samsung-870-qvo-4tb"}
    assert all(r["kind"] == "library" for r in qlc_sata)
    big = records("--min-capacity-gb", "1500", "--max-capacity-gb", "2500")
    assert {r["name"] for r in big} == {"micron-9200max", "crucial-t500-2tb", "samsung-990-pro-2tb"}
    assert {r["name"] for r in records("--map", "hmb")} == {"p32a80", "wd-black-sn770-1tb", "wd-blue-sn570-1tb"}
    # A filter lists the drives alone, no hosts, disks or pools.
    text = CliRunner().invoke(cli, ["profiles", "--cell", "mlc"], catch_exceptions=False).stdout
    assert [line.split()[0] for line in text.splitlines()] == ["name", "iodrive2-1200", "intel-910-400"]


def test_show_of_a_library_profile_ends_with_its_sheet() -> None:
    text = show("samsung-980-pro-1tb")
    assert "# built by 'ssdtwin profile new' from its sheet, ssdtwin/datasheet/sheets/samsung-980-pro-1tb.toml:" in text
    assert '#   name = "Samsung 980 PRO 1TB"' in text
    assert tomllib.loads(text)["identity"]["model"] == "Samsung 980 PRO 1TB"


def test_profiles_lists_the_shipped_hosts_after_the_drives() -> None:
    lines = CliRunner().invoke(cli, ["profiles"], catch_exceptions=False).stdout.splitlines()
    start = lines.index("") + 1
    hosts = lines[start : lines.index("", start)]
    assert hosts[0].split() == ["host", "os", "cores", "x", "speed", "engines"]
    assert [h.split()[0] for h in hosts[1:]] == ssdtwin.hosts()
    assert hosts[1].split() == ["none", "none"]
    linux = next(h for h in hosts if h.startswith("linux-6.1 "))
    assert "16 x 1" in linux and "io_uring" in linux
    assert "io_uring" not in next(h for h in hosts if h.startswith("linux-4.15 "))


def test_profiles_lists_the_shipped_disks_and_pools_after_the_hosts() -> None:
    lines = CliRunner().invoke(cli, ["profiles"], catch_exceptions=False).stdout.splitlines()
    disks = lines[lines.index("disk              model            capacity  mechanics") + 1 :]
    assert disks[0].split()[:3] == ["exos-x18-16tb", "ST16000NM000J", "16.0"]
    assert "7200 rpm, 270-135 MB/s, seek 7.4 ms" in disks[0]
    pools = lines[lines.index(next(x for x in lines if x.startswith("pool "))) + 1 :]
    assert [p.split()[0] for p in pools] == ssdtwin.pools()
    assert pools[1].endswith("normal mirror of 2x exos-x18-16tb + special mirror of 2x generic-tlc-1tb")
    shown = CliRunner().invoke(cli, ["profiles", "show", "exos-x18-16tb", "--set", "mechanics.rpm=5400"])
    assert "rpm = 5400" in shown.stdout


def test_show_prints_a_host_profile_with_overrides(tmp_path: Path) -> None:
    parsed = tomllib.loads(show("linux-6.1", "--set", "cpu.cores=4"))
    assert (parsed["host"]["os"], parsed["cpu"]["cores"]) == ("linux", 4)
    assert parsed["engines"]["libaio"]["kind"] == "async"
    (tmp_path / "mine.toml").write_text(show("windows-10"))
    assert tomllib.loads(show(str(tmp_path / "mine.toml")))["host"]["os"] == "windows"


def test_a_bad_host_field_is_one_line(run_main: RunMain) -> None:
    outcome = run_main("profiles", "show", "linux-6.1", "--set", "cpu.cores=0")
    assert_one_line_error(outcome, "ssdtwin: shipped:hosts/linux-6.1: cpu.cores = 0: allowed 1 to 4096")


def test_show_prints_toml_that_round_trips(tmp_path: Path) -> None:
    text = show("generic-tlc-1tb")
    parsed = tomllib.loads(text)
    assert parsed["identity"]["capacity_bytes"] == 1_000_204_886_016
    assert parsed["nand"]["channels"] == 8
    assert parsed["nand"]["tlc"] == {
        "t_read_us": 50.0,
        "t_read_spread_us": 10.0,
        "t_prog_us": 600.0,
        "t_erase_us": 3500.0,
    }
    toml_text, derived = text.split("\n# derived", 1)
    assert toml_text == ssdtwin.profile_toml("generic-tlc-1tb")
    assert all(line.startswith("# ") for line in derived.splitlines()[1:])
    # The printed TOML, loaded from a file as a profile, resolves to the same TOML.
    (tmp_path / "copy.toml").write_text(text)
    assert show("copy.toml") == text
    assert show(str(tmp_path / "copy.toml")) == text
    assert ssdtwin.Device(tmp_path / "copy.toml").profile_toml == toml_text


def test_show_applies_overrides_as_toml_values(tmp_path: Path) -> None:
    text = show("generic-tlc-1tb", "--set", "nand.channels=16", "--set", 'nand.scheduler="read-priority"')
    parsed = tomllib.loads(text)
    assert parsed["nand"]["channels"] == 16
    (tmp_path / "wide.toml").write_text(text)
    assert ssdtwin.Device(tmp_path / "wide.toml").info()["dies"] == 64
    assert show("wide.toml") == text


def test_show_ends_with_what_the_profile_implies() -> None:
    lines = show("wd-black-256").split("\n# derived", 1)[1].splitlines()
    d = ssdtwin.profile_derived("wd-black-256")
    # 45 static SLC superblocks of 64 MiB (a third of a 192 MiB TLC superblock) make its 2.8 GiB cache.
    assert (d["slc_static_superblocks"], d["slc_superblock_bytes"] * 3) == (45, d["superblock_bytes"])
    assert d["slc_cache_max_bytes"] == 45 * d["slc_superblock_bytes"]
    assert "SLC cache up to 45 static + 0 dynamic superblocks = 2.8 GiB" in lines[2]
    # The array's TLC program ceiling is what its post-cache writes reach (about 200 MB/s after the cliff).
    assert 180e6 < d["nand_program_bytes_per_sec"] < 240e6
    # SLC mode programs the same program unit in tPROG 300 us instead of 1250 us.
    assert d["nand_slc_program_bytes_per_sec"] == pytest.approx(d["nand_program_bytes_per_sec"] * 1250 / 300)
    assert "host link 3,575 MB/s" in lines[5]
    wide = ssdtwin.profile_derived("generic-tlc-1tb", {"nand.channels": 16})
    assert wide["dies"] == 2 * ssdtwin.profile_derived("generic-tlc-1tb")["dies"]


def test_show_validates(run_main: RunMain) -> None:
    # Parses as TOML but cannot build a drive: both capacity and over-provisioning.
    outcome = run_main("profiles", "show", "generic-tlc-1tb", "--set", "ftl.overprovisioning_pct=7")
    assert_one_line_error(outcome)
    assert outcome.err == (
        "ssdtwin: shipped:generic-tlc-1tb: ftl.overprovisioning_pct = set: give identity.capacity_bytes or "
        "ftl.overprovisioning_pct, not both\n"
    )
    outcome = run_main("profiles", "show", "generic-tlc-1tb", "--set", "nand.chanels=4")
    assert_one_line_error(outcome, "ssdtwin: shipped:generic-tlc-1tb: [nand]: unknown field `chanels`")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["show", "no-such-drive"],
            "ssdtwin: profile 'no-such-drive' is neither a shipped profile "
            f"({', '.join(ssdtwin.profiles())}) nor a readable TOML file",
        ),
        (
            ["show", "generic-tlc-1tb", "--set", "nand"],
            "ssdtwin: Invalid value for --set: 'nand': expected SECTION.FIELD=VALUE (see 'ssdtwin profiles show "
            "--help')",
        ),
        (["show"], "ssdtwin: Missing argument 'NAME'. (see 'ssdtwin profiles show --help')"),
        (["list"], "ssdtwin: No such command 'list'. (see 'ssdtwin profiles --help')"),
    ],
)
def test_errors(run_main: RunMain, args: list[str], message: str) -> None:
    outcome = run_main("profiles", *args)
    assert_one_line_error(outcome)
    assert outcome.err == message + "\n"


def test_a_malformed_profile_file_names_its_line(run_main: RunMain, tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[nand\nchannels = 8\n")
    outcome = run_main("profiles", "show", "bad.toml")
    assert_one_line_error(outcome, "ssdtwin: bad.toml: line 1")
