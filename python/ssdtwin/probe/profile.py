"""The profile a probe writes: every field the measurements determine, with the estimate it
came from, and every other field at its documented default, saying so.

Each field carries a comment: ``measured: …`` with the value's uncertainty and measurement,
``derived: …`` for a value computed from measured ones, or ``default: …`` for a field no
measurement reaches (the defaults are those of docs/profiles.md, "When the datasheet is
silent"). The namespace size comes from the target; the number of blocks is the smallest
that holds it with the default spare (7 % of the namespace, a consumer drive's) unless the GC
measurement inferred the spare; the result is checked by building it with ssdtwin's own
profile loader.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..errors import ProbeError
from ..profile_text import Profile, max_namespace
from .estimate import Estimate
from .facts import Facts
from .floor import COMMAND_FETCH_NS, COMPLETION_POST_NS, UNIT
from .geometry import CHANNEL_CMD_NS

#: Spare space (raw less namespace, over the namespace) when nothing measured it.
DEFAULT_SPARE = 0.07
#: Pages per block by cell mode when nothing measured them (18 MiB TLC, 24 MiB QLC blocks).
DEFAULT_PAGES = {"tlc": 1152, "qlc": 1536, "mlc": 768, "slc": 384}
#: A cache up to this share of the namespace is taken as static; above it, 1 % is static and
#: the rest dynamic (docs/profiles.md: static 0.5-1 %, dynamic up to a third of free space).
STATIC_SHARE = 0.10
#: Superblocks the array has at least (pages per block shrink on a small target to keep them).
MIN_SUPERBLOCKS = 64
#: Native tPROG over SLC tPROG above which the cells are taken as QLC.
QLC_PROGRAM_RATIO = 6.0


def _measured(e: Estimate | None, scale: float = 1.0, unit: str = "") -> str:
    if e is None or e.value is None:
        return "not measured"
    text = f"measured: {e.value * scale:.4g}{unit}"
    if e.uncertainty is not None:
        text += f" ± {e.uncertainty * scale:.2g}{unit}"
    if e.status != "inferred":
        text += f" ({e.status})"
    return f"{text}; {e.measurement}"


def _default(why: str = "") -> str:
    return "default (not inferred" + (f": {why}" if why else "") + ")"


def build_profile(facts: Facts, estimates: Mapping[str, Estimate]) -> Profile:
    """The profile the estimates describe (``estimates`` by name; see the module doc)."""
    e = estimates.get
    p = Profile()

    def val(name: str) -> float | None:
        est = e(name)
        return None if est is None else est.value

    # --- identity
    p.set(
        "identity",
        "model",
        (facts.model or "probed drive")[:40],
        f"reported ({facts.source})" if facts.model else _default(),
    )
    if facts.serial:
        p.set("identity", "serial", facts.serial[:20], "reported")
    if facts.firmware:
        p.set("identity", "firmware", facts.firmware[:8], "reported")
    mdts = facts.mdts if facts.mdts is not None else max(0, int(math.log2(facts.max_io_bytes // UNIT)))
    p.set("identity", "mdts", mdts, "reported" if facts.mdts is not None else "largest I/O the target takes")
    if facts.hmpre_units:
        p.set("identity", "hmpre", facts.hmpre_units, "reported (Identify Controller)")
        p.set("identity", "hmmin", facts.hmmin_units, "reported (Identify Controller)")
    p.set(
        "identity", "capacity_bytes", facts.size_bytes - facts.size_bytes % UNIT, f"the target's size ({facts.source})"
    )

    # --- link
    p.set("link", "pcie_gen", int(val("pcie_gen") or 3), _measured(e("link_bytes_per_s"), 1e-9, " GB/s"))
    p.set(
        "link",
        "pcie_lanes",
        int(val("pcie_lanes") or 4),
        "with pcie_gen: the link nearest the measured ceiling (links of equal raw rate, such as Gen2 x4 and"
        " Gen3 x2, cannot be told apart; the model gives them the same payload rate)",
    )
    payload = e("max_payload_bytes")
    if payload is not None and payload.status == "inferred" and payload.value is not None:
        p.set(
            "link",
            "max_payload_bytes",
            int(payload.value),
            "with the link: the payload share of its raw rate that gives the measured ceiling",
        )
    for name, default in (("command_fetch_ns", COMMAND_FETCH_NS), ("completion_post_ns", COMPLETION_POST_NS)):
        est = e(name)
        if est is not None and est.status == "inferred" and est.value is not None:
            p.set("link", name, round(est.value), _measured(est))
        else:
            p.set("link", name, default, _default("latency that holds no core, apart from firmware time only at depth"))

    # --- controller
    p.set("controller", "cores", int(val("controller_cores") or 4), _measured(e("controller_cores")))
    p.set("controller", "read_cmd_ns", round(val("read_cmd_ns") or 1500), _measured(e("read_cmd_ns")))
    p.set("controller", "write_cmd_ns", round(val("write_cmd_ns") or 2000), _measured(e("write_cmd_ns")))
    p.set("controller", "unit_ns", round(val("unit_ns") or 0), _measured(e("unit_ns")))
    cached_map = val("map_coverage_bytes") is not None
    buffer = val("write_buffer_bytes")
    if buffer is not None:
        p.set(
            "controller",
            "write_buffer_mib",
            round(buffer / 2**20, 1),
            _measured(e("write_buffer_bytes"), 2**-20, " MiB"),
        )
    else:
        p.set(
            "controller",
            "write_buffer_mib",
            4.0 if cached_map else 32.0,
            _default("2-4 MiB DRAM-less, 32 MiB with DRAM"),
        )

    # --- NAND geometry
    unit = int(val("program_unit_bytes") or 32768)
    dies = int(val("dies") or 8)
    channels_est = e("channels")
    channel = val("channel_bytes_per_s") or 800e6
    if channels_est is not None and channels_est.value:
        channels = int(channels_est.value)
    else:
        channels = unbinding_channels(dies, unit, channel, val("link_bytes_per_s") or 0.0)
    per_channel = max(1, math.ceil(dies / channels))
    dies = channels * per_channel
    page = 16384 if unit % 16384 == 0 else unit
    planes = unit // page
    tr_native = val("native_tr_ns") or val("first_tr_ns") or 50_000.0
    overhead = val("first_read_overhead_ns")
    ecc = max(0.0, (overhead or CHANNEL_CMD_NS + 2000) - CHANNEL_CMD_NS)
    transfer_ns = CHANNEL_CMD_NS + unit / channel * 1e9

    def t_prog(rate: float | None) -> float | None:
        if not rate:
            return None
        return dies * unit / rate * 1e9 - transfer_ns

    native_rate = val("native_write_bytes_per_s")
    has_cache = (val("slc_cache_bytes") or 0) > 0
    prog_slc = t_prog(val("slc_write_bytes_per_s")) if has_cache else None
    slc_note = "derived: dies x program unit / in-cache write rate, less the transfer; " + _measured(
        e("slc_write_bytes_per_s"), 1e-6, " MB/s"
    )
    calibrated = e("native_program_time_ns")
    bound = t_prog(native_rate)
    if calibrated is not None and calibrated.status == "inferred" and calibrated.value and bound:
        prog_native = calibrated.value
        prog_note = f"calibrated: {calibrated.method}"
        # The link that bound the post-cache writes bounds the faster in-cache ones too:
        # their program time is an upper bound as well, taken down by the same share.
        if prog_slc is not None:
            prog_slc *= prog_native / bound
            slc_note += f"; x {prog_native / bound:.2f}, as the calibrated native tPROG"
    else:
        prog_native = bound or 600_000.0
        prog_note = "derived: dies x program unit / post-cache write rate, less the unit's transfer; " + _measured(
            e("native_write_bytes_per_s"), 1e-6, " MB/s"
        )
    cell = "qlc" if prog_slc and prog_native / prog_slc > QLC_PROGRAM_RATIO else "tlc"
    cell_note = (
        f"native tPROG / SLC tPROG = {prog_native / prog_slc:.1f} (QLC above {QLC_PROGRAM_RATIO:g})"
        if prog_slc
        else _default("no SLC cache to compare program times with")
    )
    p.set("nand", "cell", cell, cell_note)
    p.set(
        "nand",
        "channels",
        channels,
        _measured(channels_est)
        if channels_est and channels_est.value
        else _default(
            "the channels never bound a measurement; min(dies, 8), or the fewest dividing the dies that"
            " carry the link's rate with 10 % to spare"
        ),
    )
    p.set("nand", "dies_per_channel", per_channel, f"dies / channels; dies {_measured(e('dies'))}")
    p.set("nand", "planes", planes, f"program unit / 16 KiB page; program unit {_measured(e('program_unit_bytes'))}")
    p.set("nand", "blocks_per_plane", 0, "")  # sized below
    # Fewer pages on a small target, so the array keeps MIN_SUPERBLOCKS superblocks: GC and
    # the SLC cache work a superblock at a time.
    per_page = dies * unit
    pages = DEFAULT_PAGES[cell]
    fit = facts.size_bytes // (MIN_SUPERBLOCKS * per_page) // 12 * 12
    if fit < pages:
        pages = max(12, int(fit))
        why = f"an 18 MiB TLC or 24 MiB QLC block; fewer pages so {MIN_SUPERBLOCKS} superblocks hold the namespace"
    else:
        why = "an 18 MiB TLC or 24 MiB QLC block"
    p.set("nand", "pages_per_block", pages, _default(why))
    p.set("nand", "page_bytes", page, "with planes: the measured program unit")
    p.set("nand", "channel_mts", max(1, round(channel / 1e6)), _measured(e("channel_bytes_per_s"), 1e-6, " MB/s"))
    p.set("nand", "channel_cmd_ns", CHANNEL_CMD_NS, _default("address cycles"))
    p.set(
        "nand",
        "ecc_decode_ns",
        round(ecc),
        f"derived: read overhead less command cycles; {_measured(e('first_read_overhead_ns'))}",
    )
    suspends = e("program_suspend")
    if suspends is None or suspends.value is None:
        p.set("nand", "suspend", "program-erase", _default("program/erase suspend, as NAND of 96 layers on"))
    elif suspends.value:
        p.set("nand", "suspend", "program-erase", f"measured: {suspends.method}; erase suspend assumed with it")
    else:
        p.set("nand", "suspend", "none", f"measured: {suspends.method}")
    p.set("nand", "suspend_us", 20.0, _default())
    p.set("nand", "resume_us", 10.0, _default())

    tr_est = e("native_tr_ns") or e("first_tr_ns")
    p.set(f"nand.{cell}", "t_read_us", tr_native / 1e3, _measured(tr_est, 1e-3, " us"))
    p.set(f"nand.{cell}", "t_prog_us", prog_native / 1e3, prog_note)
    p.set(f"nand.{cell}", "t_erase_us", 3000.0, _default())
    if has_cache:
        slc_tr = val("first_tr_ns") or tr_native / 2
        p.set("nand.slc", "t_read_us", slc_tr / 1e3, _measured(e("first_tr_ns"), 1e-3, " us"))
        p.set(
            "nand.slc",
            "t_prog_us",
            (prog_slc or prog_native / 3) / 1e3,
            slc_note,
        )
        p.set("nand.slc", "t_erase_us", 2000.0, _default())

    # --- map cache
    coverage = val("map_coverage_bytes")
    if coverage is None:
        p.set(
            "map_cache", "location", "dram", "no knee in latency against span: " + (_measured(e("map_coverage_bytes")))
        )
        p.set("map_cache", "map_cell", "slc" if has_cache else cell, "the mode whose table is given")
    else:
        location = "hmb" if facts.hmpre_units else "sram"
        segments = coverage / (1024 * UNIT)
        sram_span = val("map_sram_span_bytes")
        granted = facts.hmb_granted_bytes or 0
        if location == "hmb" and sram_span is None:
            sram_span = max(0.0, coverage - granted / 4096 * 1024 * UNIT)
        sram_kib = round((sram_span if location == "hmb" else coverage) / (1024 * UNIT) * 4)  # type: ignore[operator]
        p.set(
            "map_cache",
            "location",
            location,
            f"knee in latency against span; {'the drive asks for HMB' if location == 'hmb' else 'no HMB'}",
        )
        p.set(
            "map_cache",
            "sram_kib",
            max(1, sram_kib) if location == "sram" else sram_kib,
            f"coverage {segments:.0f} segments of 4 MiB span; " + _measured(e("map_coverage_bytes"), 2**-30, " GiB"),
        )
        miss_est = e("map_load_service_ns") or e("map_miss_penalty_ns")
        miss = (miss_est.value if miss_est is not None else None) or 0.0
        load_fw = max(0.0, miss - tr_native - (CHANNEL_CMD_NS + UNIT / channel * 1e9) - ecc)
        p.set(
            "map_cache", "map_cell", cell, "translation pages read at the native tR (the miss penalty absorbs the rest)"
        )
        p.set(
            "map_cache",
            "map_load_fw_ns",
            round(load_fw),
            "derived: a load's time less a native read; " + _measured(miss_est, 1e-3, " us"),
        )
        p.set("map_cache", "max_map_loads", int(val("map_loads_in_flight") or 4), _measured(e("map_loads_in_flight")))
        hmb_hit = val("map_hmb_hit_ns")
        if location == "hmb":
            p.set("map_cache", "hmb_lookup_ns", round(hmb_hit or 0), _measured(e("map_hmb_hit_ns")))

    # --- FTL
    p.set("ftl", "gc_policy", "greedy", _default())

    # --- SLC cache
    if has_cache:
        cache = val("slc_cache_bytes") or 0.0
        cache_gib = cache / 2**30
        static = cache_gib if cache <= STATIC_SHARE * facts.size_bytes else 0.01 * facts.size_bytes / 2**30
        p.set(
            "slc_cache",
            "static_gib",
            round(static, 3),
            _measured(e("slc_cache_bytes"), 2**-30, " GiB")
            + ("" if static == cache_gib else "; split static/dynamic by the documented rule (1 % static)"),
        )
        if static < cache_gib:
            p.set("slc_cache", "dynamic_max_gib", round(cache_gib - static, 3), "derived: cache less the static part")
            p.set("slc_cache", "dynamic_min_free_pct", 20.0, _default())
        p.set("slc_cache", "when_full", "direct", _default("writes go native once the cache is full"))
        fold_idle = e("fold_idle_ms")
        if fold_idle is not None and fold_idle.value is not None:
            p.set("slc_cache", "fold_idle_ms", round(fold_idle.value, 1), _measured(fold_idle))
        on_read = e("fold_on_read")
        if on_read is not None:
            p.set("slc_cache", "fold_on_read", bool(on_read.value), _measured(on_read))

    # --- namespace
    if facts.lba_formats:
        formats = [
            {
                "data_bytes": f.data_bytes,
                "metadata_bytes": f.metadata_bytes,
                "relative_performance": f.relative_performance,
            }
            for f in facts.lba_formats
        ]
        p.set("namespace", "current_format", facts.current_format or 0, "reported (Identify Namespace)")
        p.set("namespace", "lba_formats", formats, "reported (Identify Namespace)")
    elif facts.lba_bytes != 512:
        p.set("namespace", "lba_formats", [{"data_bytes": facts.lba_bytes}], "the target's LBA size")

    spare = val("spare_share")
    size_blocks(p, facts.size_bytes, DEFAULT_SPARE if spare is None else spare, e("spare_share"))
    return p


def unbinding_channels(dies: int, unit: int, channel_bytes_per_s: float, link_bytes_per_s: float) -> int:
    """Channels for a drive whose channels bound no measurement: ``min(dies, 8)``, or, where
    that many would not carry the link's rate (10 % to spare; each channel moves a program
    unit per command cycles and transfer), the fewest that divide the dies and do.

    >>> unbinding_channels(32, 16384, 200e6, 0.48e9), unbinding_channels(192, 16384, 200e6, 1.66e9)
    (8, 12)
    """
    per_channel = unit / (CHANNEL_CMD_NS * 1e-9 + unit / channel_bytes_per_s)
    need = 1.1 * link_bytes_per_s / per_channel
    channels = min(dies, 8)
    if channels >= need:
        return channels
    return next((c for c in range(channels, dies + 1) if dies % c == 0 and c >= need), dies)


def size_blocks(p: Profile, capacity: int, spare: float, spare_estimate: Estimate | None) -> None:
    """Sets ``nand.blocks_per_plane``: the namespace plus ``spare`` of it, plus what the
    capacity rule keeps back (GC's reserve, open frontiers, a static SLC cache and the room
    to fold it; asked of the core as the difference between the raw array and the largest
    namespace), so ``spare`` is the room GC has beyond its reserve, as :mod:`.gc` calibrates it."""
    n = p.sections["nand"]
    superblock = int(n["channels"].value) * int(n["dies_per_channel"].value) * int(n["planes"].value)  # type: ignore[call-overload]
    superblock *= int(n["pages_per_block"].value) * int(n["page_bytes"].value)  # type: ignore[call-overload]
    blocks = max(8, math.ceil(capacity * (1 + spare) / superblock))
    source = (
        _measured(spare_estimate) if spare_estimate is not None else _default(f"spare {spare:.0%} of the namespace")
    )
    comment = f"namespace plus spare beyond GC's reserve; {source}"
    p.set("nand", "blocks_per_plane", blocks, comment)
    kept = blocks * superblock - max_namespace(p)
    blocks += math.ceil(kept / superblock)
    for _ in range(64):
        p.set("nand", "blocks_per_plane", blocks, comment)
        if max_namespace(p) >= capacity:
            return
        blocks += 1
    raise ProbeError("no block count holds the namespace: the inferred SLC cache or geometry is inconsistent")
