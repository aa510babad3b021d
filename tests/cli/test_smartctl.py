"""``ssdtwin smartctl``: smartctl 7.3's NVMe report of a simulated drive (each section, -x,
-j's JSON), its counters after a run, and the options it refuses (one line, exit status 2)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from ..helpers import Outcome, assert_one_line_error, run_and_save

RunMain = Callable[..., Outcome]


def report(run_main: RunMain, *args: str | Path) -> list[str]:
    outcome = run_main("smartctl", *args)
    assert outcome.status == 0, outcome
    assert outcome.err == ""
    return outcome.out.splitlines()


def line(lines: list[str], label: str) -> str:
    (found,) = [ln for ln in lines if ln.startswith(label)]
    assert found[35] == " " and found[36] != " ", found
    return found[36:]


def test_x_prints_the_whole_report(run_main: RunMain) -> None:
    lines = report(run_main, "-x", "--profile", "p32a80")
    assert re.fullmatch(r"smartctl 7\.3 2022-02-28 r5338 \[.+\] \(.+\)", lines[0])
    headings = [ln for ln in lines if ln.startswith("===") or ln.startswith("Supported ") or "(NVMe Log" in ln]
    assert headings == [
        "=== START OF INFORMATION SECTION ===",
        "Supported Power States",
        "Supported LBA Sizes (NSID 0x1)",
        "=== START OF SMART DATA SECTION ===",
        "SMART/Health Information (NVMe Log 0x02)",
        "Error Information (NVMe Log 0x01, 16 of 64 entries)",
    ]
    assert line(lines, "Model Number:") == "SPCC M.2 PCIe SSD"
    assert line(lines, "Namespace 1 Size/Capacity:") == "256,060,514,304 [256 GB]"
    assert re.fullmatch(r"\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} .+", line(lines, "Local Time is:"))
    assert lines[lines.index("Id Fmt  Data  Metadt  Rel_Perf") + 1] == " 0 +     512       0         0"


def test_a_and_x_print_the_same(run_main: RunMain) -> None:
    def without_time(lines: list[str]) -> list[str]:
        return [ln for ln in lines if not ln.startswith("Local Time is:")]

    x = without_time(report(run_main, "-x", "--profile", "p32a80"))
    assert without_time(report(run_main, "-a", "--profile", "p32a80")) == x
    assert without_time(report(run_main, "--all", "--xall", "--profile", "p32a80")) == x


def test_counters_move_after_a_run(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    fresh = report(run_main, "-x", "--profile", small_profile_file)
    for label in ("Data Units Read:", "Data Units Written:", "Host Read Commands:", "Host Write Commands:"):
        assert line(fresh, label) == "0"
    c = run_and_save(run_main, small_profile_file, tmp_path / "ran.state", "randrw")
    assert c["host_read_cmds"] > 1000 and c["host_write_cmds"] > 1000
    lines = report(run_main, "-x", "--state", "ran.state")
    units_read = -(-c["host_read_bytes"] // 512_000)
    units_written = -(-c["host_write_bytes"] // 512_000)
    assert line(lines, "Data Units Read:").startswith(f"{units_read:,} [")
    assert line(lines, "Data Units Written:").startswith(f"{units_written:,} [")
    assert line(lines, "Host Read Commands:") == f"{c['host_read_cmds']:,}"
    assert line(lines, "Host Write Commands:") == f"{c['host_write_cmds']:,}"
    assert line(lines, "Namespace 1 Utilization:") != "0"


def test_the_format_in_use_after_nvme_format(run_main: RunMain, small_profile_file: Path) -> None:
    formatted = run_main("nvme", "format", "--profile", small_profile_file, "--state", "f.state", "--lbaf", "1")
    assert formatted.status == 0, formatted
    lines = report(run_main, "-x", "--state", "f.state")
    table = lines.index("Id Fmt  Data  Metadt  Rel_Perf")
    assert lines[table + 1 : table + 3] == [" 0 -     512       0         2", " 1 +    4096       0         1"]
    assert line(lines, "Namespace 1 Formatted LBA Size:") == "4096"
    assert line(lines, "Namespace 1 Utilization:") == "0"


def test_each_section_alone_and_their_union(run_main: RunMain) -> None:
    def without_time(lines: list[str]) -> list[str]:
        return [ln for ln in lines if not ln.startswith("Local Time is:")]

    x = without_time(report(run_main, "-x", "--profile", "p32a80"))
    parts = [report(run_main, flag, "--profile", "p32a80")[3:] for flag in ("-i", "-c", "-H", "-A", "-l", "error")[:4]]
    info, caps, health, attrs = parts
    assert info[0] == "=== START OF INFORMATION SECTION ===" and info[-1] == "" and "Model Number:" in info[1]
    assert caps[0] == "=== START OF INFORMATION SECTION ===" and caps[1].startswith("Firmware Updates (0x")
    assert health == [
        "=== START OF SMART DATA SECTION ===",
        "SMART overall-health self-assessment test result: PASSED",
        "",
    ]
    assert attrs[:2] == ["=== START OF SMART DATA SECTION ===", "SMART/Health Information (NVMe Log 0x02)"]
    errors = report(run_main, "-l", "error", "--profile", "p32a80")[3:]
    assert errors == [
        "=== START OF SMART DATA SECTION ===",
        "Error Information (NVMe Log 0x01, 16 of 64 entries)",
        "No Errors Logged",
        "",
    ]
    union = report(run_main, "-i", "-c", "-H", "-A", "-l", "error", "--profile", "p32a80")
    assert without_time(union) == x
    nothing = report(run_main, "--profile", "p32a80")
    assert nothing[3:] == [
        "NVMe device successfully opened",
        "",
        "Use 'smartctl -a' (or '-x') to print SMART (and more) information",
        "",
    ]


def test_json_carries_identity_health_and_counters(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    c = run_and_save(run_main, small_profile_file, tmp_path / "ran.state", "randwrite")
    out = run_main("smartctl", "-j", "-x", "/dev/nvme0n1", "--state", "ran.state")
    assert out.status == 0 and out.err == "", out
    js = json.loads(out.out)
    assert list(js)[:4] == ["json_format_version", "smartctl", "local_time", "device"]
    assert js["smartctl"]["version"] == [7, 3] and js["smartctl"]["argv"] == ["smartctl", "-j", "-x", "/dev/nvme0n1"]
    assert js["smartctl"]["exit_status"] == 0
    assert js["device"] == {"name": "/dev/nvme0n1", "info_name": "/dev/nvme0n1", "type": "nvme", "protocol": "NVMe"}
    assert js["smart_status"] == {"passed": True, "nvme": {"value": 0}}
    log = js["nvme_smart_health_information_log"]
    assert log["host_writes"] == c["host_write_cmds"]
    assert log["data_units_written"] == -(-c["host_write_bytes"] // 512_000)
    ns = js["nvme_namespaces"][0]
    assert ns["utilization"]["bytes"] == ns["utilization"]["blocks"] * js["logical_block_size"] > 0
    assert js["user_capacity"] == ns["capacity"]
    only_health = json.loads(run_main("smartctl", "-j", "-H").out)
    assert "nvme_smart_health_information_log" not in only_health and "model_name" not in only_health
    assert only_health["smart_status"]["passed"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-x", "-q", "silent"],
            "'-q' is not emulated: ssdtwin smartctl takes -i, -c, -H, -A, -l error, -a, -x and -j",
        ),
        (["-d", "nvme", "-x"], "'-d' is not emulated"),
        (["-l", "selftest"], "'selftest': the log emulated is 'error'"),
    ],
)
def test_other_smartctl_options_are_refused_by_name(run_main: RunMain, args: list[str], message: str) -> None:
    assert_one_line_error(run_main("smartctl", *args), message)


def test_the_device_name_is_taken_as_smartctl_takes_it(run_main: RunMain) -> None:
    def without_time(lines: list[str]) -> list[str]:
        return [line for line in lines if not line.startswith("Local Time is:")]

    bare = without_time(report(run_main, "-x", "--profile", "p32a80"))
    for name in ("/dev/nvme0", "/dev/nvme0n1"):
        assert without_time(report(run_main, "-x", name, "--profile", "p32a80")) == bare
    assert_one_line_error(
        run_main("smartctl", "-x", "/dev/sda"),
        "'/dev/sda': the simulated drive is /dev/nvme0 (namespace /dev/nvme0n1); choose it with --profile or --state",
    )


def test_device_options_are_checked(run_main: RunMain) -> None:
    assert_one_line_error(
        run_main("smartctl", "-x", "--profile", "nope"), "profile 'nope' is neither a shipped profile"
    )
    assert_one_line_error(run_main("smartctl", "-x", "--state", "gone.state"), "gone.state: No such file or directory")
    assert_one_line_error(
        run_main("smartctl", "-x", "--profile", "p32a80", "--state", "s.state"), "give --profile or --state, not both"
    )
