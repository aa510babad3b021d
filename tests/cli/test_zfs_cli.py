"""``ssdtwin zpool list``, ``ssdtwin zdb``, ``ssdtwin zfs plan|run`` and ``ssdtwin fio --pool``:
outputs, states between commands, and one-line errors with exit status 2 for bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ..helpers import Outcome, assert_one_line_error

RunMain = Callable[..., Outcome]


def test_zpool_list_shows_the_vdevs_and_a_lost_pool(run_main: RunMain) -> None:
    out = run_main("zpool", "list", "-v", "--pool", "hdd-mirror-special")
    assert out.status == 0, out
    assert out.out.splitlines()[5].split()[0] == "special"
    lost = run_main("zpool", "list", "-v", "--fail", "nvme0n1", "--fail", "nvme1n1")
    assert lost.status == 1
    assert "UNAVAIL" in lost.out.splitlines()[1]
    assert lost.err.startswith("ssdtwin: pool 'tank' is lost: special vdev mirror-1 has no copy left")
    assert lost.err.count("\n") == 1
    degraded = run_main("zpool", "list", "-v", "--fail", "sda")
    assert degraded.status == 0 and "DEGRADED" in degraded.out.splitlines()[1]


def test_bad_pool_files_and_options_exit_2_naming_the_field(run_main: RunMain, tmp_path: Path) -> None:
    pool = tmp_path / "p.toml"
    pool.write_text(
        "[pool]\nname = 'tank'\n[[vdevs]]\nclass = 'normal'\nlayout = 'mirror'\ndrives = ['exos-x18-16tb']\n"
    )
    assert_one_line_error(
        run_main("zpool", "list", "--pool", pool), f"{pool}: vdevs[0].drives = 1 drives: a mirror vdev takes at least 2"
    )
    assert_one_line_error(run_main("zpool", "list", "--set", "vdevs.1.ashift=20"), "vdevs[1].ashift = 20: 9 to 16")
    assert_one_line_error(run_main("zpool", "list", "--pool", "nosuch"), "pool 'nosuch' is neither a shipped pool")
    assert_one_line_error(run_main("zfs", "run", "--files", "10", "--size-dist", "big"), "--size-dist = big: no kind")
    assert_one_line_error(run_main("zfs", "run", "--files", "10", "--ops", "grep"), "allowed create, find")
    assert_one_line_error(run_main("zdb", "--pool", "hdd-mirror"), "give -b")
    assert_one_line_error(
        run_main("fio", "--pool", "hdd-mirror", "--profile", "p32a80", "--name=w", "--rw=write"), "not both"
    )


def test_a_state_carries_the_pool_between_commands(run_main: RunMain, tmp_path: Path) -> None:
    state = tmp_path / "tank.state"
    ran = run_main("zfs", "run", "--files", "2000", "--ops", "create,stat", "--save-state", state, "--json")
    assert ran.status == 0, ran
    rows = json.loads(ran.out)
    assert [r["workload"] for r in rows] == ["create", "stat"]
    assert rows[1]["special_read_bytes"] > 0 and rows[1]["normal_read_bytes"] == 0, "dnodes live on special"
    zdb = run_main("zdb", "-Lbbbs", "--state", state)
    assert zdb.status == 0, zdb
    assert "Traversing all blocks ..." in zdb.out and "No leaks" not in zdb.out
    assert "    L0 DMU dnode" in zdb.out and "Block Size Histogram" in zdb.out
    listed = run_main("zpool", "list", "-vp", "--state", state)
    assert listed.status == 0 and listed.out.splitlines()[1].split()[2].isdigit()
    assert_one_line_error(run_main("zpool", "list", "--state", state, "--pool", "hdd-mirror"), "not both")
    # zdb's output is what the planner reads.
    zdb_file = tmp_path / "zdb.txt"
    zdb_file.write_text(zdb.out)
    plan = run_main("zfs", "plan", "--zdb", zdb_file, "--json")
    assert plan.status == 0, plan
    data = json.loads(plan.out)
    assert data["rows"][0]["special_small_blocks_bytes"] == 0
    assert data["notes"][0].startswith("risk: the special class holds the only copy")
    zdb_file.write_text(zdb.out.replace("Metadata Total", "Metadata Totl"))
    assert_one_line_error(run_main("zfs", "plan", "--zdb", zdb_file), f"{zdb_file}:1: no 'Metadata Total' row")


def test_zfs_plan_from_a_directory_scan(run_main: RunMain, tmp_path: Path) -> None:
    scan = tmp_path / "scan.txt"
    scan.write_text("".join(f"{4096 * (i % 40 + 1)} home/u{i % 7}/f{i}.txt\n" for i in range(3000)))
    out = run_main("zfs", "plan", "--scan", scan, "--pool", "hdd-mirror-special")
    assert out.status == 0, out
    lines = out.out.splitlines()
    assert lines[0].startswith("from model of pool 'tank': ")
    table = {line.split()[0]: line.split() for line in lines[3:16]}
    # Files of 4-160 KiB: with small blocks up to 64K, more data goes to special than to 4K.
    assert table["64K"][2] != table["4K"][2]
    assert any(line.startswith("risk: ") for line in lines)
    scan.write_text("4096 a\nlots b\n")
    assert_one_line_error(run_main("zfs", "plan", "--scan", scan), f"{scan}:2: 'lots' is not a size in bytes")


def test_fio_runs_on_a_dataset_and_sync_writes_use_the_special_vdev(run_main: RunMain) -> None:
    job = ["--name=w", "--directory=/tank/data", "--rw=randwrite", "--bs=4k", "--size=16m", "--fsync=1"]
    job += ["--ioengine=psync", "--runtime=1", "--time_based", "--output-format=json"]
    fast = run_main("fio", "--pool", "hdd-mirror-special", *job)
    slow = run_main("fio", "--pool", "hdd-mirror", *job)
    assert fast.status == 0 and slow.status == 0, (fast, slow)
    iops = [json.loads(o.out)["jobs"][0]["write"]["iops"] for o in (fast, slow)]
    # Each fsync commits the intent log: an SSD write and flush, or a disk's seek and flush.
    assert iops[0] > 5 * iops[1], iops
    wrong = run_main("fio", "--pool", "hdd-mirror", "--name=w", "--directory=/elsewhere", "--rw=write", "--size=1m")
    assert_one_line_error(wrong, "directory = /elsewhere: not below a dataset of this pool")
