"""ssdtwin.jobs: every way to give a job becomes the fio arguments or job text the core
parses; anything else is a JobError naming what was given."""

from __future__ import annotations

from pathlib import Path

import pytest
from ssdtwin import Device, JobError
from ssdtwin.jobs import JobInput, job_input

# ---- argument lists ----------------------------------------------------------------------------


def test_argument_lists_pass_through_unchanged() -> None:
    args = ["--name=a", "--rw=randread", "--bs", "4k", "job.fio"]
    assert job_input(args) == JobInput(args=args)
    assert job_input(tuple(args)) == JobInput(args=args)
    assert job_input([]) == JobInput(args=[])


def test_a_list_of_non_strings_is_refused() -> None:
    with pytest.raises(JobError, match=r"^job of type list: give fio arguments, job text, a job file path or a dict$"):
        job_input(["--name=a", 4])  # type: ignore[list-item]


@pytest.mark.parametrize("bad", [42, 4.5, None, b"--name=a", {1, 2}])
def test_other_types_are_refused_by_name(bad: object) -> None:
    with pytest.raises(JobError) as e:
        job_input(bad)  # type: ignore[arg-type]
    assert str(e.value) == f"job of type {type(bad).__name__}: give fio arguments, job text, a job file path or a dict"


# ---- flat dicts ----------------------------------------------------------------------------------


def test_a_flat_dict_is_one_job_named_job_unless_named() -> None:
    assert job_input({"rw": "randread", "iodepth": 32}).args == ["--name=job", "--rw=randread", "--iodepth=32"]
    assert job_input({"rw": "write", "name": "w"}).args == ["--name=w", "--rw=write"]
    assert job_input({}).args == ["--name=job"]


def test_true_is_a_bare_flag_false_and_none_leave_the_option_out() -> None:
    job = {"time_based": True, "norandommap": False, "group_reporting": None, "direct": 1, "randrepeat": 0}
    assert job_input(job).args == ["--name=job", "--time_based", "--direct=1", "--randrepeat=0"]


def test_a_dict_value_in_a_flat_dict_is_refused() -> None:
    with pytest.raises(JobError, match=r"^job dict: option 'a' has a nested dict; nest jobs one level only$"):
        job_input({"rw": "read", "a": {"bs": "4k"}})


# ---- nested dicts -----------------------------------------------------------------------------------


def test_nested_dicts_are_sections_with_global_first() -> None:
    job = {"a": {"rw": "read"}, "global": {"bs": "4k", "time_based": True}, "b": {"rw": "write", "iodepth": 4}}
    assert job_input(job).args == [
        "--bs=4k",
        "--time_based",
        "--name=a",
        "--rw=read",
        "--name=b",
        "--rw=write",
        "--iodepth=4",
    ]


def test_name_inside_a_section_renames_that_job() -> None:
    # A second --name would start a second job with default options (reading the whole
    # namespace): the section's own name= must replace the section name instead.
    assert job_input({"a": {"name": "bee", "rw": "write"}}).args == ["--name=bee", "--rw=write"]


def test_sections_too_deep_are_refused() -> None:
    with pytest.raises(JobError, match=r"^job dict: option 'x' has a nested dict; nest jobs one level only$"):
        job_input({"a": {"x": {"y": 1}}})


# ---- text and files ------------------------------------------------------------------------------------


def test_job_text_is_parsed_with_includes_relative_to_the_working_directory(tmp_path: Path) -> None:
    ji = job_input("[a]\nrw=read\n")
    assert ji == JobInput(args=[], text="[a]\nrw=read\n", source="<job text>", base_dir=str(tmp_path))
    # One line that opens a section is job text too.
    assert job_input("[a]").text == "[a]"
    assert job_input("  [global]").text == "  [global]"


def test_existing_file_names_and_paths_are_job_files(tmp_path: Path) -> None:
    f = tmp_path / "x.fio"
    f.write_text("[x]\nrw=read\n")
    assert job_input(str(f)) == JobInput(args=[str(f)])
    assert job_input(f) == JobInput(args=[str(f)])
    assert job_input("x.fio") == JobInput(args=["x.fio"])  # relative to the working directory
    # A Path is a job file even if it does not exist: the core then says it cannot read it.
    assert job_input(tmp_path / "missing.fio") == JobInput(args=[str(tmp_path / "missing.fio")])


@pytest.mark.parametrize("text", ["missing.fio", "--name=a --rw=read", "", "x" * 5000])
def test_other_strings_are_refused(text: str) -> None:
    with pytest.raises(JobError) as e:
        job_input(text)
    assert str(e.value) == f"job '{text}': not a job file, job text, dict or argument list"


# ---- through a device: the core's own errors ----------------------------------------------------------------


def test_include_in_job_text_resolves_from_the_working_directory(small_device: Device, tmp_path: Path) -> None:
    (tmp_path / "common.fio").write_text("bs=64k\nsize=1m\nioengine=libaio\n")
    r = small_device.run("[global]\ninclude common.fio\n[w]\nrw=write\n")
    assert r.json["global options"] == {"bs": "64k", "size": "1m", "ioengine": "libaio"}
    assert r.json["jobs"][0]["write"]["total_ios"] == 16


def test_a_missing_job_file_path_is_a_job_error(small_device: Device, tmp_path: Path) -> None:
    with pytest.raises(JobError) as e:
        small_device.run(tmp_path / "missing.fio")
    assert (
        str(e.value) == f"command line: cannot read {tmp_path / 'missing.fio'}: No such file or directory (os error 2)"
    )


def test_job_text_errors_name_the_line(small_device: Device) -> None:
    with pytest.raises(JobError) as e:
        small_device.run("[a]\nrw=read\nwrite_barrier=1\n")
    assert str(e.value) == (
        "<job text>:3: fio option 'write_barrier' is not supported by ssdtwin; barrier writes and sync_file_range "
        "are not modelled; use fsync=, fdatasync= or sync=1"
    )
