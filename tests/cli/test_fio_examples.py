"""The job files fio 3.33 ships (Debian's fio-examples package): each one that addresses a
local file or block device runs; every other one is refused in one line that names the
option or engine and says why. Runtimes, loops and file sizes are cut so the runs are short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..helpers import Outcome, assert_one_line_error
from .test_fio import RunMain

EXAMPLES = Path("/usr/share/doc/fio/examples")

#: Examples on local files or devices, which must run.
MUST_RUN = {
    "1mbs_clients.fio",
    "aio-read.fio",
    "backwards-read.fio",
    "basic-verify.fio",
    "butterfly.fio",
    "cmdprio-bssplit.fio",
    "cmdprio-percentage.fio",
    "cross-stripe-verify.fio",
    "dedupe-global.fio",
    "enospc-pressure.fio",
    "exitwhat.fio",
    "fio-rand-RW.fio",
    "fixed-rate-submission.fio",
    "flow.fio",
    "fio-rand-read.fio",
    "fio-rand-write.fio",
    "fio-seq-RW.fio",
    "fio-seq-read.fio",
    "fio-seq-write.fio",
    "fsx.fio",
    "iometer-file-access-server.fio",
    "jesd219.fio",
    "latency-profile.fio",
    "null.fio",
    "numa.fio",
    "poisson-rate-submission.fio",
    "rand-zones.fio",
    "ssd-steadystate.fio",
    "ssd-test.fio",
    "steadystate.fio",
    "surface-scan.fio",
    "tiobench-example.fio",
    "uring-cmd-ng.fio",
    "uring-cmd-zoned.fio",
    "waitfor.fio",
    "zbd-rand-write.fio",
    "zbd-seq-read.fio",
    "zipf.fio",
}

#: Global options an example needs because it expects a file that already exists.
GLOBALS = {"butterfly.fio": "size=64m\n"}
#: Host changes an example needs (the NUMA nodes it names).
HOST_SETS = {"numa.fio": ["--host-set", "cpu.numa_nodes=2"]}
#: The zoned examples' drive: the shipped zoned profile with their 256 MiB zones (192 MiB
#: of capacity each) and zbd-rand-write's 32 open zones.
ZONED = [
    "--profile",
    "generic-zns-966g",
    "--set",
    "nand.pages_per_block=192",
    "--set",
    "identity.capacity_bytes=161061273600",
    "--set",
    "zns.max_open=32",
    "--set",
    "zns.max_active=32",
]
DRIVES = {name: ZONED for name in ("zbd-rand-write.fio", "zbd-seq-read.fio", "uring-cmd-zoned.fio")}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not EXAMPLES.is_dir(), reason="fio's example job files are not installed (apt-get install fio-examples)"
    ),
]


def shortened(text: str, extra_globals: str = "") -> str:
    """The job file with every run cut to milliseconds of simulated time."""
    text = re.sub(r"^(\s*(?:runtime|timeout)\s*=\s*)\S+", r"\g<1>30ms", text, flags=re.M)
    text = re.sub(r"^(\s*loops\s*=\s*)\d+", r"\g<1>2", text, flags=re.M)
    text = re.sub(r"^(\s*(?:ss_dur|ss_ramp)\s*=\s*)\S+", r"\g<1>10ms", text, flags=re.M)
    text = re.sub(r"^(\s*(?:size|filesize|io_size)\s*=\s*)\d+[gGtT]\S*", r"\g<1>256m", text, flags=re.M)
    # Clones spread over a drive larger than the one simulated move closer together.
    text = re.sub(r"^(\s*offset_increment\s*=\s*)\d+[gGtT]\S*", r"\g<1>256m", text, flags=re.M)
    text = re.sub(r"^(\s*(?:ramp_time|startdelay)\s*=\s*)\S+", r"\g<1>0", text, flags=re.M)
    # Every job gets a runtime (a section's own, cut above, still wins).
    return "[global]\nruntime=30ms\n" + extra_globals + text


def run_example(name: str, run_main: RunMain, tmp_path: Path) -> Outcome:
    job = tmp_path / name
    job.write_text(shortened((EXAMPLES / name).read_text(), GLOBALS.get(name, "")))
    host = HOST_SETS.get(name, []) + DRIVES.get(name, [])
    return run_main("fio", *host, "--output-format=json", "--output", tmp_path / "out.json", job)


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.fio")) if EXAMPLES.is_dir() else [])
def test_example_runs_or_is_refused_with_a_reason(name: str, run_main: RunMain, tmp_path: Path) -> None:
    outcome = run_example(name, run_main, tmp_path)
    if name in MUST_RUN:
        assert outcome.status == 0, outcome
        assert (tmp_path / "out.json").stat().st_size > 0
        return
    assert_one_line_error(outcome)
    message = outcome.err
    # Unknown options and engines are named with a reason after them; other refusals
    # (values) say what ssdtwin does not model or what it needs.
    if "is not supported by ssdtwin" in message:
        assert re.match(r"[;:] \S", message.split("is not supported by ssdtwin", 1)[1]), message
    else:
        assert re.search(r"not model|not supported|needs|cannot|does not|no I/O|refused|allowed", message), message
