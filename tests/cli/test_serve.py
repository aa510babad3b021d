"""``ssdtwin serve``: the twin as an NBD export. A protocol-level client written here checks
the handshake, data and error replies byte by byte; the real clients (nbdinfo, qemu-io,
nbdcopy, fio's nbd engine) check interoperability and pacing where they are installed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

IHAVEOPT = 0x49484156454F5054
REQUEST_MAGIC = 0x25609513
REPLY_MAGIC = 0x67446698
OPT_GO, OPT_LIST, OPT_ABORT, OPT_STRUCTURED_REPLY = 7, 3, 2, 8
OPT_LIST_META_CONTEXT, OPT_SET_META_CONTEXT, OPT_EXTENDED_HEADERS = 9, 10, 11
READ, WRITE, DISC, FLUSH, TRIM, WRITE_ZEROES, BLOCK_STATUS = 0, 1, 2, 3, 4, 6, 7
EINVAL = 22
STRUCTURED_MAGIC = 0x668E33EF
CMD_FLAG_REQ_ONE = 1 << 3
HOLE_ZERO = 3  # NBD_STATE_HOLE | NBD_STATE_ZERO
MiB = 1 << 20


@dataclass
class Served:
    process: subprocess.Popen[str]
    uri: str
    socket: Path
    tmp: Path
    clients: list[Client] = field(default_factory=list)

    def connect(self) -> Client:
        client = Client(self.socket)
        self.clients.append(client)
        return client

    def stop(self, sig: int = signal.SIGINT) -> tuple[int, str]:
        for c in self.clients:
            c.sock.close()
        self.process.send_signal(sig)
        _, err = self.process.communicate(timeout=20)
        return self.process.returncode, err


def start(tmp: Path, *args: str) -> Served:
    """A server on a socket in ``tmp``, at time scale 1 unless ``args`` give one (the
    default, auto, measures itself first: tests/cli/test_serve_live.py)."""
    sock = tmp / "twin.sock"
    if "--time-scale" not in args:
        args = ("--time-scale", "1", *args)
    process = subprocess.Popen(
        [sys.executable, "-m", "ssdtwin", "serve", "--socket", str(sock), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    uri = process.stdout.readline().strip()
    assert uri.startswith("nbd+unix:"), (uri, process.stderr.read() if process.stderr else "")
    return Served(process, uri, sock, tmp)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    s = start(tmp_path, "--set", "identity.capacity_bytes=1073741824", "--stats", str(tmp_path / "stats.json"))
    yield s
    if s.process.poll() is None:
        s.stop()


class Client:
    """The client side of the protocol, as the spec words it."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(str(path))
        self.sock.settimeout(20)
        magic, opt, flags = struct.unpack(">QQH", self.recv(18))
        assert (magic, opt) == (0x4E42444D41474943, IHAVEOPT) and flags & 1
        self.sock.sendall(struct.pack(">I", 3))

    def recv(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def option(self, code: int, data: bytes = b"") -> list[tuple[int, bytes]]:
        """Sends an option; returns the replies up to the final one."""
        self.sock.sendall(struct.pack(">QII", IHAVEOPT, code, len(data)) + data)
        replies = []
        while True:
            _, opt, kind, length = struct.unpack(">QIII", self.recv(20))
            assert opt == code
            replies.append((kind, self.recv(length)))
            if kind not in (2, 3, 4):  # SERVER, INFO and META_CONTEXT come before the final reply
                return replies

    def go(self) -> int:
        replies = self.option(OPT_GO, struct.pack(">IH", 0, 0))
        assert replies[-1][0] == 1
        _, size, _ = struct.unpack(">HQH", replies[0][1])
        return int(size)

    def chunks(
        self, kind: int, offset: int, length: int, flags: int = 0, cookie: int = 1
    ) -> list[tuple[int, int, bytes]]:
        """Sends a request on a connection with structured replies; returns its chunks
        (flags, type, payload) up to the one marked done."""
        self.sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, flags, kind, cookie, offset, length))
        chunks = []
        while True:
            magic, chunk_flags, chunk_type, got, size = struct.unpack(">IHHQI", self.recv(20))
            assert (magic, got) == (STRUCTURED_MAGIC, cookie)
            chunks.append((chunk_flags, chunk_type, self.recv(size)))
            if chunk_flags & 1:
                return chunks

    def request(self, kind: int, offset: int, length: int, data: bytes = b"", cookie: int = 1) -> tuple[int, bytes]:
        self.sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, 0, kind, cookie, offset, length) + data)
        magic, error, got = struct.unpack(">IIQ", self.recv(16))
        assert magic == REPLY_MAGIC and got == cookie
        payload = self.recv(length) if kind == READ and error == 0 else b""
        return error, payload


def test_the_handshake_lists_the_export_and_refuses_what_it_does_not_offer(served: Served) -> None:
    c = served.connect()
    assert c.option(OPT_EXTENDED_HEADERS)[0][0] == 2**31 + 1  # ERR_UNSUP, and parsing goes on
    assert c.option(OPT_LIST) == [(2, struct.pack(">I", 0)), (1, b"")]
    unknown = c.option(OPT_GO, struct.pack(">I", 3) + b"xyz" + struct.pack(">H", 0))
    assert unknown[0][0] == 2**31 + 6  # ERR_UNKNOWN
    assert c.go() == 1 << 30


def test_data_written_reads_back_and_trimmed_or_zeroed_reads_as_zeros(served: Served) -> None:
    c = served.connect()
    c.go()
    block = bytes(range(256)) * 32
    assert c.request(WRITE, 8192, len(block), block) == (0, b"")
    assert c.request(READ, 8192, len(block)) == (0, block)
    assert c.request(READ, 0, 4096) == (0, bytes(4096))
    assert c.request(TRIM, 8192, 4096)[0] == 0
    assert c.request(WRITE_ZEROES, 12288, 512)[0] == 0
    _, back = c.request(READ, 8192, len(block))
    assert back == bytes(4096) + bytes(512) + block[4608:]
    assert c.request(FLUSH, 0, 0)[0] == 0


def meta_query(*queries: str) -> bytes:
    """``NBD_OPT_*_META_CONTEXT`` data for the default export."""
    data = struct.pack(">II", 0, len(queries))
    for q in queries:
        data += struct.pack(">I", len(q)) + q.encode()
    return data


def extents(payload: bytes) -> tuple[int, list[tuple[int, int]]]:
    """A ``BLOCK_STATUS`` chunk's context id and its (length, flags) descriptors."""
    (context,) = struct.unpack(">I", payload[:4])
    return context, [struct.unpack(">II", payload[k : k + 8]) for k in range(4, len(payload), 8)]


def test_block_status_answers_data_and_holes_over_structured_replies(served: Served) -> None:
    c = served.connect()
    assert c.option(OPT_STRUCTURED_REPLY) == [(1, b"")]
    # "base:" lists the namespace (ids reserved, zero); SET's id is the one replies carry.
    assert c.option(OPT_LIST_META_CONTEXT, meta_query("base:")) == [(4, b"\0\0\0\0base:allocation"), (1, b"")]
    assert c.option(OPT_SET_META_CONTEXT, meta_query("base:allocation")) == [
        (4, b"\0\0\0\1base:allocation"),
        (1, b""),
    ]
    c.go()
    # Writes and trims keep simple replies (no data); the trim makes a hole again.
    assert c.request(WRITE, MiB, 65536, b"\1" * 65536) == (0, b"")
    assert c.request(WRITE, 2 * MiB, 8192, b"\2" * 8192) == (0, b"")
    assert c.request(TRIM, 2 * MiB, 4096)[0] == 0
    [(flags, kind, payload)] = c.chunks(BLOCK_STATUS, 0, 4 * MiB)
    assert (flags, kind) == (1, 5)
    assert extents(payload) == (
        1,
        [(MiB, HOLE_ZERO), (65536, 0), (MiB - 65536 + 4096, HOLE_ZERO), (4096, 0), (2 * MiB - 8192, HOLE_ZERO)],
    )
    # REQ_ONE: one extent, no longer than asked for.
    assert extents(c.chunks(BLOCK_STATUS, 0, 4 * MiB, CMD_FLAG_REQ_ONE)[0][2]) == (1, [(MiB, HOLE_ZERO)])
    assert extents(c.chunks(BLOCK_STATUS, MiB + 4096, 4096, CMD_FLAG_REQ_ONE)[0][2]) == (1, [(4096, 0)])
    # A READ is one OFFSET_DATA chunk, marked done; errors are ERROR chunks.
    assert c.chunks(READ, MiB + 60 * 1024, 8192) == [
        (1, 1, struct.pack(">Q", MiB + 60 * 1024) + b"\1" * 4096 + bytes(4096))
    ]
    error = (1, 2**15 + 1, struct.pack(">IH", EINVAL, 0))
    assert c.chunks(READ, 1 << 30, 4096) == [error]
    assert c.chunks(BLOCK_STATUS, (1 << 30) - 4096, 8192) == [error]
    # Without SET_META_CONTEXT, BLOCK_STATUS is refused (with a simple reply).
    plain = served.connect()
    plain.go()
    assert plain.request(BLOCK_STATUS, 0, 4096) == (EINVAL, b"")
    status, err = served.stop()
    assert status == 0, err
    stats = json.loads((served.tmp / "stats.json").read_text())
    assert (stats["block_status"], stats["reads"], stats["errors"]) == (3, 1, 3)


def test_set_meta_context_needs_structured_replies(served: Served) -> None:
    c = served.connect()
    assert c.option(OPT_SET_META_CONTEXT, meta_query("base:allocation"))[0][0] == 2**31 + 3  # ERR_INVALID
    assert c.option(OPT_STRUCTURED_REPLY, b"x")[0][0] == 2**31 + 3
    assert c.option(OPT_LIST_META_CONTEXT, meta_query("x-none:thing")) == [(1, b"")]
    c.go()
    assert c.request(BLOCK_STATUS, 0, 4096) == (EINVAL, b"")
    assert c.request(READ, 0, 512) == (0, bytes(512))  # still simple replies


def test_bad_requests_get_einval_and_the_connection_goes_on(served: Served) -> None:
    c = served.connect()
    size = c.go()
    assert c.request(READ, size, 4096)[0] == EINVAL  # beyond the end
    assert c.request(READ, 100, 4096)[0] == EINVAL  # not on a 512-byte boundary
    assert c.request(WRITE, 0, 100, b"x" * 100)[0] == EINVAL
    assert c.request(9, 0, 0)[0] == EINVAL  # unknown command
    assert c.request(READ, 0, 512)[0] == 0


def test_disconnect_and_a_broken_request_close_only_that_connection(served: Served) -> None:
    a, b = served.connect(), served.connect()
    a.go()
    b.go()
    a.sock.sendall(struct.pack(">IHHQQI", 0xDEADBEEF, 0, READ, 1, 0, 512))
    with pytest.raises((EOFError, ConnectionResetError)):
        a.recv(1)
    b.sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, 0, DISC, 2, 0, 0))
    with pytest.raises((EOFError, ConnectionResetError)):
        b.recv(1)
    c = served.connect()
    c.go()
    assert c.request(READ, 0, 512)[0] == 0


def test_the_server_stops_on_sigterm_with_stats_and_state(tmp_path: Path) -> None:
    state = tmp_path / "after.state"
    s = start(
        tmp_path, "--stats", str(tmp_path / "st.json"), "--save-state", str(state), "--record", str(tmp_path / "r.log")
    )
    c = s.connect()
    c.go()
    for k in range(10):
        c.request(WRITE, k * 4096, 4096, b"\1" * 4096, cookie=k)
    c.request(READ, 0, 8192, cookie=99)
    status, err = s.stop(signal.SIGTERM)
    assert status == 0, err
    assert "served 11 requests on 1 connections" in err
    stats = json.loads((tmp_path / "st.json").read_text())
    assert (stats["writes"], stats["reads"], stats["bytes_written"]) == (10, 1, 40960)
    assert stats["replies"] == 11 and stats["lateness"]["max_ns"] > 0
    assert state.stat().st_size > 0 and not s.socket.exists()
    lines = (tmp_path / "r.log").read_text().splitlines()
    assert lines[:3] == ["fio version 3 iolog", "0 /dev/nvme0n1 add", "0 /dev/nvme0n1 open"]
    ops = [line.split()[2:] for line in lines[3:-1]]
    assert ops == [["write", str(k * 4096), "4096"] for k in range(10)] + [["read", "0", "8192"]]
    times = [int(line.split()[0]) for line in lines[3:]]
    assert times == sorted(times) and lines[-1].endswith("/dev/nvme0n1 close")
    # The recording replays with the same I/O.
    from ssdtwin import Device

    replayed = Device(host="none").run({"name": "r", "read_iolog": str(tmp_path / "r.log")}).json["jobs"][0]
    assert (replayed["write"]["total_ios"], replayed["write"]["io_bytes"]) == (10, 40960)
    assert (replayed["read"]["total_ios"], replayed["read"]["io_bytes"]) == (1, 8192)


def test_a_sigint_as_soon_as_the_uri_is_out_stops_the_server(tmp_path: Path) -> None:
    # A client told the URI may stop the server at once (a test fixture's teardown did):
    # the signal comes before the server's loop runs, and it was ignored, the server hung.
    sock = str(tmp_path / "twin.sock")
    script = (
        "import os, signal, ssdtwin\n"
        "dev = ssdtwin.Device(host='none')\n"
        f"stats = dev.serve(socket={sock!r}, ready=lambda uri: os.kill(os.getpid(), signal.SIGINT))\n"
        "print(stats['requests'])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout) == (0, "0\n"), out.stderr


def test_the_prober_times_the_round_trip_on_the_data_path_without_the_drive(tmp_path: Path) -> None:
    """The round trip the prober takes off fio's latencies: requests the server dispatches
    as it does fio's, which reach no command of the drive."""
    from ssdtwin.probe.nbd import round_trip_s

    s = start(tmp_path, "--set", "identity.capacity_bytes=1073741824", "--stats", str(tmp_path / "st.json"))
    seconds = round_trip_s(s.uri, exchanges=32)
    status, err = s.stop()
    assert status == 0, err
    stats = json.loads((tmp_path / "st.json").read_text())
    # 32 reads of zero bytes, each answered; none is a command of the drive.
    assert (stats["requests"], stats["replies"], stats["connections"]) == (32, 0, 1)
    assert stats["reads"] == stats["writes"] == stats["errors"] == 0
    # A socket round trip between two processes: microseconds, not the drive's tens.
    assert 0 < seconds < 0.005


def test_an_existing_socket_file_is_not_replaced_without_force(tmp_path: Path) -> None:
    (tmp_path / "twin.sock").write_text("mine")
    out = subprocess.run(
        [sys.executable, "-m", "ssdtwin", "serve", "--socket", str(tmp_path / "twin.sock")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr.strip().endswith("the file exists; remove it or give --force"), out.stderr
    assert (tmp_path / "twin.sock").read_text() == "mine"


def test_a_bare_port_listens_on_loopback_only() -> None:
    from ssdtwin.cli.serve import listen_address

    assert listen_address("10809") == "127.0.0.1:10809"


# ---- real clients ----


def need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (apt-get install libnbd-bin qemu-utils fio)")


@pytest.mark.slow
def test_nbdinfo_sees_the_export_and_its_block_sizes(served: Served) -> None:
    need("nbdinfo")
    info = json.loads(
        subprocess.run(["nbdinfo", "--json", served.uri], capture_output=True, text=True, check=True).stdout
    )
    export = info["exports"][0]
    assert export["export-size"] == 1 << 30
    assert (export["block_size_minimum"], export["block_size_maximum"]) == (512, 32 << 20)
    assert export["can_trim"] and export["can_zero"] and export["can_flush"] and export["can_multi_conn"]


@pytest.mark.slow
def test_qemu_io_writes_and_verifies_patterns(served: Served) -> None:
    need("qemu-io")
    commands = [
        "write -P 0xa5 0 1M",
        "read -P 0xa5 0 1M",
        "write -z 4096 8k",
        "read -P 0 4096 8k",
        "discard 0 4k",
        "read -P 0 0 4k",
        "flush",
    ]
    args = ["qemu-io", "-f", "raw", served.uri]
    for c in commands:
        args += ["-c", c]
    out = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "Pattern verification failed" not in out.stdout + out.stderr, out


@pytest.mark.slow
def test_nbdcopy_in_and_out_gives_the_same_bytes(served: Served, tmp_path: Path) -> None:
    need("nbdcopy")
    source = tmp_path / "in.bin"
    source.write_bytes(os.urandom(8 << 20))
    subprocess.run(["nbdcopy", str(source), served.uri], check=True, timeout=120)
    back = tmp_path / "out.bin"
    subprocess.run(["nbdcopy", "--no-extents", served.uri, str(back)], check=True, timeout=120)
    assert back.read_bytes()[: 8 << 20] == source.read_bytes()
    assert back.read_bytes()[8 << 20 : 9 << 20] == bytes(1 << 20)


def nbd_map(uri: str) -> list[tuple[int, int, str]]:
    """``nbdinfo --map``: (offset, length, description) of each extent of base:allocation."""
    out = subprocess.run(["nbdinfo", "--map", "--json", uri], capture_output=True, text=True, check=True, timeout=60)
    return [(e["offset"], e["length"], e["description"]) for e in json.loads(out.stdout)]


def qemu_io(uri: str, *commands: str) -> None:
    args = ["qemu-io", "-f", "raw", uri]
    for c in commands:
        args += ["-c", c]
    out = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out


# Three ranges written, then part of one trimmed: what nbdinfo --map must show.
WRITES = ("write -P 1 1M 64k", "write -P 2 8M 1M", "write -P 3 64M 128k", "discard 8M 512k")
MAP = [
    (0, MiB, "hole,zero"),
    (MiB, 64 << 10, "data"),
    (MiB + (64 << 10), 7 * MiB + (512 << 10) - (64 << 10), "hole,zero"),
    (8 * MiB + (512 << 10), 512 << 10, "data"),
    (9 * MiB, 55 * MiB, "hole,zero"),
    (64 * MiB, 128 << 10, "data"),
    (64 * MiB + (128 << 10), (1 << 30) - 64 * MiB - (128 << 10), "hole,zero"),
]


@pytest.mark.slow
def test_nbdinfo_maps_written_and_unwritten_ranges(served: Served) -> None:
    need("nbdinfo")
    need("qemu-io")
    assert nbd_map(served.uri) == [(0, 1 << 30, "hole,zero")]
    qemu_io(served.uri, *WRITES)
    assert nbd_map(served.uri) == MAP
    status, err = served.stop()
    assert status == 0, err
    stats = json.loads((served.tmp / "stats.json").read_text())
    # The map is the server's own metadata: no READ reached the drive.
    assert stats["block_status"] >= 2 and stats["reads"] == 0


@pytest.mark.slow
def test_nbdinfo_maps_a_backing_file_by_its_holes_across_restarts(tmp_path: Path) -> None:
    need("nbdinfo")
    need("qemu-io")
    data = tmp_path / "disk.img"
    s = start(tmp_path, "--set", "identity.capacity_bytes=1073741824", "--data", str(data))
    try:
        qemu_io(s.uri, *WRITES)
        assert nbd_map(s.uri) == MAP
    finally:
        assert s.stop()[0] == 0
    # The trim punched a hole: the file holds only what is data.
    assert data.stat().st_size == 1 << 30
    assert data.stat().st_blocks * 512 == (64 + 512 + 128) << 10
    # The holes are the file's own: a new server over the same file maps it the same.
    s = start(tmp_path, "--set", "identity.capacity_bytes=1073741824", "--data", str(data))
    try:
        assert nbd_map(s.uri) == MAP
    finally:
        assert s.stop()[0] == 0


def hash_file(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(4 * MiB):
            h.update(block)
    return h.hexdigest()


@pytest.mark.slow
def test_nbdcopy_with_four_connections_copies_in_and_out_and_skips_holes(served: Served, tmp_path: Path) -> None:
    need("nbdcopy")
    source = tmp_path / "sparse.img"
    with source.open("wb") as f:
        f.truncate(1 << 30)
        for offset, size in ((0, MiB), (100 * MiB, 2 * MiB), (700 * MiB, 512 << 10)):
            f.seek(offset)
            f.write(os.urandom(size))
    data_bytes = MiB + 2 * MiB + (512 << 10)
    # nbdcopy opens no more connections than threads (by default, one a CPU).
    copy = ["nbdcopy", "--connections=4", "--threads=4"]
    subprocess.run([*copy, str(source), served.uri], check=True, timeout=120)
    back = tmp_path / "back.img"
    subprocess.run([*copy, served.uri, str(back)], check=True, timeout=120)
    assert hash_file(back) == hash_file(source)
    # Out: only the data was read, and the copy is as sparse as the source.
    assert back.stat().st_blocks * 512 <= 2 * data_bytes
    status, err = served.stop()
    assert status == 0, err
    stats = json.loads((served.tmp / "stats.json").read_text())
    assert stats["bytes_written"] == data_bytes
    assert stats["bytes_read"] == data_bytes  # of a 1 GiB export
    # Four connections each way (without the server's multi-conn flag nbdcopy opens one).
    assert stats["connections"] == 8
    assert stats["block_status"] >= 4


def fio_nbd(uri: str, *options: str) -> dict[str, object]:
    out = subprocess.run(
        ["fio", "--output-format=json", "--name=n", "--ioengine=nbd", f"--uri={uri}", *options],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    # fio's nbd engine prints "connected" lines before the report.
    report: dict[str, object] = json.loads(out.stdout[out.stdout.index("{") :])
    return report


@pytest.mark.slow
def test_fio_nbd_engine_runs_several_jobs_of_random_reads_and_writes(served: Served) -> None:
    need("fio")
    report = fio_nbd(
        served.uri, "--rw=randrw", "--bs=4k", "--size=64m", "--iodepth=8", "--numjobs=2", "--runtime=1", "--time_based"
    )
    jobs = report["jobs"]
    assert isinstance(jobs, list) and len(jobs) == 2
    assert all(j["error"] == 0 and j["read"]["total_ios"] > 0 and j["write"]["total_ios"] > 0 for j in jobs)


@pytest.mark.slow
def test_fio_qd1_latency_over_the_time_scale_matches_the_twin(tmp_path: Path) -> None:
    """A QD1 random-read job measured by real fio through NBD, divided by the time scale,
    within 10 % of the same job run by ssdtwin's own fio in virtual time."""
    need("fio")
    scale = 32
    state = tmp_path / "filled.state"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ssdtwin",
            "precondition",
            "--fill",
            "seq:100",
            "--save",
            str(state),
            "--set",
            "identity.capacity_bytes=4294967296",
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    job = ["--rw=randread", "--bs=4k", "--size=1g", "--iodepth=1", "--number_ios=400"]
    virtual = subprocess.run(
        [
            sys.executable,
            "-m",
            "ssdtwin",
            "fio",
            "--state",
            str(state),
            "--host",
            "none",
            "--output-format=json",
            "--name=n",
            *job,
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    twin_us = json.loads(virtual.stdout)["jobs"][0]["read"]["lat_ns"]["mean"] / 1000
    s = start(tmp_path, "--state", str(state), "--time-scale", str(scale))
    try:
        report = fio_nbd(s.uri, *job)
    finally:
        s.stop()
    jobs = report["jobs"]
    assert isinstance(jobs, list)
    served_us = jobs[0]["read"]["lat_ns"]["mean"] / 1000 / scale
    assert served_us == pytest.approx(twin_us, rel=0.10)


def test_data_in_a_backing_file_is_kept_there(tmp_path: Path) -> None:
    data = tmp_path / "disk.img"
    s = start(tmp_path, "--set", "identity.capacity_bytes=1073741824", "--data", str(data))
    c = s.connect()
    c.go()
    assert c.request(WRITE, 1 << 20, 4096, b"\x5a" * 4096) == (0, b"")
    status, err = s.stop()
    assert status == 0, err
    assert data.stat().st_size == 1 << 30
    with data.open("rb") as f:
        f.seek(1 << 20)
        assert f.read(4096) == b"\x5a" * 4096


def test_garbage_on_the_wire_closes_only_that_connection(served: Served) -> None:
    """Random bytes after the handshake, and headers with the request magic and random
    fields: the server answers or hangs up that client, and keeps serving others."""
    import random

    rng = random.Random(7)
    for k in range(30):
        c = served.connect()
        c.go()
        if k % 2:
            c.sock.sendall(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
        else:
            kind, length = rng.choice([READ, WRITE, TRIM, WRITE_ZEROES, 5, 99]), rng.choice([0, 1, 512, 1 << 26])
            header = struct.pack(
                ">IHHQQI", REQUEST_MAGIC, rng.randrange(1 << 16), kind, k, rng.randrange(1 << 64), length
            )
            # A WRITE's payload is not sent: the server waits for it, or refuses the length.
            c.sock.sendall(header if kind != WRITE else header[:28])
        c.sock.close()
    healthy = served.connect()
    healthy.go()
    assert healthy.request(READ, 0, 512) == (0, bytes(512))


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    s = start(tmp_path_factory.mktemp("fuzz"), "--set", "identity.capacity_bytes=1073741824")
    yield s
    s.stop()


REQUESTS = st.lists(
    st.tuples(
        st.sampled_from([READ, WRITE, FLUSH, TRIM, WRITE_ZEROES, 5, 7, 9, 0xFFFF]),
        st.one_of(st.integers(0, 1 << 31).map(lambda n: n * 512), st.integers(0, 2**64 - 1)),
        st.sampled_from([0, 1, 511, 512, 4096, 65536, 1 << 20]),
    ),
    min_size=1,
    max_size=6,
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(REQUESTS)
def test_any_request_gets_a_reply_and_the_server_carries_on(
    shared_server: Served, requests: list[tuple[int, int, int]]
) -> None:
    c = shared_server.connect()
    c.go()
    for cookie, (kind, offset, length) in enumerate(requests):
        payload = bytes(length) if kind == WRITE else b""
        error, data = c.request(kind, offset, length, payload, cookie=cookie)
        in_range = offset + length <= 1 << 30 and offset % 512 == 0 and length % 512 == 0
        if kind in (READ, WRITE) and error == 0:
            assert in_range and len(data) == (length if kind == READ else 0)
        if kind not in (READ, WRITE, FLUSH, TRIM, WRITE_ZEROES):
            assert error == EINVAL
    c.sock.close()
    shared_server.clients.remove(c)
