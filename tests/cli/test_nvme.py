"""``ssdtwin nvme``: id-ctrl, id-ns, list, smart-log, get-feature and format through the real
entry point, and every error they report (one line, exit status 2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
import ssdtwin

from ..helpers import Outcome, assert_one_line_error, run_and_save

RunMain = Callable[..., Outcome]


def ok(run_main: RunMain, *args: str | Path) -> Outcome:
    outcome = run_main("nvme", *args)
    assert outcome.status == 0, outcome
    return outcome


def field(text: str, name: str) -> str:
    (line,) = [ln for ln in text.splitlines() if ln.startswith(f"{name:<8}: ") or ln.startswith(f"{name:<10}: ")]
    return line.split(": ", 1)[1]


# ---- id-ctrl ----------------------------------------------------------------------------------


def test_id_ctrl_reports_the_p32a80_hmb_request(run_main: RunMain) -> None:
    text = ok(run_main, "id-ctrl", "--profile", "p32a80").out
    assert text.startswith("NVME Identify Controller:\nvid       : 0x1987\n")
    assert "\nhmpre     : 61440\nhmmin     : 2048\ntnvmcap   : 256060514304\n" in text
    assert "\nhmminds   : 0\nhmmaxd    : 0\n" in text
    j = json.loads(ok(run_main, "id-ctrl", "--profile", "p32a80", "-o", "json").out)
    assert (j["hmpre"], j["hmmin"], j["hmminds"], j["hmmaxd"]) == (61440, 2048, 0, 0)
    assert j["tnvmcap"] == "256060514304" and j["mn"] == "SPCC M.2 PCIe SSD".ljust(40)


def test_id_ctrl_json_is_laid_out_as_nvme_cli_prints_it(run_main: RunMain) -> None:
    out = ok(run_main, "id-ctrl", "--profile", "p32a80", "--output-format=json").out
    assert out.startswith('{\n  "vid":6535,\n')
    assert out.endswith("\n  ]\n}\n") and not out.endswith("\n\n")


def test_id_ctrl_human_prints_the_drivers_hmb_grant_on_stderr(run_main: RunMain) -> None:
    auto = ok(run_main, "id-ctrl", "--profile", "p32a80", "-H")
    assert "  [1:1] : 0x1\tFormat NVM Supported\n" in auto.out
    # The driver caps the 240 MiB request at its default 128 MiB (domain facts 1.3).
    assert auto.err == "nvme nvme0: allocated 128 MiB host memory buffer.\n"
    assert ok(run_main, "id-ctrl", "--profile", "p32a80", "-H", "--hmb", "64").err == (
        "nvme nvme0: allocated 64 MiB host memory buffer.\n"
    )
    assert ok(run_main, "id-ctrl", "--profile", "p32a80", "-H", "--hmb", "off").err == ""
    assert ok(run_main, "id-ctrl", "--profile", "p32a80", "-H", "--hmb", "4").err == (
        "nvme nvme0: min host memory (8 MiB) above limit (4 MiB).\n"
    )
    # Without -H the output is nvme-cli's alone, and the HMB setting changes nothing in it.
    plain = ok(run_main, "id-ctrl", "--profile", "p32a80", "--hmb", "64")
    assert plain.err == "" and plain.out == ok(run_main, "id-ctrl", "--profile", "p32a80").out
    assert "\nhmpre     : 61440\n" in auto.out


def test_id_ctrl_default_profile_and_overrides(run_main: RunMain) -> None:
    text = ok(run_main, "id-ctrl").out
    assert field(text, "mn") == "ssdtwin Generic TLC 1TB".ljust(40)
    assert field(text, "cntrltype") == "1"
    text = ok(run_main, "id-ctrl", "--set", "identity.hmpre=8192", "--set", "identity.wctemp_kelvin=350").out
    assert (field(text, "hmpre"), field(text, "wctemp")) == ("8192", "350")


# ---- id-ns and list ---------------------------------------------------------------------------


def test_id_ns_text_human_and_json(run_main: RunMain) -> None:
    text = ok(run_main, "id-ns", "--profile", "generic-tlc-1tb").out
    assert text.startswith("NVME Identify Namespace 1:\nnsze    : 0x74706db0\n")
    assert text.endswith("lbaf  0 : ms:0   lbads:9  rp:0x2 (in use)\nlbaf  1 : ms:0   lbads:12 rp:0x1 \n")
    human = ok(run_main, "id-ns", "-H").out
    assert (
        "LBA Format  0 : Metadata Size: 0   bytes - Data Size: 512 bytes - Relative Performance: 0x2 Good (in use)\n"
        in human
    )
    j = json.loads(ok(run_main, "id-ns", "-o", "json").out)
    assert (j["nsze"], j["nuse"], j["nvmcap"]) == (1_953_525_168, 0, "1000204886016")


def test_list_text_and_json(run_main: RunMain) -> None:
    rows = ok(run_main, "list", "--profile", "p32a80").out.splitlines()
    assert rows[0].startswith("Node                  Generic               SN ")
    assert rows[2].startswith("/dev/nvme0n1          /dev/ng0n1            SSDTWIN00P32A80      SPCC M.2 PCIe SSD ")
    assert "  0.00   B / 256.06  GB    512   B +  0 B   SSDTWIN1" in rows[2]
    j = json.loads(ok(run_main, "list", "--profile", "p32a80", "-o", "json").out)
    assert j == {
        "Devices": [
            {
                "NameSpace": 1,
                "DevicePath": "/dev/nvme0n1",
                "Firmware": "SSDTWIN1",
                "ModelNumber": "SPCC M.2 PCIe SSD",
                "SerialNumber": "SSDTWIN00P32A80",
                "UsedBytes": 0,
                "MaximumLBA": 500_118_192,
                "PhysicalSize": 256_060_514_304,
                "SectorSize": 512,
            }
        ]
    }


# ---- format -----------------------------------------------------------------------------------


def test_format_switches_the_lba_format_and_unmaps_everything(
    run_main: RunMain, small_profile_file: Path, tmp_path: Path
) -> None:
    made = run_main("precondition", "--profile", small_profile_file, "--fill", "seq:50", "--save", "d.state")
    assert made.status == 0, made
    before = json.loads(ok(run_main, "id-ns", "--state", "d.state", "-o", "json").out)
    assert (before["nsze"], before["nuse"], before["flbas"]) == (147_456, 73_728, 0)

    formatted = ok(run_main, "format", "--state", "d.state", "--lbaf", "1")
    assert formatted.out == "Success formatting namespace:1\n"
    assert formatted.err == "d.state: small formatted to LBA format 1 (4096 B), saved\n"

    after = json.loads(ok(run_main, "id-ns", "--state", "d.state", "-o", "json").out)
    assert (after["nsze"], after["ncap"], after["nuse"], after["flbas"]) == (18_432, 18_432, 0, 1)
    text = ok(run_main, "id-ns", "--state", "d.state").out
    assert text.endswith("lbaf  0 : ms:0   lbads:9  rp:0x2 \nlbaf  1 : ms:0   lbads:12 rp:0x1 (in use)\n")
    assert "\nnuse    : 0\n" in text
    device = ssdtwin.Device.load(tmp_path / "d.state")
    assert device.identity()["mapped_units"] == 0 and device.info()["lba_bytes"] == 4096
    # Without --lbaf the format in use stays; the data is gone either way.
    assert ok(run_main, "format", "--state", "d.state").out == "Success formatting namespace:1\n"
    assert json.loads(ok(run_main, "id-ns", "--state", "d.state", "-o", "json").out)["flbas"] == 1


def test_format_into_a_new_state_file_from_a_profile(
    run_main: RunMain, small_profile_file: Path, tmp_path: Path
) -> None:
    ok(run_main, "format", "--profile", small_profile_file, "--state", "new.state", "--lbaf", "1")
    assert ssdtwin.Device.load(tmp_path / "new.state").identity()["lba_format"] == 1
    # The same command again formats the drive in the file: its profile matches.
    ok(run_main, "format", "--profile", small_profile_file, "--state", "new.state", "--lbaf", "0")
    assert ssdtwin.Device.load(tmp_path / "new.state").identity()["lba_format"] == 0


# ---- errors -----------------------------------------------------------------------------------


def test_format_refuses_an_lbaf_out_of_range_listing_the_formats(run_main: RunMain, small_profile_file: Path) -> None:
    outcome = run_main("nvme", "format", "--profile", small_profile_file, "--state", "x.state", "--lbaf", "2")
    assert_one_line_error(
        outcome, "Invalid value for --lbaf: 2: this namespace has LBA formats 0 (512 B, in use), 1 (4096 B)"
    )
    assert not Path("x.state").exists()
    assert_one_line_error(
        run_main("nvme", "format", "--profile", "p32a80", "--state", "x.state", "--lbaf", "-1"),
        "Invalid value for --lbaf: -1: this namespace has LBA format 0 (512 B, in use)",
    )


def test_format_needs_a_state_file_and_a_profile_to_create_one(run_main: RunMain) -> None:
    assert_one_line_error(run_main("nvme", "format", "--profile", "p32a80"), "Missing option '--state'")
    assert_one_line_error(
        run_main("nvme", "format", "--state", "none.state"),
        "none.state does not exist; give --profile to format a fresh drive into it",
    )


def test_format_refuses_another_profile_or_overrides_for_an_existing_state(
    run_main: RunMain, small_profile_file: Path
) -> None:
    ok(run_main, "format", "--profile", small_profile_file, "--state", "s.state")
    assert_one_line_error(
        run_main("nvme", "format", "--profile", "p32a80", "--state", "s.state"),
        "s.state holds a 'small' drive, not 'p32a80'; give --profile only to create FILE, or name another FILE",
    )
    assert_one_line_error(
        run_main("nvme", "format", "--state", "s.state", "--set", "nand.channels=4"),
        "--set applies to profiles; a state keeps the profile it was saved with",
    )


@pytest.mark.parametrize("sub", ["id-ctrl", "id-ns", "list"])
def test_identify_errors(run_main: RunMain, sub: str) -> None:
    assert_one_line_error(
        run_main("nvme", sub, "-o", "binary"),
        "Invalid value for '-o' / '--output-format': 'binary' is not one of 'normal', 'json'.",
    )
    assert_one_line_error(run_main("nvme", sub, "--profile", "nope"), "profile 'nope' is neither a shipped profile")
    assert_one_line_error(
        run_main("nvme", sub, "--profile", "p32a80", "--state", "s.state"), "give --profile or --state, not both"
    )
    assert_one_line_error(run_main("nvme", sub, "--state", "missing.state"), "missing.state: No such file or directory")
    assert_one_line_error(run_main("nvme", sub, "--set", "channels"), "'channels': expected SECTION.FIELD=VALUE")
    assert_one_line_error(
        run_main("nvme", sub, "--set", "identity.wctemp_kelvin=400", "--set", "identity.cctemp_kelvin=380"),
        "identity.wctemp_kelvin = 400: at most identity.cctemp_kelvin (380)",
    )


def test_bad_hmb_setting_and_unknown_subcommand(run_main: RunMain) -> None:
    assert_one_line_error(
        run_main("nvme", "id-ctrl", "--hmb", "lots"), "--hmb 'lots': allowed off, auto, or a size in MiB"
    )
    assert_one_line_error(run_main("nvme", "smart-log-add"), "No such command 'smart-log-add'")


@pytest.mark.parametrize("command", ["id-ctrl", "id-ns", "get-feature"])
def test_the_device_name_is_taken_as_nvme_cli_takes_it(run_main: RunMain, command: str) -> None:
    bare = run_main("nvme", command, "--profile", "p32a80")
    for name in ("/dev/nvme0", "/dev/nvme0n1"):
        named = run_main("nvme", command, name, "--profile", "p32a80")
        assert (named.status, named.out) == (0, bare.out)
    assert_one_line_error(
        run_main("nvme", command, "/dev/nvme1"),
        "'/dev/nvme1': the simulated drive is /dev/nvme0 (namespace /dev/nvme0n1); choose it with --profile or --state",
    )


# ---- smart-log --------------------------------------------------------------------------------


def test_smart_log_counts_what_a_run_did(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    c = run_and_save(run_main, small_profile_file, tmp_path / "ran.state", "randrw")
    text = ok(run_main, "smart-log", "/dev/nvme0", "--state", "ran.state").out
    lines = dict(ln.split("\t: ", 1) if "\t: " in ln else ln.split(": ", 1) for ln in text.splitlines()[1:])
    fields = {k.rstrip("\t"): v for k, v in lines.items()}
    assert text.splitlines()[0] == "Smart Log for NVME device:nvme0 namespace-id:ffffffff"
    units_read = -(-c["host_read_bytes"] // 512_000)
    assert fields["Data Units Read"].startswith(f"{units_read:,} (")
    assert fields["host_read_commands"] == f"{c['host_read_cmds']:,}"
    assert fields["host_write_commands"] == f"{c['host_write_cmds']:,}"
    # The saved drive was shut down and comes back powered on a second time, cooled to 25 °C.
    assert fields["temperature"] == "25°C (298 Kelvin)"
    assert fields["power_cycles"] == "2"
    j = json.loads(ok(run_main, "smart-log", "--state", "ran.state", "-o", "json").out)
    assert j["host_write_commands"] == f"{c['host_write_cmds']:,}" and j["temperature"] == 298
    human = json.loads(ok(run_main, "smart-log", "--state", "ran.state", "-o", "json", "-H").out)
    assert human["critical_warning"] == {
        "value": 0,
        "available_spare": 0,
        "temp_threshold": 0,
        "reliability_degraded": 0,
        "ro": 0,
        "vmbu_failed": 0,
        "pmr_ro": 0,
    }


def test_smart_log_names_the_device_and_namespace_as_given(run_main: RunMain) -> None:
    first = ok(run_main, "smart-log", "/dev/nvme0n1", "-n", "0x1").out.splitlines()[0]
    assert first == "Smart Log for NVME device:nvme0n1 namespace-id:1"
    assert_one_line_error(run_main("nvme", "smart-log", "-n", "0"), "0 is outside 0x1..0xffffffff")


# ---- get-feature ------------------------------------------------------------------------------


def test_get_feature_reports_the_hmb_the_host_allocated(run_main: RunMain) -> None:
    text = ok(run_main, "get-feature", "/dev/nvme0", "--profile", "p32a80", "-f", "0x0d", "-H").out
    assert text.splitlines() == [
        "get-feature:0x0d (Host Memory Buffer), Current value:0x00000001",
        "\tEnable Host Memory (EHM): Enabled",
        "\tHost Memory Descriptor List Entry Count (HMDLEC): 32",
        "\tHost Memory Descriptor List Address     (HMDLAU): 0x0",
        "\tHost Memory Descriptor List Address     (HMDLAL): 0xfffe0000",
        "\tHost Memory Buffer Size                  (HSIZE): 32768",
    ]
    off = ok(run_main, "get-feature", "--profile", "p32a80", "--hmb", "off", "-f", "13", "-H").out
    assert off.splitlines()[:2] == [
        "get-feature:0x0d (Host Memory Buffer), Current value:00000000",
        "\tEnable Host Memory (EHM): Disabled",
    ]
    dump = ok(run_main, "get-feature", "--profile", "p32a80", "-f", "0xd").out.splitlines()
    assert len(dump) == 2 + 4096 // 16
    assert dump[2] == '0000: 00 80 00 00 00 00 fe ff 00 00 00 00 20 00 00 00 "................"'


def test_get_feature_lists_every_feature_and_what_changed(run_main: RunMain) -> None:
    every = ok(run_main, "get-feature", "--profile", "p32a80").out
    heads = [ln for ln in every.splitlines() if ln.startswith("get-feature:")]
    assert [h.split(" (")[0] for h in heads] == [
        f"get-feature:{fid:#04x}" for fid in (1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 13)
    ]
    assert "get-feature:0x07 (Number of Queues), Current value:0x00070007" in heads
    assert "get-feature:0x04 (Temperature Threshold), Current value:0x00000157" in heads
    changed = ok(run_main, "get-feature", "--profile", "p32a80", "-s", "8", "-H").out
    assert [ln for ln in changed.splitlines() if ln.startswith("get-feature:")] == [
        "get-feature:0x0d (Host Memory Buffer), Changed value:0x00000001"
    ]
    default = ok(run_main, "get-feature", "--profile", "p32a80", "-s", "1", "-f", "0x0d", "-H").out
    assert default.splitlines()[1] == "\tEnable Host Memory (EHM): Disabled"
    caps = ok(run_main, "get-feature", "--profile", "p32a80", "-s", "3", "-f", "6").out
    assert (
        caps
        == "get-feature:0x06 (Volatile Write Cache), Supported capabilities value:0x00000004\n  Feature is changeable\n"
    )


SLEEPY = (
    "identity.power_states=[{max_power_mw=6000}, "
    "{max_power_mw=50, non_operational=true, entry_latency_us=2000, exit_latency_us=3000}]"
)


def test_get_feature_shows_the_apst_table_the_host_programmed(run_main: RunMain) -> None:
    # Linux 4.15's heuristic: the non-operational PS1 after 50 x (2 ms + 3 ms) = 250 ms.
    args = ("get-feature", "--profile", "generic-tlc-1tb", "--set", SLEEPY, "--host", "linux-4.15", "-f", "0x0c")
    lines = ok(run_main, *args, "-H").out.splitlines()
    assert lines[:8] == [
        "get-feature:0x0c (Autonomous Power State Transition), Current value:0x00000001",
        "\tAutonomous Power State Transition Enable (APSTE): Enabled",
        "\tAuto PST Entries\t.................",
        "\tEntry[ 0]   ",
        "\t.................",
        "\tIdle Time Prior to Transition (ITPT): 250 ms",
        "\tIdle Transition Power State   (ITPS): 1",
        "\t.................",
    ]
    assert lines[10:12] == ["\tIdle Time Prior to Transition (ITPT): 0 ms", "\tIdle Transition Power State   (ITPS): 0"]
    assert len(lines) == 3 + 32 * 5
    # FreeBSD programs no APST: the feature is there, disabled.
    off = ok(run_main, *args[:-4], "--host", "freebsd-11", "-f", "0x0c", "-H").out.splitlines()
    assert off[:2] == [
        "get-feature:0x0c (Autonomous Power State Transition), Current value:00000000",
        "\tAutonomous Power State Transition Enable (APSTE): Disabled",
    ]


def test_get_feature_shows_the_hosts_thermal_management_temperatures(run_main: RunMain) -> None:
    text = ok(
        run_main,
        "get-feature",
        "--set",
        "thermal.hctm_min_kelvin=273",
        "--set",
        "thermal.hctm_max_kelvin=358",
        "--set",
        "thermal.hctm_tmt1_kelvin=349",
        "--set",
        "thermal.hctm_tmt2_kelvin=352",
        "-f",
        "0x10",
        "-H",
    ).out
    assert text.splitlines() == [
        "get-feature:0x10 (Host Controlled Thermal Management), Current value:0x015d0160",
        "\t\tThermal Management Temperature 1 (TMT1) : 349 K (76 °C)",
        "\t\tThermal Management Temperature 2 (TMT2) : 352 K (79 °C)",
    ]


def test_get_feature_refuses_what_the_drive_does_not_implement(run_main: RunMain) -> None:
    assert_one_line_error(
        run_main("nvme", "get-feature", "-f", "0x0c"),
        "0x0c: Invalid Field in Command, this drive implements features 0x01, 0x02, 0x04",
    )
    assert_one_line_error(
        run_main("nvme", "get-feature", "-f", "0x0d"), "0x0d: Invalid Field in Command"
    )  # generic-tlc-1tb has DRAM and asks for no HMB
    assert_one_line_error(run_main("nvme", "get-feature", "-f", "0x100"), "0x100 is outside 0x0..0xff")
    assert_one_line_error(run_main("nvme", "get-feature", "-s", "4"), "'4' is not one of '0', '1', '2', '3', '8'")
