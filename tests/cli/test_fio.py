"""``ssdtwin fio``: fio's options and job files in, fio's reports out; every bad input is one
line on stderr and exit status 2."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import ssdtwin
from click.testing import CliRunner
from ssdtwin import JobError
from ssdtwin.cli import cli, main
from ssdtwin.testing import ideal_overrides

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]

#: Short QD1 random reads over the first GiB on the ideal drive alone (no host costs, no
#: latency variability): 5 ms of simulated time.
QD1_READ = [
    *(f"--set={k}={v}" for k, v in ideal_overrides().items()),
    "--host",
    "none",
    "--name=r",
    "--rw=randread",
    "--bs=4k",
    "--ioengine=libaio",
    "--size=1g",
    "--runtime=5ms",
    "--time_based",
]

#: fio's QD1 read latency on the shipped drive alone, written data and never-written LBAs
#: (see tests/test_device.py for the derivation from the profile's stages).
NAND_READ_CLAT_NS = 57_983
UNMAPPED_READ_CLAT_NS = 3_323


def invoke(*args: str | Path) -> Any:
    """``ssdtwin ARGS`` through click's test runner; must succeed."""
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, (result.output, result.stderr)
    return result


def fio_json(*args: str | Path) -> dict[str, Any]:
    return json.loads(invoke("fio", "--output-format=json", *args).stdout)  # type: ignore[no-any-return]


# ---- output formats -------------------------------------------------------------------------------


def test_json_is_fio_json_on_stdout() -> None:
    report = fio_json(*QD1_READ)
    assert report["fio version"] == "fio-3.33"
    job = report["jobs"][0]
    assert job["jobname"] == "r"
    assert job["job options"] == {
        "name": "r",
        "rw": "randread",
        "bs": "4k",
        "ioengine": "libaio",
        "size": "1g",
        "runtime": "5ms",
    }
    # An empty drive: every read is of a never-written LBA.
    assert job["read"]["clat_ns"]["mean"] == pytest.approx(UNMAPPED_READ_CLAT_NS, abs=3)
    assert job["read"]["runtime"] == 5
    assert job["ssdtwin"]["profile"] == "generic-tlc-1tb"
    assert "bins" not in job["read"]["clat_ns"]


def test_json_plus_adds_latency_bins() -> None:
    job = json.loads(invoke("fio", "--output-format=json+", *QD1_READ).stdout)["jobs"][0]
    clat = job["read"]["clat_ns"]
    assert sum(clat["bins"].values()) == clat["N"] == job["read"]["total_ios"] > 0
    # Every read took the same time: one bin, at fio's histogram midpoint near the mean.
    ((value, count),) = clat["bins"].items()
    assert count == clat["N"]
    assert int(value) == pytest.approx(UNMAPPED_READ_CLAT_NS, rel=1 / 64)


def test_normal_is_the_default_and_looks_like_fio() -> None:
    out = invoke("fio", *QD1_READ).stdout
    lines = out.splitlines()
    assert (
        lines[0]
        == "r: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=1"
    )
    assert lines[1:3] == ["fio-3.33", "Starting 1 process"]
    # 5 ms of back-to-back reads of never-written LBAs, 3.323 us each: 1504 reads, 6016 KiB.
    assert "  read: IOPS=301k, BW=1175MiB/s (1232MB/s)(6016KiB/5msec)\n" in out
    assert "    slat (nsec): min=0, max=0, avg= 0.00, stdev= 0.00\n" in out
    assert "    clat (nsec): min=3323, max=3323, avg=3323.00, stdev= 0.00\n" in out
    assert "     lat (nsec): min=3323, max=3323, avg=3323.00, stdev= 0.00\n" in out
    assert "Run status group 0 (all jobs):" in out
    assert "Disk stats (read/write):\n  nvme0n1: ios=" in out


@pytest.mark.parametrize("formats", ["normal,json", "json,normal"])
def test_normal_and_json_together_print_in_fio_s_order(formats: str) -> None:
    # fio prints the job header lines at start-up, then its buffers in a fixed order:
    # terse, JSON, normal statistics; the order asked does not matter.
    out = invoke("fio", f"--output-format={formats}", *QD1_READ).stdout
    header, rest = out.split("\n{\n", 1)
    assert header.splitlines() == [
        "r: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=1",
        "fio-3.33",
        "Starting 1 process",
    ]
    text, body = rest.split("\n}\n", 1)
    report = json.loads("{\n" + text + "\n}\n")
    assert report["jobs"][0]["jobname"] == "r"
    assert body.startswith("\nr: (groupid=0, jobs=1): err= 0:")
    # The text and the JSON describe the same run.
    assert f"issued rwts: total={report['jobs'][0]['read']['total_ios']},0,0,0" in body


def test_output_writes_the_report_to_a_file(tmp_path: Path, reference_dir: Path) -> None:
    result = invoke("fio", "--output-format=json", "--output", "report.json", *QD1_READ)
    assert result.stdout == ""
    text = (tmp_path / "report.json").read_text()
    report = json.loads(text)
    assert report["jobs"][0]["read"]["total_ios"] > 0
    # Ends as fio's file does: the closing brace and one newline.
    assert text.endswith("\n  ]\n}\n") and (reference_dir / "randread-psync.json").read_text().endswith("\n  ]\n}\n")


@pytest.mark.slow
def test_every_format_ends_with_exactly_one_newline() -> None:
    for fmt in ("json", "json+", "normal", "normal,json", "json,normal", "terse", "terse,normal"):
        out = invoke("fio", f"--output-format={fmt}", *QD1_READ).stdout
        assert out.endswith("\n") and not out.endswith("\n\n"), fmt
    both = invoke("fio", "--output-format=json,normal", *QD1_READ).stdout
    assert "\n}\n\nr: (groupid=0, jobs=1)" in both


def test_lat_percentiles_prints_total_latency_percentiles_after_clat() -> None:
    normal = invoke("fio", *QD1_READ, "--lat_percentiles=1", "--slat_percentiles=1").stdout
    blocks = [line.strip() for line in normal.splitlines() if " percentiles (" in line]
    assert [b.split()[0] for b in blocks] == ["slat", "clat", "lat"], normal
    read = fio_json(*QD1_READ, "--lat_percentiles=1", "--clat_percentiles=0")["jobs"][0]["read"]
    assert "percentile" not in read["clat_ns"]
    # The ideal drive reads every LBA in the same time: total latency's median is its mean,
    # to fio's bucket (1/64 wide), and above completion latency's by the submission's.
    lat = read["lat_ns"]
    assert lat["percentile"]["50.000000"] == pytest.approx(lat["mean"], rel=1 / 64)
    assert lat["mean"] == pytest.approx(read["clat_ns"]["mean"] + read["slat_ns"]["mean"])


def test_each_job_has_its_own_process_id_drawn_from_the_seed() -> None:
    def pids(seed: int) -> list[int]:
        normal = invoke("fio", f"--seed={seed}", *QD1_READ, "--numjobs=3").stdout
        return [int(m) for m in re.findall(r": pid=(\d+): ", normal)]

    first = pids(1)
    # fio forks its clones one after another: consecutive ids above its parent's.
    assert len(first) == 3 and first == list(range(first[0], first[0] + 3)) and first[0] > 1000
    assert pids(1) == first and pids(2) != first


def test_plot_and_series_write_the_latency_figure_and_the_windows(tmp_path: Path) -> None:
    plot, series = tmp_path / "lat.png", tmp_path / "lat.csv"
    invoke("fio", *QD1_READ, "--plot", plot, "--series", series, "--series-window", "1")
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import pandas as pd

    table = pd.read_csv(series)
    # The start, five 1 ms windows, and the end (the last read completes just after 5 ms).
    assert len(table) == 7 and table.time_s.iloc[5] == pytest.approx(0.005)
    done = table.dropna(subset=["read_p50_lat_us"])
    assert len(done) >= 5 and (done.read_p50_lat_us <= done.read_p99_lat_us).all()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--plot", "x.txt"], "x.txt: the name must end in .png, .svg, .pdf"),
        (["--series", "x.png"], "x.png: the name must end in .csv, .json"),
        (["--bandwidth-log", "--series-window", "10"], "--bandwidth-log logs 500 ms windows"),
    ],
)
def test_bad_figure_and_series_options_are_one_line(
    run_main: RunMain, tmp_path: Path, args: list[str], message: str
) -> None:
    outcome = run_main("fio", *args, *QD1_READ)
    assert_one_line_error(outcome, message)


# ---- the drive: --fill, --state, --save-state, --set ------------------------------------------------


def test_fill_seq_maps_the_lbas_so_reads_go_to_nand() -> None:
    job = fio_json("--fill", "seq:1", *QD1_READ)["jobs"][0]
    # 1 % of 1 TB covers the first GiB: every read now takes the NAND path.
    assert job["read"]["clat_ns"]["mean"] == pytest.approx(NAND_READ_CLAT_NS, abs=3)
    assert job["ssdtwin"]["nand_host_read_bytes"] >= job["read"]["io_bytes"] - 4096


def test_buffered_jobs_go_through_the_page_cache() -> None:
    """A buffered sequential read of a file is served by readahead (one window ahead, so
    almost every page is found in memory, none beyond the file's end); fsync after every
    write sends the drive one flush each."""
    read = fio_json("--name=r", "--filename=data", "--rw=read", "--bs=4k", "--size=8m", "--direct=0")["jobs"][0][
        "ssdtwin"
    ]
    assert read["host_read_bytes"] == 8 << 20
    assert read["host.page_cache_read_bytes"] == 8 << 20
    assert read["host.readahead_bytes"] >= (8 << 20) - 4096
    assert read["host.page_cache_hit_bytes"] + read["host.page_cache_miss_bytes"] == 8 << 20
    job = fio_json("--name=w", "--rw=write", "--bs=4k", "--size=64k", "--direct=0", "--fsync=1")["jobs"][0]
    # fio syncs after every write but the last.
    assert job["sync"]["total_ios"] == 15
    assert job["ssdtwin"]["host_flush_cmds"] == 15
    assert job["sync"]["lat_ns"]["mean"] > 0


def test_state_from_precondition(run_main: RunMain, small_profile_file: Path, tmp_path: Path) -> None:
    made = run_main("precondition", "--profile", small_profile_file, "--fill", "seq", "--save", "s.state")
    assert made.status == 0, made
    job = fio_json(
        "--state", "s.state", "--name=r", "--rw=randread", "--size=16m", "--runtime=2ms", "--ioengine=libaio"
    )["jobs"][0]
    assert job["ssdtwin"]["profile"] == "small"
    assert job["read"]["clat_ns"]["mean"] > 50_000, "the preconditioned drive reads from NAND"
    assert job["ssdtwin"]["unmapped_units_read"] == 0


def test_save_state_writes_the_drive_after_the_run(tmp_path: Path, small_profile_file: Path) -> None:
    invoke(
        "fio",
        "--profile",
        small_profile_file,
        "--save-state",
        "after.state",
        "--name=w",
        "--rw=write",
        "--bs=128k",
        "--size=4m",
    )
    dev = ssdtwin.Device.load(tmp_path / "after.state")
    assert dev.counters()["host_write_bytes"] == 4 << 20
    assert dev.profile_name == "small"


def test_save_state_refuses_to_overwrite_without_force(
    run_main: RunMain, tmp_path: Path, small_profile_file: Path
) -> None:
    state = tmp_path / "s.state"
    state.write_bytes(b"keep me")
    write = ["--name=w", "--rw=write", "--bs=128k", "--size=4m"]
    outcome = run_main("fio", "--profile", small_profile_file, "--save-state", state, *write)
    assert_one_line_error(
        outcome, f"ssdtwin: --save-state {state} exists; add --force to replace it (see 'ssdtwin fio --help')"
    )
    assert state.read_bytes() == b"keep me"
    outcome = run_main("fio", "--profile", small_profile_file, "--save-state", state, "--force", *write)
    assert outcome.status == 0, outcome
    assert ssdtwin.Device.load(state).counters()["host_write_bytes"] == 4 << 20


def test_set_changes_profile_fields() -> None:
    slower = fio_json("--fill", "seq:1", "--set", "nand.tlc.t_read_us=100", *QD1_READ)["jobs"][0]
    assert slower["read"]["clat_ns"]["mean"] == pytest.approx(NAND_READ_CLAT_NS + 50_000, abs=3)
    # Four channels of eight dies keep the 32 dies, so the 1 TB namespace still fits.
    job = fio_json("--set", "nand.channels=4", "--set", "nand.dies_per_channel=8", *QD1_READ)["jobs"][0]
    assert job["read"]["total_ios"] > 0


def test_set_with_half_the_nand_is_refused(run_main: RunMain) -> None:
    outcome = run_main("fio", "--set", "nand.channels=4", *QD1_READ)
    assert_one_line_error(
        outcome,
        "ssdtwin: shipped:generic-tlc-1tb: identity.capacity_bytes = 1000204886016: the namespace may hold at most",
    )


def test_a_job_file_argument(tmp_path: Path) -> None:
    (tmp_path / "two.fio").write_text(
        "[global]\nbs=4k\nsize=4m\nioengine=libaio\nruntime=2ms\n[w]\nrw=randwrite\n[r]\nrw=randread\niodepth=4\n"
    )
    report = fio_json("two.fio")
    assert report["global options"] == {"bs": "4k", "size": "4m", "ioengine": "libaio", "runtime": "2ms"}
    assert [j["jobname"] for j in report["jobs"]] == ["w", "r"]
    assert report["jobs"][1]["job options"] == {"rw": "randread", "iodepth": "4"}
    assert report["jobs"][0]["write"]["total_ios"] > 0 and report["jobs"][1]["read"]["total_ios"] > 0


def test_the_seed_changes_random_offsets_and_is_repeatable() -> None:
    job = [
        "--fill",
        "seq:1",
        "--name=r",
        "--rw=randread",
        "--iodepth=8",
        "--ioengine=libaio",
        "--size=1g",
        "--runtime=3ms",
    ]
    a, b, c = (fio_json("--seed", s, *job)["jobs"][0]["read"] for s in ("1", "1", "2"))
    assert a == b
    assert a != c


# ---- errors: one line on stderr, exit status 2 ------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--name=a", "--write_barrier=1"],
            "ssdtwin: command line: fio option 'write_barrier' is not supported by ssdtwin; barrier writes and "
            "sync_file_range are not modelled; use fsync=, fdatasync= or sync=1",
        ),
        (
            ["--name=a", "--bs=4q"],
            "ssdtwin: command line: bs=4q: expected a whole number of bytes with an optional suffix k, m, g, t, p "
            "(kb_base=1024), e.g. 4k",
        ),
        (
            ["--profile", "no-such-drive", "--name=a"],
            "ssdtwin: profile 'no-such-drive' is neither a shipped profile "
            f"({', '.join(ssdtwin.profiles())}) nor a readable TOML file",
        ),
        (
            ["--set", "nand.channels", "--name=a"],
            "ssdtwin: Invalid value for --set: 'nand.channels': expected SECTION.FIELD=VALUE (see 'ssdtwin fio "
            "--help')",
        ),
        (
            ["--set", "channels=4", "--name=a"],
            "ssdtwin: Invalid value for --set: 'channels=4': expected SECTION.FIELD=VALUE (see 'ssdtwin fio --help')",
        ),
        (
            ["--profile", "generic-tlc-1tb", "--state", "x.state", "--name=a"],
            "ssdtwin: give --profile or --state, not both (a state carries its profile) (see 'ssdtwin fio --help')",
        ),
        (
            ["--state", "x.state", "--set", "nand.channels=4", "--name=a"],
            "ssdtwin: --set applies to profiles; a state keeps the profile it was saved with (see 'ssdtwin fio "
            "--help')",
        ),
        (
            ["--output-format=xml", "--name=a"],
            "ssdtwin: Invalid value for --output-format: 'xml': allowed normal, json, json+, terse (comma-separated "
            "for several) (see 'ssdtwin fio --help')",
        ),
        (
            ["--output-format=json,json+", "--name=a"],
            "ssdtwin: Invalid value for --output-format: json and json+ together: choose one (see 'ssdtwin fio "
            "--help')",
        ),
        ([], "ssdtwin: no job: give fio options (--name=... --rw=...) or job files (see 'ssdtwin fio --help')"),
        (
            ["--fill", "sideways", "--name=a"],
            "ssdtwin: Invalid value for --fill: 'sideways': allowed seq, random, steady, seq:PERCENT, random:PERCENT, "
            "steady:PERCENT (see "
            "'ssdtwin fio --help')",
        ),
        (
            ["--fill", "seq:150", "--name=a"],
            "ssdtwin: Invalid value for --fill: 'seq:150': PERCENT must be from 0 to 100 (see 'ssdtwin fio --help')",
        ),
        (
            ["--seed", "x", "--name=a"],
            "ssdtwin: Invalid value for '--seed': 'x' is not a valid integer. (see 'ssdtwin fio --help')",
        ),
        (
            ["missing.fio"],
            "ssdtwin: command line: cannot read missing.fio: No such file or directory (os error 2)",
        ),
        (
            ["--state", "missing.state", "--name=a"],
            "ssdtwin: missing.state: No such file or directory (os error 2)",
        ),
        (
            ["--name=a", "--size=2t"],
            "ssdtwin: job 'a': region of clone 0 ends at byte 2199023255552, beyond the namespace (1000204886016 "
            "bytes); reduce size or offset",
        ),
    ],
)
def test_errors_are_one_line_with_status_2(run_main: RunMain, args: list[str], message: str) -> None:
    outcome = run_main("fio", *args)
    assert_one_line_error(outcome)
    assert outcome.err == message + "\n"


def test_a_garbage_state_file(run_main: RunMain, tmp_path: Path) -> None:
    (tmp_path / "junk.state").write_text("junk")
    assert_one_line_error(
        run_main("fio", "--state", "junk.state", "--name=a"),
        "ssdtwin: junk.state: not an ssdtwin state file (too short)",
    )


def test_debug_shows_the_exception_instead(run_main: RunMain) -> None:
    with pytest.raises(JobError, match="fio option 'write_barrier' is not supported"):
        run_main("--debug", "fio", "--name=a", "--write_barrier=1")


def test_debug_after_the_subcommand_is_fio_s_option_not_ours(run_main: RunMain) -> None:
    outcome = run_main("fio", "--name=a", "--debug")
    assert_one_line_error(outcome, "fio option 'debug' is not supported by ssdtwin; it is a fio program option")


def test_help_and_version_exit_0(run_main: RunMain) -> None:
    outcome = run_main("fio", "--help")
    assert outcome.status == 0
    assert "Run fio jobs on a simulated drive in a simulated machine (--host)." in outcome.out
    assert "--save-state FILE" in outcome.out
    # The example is printed as written, not rewrapped into one paragraph.
    assert (
        "    ssdtwin fio --profile generic-tlc-1tb --fill seq --name=r --rw=randread \\\n"
        "      --bs=4k --ioengine=libaio --iodepth=32 --runtime=10 --time_based\n"
    ) in outcome.out
    outcome = run_main("--version")
    assert (outcome.status, outcome.out) == (0, f"ssdtwin, version {ssdtwin.__version__}\n")


def test_an_unknown_command(run_main: RunMain) -> None:
    outcome = run_main("fly")
    assert_one_line_error(outcome)
    assert outcome.err == "ssdtwin: No such command 'fly'. (see 'ssdtwin --help')\n"


class ClosedPipe(io.StringIO):
    def write(self, s: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_pipe_exits_0(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # `ssdtwin fio ... | head -1`: click.Command.main would turn EPIPE into sys.exit(1).
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["fio", "--output-format=json", "--fill", "seq:1", *QD1_READ]) == 0
    assert capsys.readouterr().err == ""


def test_ctrl_c_exits_130(run_main: RunMain, monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ssdtwin.Device, "run", interrupted)
    outcome = run_main("fio", *QD1_READ)
    assert (outcome.status, outcome.out, outcome.err) == (130, "", "ssdtwin: interrupted\n")


# ---- hosts ----------------------------------------------------------------------------------


def test_an_unknown_host_is_one_line(run_main: RunMain) -> None:
    outcome = run_main("fio", "--host", "nosuch", "--name=r", "--rw=read", "--size=1m")
    assert_one_line_error(
        outcome, "ssdtwin: host profile 'nosuch' is neither a shipped host (none, linux-4.15, linux-6.1,"
    )


def test_an_engine_the_host_lacks_is_one_line(run_main: RunMain) -> None:
    outcome = run_main("fio", "--host", "windows-10", "--name=r", "--ioengine=libaio", "--size=1m")
    assert_one_line_error(
        outcome,
        "ssdtwin: job 'r': ioengine=libaio is not available on host windows-10 (windows); "
        "it offers diskspd, psync, sync, windowsaio",
    )


def test_host_set_changes_a_host_field() -> None:
    # One core's worth of CPU at half the speed: a CPU-bound job gets half the IOPS.
    job = ["--name=r", "--rw=randread", "--bs=4k", "--ioengine=libaio", "--iodepth=64", "--size=1g", "--runtime=20ms"]
    job.append("--time_based")
    full = fio_json("--fill", "seq:1", *job)["jobs"][0]["read"]["iops"]
    half = fio_json("--fill", "seq:1", "--host-set", "cpu.speed_factor=0.5", *job)["jobs"][0]["read"]["iops"]
    assert half == pytest.approx(full / 2, rel=0.03)


# ---- fio's engine-loop and CPU options on a host ----------------------------------------------

CPU_BOUND = ["--fill", "seq:1", "--name=r", "--rw=randread", "--bs=4k", "--ioengine=libaio", "--iodepth=64"]
CPU_BOUND += ["--size=1g", "--runtime=20ms", "--time_based", "--group_reporting"]


def test_clones_confined_to_one_cpu_share_it() -> None:
    # libaio at QD64 is bound by its core (2.86 us per I/O on linux-6.1): two clones on
    # CPU 0 get what one gets alone; split over CPUs 0 and 1 they get more.
    alone = fio_json(*CPU_BOUND)["jobs"][0]["read"]["iops"]
    shared = fio_json(*CPU_BOUND, "--numjobs=2", "--cpus_allowed=0")["jobs"][0]["read"]["iops"]
    masked = fio_json(*CPU_BOUND, "--numjobs=2", "--cpumask=1")["jobs"][0]["read"]["iops"]
    split = fio_json(*CPU_BOUND, "--numjobs=2", "--cpus_allowed=0-1", "--cpus_allowed_policy=split")
    assert shared == pytest.approx(alone, rel=0.02)
    assert masked == shared
    assert split["jobs"][0]["read"]["iops"] > 1.5 * alone


def test_hipri_polls_instead_of_waiting_for_the_interrupt() -> None:
    qd1 = ["--fill", "seq:1", "--name=r", "--rw=randread", "--bs=4k", "--ioengine=io_uring", "--size=1g"]
    qd1 += ["--runtime=20ms", "--time_based"]
    plain = fio_json(*qd1)["jobs"][0]
    polled = fio_json(*qd1, "--hipri")["jobs"][0]
    # Polling skips the interrupt (250 ns) and the wakeup (900 ns) and costs a poll call
    # (300 ns) per I/O on linux-6.1; the thread spins on its core meanwhile.
    assert plain["read"]["clat_ns"]["mean"] - polled["read"]["clat_ns"]["mean"] > 800
    assert polled["sys_cpu"] + polled["usr_cpu"] > 95 > plain["sys_cpu"] + plain["usr_cpu"]


def test_cpus_beyond_the_host_are_one_line(run_main: RunMain) -> None:
    outcome = run_main("fio", "--host", "linux-6.1", "--name=r", "--size=1m", "--cpus_allowed=16")
    assert_one_line_error(outcome, "ssdtwin: job 'r': cpus_allowed names CPU 16; host linux-6.1 has CPUs 0 to 15")
    outcome = run_main("fio", "--name=r", "--size=1m", "--io_submit_mode=sideways")
    assert_one_line_error(outcome, "io_submit_mode=sideways: allowed inline, offload")


# ---- reads of never-written data --------------------------------------------------------------


def test_reads_of_never_written_lbas_are_called_out_on_stderr_and_in_the_json(run_main: RunMain) -> None:
    # --quiet leaves the warnings and drops the closing speed line.
    outcome = run_main("--quiet", "fio", "--output-format=json", *QD1_READ)
    assert outcome.status == 0
    warning = outcome.err.strip()
    assert warning.startswith("ssdtwin: warning: job 'r': 100% of the bytes read were never written")
    assert "--fill seq:100" in warning and "\n" not in warning
    twin = json.loads(outcome.out)["jobs"][0]["ssdtwin"]
    assert twin["warnings"] == [warning.removeprefix("ssdtwin: warning: ")]
    assert twin["unmapped_read_bytes"] == twin["host_read_bytes"] > 0


def test_reads_of_written_lbas_raise_no_warning(run_main: RunMain) -> None:
    outcome = run_main("--quiet", "fio", "--output-format=json", "--fill", "seq:1", *QD1_READ)
    assert outcome.status == 0 and outcome.err == ""
    twin = json.loads(outcome.out)["jobs"][0]["ssdtwin"]
    assert twin["warnings"] == [] and twin["unmapped_read_bytes"] == 0


def test_parse_only_checks_the_jobs_and_runs_nothing(run_main: RunMain, tmp_path: Path) -> None:
    good = run_main("fio", "--parse-only", "--name=r", "--rw=randread", "--bs=4k", "--iodepth=8")
    assert (good.status, good.out, good.err) == (0, "", "")
    bad = tmp_path / "bad.fio"
    bad.write_text("[a]\nrw=read\nbogus=1\n")
    outcome = run_main("fio", "--parse-only", bad)
    assert outcome.status == 2 and "bogus" in outcome.err and outcome.out == ""
