"""The golden cases: commands whose whole output is kept in ``tests/golden/<name>.txt`` so a
change that moves any result fails ``tests/test_golden.py``.

Each case is a short run of a study or a fio job on a shipped profile, small enough that all
of them take well under a minute, and together they cross every layer: the bare twin, the
Linux and Windows hosts, buffered I/O, mmap, HDDs under a ZFS pool, the SLC cache and
folding, steady-state GC, and every study's table.

Placeholders in the command lines: ``{small}`` is a tiny drive profile file (the shipped
generic TLC drive shrunk by :func:`ssdtwin.testing.small_overrides`), ``{tmp}`` a fresh
directory of the case's own (studies write their files there).
"""

from __future__ import annotations

#: name -> the ``ssdtwin`` command line, without the program name.
CASES: dict[str, str] = {
    "study-hmb-randread": "study hmb --profile p32a80 --hmb off,128 --ranges 1,16 --seconds 0.05 --json --out '{tmp}'",
    "study-hmb-randwrite": (
        "study hmb --profile p32a80 --hmb off,240 --ranges 1 --rw randwrite --seconds 0.05 --json --out '{tmp}'"
    ),
    "study-qlc-tr": (
        "study qlc-tr --profile crucial-p1 --set slc_cache.fold_high_gib=2 --set slc_cache.fold_low_gib=1 "
        "--max-written-gib 3 --reads 2000 --json --out '{tmp}'"
    ),
    "study-slc-write": (
        "study slc-write --profile wd-black-256 --set slc_cache.static_gib=0.5 --seconds 2 --json --out '{tmp}'"
    ),
    "study-read-after-write": (
        "study read-after-write --profile wd-black-256 --write-seconds 0,1 --read-seconds 2 --json --out '{tmp}'"
    ),
    "study-lbaf": "study lbaf --profile micron-9200max --span-gib 0.25 --seconds 0.01 --json --out '{tmp}'",
    "study-cdm": (
        "study cdm --profile micron-9200max --size 16m --count 2 --measure 1 --interval 1 --json --out '{tmp}'"
    ),
    "study-qd-sweep": (
        "study qd-sweep --profile generic-tlc-1tb --depths 1,32 --seconds 0.005 --span-gib 0.25 --json --out '{tmp}'"
    ),
    "study-qos": "study qos --profile '{small}' --seconds 0.01 --json --out '{tmp}'",
    "study-placement": (
        "study placement --workload adversarial --configs conventional,placed --capacity-gib 4 --warm-up 1 "
        "--measure 0.5 --json --out '{tmp}'"
    ),
    "study-memory": (
        "study memory --profile intel-910-400 --bench memcpy,fio --threads 1 --size-gib 0.25 "
        "--dram-fraction 0.5 --fio-runtime 0.05 --fio-msync no --json --out '{tmp}' --out '{tmp}'"
    ),
    "study-endurance": (
        "study endurance --profile '{small}' --window 0.05 --turnover 0.5 --json --out '{tmp}' --out '{tmp}'"
    ),
    "study-thermal": "study thermal --profile micron-9200max --airflow 0,2 --seconds 2 --json --out '{tmp}'",
    "study-zfs-special": "study zfs-special --files 300 --fill-files 200 --json --out '{tmp}'",
    "study-slc-fill": (
        "study slc-fill --profile crucial-p1 --set nand.blocks_per_plane=48 --set identity.capacity_bytes=12884901888 "
        "--set slc_cache.static_gib=1 --set slc_cache.dynamic_max_gib=2 --set slc_cache.fold_high_gib=2 "
        "--set slc_cache.fold_low_gib=1 --host none --json --out '{tmp}'"
    ),
    "study-whole-fill": "study whole-fill --profile '{small}' --host none --json --out '{tmp}'",
    "study-dirty-recovery": (
        "study dirty-recovery --profile '{small}' --dirty-minutes 0.01 --idle-minutes 0.01 --measure-s 0.05 "
        "--json --out '{tmp}'"
    ),
    "study-pts": (
        "study pts --profile '{small}' --tests throughput,latency --cell-s 0.01 --max-rounds 5 "
        "--host none --json --out '{tmp}'"
    ),
    "fio-bare-randread": (
        "fio --host none --profile micron-9200max --fill seq --name=r --rw=randread --bs=4k --size=1g "
        "--iodepth=32 --ioengine=libaio --runtime=20ms --time_based --output-format=json"
    ),
    "fio-linux-steady-randwrite": (
        "fio --profile '{small}' --fill steady --name=w --rw=randwrite --bs=4k --iodepth=32 "
        "--ioengine=libaio --runtime=50ms --time_based --output-format=json"
    ),
    "fio-linux-io-uring-mixed": (
        "fio --profile generic-tlc-1tb --fill seq:10 --name=m --rw=randrw --bs=16k --size=2g --iodepth=8 "
        "--numjobs=2 --ioengine=io_uring --runtime=20ms --time_based --output-format=json+"
    ),
    "fio-windows-cdm-like": (
        "fio --host windows-10 --profile micron-9200max --name=r --rw=randread --bs=4k --size=256m "
        "--iodepth=32 --ioengine=windowsaio --runtime=20ms --time_based --output-format=json"
    ),
    "fio-linux-psync-normal": (
        "fio --host linux-4.15 --profile p32a80 --hmb 128 --fill seq --name=r --rw=randread --bs=4k "
        "--size=8g --ioengine=psync --runtime=20ms --time_based"
    ),
    "fio-buffered-write-fsync": (
        "fio --profile '{small}' --name=w --filename=data --rw=write --bs=4k --size=8m --direct=0 "
        "--fsync=64 --output-format=json"
    ),
    "fio-buffered-read": (
        "fio --profile '{small}' --name=r --filename=data --rw=read --bs=4k --size=8m --direct=0 --output-format=json"
    ),
    "fio-mmap": (
        "fio --profile '{small}' --name=m --filename=data --rw=randrw --bs=4k --size=4m --ioengine=mmap "
        "--runtime=20ms --time_based --output-format=json"
    ),
    "fio-hdd-pool": (
        "fio --pool hdd-mirror-special --name=r --directory=/tank --filename=f --rw=randwrite --bs=128k "
        "--size=64m --iodepth=4 --ioengine=libaio --runtime=500ms --time_based --output-format=json"
    ),
    "fio-qlc-write-cliff": (
        "fio --host none --profile crucial-p1 --set slc_cache.fold_high_gib=0.5 --set "
        "slc_cache.fold_low_gib=0.25 --name=w --rw=write --bs=128k --size=2g --iodepth=4 "
        "--output-format=json"
    ),
}
