"""ssdtwin.zfs: pools, their saved states, the views (zpool list, zdb) and the planner.

Expectations come from the model's own tables (what zdb counts must be what the classes
hold, what the planner sums must be what the special class holds) and from the layouts of
zpool_main.c and zdb.c."""

from __future__ import annotations

from pathlib import Path

import pytest
from ssdtwin import Pool, PoolError, PoolUnavailableError
from ssdtwin.zfs import nicenum, plan_table, zdb_plan, zdb_text, zpool_list_text


@pytest.fixture(scope="module")
def created() -> Pool:
    """The shipped mirror with a special mirror, 3000 files created (small blocks to 32K)."""
    p = Pool("hdd-mirror-special")
    p.add_tree(files=3000, size_dist="lognormal:16K:2.0", files_per_dir=200)
    p.run_op("create")
    return p


def test_a_saved_state_replays_to_the_same_pool(tmp_path: Path) -> None:
    p = Pool("hdd-mirror-special", overrides={"datasets.data.special_small_blocks_bytes": "8K"})
    p.add_tree(files=500, size_dist="fixed:6K")
    p.run_op("create")
    p.run(["--name=w", "--directory=/tank/data", "--rw=write", "--bs=128k", "--size=8m", "--ioengine=psync"])
    p.drop_caches()
    p.run_op("stat")
    p.fail("sdb")
    state = tmp_path / "tank.state"
    p.save(state)
    with pytest.raises(FileExistsError):
        p.save(state)
    q = Pool.load(state)
    assert q.usage() == p.usage()
    assert q.list_rows() == p.list_rows()
    assert q.block_stats() == p.block_stats()
    assert q.now_s == p.now_s
    (tmp_path / "bad.state").write_text('{"format": "something-else"}')
    with pytest.raises(PoolError, match="not a pool state file"):
        Pool.load(tmp_path / "bad.state")


def test_zpool_list_follows_zpool_mains_layout(created: Pool) -> None:
    text = zpool_list_text(created.list_rows())
    lines = text.splitlines()
    # The name column is as wide as the widest name with its indent: "    nvme0n1", 11.
    columns = "   SIZE  ALLOC   FREE  CKPOINT  EXPANDSZ   FRAG    CAP  DEDUP    HEALTH  ALTROOT"
    assert lines[0] == "NAME".ljust(11) + columns
    names = [line.split()[0] for line in lines[1:]]
    assert names == ["tank", "mirror-0", "sda", "sdb", "special", "mirror-1", "nvme0n1", "nvme1n1"]
    # Every value ends where its header does (right-justified columns).
    for header in ("SIZE", "ALLOC", "FREE", "HEALTH"):
        end = lines[0].index(header) + len(header)
        assert all(line[end - 1] != " " for line in lines[1:] if line.split()[0] != "special"), header
    usage = created.usage()
    pool_row = lines[1].split()
    assert pool_row[2] == nicenum(usage["normal"]["allocated_bytes"] + usage["special"]["allocated_bytes"])
    assert pool_row[-2:] == ["ONLINE", "-"]
    exact = zpool_list_text(created.list_rows(), parsable=True, scripted=True).splitlines()
    assert exact[0].split("\t")[:3] == [
        "tank",
        str(created.list_rows()[0]["size"]),
        str(created.list_rows()[0]["alloc"]),
    ]
    assert zpool_list_text(created.list_rows(), verbose=False).count("\n") == 2


def test_zdb_text_feeds_the_planner_exactly_when_parsable(created: Pool) -> None:
    stats = created.block_stats()
    text = zdb_text(stats, parsable=True)
    assert "\tNo leaks (block sum matches space maps exactly)" in text
    assert "    L1 ZFS plain file" in text and "Metadata Total" in text
    plan = zdb_plan(text, "zdb.txt")
    assert plan["metadata_bytes"] == stats["metadata_total"][3]
    assert plan["data_bytes"] == stats["total"][3], "the asize histogram sums every block"
    human = zdb_plan(zdb_text(stats), "zdb.txt")
    assert human["metadata_bytes"] == pytest.approx(stats["metadata_total"][3], rel=0.01), "three digits of nicenum"
    with pytest.raises(PoolError, match=r"^zdb\.txt:1: no 'Metadata Total' row"):
        zdb_plan("\n", "zdb.txt")


def test_the_planner_sums_what_the_special_class_holds(created: Pool) -> None:
    table = plan_table(created.plan([0, 16 << 10, 32 << 10]))
    usage = created.usage()["special"]
    assert usage["size_bytes"] > 0 and created.usage()["small_blocks_redirected_bytes"] == 0
    # Every metadata block, every copy, rounded to 4 KiB sectors: the special class's metadata.
    assert table.metadata_bytes.iloc[0] == usage["metadata_bytes"]
    # Data blocks of at most 32K physical bytes: exactly the special class's data.
    row = table[table.special_small_blocks_bytes == 32 << 10].iloc[0]
    assert row.small_data_bytes == usage["data_bytes"]
    assert row.needed_bytes == -(-(row.metadata_bytes + row.small_data_bytes) * 100 // 75)
    assert table.needed_bytes.iloc[0] == table.metadata_bytes.iloc[0], "metadata alone may fill the class"


def test_tree_and_device_errors_name_what_is_wrong() -> None:
    p = Pool("hdd-mirror")
    with pytest.raises(PoolError, match=r"^--size-dist = normal:4K: unknown kind"):
        p.add_tree(files=10, size_dist="normal:4K")
    with pytest.raises(PoolError, match=r"^pool 'tank' has no dataset 'tank/nope' \(it has tank, tank/data\)$"):
        p.add_tree("tank/nope", files=10)
    p.add_tree(files=10, size_dist="fixed:4K")
    with pytest.raises(PoolError, match="create its tree first"):
        p.run_op("find")
    with pytest.raises(PoolError, match=r"^operation = grep: allowed create, find"):
        p.run_op("grep")
    with pytest.raises(PoolError, match="has no device 'sdz'"):
        p.fail("sdz")
    with pytest.raises(PoolError, match=r"a job on a pool names its dataset's mount point \(/tank, /tank/data\)"):
        p.run(["--name=w", "--rw=write", "--size=1m"])


def test_losing_the_special_mirror_loses_the_pool() -> None:
    p = Pool("hdd-mirror-special")
    p.add_tree(files=100, size_dist="fixed:4K")
    p.run_op("create")
    p.fail("nvme0n1")
    p.check()
    p.fail("nvme1n1")
    with pytest.raises(PoolUnavailableError, match=r"^pool 'tank' is lost: special vdev mirror-1 has no copy left"):
        p.check()
    with pytest.raises(PoolUnavailableError):
        p.run_op("find")
    assert [r["health"] for r in p.list_rows()][:1] == ["UNAVAIL"]
