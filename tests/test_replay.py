"""Trace replay (``read_iolog=``: fio iolog v2/v3 and blktrace binary) and ``write_iolog=``,
with fio's timing and ``replay_*`` options."""

from __future__ import annotations

import csv
import struct
from pathlib import Path
from typing import Any

import pytest
from ssdtwin import Device

BLK_MAGIC = 0x65617407
QUEUE, BACKMERGE, COMPLETE = 1, 2, 8
TC_READ, TC_WRITE = 1 << 16, 2 << 16


def job_of(result: Any, k: int = 0) -> dict[str, Any]:
    job: dict[str, Any] = result.json["jobs"][k]
    return job


def logged_offsets(path: Path) -> list[tuple[str, int]]:
    with path.open() as f:
        return [(row[2].strip(), int(row[4])) for row in csv.reader(f)]


def iolog(path: Path, lines: list[str], version: int = 3) -> Path:
    path.write_text(f"fio version {version} iolog\n" + "".join(f"{line}\n" for line in lines))
    return path


def test_a_written_iolog_replays_the_same_ios(tmp_path: Path) -> None:
    dev = Device(host="none")
    log = tmp_path / "w.log"
    job = {"name": "w", "rw": "randrw", "bs": "4k", "size": "16m", "iodepth": 1, "number_ios": 300}
    first = job_of(dev.run(job | {"write_iolog": str(log), "write_lat_log": "a", "log_offset": 1}, log_dir=tmp_path))
    lines = log.read_text().splitlines()
    assert lines[:3] == ["fio version 3 iolog", "0 /dev/nvme0n1 add", "0 /dev/nvme0n1 open"]
    assert lines[-1].endswith("/dev/nvme0n1 close") and len(lines) == 3 + 300 + 1
    again = job_of(
        dev.run({"name": "r", "read_iolog": str(log), "write_lat_log": "b", "log_offset": 1}, log_dir=tmp_path)
    )
    for d in ("read", "write"):
        assert again[d]["total_ios"] == first[d]["total_ios"] and again[d]["io_bytes"] == first[d]["io_bytes"]
    # At QD1 the completions come in issue order: the same offsets, in the same order.
    assert logged_offsets(tmp_path / "b_clat.1.log") == logged_offsets(tmp_path / "a_clat.1.log")


def test_timestamps_pace_the_replay_and_replay_options_scale_it(tmp_path: Path) -> None:
    # 101 reads 10 ms apart: the replay takes 1 s; at replay_time_scale=200, half that.
    trace = iolog(tmp_path / "t.log", [f"{1000 + 10_000 * k} /dev/sda read {k * 4096} 4096" for k in range(101)])
    dev = Device(host="none")
    paced = job_of(dev.run({"name": "p", "read_iolog": str(trace)}))
    assert paced["read"]["total_ios"] == 101
    assert paced["job_runtime"] == pytest.approx(1000, abs=2)
    fast = job_of(dev.run({"name": "f", "read_iolog": str(trace), "replay_time_scale": 200}))
    assert fast["job_runtime"] == pytest.approx(500, abs=2)
    unpaced = job_of(dev.run({"name": "u", "read_iolog": str(trace), "replay_no_stall": 1}))
    assert unpaced["job_runtime"] < 20


def test_version_2_waits_and_offsets_scaled_and_aligned(tmp_path: Path) -> None:
    trace = iolog(
        tmp_path / "v2.log",
        [
            "/dev/sdb add",
            "/dev/sdb open",
            "/dev/sdb write 40000 4096",
            "/dev/sdb wait 50 0",
            "/dev/sdb read 80000 4096",
        ],
        version=2,
    )
    result = Device(host="none").run(
        {
            "name": "v",
            "read_iolog": str(trace),
            "replay_scale": 2,
            "replay_align": 4096,
            "write_lat_log": "v",
            "log_offset": 1,
        },
        log_dir=tmp_path,
    )
    job = job_of(result)
    # fio 3.33 holds the rest of the log until 50 ms after the start (it reads a wait's
    # value as milliseconds since its start).
    assert job["job_runtime"] >= 50
    assert logged_offsets(tmp_path / "v_clat.1.log") == [("1", 16384), ("0", 36864)]


def blk_record(time_ns: int, sector: int, nbytes: int, action: int) -> bytes:
    return struct.pack("<IIQQIIIIIHH", BLK_MAGIC, 0, time_ns, sector, nbytes, action, 1, 8 << 20, 0, 0, 0)


def test_blktrace_queue_events_replay_with_the_depth_fio_infers(tmp_path: Path) -> None:
    data = b""
    # Three reads queued before the first completes: depth 3; a merge takes one back.
    for k in range(3):
        data += blk_record(1_000_000 + k * 1000, 8 * k, 4096, QUEUE | TC_READ | (1 << 20))
    data += blk_record(1_003_500, 8, 4096, BACKMERGE | TC_READ | (1 << 20))
    data += blk_record(1_004_000, 0, 4096, COMPLETE | TC_READ | (1 << 23))
    data += blk_record(2_000_000, 64, 8192, QUEUE | TC_WRITE | (1 << 20))
    trace = tmp_path / "t.bin"
    trace.write_bytes(data)
    job = job_of(Device(host="none").run({"name": "b", "read_iolog": str(trace)}))
    assert (job["read"]["total_ios"], job["write"]["total_ios"], job["write"]["io_bytes"]) == (3, 1, 8192)
    assert job["latency_depth"] == 2
    # iodepth= given wins over the inferred depth; replay_skip drops a kind.
    job = job_of(Device(host="none").run({"name": "b", "read_iolog": str(trace), "iodepth": 7, "replay_skip": "write"}))
    assert (job["latency_depth"], job["write"]["total_ios"]) == (7, 0)


def test_merged_blktraces_replay_every_queue_event(tmp_path: Path) -> None:
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"".join(blk_record(1000 * (k + 1), 8 * k, 4096, QUEUE | TC_READ) for k in range(4)))
    b.write_bytes(b"".join(blk_record(1500 * (k + 1), 800 + 8 * k, 4096, QUEUE | TC_WRITE) for k in range(2)))
    merged = tmp_path / "m.bin"
    job = {"name": "m", "read_iolog": f"{a}:{b}", "merge_blktrace_file": str(merged), "merge_blktrace_iters": "2:1"}
    result = job_of(Device(host="none").run(job))
    assert (result["read"]["total_ios"], result["write"]["total_ios"]) == (8, 2)
    assert merged.stat().st_size == 10 * 48


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["1 f read 0"], r"t\.log:2: expected TIMESTAMP FILE ACTION \[OFFSET LENGTH\]"),
        (["1 f jump 0 4096"], r"t\.log:2: unknown action 'jump'"),
        (
            ["1 f read 100 4096"],
            r"t\.log:2: 4096 bytes at 100 are not whole 512-byte blocks; align them with replay_align=512",
        ),
        (["1 f read 99999999999999 4096"], r"t\.log:2: 4096 bytes at 99999999999999 end beyond the namespace"),
    ],
)
def test_malformed_traces_are_refused_naming_file_and_line(tmp_path: Path, lines: list[str], message: str) -> None:
    trace = iolog(tmp_path / "t.log", lines)
    with pytest.raises(ValueError, match=message):
        Device(host="none").run({"name": "x", "read_iolog": str(trace)})


def test_replay_options_without_a_trace_change_nothing() -> None:
    job = {"name": "x", "rw": "read", "size": "1m"}
    plain = Device(host="none").run(job).json["jobs"][0]
    ignored = Device(host="none").run(job | {"replay_no_stall": 1, "replay_scale": 2}).json["jobs"][0]
    assert ignored["read"]["io_bytes"] == plain["read"]["io_bytes"] == 1 << 20
