"""A drive profile from a datasheet sheet: each field from the sheet, derived from its facts,
or a prior of ``priors.toml`` for that class of drive, with a comment that says which.

The derivations (docs/profiles.md, "Profiles from datasheets"):

* namespace: the IDEMA size of ``capacity_gb``;
* NAND: the generation from ``cell`` and ``nand_layers`` (or the interface's usual one);
  dies from the sheet or from capacity plus spare over the die size, on the sheet's
  channels or the controller class's; blocks per plane from the die size;
* program times: native tPROG from the rated post-cache write (or, for drives without an
  SLC cache, the rated sequential write) spread over the dies, else the generation's;
  SLC-mode tPROG from the rated sequential write where the array, not the link, bounds it;
* firmware time per command from the rated random IOPS and the controller's cores;
* map: DRAM, HMB (``hmpre`` from ``hmb_mib``) or the controller's SRAM alone;
* SLC cache: the rated size (a static share plus the rest dynamic), else the class's share.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ..errors import ProfileError
from ..profile_text import Profile, check_profile, max_namespace
from .priors import interface_prior, nand_generation, priors, source
from .sheet import Sheet

PAGE_BYTES = 16384
GB = 1e9
GIB = 2**30
MB = 1e6
CHANNEL_CMD_NS = 100
#: The shortest program a fit may give: below it the rating needs more dies or faster
#: channels than the sheet's drive has, and the generation's time stands.
MIN_PROG_US = 50.0
#: The share of the interface's line rate from which a rated write is the link's.
LINK_BOUND = 0.85


def idema_bytes(capacity_gb: float) -> int:
    """The IDEMA capacity of a ``capacity_gb`` drive in bytes (512-byte LBAs).

    >>> idema_bytes(1000), idema_bytes(3840)
    (1000204886016, 3840755982336)
    """
    gb = math.ceil(capacity_gb)
    lbas = 97_696_368 + 1_953_504 * (gb - 50) if gb >= 50 else gb * 10**9 // 512
    return lbas * 512


def profile_text(sheet: Sheet, sheet_name: str, where: str = "sheet", *, calibrate: bool = True) -> str:
    """The profile ``sheet`` describes as commented TOML, its header naming the sheet
    (``sheet_name``) and citing the priors it used: what ``profile new`` writes."""
    profile = build_from_sheet(sheet, where, calibrate=calibrate)
    calibration = _calibration_phrase(sheet, calibrate)
    header = (
        f"{sheet.name}: built by 'ssdtwin profile new' from {sheet_name}, {calibration}.\n"
        "Each field says where it came from: the sheet, a derivation from it, a prior of\n"
        "ssdtwin's priors.toml for this class of drive (cited by the keys below), or a\n"
        "calibration to the public measurements the sheet records.\n"
        "\nPriors' sources:\n" + "\n".join(cited(profile))
    )
    return profile.toml(header)


def _calibration_phrase(sheet: Sheet, calibrate: bool) -> str:
    """``with N fields calibrated`` or ``without calibration``, for the profile's words."""
    n = len(sheet.calibrations) if calibrate else 0
    return f"with {n} field{'s' if n > 1 else ''} calibrated" if n else "without calibration"


def cited(profile: Profile) -> list[str]:
    """The priors' sources the profile's comments cite (``[key]``), with their citations."""
    keys: list[str] = []
    for fields in profile.sections.values():
        for f in fields.values():
            for group in re.findall(r"\[([a-z0-9, -]+)\]", f.comment):
                keys += [
                    k.strip() for k in group.split(",") if k.strip() in priors()["sources"] and k.strip() not in keys
                ]
    return [f"[{k}] {source(k)}" for k in keys]


def build_from_sheet(sheet: Sheet, where: str = "sheet", *, calibrate: bool = True) -> Profile:
    """The profile ``sheet`` describes (see the module doc), with the sheet's calibrations
    (``[[calibrate]]``) applied last unless ``calibrate`` is false; checked by ssdtwin's loader."""
    pri = priors()
    iface = interface_prior(sheet.interface)
    enterprise = sheet.drive_class == "enterprise"
    dramless = sheet.dram_mib == 0
    layers = sheet.nand_layers or int(iface["layers"])
    layers_note = f"{layers} layers ({'sheet' if sheet.nand_layers else 'usual for ' + sheet.interface})"
    gen = nand_generation(sheet.cell, layers)
    p = Profile()
    calibration = _calibration_phrase(sheet, calibrate)

    # --- identity
    capacity = idema_bytes(sheet.capacity_gb)
    p.set("identity", "model", sheet.name[:40], "sheet: drive.name")
    p.set("identity", "firmware", "SHEET1", "built by 'ssdtwin profile new'")
    p.set("identity", "nvme_version", "1.4", "default")
    p.set("identity", "capacity_bytes", capacity, f"sheet: {sheet.capacity_gb:g} GB, the IDEMA size [idema]")
    if sheet.hmb_mib:
        units = sheet.hmb_mib * 256
        p.set("identity", "hmpre", units, f"sheet: asks for {sheet.hmb_mib} MiB of HMB (4 KiB units)")
        p.set("identity", "hmmin", max(1, units // 4), "prior: needs a quarter of it (the worked example's ratio)")
    p.set(
        "identity",
        "sources",
        [*sheet.sources, f"built from the sheet of '{sheet.name}' by 'ssdtwin profile new', {calibration}"],
        "",
    )

    # --- link
    if iface.get("transport") == "sata":
        p.set("link", "transport", "sata", f"sheet: {sheet.interface} [sata]")
        p.set("link", "queue_depth", 33, "NCQ: 32 commands in flight (one queue, one entry kept empty)")
        p.set("link", "io_queues", 1, "AHCI: one command list")
    else:
        p.set("link", "pcie_gen", iface["pcie_gen"], f"sheet: {sheet.interface}")
        p.set("link", "pcie_lanes", iface["pcie_lanes"], f"sheet: {sheet.interface}")
        p.set("link", "io_queues", 128 if enterprise else 32, "default (enterprise 128, consumer 32 queue pairs)")

    # --- controller
    cores, want_channels, controller_note = controller_prior(sheet)
    p.set("controller", "cmd_cv", 0.15, "prior [latency-facts]: firmware time varies per command")
    p.set("controller", "cores", cores, f"prior [controllers]: {controller_note}")
    fw = pri["firmware"]
    share = fw["iops_share"]
    read_ns = round(cores * 1e9 / sheet.rand_read_iops * share)
    write_ns = round(cores * 1e9 / sheet.rand_write_iops * share)
    p.set(
        "controller",
        "read_cmd_ns",
        read_ns,
        f"derived: {cores} cores / {sheet.rand_read_iops:,.0f} rated read IOPS x {share:g} (firmware's share)",
    )
    p.set(
        "controller",
        "write_cmd_ns",
        write_ns,
        f"derived: {cores} cores / {sheet.rand_write_iops:,.0f} rated write IOPS x {share:g}",
    )
    p.set("controller", "unit_ns", fw["dramless_unit_ns"] if dramless else fw["unit_ns"], "prior: docs/profiles.md")
    p.set("controller", "trim_unit_ns", 2, "default: deallocation marks map entries in bulk")
    buffer = (
        fw["write_buffer_mib_enterprise"]
        if enterprise
        else fw["write_buffer_mib_dramless"]
        if dramless
        else fw["write_buffer_mib_dram"]
    )
    p.set("controller", "write_buffer_mib", float(buffer), "prior: SRAM (DRAM-less), DRAM, power-protected DRAM")
    p.set("controller", "power_protected", enterprise, "prior [jedec]: enterprise drives hold power-loss capacitors")

    # --- map
    if not dramless:
        p.set("map_cache", "location", "dram", f"sheet: {sheet.dram_mib} MiB of DRAM holds the 4 B / 4 KiB map")
    else:
        m = pri["dramless_map"]
        p.set(
            "map_cache",
            "location",
            "hmb" if sheet.hmb_mib else "sram",
            "sheet: DRAM-less" + (", HMB" if sheet.hmb_mib else ""),
        )
        p.set("map_cache", "sram_kib", m["sram_kib"], "prior [dramless-map]")
        p.set("map_cache", "max_map_loads", m["max_map_loads"], "prior: DRAM-less firmware")
        p.set("map_cache", "map_load_fw_ns", m["map_load_fw_ns"], "prior")
        if sheet.hmb_mib:
            p.set("map_cache", "hmb_lookup_ns", m["hmb_lookup_ns"], "prior")
            p.set("map_cache", "hmb_direct_lookup_ns", m["hmb_direct_lookup_ns"], "prior")
        p.set("map_cache", "partial_map_cmd_ns", m["partial_map_cmd_ns"], "prior")

    # --- NAND geometry
    die_gbit = sheet.nand_die_gbit or int(gen["die_gbit"])
    die_bytes = die_gbit * GIB // 8
    spare = pri["spare"]["enterprise" if enterprise else "consumer"]
    if sheet.nand_dies:
        dies = sheet.nand_dies
        dies_note = "sheet: drive.nand_dies"
    else:
        dies = max(1, math.ceil(capacity * (1 + spare) / die_bytes))
        dies_note = f"derived: capacity plus {spare:.0%} spare over {die_gbit} Gbit dies"
    channels = min(want_channels, dies)
    if dies % channels:
        # Dies the channels cannot share evenly: more dies, as boards populate every channel.
        dies = math.ceil(dies / channels) * channels
        dies_note += f", rounded up to fill {channels} channels"
    planes = int(gen["planes"])
    pages = int(gen["pages_per_block"])
    block_bytes = pages * PAGE_BYTES
    p.set("nand", "cell", sheet.cell, "sheet: drive.cell")
    p.set("nand", "die_cv", 0.03, "prior: process variation between dies (every shipped profile)")
    channels_note = "sheet: drive.channels" if sheet.channels else f"prior [controllers]: {controller_note}"
    p.set("nand", "channels", channels, channels_note)
    p.set("nand", "dies_per_channel", dies // channels, f"{dies} dies of {die_gbit} Gbit; {dies_note}")
    p.set("nand", "planes", planes, f"prior [{gen['source']}]")
    p.set(
        "nand",
        "blocks_per_plane",
        die_bytes // (planes * block_bytes),
        f"derived: a {die_gbit} Gbit die in {planes} planes",
    )
    p.set("nand", "pages_per_block", pages, f"prior: {block_bytes >> 20} MiB blocks")
    p.set("nand", "page_bytes", PAGE_BYTES, "prior: every generation since 64 layers")
    channel_mts = int(iface["channel_mts"])
    p.set("nand", "channel_mts", channel_mts, f"prior [onfi]: {sheet.interface} controllers")
    p.set("nand", "channel_cmd_ns", CHANNEL_CMD_NS, "prior: address cycles")
    p.set("nand", "ecc_decode_ns", 2000, "prior: LDPC hard decode")
    if layers >= 96:
        p.set("nand", "suspend", "program-erase", "prior: program/erase suspend from 96 layers on")
        p.set("nand", "suspend_us", 20.0, "prior")
        p.set("nand", "resume_us", 10.0, "prior")

    # --- NAND timings
    unit = planes * PAGE_BYTES
    # A die takes its program's data over its channel, then programs: the rated rate per die
    # is one program unit per (transfer + tPROG).
    transfer_us = unit / channel_mts + CHANNEL_CMD_NS / 1e3

    def fitted_prog_us(rate_mbps: float) -> float | None:
        t = unit / (rate_mbps * MB / dies) * 1e6 - transfer_us
        return round(t, 1) if t >= MIN_PROG_US else None

    cached = not enterprise and sheet.cell in ("tlc", "qlc", "mlc")
    native_prog, native_note = float(gen["t_prog_us"]), f"prior [{gen['source']}]: {layers_note}"
    rated_native = sheet.post_cache_write_mbps if cached else sheet.seq_write_mbps
    # A rating within LINK_BOUND of the interface's line rate is the link's (and its
    # protocol's), not the array's: it says nothing of the programs behind it.
    link_bound = sheet.seq_write_mbps >= LINK_BOUND * iface["max_mbps"]
    if rated_native is not None and not (not cached and link_bound):
        what = "post-cache write" if cached else "sequential write (no SLC cache: the array's program rate)"
        fitted = fitted_prog_us(rated_native)
        if fitted is None:
            native_note += f"; the rated {what} {rated_native:g} MB/s is more than {dies} dies can program"
        else:
            native_prog = fitted
            native_note = (
                f"derived: the rated {what} {rated_native:g} MB/s over {dies} dies, "
                f"{unit >> 10} KiB per program after a {transfer_us:.0f} us transfer"
            )
    slc_prog, slc_note = float(gen["slc_t_prog_us"]), f"prior [{gen['source']}]"
    channels_mbps = channel_mts * channels
    if cached and not link_bound and sheet.seq_write_mbps < channels_mbps:
        # The rated sequential write is the in-cache rate, bound by the dies' SLC programs.
        fitted = fitted_prog_us(sheet.seq_write_mbps)
        if fitted is None:
            slc_note += f"; the rated {sheet.seq_write_mbps:g} MB/s is more than {dies} dies can program"
        elif fitted >= native_prog:
            # SLC mode programs faster than the native mode: a rating the native programs
            # alone would give is bound elsewhere (firmware, the host link's protocol).
            slc_note += f"; the rated {sheet.seq_write_mbps:g} MB/s is slower than the native programs"
        else:
            slc_prog = fitted
            slc_note = f"derived: the rated sequential write {sheet.seq_write_mbps:g} MB/s into SLC over {dies} dies"
    elif cached:
        bound = "the link" if link_bound else f"{channels} channels at {channel_mts} MT/s"
        slc_note += f"; the rated {sheet.seq_write_mbps:g} MB/s is {bound}'s"
    spread = priors()["read_spread"].get(sheet.cell)
    p.set(f"nand.{sheet.cell}", "t_read_us", float(gen["t_read_us"]), f"prior [{gen['source']}]: {layers_note}")
    if spread:
        p.set(
            f"nand.{sheet.cell}",
            "t_read_spread_us",
            round(gen["t_read_us"] * spread, 1),
            f"prior: page types ±{spread:.0%} of tR",
        )
    p.set(f"nand.{sheet.cell}", "t_prog_us", native_prog, native_note)
    p.set(f"nand.{sheet.cell}", "t_erase_us", 3000.0, "prior: erase queues with programs; it hardly matters")
    if sheet.cell != "slc":
        p.set("nand.slc", "t_read_us", float(gen["slc_t_read_us"]), f"prior [{gen['source']}]")
        p.set("nand.slc", "t_prog_us", slc_prog, slc_note)
        p.set("nand.slc", "t_erase_us", 2000.0, "prior")

    # --- SLC cache
    if cached:
        c = pri["slc_cache"]
        if sheet.slc_cache_gb is not None:
            total_gib = sheet.slc_cache_gb * GB / GIB
            static = min(total_gib, capacity * c["static_share"] / GIB)
            note = f"sheet: {sheet.slc_cache_gb:g} GB in all"
        else:
            share = c[f"dynamic_share_{sheet.cell}"] if f"dynamic_share_{sheet.cell}" in c else c["dynamic_share_tlc"]
            static = capacity * c["static_share"] / GIB
            total_gib = static + capacity * share / GIB
            note = (
                f"prior [{c['source']}]: a static {c['static_share']:.0%} and up to {share:.0%} of the capacity dynamic"
            )
        p.set("slc_cache", "static_gib", round(static, 2), note)
        p.set("slc_cache", "dynamic_max_gib", round(max(0.0, total_gib - static), 2), note)
        p.set(
            "slc_cache",
            "dynamic_min_free_pct",
            c["dynamic_min_free_pct"],
            "prior: the dynamic part goes as the drive fills",
        )
        p.set("slc_cache", "when_full", "direct", "prior: writes go native when the cache is full")
        p.set("slc_cache", "fold_idle_ms", c["fold_idle_ms"], "prior [reviews-recovery]: folded when the drive idles")
        p.set("slc_cache", "fold_idle_low_gib", 0.0, "prior [reviews-recovery]: an idle drive folds the whole cache")

    # --- endurance
    pe = priors()["pe_cycles"].get(sheet.cell)
    if pe:
        p.set("endurance", f"{sheet.cell}_pe_cycles", pe, "prior [pe-cycles]")
    p.set("endurance", "read_retry_fresh", 0.002, "prior [latency-facts]")
    p.set("endurance", "read_retry_rated", 0.95, "prior [latency-facts]")
    p.set("endurance", "read_retry_again", 0.5, "prior")
    if enterprise:
        p.set("endurance", "uber_per_bit", 1e-16, "prior [jedec]")
    if sheet.tbw:
        p.set("endurance", "rated_tb_written", sheet.tbw, "sheet: drive.tbw")

    if calibrate:
        for cal in sheet.calibrations:
            section, name = cal.field.rsplit(".", 1)
            p.set(section, name, cal.value, f"calibrated: {cal.reason}")
    try:
        _fit_blocks(p, capacity, where, sheet)
        check_profile(p.toml())
    except ProfileError as e:
        if not (calibrate and sheet.calibrations) or str(e).startswith(f"{where}: "):
            raise
        # The loader names the built file, a temporary one: the sheet's calibrations made it.
        fields = ", ".join(c.field for c in sheet.calibrations)
        raise ProfileError(f"{where}: calibrate ({fields}): {str(e).split(': ', 1)[-1]}") from None
    return p


def write_rates_mbps(profile: Mapping[str, Any]) -> dict[str, float]:
    """What a built profile's array programs, MB/s, by cell mode (its native mode and
    ``slc``): every die taking a program unit over its channel and then programming it,
    as the fits assume, within what the channels carry."""
    n = profile["nand"]
    dies = n["channels"] * n["dies_per_channel"]
    unit = n["planes"] * n["page_bytes"]
    transfer_us = unit / n["channel_mts"] + n["channel_cmd_ns"] / 1e3
    channels_mbps = n["channels"] * n["channel_mts"]
    return {
        mode: min(channels_mbps, dies * unit / (n[mode]["t_prog_us"] + transfer_us))
        for mode in ("slc", "mlc", "tlc", "qlc")
        if mode in n
    }


def controller_prior(sheet: Sheet) -> tuple[int, int, str]:
    """The controller's cores and channels where the sheet does not say: by its class
    (enterprise, DRAM-less NVMe, or the interface's controllers with DRAM), and which."""
    iface = interface_prior(sheet.interface)
    cc = priors()["controller_class"]
    if sheet.drive_class == "enterprise":
        cores, channels, what = cc["enterprise_cores"], cc["enterprise_channels"], "an enterprise controller"
    elif sheet.dram_mib == 0 and "pcie_gen" in iface:
        cores, channels, what = cc["dramless_cores"], cc["dramless_channels"], "a DRAM-less NVMe controller"
    else:
        cores, channels, what = iface["cores"], iface["channels"], f"a {sheet.interface} controller"
    return int(cores), sheet.channels or int(channels), what


def _fit_blocks(p: Profile, capacity: int, where: str, sheet: Sheet) -> None:
    """Refuses a sheet whose NAND cannot hold its capacity (with the static SLC cache and
    GC's reserve, as the capacity rule counts them)."""
    most = max_namespace(p)
    if most >= capacity:
        return
    n = p.sections["nand"]
    dies = int(n["channels"].value) * int(n["dies_per_channel"].value)  # type: ignore[call-overload]
    key = "nand_dies" if sheet.nand_dies else "nand_die_gbit" if sheet.nand_die_gbit else "capacity_gb"
    raise ProfileError(
        f"{where}: drive.{key}: {dies} dies hold at most a {most / GB:,.0f} GB namespace "
        f"(with the static SLC cache and GC's reserve), less than capacity_gb = {sheet.capacity_gb:g}"
    )
