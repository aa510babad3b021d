"""fio's job-control options that change what is issued: verification (`verify=` and its
backlog), latency limits (`latency_target`, `max_latency`), flows, command priorities and
NUMA placement. Each test checks a figure the option's definition fixes."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from ssdtwin import Device

WRITE = {"name": "w", "rw": "randwrite", "bs": "4k", "ioengine": "libaio", "iodepth": 8, "size": "4m"}


def fio_job(result: Any, k: int = 0) -> dict[str, Any]:
    job: dict[str, Any] = result.json["jobs"][k]
    return job


def log_rows(path: Path) -> list[list[str]]:
    with path.open() as f:
        return [[field.strip() for field in row] for row in csv.reader(f)]


# ---- verify ----


def test_verify_reads_back_every_block_written() -> None:
    job = fio_job(Device(host="none").run(WRITE | {"verify": "crc32c"}))
    assert job["write"]["total_ios"] == 1024
    assert job["read"]["total_ios"] == 1024
    assert job["read"]["io_bytes"] == job["write"]["io_bytes"]
    # Each direction's runtime is its own phase's: together they span the job.
    assert job["read"]["runtime"] + job["write"]["runtime"] == pytest.approx(job["job_runtime"], abs=2)


def test_do_verify_0_writes_only() -> None:
    job = fio_job(Device(host="none").run(WRITE | {"verify": "crc32c", "do_verify": 0}))
    assert (job["write"]["total_ios"], job["read"]["total_ios"]) == (1024, 0)


@pytest.mark.parametrize("norandommap", [False, True])
def test_read_back_order_is_fios(tmp_path: Path, norandommap: bool) -> None:
    """With a random map fio reads blocks back in the order it wrote them; without one it
    reads them sorted by offset, each once (a later write replaces an earlier one)."""
    job = WRITE | {"verify": "md5", "iodepth": 1, "write_lat_log": "v", "log_offset": 1}
    if norandommap:
        job |= {"norandommap": 1}
    Device(host="none").run(job, log_dir=tmp_path)
    rows = log_rows(tmp_path / "v_clat.1.log")
    writes = [int(r[4]) for r in rows if r[2] == "1"]
    reads = [int(r[4]) for r in rows if r[2] == "0"]
    if norandommap:
        assert reads == sorted(set(writes))
        assert len(reads) < len(writes)  # 1024 random draws over 1024 blocks repeat some
    else:
        assert reads == writes


def test_verify_backlog_interleaves_read_backs_with_writes(tmp_path: Path) -> None:
    job = WRITE | {"verify": "crc32c", "verify_backlog": 64, "iodepth": 1, "write_lat_log": "b", "log_offset": 1}
    Device(host="none").run(job, log_dir=tmp_path)
    dirs = "".join(r[2] for r in log_rows(tmp_path / "b_clat.1.log"))
    # 64 writes, then 64 read-backs of them, and so on: no read-back waits for the end.
    assert dirs.startswith("1" * 64 + "0" * 64 + "1" * 64)
    assert dirs.count("0") == dirs.count("1") == 1024


def test_verify_only_reads_what_the_job_would_have_written() -> None:
    job = fio_job(Device(host="none").run(WRITE | {"verify": "crc32c", "verify_only": 1}))
    assert (job["write"]["total_ios"], job["read"]["total_ios"]) == (0, 1024)


@pytest.mark.slow
def test_a_read_job_with_verify_checks_on_the_cpu_and_issues_nothing_more() -> None:
    dev = Device()
    dev.fill("seq", 100)
    job = {"name": "r", "rw": "read", "bs": "128k", "ioengine": "psync", "size": "64m", "verify": "sha256"}
    checked = fio_job(dev.copy().run(job))
    plain = fio_job(dev.copy().run(job | {"verify": "0"}))
    assert checked["read"]["total_ios"] == plain["read"]["total_ios"] == 512
    # sha256 runs at 367.3 MiB/s on the reference core (fio --crctest): 340 us per 128 KiB,
    # spent in the thread between reads, so the job takes that much longer per read.
    extra_us = (checked["read"]["runtime"] - plain["read"]["runtime"]) * 1000 / 512
    assert extra_us == pytest.approx(131072 / (367.3 * 2**20) * 1e6, rel=0.05)


def test_verify_async_takes_the_checksum_off_the_job_thread() -> None:
    dev = Device()
    dev.fill("seq", 100)
    job = {"name": "r", "rw": "read", "bs": "128k", "ioengine": "psync", "size": "64m", "verify": "sha256"}
    offloaded = fio_job(dev.copy().run(job | {"verify_async": 2}))
    plain = fio_job(dev.copy().run(job | {"verify": "0"}))
    assert offloaded["read"]["runtime"] == pytest.approx(plain["read"]["runtime"], abs=1)


# ---- latency_target and max_latency ----


@pytest.mark.slow
@pytest.mark.parametrize("target_us", [200, 400])
def test_latency_target_finds_the_deepest_queue_that_meets_it(target_us: int) -> None:
    dev = Device(host="none")
    dev.fill("seq", 100)
    job = {"name": "t", "rw": "randread", "bs": "4k", "ioengine": "libaio", "iodepth": 128, "size": "1g"}
    search = {"latency_target": f"{target_us}us", "latency_window": "20ms", "latency_percentile": 99.9}
    searched = fio_job(dev.copy().run(job | search | {"runtime": "2s", "time_based": 1}))
    depth = searched["latency_depth"]
    assert 1 < depth < 128
    assert (searched["latency_target"], searched["latency_percentile"]) == (target_us * 1000, 99.9)

    def p999_us(iodepth: int) -> float:
        run = fio_job(dev.copy().run(job | {"iodepth": iodepth, "runtime": "50ms", "time_based": 1}))
        return float(run["read"]["clat_ns"]["percentile"]["99.900000"]) / 1000

    # At the depth found 99.9 % of reads meet the target (within the histogram's 1/32
    # bucket width); at twice that depth they do not.
    assert p999_us(depth) <= target_us * (1 + 1 / 32)
    assert p999_us(2 * depth) > target_us


def test_a_latency_target_missed_at_depth_1_ends_the_job_with_etimedout() -> None:
    dev = Device(host="none")
    dev.fill("seq", 100)
    job = {"name": "t", "rw": "randread", "bs": "4k", "iodepth": 8, "ioengine": "libaio", "size": "1g"}
    result = dev.run(job | {"latency_target": "1us", "runtime": "1s"})
    assert fio_job(result)["error"] == 110
    assert "latency of" in result.errors[0] and "exceeds specified max (1000 nsec)" in result.errors[0]


@pytest.mark.slow
def test_max_latency_fails_the_job_on_one_slow_io() -> None:
    dev = Device(host="none")
    dev.fill("seq", 100)
    job = {"name": "m", "rw": "randread", "bs": "4k", "ioengine": "libaio", "iodepth": 32, "size": "1g"}
    assert fio_job(dev.copy().run(job | {"max_latency": "10ms", "runtime": "20ms"}))["error"] == 0
    assert fio_job(dev.copy().run(job | {"max_latency": "50us", "runtime": "20ms"}))["error"] == 110


# ---- flows ----


def test_flow_weights_set_the_ratio_of_ios() -> None:
    jobs = (
        "[global]\nthread\ntime_based\nruntime=100ms\nioengine=libaio\niodepth=32\nsize=1g\nbs=8k\n"
        "filename=/dev/nvme0n1\nnorandommap\n"
        "[slow]\nrw=randwrite\nflow=1\n"
        "[fast]\nrw=randread\nflow=8\n"
    )
    result = Device(host="none").run(jobs)
    slow = fio_job(result, 0)["write"]["total_ios"]
    fast = fio_job(result, 1)["read"]["total_ios"]
    assert fast / slow == pytest.approx(8, rel=0.02)


def test_different_flow_ids_do_not_hold_each_other_back() -> None:
    jobs = (
        "[global]\ntime_based\nruntime=50ms\nioengine=libaio\niodepth=8\nsize=1g\nbs=4k\nrw=randread\n"
        "[a]\nflow_id=1\nflow=1\n[b]\nflow_id=2\nflow=8\n"
    )
    result = Device(host="none").run(jobs)
    a, b = (fio_job(result, k)["read"]["total_ios"] for k in (0, 1))
    assert a == pytest.approx(b, rel=0.05)


# ---- command priorities ----


@pytest.mark.slow
def test_cmdprio_percentage_splits_statistics_and_not_timing() -> None:
    dev = Device()
    dev.fill("seq", 100)
    job = {"name": "p", "rw": "randread", "bs": "4k", "ioengine": "libaio", "iodepth": 8, "size": "1g"}
    job |= {"runtime": "50ms", "time_based": 1}
    split = fio_job(dev.copy().run(job | {"prioclass": 3, "cmdprio_percentage": 20, "cmdprio_class": 1}))
    plain = fio_job(dev.copy().run(job))
    prios = split["read"]["prios"]
    assert [(p["prioclass"], p["prio"]) for p in prios] == [(3, 0), (1, 0)]
    n = [p["clat_ns"]["N"] for p in prios]
    assert sum(n) == split["read"]["total_ios"]
    assert n[1] / sum(n) == pytest.approx(0.20, abs=0.02)
    # The drive serves every priority alike (Linux's NVMe path passes none on).
    assert split["read"]["total_ios"] == plain["read"]["total_ios"]
    assert "prios" not in plain["read"]


def test_log_prio_writes_the_priority_value(tmp_path: Path) -> None:
    job = {"name": "p", "rw": "randread", "bs": "4k", "ioengine": "libaio", "iodepth": 4, "size": "4m"}
    job |= {"prioclass": 2, "prio": 7, "cmdprio_percentage": 50, "write_lat_log": "p", "log_prio": 1}
    Device(host="none").run(job, log_dir=tmp_path)
    values = {r[-1] for r in log_rows(tmp_path / "p_clat.1.log")}
    assert values == {"0x4007", "0x2000"}


def test_cmdprio_options_belong_to_libaio_and_io_uring() -> None:
    job = {"name": "p", "rw": "randread", "size": "4m", "ioengine": "psync", "cmdprio_percentage": 10}
    with pytest.raises(ValueError, match="cmdprio_percentage is an option of the libaio and io_uring engines"):
        Device(host="none").run(job)


# ---- NUMA ----


def test_numa_cpu_nodes_places_threads_on_that_nodes_cores() -> None:
    """Two CPU-bound jobs (the null engine: fio's own work and nothing else) on one node of
    a 2-core, 2-node host share its core; on different nodes each has a core."""
    host = {"cpu.cores": 2, "cpu.numa_nodes": 2}
    job = "[global]\nrw=randread\nbs=4k\nioengine=null\nsize=1g\nruntime=20ms\ntime_based\n"

    def iops(nodes: tuple[int, int]) -> float:
        text = job + "".join(f"[j{k}]\nnuma_cpu_nodes={n}\n" for k, n in enumerate(nodes))
        dev = Device(host="linux-6.1", host_overrides=host)
        return sum(float(fio_job(dev.run(text), k)["read"]["iops"]) for k in (0, 1))

    shared, apart = iops((0, 0)), iops((0, 1))
    assert apart == pytest.approx(2 * shared, rel=0.02)


def test_a_numa_node_the_host_lacks_is_refused() -> None:
    job = {"name": "n", "rw": "read", "size": "4m", "numa_cpu_nodes": "1"}
    with pytest.raises(ValueError, match=r"NUMA node 1 does not exist: host linux-6\.1 has one node, 0"):
        Device().run(job)


# ---- fill_device ----


def test_fill_device_writes_a_new_file_until_the_file_system_is_full(small: dict[str, object]) -> None:
    dev = Device(host="none", overrides=small)
    job = {"name": "f", "rw": "write", "bs": "64k", "filename": "datafile.tmp", "fill_device": 1}
    # The only file starts at the namespace's start: it takes all of it, in whole blocks.
    assert fio_job(dev.run(job))["write"]["io_bytes"] == small["identity.capacity_bytes"]


def test_a_direct_job_on_a_file_needs_lba_aligned_offsets() -> None:
    job = {"name": "o", "rw": "read", "filename": "data", "size": "1m", "offset": 1000}
    with pytest.raises(ValueError, match="offset 1000 is not a multiple of the 512-byte LBA size"):
        Device(host="none").run(job)
    # Through the page cache any offset is fine: the reads cover the pages it touches.
    buffered = fio_job(Device().run(job | {"direct": 0}))
    assert buffered["read"]["io_bytes"] == 1 << 20
