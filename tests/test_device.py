"""ssdtwin.device: Device (building, filling, running, saving, formatting, idling, counters)
and RunResult (json, json+, normal, summary, series, groups).

Latencies are checked against sums of the shipped profile's stages, derived here from its
resolved TOML exactly as crates/ssdtwin-core/tests/timing.rs derives them: on the bare host
(``host="none"``), which adds nothing, and on a real one, which adds its profile's costs.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import tomllib
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import ssdtwin
from ssdtwin import Device, DeviceError, JobError, ProfileError, RunResult
from ssdtwin.testing import ideal_host_overrides, small_overrides

from .helpers import without_wall_clock

# ---- stage latencies of the shipped profile -------------------------------------------

PCIE_GT_PER_S = {3: 8e9, 4: 16e9, 5: 32e9}


def link_bytes_per_s(p: dict[str, Any]) -> float:
    """PCIe data rate: GT/s x 128b/130b x lanes / 8, times the share of payload per TLP."""
    h = p["link"]
    payload = h["max_payload_bytes"] / (h["max_payload_bytes"] + h["tlp_overhead_bytes"])
    return float(PCIE_GT_PER_S[h["pcie_gen"]] * 128 / 130 / 8 * h["pcie_lanes"] * payload)


def link_ns(p: dict[str, Any], nbytes: int) -> float:
    return nbytes / link_bytes_per_s(p) * 1e9


def read_clat_ns(p: dict[str, Any], nbytes: int = 4096) -> float:
    """A lone 4 KiB read of written data: fetch, firmware, tR, channel, ECC, link, completion."""
    n = p["nand"]
    channel = n["channel_cmd_ns"] + nbytes / (n["channel_mts"] * 1e6) * 1e9
    return float(
        p["link"]["command_fetch_ns"]
        + p["controller"]["read_cmd_ns"]
        + p["controller"]["unit_ns"] * nbytes / 4096
        + n[n["cell"]]["t_read_us"] * 1000
        + channel
        + n["ecc_decode_ns"]
        + link_ns(p, nbytes)
        + p["link"]["completion_post_ns"]
    )


def unmapped_read_clat_ns(p: dict[str, Any], nbytes: int = 4096) -> float:
    """A read of never-written LBAs: no NAND, no channel, no ECC."""
    c = p["controller"]
    return float(
        p["link"]["command_fetch_ns"]
        + c["read_cmd_ns"]
        + c["unit_ns"] * nbytes / 4096
        + link_ns(p, nbytes)
        + p["link"]["completion_post_ns"]
    )


def write_clat_ns(p: dict[str, Any], nbytes: int = 4096) -> float:
    """A lone write acknowledged from the write buffer."""
    c = p["controller"]
    return float(
        p["link"]["command_fetch_ns"]
        + c["write_cmd_ns"]
        + c["unit_ns"] * nbytes / 4096
        + link_ns(p, nbytes)
        + p["link"]["completion_post_ns"]
    )


def qd1(rw: str, engine: str = "libaio", runtime: str = "50ms") -> dict[str, object]:
    return {
        "rw": rw,
        "bs": "4k",
        "ioengine": engine,
        "iodepth": 1,
        "size": "1g",
        "runtime": runtime,
        "time_based": True,
    }


def direction(result: RunResult, name: str, job: int = 0) -> dict[str, Any]:
    return result.json["jobs"][job][name]  # type: ignore[no-any-return]


# ---- timing of lone commands --------------------------------------------------------------


def test_the_profile_link_rate_is_pcie_gen4_x4_with_256_byte_payloads(generic_profile: dict[str, Any]) -> None:
    reported = Device().info()["link_bytes_per_sec"]
    assert reported == pytest.approx(link_bytes_per_s(generic_profile), rel=1e-9)
    assert 7.1e9 < reported < 7.2e9


def test_qd1_read_latency_is_the_sum_of_its_stages(generic_filled: Device, generic_profile: dict[str, Any]) -> None:
    p = generic_profile
    expected_clat = read_clat_ns(p)
    assert expected_clat == pytest.approx(57_983, abs=1)  # 0.7+1.5+0.15+50+2.66+2+0.57+0.4 us
    r = generic_filled.run(qd1("randread"), host="none")
    d = direction(r, "read")
    # Every stage is idle at QD1: each read takes exactly the sum, to a ns of rounding; the
    # bare host submits in no time.
    assert d["slat_ns"]["mean"] == 0
    assert d["slat_ns"]["N"] == d["total_ios"]
    assert d["clat_ns"]["mean"] == pytest.approx(expected_clat, abs=3)
    assert d["clat_ns"]["max"] - d["clat_ns"]["min"] <= 2
    assert d["lat_ns"]["mean"] == pytest.approx(d["clat_ns"]["mean"], abs=1)
    # Back to back for 50 ms: IOPS is the inverse of the latency.
    lat_s = expected_clat / 1e9
    assert d["iops"] == pytest.approx(1 / lat_s, rel=0.005)
    assert d["total_ios"] == pytest.approx(0.05 / lat_s, abs=1)
    assert d["runtime"] == 50
    # Every read of written data went to NAND.
    assert r.groups.nand_host_read_bytes.iloc[0] >= d["io_bytes"] - 4096
    assert r.summary["mean_lat_us"][0] == pytest.approx(lat_s * 1e6, abs=0.01)
    assert r.summary["mean_slat_us"][0] == 0


def test_a_host_adds_its_submit_and_completion_paths(generic_filled: Device, generic_profile: dict[str, Any]) -> None:
    h = tomllib.loads(ssdtwin.host_toml("linux-6.1"))
    e, speed = h["engines"]["libaio"], h["cpu"]["speed_factor"]
    r = generic_filled.run(qd1("randread"))
    assert generic_filled.host == "linux-6.1" == ssdtwin.DEFAULT_HOST
    d = direction(r, "read")
    # fio's slat: its own preparation, then io_submit through blk-mq to the doorbell.
    slat = (h["fio"]["prep_ns"] + e["submit_call_ns"] + e["submit_io_ns"] + h["block"]["submit_ns"]) / speed
    assert d["slat_ns"]["mean"] == pytest.approx(slat, abs=1)
    # clat: the drive, the interrupt, waking the thread blocked in io_getevents, the call's return.
    after = h["kernel"]["irq_ns"] + h["block"]["complete_ns"] + e["complete_io_ns"] + h["kernel"]["wakeup_ns"]
    after += e["reap_call_ns"] + e["reap_io_ns"]
    assert d["clat_ns"]["mean"] == pytest.approx(read_clat_ns(generic_profile) + after / speed, abs=3)
    # One sleep per I/O; the CPU shares are the costs over the time per I/O.
    job = r.json["jobs"][0]
    assert abs(job["ctx"] - d["total_ios"]) <= 1
    per_io_s = d["lat_ns"]["mean"] / 1e9 + h["fio"]["complete_ns"] / speed / 1e9
    usr = (h["fio"]["prep_ns"] + h["fio"]["complete_ns"]) / speed / 1e9 / per_io_s * 100
    assert job["usr_cpu"] == pytest.approx(usr, rel=0.02)


def test_psync_has_no_submission_phase_and_caps_the_depth_at_one(
    generic_filled: Device, generic_profile: dict[str, Any]
) -> None:
    job = qd1("randread", engine="psync", runtime="20ms") | {"iodepth": 32}
    r = generic_filled.run(job, host="none")
    d = direction(r, "read")
    # fio reports slat N=0 for sync engines.
    assert d["slat_ns"]["N"] == 0
    assert d["clat_ns"]["mean"] == pytest.approx(read_clat_ns(generic_profile), abs=3)
    lat_s = d["clat_ns"]["mean"] / 1e9
    assert d["iops"] == pytest.approx(1 / lat_s, rel=0.01), "iodepth=32 must be capped at 1 for psync"
    assert r.json["jobs"][0]["iodepth_level"]["2"] == 0.0


def test_qd1_write_is_acknowledged_from_the_buffer(generic_filled: Device, generic_profile: dict[str, Any]) -> None:
    d = direction(generic_filled.run(qd1("randwrite"), host="none"), "write")
    assert d["clat_ns"]["mean"] == pytest.approx(write_clat_ns(generic_profile), abs=3)
    assert d["clat_ns"]["mean"] == pytest.approx(3_823, abs=1)


def test_reads_of_unwritten_lbas_never_touch_nand(generic_profile: dict[str, Any]) -> None:
    dev = Device(host="none")
    r = dev.run(qd1("randread", runtime="20ms"))
    d = direction(r, "read")
    assert d["clat_ns"]["mean"] == pytest.approx(unmapped_read_clat_ns(generic_profile), abs=3)
    c = dev.counters()
    assert c["nand_host_read_bytes"] == 0
    assert c["unmapped_units_read"] >= d["total_ios"]


def test_queue_depth_raises_random_read_iops(generic_filled: Device) -> None:
    one = direction(generic_filled.run(qd1("randread", runtime="20ms")), "read")["iops"]
    deep = direction(generic_filled.run(qd1("randread", runtime="20ms") | {"iodepth": 32}), "read")["iops"]
    # 32 dies: 32 reads in flight overlap on different dies (not perfectly: collisions).
    assert deep > 10 * one


# ---- building devices ---------------------------------------------------------------------


def test_default_device_is_the_shipped_1tb_drive() -> None:
    dev = Device()
    info = dev.info()
    assert dev.profile_name == ssdtwin.DEFAULT_PROFILE == "generic-tlc-1tb"
    assert info["capacity_bytes"] == 1_000_204_886_016
    assert (info["channels"], info["dies"], info["cell"], info["lba_bytes"]) == (8, 32, "tlc", 512)
    assert info["raw_bytes"] == 32 * 2 * 910 * 1152 * 16384
    assert info["is_quiet"] is True
    assert dev.now_s == 0.0
    assert repr(dev) == (
        "Device(profile='generic-tlc-1tb', model='ssdtwin Generic TLC 1TB', capacity_bytes=1000204886016, now_ns=0)"
    )


def test_overrides_by_dict_and_by_keyword(small: dict[str, object]) -> None:
    assert Device(overrides={"nand.channels": 16}).info()["channels"] == 16
    by_keyword = Device(nand__channels=4, nand__dies_per_channel=8)
    assert (by_keyword.info()["channels"], by_keyword.info()["dies"]) == (4, 32)
    assert tomllib.loads(by_keyword.profile_toml)["nand"]["dies_per_channel"] == 8
    # A keyword wins over the same field in the dict.
    assert Device(overrides={"nand.channels": 4}, nand__channels=16).info()["channels"] == 16
    # The shipped profile fixes the capacity: half the NAND cannot hold it.
    with pytest.raises(ProfileError, match=r"identity\.capacity_bytes = 1000204886016: the namespace may hold at most"):
        Device(overrides={"nand.channels": 4})
    tiny = Device(overrides=small).info()
    assert tiny["capacity_bytes"] == small["identity.capacity_bytes"] == 72 << 20
    assert tiny["raw_bytes"] == 64 * 2 * 2 * 2 * 12 * 16384


def test_a_profile_file_builds_the_same_device(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(ssdtwin.profile_toml("generic-tlc-1tb", {"nand.channels": 16}))
    dev = Device(path)
    assert dev.profile_name == "mine"
    assert dev.info()["channels"] == 16
    assert dev.profile_toml == path.read_text()


def test_profiles_and_profile_toml() -> None:
    assert ssdtwin.profiles()[:9] == [
        "generic-tlc-1tb",
        "p32a80",
        "crucial-p1",
        "wd-black-256",
        "micron-9200max",
        "iodrive2-1200",
        "intel-910-400",
        "generic-fdp-960g",
        "generic-zns-966g",
    ]
    # Then the library, built from its sheets, by name.
    library = ssdtwin.profiles()[9:]
    assert library == sorted(library) and "samsung-980-pro-1tb" in library
    changes = {"nand.channels": 16, "nand.scheduler": "fifo", "nand.suspend": "none"}
    text = ssdtwin.profile_toml("generic-tlc-1tb", changes)
    parsed = tomllib.loads(text)
    assert parsed["nand"]["channels"] == 16
    assert parsed["nand"]["scheduler"] == "fifo"
    assert text == Device(overrides=changes).profile_toml


def test_profile_toml_validates_values() -> None:
    # The combination parses as TOML but cannot build a device.
    with pytest.raises(ProfileError, match=r"nand\.suspend = \"program-erase\": suspend needs scheduler"):
        ssdtwin.profile_toml("generic-tlc-1tb", {"nand.scheduler": "fifo"})


def test_version_is_the_package_version() -> None:
    assert ssdtwin.__version__ == importlib.metadata.version("ssdtwin")
    assert ssdtwin.__version__.count(".") == 2


def test_public_names() -> None:
    assert sorted(ssdtwin.__all__) == sorted(
        [
            "DEFAULT_HOST",
            "DEFAULT_PROFILE",
            "Device",
            "DeviceError",
            "JobError",
            "Pool",
            "PoolError",
            "PoolFullError",
            "PoolUnavailableError",
            "ProbeError",
            "ProfileError",
            "RunResult",
            "SsdtwinError",
            "StateError",
            "TraceError",
            "__version__",
            "convert_trace",
            "disks",
            "host_toml",
            "hosts",
            "pools",
            "profile_derived",
            "profile_toml",
            "profiles",
        ]
    )
    for name in ssdtwin.__all__:
        assert hasattr(ssdtwin, name), name


# ---- every form of job ----------------------------------------------------------------------

JOB_ARGS = ["--name=j", "--rw=randread", "--bs=4k", "--iodepth=4", "--ioengine=libaio", "--size=8m", "--runtime=5ms"]
JOB_TEXT = "[j]\nrw=randread\nbs=4k\niodepth=4\nioengine=libaio\nsize=8m\nruntime=5ms\n"
JOB_DICT = {
    "name": "j",
    "rw": "randread",
    "bs": "4k",
    "iodepth": 4,
    "ioengine": "libaio",
    "size": "8m",
    "runtime": "5ms",
}


def reads_of(dev_factory: Any, job: Any) -> dict[str, Any]:
    r = dev_factory().run(job, seed=7)
    assert [j["jobname"] for j in r.json["jobs"]] == ["j"]
    return direction(r, "read")


@pytest.mark.parametrize(
    "form",
    ["args", "tuple", "text", "file str", "file Path", "flat dict", "nested dict", "nested dict with global"],
)
def test_every_job_form_runs_the_same_job(form: str, small: dict[str, object], tmp_path: Path) -> None:
    def factory() -> Device:
        dev = Device(overrides=small)
        dev.fill("seq", 50)
        return dev

    job_file = tmp_path / "j.fio"
    job_file.write_text(JOB_TEXT)
    options = {k: v for k, v in JOB_DICT.items() if k != "name"}
    job: Any = {
        "args": JOB_ARGS,
        "tuple": tuple(JOB_ARGS),
        "text": JOB_TEXT,
        "file str": str(job_file),
        "file Path": job_file,
        "flat dict": JOB_DICT,
        "nested dict": {"j": options},
        "nested dict with global": {"global": {"bs": "4k", "size": "8m"}, "j": options},
    }[form]
    reference = reads_of(factory, JOB_ARGS)
    assert reference["total_ios"] > 100
    assert reads_of(factory, job) == reference


def test_a_nested_dict_runs_several_jobs_with_global_options(small_device: Device) -> None:
    r = small_device.run(
        {
            "global": {"bs": "4k", "size": "4m", "runtime": "2ms", "ioengine": "libaio"},
            "reader": {"rw": "randread", "iodepth": 2},
            "writer": {"rw": "randwrite", "offset": "8m"},
        }
    )
    assert r.json["global options"] == {"bs": "4k", "size": "4m", "runtime": "2ms", "ioengine": "libaio"}
    assert [j["jobname"] for j in r.json["jobs"]] == ["reader", "writer"]
    assert r.json["jobs"][0]["job options"] == {"name": "reader", "rw": "randread", "iodepth": "2"}
    assert r.json["jobs"][1]["job options"] == {"name": "writer", "rw": "randwrite", "offset": "8m"}
    assert direction(r, "read", 0)["total_ios"] > 0 and direction(r, "write", 0)["total_ios"] == 0
    assert direction(r, "write", 1)["total_ios"] > 0 and direction(r, "read", 1)["total_ios"] == 0
    assert list(r.summary["name"]) == ["reader", "writer"]


def test_flags_true_are_bare_and_false_or_none_are_left_out(small_device: Device) -> None:
    job = {"rw": "read", "size": "1m", "bs": "64k", "time_based": True, "runtime": "1ms", "norandommap": False}
    r = small_device.run(job | {"group_reporting": None})
    # fio omits bare flags from "job options".
    assert r.json["jobs"][0]["job options"] == {
        "name": "job",
        "rw": "read",
        "size": "1m",
        "bs": "64k",
        "runtime": "1ms",
    }
    assert direction(r, "read")["runtime"] == 1  # time_based: the full millisecond


# ---- fill, save, load ---------------------------------------------------------------------------

MIX = {
    "rw": "randrw",
    "bs": "4k",
    "iodepth": 16,
    "ioengine": "libaio",
    "size": "32m",
    "runtime": "10ms",
    "time_based": True,
}


def test_fill_writes_what_it_says(small_device: Device, small: dict[str, object]) -> None:
    capacity = small_device.info()["capacity_bytes"]
    small_device.fill("seq", 25)
    c = small_device.counters()
    assert c["host_write_bytes"] == capacity // 4
    assert c["time_ns"] == 0 and small_device.now_s == 0.0, "fill simulates no time"
    small_device.fill("random", 100, overwrite_passes=2, seed=3)
    c = small_device.counters()
    assert c["host_write_bytes"] == pytest.approx(capacity // 4 + 3 * capacity, rel=0.01)
    assert c["gc_jobs"] > 0 and c["erases"] > 0
    assert c["nand_write_bytes"] > c["host_write_bytes"], "GC copies add NAND writes"


def round_trip(small: dict[str, object], tmp_path: Path, fill: Any, job: dict[str, object]) -> tuple[Any, Any]:
    """Runs ``job`` on a filled device and on its saved and reloaded copy."""
    state = tmp_path / "dev.state"
    original = Device(overrides=small)
    fill(original)
    original.save(state)
    loaded = Device.load(state)
    assert loaded.profile_name == original.profile_name
    assert loaded.profile_toml == original.profile_toml
    assert loaded.counters() == original.counters()
    a = original.run(job, seed=5)
    b = loaded.run(job, seed=5)
    return a, b


@pytest.mark.parametrize("rw", ["randrw", "randread", "randwrite"])
def test_state_round_trip_gives_identical_results(small: dict[str, object], tmp_path: Path, rw: str) -> None:
    a, b = round_trip(small, tmp_path, lambda d: d.fill("seq", 50), MIX | {"rw": rw})
    assert a.json["jobs"] == b.json["jobs"]
    assert a.groups.equals(b.groups)
    assert a.series.drop(columns=["time_s", "time_ns"]).equals(b.series.drop(columns=["time_s", "time_ns"]))
    # A second load from the same file is the same device again.
    again = Device.load(str(tmp_path / "dev.state")).run(MIX | {"rw": rw}, seed=5)
    assert again.json["jobs"] == a.json["jobs"]


@pytest.mark.parametrize("fill", ["seq 10%", "random 80%"])
def test_state_round_trip_after_any_fill_gives_identical_results(
    small: dict[str, object], tmp_path: Path, fill: str
) -> None:
    fills = {"seq 10%": lambda d: d.fill("seq", 10), "random 80%": lambda d: d.fill("random", 80, seed=11)}
    a, b = round_trip(small, tmp_path, fills[fill], MIX)
    assert a.json["jobs"] == b.json["jobs"]


@pytest.mark.parametrize("rw", ["randrw", "randwrite"])
def test_a_copy_runs_as_the_original_and_leaves_it_alone(small: dict[str, object], rw: str) -> None:
    original = Device(overrides=small)
    original.fill("random", 80, seed=11)
    original.run(MIX | {"rw": "randwrite"}, seed=3)  # GC and caches busy: the copy must carry them
    copy = original.copy()
    assert copy.counters() == original.counters() and copy.now_s == original.now_s
    a = copy.run(MIX | {"rw": rw}, seed=5)
    assert copy.counters()["host_write_cmds"] > original.counters()["host_write_cmds"]
    b = original.run(MIX | {"rw": rw}, seed=5)
    assert a.json["jobs"] == b.json["jobs"]
    assert a.series.equals(b.series)


def test_fill_reports_progress_and_stops_when_asked(small: dict[str, object]) -> None:
    dev = Device(overrides=small)
    units = dev.info()["capacity_bytes"] // 4096
    seen: list[tuple[int, int]] = []
    dev.fill("random", 100, overwrite_passes=1.0, progress=lambda done, total: seen.append((done, total)))
    # A random fill counts its sequential pass and its overwrites: twice the span here.
    assert seen[0] == (0, 2 * units) and seen[-1] == (2 * units, 2 * units)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    stopped = Device(overrides=small)
    with pytest.raises(KeyboardInterrupt):
        stopped.fill("seq", 100, progress=lambda done, total: done > 0)  # stops at the first report


def test_save_refuses_to_overwrite(small_device: Device, tmp_path: Path) -> None:
    state = tmp_path / "dev.state"
    state.write_bytes(b"precious")
    with pytest.raises(FileExistsError) as e:
        small_device.save(state)
    assert str(e.value) == f"{state} exists; pass overwrite=True to replace it"
    assert state.read_bytes() == b"precious"
    small_device.fill("seq", 10)
    small_device.save(state, overwrite=True)
    assert state.read_bytes()[:8] == b"SSDTWIN\0"
    assert Device.load(state).counters()["host_write_bytes"] == small_device.counters()["host_write_bytes"]


def test_save_finishes_pending_work_and_the_restored_clock_starts_at_zero(small_device: Device, tmp_path: Path) -> None:
    small_device.fill("seq", 50)
    small_device.run(MIX | {"rw": "randwrite"})
    assert small_device.now_s > 0
    assert small_device.info()["is_quiet"] is False
    assert small_device.counters()["write_buffer_bytes"] > 0
    small_device.save(tmp_path / "s")
    # Saving quiesced the drive: the buffer went to NAND, its last program unit padded.
    assert small_device.info()["is_quiet"] is True
    c = small_device.counters()
    assert c["write_buffer_bytes"] == 0
    assert c["nand_write_bytes"] == c["host_write_bytes"] + c["nand_padding_bytes"] + 4096 * c["gc_units_moved"]
    loaded = Device.load(tmp_path / "s")
    assert loaded.now_s == 0.0
    restored = loaded.counters()
    for key in ("host_write_bytes", "host_write_cmds", "nand_write_bytes", "nand_padding_bytes", "gc_jobs", "erases"):
        assert restored[key] == c[key], key


def test_a_saved_state_keeps_every_counter(small_device: Device, tmp_path: Path) -> None:
    small_device.fill("seq", 50)
    small_device.run(MIX)
    small_device.save(tmp_path / "s")
    before = small_device.counters()
    assert before["suspensions"] > 0
    after = Device.load(tmp_path / "s").counters()
    # The clock restarts, and the drive comes back at ambient temperature, unthrottled, in
    # power state 0, drawing idle power: those levels describe the moment, not the history.
    now = {"time_ns", "temperature_mk", "power_mw", "throttle_level", "power_state"}
    assert after["temperature_mk"] == 298_150 and after["throttle_level"] == 0
    assert {k: v for k, v in after.items() if k not in now} == {k: v for k, v in before.items() if k not in now}


# ---- format, idle, counters -----------------------------------------------------------------------


def test_format_unmaps_everything(small_device: Device) -> None:
    small_device.fill("seq", 100)
    read = {"rw": "randread", "bs": "4k", "size": "16m", "runtime": "2ms", "ioengine": "libaio", "iodepth": 4}
    before = small_device.counters()
    small_device.run(read)
    mid = small_device.counters()
    assert mid["nand_host_read_bytes"] > before["nand_host_read_bytes"]
    small_device.format()
    assert small_device.info()["lba_bytes"] == 512
    r = small_device.run(read)
    after = small_device.counters()
    assert after["nand_host_read_bytes"] == mid["nand_host_read_bytes"], "reads after a format hit no NAND"
    assert after["unmapped_units_read"] - mid["unmapped_units_read"] >= direction(r, "read")["total_ios"]


def test_format_switches_the_lba_format(small_device: Device) -> None:
    dev = small_device
    dev.format(1)
    assert (dev.info()["lba_bytes"], dev.info()["lba_format"]) == (4096, 1)
    with pytest.raises(DeviceError, match=r"^LBA format 2 does not exist; the namespace has 2 \(0 to 1\)$"):
        dev.format(2)
    # With 4 KiB LBAs a 512-byte I/O cannot be addressed.
    with pytest.raises(JobError, match=r"^job 'job': "):
        dev.run({"rw": "randread", "bs": "512", "size": "1m", "runtime": "1ms"})


def test_idle_advances_the_clock_and_lets_background_work_finish(small_device: Device) -> None:
    small_device.fill("seq", 100)
    small_device.run({"rw": "randwrite", "bs": "4k", "iodepth": 32, "ioengine": "libaio", "io_size": "24m"})
    busy = small_device.counters()
    start = small_device.now_s
    small_device.idle(0.5)
    assert small_device.now_s == pytest.approx(start + 0.5, abs=1e-9)
    idle = small_device.counters()
    assert idle["time_ns"] == small_device.now_s * 1e9
    # The host wrote nothing more; the buffer drained to NAND and GC refilled the reserve.
    assert idle["host_write_bytes"] == busy["host_write_bytes"]
    assert idle["write_buffer_bytes"] < busy["write_buffer_bytes"] or busy["write_buffer_bytes"] == 0
    assert idle["nand_write_bytes"] >= busy["nand_write_bytes"]
    assert idle["free_superblocks"] >= 4
    small_device.idle(0)
    assert small_device.now_s == pytest.approx(start + 0.5, abs=1e-9)


COUNTERS = {
    "time_ns",
    "host_read_bytes",
    "host_write_bytes",
    "host_trim_bytes",
    "host_read_cmds",
    "host_write_cmds",
    "host_flush_cmds",
    "nand_host_read_bytes",
    "nand_gc_read_bytes",
    "nand_write_bytes",
    "nand_slc_write_bytes",
    "nand_native_write_bytes",
    "nand_padding_bytes",
    "gc_units_moved",
    "gc_jobs",
    "erases",
    "free_superblocks",
    "unmapped_units_read",
    "unmapped_read_bytes",
    "buffered_units_read",
    "write_stalls",
    "suspensions",
    "write_buffer_bytes",
    "verify_errors",
    "map_lookups",
    "map_sram_hits",
    "map_hmb_hits",
    "map_hmb_updates",
    "map_hmb_fills",
    "map_hmb_invalidations",
    "map_misses",
    "map_loads",
    "nand_map_read_bytes",
    "nand_map_write_bytes",
    "map_updates_at_risk",
    "map_updates_at_risk_peak",
    "host_slc_write_bytes",
    "slc_cached_bytes",
    "slc_superblocks",
    "folded_bytes",
    "fold_jobs",
    "nand_rmw_read_bytes",
    "nand_read_retries",
    "partial_units_written",
    "slc_erases",
    "block_erases",
    "bad_blocks",
    "spare_blocks",
    "retired_superblocks",
    "block_pe_cycles_max",
    "life_used_ppm",
    "life_programmed_ppb",
    "wl_jobs",
    "wl_moved_bytes",
    "temperature_mk",
    "power_mw",
    "energy_mj",
    "throttle_level",
    "throttled_ns",
    "warning_temp_ns",
    "critical_temp_ns",
    "tmt1_ns",
    "tmt2_ns",
    "tmt1_transitions",
    "tmt2_transitions",
    "power_state",
    "apst_transitions",
    "apst_wakeups",
    "controller_busy_ns",
    "media_errors",
}


def test_counters_account_for_host_io(small_device: Device) -> None:
    c0 = small_device.counters()
    assert set(c0) == COUNTERS
    assert all(isinstance(v, int) for v in c0.values())
    assert c0["free_superblocks"] == 64
    # A new drive sits at ambient temperature (25 °C) drawing its idle power (1.5 W).
    assert (c0["temperature_mk"], c0["power_mw"]) == (298_150, 1_500)
    levels = {"free_superblocks", "temperature_mk", "power_mw"}
    assert all(v == 0 for k, v in c0.items() if k not in levels)
    r = small_device.run({"rw": "write", "bs": "128k", "size": "8m", "iodepth": 8, "ioengine": "libaio"})
    small_device.quiesce()
    c1 = small_device.counters()
    w = direction(r, "write")
    assert w["io_bytes"] == 8 << 20 and w["total_ios"] == 64
    assert c1["host_write_bytes"] == 8 << 20
    assert c1["host_write_cmds"] == 64
    # Quiet: everything is on NAND, native TLC, plus any padding of a partial program unit.
    assert c1["write_buffer_bytes"] == 0
    assert c1["nand_write_bytes"] == c1["host_write_bytes"] + c1["nand_padding_bytes"]
    assert c1["nand_native_write_bytes"] == c1["nand_write_bytes"]
    assert c1["free_superblocks"] < 64


def test_trim_is_counted_and_unmaps(small_device: Device) -> None:
    small_device.fill("seq", 100)
    r = small_device.run({"rw": "trim", "bs": "1m", "size": "8m", "ioengine": "libaio", "iodepth": 4})
    assert direction(r, "trim")["io_bytes"] == 8 << 20
    assert small_device.counters()["host_trim_bytes"] == 8 << 20
    before = small_device.counters()
    small_device.run({"rw": "read", "bs": "4k", "size": "8m", "ioengine": "libaio", "iodepth": 4})
    after = small_device.counters()
    assert after["nand_host_read_bytes"] == before["nand_host_read_bytes"]
    assert after["unmapped_units_read"] - before["unmapped_units_read"] == 2048


# ---- RunResult --------------------------------------------------------------------------------------

SUMMARY_COLUMNS = [
    "job",
    "clone",
    "name",
    "groupid",
    "rw",
    "direction",
    "io_bytes",
    "ios",
    "runtime_s",
    "iops",
    "bw_mb_per_s",
    "mean_lat_us",
    "p50_lat_us",
    "p99_lat_us",
    "p999_lat_us",
    "p9999_lat_us",
    "max_lat_us",
    "mean_slat_us",
]


@pytest.fixture
def mixed(small_device: Device) -> RunResult:
    small_device.fill("seq", 60)
    return small_device.run(
        {
            "rw": "randrw",
            "rwmixread": 70,
            "bs": "4k",
            "iodepth": 8,
            "ioengine": "libaio",
            "size": "16m",
            "numjobs": 2,
            "runtime": "20ms",
            "ramp_time": "5ms",
            "time_based": True,
        },
        series_window_ms=5,
    )


def test_summary_is_tidy_and_agrees_with_the_json(mixed: RunResult) -> None:
    s = mixed.summary
    assert isinstance(s, pd.DataFrame)
    assert list(s.columns) == SUMMARY_COLUMNS
    assert (s["rw"] == "randrw").all()
    assert list(zip(s["clone"], s["direction"], strict=True)) == [(0, "read"), (0, "write"), (1, "read"), (1, "write")]
    for row in s.itertuples():
        d = direction(mixed, str(row.direction), int(row.clone))
        assert row.ios == d["total_ios"] > 0
        assert row.io_bytes == d["io_bytes"] == 4096 * row.ios
        assert row.runtime_s == pytest.approx(0.020)
        assert row.iops == pytest.approx(row.ios / row.runtime_s)
        assert row.bw_mb_per_s == pytest.approx(row.io_bytes / row.runtime_s / 1e6)
        assert row.mean_lat_us == pytest.approx(d["lat_ns"]["mean"] / 1e3)
        assert row.max_lat_us == pytest.approx(d["lat_ns"]["max"] / 1e3)
        assert row.mean_slat_us == pytest.approx(d["slat_ns"]["mean"] / 1e3)
        assert row.p50_lat_us <= row.p99_lat_us <= row.p999_lat_us <= row.p9999_lat_us
        # Percentiles are fio's histogram midpoints: within 1/64 of the true value.
        assert row.p9999_lat_us <= row.max_lat_us * (1 + 1 / 64)
    reads = s[s.direction == "read"].ios.sum()
    assert reads / s.ios.sum() == pytest.approx(0.70, abs=0.04)


def test_latency_percentiles_are_those_of_total_latency(mixed: RunResult) -> None:
    """The summary's percentiles are read from total latency's own histogram (fio's
    ``lat_percentiles``), so they agree with fio's lat percentiles and never fall below the
    fastest I/O or above the slowest by more than a bucket."""
    for row in mixed.summary.itertuples():
        d = direction(mixed, str(row.direction), int(row.clone))
        bucket = 1 + 1 / 64
        assert d["lat_ns"]["min"] / 1e3 / bucket <= row.p50_lat_us <= row.p99_lat_us
        assert row.p99_lat_us <= d["lat_ns"]["max"] / 1e3 * bucket


def test_latency_histogram_holds_every_io_in_fio_buckets(mixed: RunResult) -> None:
    h = mixed.latency_histogram
    assert list(h.columns) == ["direction", "lat_us", "count"]
    s = mixed.summary
    for direction_name, g in h.groupby("direction"):
        assert g["count"].sum() == s[s.direction == direction_name].ios.sum()
        assert g["lat_us"].is_monotonic_increasing
        # Its median is the summary's, read from the same buckets.
        cdf = g["count"].cumsum() / g["count"].sum()
        median = float(g["lat_us"][cdf >= 0.5].iloc[0])
        rows = s[s.direction == direction_name]
        assert rows.p50_lat_us.min() / (1 + 1 / 32) <= median <= rows.p50_lat_us.max() * (1 + 1 / 32)


def test_series_samples_counters_per_window(mixed: RunResult) -> None:
    df = mixed.series
    assert list(df.columns[:4]) == ["time_s", "time_ns", "window_s", "partial"]
    # Every window but the first row and a last one the run's end cut short is as long.
    whole = df.window_s.iloc[1:][~df.partial.iloc[1:]]
    assert whole.nunique() == 1 and (df.window_s[df.partial] < whole.iloc[0]).all()
    assert df.partial.sum() <= 1 and (not df.partial.any() or bool(df.partial.iloc[-1]))
    # The drive's counters, then the host's: CPU time of thread work and handlers, per core,
    # and the page cache's.
    per_window = [f"{d}_{m}" for d in ("read", "write") for m in WINDOW_MEASURES]
    assert list(df.columns[4 : 4 + len(per_window)]) == per_window
    drive = [c for c in df.columns[4 + len(per_window) :] if not c.startswith("host.")]
    assert set(drive) == COUNTERS - {"time_ns"}
    cores = tomllib.loads(ssdtwin.host_toml(ssdtwin.DEFAULT_HOST))["cpu"]["cores"]
    per_core = {f"host.cpu{c}.{kind}_ns" for c in range(cores) for kind in ("task", "irq")}
    page_cache = {
        f"host.{name}"
        for name in (
            "page_cache_hit_bytes",
            "page_cache_miss_bytes",
            "page_cache_read_bytes",
            "readahead_bytes",
            "writeback_bytes",
            "page_cache_evicted_bytes",
            "dirty_throttle_ns",
            "page_cache_bytes",
            "dirty_bytes",
            "under_writeback_bytes",
        )
    }
    assert set(df.columns[4 + len(per_window) + len(drive) :]) == (
        {"host.cpu_task_ns", "host.cpu_irq_ns"} | per_core | page_cache
    )
    assert (df.time_s == df.time_ns / 1e9).all()
    assert df.time_ns.is_monotonic_increasing
    # 5 ms ramp + 20 ms measured in 5 ms windows: samples at 0, 5, ..., 25 ms (and the end).
    assert df.time_ns.iloc[0] == 0
    assert (df.time_ns.diff().dropna().iloc[:-1] == 5_000_000).all()
    assert 6 <= len(df) <= 7
    for cumulative in ("host_read_bytes", "host_write_bytes", "nand_write_bytes", "host_read_cmds"):
        assert df[cumulative].is_monotonic_increasing, cumulative
        assert df[cumulative].iloc[0] == 0, cumulative  # totals count from the run's start
    assert df.host_read_bytes.iloc[-1] > 0


WINDOW_MEASURES = ("iops", "mb_per_s", "mean_lat_us", "p50_lat_us", "p99_lat_us", "p999_lat_us", "max_lat_us")


def test_series_windows_add_up_to_the_run(mixed: RunResult) -> None:
    df = mixed.series
    seconds = df.time_ns.diff() / 1e9
    # Every completion lands in one window: the windows' I/Os are the run's, ramp included;
    # the host commands the drive counted are the same I/Os (4 KiB, no splitting).
    reads = (df.read_iops * seconds).sum()
    assert reads == pytest.approx(df.host_read_cmds.iloc[-1], abs=8)
    assert ((df.read_mb_per_s * 1e6 / 4096 - df.read_iops).abs().dropna() < 1e-6).all()
    # The measured part agrees with the summary: windows 2-5 are the 20 ms after the 5 ms ramp.
    measured = df[(df.time_ns > 5_000_000) & (df.time_ns <= 25_000_000)]
    s = mixed.summary
    window_reads = (measured.read_iops * measured.time_ns.diff().fillna(5_000_000) / 1e9).sum()
    assert window_reads == pytest.approx(s[s.direction == "read"].ios.sum(), rel=0.01, abs=8)
    done = df.dropna(subset=["read_p50_lat_us"])
    assert (done.read_p50_lat_us <= done.read_p99_lat_us).all()
    assert (done.read_p99_lat_us <= done.read_p999_lat_us).all()
    assert (done.read_p999_lat_us <= done.read_max_lat_us * (1 + 1 / 64)).all()
    assert (done.read_mean_lat_us <= done.read_max_lat_us).all()
    # The first row is the run's start: nothing has completed.
    assert df[[f"read_{m}" for m in WINDOW_MEASURES]].iloc[0].isna().all()


def test_series_windows_follow_a_rate_limit(small: dict[str, object]) -> None:
    dev = Device(overrides=small)
    dev.fill("seq", 50)
    job = {"rw": "randread", "bs": "4k", "iodepth": 4, "ioengine": "libaio", "size": "8m", "rate_iops": 2000}
    df = dev.run(job | {"runtime": "50ms", "time_based": True}, series_window_ms=10).series
    assert "write_iops" not in df.columns
    # fio's rate limit spaces I/Os 0.5 ms apart: 20 in each full 10 ms window, so 2000 IOPS.
    full = df[df.time_ns.diff() == 10_000_000]
    assert len(full) >= 4
    assert ((full.read_iops - 2000).abs() <= 100).all(), full.read_iops.tolist()
    # Unqueued 4 KiB reads: each window's latency is one read's, far below the 0.5 ms spacing.
    assert (full.read_max_lat_us < 500).all()


def test_groups_report_device_activity_per_reporting_group(mixed: RunResult) -> None:
    (g,) = mixed.groups.to_dict("records")
    assert g["groupid"] == 0
    assert g["time_ns"] == 20_000_000
    ios = {d: sum(direction(mixed, d, j)["total_ios"] for j in (0, 1)) for d in ("read", "write")}
    # Counted at admission, not completion: they differ by at most the commands in flight.
    assert abs(g["host_read_cmds"] - ios["read"]) <= 16
    assert abs(g["host_write_cmds"] - ios["write"]) <= 16
    # Over 20 ms much of what the host wrote is still in the 1 MiB buffer: WA may be below 1.
    assert g["write_amplification"] == pytest.approx(g["nand_write_bytes"] / g["host_write_bytes"])
    assert 0 < g["write_amplification"] < 1.5


def test_groups_follow_stonewall(small_device: Device) -> None:
    text = "[global]\nbs=4k\nsize=4m\nioengine=libaio\n[w]\nrw=write\n[r]\nstonewall\nrw=read\n"
    r = small_device.run(text)
    assert [j["groupid"] for j in r.json["jobs"]] == [0, 1]
    assert list(r.groups.groupid) == [0, 1]
    g0, g1 = r.groups.to_dict("records")
    assert (g0["groupid"], g1["groupid"]) == (0, 1)
    assert 4 << 20 >= g0["host_write_bytes"] >= (4 << 20) - 4096 and g0["host_read_bytes"] == 0
    assert 4 << 20 >= g1["host_read_bytes"] >= (4 << 20) - 4096 and g1["host_write_bytes"] == 0
    assert math.isnan(g1["write_amplification"])  # nothing written: undefined
    assert g0["time_ns"] < g1["time_ns"], "4 MiB of reads from NAND at QD1 take longer than buffered writes"


@pytest.mark.parametrize("iodepth", [1, 8])
def test_group_counters_include_every_command(small_device: Device, iodepth: int) -> None:
    r = small_device.run({"rw": "write", "bs": "4k", "size": "4m", "ioengine": "libaio", "iodepth": iodepth})
    (g,) = r.groups.to_dict("records")
    assert direction(r, "write")["total_ios"] == 1024
    assert small_device.counters()["host_write_cmds"] == 1024
    assert g["host_write_cmds"] == 1024
    assert g["host_write_bytes"] == 4 << 20


def test_json_json_plus_and_normal(mixed: RunResult) -> None:
    report = mixed.json
    assert report["fio version"] == "fio-3.33"
    assert [j["jobname"] for j in report["jobs"]] == ["job", "job"]
    assert report["jobs"][0]["ssdtwin"]["profile"] == "generic-tlc-1tb"
    assert mixed.fio_json_text().endswith("\n  ]\n}\n")
    assert json.loads(mixed.fio_json_text()) == report
    plus = mixed.json_plus
    for d in ("read", "write"):
        clat = plus["jobs"][0][d]["clat_ns"]
        assert sum(clat["bins"].values()) == clat["N"]
        assert "bins" not in report["jobs"][0][d]["clat_ns"]
    assert json.loads(mixed.fio_json_text(plus=True)) == plus
    normal = mixed.normal
    assert normal.startswith("job: (g=0): rw=randrw, bs=(R) 4096B-4096B")
    assert "Starting 2 processes" in normal
    reads = direction(mixed, "read")
    assert f"issued rwts: total={reads['total_ios']},{direction(mixed, 'write')['total_ios']},0,0" in normal
    assert "Run status group 0 (all jobs):" in normal
    assert normal.endswith("\n")


def test_repr_lists_iops_per_direction(mixed: RunResult) -> None:
    s = mixed.summary
    expected = ", ".join(f"{r.direction} {r.iops:,.0f} IOPS" for r in s.itertuples())
    assert repr(mixed) == f"RunResult({expected})"
    assert repr(mixed).startswith("RunResult(read ")


# ---- determinism ----------------------------------------------------------------------------------


def run_mix(
    small: dict[str, object], seed: int, job: dict[str, object] = MIX, host_overrides: dict[str, object] | None = None
) -> dict[str, Any]:
    dev = Device(overrides=small, host_overrides=host_overrides)
    dev.fill("random", 80, seed=3)
    return dev.run(job, seed=seed).json


def test_same_seed_same_results_different_seed_different(small: dict[str, object]) -> None:
    a, b, c = (run_mix(small, seed) for seed in (1, 1, 2))
    assert a["jobs"] == b["jobs"]
    assert without_wall_clock(a) == without_wall_clock(b)
    assert a["jobs"] != c["jobs"]
    assert direction_of(a, "read")["total_ios"] != direction_of(c, "read")["total_ios"]


def test_randseed_in_the_job_overrides_the_run_seed(small: dict[str, object]) -> None:
    # randseed fixes the offsets; the run's seed still draws the host's wakeups, so the
    # ideal host shows that nothing else differs.
    job, ideal = MIX | {"randseed": 42}, ideal_host_overrides()
    assert run_mix(small, 1, job, ideal)["jobs"] == run_mix(small, 2, job, ideal)["jobs"]


def direction_of(report: dict[str, Any], name: str) -> dict[str, Any]:
    return report["jobs"][0][name]  # type: ignore[no-any-return]


# ---- verify mode --------------------------------------------------------------------------------------


def test_verify_mode_finds_no_errors_under_gc(small: dict[str, object]) -> None:
    dev = Device(overrides=small, verify=True)
    dev.fill("seq", 100)
    capacity = dev.info()["capacity_bytes"]
    r = dev.run(
        {
            "rw": "randrw",
            "bs": "4k",
            "iodepth": 32,
            "ioengine": "libaio",
            "io_size": str(2 * capacity),
            "norandommap": True,
        }
    )
    dev.quiesce()
    c = dev.counters()
    # Every read checked the version it returned, across GC moves and buffered data.
    assert c["gc_jobs"] > 20 and c["gc_units_moved"] > 0 and c["erases"] > 0
    assert c["write_stalls"] > 0, "a 1 MiB buffer must fill while GC runs"
    assert c["buffered_units_read"] > 0 or c["nand_host_read_bytes"] > 0
    assert c["verify_errors"] == 0
    assert direction(r, "read")["io_bytes"] + direction(r, "write")["io_bytes"] == 2 * capacity
    assert r.groups.write_amplification.iloc[0] > 1.2


def test_verify_mode_survives_a_state_round_trip(small: dict[str, object], tmp_path: Path) -> None:
    dev = Device(overrides=small, verify=True)
    dev.fill("random", 100, seed=2)
    dev.save(tmp_path / "v.state")
    loaded = Device.load(tmp_path / "v.state")
    loaded.run({"rw": "randrw", "bs": "4k", "iodepth": 16, "ioengine": "libaio", "io_size": "32m"})
    loaded.quiesce()
    assert loaded.counters()["gc_jobs"] > dev.counters()["gc_jobs"]
    assert loaded.counters()["verify_errors"] == 0


def test_a_write_larger_than_a_superblock_does_not_stall() -> None:
    # One die, one plane, 3 pages of 16 KiB per block: 48 KiB superblocks, 960 KiB namespace.
    tiny = small_overrides(channels=1, dies_per_channel=1, planes=1, blocks_per_plane=29, pages_per_block=3, op_pct=7.0)
    dev = Device(overrides=tiny)
    dev.fill("seq", 50)
    # 128 KiB writes need three 48 KiB superblocks each, more than GC's background threshold
    # keeps free: GC must collect for them, sequentially and at random.
    r = dev.run({"rw": "write", "bs": "128k", "size": "768k", "io_size": "4m"})
    assert direction(r, "write")["io_bytes"] == 4 << 20
    r = dev.run({"rw": "randwrite", "bs": "128k", "size": "768k", "io_size": "8m", "iodepth": 4, "ioengine": "libaio"})
    assert direction(r, "write")["io_bytes"] == 8 << 20
    assert dev.counters()["gc_jobs"] > 100


def test_trimwrite_trims_then_writes_the_same_blocks(small_device: Device) -> None:
    small_device.fill("seq", 100)
    r = small_device.run({"rw": "trimwrite", "bs": "16k", "size": "4m", "ioengine": "libaio", "iodepth": 4})
    trims, writes = direction(r, "trim"), direction(r, "write")
    assert trims["io_bytes"] == writes["io_bytes"] > 0
    assert trims["total_ios"] == writes["total_ios"] == trims["io_bytes"] // 16384
    assert direction(r, "read")["total_ios"] == 0
    assert small_device.counters()["host_trim_bytes"] == trims["io_bytes"]


def test_trimwrite_trims_and_writes_the_whole_region(small_device: Device) -> None:
    small_device.fill("seq", 100)
    r = small_device.run({"rw": "trimwrite", "bs": "16k", "size": "4m", "ioengine": "libaio", "iodepth": 4})
    assert direction(r, "trim")["io_bytes"] == direction(r, "write")["io_bytes"] == 4 << 20
    r = small_device.run({"rw": "trimwrite", "bs": "16k", "size": "4m", "ioengine": "libaio", "number_ios": 10})
    assert direction(r, "trim")["total_ios"] == direction(r, "write")["total_ios"] == 10


def test_trimwrite_writes_in_the_write_block_size(small_device: Device) -> None:
    small_device.fill("seq", 100)
    r = small_device.run({"rw": "trimwrite", "bs": "4k,8k,16k", "size": "4m", "ioengine": "libaio"})
    trims, writes = direction(r, "trim"), direction(r, "write")
    assert trims["total_ios"] == 256
    assert writes["io_bytes"] == 8192 * writes["total_ios"]
    assert writes["total_ios"] == 2 * trims["total_ios"]


# ---- progress ------------------------------------------------------------------------------------------

LONG_READ = {"rw": "randread", "bs": "4k", "iodepth": 16, "ioengine": "libaio", "size": "16m", "runtime": "1s"}


def test_progress_is_reported_and_can_stop_a_run(small_device: Device) -> None:
    small_device.fill("seq", 50)
    calls: list[tuple[int, int | None, int, int | None]] = []

    def record(elapsed_ns: int, expected_ns: int | None, done: int, expected: int | None) -> bool:
        calls.append((elapsed_ns, expected_ns, done, expected))
        return True

    small_device.run(LONG_READ | {"time_based": True}, progress=record)
    assert calls, "a run of ~80k I/Os reports progress (about every 65536 events)"
    for elapsed_ns, expected_ns, done, _ in calls:
        assert expected_ns == 1_000_000_000
        assert 0 < elapsed_ns <= expected_ns
        assert done > 0 and done % 4096 == 0
    with pytest.raises(KeyboardInterrupt, match=r"^interrupted$"):
        small_device.run(LONG_READ | {"time_based": True}, progress=lambda *_: False)


def test_an_exception_in_the_progress_callback_propagates(small_device: Device) -> None:
    small_device.fill("seq", 50)

    def boom(*_: object) -> bool:
        raise ValueError("boom")

    with pytest.raises(ValueError, match=r"^boom$"):
        small_device.run(LONG_READ | {"time_based": True}, progress=boom)
    # The device is still usable afterwards.
    assert small_device.run(qd1("randread", runtime="1ms") | {"size": "1m"}).json["jobs"][0]["error"] == 0


def test_a_series_window_must_be_positive(small_device: Device) -> None:
    for window in (0, -1, math.nan):
        with pytest.raises(DeviceError, match=r"^series window .* ms: must be positive$"):
            small_device.run(qd1("read", runtime="1ms"), series_window_ms=window)


def test_a_last_window_cut_short_is_marked_partial_and_its_rates_are_per_its_own_length() -> None:
    job = ["--name=r", "--rw=randread", "--size=64m", "--runtime=1250ms", "--time_based"]
    df = Device(host="none").run(job, series_window_ms=500).series
    # The run ends with its last I/O, a few ns past the runtime.
    assert list(df.window_s) == pytest.approx([0.0, 0.5, 0.5, 0.25], abs=1e-6)
    assert list(df.partial) == [False, False, False, True]
    # Rates over the window's own length: the short window is no spike (QD1 reads on an
    # idle drive complete at one steady rate).
    assert df.read_iops.iloc[3] == pytest.approx(df.read_iops.iloc[1], rel=0.01)
