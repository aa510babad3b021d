"""ssdtwin.errors: the hierarchy, and every user-facing error with its class and exact text
(the Rust Display text, unchanged, on one line)."""

from __future__ import annotations

import contextlib
import io
import struct
import tomllib
from pathlib import Path

import pytest
import ssdtwin
from ssdtwin import (
    Device,
    DeviceError,
    JobError,
    ProbeError,
    ProfileError,
    SsdtwinError,
    StateError,
    TraceError,
    errors,
    profile_toml,
)
from ssdtwin.cli import main

# ---- the hierarchy ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [ProfileError, JobError, TraceError, StateError, DeviceError, ProbeError])
def test_every_error_is_an_ssdtwin_error_and_a_value_error(cls: type[Exception]) -> None:
    assert issubclass(cls, SsdtwinError)
    assert issubclass(cls, ValueError)
    assert cls.__doc__
    assert getattr(ssdtwin, cls.__name__) is cls


def test_the_root_is_not_a_value_error() -> None:
    assert issubclass(SsdtwinError, Exception)
    assert not issubclass(SsdtwinError, ValueError)
    assert sorted(errors.__all__) == sorted(
        [
            "DeviceError",
            "JobError",
            "PoolError",
            "PoolFullError",
            "PoolUnavailableError",
            "ProbeError",
            "ProfileError",
            "SsdtwinError",
            "StateError",
            "TraceError",
        ]
    )


def raised(fn: object, *args: object, **kwargs: object) -> BaseException:
    """The exception ``fn(*args, **kwargs)`` raises (failing if it returns)."""
    with pytest.raises(BaseException) as e:
        fn(*args, **kwargs)  # type: ignore[operator]
    assert "\n" not in str(e.value), "messages are one line"
    return e.value


# ---- profiles ------------------------------------------------------------------------------------


def test_unknown_profile() -> None:
    e = raised(Device, "no-such-drive")
    assert type(e) is ProfileError
    assert (
        str(e) == "profile 'no-such-drive' is neither a shipped profile "
        f"({', '.join(ssdtwin.profiles())}) nor a readable TOML file"
    )


def test_value_out_of_range() -> None:
    e = raised(Device, overrides={"nand.dies_per_channel": 0})
    assert type(e) is ProfileError
    assert str(e) == "shipped:generic-tlc-1tb: nand.dies_per_channel = 0: allowed 1 to 64"


def test_unknown_field_names_the_section() -> None:
    e = raised(Device, nand__chanels=4)
    assert type(e) is ProfileError
    assert str(e).startswith("shipped:generic-tlc-1tb: [nand]: unknown field `chanels`, expected one of `cell`, ")


def test_malformed_override() -> None:
    e = raised(Device, overrides={"nand": 4})
    assert type(e) is ProfileError
    assert str(e) == "override 'nand=4': expected section.field=value"


def test_wrong_type() -> None:
    e = raised(Device, overrides={"nand.channels": "eight"})
    assert type(e) is ProfileError
    assert str(e).startswith("shipped:generic-tlc-1tb: ")
    assert "channels" in str(e)


def test_a_value_python_cannot_express_in_toml() -> None:
    e = raised(Device, overrides={"nand.channels": object()})
    assert type(e) is TypeError
    assert str(e).startswith("cannot express <object object at ")


def test_profile_file_errors_name_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(ssdtwin.profile_toml("generic-tlc-1tb").replace("channels = 8", "channels = [8"))
    e = raised(Device, bad)
    assert type(e) is ProfileError
    assert str(e).startswith(f"{bad}: line ")


# ---- jobs ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dev() -> Device:
    return Device()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--name=a", "--write_barrier=1"],
            "command line: fio option 'write_barrier' is not supported by ssdtwin; barrier writes and sync_file_range "
            "are not modelled; use fsync=, fdatasync= or sync=1",
        ),
        (
            ["--name=a", "--iodepht=4"],
            "command line: fio option 'iodepht' is not supported by ssdtwin; did you mean 'iodepth'?",
        ),
        (
            ["--name=a", "--output-format=json"],
            "command line: fio option 'output-format' is not supported by ssdtwin; it is a fio program option, not a "
            "job option: give it to the ssdtwin fio command",
        ),
        (
            ["--name=a", "--zonemode=zbd", "--max_open_zones=5000"],
            "command line: max_open_zones=5000: 'max_open_zones' value is larger than 4096",
        ),
        (
            ["--name=a", "--bs=4q"],
            "command line: bs=4q: expected a whole number of bytes with an optional suffix k, m, g, t, p "
            "(kb_base=1024), e.g. 4k",
        ),
        (["--name=a", "--iodepth=0"], "command line: iodepth=0: allowed 1..=65536"),
        (
            ["--name=a", "--rw=randread:0"],
            "command line: rw=randread:0: '0': a random pattern's modifier counts I/Os per random offset, 1 or more",
        ),
        (
            ["--name=a", "--direct=2"],
            "command line: direct=2: expected 0 or 1 (fio does not accept true/false or yes/no)",
        ),
        ([], "command line: no jobs defined"),
        (["--rw=read"], "command line: no jobs defined"),
        (
            ["--name=a", "--size=2t"],
            "job 'a': region of clone 0 ends at byte 2199023255552, beyond the namespace (1000204886016 bytes); reduce "
            "size or offset",
        ),
    ],
)
def test_job_errors(dev: Device, args: list[str], message: str) -> None:
    e = raised(dev.run, args)
    assert type(e) is JobError
    assert str(e) == message


def test_job_errors_surface_before_anything_runs(dev: Device) -> None:
    before = dev.counters()
    raised(dev.run, ["--name=a", "--rw=write", "--size=1m", "--name=b", "--bs=4q"])
    assert dev.counters() == before
    assert dev.now_s == 0.0


# ---- device operations ---------------------------------------------------------------------------------


def test_huge_or_endless_amounts_are_refused(dev: Device) -> None:
    # Each of these ran for ever before (simulated time saturated, or an endless fill).
    e = raised(dev.idle, 1e300)
    assert (type(e), str(e)) == (DeviceError, "idle time 1e300: at most 1e9 seconds (about 31 years) at a time")
    for passes, shown in ((float("inf"), "inf"), (float("nan"), "NaN"), (-1, "-1"), (101, "101")):
        e = raised(dev.fill, "random", 50, overwrite_passes=passes)
        assert (type(e), str(e)) == (DeviceError, f"overwrite passes {shown}: allowed 0 to 100 (times the filled span)")
    assert dev.now_s == 0.0


def test_fill_errors(dev: Device) -> None:
    e = raised(dev.fill, "zigzag")
    assert (type(e), str(e)) == (DeviceError, "fill pattern 'zigzag': allowed seq, random, steady, overwrite")
    e = raised(dev.fill, "seq", 120)
    assert (type(e), str(e)) == (DeviceError, "fill percentage 120 is outside 0 to 100")


@pytest.mark.parametrize(("seconds", "shown"), [(-1, "-1"), (float("nan"), "NaN"), (float("inf"), "inf")])
def test_idle_errors(dev: Device, seconds: float, shown: str) -> None:
    e = raised(dev.idle, seconds)
    assert (type(e), str(e)) == (DeviceError, f"idle time {shown}: must be a non-negative number of seconds")


def test_format_errors(dev: Device) -> None:
    e = raised(dev.format, 5)
    assert (type(e), str(e)) == (DeviceError, "LBA format 5 does not exist; the namespace has 2 (0 to 1)")


# ---- state files -----------------------------------------------------------------------------------------


def test_loading_a_missing_state(tmp_path: Path) -> None:
    e = raised(Device.load, tmp_path / "none.state")
    assert type(e) is FileNotFoundError
    assert str(e) == f"{tmp_path / 'none.state'}: No such file or directory (os error 2)"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"definitely not a state file", "not an ssdtwin state file (bad magic)"),
        (b"", "not an ssdtwin state file (too short)"),
        (b"SSDTWIN\0" + struct.pack("<I", 9), "state format version 9; this ssdtwin reads version 2"),
        # A state of the first format (no checksums): named, not misread.
        (b"SSDTWIN\0" + struct.pack("<IQ", 1, 2) + b"{}", "state format version 1; this ssdtwin reads version 2"),
        (b"SSDTWIN\0" + struct.pack("<I", 2), "damaged or truncated"),
        (b"SSDTWIN\0" + struct.pack("<I", 2) + b"not an LZ4 frame", "damaged or truncated"),
    ],
)
def test_damaged_state_files(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.state"
    path.write_bytes(content)
    e = raised(Device.load, path)
    assert type(e) is StateError
    assert str(e).startswith(f"{path}: {problem}")


def test_a_truncated_state_is_a_state_error(small_device: Device, tmp_path: Path) -> None:
    small_device.fill("seq", 50)
    small_device.save(tmp_path / "ok.state")
    data = (tmp_path / "ok.state").read_bytes()
    (tmp_path / "cut.state").write_bytes(data[: len(data) - 20])
    e = raised(Device.load, tmp_path / "cut.state")
    assert type(e) is StateError
    assert str(e).startswith(f"{tmp_path / 'cut.state'}: damaged or truncated")


def test_save_refuses_to_replace_a_file(small_device: Device, tmp_path: Path) -> None:
    (tmp_path / "s").write_text("x")
    e = raised(small_device.save, tmp_path / "s")
    assert type(e) is FileExistsError
    assert str(e) == f"{tmp_path / 's'} exists; pass overwrite=True to replace it"


def test_saving_into_a_missing_directory(small_device: Device, tmp_path: Path) -> None:
    e = raised(small_device.save, tmp_path / "no" / "s")
    assert type(e) is FileNotFoundError
    assert str(e) == f"{tmp_path / 'no' / 's'}: No such file or directory (os error 2)"


# ---- log files ---------------------------------------------------------------------------------------------


def test_a_missing_log_directory_is_file_not_found(small_device: Device, tmp_path: Path) -> None:
    e = raised(
        small_device.run,
        {"rw": "read", "size": "1m", "runtime": "1ms", "write_lat_log": "x"},
        log_dir=tmp_path / "missing",
    )
    assert (
        str(e)
        == f"cannot write log file {tmp_path / 'missing' / 'x_slat.1.log'}: No such file or directory (os error 2)"
    )
    assert type(e) is FileNotFoundError


def test_a_log_that_cannot_be_written_is_an_os_error(small_device: Device, tmp_path: Path) -> None:
    (tmp_path / "x_slat.1.log").mkdir()  # a directory where the log file should go
    e = raised(small_device.run, {"rw": "read", "size": "1m", "runtime": "1ms", "write_lat_log": "x"}, log_dir=tmp_path)
    assert isinstance(e, OSError)
    assert str(e).startswith(f"cannot write log file {tmp_path / 'x_slat.1.log'}: ")


# ---- no panics --------------------------------------------------------------------------------------------------


def test_garbage_never_panics(dev: Device, tmp_path: Path) -> None:
    """A panic reaching Python (pyo3's PanicException, a BaseException) is a bug."""
    for args in (["--name=\0", "--bs=\0"], ["--name=a", "--bs=(((((("], ["--name=a", "--size=99999999999999999999p"]):
        assert isinstance(raised(dev.run, args), JobError)
    weird = tmp_path / "weird.fio"
    weird.write_bytes(b"\xff\xfe[\x00]\nrw=\xff\n")
    assert isinstance(raised(dev.run, weird), JobError)


def test_a_progress_callback_cannot_use_its_busy_device(dev: Device) -> None:
    def peek(*_: object) -> bool:
        dev.counters()
        return True

    # Long enough for the runner to report progress (every 65,536 of its steps).
    job = {"name": "j", "rw": "randread", "size": "256m", "iodepth": 32, "ioengine": "libaio", "runtime": "1s"}
    with pytest.raises(DeviceError, match="the device is busy with the run or fill that called this progress callback"):
        dev.run(job, progress=peek)
    with pytest.raises(DeviceError, match="the callback cannot use it"):
        dev.fill("seq", 1, progress=peek)


def test_a_series_window_too_short_for_the_run_is_refused_not_exhausting_memory(dev: Device) -> None:
    # 1 ns windows over 5 ms would be 5 million rows of ~100 counters: it aborted the process.
    job = {"name": "j", "rw": "randread", "size": "64m", "runtime": "5ms", "time_based": True}
    e = raised(dev.run, job, series_window_ms=1e-6)
    assert str(e) == (
        "the counter series reached 100000 rows of 1 ns: use a longer series window for a run this long "
        "(at most 100000 rows are kept)"
    )
    assert isinstance(e, ssdtwin.SsdtwinError)


def test_an_interrupted_run_leaves_no_partial_logs(dev: Device, tmp_path: Path) -> None:
    job = {
        "name": "j",
        "rw": "randread",
        "size": "256m",
        "iodepth": 32,
        "ioengine": "libaio",
        "runtime": "1s",
        "write_lat_log": "x",
        "write_bw_log": "x",
        "write_hist_log": "x",
        "log_hist_msec": 10,
    }
    with pytest.raises(KeyboardInterrupt):
        dev.run(job, log_dir=tmp_path, progress=lambda *_: False)
    assert list(tmp_path.iterdir()) == []
    # A finished run keeps them.
    dev.run(job | {"runtime": "20ms"}, log_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "x_bw.1.log",
        "x_clat.1.log",
        "x_clat_hist.1.log",
        "x_lat.1.log",
        "x_slat.1.log",
    ]


def test_any_damage_to_a_state_file_is_refused_by_name(tmp_path: Path) -> None:
    import random

    from ssdtwin.testing import small_overrides

    dev = Device(overrides=small_overrides())
    dev.fill("random", 80, seed=3)
    good = tmp_path / "good.state"
    dev.save(good)
    raw = good.read_bytes()
    bad = tmp_path / "bad.state"
    rng = random.Random(7)
    # Every single-byte change after the magic and version, and every truncation, is caught:
    # the frame's block and content checksums cover the header and the map.
    for position in sorted(rng.sample(range(12, len(raw)), 150)):
        damaged = bytearray(raw)
        damaged[position] ^= 1 << rng.randrange(8)
        bad.write_bytes(bytes(damaged))
        with pytest.raises(StateError) as e:
            Device.load(bad)
        assert str(e.value).startswith(f"{bad}: "), (position, str(e.value))
    for cut in (13, 100, len(raw) // 2, len(raw) - 1):
        bad.write_bytes(raw[:cut])
        with pytest.raises(StateError, match="damaged or truncated"):
            Device.load(bad)
    bad.write_bytes(raw + b"x")
    with pytest.raises(StateError):
        Device.load(bad)
    assert Device.load(good).counters() == dev.counters()


def test_a_drive_whose_maps_exceed_the_memory_limit_is_refused_before_allocating() -> None:
    # generic-tlc-1tb: 244 M logical and 268 M physical 4 KiB units, 4 B each: ~1.9 GiB.
    e = raised(Device, max_memory_gib=1.0)
    assert str(e).startswith(
        "profile 'generic-tlc-1tb' needs about 1.9 GiB of memory for its maps (4 B per logical and per physical "
        "4 KiB unit); the limit given is 1.0 GiB"
    )
    assert type(e) is DeviceError
    # Verify mode keeps version tags as large again.
    assert "needs about 3.8 GiB" in str(raised(Device, verify=True, max_memory_gib=3.0))
    assert Device(max_memory_gib=2.0).info()["capacity_bytes"] == 1_000_204_886_016
    assert str(raised(Device, max_memory_gib=-1)) == "max_memory_gib -1: a positive number of GiB"


def test_a_profile_too_large_to_simulate_here_is_still_shown(tmp_path: Path) -> None:
    # 30,012 pages per block: about 27 GiB of maps, more than a CI machine has. Showing and
    # deriving the profile allocates nothing; making a device of it is what is refused.
    big = {"nand.pages_per_block": 30012}
    assert tomllib.loads(profile_toml("generic-tlc-1tb", big))["nand"]["pages_per_block"] == 30012
    e = raised(Device, overrides=big, max_memory_gib=8.0)
    assert type(e) is DeviceError and "needs about 27.0 GiB" in str(e)
    path = tmp_path / "big.toml"
    path.write_text(profile_toml("generic-tlc-1tb", big))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["profiles", "show", str(path)])
    assert (status, err.getvalue()) == (0, "") and "pages_per_block = 30012" in out.getvalue()


def test_the_cli_takes_max_memory() -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["fio", "--max-memory", "1", "--name=j", "--size=1m"])
    assert status == 2 and "needs about 1.9 GiB" in err.getvalue() and "--max-memory" in err.getvalue()


@pytest.mark.slow
def test_a_saved_drive_beyond_the_memory_limit_is_refused_before_loading(tmp_path: Path) -> None:
    path = tmp_path / "big.state"
    Device().save(path)
    e = raised(Device.load, path, max_memory_gib=1.0)
    assert type(e) is StateError
    assert str(e) == (
        f"{path}: the drive saved here needs about 1.9 GiB of memory for its maps; the limit is 1.0 GiB: raise it "
        "(max_memory_gib, --max-memory)"
    )
    assert Device.load(path, max_memory_gib=2.0).profile_name == "generic-tlc-1tb"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["smartctl", "-H", "--max-memory", "1", "--state", str(path)])
    assert status == 2 and "needs about 1.9 GiB" in err.getvalue()
