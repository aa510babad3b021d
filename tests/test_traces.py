"""``ssdtwin trace convert``: each supported format becomes a fio iolog v3 that replays
with the same I/Os; selection, time scaling and wrapping onto the namespace; malformed
lines are named."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from ssdtwin import Device, TraceError
from ssdtwin.traces import convert_trace

from .cli.test_fio import RunMain
from .helpers import assert_one_line_error

GIB = 1 << 30

#: The same four I/Os in each format: (µs from the first, op, offset, length), on stream "1".
SAMPLES = {
    "msr": (
        "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
        "128166372003061629,hm,1,Read,8192,4096,41286\n"
        "128166372003071629,hm,1,Write,0,8192,100\n"
        "128166372003081629,hm,0,Write,0,8192,100\n"
        "128166372003091629,hm,1,Read,4096,512,100\n"
    ),
    "blkparse": (
        "259,1    0        1     0.000100000   697  Q   R 16 + 8 [fio]\n"
        "259,1    0        2     0.000150000   697  G   R 16 + 8 [fio]\n"
        "259,1    0        3     0.001100000   697  Q   W 0 + 16 [fio]\n"
        "259,2    0        4     0.002100000   697  Q   W 0 + 16 [fio]\n"
        "259,1    0        5     0.003100000   697  Q   R 8 + 1 [fio]\n"
        "CPU0 (259,1):\n Reads Queued:           2,        8KiB\n"
    ),
    "spc": "1,16,4096,r,0.000100\n1,0,8192,W,0.001100\n0,0,8192,w,0.002100\n1,8,512,R,0.003100\n",
    "alibaba": "1,R,8192,4096,1000100\n1,W,0,8192,1001100\n0,W,0,8192,1002100\n1,R,4096,512,1003100\n",
    "tencent": "1538323200,16,8,0,1\n1538323200,0,16,1,1\n1538323201,0,16,1,0\n1538323201,8,1,0,1\n",
}

STREAM = {"msr": "1", "blkparse": "259,1", "spc": "1", "alibaba": "1", "tencent": "1"}


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_each_format_converts_and_replays_the_selected_stream(tmp_path: Path, fmt: str) -> None:
    src = tmp_path / f"trace.{fmt}"
    src.write_text(SAMPLES[fmt])
    out = tmp_path / "t.log"
    done = convert_trace(src, fmt, out, namespace_bytes=GIB, stream=STREAM[fmt])
    assert (done.records, done.written, done.skipped) == (4, 3, 1)
    ops = [line.split()[2:] for line in out.read_text().splitlines()[3:-1]]
    assert ops == [["read", "8192", "4096"], ["write", "0", "8192"], ["read", "4096", "512"]]
    job = Device(host="none").run({"name": "r", "read_iolog": str(out), "replay_no_stall": 1}).json["jobs"][0]
    assert (job["read"]["total_ios"], job["read"]["io_bytes"], job["write"]["io_bytes"]) == (2, 4608, 8192)


def test_times_are_relative_and_scaled(tmp_path: Path) -> None:
    src = tmp_path / "a.csv"
    src.write_text(SAMPLES["alibaba"])
    out = tmp_path / "t.log"
    convert_trace(src, "alibaba", out, namespace_bytes=GIB, time_scale=4)
    times = [int(line.split()[0]) for line in out.read_text().splitlines()[3:-1]]
    assert times == [0, 250, 500, 750]


def test_offsets_wrap_onto_the_namespace_and_gzip_is_read(tmp_path: Path) -> None:
    src = tmp_path / "a.csv.gz"
    with gzip.open(src, "wt") as f:
        f.write(f"0,R,{5 * GIB + 4096},4096,1\n0,W,{GIB - 512},4096,2\n0,R,1000,100,3\n")
    out = tmp_path / "t.log"
    done = convert_trace(src, "alibaba", out, namespace_bytes=GIB)
    ops = [line.split()[2:] for line in out.read_text().splitlines()[3:-1]]
    # 5 GiB + 4 KiB wraps to 4 KiB; a range crossing the end moves back inside (2 wrapped);
    # a partial block becomes whole ones.
    assert ops == [["read", "4096", "4096"], ["write", str(GIB - 4096), "4096"], ["read", "512", "512"]]
    assert done.wrapped == 2


@pytest.mark.parametrize(
    ("fmt", "text", "message"),
    [
        ("msr", "128166372003061629,hm,1,Erase,0,4096,1\n", "t.txt:1: I/O type 'Erase'; allowed read, write"),
        ("spc", "1,x,4096,r,0.1\n", "t.txt:1: LBA 'x' is not a number"),
        ("tencent", "1538323200,16\n", "t.txt:1: expected 5 comma-separated fields, found 2"),
        ("blkparse", "8,0 0 1 0.1 697 Q R 16 8 [x]\n", "t.txt:1: expected 'sector + blocks' after the RWBS field 'R'"),
    ],
)
def test_malformed_lines_are_named(tmp_path: Path, fmt: str, text: str, message: str) -> None:
    src = tmp_path / "t.txt"
    src.write_text(text)
    with pytest.raises(TraceError, match=re.escape(message)):
        convert_trace(src, fmt, tmp_path / "t.log", namespace_bytes=GIB)
    assert not (tmp_path / "t.log").exists()


def test_the_cli_converts_and_refuses_to_overwrite(run_main: RunMain, tmp_path: Path) -> None:
    src = tmp_path / "a.csv"
    src.write_text(SAMPLES["alibaba"])
    out = tmp_path / "t.log"
    ok = run_main("trace", "convert", src, "--format", "alibaba", "--out", out, "--disk", "1")
    assert ok.status == 0 and "3 I/Os" in ok.out
    again = run_main("trace", "convert", src, "--format", "alibaba", "--out", out)
    assert_one_line_error(again, "exists")


def test_the_cli_names_a_malformed_line_and_exits_2(run_main: RunMain, tmp_path: Path) -> None:
    src = tmp_path / "m.csv"
    src.write_text("128166372003061629,hm,1,Read,8192,4096,1\n128166372003061630,hm,1,Read,x,4096,1\n")
    bad = run_main("trace", "convert", src, "--format", "msr", "--out", tmp_path / "t.log")
    assert_one_line_error(bad, "m.csv:2: Offset 'x' is not a number")
    log = tmp_path / "bad.log"
    log.write_text("fio version 3 iolog\n0 /dev/nvme0n1 read 0 4096\n5 /dev/nvme0n1 read zero 4096\n")
    replay = run_main("fio", "--host", "none", "--name=r", f"--read_iolog={log}")
    assert_one_line_error(replay, "bad.log:3: offset 'zero' is not a number")
