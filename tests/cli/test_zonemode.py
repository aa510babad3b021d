"""``zonemode=strided`` (``zonesize``, ``zonerange``, ``zoneskip``): I/O stays in a zone until
``zonesize`` bytes have gone to it, then moves ``zonerange + zoneskip`` on. The offsets each
job issues, read from its latency log with ``log_offset=1``, are real fio 3.33's (sequential
ones exactly; random ones in structure, since fio's random numbers are its own)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ..helpers import Outcome, assert_one_line_error
from . import offsets

RunMain = Callable[..., Outcome]
KIB = 1024
COMMON = ["--bs=4k", "--size=1m"]


def our_offsets(run_main: RunMain, tmp_path: Path, *args: str) -> list[int]:
    return offsets.our_offsets(run_main, tmp_path, *args, *COMMON)


def fio_offsets(tmp_path: Path, *args: str) -> list[int]:
    return offsets.fio_offsets(tmp_path, *args, *COMMON)


STRIDED = ["--zonemode=strided", "--rw=write", "--number_ios=12"]
#: Offsets fio 3.33 issued for these jobs (on a 1 MiB file, bs=4k).
SEQUENTIAL = {
    ("--zonesize=8k", "--zonerange=64k"): [0, 4, 64, 68, 128, 132, 192, 196, 256, 260, 320, 324],
    # A zone taken more than once: back to its start past its range, then on to the next.
    ("--zonesize=16k", "--zonerange=8k"): [0, 4, 0, 4, 8, 12, 8, 12, 16, 20, 16, 20],
    ("--zonesize=8k", "--zonerange=64k", "--zoneskip=192k"): [0, 4, 256, 260, 512, 516, 768, 772, 0, 4, 256, 260],
}


@pytest.mark.parametrize("zones", list(SEQUENTIAL), ids=[" ".join(z) for z in SEQUENTIAL])
def test_sequential_zones_issue_fio_s_offsets(run_main: RunMain, tmp_path: Path, zones: tuple[str, ...]) -> None:
    assert our_offsets(run_main, tmp_path, *STRIDED, *zones) == [k * KIB for k in SEQUENTIAL[zones]]


def test_random_offsets_stay_in_their_zone_and_do_not_repeat_in_it(run_main: RunMain, tmp_path: Path) -> None:
    # zonesize 16k: four 4 KiB reads per zone, each zone 64k long, 64k skipped after it.
    zones = ["--zonemode=strided", "--zonesize=16k", "--zonerange=64k", "--zoneskip=64k"]
    issued = our_offsets(run_main, tmp_path, "--rw=randread", "--number_ios=12", *zones)
    for k in range(3):
        in_zone = issued[4 * k : 4 * k + 4]
        assert all(128 * KIB * k <= o < 128 * KIB * k + 64 * KIB for o in in_zone), issued
        assert len(set(in_zone)) == 4, issued


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--zonesize=16k"], "zonemode=none (the default) and zonesize are not compatible; give zonemode=strided"),
        (["--zonemode=strided"], "zonemode=strided needs zonesize="),
        (["--zonemode=zbd", "--zonesize=16k"], "zonemode=zbd needs a zoned drive (a profile with [zns]"),
        (["--zonemode=strided", "--zonesize=16k", "--zonecapacity=8k"], "the zone capacity of fio's emulated zones"),
        (["--zonemode=sideways"], "zonemode=sideways"),
    ],
)
def test_zone_options_fio_refuses_are_one_line(run_main: RunMain, args: list[str], message: str) -> None:
    assert_one_line_error(run_main("fio", "--host", "none", "--name=z", "--size=1m", *args), message)


@pytest.mark.slow
@pytest.mark.skipif(offsets.FIO is None, reason="real fio is not installed (apt-get install fio)")
@pytest.mark.parametrize("zones", list(SEQUENTIAL), ids=[" ".join(z) for z in SEQUENTIAL])
def test_sequential_zones_match_real_fio(run_main: RunMain, tmp_path: Path, zones: tuple[str, ...]) -> None:
    assert our_offsets(run_main, tmp_path, *STRIDED, *zones) == fio_offsets(tmp_path, *STRIDED, *zones)
