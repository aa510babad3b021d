"""``ssdtwin study memory`` (reference R6): the table's columns, one figure per bench, and
one-line errors for bad sizes, fractions, kernels and benches. The machine and the problem
are cut down (a quarter GiB) so each point takes a fraction of a second."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from ssdtwin.studies import REGISTRY
from ssdtwin.studies.memory import _all_points, memory_sweep

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]

#: The columns the issue asks for, then the counters.
COLUMNS = ["profile", "kernel", "alloc", "madvise", "pattern", "threads", "bench", "mb_per_s", "seconds"]
COUNTERS = ["major_faults", "swap_in_bytes", "swap_out_bytes", "swap_readahead_pages", "mmap_readahead_pages"]
SMALL = ["--profile", "intel-910-400", "--size-gib", "0.25", "--dram-fraction", "0.5"]


def test_json_records_have_the_columns_and_a_figure_per_bench(run_main: RunMain, tmp_path: Path) -> None:
    args = [*SMALL, "--kernel", "vanilla", "--madvise", "none", "--threads", "1", "--bench", "memcpy,fio"]
    ran = run_main("study", "memory", *args, "--fio-runtime", "0.05", "--out", tmp_path, "--json")
    assert ran.status == 0, ran
    table = pd.DataFrame(json.loads(ran.out))
    assert set(COLUMNS + COUNTERS + ["device_read_bytes", "device_write_bytes"]) <= set(table.columns)
    memcpy = table[table.bench == "memcpy"]
    assert sorted(zip(memcpy.alloc, memcpy.pattern, strict=True)) == [
        ("malloc", "random"),
        ("malloc", "seq"),
        ("mmap", "random"),
        ("mmap", "seq"),
    ]
    # memcpy moves the whole region: bandwidth is its size over the time.
    assert (memcpy.mb_per_s * memcpy.seconds).round(0).eq(round(0.25 * 2**30 / 1e6)).all()
    # Half the region fits: malloc swaps the other half in (and the whole region, as LRU
    # evicts each page before the sweep returns to it); mmap reads the file through.
    seq = memcpy[memcpy.pattern == "seq"].set_index("alloc")
    assert seq.swap_in_bytes["malloc"] == 2**28 and seq.mmap_read_bytes["mmap"] == 2**28
    fio = table[table.bench == "fio"]
    assert set(fio.rw) == {"read", "write"} and set(fio.msync) == {False, True}
    for bench in ("memcpy", "fio"):
        png = tmp_path / f"memory-{bench}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


def test_8_threads_on_the_global_lock_spin_more_than_on_fastswap() -> None:
    # Two LUNs as swap areas: fastswap's per-area locks split what 3.6's swap_lock serializes.
    t = memory_sweep(
        "intel-910-400",
        size_gib=0.5,
        dram_fraction=0.5,
        allocs=["malloc"],
        madvises=["none"],
        patterns=["random"],
        threads=[8],
    ).set_index("kernel")
    assert t.swap_lock_spin_ms["vanilla"] > 2 * t.swap_lock_spin_ms["fastswap"]


def test_willneed_reads_swapped_pages_ahead_from_3_9_on() -> None:
    # MADV_WILLNEED on anonymous memory reads swapped pages back (3.9+) while free memory
    # stays above the min watermark, so the sweep that follows faults less; 3.6 ignores it.
    t = memory_sweep(
        "intel-910-400",
        size_gib=0.25,
        dram_fraction=0.5,
        kernels=["vanilla", "linux-6.1"],
        allocs=["malloc"],
        madvises=["none", "willneed"],
        patterns=["seq"],
        threads=[1],
    )
    majors = t.set_index(["kernel", "madvise"]).major_faults
    assert majors["vanilla", "willneed"] == majors["vanilla", "none"]
    assert majors["linux-6.1", "willneed"] < majors["linux-6.1", "none"]


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--size-gib", "0"], ["--size-gib", "above 0"]),
        (["--size-gib", "nan"], ["--size-gib"]),
        (["--dram-fraction", "-0.5"], ["--dram-fraction", "above 0"]),
        (["--dram-fraction", "5"], ["--dram-fraction", "at most 4"]),
        (["--kernel", "vanila"], ["host profile 'vanila'"]),
        (["--bench", "linpack"], ["--bench", "memcpy, stream, himeno, fio"]),
        (["--alloc", "calloc"], ["--alloc", "mmap, malloc"]),
        (["--threads", "9"], ["threads 9", "8 cores"]),
        (["--himeno-size", "huge"], ["--himeno-size"]),
        (["--fs-layout", "raid5"], ["--fs-layout", "raid0, single"]),
        (["--unit-kib", "6"], ["--unit-kib"]),
        (["--madvise", "dontneed"], ["--madvise", "none, sequential, random, willneed"]),
        (["--bench", "memcpy,fio", "--madvise", "willneed"], ["--madvise", "fio's fadvise_hint takes none"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    run_main: RunMain, tmp_path: Path, args: list[str], fragments: list[str]
) -> None:
    base = [*SMALL, "--madvise", "none", "--pattern", "seq", "--out", tmp_path]
    assert_one_line_error(run_main("study", "memory", *base, *args), *fragments)


def test_too_little_memory_for_the_drivers_tables_is_refused(run_main: RunMain, tmp_path: Path) -> None:
    # The ioDrive2's driver keeps 4.2 GiB of host memory for its tables.
    ran = run_main("study", "memory", "--profile", "iodrive2-1200", "--size-gib", "1", "--out", tmp_path)
    assert_one_line_error(ran, "left for pages after the drivers' 4275 MiB")


@pytest.mark.parametrize(
    "options",
    [
        {},  # the study's defaults: memcpy over both kernels, allocations, advice and orders
        {"bench": "memcpy,fio,stream,himeno", "kernel": "vanilla", "madvise": "none,random"},
        {"bench": "fio", "alloc": "malloc,mmap", "pattern": "random,seq"},
    ],
)
def test_the_parts_concatenate_to_the_points_in_their_order(options: dict[str, Any]) -> None:
    # Workers run the parts in any order; their tables are joined in the parts' order, so
    # that order must be the points' own, with nothing left out or run twice.
    study = next(s for s in REGISTRY if s.name == "memory")
    defaults = {o.name: o.default for o in study.options if o.name is not None}
    every = defaults | options
    points = _all_points(**every)
    in_parts = [p for part in study.parts(**every) for p in _all_points(**(every | part))]
    assert in_parts == points and len(study.parts(**every)) > 1
