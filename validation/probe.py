#!/usr/bin/env python3
"""The prober's closed loop: probe every shipped profile with ``--twin``, compare what it
inferred with the profile's own parameters, then probe the inferred profile with the same
fio jobs and compare the two drives' results point by point.

    python3 validation/probe.py                    # every profile `ssdtwin profiles` lists
    python3 validation/probe.py p32a80 crucial-p1  # some of them
    python3 validation/probe.py --gc               # SNIA PTS steady state, on cuts of each profile
    python3 validation/probe.py --nbd              # a cut served over NBD, probed with real fio

Prints, per profile, the inferred-vs-true table and the reproduction summary, in the
Markdown docs/validation.md shows, and exits 1 if a value falls outside its tolerance or a
probe takes longer than five minutes. The true values come from the profile (this script
may read it; the prober never does):

* SLC cache size: the largest cache the profile allows on an empty drive (``slc_cache_max_bytes``);
* post-cache write rate: dies x program unit / (native tPROG + the unit's channel transfer),
  the rate program-bound sequential writes reach once writes go native, or the link's payload
  rate where that is lower (the ioDrive2's programs outrun its PCIe 2.0 x4 link);
* QD1 read latency: the stages of a quiet 4 KiB read of native data at the drive's NVMe
  interface (docs/model.md, "One 4 KiB read"), with the map lookup a cached map adds;
* tR: the native mode's ``t_read_us``;
* map-cache coverage: SRAM and HMB segments (under a linux-6.1 host's grant) x 4 MiB.
"""

from __future__ import annotations

import math
import sys
import time
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

import ssdtwin
from ssdtwin import _ssdtwin
from ssdtwin.probe import Settings, TwinRunner, compare, probe, summary, twin_facts

#: Tolerances of the issue's acceptance: value -> relative tolerance.
TOLERANCE = {
    "slc_cache_bytes": 0.10,
    "native_write_bytes_per_s": 0.10,
    "qd1_read_latency_ns": 0.05,
    "native_tr_ns": 0.15,
    "map_coverage_bytes": 0.15,
}
#: Reproduction: the inferred profile's results against the original's.
REPRODUCTION = 0.10
#: Wall time allowed per probe.
BUDGET_S = 300.0
UNIT = 4096


def truth(profile: str, overrides: dict[str, object] | None = None) -> dict[str, float | None]:
    """The values the probe should find, from the profile itself (see the module doc)."""
    cfg: dict[str, Any] = tomllib.loads(ssdtwin.profile_toml(profile, overrides))
    d = ssdtwin.profile_derived(profile, overrides)
    nand, link, ctrl = cfg["nand"], cfg["link"], cfg["controller"]
    native = nand[nand["cell"]]
    unit = nand["planes"] * nand["page_bytes"]
    channel = nand["channel_mts"] * 1e6
    cmd = nand.get("channel_cmd_ns", 0)
    transfer = cmd + unit / channel * 1e9
    # Programs bound the rate once writes go native, unless the link carries less.
    post_cache = min(d["dies"] * unit / (native["t_prog_us"] * 1e3 + transfer) * 1e9, d["link_bytes_per_sec"])
    read = (
        link.get("command_fetch_ns", 700)
        + ctrl["read_cmd_ns"]
        + ctrl.get("unit_ns", 0)
        + native["t_read_us"] * 1e3
        + cmd
        + math.ceil(UNIT / channel * 1e9)
        + nand.get("ecc_decode_ns", 0)
        + math.ceil(UNIT / d["link_bytes_per_sec"] * 1e9)
        + link.get("completion_post_ns", 400)
    )
    device = ssdtwin.Device(profile, overrides=overrides, host="linux-6.1")
    cache = device.map_cache()
    coverage = None
    if cache["location"] != "dram":
        m = cfg["map_cache"]
        segments = cache["sram_segments"] + cache["hmb_segments"]
        coverage = segments * cache["segment_bytes"] / 4 * UNIT
        if cache["residency"] == "partial":
            # The QD sweep reads half the coverage: hits in the second tier, mostly.
            read += m.get("partial_map_cmd_ns", 0) + (m.get("hmb_lookup_ns", 0) if cache["hmb_segments"] else 0)
    return {
        "slc_cache_bytes": d["slc_cache_max_bytes"] or None,
        "native_write_bytes_per_s": post_cache,
        "qd1_read_latency_ns": read,
        "native_tr_ns": native["t_read_us"] * 1e3,
        "map_coverage_bytes": coverage,
        "program_suspend": 0.0 if nand.get("suspend", "none") == "none" else 1.0,
    }


def fmt(name: str, value: float | None) -> str:
    if value is None:
        return "none"
    if name == "program_suspend":
        return "yes" if value else "no"
    if name.endswith("_bytes"):
        return f"{value / 2**30:.2f} GiB"
    if name.endswith("_per_s"):
        return f"{value / 1e6:.0f} MB/s"
    return f"{value / 1e3:.1f} µs"


LABELS = {
    "slc_cache_bytes": "SLC cache",
    "native_write_bytes_per_s": "post-cache write rate",
    "qd1_read_latency_ns": "QD1 read latency",
    "native_tr_ns": "tR (native)",
    "map_coverage_bytes": "map-cache coverage",
    "program_suspend": "reads suspend programs",
}


def inferred_vs_true(est: dict[str, Any], true_values: dict[str, float | None]) -> bool:
    """Prints the inferred-vs-true table; True if every value is within its tolerance."""
    ok = True
    print("| quantity | true | inferred | error | tolerance |")
    print("|---|---|---|---|---|")
    for name, true in true_values.items():
        e = est.get(name)
        got = e.value if e is not None and e.status == "inferred" else None
        if name == "program_suspend":
            if e is None:
                continue  # the suspend step did not run
            good = got == true
            ok &= good
            print(f"| {LABELS[name]} | {fmt(name, true)} | {fmt(name, got)} | {'same' if good else 'DIFFERS'} | same |")
            continue
        if true is None or got is None:
            good = true is None and got is None
            error = "both none" if good else "MISSING" if true is not None else "FOUND WHERE NONE"
        else:
            err = (got - true) / true
            good = abs(err) <= TOLERANCE[name]
            error = f"{err:+.1%}" + ("" if good else " OUT")
        ok &= good
        print(f"| {LABELS[name]} | {fmt(name, true)} | {fmt(name, got)} | {error} | ±{TOLERANCE[name]:.0%} |")
    return ok


#: The profile served over NBD, cut to a few GiB, and the time scale it is served at.
NBD_PROFILE = "wd-black-256"
NBD_CUT: dict[str, object] = {
    "nand.blocks_per_plane": 40,
    "slc_cache.static_gib": 0.5,
    "identity.capacity_bytes": 2 << 30,
}
NBD_SCALE = 16


def check_nbd(out: Path) -> bool:
    """Serves a cut of ``NBD_PROFILE`` with ssdtwin serve and probes it with real fio's nbd
    engine, time-scaled; prints the inferred-vs-true table."""
    import signal
    import subprocess

    from ssdtwin.probe import FioRunner, FioTarget
    from ssdtwin.probe.nbd import nbd_facts

    sock = out / "served.sock"
    sock.unlink(missing_ok=True)
    sets = [a for k, v in NBD_CUT.items() for a in ("--set", f"{k}={v}")]
    command = [sys.executable, "-m", "ssdtwin", "serve", "--profile", NBD_PROFILE, *sets, "--socket", str(sock)]
    server = subprocess.Popen(
        [*command, "--time-scale", str(NBD_SCALE), "--memory-limit", "2.5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        uri = server.stdout.readline().strip()
        runner = FioRunner(FioTarget(uri=uri), time_scale=NBD_SCALE, purge_idle_s=0.1)
        settings = Settings.for_twin().only(("floor", "geometry", "slc", "recovery", "map", "qd"))
        settings = replace(settings, point_s=0.05, recovery_idle_s=(2.0, 10.0))
        start = time.perf_counter()
        result = probe(runner, nbd_facts(uri), settings)
        wall = time.perf_counter() - start
        runner.close()
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    cut = ", ".join(f"{k}={v}" for k, v in NBD_CUT.items())
    print(f"### `{NBD_PROFILE}` served over NBD ({cut}; time scale {NBD_SCALE})\n")
    print(f"Probe: {wall:.0f} s wall (real fio 3.33, nbd engine).\n")
    (out / "served.probed.toml").write_text(result.profile_toml())
    return inferred_vs_true(result.estimates, truth(NBD_PROFILE, NBD_CUT))


def check(profile: str, settings: Settings, out: Path) -> bool:
    start = time.perf_counter()
    runner = TwinRunner(profile)
    result = probe(runner, twin_facts(runner.device), settings)
    wall = time.perf_counter() - start
    runner.close()
    inferred_path = out / f"{profile}.probed.toml"
    inferred_path.write_text(result.profile_toml())
    est = result.estimates
    ok = wall <= BUDGET_S
    print(f"### `{profile}`\n\nProbe: {wall:.0f} s wall (ssdtwin's fio in virtual time).\n")
    ok &= inferred_vs_true(est, truth(profile))
    start = time.perf_counter()
    again = TwinRunner(inferred_path)
    replay = probe(again, twin_facts(again.device), settings)
    again.close()
    table = compare(result, replay)
    worst = table.reindex(table.error.abs().sort_values(ascending=False).index).head(3)
    print(f"\nThe inferred profile through the same jobs ({time.perf_counter() - start:.0f} s):\n")
    print("| measurement | points | within ±10 % | largest error |")
    print("|---|---|---|---|")
    for r in summary(table, REPRODUCTION).itertuples():
        print(f"| {r.measurement} | {r.points} | {r.within} | {r.max_abs_error:.1%} |")
        ok &= r.measurement == "estimates" or r.within == r.points
    print(
        "\nLargest differences: "
        + "; ".join(f"{r.measurement} {r.point} ({r.metric}) {r.error:+.1%}" for r in worst.itertuples())
        + "\n"
    )
    return ok


def gc_cut(profile: str) -> dict[str, object]:
    """The profile with 64 superblocks of 96 pages per block and its SLC cache scaled with
    the array, at 90 % of the largest namespace that allows: GC's steady state in seconds."""
    cfg: dict[str, Any] = tomllib.loads(ssdtwin.profile_toml(profile))
    nand = cfg["nand"]
    scale = 64 * 96 / (nand["blocks_per_plane"] * nand["pages_per_block"])
    cut: dict[str, object] = {"nand.blocks_per_plane": 64, "nand.pages_per_block": 96}
    for name in ("static_gib", "dynamic_max_gib"):
        if name in cfg.get("slc_cache", {}):
            cut[f"slc_cache.{name}"] = cfg["slc_cache"][name] * scale
    cut["identity.capacity_bytes"] = 1 << 30
    strings = [f"{k}={v}" for k, v in cut.items()]
    most = _ssdtwin.max_namespace_bytes(profile, strings)
    cut["identity.capacity_bytes"] = int(most * 0.9) // (1 << 20) * (1 << 20)
    return cut


def check_gc(profile: str, out: Path) -> bool:
    """SNIA PTS steady state on a cut of the profile, and the inferred profile's."""
    cut = gc_cut(profile)
    settings = Settings.for_twin().only(("floor", "geometry", "slc", "gc"))
    start = time.perf_counter()
    runner = TwinRunner(profile, cut)
    result = probe(runner, twin_facts(runner.device), settings)
    runner.close()
    wall = time.perf_counter() - start
    path = out / f"{profile}.gc.probed.toml"
    path.write_text(result.profile_toml())
    again = TwinRunner(path)
    replay = probe(again, twin_facts(again.device), settings)
    again.close()
    est, other = result.estimates, replay.estimates
    iops, iops2 = est["steady_write_iops"].value, other["steady_write_iops"].value
    strings = [f"{k}={v}" for k, v in cut.items()]
    spare = _ssdtwin.max_namespace_bytes(profile, strings) / int(cut["identity.capacity_bytes"]) - 1  # type: ignore[call-overload]
    inferred_spare = est["spare_share"].value if "spare_share" in est else None
    error = (iops2 - iops) / iops if iops and iops2 else float("nan")
    rounds = len(result.gc.table) if result.gc is not None else 0
    shown = f"{inferred_spare:.1%}" if inferred_spare is not None else "none"
    print(
        f"| `{profile}` | {int(cut['identity.capacity_bytes']) / 2**30:.1f} GiB | {rounds} | {iops or 0:,.0f} | "  # type: ignore[call-overload]
        f"{iops2 or 0:,.0f} | {error:+.1%} | {spare:.1%} | {shown} | {wall:.0f} s |"
    )
    return bool(iops and iops2 and abs(error) <= REPRODUCTION)


def main() -> int:
    args = sys.argv[1:]
    gc = "--gc" in args
    names = [a for a in args if a not in ("--gc", "--nbd")] or ssdtwin.profiles()
    out = Path("out/probe").absolute()
    out.mkdir(parents=True, exist_ok=True)
    if "--nbd" in args:
        return 0 if check_nbd(out) else 1
    if gc:
        head = ["profile", "cut to", "rounds", "steady IOPS", "inferred profile's", "error"]
        head += ["spare beyond GC's reserve", "inferred spare", "probe"]
        print("| " + " | ".join(head) + " |")
        print("|---|---|---|---|---|---|---|---|---|")
        return 0 if all([check_gc(name, out) for name in names]) else 1
    settings = Settings.for_twin().only(
        ("floor", "geometry", "slc", "recovery", "fold-reads", "map", "qd", "suspend", "lbaf")
    )
    ok = True
    for name in names:
        ok &= check(name, settings, out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
