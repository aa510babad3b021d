"""C number formatting as nvme-cli and smartctl print it (``ssdtwin.nvme.cfmt``)."""

from __future__ import annotations

import pytest
from ssdtwin.nvme.cfmt import capacity, hash_x, suffix_binary, suffix_si, thousands


@pytest.mark.parametrize(
    ("value", "printed"),
    [(0, "0"), (1, "0x1"), (2, "0x2"), (0x66, "0x66"), (0x10300, "0x10300"), (0x74706DB0, "0x74706db0")],
)
def test_hash_x_prints_zero_without_a_prefix_as_c_does(value: int, printed: str) -> None:
    assert hash_x(value) == printed
    assert f"{value:#x}" == ("0x0" if value == 0 else printed), "the Python trap this avoids"


@pytest.mark.parametrize(
    ("value", "scaled", "suffix"),
    [
        (0, 0, ""),
        (999, 999, ""),
        (1000, 1.0, "k"),
        (256_060_514_304, 256.060514304, "G"),
        (1_000_204_886_016, 1.000204886016, "T"),
        (2_000_000_000_000_000, 2.0, "P"),
    ],
)
def test_suffix_si_picks_the_largest_power_of_1000(value: int, scaled: float, suffix: str) -> None:
    got_scaled, got_suffix = suffix_si(value)
    assert got_scaled == pytest.approx(scaled)
    assert got_suffix == suffix


@pytest.mark.parametrize(
    ("value", "scaled", "suffix"),
    [
        (512, 512, ""),
        (1023, 1023, ""),
        (1024, 1, "Ki"),
        (1536, 2, "Ki"),
        (4096, 4, "Ki"),
        (65536, 64, "Ki"),
        (1 << 20, 1, "Mi"),
    ],
)
def test_suffix_binary_rounds_half_up(value: int, scaled: int, suffix: str) -> None:
    assert suffix_binary(value) == (scaled, suffix)


@pytest.mark.parametrize(
    ("count", "bytes_per_unit", "printed"),
    [
        # smartctl -x lines of the reference (interfaces §4.4) and of a 7.3 report.
        (1_024_209_543_168, 1, "1,024,209,543,168 [1.02 TB]"),
        (304_763_396_096, 1, "304,763,396,096 [304 GB]"),
        (1_699_027, 512_000, "1,699,027 [869 GB]"),
        (17_586_666, 512_000, "17,586,666 [9.00 TB]"),
        (57, 512_000, "57 [29.1 MB]"),
        (64, 512_000, "64 [32.7 MB]"),
        (2_000_398_934_016, 1, "2,000,398,934,016 [2.00 TB]"),
        (1, 1, "1 [1 B]"),
    ],
)
def test_thousands_and_capacity_as_smartctl_prints_them(count: int, bytes_per_unit: int, printed: str) -> None:
    assert f"{thousands(count)} [{capacity(count * bytes_per_unit)}]" == printed


def test_capacity_truncates_and_stops_at_peta() -> None:
    assert capacity(1_999_999) == "1.99 MB"
    assert capacity(19_999_999) == "19.9 MB"
    assert capacity(5 * 10**18) == "5000 PB"
    assert thousands(16_394_111) == "16,394,111"
