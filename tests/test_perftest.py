"""ssdtwin.perftest: nvmecontrol perftest's I/O pattern, arithmetic and output line."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import ssdtwin
from ssdtwin.perftest import PerftestResult, perftest, perftest_job

KIB128 = 128 << 10
# nvmecontrol's printf: "Threads: %2d Size: %6d %5s Time: %3d IO/s: %7ju MB/s: %4ju\n".
LINE = re.compile(
    r"Threads: [ \d]{2}\d* Size: [ \d]{6}\d* [ A-Z]{5} Time: [ \d]{3}\d* IO/s: [ \d]{7}\d* MB/s: [ \d]{4}\d*\n"
)


def test_the_line_follows_nvmecontrols_printf() -> None:
    r = PerftestResult(32, "read", 512, 30, [412345 * 30 // 32] * 32, pd.DataFrame())
    text = r.report()
    assert LINE.fullmatch(text)
    assert text == f"Threads: 32 Size:    512  READ Time:  30 IO/s: {r.iops:7d} MB/s: {r.iops * 512 >> 20:4d}\n"
    # Wider numbers push the columns on, as printf does.
    wide = PerftestResult(128, "write", 1048576, 600, [10**9], pd.DataFrame()).report()
    assert wide == "Threads: 128 Size: 1048576 WRITE Time: 600 IO/s: 1666666 MB/s: 1666666\n"


def test_per_thread_lines_follow_the_summary() -> None:
    text = PerftestResult(3, "write", 4096, 2, [10, 21, 7], pd.DataFrame()).report(per_thread=True)
    assert text.splitlines() == [
        "Threads:  3 Size:   4096 WRITE Time:   2 IO/s:      19 MB/s:    0",
        "\t  0:        5 IO/s",
        "\t  1:       10 IO/s",
        "\t  2:        3 IO/s",
    ]


def test_intr_mode_repeats_one_lba_per_thread_and_wait_mode_moves_on() -> None:
    intr = perftest_job(4, "Write", 8192, 3, "intr", 512, 1 << 30)
    assert (intr["rw"], intr["bs"], intr["iodepth"], intr["numjobs"]) == ("write", 8192, 1, 4)
    # Thread idx starts at LBA idx * 2048; in intr mode its region is one I/O long.
    assert intr["offset_increment"] == 2048 * 512 and intr["size"] == 8192
    wait = perftest_job(4, "read", 8192, 3, "bio", 4096, 1 << 30)
    assert wait["offset_increment"] == 2048 * 4096
    # In wait mode each thread runs sequentially to the end of the namespace.
    assert wait["size"] == (1 << 30) - 3 * 2048 * 4096


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, "read", 4096, 1, "intr"), "0 threads; allowed 1 to 128"),
        ((129, "read", 4096, 1, "intr"), "129 threads; allowed 1 to 128"),
        ((1, "trim", 4096, 1, "intr"), "operation 'trim'; allowed read or write"),
        ((1, "read", 4000, 1, "intr"), "size 4000 must be a positive multiple of the 512-byte sector"),
        ((1, "read", 4096, 0, "intr"), "time 0 s must be at least 1"),
        ((1, "read", 4096, 1, "poll"), "mode 'poll'; allowed intr, io, wait, bio"),
        ((128, "read", 4096, 1, "intr"), "thread 127 starts at byte 133,169,152, beyond the 1,048,576-byte namespace"),
    ],
)
def test_bad_arguments_are_refused(args: tuple[int, str, int, int, str], message: str) -> None:
    threads, op, size, seconds, mode = args
    with pytest.raises(ssdtwin.DeviceError, match=re.escape(message)):
        perftest_job(threads, op, size, seconds, mode, 512, 1 << 20)


def test_intr_writes_keep_rewriting_the_same_units() -> None:
    dev = ssdtwin.Device("wd-black-256", host="freebsd-11")
    r = perftest(dev, threads=2, operation="write", size=KIB128, seconds=1)
    c = dev.counters()
    # Every completion wrote its bytes, yet only two 128 KiB extents hold data.
    assert c["host_write_bytes"] >= sum(r.thread_ios) * KIB128
    assert c["slc_cached_bytes"] == 2 * KIB128
    assert r.iops == sum(r.thread_ios)
    assert r.mib_per_s == r.iops * KIB128 >> 20


def test_wait_writes_fill_the_cache_sequentially_and_rates_add_up() -> None:
    dev = ssdtwin.Device("wd-black-256", host="freebsd-11")
    r = perftest(dev, threads=1, operation="write", size=KIB128, seconds=2, mode="wait")
    c = dev.counters()
    written = sum(r.thread_ios) * KIB128
    # Within the SLC cache, every byte written is still there, in SLC.
    assert c["slc_cached_bytes"] == pytest.approx(written, abs=2 * KIB128)
    assert dev.slc_resident_fraction(0, written) == 1.0
    assert list(r.per_second.t_s) == [1, 2]
    # The per-second rates sum to what the summary line reports.
    assert r.per_second.mib_per_s.sum() / 2 == pytest.approx(r.iops * KIB128 / 2**20, rel=0.01)
    assert r.per_second.total_gb.iloc[-1] == pytest.approx(written / 1e9, rel=0.001)


def test_reads_of_a_formatted_drive_never_touch_nand() -> None:
    dev = ssdtwin.Device("wd-black-256", host="freebsd-11")
    dev.format()
    r = perftest(dev, threads=1, operation="read", size=KIB128, seconds=1, mode="wait")
    assert dev.counters()["nand_host_read_bytes"] == 0
    # One thread, one I/O at a time: the rate is the inverse of a read's service time,
    # steady from second to second.
    assert r.per_second.mib_per_s.iloc[0] == pytest.approx(r.iops * KIB128 / 2**20, rel=0.01)
