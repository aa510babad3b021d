#!/usr/bin/env python3
"""Memory per file of a large tree on a pool, and wall time of the ZFS commands: prints one
JSON object, as docs/performance.md records them.

    python3 bench/zfs.py [FILES]

Runs `crates/ssdtwin-core/examples/zfs_bench.rs` (release, no Python in the process, so
resident memory is the model's own) on a FILES-file tree (default 1,000,000) on the shipped
`hdd-mirror` and `hdd-mirror-special` pools, then times the CLI on the shipped pools:
`study zfs-special` with its defaults, `zfs plan` of a 100,000-file tree, `zpool list -v`
and `zdb -bbb` of a saved 100,000-file state.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from speed import commit, machine  # noqa: E402


def timed(*args: str, cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ssdtwin", *args], cwd=cwd, check=True, capture_output=True)
    return round(time.perf_counter() - start, 2)


def main() -> int:
    files = sys.argv[1] if len(sys.argv) > 1 else "1000000"
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "ssdtwin-core", "--example", "zfs_bench"], cwd=ROOT, check=True
    )
    exe = ROOT / "target" / "release" / "examples" / "zfs_bench"
    figures = json.loads(subprocess.run([str(exe), files], cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        state = cwd / "tank.state"
        figures["cli_wall_s"] = {
            "study zfs-special": timed("study", "zfs-special", "--out", "out", cwd=cwd),
            "zfs plan --files 100000": timed("zfs", "plan", "--files", "100000", cwd=cwd),
            "zfs run --files 100000 --ops create --save-state": timed(
                "zfs", "run", "--files", "100000", "--ops", "create", "--save-state", str(state), cwd=cwd
            ),
            "zpool list -v --state": timed("zpool", "list", "-v", "--state", str(state), cwd=cwd),
            "zdb -bbb --state": timed("zdb", "-bbb", "--state", str(state), cwd=cwd),
        }
    figures.update({"machine": machine(), "commit": commit(), "command": f"python3 bench/zfs.py {files}"})
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
