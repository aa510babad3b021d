"""Block traces in the formats engineers bring, converted to the fio iolog version 3 that
``read_iolog=`` replays (in ``ssdtwin fio`` and in fio itself).

Each reader yields records ``(time_us, op, offset_bytes, length_bytes, stream)`` in file
order; :func:`convert_trace` keeps one stream if asked (a disk, a volume), makes the times
relative to the first record and scales them, maps offsets onto the namespace (512-byte
aligned, wrapped around its end) and writes the log. A malformed line raises
:class:`~ssdtwin.errors.TraceError` naming the file and line.

Formats (field layouts from each trace's README):

* ``msr``: MSR Cambridge CSV, ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime``
  (Windows filetime: 100 ns ticks; bytes); stream = DiskNumber.
* ``blkparse``: blkparse's default text, ``maj,min cpu seq sec.nsec pid action RWBS sector
  + blocks``; queue (``Q``) events by default, or issues (``D``); stream = ``maj,min``.
* ``spc``: UMass/SPC, ``ASU,LBA,Size,Opcode,Timestamp`` (512-byte blocks, bytes, seconds);
  stream = ASU.
* ``alibaba``: Alibaba block traces 2020, ``device_id,opcode,offset,length,timestamp``
  (bytes, µs); stream = device_id.
* ``tencent``: Tencent CBS 2018, ``Timestamp,Offset,Size,IOType,VolumeID`` (seconds,
  512-byte sectors, 0 read / 1 write); stream = VolumeID.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .errors import TraceError

#: Trace formats :func:`convert_trace` reads.
FORMATS = ("msr", "blkparse", "spc", "alibaba", "tencent")

SECTOR = 512

#: One record: µs, "read"/"write"/"trim"/"sync", offset and length in bytes, stream.
Record = tuple[float, str, int, int, str]


@dataclass(frozen=True)
class Conversion:
    """What :func:`convert_trace` did."""

    records: int
    """Records read from the trace (every I/O line, before selection)."""
    written: int
    """I/O lines written to the iolog."""
    skipped: int
    """Records left out: another stream, or zero length."""
    wrapped: int
    """Records whose range was moved to fit the namespace."""
    duration_us: int
    """The last timestamp written."""


def _open(path: Path) -> TextIO:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="strict")
    return path.open(encoding="utf-8", errors="strict")


def _csv_fields(line: str, n: int, where: str) -> list[str]:
    fields = [f.strip() for f in line.split(",")]
    if len(fields) < n:
        raise TraceError(f"{where}: expected {n} comma-separated fields, found {len(fields)}")
    return fields


#: The largest number a trace field may hold: times and offsets end up as fio's 64-bit
#: signed values.
_MOST = 2**63 - 1


def _number(text: str, what: str, where: str, kind: Callable[[str], float] = int) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise TraceError(f"{where}: {what} '{text}' is not a number") from None
    if not math.isfinite(value):
        raise TraceError(f"{where}: {what} '{text}' is not a finite number")
    if value < 0:
        raise TraceError(f"{where}: {what} {text} is negative")
    if value > _MOST:
        raise TraceError(f"{where}: {what} {text} is beyond {_MOST}")
    return value


def _op(text: str, table: dict[str, str], where: str) -> str:
    op = table.get(text.strip().lower())
    if op is None:
        raise TraceError(f"{where}: I/O type '{text}'; allowed {', '.join(sorted(table))}")
    return op


def read_msr(lines: Iterator[tuple[int, str]], name: str) -> Iterator[Record]:
    ops = {"read": "read", "write": "write"}
    for n, line in lines:
        where = f"{name}:{n}"
        f = _csv_fields(line, 7, where)
        ticks = _number(f[0], "Timestamp", where)
        yield (
            ticks / 10.0,
            _op(f[3], ops, where),
            int(_number(f[4], "Offset", where)),
            int(_number(f[5], "Size", where)),
            f[2],
        )


_BLKPARSE_DEVICE = re.compile(r"^\d+,\d+$")


def read_blkparse(lines: Iterator[tuple[int, str]], name: str, event: str = "Q") -> Iterator[Record]:
    for n, line in lines:
        fields = line.split()
        # blkparse ends with per-CPU and per-device summaries: not events.
        if len(fields) < 7 or not _BLKPARSE_DEVICE.match(fields[0]):
            continue
        if fields[5] != event:
            continue
        where = f"{name}:{n}"
        secs = _number(fields[3], "time", where, float)
        rwbs = fields[6]
        if "F" in rwbs and (len(fields) < 10 or fields[8] != "+"):
            yield (secs * 1e6, "sync", 0, 0, fields[0])
            continue
        if len(fields) < 10 or fields[8] != "+":
            raise TraceError(f"{where}: expected 'sector + blocks' after the RWBS field '{rwbs}'")
        op = "trim" if "D" in rwbs else "write" if "W" in rwbs else "read" if "R" in rwbs else None
        if op is None:
            raise TraceError(f"{where}: RWBS '{rwbs}' has no R, W or D")
        sector = int(_number(fields[7], "sector", where))
        blocks = int(_number(fields[9], "blocks", where))
        yield (secs * 1e6, op, sector * SECTOR, blocks * SECTOR, fields[0])


def read_spc(lines: Iterator[tuple[int, str]], name: str) -> Iterator[Record]:
    ops = {"r": "read", "w": "write"}
    for n, line in lines:
        where = f"{name}:{n}"
        f = _csv_fields(line, 5, where)
        lba = int(_number(f[1], "LBA", where))
        size = int(_number(f[2], "Size", where))
        secs = _number(f[4], "Timestamp", where, float)
        yield (secs * 1e6, _op(f[3], ops, where), lba * SECTOR, size, f[0])


def read_alibaba(lines: Iterator[tuple[int, str]], name: str) -> Iterator[Record]:
    ops = {"r": "read", "w": "write"}
    for n, line in lines:
        where = f"{name}:{n}"
        f = _csv_fields(line, 5, where)
        offset = int(_number(f[2], "offset", where))
        length = int(_number(f[3], "length", where))
        yield (_number(f[4], "timestamp", where), _op(f[1], ops, where), offset, length, f[0])


def read_tencent(lines: Iterator[tuple[int, str]], name: str) -> Iterator[Record]:
    ops = {"0": "read", "1": "write"}
    for n, line in lines:
        where = f"{name}:{n}"
        f = _csv_fields(line, 5, where)
        secs = _number(f[0], "Timestamp", where, float)
        offset = int(_number(f[1], "Offset", where))
        size = int(_number(f[2], "Size", where))
        yield (secs * 1e6, _op(f[3], ops, where), offset * SECTOR, size * SECTOR, f[4])


def _data_lines(f: TextIO, name: str) -> Iterator[tuple[int, str]]:
    """Numbered lines that carry data: blank lines, comments and a CSV header are skipped."""
    try:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            # A header row names its columns: its first field is not a number.
            if n == 1 and text.split(",")[0].strip().lower() in ("timestamp", "asu", "device_id"):
                continue
            yield n, text
    except UnicodeDecodeError:
        raise TraceError(f"{name}: not UTF-8 text (a binary blktrace file replays directly with read_iolog=)") from None
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise TraceError(f"{name}: not a whole gzip file ({e})") from None


def convert_trace(
    source: str | Path,
    fmt: str,
    out: str | Path,
    *,
    namespace_bytes: int,
    stream: str | None = None,
    time_scale: float = 1.0,
    event: str = "Q",
    overwrite: bool = False,
) -> Conversion:
    """Converts ``source`` (``fmt``, one of :data:`FORMATS`) to a fio iolog v3 at ``out``.

    ``stream`` keeps one disk or volume; ``time_scale`` K replays K times faster (times are
    divided by it); offsets are aligned down to 512 bytes and wrapped onto a namespace of
    ``namespace_bytes``; ``event`` picks blkparse's ``Q`` or ``D`` events. The log is
    written whole to a temporary file and renamed into place.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "t.csv").write_text("0,R,4096,4096,1577808000000046\\n0,W,0,8192,1577808000001046\\n")
    >>> convert_trace(d / "t.csv", "alibaba", d / "t.log", namespace_bytes=1 << 30).written
    2
    >>> (d / "t.log").read_text().splitlines()[3:5]
    ['0 /dev/nvme0n1 read 4096 4096', '1000 /dev/nvme0n1 write 0 8192']
    """
    readers: dict[str, Callable[[Iterator[tuple[int, str]], str], Iterator[Record]]] = {
        "msr": read_msr,
        "blkparse": lambda lines, name: read_blkparse(lines, name, event),
        "spc": read_spc,
        "alibaba": read_alibaba,
        "tencent": read_tencent,
    }
    if fmt not in readers:
        raise TraceError(f"trace format '{fmt}'; allowed {', '.join(FORMATS)}")
    if event not in ("Q", "D"):
        raise TraceError(f"blkparse event '{event}'; allowed Q (queued) or D (issued)")
    if not time_scale > 0:
        raise TraceError(f"time scale {time_scale}; allowed a positive number")
    if namespace_bytes < SECTOR:
        raise TraceError(f"namespace of {namespace_bytes} bytes; allowed at least {SECTOR}")
    src, dst = Path(source), Path(out)
    if not src.is_file():
        # A FIFO or a device would be read for ever (/dev/zero), or block.
        what = "does not exist" if not os.path.lexists(src) else "is not a regular file (a FIFO, socket or device)"
        raise TraceError(f"{src} {what}; convert a trace file")
    if dst.exists() and not overwrite:
        raise TraceError(f"{dst} exists; convert to another file or allow overwriting")
    records = written = skipped = wrapped = 0
    first: float | None = None
    last_us = 0
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    try:
        with _open(src) as f, tmp.open("w") as w:
            w.write("fio version 3 iolog\n0 /dev/nvme0n1 add\n0 /dev/nvme0n1 open\n")
            for time_us, op, offset, length, which in readers[fmt](_data_lines(f, src.name), src.name):
                records += 1
                if (stream is not None and which != stream) or (length == 0 and op != "sync"):
                    skipped += 1
                    continue
                if first is None:
                    first = time_us
                last_us = max(last_us, round(max(time_us - first, 0.0) / time_scale))
                if op != "sync":
                    offset, length, moved = _place(offset, length, namespace_bytes)
                    wrapped += moved
                w.write(f"{last_us} /dev/nvme0n1 {op} {offset} {length}\n")
                written += 1
            w.write(f"{last_us} /dev/nvme0n1 close\n")
            w.flush()
            os.fsync(w.fileno())
        if written == 0:
            raise TraceError(f"{src}: no I/O to convert" + (f" for stream '{stream}'" if stream is not None else ""))
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)
    return Conversion(records, written, skipped, wrapped, last_us)


def _place(offset: int, length: int, namespace: int) -> tuple[int, int, int]:
    """A range on the namespace: whole 512-byte blocks, wrapped around its end; returns
    ``(offset, length, 1 if it moved else 0)``."""
    length = min(-(-length // SECTOR) * SECTOR, namespace // SECTOR * SECTOR)
    aligned = offset // SECTOR * SECTOR
    placed = aligned % (namespace // SECTOR * SECTOR)
    if placed + length > namespace:
        placed = (namespace - length) // SECTOR * SECTOR
    return placed, length, int(placed != aligned)
