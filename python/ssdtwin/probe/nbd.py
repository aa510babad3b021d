"""The size and block sizes of an NBD export, read from the handshake (fixed newstyle,
``NBD_OPT_INFO``), as ``nbdinfo`` would print them; and the transport's round trip, timed
on requests of the transmission phase.

The protocol is NetworkBlockDevice/nbd's ``doc/proto.md``: the server greets with
``NBDMAGIC``/``IHAVEOPT`` and its handshake flags, the client answers with its flags and
sends options; ``NBD_OPT_INFO`` with the export name and a request for
``NBD_INFO_BLOCK_SIZE`` gets ``NBD_REP_INFO`` replies (``NBD_INFO_EXPORT``: size and
transmission flags; ``NBD_INFO_BLOCK_SIZE``: minimum, preferred, maximum) and a final
``NBD_REP_ACK``; ``NBD_OPT_ABORT`` ends the session. ``NBD_OPT_GO`` ends the handshake
instead; requests (``NBD_CMD_READ``, ``NBD_CMD_DISC``) then get simple replies (magic,
error, handle).
"""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar
from urllib.parse import parse_qs, unquote, urlparse

from ..errors import ProbeError
from .facts import Facts

#: What a handshake's option requests give back (:func:`_in_handshake`).
T = TypeVar("T")

NBDMAGIC = 0x4E42444D41474943
IHAVEOPT = 0x49484156454F5054
OPT_ABORT, OPT_INFO, OPT_GO = 2, 6, 7
REP_ACK, REP_INFO = 1, 3
INFO_EXPORT, INFO_BLOCK_SIZE = 0, 3
CLIENT_FLAGS = 0b11  # NBD_FLAG_C_FIXED_NEWSTYLE | NBD_FLAG_C_NO_ZEROES
REQUEST_MAGIC, SIMPLE_REPLY_MAGIC = 0x25609513, 0x67446698
CMD_READ, CMD_DISC = 0, 2
#: Reply-header magic of option replies.
OPTION_REPLY_MAGIC = 0x3E889045565A9
#: The TCP port NBD servers listen on by default (IANA).
DEFAULT_PORT = 10809


@dataclass(frozen=True)
class Export:
    """What the server says about an export."""

    size_bytes: int
    min_block_bytes: int
    preferred_block_bytes: int
    max_block_bytes: int


def parse_uri(uri: str) -> tuple[socket.AddressFamily, str | tuple[str, int], str]:
    """The address family, address and export name of an NBD URI (``nbd+unix:///NAME?socket=PATH``
    or ``nbd://HOST[:PORT]/NAME``).

    >>> parse_uri("nbd+unix:///?socket=/tmp/t.sock")[1:]
    ('/tmp/t.sock', '')
    >>> parse_uri("nbd://localhost:10810/disk")[1:]
    (('localhost', 10810), 'disk')
    """
    parsed = urlparse(uri)
    name = unquote(parsed.path[1:]) if parsed.path.startswith("/") else unquote(parsed.path)
    if parsed.scheme == "nbd+unix":
        sockets = parse_qs(parsed.query).get("socket")
        if not sockets:
            raise ProbeError(f"{uri}: an nbd+unix URI needs ?socket=PATH")
        return socket.AF_UNIX, sockets[0], name
    if parsed.scheme == "nbd":
        if not parsed.hostname:
            raise ProbeError(f"{uri}: an nbd URI needs a host, e.g. nbd://localhost:10809/")
        return socket.AF_INET, (parsed.hostname, parsed.port or DEFAULT_PORT), name
    raise ProbeError(f"{uri}: allowed NBD URIs are nbd+unix:///NAME?socket=PATH and nbd://HOST[:PORT]/NAME")


def query_export(uri: str, timeout_s: float = 20.0) -> Export:
    """Asks the server at ``uri`` for its export's size and block sizes."""
    return _in_handshake(uri, timeout_s, "read the export's size", _ask_info)


def round_trip_s(uri: str, exchanges: int = 64, timeout_s: float = 20.0) -> float:
    """The transport's round trip to the server at ``uri``, in seconds of wall time: the
    shortest of :func:`round_trips_s`. The shortest, not a typical one: what is left above
    it on fio's requests is the server's lateness, which only lengthens latencies, whereas a
    round trip that happened to be slowed by scheduling would be taken off every request and
    shorten them."""
    return min(round_trips_s(uri, exchanges, timeout_s))


def round_trips_s(uri: str, exchanges: int = 64, timeout_s: float = 20.0) -> list[float]:
    """Round trips to the server at ``uri``, in seconds of wall time, of ``exchanges``
    ``NBD_CMD_READ`` requests of zero bytes in the transmission phase. They take the path
    fio's requests take (the socket, the server's dispatch to its drive's thread and its
    reply) but have nothing for the drive to do. Like fio's own clock, this reads the wall
    clock of a real transport. The protocol leaves a read of zero bytes to the server:
    ``ssdtwin serve`` answers it at once, an error reply still gives a round trip, and a
    server that does not answer fails this step after ``timeout_s``."""

    def timed(sock: socket.socket, name: str) -> list[float]:
        _go(sock, name)
        taken = []
        for handle in range(exchanges):
            start = time.perf_counter()
            sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_READ, handle, 0, 0))
            magic, _error, got = struct.unpack(">IIQ", _recv(sock, 16))
            taken.append(time.perf_counter() - start)
            if (magic, got) != (SIMPLE_REPLY_MAGIC, handle):
                raise ConnectionError(
                    f"the server's reply to a read of zero bytes was not a simple reply to it ({magic:#x})"
                )
        sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_DISC, exchanges, 0, 0))
        return taken

    return _in_session(uri, timeout_s, "time the transport's round trip", timed)


def _in_session(uri: str, timeout_s: float, doing: str, session: Callable[[socket.socket, str], T]) -> T:
    """Connects to the server at ``uri``, greets it and runs ``session`` (which leaves the
    handshake itself) on the socket with the export's name; ``doing`` names the task in the
    error a failure gives."""
    family, address, name = parse_uri(uri)
    try:
        with socket.socket(family) as sock:
            sock.settimeout(timeout_s)
            sock.connect(address)
            _greet(sock)
            return session(sock, name)
    except OSError as e:
        raise ProbeError(f"{uri}: cannot {doing} ({e.strerror or e})") from None


def _in_handshake(uri: str, timeout_s: float, doing: str, options: Callable[[socket.socket, str], T]) -> T:
    """Connects to the server at ``uri``, greets it, runs ``options`` (option requests on
    the socket, with the export's name) and aborts the session; ``doing`` names the task in
    the error a failure gives."""

    def then_abort(sock: socket.socket, name: str) -> T:
        out = options(sock, name)
        sock.sendall(struct.pack(">QII", IHAVEOPT, OPT_ABORT, 0))
        return out

    return _in_session(uri, timeout_s, doing, then_abort)


def _recv(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    return data


def _greet(sock: socket.socket) -> None:
    """The fixed newstyle greeting, both ways."""
    magic, opt, _flags = struct.unpack(">QQH", _recv(sock, 18))
    if (magic, opt) != (NBDMAGIC, IHAVEOPT):
        raise ConnectionError("not an NBD server with the fixed newstyle handshake")
    sock.sendall(struct.pack(">I", CLIENT_FLAGS))


def _ask_info(sock: socket.socket, name: str) -> Export:
    """One ``NBD_OPT_INFO`` exchange: the export's size and block sizes."""
    size, blocks = None, (1, 4096, 32 << 20)
    for data in _info_replies(sock, OPT_INFO, name):
        (info,) = struct.unpack_from(">H", data)
        if info == INFO_EXPORT:
            size = struct.unpack_from(">Q", data, 2)[0]
        elif info == INFO_BLOCK_SIZE:
            blocks = struct.unpack_from(">III", data, 2)
    if size is None:
        raise ConnectionError("the server sent no export size")
    return Export(size, *blocks)


def _go(sock: socket.socket, name: str) -> None:
    """``NBD_OPT_GO`` with the export's name: the handshake ends and transmission begins."""
    _info_replies(sock, OPT_GO, name)


def _info_replies(sock: socket.socket, option: int, name: str) -> list[bytes]:
    """Sends ``NBD_OPT_INFO`` or ``NBD_OPT_GO`` for export ``name``, asking for
    ``NBD_INFO_BLOCK_SIZE`` (which a server with block sizes of its own may require:
    ``NBD_REP_ERR_BLOCK_SIZE_REQD``); returns the ``NBD_REP_INFO`` payloads up to the final
    ``NBD_REP_ACK``."""
    encoded = name.encode()
    payload = struct.pack(">I", len(encoded)) + encoded + struct.pack(">HH", 1, INFO_BLOCK_SIZE)
    sock.sendall(struct.pack(">QII", IHAVEOPT, option, len(payload)) + payload)
    infos: list[bytes] = []
    while True:
        _magic, _opt, kind, length = struct.unpack(">QIII", _recv(sock, 20))
        data = _recv(sock, length)
        if kind == REP_ACK:
            return infos
        if kind != REP_INFO:
            which = "NBD_OPT_GO" if option == OPT_GO else "NBD_OPT_INFO"
            raise ConnectionError(f"the server refused {which} (reply type {kind:#x})")
        infos.append(data)


def nbd_facts(uri: str) -> Facts:
    """Facts of the export at ``uri``: its size, the minimum block as the LBA size (at least
    512), and at most 128 KiB per I/O (an NBD export says nothing about the drive's MDTS)."""
    export = query_export(uri)
    return Facts(
        size_bytes=export.size_bytes,
        lba_bytes=max(512, export.min_block_bytes),
        max_io_bytes=min(128 << 10, export.max_block_bytes),
        source=f"NBD handshake with {uri}",
    )
