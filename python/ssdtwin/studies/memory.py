"""Memory study (reference R6): flash as extended memory, through swap (``malloc``) or a
mapped file (``mmap``), on a 3.6 kernel with and without the fine-grained swap path.

R6's machine — a Xeon E5-2650 with 32 GiB — allocates more memory than it has and sweeps
it: R6's memcpy sweep (valloc N GiB, fill, madvise, memcpy in 1 MiB units, in order or at
random, with 1 or 8 threads), STREAM (3.2 G elements) and Himeno (XXL), plus fio on a file
(lseek+read/write against mmap+memcpy, with and without ``msync(MS_SYNC)`` after each
operation). The drives are a Fusion-io ioDrive2 1.2 TB (its FTL runs on the host) and an
Intel SSD 910 400 GB (two LUNs: two swap areas of equal priority; a file on md RAID 0 over
both, or on one). Each point runs on fresh drives; the memory the kernel leaves for pages is
``dram_fraction * size_gib`` (R6: 75 % of 40 GiB), less the drivers' own memory.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import click
import pandas as pd

from .. import _ssdtwin
from ..device import RunResult, override_strings
from ..params import FiniteFloat
from .base import Advance, Study, choice_list, int_list, seed_option

#: ``--kernel`` names of R6's two kernels; any other value is a host profile.
KERNELS = {"vanilla": "linux-3.6", "fastswap": "linux-3.6-fastswap"}
BENCHES = ("memcpy", "stream", "himeno", "fio")
ALLOCS = ("mmap", "malloc")
#: R6's advice on the region (the study's default), and every value ``--madvise`` takes.
R6_MADVISES = ("none", "sequential", "random")
MADVISES = (*R6_MADVISES, "willneed")
PATTERNS = ("seq", "random")
FIO_RWS = ("read", "write")
FS_LAYOUTS = ("raid0", "single")
#: Himeno's grid sizes (MIMAX, MJMAX, MKMAX); XXL is R6's 112 GiB.
HIMENO_SIZES = {
    "xs": (33, 33, 65),
    "s": (65, 65, 129),
    "m": (129, 129, 257),
    "l": (257, 257, 513),
    "xl": (513, 513, 1025),
    "xxl": (1024, 1024, 2048),
}
#: mdadm's default RAID 0 chunk.
RAID_CHUNK_BYTES = 512 << 10
GIB = 1 << 30


def _host(kernel: str) -> str:
    return KERNELS.get(kernel, kernel)


def _check(size_gib: float, dram_fraction: float, unit_kib: int) -> None:
    if not (isinstance(size_gib, int | float) and math.isfinite(size_gib) and 0 < size_gib <= 65536):
        raise click.BadParameter(f"{size_gib}: allowed above 0 and at most 65536 GiB", param_hint="--size-gib")
    if not (isinstance(dram_fraction, int | float) and math.isfinite(dram_fraction) and 0 < dram_fraction <= 4):
        raise click.BadParameter(
            f"{dram_fraction}: allowed above 0 and at most 4 (the share of --size-gib memory holds)",
            param_hint="--dram-fraction",
        )
    if unit_kib < 4 or unit_kib % 4:
        raise click.BadParameter(f"{unit_kib}: allowed a multiple of 4 KiB", param_hint="--unit-kib")


def _check_fio_advice(benches: Sequence[str], madvises: Sequence[str]) -> None:
    # fio's fadvise_hint knows no WILLNEED; a mapped file would take it, but fio never gives it.
    if "fio" in benches and "willneed" in madvises:
        raise click.BadParameter(
            "willneed: fio's fadvise_hint takes none, sequential or random; run willneed with memcpy, stream or himeno",
            param_hint="--madvise",
        )


def _points(
    benches: Sequence[str],
    kernels: Sequence[str],
    allocs: Sequence[str],
    madvises: Sequence[str],
    patterns: Sequence[str],
    threads: Sequence[int],
    fio_rws: Sequence[str],
    fio_msync: Sequence[bool],
) -> list[dict[str, Any]]:
    """Every point the sweep runs, in order: STREAM and Himeno sweep in order only, and
    fio's lseek+read/write takes no madvise (it maps nothing) and reads take no msync."""
    out = []
    for bench in benches:
        for kernel in kernels:
            for alloc in allocs:
                for madvise in madvises:
                    if bench == "fio" and alloc == "malloc" and madvise != madvises[0]:
                        continue
                    for pattern in patterns if bench in ("memcpy", "fio") else patterns[:1]:
                        for t in threads:
                            rws = fio_rws if bench == "fio" else [""]
                            for rw in rws:
                                for msync in fio_msync if rw == "write" else [False]:
                                    point: dict[str, Any] = {"bench": bench, "kernel": kernel, "alloc": alloc}
                                    point["madvise"] = madvise
                                    point["pattern"] = pattern if bench in ("memcpy", "fio") else "seq"
                                    point |= {"threads": t, "rw": rw, "msync": msync}
                                    out.append(point)
    return out


def memory_sweep(
    profile: str = "iodrive2-1200",
    *,
    kernels: Sequence[str] = ("vanilla", "fastswap"),
    allocs: Sequence[str] = ALLOCS,
    madvises: Sequence[str] = R6_MADVISES,
    patterns: Sequence[str] = PATTERNS,
    threads: Sequence[int] = (1, 8),
    benches: Sequence[str] = ("memcpy",),
    size_gib: float = 40.0,
    dram_fraction: float = 0.75,
    fs_layout: str = "raid0",
    unit_kib: int = 1024,
    stream_elements: int = 3_200_000_000,
    stream_ntimes: int = 2,
    himeno_size: str = "xxl",
    himeno_iterations: int = 3,
    fio_rws: Sequence[str] = FIO_RWS,
    fio_msync: Sequence[bool] = (False, True),
    fio_runtime_s: float = 5.0,
    seed: int = 1,
    overrides: Mapping[str, object] | None = None,
    host_overrides: Mapping[str, object] | None = None,
    advance: Advance = None,
) -> pd.DataFrame:
    """Memory bandwidth of R6's benchmarks on ``profile`` as extended memory: one row per
    (bench, kernel, alloc, madvise, pattern, threads[, fio rw and msync]), with the time,
    ``mb_per_s`` (MB = 10⁶ B, as each benchmark counts bytes), and what the VM and the drive
    did (major faults, swap-ins and -outs, readahead, device bytes, swap-lock spinning).

    A small machine and a small problem run in a moment; the study's defaults are R6's:

    >>> t = memory_sweep("intel-910-400", size_gib=0.25, dram_fraction=0.5, kernels=["vanilla"],
    ...                  madvises=["none"], patterns=["seq"], threads=[1])
    >>> by = t.set_index("alloc")
    >>> int(by.major_faults["malloc"]) // 100, int(by.major_faults["mmap"])  # 64 Ki pages: 8 per swap-in fault
    (81, 2)
    >>> bool(by.mb_per_s["mmap"] > 2 * by.mb_per_s["malloc"])
    True
    """
    _check(size_gib, dram_fraction, unit_kib)
    _check_fio_advice(benches, madvises)
    if himeno_size not in HIMENO_SIZES:
        raise click.BadParameter(f"'{himeno_size}': allowed {', '.join(HIMENO_SIZES)}", param_hint="--himeno-size")
    if fs_layout not in FS_LAYOUTS:
        raise click.BadParameter(f"'{fs_layout}': allowed {', '.join(FS_LAYOUTS)}", param_hint="--fs-layout")
    if not (math.isfinite(fio_runtime_s) and fio_runtime_s > 0):
        raise click.BadParameter(f"{fio_runtime_s}: a positive number of seconds", param_hint="--fio-runtime")
    size_bytes = int(size_gib * GIB) // 4096 * 4096
    memory_bytes = int(dram_fraction * size_gib * GIB) // 4096 * 4096
    profile_sets = override_strings(overrides, {})
    rows = []
    points = _points(benches, kernels, allocs, madvises, patterns, threads, fio_rws, fio_msync)
    for p in points:
        host = _host(p["kernel"])
        host_sets = override_strings(host_overrides, {})
        common = {
            "profile": Path(profile).stem,
            "kernel": p["kernel"],
            "host": host,
            "alloc": p["alloc"],
            "madvise": p["madvise"],
            "pattern": p["pattern"],
            "threads": p["threads"],
            "bench": p["bench"],
            "fs_layout": fs_layout if p["alloc"] == "mmap" else "",
            "memory_gib": memory_bytes / GIB,
        }
        if p["bench"] == "fio":
            row = common | _fio_point(
                profile,
                profile_sets,
                host,
                host_sets,
                p,
                size_bytes,
                memory_bytes,
                unit_kib,
                fs_layout,
                fio_runtime_s,
                seed,
            )
        else:
            out = _ssdtwin.run_memory(
                profile,
                profile_sets,
                host,
                host_sets,
                p["bench"],
                p["alloc"],
                p["madvise"],
                p["pattern"],
                p["threads"],
                seed,
                fs_layout,
                RAID_CHUNK_BYTES,
                memory_bytes,
                size_bytes,
                unit_kib * 1024,
                stream_elements,
                stream_ntimes,
                HIMENO_SIZES[himeno_size],
                himeno_iterations,
            )
            row = common | _memory_row(p["bench"], out)
        rows.append(row)
        if advance:
            advance(f"{p['bench']} {p['kernel']} {p['alloc']} {p['madvise']} {p['pattern']} T{p['threads']}")
    return pd.DataFrame(rows)


def _counters(c: Mapping[str, int]) -> dict[str, Any]:
    """The VM's and the drive's counters over a point, by the study's column names."""
    page = 4096
    return {
        "major_faults": int(c.get("host.major_faults", 0)),
        "minor_faults": int(c.get("host.minor_faults", 0)),
        "swap_in_bytes": int(c.get("host.swap_in_bytes", 0)),
        "swap_out_bytes": int(c.get("host.swap_out_bytes", 0)),
        "swap_readahead_pages": int(c.get("host.swap_readahead_bytes", 0)) // page,
        "mmap_read_bytes": int(c.get("host.mmap_read_bytes", 0)),
        "mmap_readahead_pages": int(c.get("host.mmap_readahead_bytes", 0)) // page,
        "mmap_writeback_bytes": int(c.get("host.mmap_writeback_bytes", 0)),
        "device_read_bytes": int(c.get("host_read_bytes", 0)),
        "device_write_bytes": int(c.get("host_write_bytes", 0)),
        "direct_reclaims": int(c.get("host.direct_reclaims", 0)),
        "swap_lock_spin_ms": c.get("host.swap_lock_spin_ns", 0) / 1e6,
    }


def _memory_row(bench: str, out: Mapping[str, Any]) -> dict[str, Any]:
    seconds = float(out["seconds"])
    row: dict[str, Any] = {"rw": "", "msync": False, "seconds": seconds}
    if bench == "stream":
        # STREAM reports each kernel's best time over iterations 2.. (all if only one).
        per_iter = [out["phase_seconds"][k : k + 4] for k in range(0, len(out["phase_seconds"]), 4)]
        timed = per_iter[1:] or per_iter
        n = int(out["bytes"]) // (80 * len(per_iter)) if per_iter else 0
        for k, (kernel, bytes_per) in enumerate([("copy", 16), ("scale", 16), ("add", 24), ("triad", 24)]):
            best = min(it[k] for it in timed)
            row[f"stream_{kernel}_mb_per_s"] = bytes_per * n / best / 1e6
        row["mb_per_s"] = row["stream_triad_mb_per_s"]
    else:
        row["mb_per_s"] = int(out["bytes"]) / seconds / 1e6
    row["mflops"] = int(out["flops"]) / seconds / 1e6 if out["flops"] else math.nan
    return row | _counters(out["counters"])


def _fio_point(
    profile: str,
    profile_sets: list[str],
    host: str,
    host_sets: list[str],
    p: Mapping[str, Any],
    size_bytes: int,
    memory_bytes: int,
    unit_kib: int,
    fs_layout: str,
    runtime_s: float,
    seed: int,
) -> dict[str, Any]:
    """R6's fio comparison: ``alloc`` mmap is fio's mmap engine (a memcpy through the
    mapping), malloc is lseek+read/write (fio's sync engine, through the page cache);
    ``madvise`` is ``fadvise_hint``; ``msync`` syncs after every write (on the mmap engine,
    ``msync(MS_SYNC)`` of the mapping)."""
    threads = int(p["threads"])
    rw = p["rw"] if p["pattern"] == "seq" else f"rand{p['rw']}"
    share = size_bytes // threads // (unit_kib * 1024) * (unit_kib * 1024)
    engine = "mmap" if p["alloc"] == "mmap" else "sync"
    hint = {"none": "0", "sequential": "sequential", "random": "random"}[p["madvise"]]
    args = [
        "--name=fio",
        "--filename=memfile",
        f"--size={share}",
        f"--offset_increment={share}",
        f"--numjobs={threads}",
        f"--bs={unit_kib}k",
        f"--rw={rw}",
        f"--ioengine={engine}",
        "--direct=0",
        # R6's file held data: a write job writes it out before it starts, as reads do.
        "--overwrite=1",
        f"--fadvise_hint={hint}",
        f"--runtime={int(runtime_s * 1000)}ms",
        "--group_reporting",
        *(["--fsync=1"] if p["msync"] else []),
    ]
    memory_gib = memory_bytes / GIB
    sets = [*host_sets, f"page_cache.memory_gib={memory_gib}"]
    if memory_bytes > _ssdtwin.host_dram_bytes(host, host_sets):
        sets.append(f"cpu.dram_gib={memory_gib}")
    with TemporaryDirectory() as logs:
        out = _ssdtwin.run_fio_on_drive(
            profile, profile_sets, host, sets, args, fs_layout, RAID_CHUNK_BYTES, memory_bytes, seed, logs
        )
    result = RunResult(out)
    s = result.summary
    seconds = float(s.runtime_s.max())
    io_bytes = float(s.io_bytes.sum())
    counters = result.groups.iloc[0].to_dict()
    row: dict[str, Any] = {"rw": p["rw"], "msync": bool(p["msync"]), "seconds": seconds}
    row["mb_per_s"] = io_bytes / seconds / 1e6 if seconds else 0.0
    row["mflops"] = math.nan
    return row | _counters(counters)


def _sweep(advance: Advance, profile: str, overrides: Mapping[str, object], **opts: Any) -> pd.DataFrame:
    return memory_sweep(profile, overrides=overrides, advance=advance, **_options(**opts))


def metric(bench: str) -> str:
    """The column a bench is compared by: Himeno's MFLOPS, else MB/s (10⁶ B/s)."""
    return "mflops" if bench == "himeno" else "mb_per_s"


def mmap_over_malloc(table: pd.DataFrame) -> pd.DataFrame:
    """The study's headline comparison, R6's: each configuration's mmap point beside its
    malloc point (swap; for fio, lseek+read/write, which takes no madvise and so is matched
    whatever the mmap point's), one row per configuration with ``mmap``, ``malloc`` (the
    bench's metric, :func:`metric`) and ``ratio`` (mmap / malloc).

    >>> t = pd.DataFrame({"profile": "p", "bench": "memcpy", "kernel": "vanilla", "madvise": "none",
    ...                   "pattern": "seq", "threads": 1, "rw": "", "msync": False,
    ...                   "alloc": ["mmap", "malloc"], "mb_per_s": [400.0, 100.0], "mflops": float("nan")})
    >>> mmap_over_malloc(t)[["mmap", "malloc", "ratio"]].values.tolist()
    [[400.0, 100.0, 4.0]]
    """
    out = []
    for (profile, bench), t in table.groupby(["profile", "bench"], sort=False):
        value = metric(str(bench))
        keys = ["kernel", "madvise", "pattern", "threads", "rw", "msync"]
        match = [k for k in keys if not (bench == "fio" and k == "madvise")]
        mmap, malloc = t[t.alloc == "mmap"], t[t.alloc == "malloc"]
        pairs = mmap.merge(malloc[[*match, value]], on=match, suffixes=("", "_malloc"))
        out.append(
            pairs[keys].assign(
                profile=profile,
                bench=bench,
                mmap=pairs[value].astype(float),
                malloc=pairs[f"{value}_malloc"].astype(float),
            )
        )
    if not out:
        return pd.DataFrame(columns=["profile", "bench", "kernel", "madvise", "pattern", "threads", "rw", "msync"])
    pairs = pd.concat(out, ignore_index=True)
    return pairs.assign(ratio=pairs.mmap / pairs.malloc.where(pairs.malloc > 0))


def conclusion(table: pd.DataFrame) -> list[str]:
    """What one drive's table says about R6's statements, a sentence per bench (and one on
    the kernels when both ran)."""
    lines = []
    pairs = mmap_over_malloc(table)
    for bench, p in pairs.groupby("bench", sort=False):
        p = p.dropna(subset=["ratio"])
        if not len(p):
            continue
        if bench == "fio":
            plain = p[(p.madvise == "none") & ~p.msync.astype(bool)]
            if len(plain):
                lines.append(
                    f"fio: mmap+memcpy reaches {plain.ratio.mean():.2f} of lseek+read/write's bandwidth "
                    "without madvise or msync (R6: about half)."
                )
            synced = p[(p.madvise != "none") & p.msync.astype(bool)]
            if len(synced):
                lines.append(
                    f"fio: with madvise and msync after each write, mmap reaches {synced.ratio.min():.3f} of "
                    "lseek+write's (R6: extremely slow)."
                )
            continue
        wins = int((p.ratio > 1).sum())
        verdict = "in every configuration" if wins == len(p) else f"in {wins} of {len(p)} configurations"
        lines.append(
            f"{bench}: mmap (a mapped file) beats malloc (swap) {verdict}, by x{p.ratio.min():.2f} to "
            f"x{p.ratio.max():.2f} (R6: mmap beats swap beyond memory)."
        )
    malloc = table[table.alloc == "malloc"]
    kernels = list(dict.fromkeys(malloc.kernel))
    if {"vanilla", "fastswap"} <= set(kernels):
        keys = ["bench", "madvise", "pattern", "threads", "rw", "msync"]
        v = malloc[malloc.kernel == "vanilla"].set_index(keys).mb_per_s
        f = malloc[malloc.kernel == "fastswap"].set_index(keys).mb_per_s
        change = (f / v - 1).dropna() * 100
        if len(change):
            lines.append(
                f"fastswap against vanilla: malloc (swap) bandwidth changes by {change.min():+.1f} % to "
                f"{change.max():+.1f} %."
            )
    return lines


def _report(table: pd.DataFrame, **_: Any) -> str:
    cols = ["bench", "kernel", "alloc", "madvise", "pattern", "threads", "mb_per_s"]
    text = str(table[cols].round({"mb_per_s": 0}).to_string(index=False))
    lines = conclusion(table)
    return text + ("\n\n" + "\n".join(lines) if lines else "")


def _parts(**opts: Any) -> list[dict[str, Any]]:
    # Every point runs on machines and drives of its own; a part is one bench, kernel,
    # allocation, advice and order (the thread counts stay whole), so that workers share
    # the points evenly: a malloc point takes about twice a mmap point's time. The parts are
    # read off the points themselves, in their order, so their tables concatenate in it.
    keys = ("bench", "kernel", "alloc", "madvise", "pattern")
    distinct = dict.fromkeys(tuple(point[k] for k in keys) for point in _all_points(**opts))
    return [dict(zip(keys, values, strict=True)) for values in distinct]


def _options(
    bench: str,
    kernel: str,
    alloc: str,
    madvise: str,
    pattern: str,
    threads: str,
    size_gib: float,
    dram_fraction: float,
    fs_layout: str,
    unit_kib: int,
    stream_elements: int,
    stream_ntimes: int,
    himeno_size: str,
    himeno_iterations: int,
    fio_rw: str,
    fio_msync: str,
    fio_runtime: float,
    seed: int,
) -> dict[str, Any]:
    """The command line's options as :func:`memory_sweep`'s keywords, checked."""
    kernels = [k.strip() for k in kernel.split(",") if k.strip()]
    if not kernels:
        raise click.BadParameter(f"'{kernel}': give vanilla, fastswap or host profiles", param_hint="--kernel")
    msync = {"no": False, "yes": True}
    return {
        "benches": choice_list(bench, BENCHES, "--bench"),
        "kernels": kernels,
        "allocs": choice_list(alloc, ALLOCS, "--alloc"),
        "madvises": choice_list(madvise, MADVISES, "--madvise"),
        "patterns": choice_list(pattern, PATTERNS, "--pattern"),
        "threads": int_list(threads, "--threads"),
        "size_gib": size_gib,
        "dram_fraction": dram_fraction,
        "fs_layout": fs_layout,
        "unit_kib": unit_kib,
        "stream_elements": stream_elements,
        "stream_ntimes": stream_ntimes,
        "himeno_size": himeno_size,
        "himeno_iterations": himeno_iterations,
        "fio_rws": choice_list(fio_rw, FIO_RWS, "--fio-rw"),
        "fio_msync": [msync[v] for v in choice_list(fio_msync, tuple(msync), "--fio-msync")],
        "fio_runtime_s": fio_runtime,
        "seed": seed,
    }


def _all_points(**opts: Any) -> list[dict[str, Any]]:
    """Every point of the command line's options, checked."""
    o = _options(**{k: v for k, v in opts.items() if k not in ("profile", "overrides")})
    _check(o["size_gib"], o["dram_fraction"], o["unit_kib"])
    _check_fio_advice(o["benches"], o["madvises"])
    keys = ("benches", "kernels", "allocs", "madvises", "patterns", "threads", "fio_rws", "fio_msync")
    return _points(*(o[k] for k in keys))


def _count(**opts: Any) -> int:
    return len(_all_points(**opts))


def _positive_int(_ctx: click.Context, param: click.Parameter, value: int) -> int:
    if value < 1:
        raise click.BadParameter(f"{value}: allowed 1 or more", param_hint=f"--{str(param.name).replace('_', '-')}")
    return value


STUDY = Study(
    name="memory",
    profile="iodrive2-1200,intel-910-400",
    help="Flash as extended memory: swap vs mmap on a 3.6 kernel, vanilla vs fastswap (reference R6).",
    options=[
        click.Option(["--bench"], default="memcpy", show_default=True, help="memcpy, stream, himeno, fio (a list)."),
        click.Option(
            ["--kernel"],
            default="vanilla,fastswap",
            show_default=True,
            help="vanilla (linux-3.6), fastswap (linux-3.6-fastswap), or host profiles.",
        ),
        click.Option(["--alloc"], default="mmap,malloc", show_default=True, help="mmap (a file), malloc (swap)."),
        click.Option(
            ["--madvise"],
            default=",".join(R6_MADVISES),
            show_default=True,
            help="Advice on the region: none, sequential, random, willneed (a list).",
        ),
        click.Option(["--pattern"], default="seq,random", show_default=True, help="memcpy/fio unit order."),
        click.Option(["--threads"], default="1,8", show_default=True, help="Threads (one per core)."),
        click.Option(
            ["--size-gib"],
            type=FiniteFloat(),
            default=40.0,
            show_default=True,
            help="memcpy and fio size, GiB.",
        ),
        click.Option(
            ["--dram-fraction"],
            type=FiniteFloat(),
            default=0.75,
            show_default=True,
            help="Share of --size-gib the memory for pages holds (R6: 0.75 of 40 GiB).",
        ),
        click.Option(
            ["--fs-layout"], default="raid0", show_default=True, help="mmap file on a multi-LUN card: raid0 or single."
        ),
        click.Option(
            ["--unit-kib"], type=int, default=1024, show_default=True, help="memcpy unit and fio block size, KiB."
        ),
        click.Option(
            ["--stream-elements"],
            type=int,
            default=3_200_000_000,
            show_default=True,
            callback=_positive_int,
            help="STREAM N.",
        ),
        click.Option(
            ["--stream-ntimes"], type=int, default=2, show_default=True, callback=_positive_int, help="STREAM NTIMES."
        ),
        click.Option(
            ["--himeno-size"], default="xxl", show_default=True, help=f"Himeno grid: {', '.join(HIMENO_SIZES)}."
        ),
        click.Option(
            ["--himeno-iterations"],
            type=int,
            default=3,
            show_default=True,
            callback=_positive_int,
            help="Himeno iterations timed (its rehearsal: 3).",
        ),
        click.Option(["--fio-rw"], default="read,write", show_default=True, help="fio bench directions."),
        click.Option(["--fio-msync"], default="no,yes", show_default=True, help="fio: sync after every write."),
        click.Option(
            ["--fio-runtime"],
            type=FiniteFloat(min=0.001),
            default=5.0,
            show_default=True,
            help="fio runtime per point, s.",
        ),
        seed_option(),
    ],
    sweep=_sweep,
    host="linux-3.6",
    count=_count,
    report=_report,
    parts=_parts,
    takes_host=False,
    figures_by="bench",
)
