"""Numbers formatted the way nvme-cli and smartctl format them in C.

Python's ``%`` operator follows C's ``printf`` closely, with one trap that matters here: C
prints ``%#x`` of zero as ``0``, Python as ``0x0`` (:func:`hash_x`). :func:`supported` is
nvme-cli's most common ``-H`` decode line, :func:`watts` the power format both tools share.
The unit helpers are ports of nvme-cli's ``util/suffix.c`` (``suffix_si_get``,
``suffix_binary_get``, as of v2.3) and smartctl's ``utility.cpp``
(``format_with_thousands_sep``, ``format_capacity``).
Both tools use the C locale's separators: ``,`` for thousands and ``.`` for decimals.
"""

from __future__ import annotations

#: nvme-cli's SI prefixes, largest first, as in ``util/suffix.c`` (``si_suffixes``).
_SI_SUFFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1e0, ""))
_SI_SMALL = ((1e-3, "m"), (1e-6, "u"), (1e-9, "n"), (1e-12, "p"), (1e-15, "f"))
#: nvme-cli's binary prefixes (``binary_suffixes``): shift, suffix.
_BINARY_SUFFIXES = ((50, "Pi"), (40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki"))


def hash_x(value: int) -> str:
    """C's ``%#x``: ``0x`` and hex digits, except that zero prints as ``0``.

    >>> hash_x(0x10300), hash_x(2), hash_x(0)
    ('0x10300', '0x2', '0')
    """
    return f"{value:#x}" if value else "0"


def supported(bit: int, what: str, yes: str = "", no: str = "Not ") -> str:
    """nvme-cli's ``"%#x\\t<what> %sSupported"`` decode of one bit, after the ``[n:n] :``
    column; ``yes``/``no`` are the words for a set and a clear bit (a few fields invert them).

    >>> supported(1, "Format NVM"), supported(0, "Format NVM")
    ('0x1\\tFormat NVM Supported', '0\\tFormat NVM Not Supported')
    """
    return f"{hash_x(bit)}\t{what} {yes if bit else no}Supported"


def watts(value: int, scale: int) -> str | None:
    """A power field in its scale, as nvme-cli and smartctl print it: ``%u.%04uW`` in units
    of 0.0001 W (scale 1), ``%u.%02uW`` in 0.01 W (scale 2); ``None`` for the other scales
    (0, not reported; 3, reserved), which each tool words its own way.

    >>> watts(600, 2), watts(50, 1), watts(7, 0)
    ('6.00W', '0.0050W', None)
    """
    if scale == 1:
        return f"{value // 10000}.{value % 10000:04d}W"
    if scale == 2:
        return f"{value // 100}.{value % 100:02d}W"
    return None


def suffix_si(value: float) -> tuple[float, str]:
    """nvme-cli's ``suffix_si_get``: the value scaled by the largest SI prefix not above it,
    and the prefix (``k`` is lower case; zero and negative values get no prefix).

    >>> suffix_si(256_060_514_304)
    (256.060514304, 'G')
    >>> suffix_si(0)
    (0, '')
    """
    for magnitude, suffix in (*_SI_SUFFIXES, *_SI_SMALL):
        if value >= magnitude:
            return value / magnitude, suffix
    return value, ""


def suffix_binary(value: int) -> tuple[int, str]:
    """nvme-cli's ``suffix_binary_get``: the value in the largest binary unit it reaches,
    rounded half up (integer arithmetic), and the prefix.

    >>> suffix_binary(4096), suffix_binary(512), suffix_binary(1536)
    ((4, 'Ki'), (512, ''), (2, 'Ki'))
    """
    for shift, suffix in _BINARY_SUFFIXES:
        if abs(value) >= 1 << shift:
            return (value + (1 << (shift - 1))) // (1 << shift), suffix
    return value, ""


def thousands(value: int) -> str:
    """smartctl's ``format_with_thousands_sep`` in the C locale.

    >>> thousands(1_024_209_543_168), thousands(57), thousands(0)
    ('1,024,209,543,168', '57', '0')
    """
    return f"{value:,}"


def capacity(value: int) -> str:
    """smartctl's ``format_capacity``: three significant digits with an SI prefix, truncated
    (not rounded), as printed in brackets after byte counts.

    >>> capacity(1_024_209_543_168), capacity(869_901_824_000), capacity(29_184_000), capacity(512)
    ('1.02 TB', '869 GB', '29.1 MB', '512 B')
    """
    prefixes = " KMGTP"
    i, d = 0, 1
    while value >= d * 1000:
        d *= 1000
        i += 1
        if i >= len(prefixes) - 1:
            break
    n = value // d
    if i == 0:
        return f"{n} B"
    if n >= 100:
        return f"{n} {prefixes[i]}B"
    if n >= 10:
        return f"{n}.{(value % d) * 10 // d} {prefixes[i]}B"
    return f"{n}.{(value % d) * 100 // d:02d} {prefixes[i]}B"
