"""Zoned namespaces end to end: fio's zonemode=zbd on the shipped zoned profile, what
``ssdtwin nvme zns`` then reports, zone management from the command line, and the one-line
errors of each."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]

PROFILE = "generic-zns-966g"
#: A zone: its size (a power of two) and its capacity (one superblock), in 4 KiB LBAs.
ZONE_LBAS, CAP_LBAS = 0x80000, 0x48000
ZONE_BYTES, CAP_BYTES = ZONE_LBAS * 4096, CAP_LBAS * 4096

#: fio's zbd-rand-write-zone-reset-gc example, on 4 zones from zone 24: 32 MiB random
#: writes at write pointers, resets once the zones hold 70 % of io_size.
GC_JOB = """[global]
rw=randwrite
zonemode=zbd
zonesize=2g
bs=32M
direct=1
ioengine=psync
size=4z
offset=24z
io_size=12g
zone_reset_threshold=0.7
zone_reset_frequency=0.125
[dev1]
"""


def ok(run_main: RunMain, *args: str | Path) -> Outcome:
    outcome = run_main(*args)
    assert outcome.status == 0, outcome
    return outcome


def test_zbd_writes_fill_zones_at_their_write_pointers_and_reset_full_ones(run_main: RunMain, tmp_path: Path) -> None:
    job, state = tmp_path / "gc.fio", tmp_path / "zns.state"
    job.write_text(GC_JOB)
    fio = ok(run_main, "fio", "--profile", PROFILE, "--save-state", state, job)
    # 12 GiB written into 4 zones of 1.125 GiB: each written over about 2.7 times, the
    # zones reset as they fill (and, past the threshold, one write in 8).
    found = re.search(r"; (\d+) zone resets", fio.out)
    assert found, fio.out
    resets = int(found.group(1))
    assert resets / 4 >= 12 / (4 * 1.125) - 1, resets
    report = json.loads(ok(run_main, "nvme", "zns", "report-zones", "/dev/nvme0n1", "--state", state, "-o", "json").out)
    zones = report["zone_list"]
    assert report["nr_zones"] == 800
    used = [z for z in zones if z["state"] != "EMPTY"]
    assert {z["slba"] // ZONE_LBAS for z in used} <= set(range(24, 28)), "only the job's zones were written"
    for z in zones:
        assert z["slba"] <= z["wp"] <= z["slba"] + CAP_LBAS
        assert (z["state"] == "FULL") == (z["wp"] == z["slba"] + CAP_LBAS)


def test_zone_management_from_the_command_line(run_main: RunMain, tmp_path: Path) -> None:
    state = tmp_path / "z.state"
    zns = ("nvme", "zns")
    out = ok(
        run_main,
        *zns,
        "zone-append",
        "/dev/nvme0n1",
        "--profile",
        PROFILE,
        "--state",
        state,
        "-s",
        "0x80000",
        "-z",
        "65536",
    )
    assert out.out == "Success appended data to LBA 80000\n"
    out = ok(run_main, *zns, "zone-append", "/dev/nvme0n1", "--state", state, "-s", "0x80000", "-z", "8192")
    assert out.out == "Success appended data to LBA 80010\n", "an append lands at the write pointer"
    text = ok(run_main, *zns, "report-zones", "/dev/nvme0n1", "--state", state, "-d", "2").out
    assert text.splitlines()[2].startswith("SLBA: 0x80000    WP: 0x80012    Cap: 0x48000    State: 0x20 ")
    ok(run_main, *zns, "finish-zone", "/dev/nvme0n1", "--state", state, "-s", "0x80000")
    full = json.loads(
        ok(run_main, *zns, "report-zones", "/dev/nvme0n1", "--state", state, "-S", "full", "-o", "json").out
    )
    assert [(z["slba"], z["wp"]) for z in full["zone_list"]] == [(ZONE_LBAS, ZONE_LBAS + CAP_LBAS)]
    closing = run_main(*zns, "close-zone", "/dev/nvme0n1", "--state", state, "-s", "0x80000")
    assert_one_line_error(closing, "Invalid Zone State Transition", "0x1bf")
    ok(run_main, *zns, "reset-zone", "/dev/nvme0n1", "--state", state, "-a")
    empty = json.loads(
        ok(run_main, *zns, "report-zones", "/dev/nvme0n1", "--state", state, "-S", "empty", "-o", "json").out
    )
    assert len(empty["zone_list"]) == 800
    id_ns = ok(run_main, *zns, "id-ns", "/dev/nvme0n1", "--profile", PROFILE).out
    assert "mar     : 0xd\nmor     : 0xd\n" in id_ns and "lbafe  0: zsze:0x80000 zdes:0 (in use)" in id_ns


def test_zoned_errors_are_one_line(run_main: RunMain, tmp_path: Path) -> None:
    job = tmp_path / "w.fio"
    job.write_text(GC_JOB)
    assert_one_line_error(run_main("fio", "--profile", "generic-tlc-1tb", job), "need a zoned drive")
    job.write_text(GC_JOB.replace("zonemode=zbd\n", "").replace("zonesize=2g\n", ""))
    assert_one_line_error(run_main("fio", "--profile", PROFILE, job), "the drive is zoned", "give zonemode=zbd")
    job.write_text(GC_JOB.replace("direct=1", "direct=0"))
    assert_one_line_error(run_main("fio", "--profile", PROFILE, job), "Using direct I/O is mandatory")
    job.write_text(GC_JOB.replace("zonesize=2g", "zonesize=256m"))
    assert_one_line_error(run_main("fio", "--profile", PROFILE, job), f"does not match disk zone size {ZONE_BYTES}")
    job.write_text(GC_JOB + "max_open_zones=20\n")
    assert_one_line_error(run_main("fio", "--profile", PROFILE, job), "--max_open_zones (20) is larger than max (14)")
    assert_one_line_error(
        run_main("precondition", "--profile", PROFILE, "--fill", "seq:100", "--save", tmp_path / "p.state"),
        "a zoned drive is filled by writing its zones",
    )
    assert_one_line_error(
        run_main("nvme", "zns", "report-zones", "/dev/nvme0n1", "--profile", "generic-tlc-1tb"), "is not zoned"
    )
    assert_one_line_error(
        run_main("profiles", "show", PROFILE, "--set", "zns.max_open=20"), "zns.max_open", "allowed 1 to 14"
    )
    # The NBD export is a plain block device, which a zoned drive cannot be.
    serve = run_main("serve", "--profile", PROFILE, "--socket", tmp_path / "nbd.sock")
    assert_one_line_error(serve, "is zoned: an NBD export is a plain block device")
