"""``ssdtwin smartctl -x``: smartctl 7.3's NVMe report of a simulated drive, its counters
after a run, and the options it refuses (one line, exit status 2)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import ssdtwin

from ..helpers import Outcome, assert_one_line_error

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
    job = ["--name=w", "--rw=randrw", "--bs=4k", "--size=32m", "--runtime=20ms", "--ioengine=libaio", "--iodepth=8"]
    ran = run_main("fio", "--profile", small_profile_file, "--save-state", "ran.state", "--output-format=json", *job)
    assert ran.status == 0, ran
    c = ssdtwin.Device.load(tmp_path / "ran.state").counters()
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


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["-x", "-j"], "-j"),
        (["-H"], "-H"),
        (["-x", "--json"], "--json"),
        (["-a", "-l", "error"], "-l"),
        (["-i", "-x"], "-i"),
    ],
)
def test_other_smartctl_options_are_refused_by_name(run_main: RunMain, args: list[str], refused: str) -> None:
    assert_one_line_error(
        run_main("smartctl", *args),
        f"'{refused}' is not emulated: ssdtwin smartctl takes -x or -a, and the drive comes from --profile or --state",
    )


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


def test_x_or_a_is_required_and_device_options_are_checked(run_main: RunMain) -> None:
    assert_one_line_error(run_main("smartctl"), "give -x (or -a): ssdtwin emulates smartctl's full report only")
    assert_one_line_error(
        run_main("smartctl", "-x", "--profile", "nope"), "profile 'nope' is neither a shipped profile"
    )
    assert_one_line_error(run_main("smartctl", "-x", "--state", "gone.state"), "gone.state: No such file or directory")
    assert_one_line_error(
        run_main("smartctl", "-x", "--profile", "p32a80", "--state", "s.state"), "give --profile or --state, not both"
    )
