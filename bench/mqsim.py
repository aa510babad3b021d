#!/usr/bin/env python3
"""Simulation speed of ssdtwin beside MQSim's on the same drive and workloads: a table, or
one JSON object with ``--json``.

    python3 bench/mqsim.py [--mqsim DIR] [--scale K] [--repeat N] [--json]

MQSim (CMU-SAFARI's SSD simulator, C++) is taken from ``--mqsim DIR`` or ``$MQSIM_DIR``:
the directory of the user's own build of its public source, holding the ``MQSim`` binary;
nothing of it is in this repository, and the script builds nothing. It writes MQSim's SSD
configuration XML and workload XML into a temporary directory and runs ``DIR/MQSim -i
ssdconfig.xml -w workload.xml`` there, once per workload. Without MQSim (no directory, no
binary in it) it says why in one line, prints ssdtwin's figures alone and exits 0; a
workload MQSim fails on is said so on stderr and left out of the ratio.

Figures, per workload and simulator:

- ``requests``: host requests simulated (MQSim's ``Request_Count`` from its output XML,
  the sum of fio's ``total_ios`` for ssdtwin);
- ``simulated_s``: simulated time those requests took (ssdtwin: the device clock's advance
  over the run; MQSim: the last line of its response-time log, written at most every
  100 µs of simulated time, so to within 100 µs: its XML divides by whole seconds only);
- ``wall_s``: wall time of the simulation itself: ssdtwin's ``Device.run`` call (the
  median of ``--repeat`` runs, each on a copy of the preconditioned drive; the JSON has
  every run's), MQSim's event loop, from its "Finished preconditioning" line (or, for a
  workload without preconditioning, its "Executing scenario" line) to its "MQSim
  finished" line, each stamped as it arrives on MQSim's stdout;
- ``setup_wall_s``: building and preconditioning the drive (ssdtwin: ``Device(...)`` and
  ``fill``; MQSim: from its start to that first line: reading the XML, building the model,
  its steady-state preconditioning);
- ``requests_per_wall_s``: ``requests / wall_s``, the speed compared;
- ``simulated_iops``: ``requests / simulated_s``; not the comparison, but how closely the
  two models' drives agree. Reads and sequential writes agree within tens of per cent; at
  GC steady state MQSim moves more pages per host write and its writes wait far longer
  behind GC, so it reaches far fewer IOPS (and does more work per request);
- ``gc_pages_moved``: valid 4 KiB pages GC copied during the run (ssdtwin's
  ``gc_units_moved``; MQSim's ``Total_GC_Executions x Average_Page_Movement_For_GC``);
- ``speed_ratio``: ssdtwin's ``requests_per_wall_s`` over MQSim's.

The drive (ssdtwin: the shipped ``generic-tlc-1tb`` with the overrides below and every
source of latency variability off, ``ssdtwin.testing.ideal_overrides``, since MQSim has
none; no host model, ``host="none"``, as MQSim drives the NVMe interface directly):

====================================  =====================================  ==========================
ssdtwin (``--set``)                   MQSim (ssdconfig.xml)                  value
====================================  =====================================  ==========================
nand.channels                         Flash_Channel_Count                    8
nand.dies_per_channel                 Chip_No_Per_Channel, with              4
                                      Die_No_Per_Chip = 1 (a chip is a die
                                      on the channel)
nand.planes                           Plane_No_Per_Die                       2
nand.blocks_per_plane                 Block_No_Per_Plane                     256
nand.pages_per_block                  Page_No_Per_Block                      96 (ssdtwin's TLC needs a
                                                                             multiple of 3)
nand.page_bytes                       Page_Capacity                          4096: a page is one 4 KiB
                                                                             map unit, as ssdtwin maps,
                                                                             so MQSim's page-level map
                                                                             does no read-modify-write
                                                                             for 4 KiB writes
nand.cell                             Flash_Technology                       TLC
nand.tlc.t_read_us / t_prog_us /      Page_Read_Latency_{LSB,CSB,MSB} /      50 / 600 / 3500 µs, the
t_erase_us                            Page_Program_Latency_{LSB,CSB,MSB} /   same for every page type
                                      Block_Erase_Latency (ns)
nand.channel_mts                      Channel_Transfer_Rate, with            800 MT/s x 1 byte
                                      Flash_Channel_Width = 1
nand.suspend                          CMD_Suspension_Support                 none / NONE
identity.capacity_bytes               Overprovisioning_Ratio                 raw x (1 - 0.12) = 5.28 GiB
                                                                             of 6 GiB raw
ftl.gc_bg_threshold_sb                GC_Exec_Threshold x Block_No_Per_Plane 20 free blocks per plane
                                                                             (a superblock is a block of
                                                                             every plane)
ftl.gc_policy                         GC_Block_Selection_Policy              greedy / GREEDY
controller.write_buffer_mib           Data_Cache_Capacity (WRITE_CACHE)      32 MiB
map_cache.location = "dram"           Ideal_Mapping_Table = true             the whole map in DRAM
link.pcie_gen / pcie_lanes            PCIe_Lane_Bandwidth / PCIe_Lane_Count  gen 3 (0.985 GB/s) x 4
link.queue_depth                      IO_Queue_Depth                         1024
====================================  =====================================  ==========================

MQSim's preemptible GC, copyback and wear levelling are off; ssdtwin's firmware time
(``controller.*_cmd_ns``), ECC decode and command cycles stay as the profile has them
(MQSim models none of them; they do not bound these workloads). The over-provisioning is
12 %, not MQSim's default 7 %: MQSim's preconditioning refuses 90 % occupancy below it,
and ssdtwin keeps GC's 20 superblocks and its open frontiers out of the namespace. GC
starts below 20 free blocks because MQSim stops host writes on a plane with fewer than 10
(its GC jobs per plane) and, with GC starting below 10 or 13 here, deadlocked.

The workloads (fio options for ssdtwin; MQSim: one synthetic flow, ``QUEUE_DEPTH``
generator, i.e. a closed loop with that many requests outstanding, ``Stop_Time`` 0 and
``Total_Requests_To_Generate`` the request count; random addresses uniform over the whole
namespace, drawn with replacement as fio's ``norandommap`` does):

- ``randread-4k-qd32``: 4 KiB random reads at QD32. ssdtwin fills the drive sequentially
  first (every read reaches flash); MQSim preconditions 90 % of it (the most it allows
  for a 100 % working set) and gives each never-written page a read touches a flash page
  of its own, so those read flash too. Those pages fill its write frontiers: past about
  600,000 reads here (``--scale`` above 1.2) it needs new blocks, starts GC, and stops
  with "Unlocking an LPA that has not been locked!" (its GC does not handle them).
- ``randwrite-4k-qd32-gc``: 4 KiB random writes at QD32, 90 % of the namespace written
  and GC at steady state first: ssdtwin's ``fill("random", 90)`` (written, then
  overwritten at random twice), MQSim's own steady-state preconditioning at 90 %
  occupancy. Both collect garbage from the first writes on.
- ``seqwrite-128k-qd8``: 128 KiB sequential writes at QD8 on an empty drive (MQSim:
  ``STREAMING`` from a random start, wrapping at the end, no preconditioning: with it
  MQSim stops after 10 requests). Above ``--scale 1.3`` it writes more than the drive
  holds and GC starts in both.

Request counts at ``--scale 1``: 500,000 reads, 300,000 random writes, 30,000
sequential writes. The whole script then takes about half a minute here, most of it
MQSim's preconditioning (~7 s a workload) and event loop.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import commit, machine

PROFILE = "generic-tlc-1tb"
SECTOR_BYTES = 512  # MQSim counts request sizes and alignments in 512 B sectors
# MQSim writes a response-time log line at most once per this much simulated time; the last
# line is the simulated time to within this (its XML's IOPS divide by whole seconds only).
LOG_PERIOD_NS = 100_000
# MQSim runs up to 10 GC jobs per plane and stops taking writes on a plane with fewer free
# blocks than that (GC_and_WL_Unit_Page_Level's max_ongoing_gc_reqs_per_plane); GC must
# start well before: starting it below 10 or 13 free blocks deadlocked here, 20 runs.
GC_FREE_BLOCKS_PER_PLANE = 20


@dataclasses.dataclass(frozen=True)
class Drive:
    """The drive both simulators model; see the module docstring for each field's names."""

    channels: int = 8
    dies_per_channel: int = 4
    planes: int = 2
    blocks_per_plane: int = 256
    pages_per_block: int = 96
    page_bytes: int = 4096
    t_read_us: float = 50.0
    t_prog_us: float = 600.0
    t_erase_us: float = 3500.0
    channel_mts: int = 800
    # Room for ssdtwin's reserve (GC's 20 superblocks and its open frontiers) and for
    # MQSim's preconditioning at 90 %, which it refuses with 7 % (its default) here.
    overprovisioning: float = 0.12
    gc_free_blocks_per_plane: int = GC_FREE_BLOCKS_PER_PLANE
    write_buffer_mib: int = 32
    pcie_gen: int = 3
    pcie_lane_gb_per_s: float = 0.985  # 8 GT/s with 128b/130b coding
    pcie_lanes: int = 4
    queue_depth: int = 1024

    @property
    def raw_bytes(self) -> int:
        dies = self.channels * self.dies_per_channel
        return dies * self.planes * self.blocks_per_plane * self.pages_per_block * self.page_bytes

    @property
    def capacity_bytes(self) -> int:
        """MQSim's logical space, ``raw x (1 - overprovisioning)`` in whole pages."""
        pages = int(self.raw_bytes // self.page_bytes * (1 - self.overprovisioning))
        return pages * self.page_bytes


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    rw: str  # fio's rw: randread, randwrite, write
    block_bytes: int
    queue_depth: int
    requests_at_scale_1: int
    fill: tuple[str, float] | None  # ssdtwin's Device.fill(pattern, percent), or none
    occupancy_percent: int  # MQSim's Initial_Occupancy_Percentage

    def requests(self, scale: float) -> int:
        return max(1, round(self.requests_at_scale_1 * scale))


WORKLOADS = (
    Workload("randread-4k-qd32", "randread", 4096, 32, 500_000, ("seq", 100.0), 90),
    Workload("randwrite-4k-qd32-gc", "randwrite", 4096, 32, 300_000, ("random", 90.0), 90),
    Workload("seqwrite-128k-qd8", "write", 128 << 10, 8, 30_000, None, 0),
)


# --- ssdtwin ---------------------------------------------------------------------------


def ssdtwin_overrides(drive: Drive) -> dict[str, object]:
    from ssdtwin.testing import ideal_overrides

    # MQSim draws no latency at random: switch off every spread the profile sets.
    overrides: dict[str, object] = dict(ideal_overrides(PROFILE))
    overrides.update(
        {
            "nand.channels": drive.channels,
            "nand.dies_per_channel": drive.dies_per_channel,
            "nand.planes": drive.planes,
            "nand.blocks_per_plane": drive.blocks_per_plane,
            "nand.pages_per_block": drive.pages_per_block,
            "nand.page_bytes": drive.page_bytes,
            "nand.cell": "tlc",
            "nand.tlc.t_read_us": drive.t_read_us,
            "nand.tlc.t_prog_us": drive.t_prog_us,
            "nand.tlc.t_erase_us": drive.t_erase_us,
            "nand.channel_mts": drive.channel_mts,
            "nand.suspend": "none",
            "identity.capacity_bytes": drive.capacity_bytes,
            "ftl.gc_bg_threshold_sb": drive.gc_free_blocks_per_plane,
            "ftl.gc_policy": "greedy",
            "controller.write_buffer_mib": drive.write_buffer_mib,
            "map_cache.location": "dram",
            "link.pcie_gen": drive.pcie_gen,
            "link.pcie_lanes": drive.pcie_lanes,
            "link.queue_depth": drive.queue_depth,
        }
    )
    return overrides


def fio_args(w: Workload, requests: int) -> list[str]:
    # time_based with a long runtime so that number_ios alone ends the job (a sequential
    # job wraps instead of stopping at the end of the drive); norandommap draws addresses
    # with replacement, as MQSim's generator does.
    return [
        f"--name={w.name}",
        f"--rw={w.rw}",
        f"--bs={w.block_bytes}",
        f"--iodepth={w.queue_depth}",
        f"--number_ios={requests}",
        "--ioengine=libaio",
        "--direct=1",
        "--norandommap",
        "--time_based",
        "--runtime=1h",
    ]


def run_ssdtwin(drive: Drive, w: Workload, requests: int, repeat: int) -> dict[str, Any]:
    import ssdtwin

    start = time.perf_counter()
    dev = ssdtwin.Device(PROFILE, overrides=ssdtwin_overrides(drive), host="none")
    if w.fill is not None:
        dev.fill(w.fill[0], w.fill[1])
    setup_wall_s = time.perf_counter() - start
    runs = [timed_ssdtwin_run(dev.copy(), w, requests) for _ in range(repeat)]
    median = sorted(runs, key=lambda r: r["wall_s"])[(len(runs) - 1) // 2]
    figures = dict(median)
    figures["setup_wall_s"] = setup_wall_s
    figures["wall_s_runs"] = [r["wall_s"] for r in runs]
    return figures


def timed_ssdtwin_run(dev: Any, w: Workload, requests: int) -> dict[str, Any]:
    before_counters, before_s = dev.counters(), dev.now_s
    start = time.perf_counter()
    result = dev.run(fio_args(w, requests))
    wall_s = time.perf_counter() - start
    after = dev.counters()
    done = sum(job[d]["total_ios"] for job in result.json["jobs"] for d in ("read", "write"))
    return figures(
        requests=done,
        simulated_s=dev.now_s - before_s,
        wall_s=wall_s,
        # A page is one 4 KiB map unit here (Drive.page_bytes), so units moved are pages moved.
        gc_pages_moved=after["gc_units_moved"] - before_counters["gc_units_moved"],
    )


def ssdtwin_version() -> str:
    try:
        import ssdtwin

        return str(getattr(ssdtwin, "__version__", "unknown"))
    except ImportError as e:
        return f"not importable: {e}"


# --- MQSim -------------------------------------------------------------------------------


def mqsim_dir(arg: str | None) -> Path | None:
    text = arg or os.environ.get("MQSIM_DIR")
    return Path(text).expanduser().resolve() if text else None


def ensure_mqsim(directory: Path | None) -> tuple[Path | None, str]:
    """The MQSim binary in ``directory``, or None and why not. The script builds nothing:
    MQSim is the user's own build of its public source."""
    if directory is None:
        return None, "no --mqsim DIR and no MQSIM_DIR"
    if not directory.is_dir():
        return None, f"{directory} is not a directory"
    exe = directory / "MQSim"
    if exe.is_file() and os.access(exe, os.X_OK):
        return exe, ""
    return None, f"{directory} holds no built MQSim binary"


def xml_fields(tag: str, fields: dict[str, object], indent: str = "") -> str:
    """``<tag>`` holding one element per field, as MQSim's readers expect."""
    inner = "\n".join(
        xml_fields(k, v, indent + "\t") if isinstance(v, dict) else f"{indent}\t<{k}>{xml_value(v)}</{k}>"
        for k, v in fields.items()
    )
    return f"{indent}<{tag}>\n{inner}\n{indent}</{tag}>"


def xml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def mqsim_ssd_config(drive: Drive, precondition: bool) -> str:
    read_ns, prog_ns = round(drive.t_read_us * 1000), round(drive.t_prog_us * 1000)
    # Half a block above the count so that MQSim's floor(threshold x blocks) lands on it.
    gc_threshold = (drive.gc_free_blocks_per_plane + 0.5) / drive.blocks_per_plane
    flash = {
        "Flash_Technology": "TLC",
        "CMD_Suspension_Support": "NONE",
        "Page_Read_Latency_LSB": read_ns,
        "Page_Read_Latency_CSB": read_ns,
        "Page_Read_Latency_MSB": read_ns,
        "Page_Program_Latency_LSB": prog_ns,
        "Page_Program_Latency_CSB": prog_ns,
        "Page_Program_Latency_MSB": prog_ns,
        "Block_Erase_Latency": round(drive.t_erase_us * 1000),
        "Block_PE_Cycles_Limit": 3000,
        "Suspend_Erase_Time": 0,
        "Suspend_Program_Time": 0,
        "Die_No_Per_Chip": 1,
        "Plane_No_Per_Die": drive.planes,
        "Block_No_Per_Plane": drive.blocks_per_plane,
        "Page_No_Per_Block": drive.pages_per_block,
        "Page_Capacity": drive.page_bytes,
        "Page_Metadat_Capacity": 224,  # (sic) read but unused by MQSim's model
    }
    device = {
        "Seed": 321,
        "Enabled_Preconditioning": precondition,
        "Memory_Type": "FLASH",
        "HostInterface_Type": "NVME",
        "IO_Queue_Depth": drive.queue_depth,
        "Queue_Fetch_Size": 512,
        "Caching_Mechanism": "ADVANCED",
        "Data_Cache_Sharing_Mode": "SHARED",
        "Data_Cache_Capacity": drive.write_buffer_mib << 20,
        "Address_Mapping": "PAGE_LEVEL",
        "Ideal_Mapping_Table": True,
        "CMT_Capacity": 2 << 20,
        "CMT_Sharing_Mode": "SHARED",
        "Plane_Allocation_Scheme": "CWDP",
        "Transaction_Scheduling_Policy": "OUT_OF_ORDER",
        "Overprovisioning_Ratio": drive.overprovisioning,
        "GC_Exec_Threshold": f"{gc_threshold:.6f}",
        "GC_Block_Selection_Policy": "GREEDY",
        "Use_Copyback_for_GC": False,
        "Preemptible_GC_Enabled": False,
        "GC_Hard_Threshold": 0.005,
        "Dynamic_Wearleveling_Enabled": False,
        "Static_Wearleveling_Enabled": False,
        "Static_Wearleveling_Threshold": 100,
        "Flash_Channel_Count": drive.channels,
        "Flash_Channel_Width": 1,
        "Channel_Transfer_Rate": drive.channel_mts,
        "Chip_No_Per_Channel": drive.dies_per_channel,
        "Flash_Comm_Protocol": "NVDDR2",
        "Flash_Parameter_Set": flash,
    }
    host = {
        "PCIe_Lane_Bandwidth": drive.pcie_lane_gb_per_s,
        "PCIe_Lane_Count": drive.pcie_lanes,
        "SATA_Processing_Delay": 400000,
        # The log's last line is how the simulated time is read (LOG_PERIOD_NS).
        "Enable_ResponseTime_Logging": True,
        "ResponseTime_Logging_Period_Length": LOG_PERIOD_NS,
    }
    body = xml_fields("Execution_Parameter_Set", {"Host_Parameter_Set": host, "Device_Parameter_Set": device})
    return '<?xml version="1.0" encoding="us-ascii"?>\n' + body + "\n"


def mqsim_workload(drive: Drive, w: Workload, requests: int) -> str:
    sectors = w.block_bytes // SECTOR_BYTES
    flow = {
        "Priority_Class": "HIGH",
        "Device_Level_Data_Caching_Mode": "WRITE_CACHE",
        "Channel_IDs": ",".join(str(i) for i in range(drive.channels)),
        "Chip_IDs": ",".join(str(i) for i in range(drive.dies_per_channel)),
        "Die_IDs": "0",
        "Plane_IDs": ",".join(str(i) for i in range(drive.planes)),
        "Initial_Occupancy_Percentage": w.occupancy_percent,
        "Working_Set_Percentage": 100,
        "Synthetic_Generator_Type": "QUEUE_DEPTH",
        "Read_Percentage": 100 if w.rw.endswith("read") else 0,
        "Address_Distribution": "STREAMING" if w.rw == "write" else "RANDOM_UNIFORM",
        "Percentage_of_Hot_Region": 0,
        "Generated_Aligned_Addresses": True,
        "Address_Alignment_Unit": sectors,
        "Request_Size_Distribution": "FIXED",
        "Average_Request_Size": sectors,
        "Variance_Request_Size": 0,
        "Seed": 798,
        "Average_No_of_Reqs_in_Queue": w.queue_depth,
        "Bandwidth": 0,
        "Stop_Time": 0,  # 0: stop after Total_Requests_To_Generate
        "Total_Requests_To_Generate": requests,
    }
    scenario = xml_fields("IO_Scenario", {"IO_Flow_Parameter_Set_Synthetic": flow}, "\t")
    return f'<?xml version="1.0" encoding="us-ascii"?>\n<MQSim_IO_Scenarios>\n{scenario}\n</MQSim_IO_Scenarios>\n'


def stamped_run(exe: Path, cwd: Path, start_marker: str) -> tuple[dict[str, float], int, str]:
    """Runs MQSim in ``cwd``; the wall time (from its start) at which the line starting
    with ``start_marker`` and its last line arrived, its exit status and its last lines."""
    stamps: dict[str, float] = {}
    tail: list[str] = []
    start = time.perf_counter()
    proc = subprocess.Popen(
        [str(exe), "-i", "ssdconfig.xml", "-w", "workload.xml"],
        cwd=cwd,
        # MQSim waits for a key press after the last scenario (cin.get()): give it none.
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    )
    assert proc.stdout is not None
    # MQSim ends every message with std::endl, which flushes: each line arrives as printed.
    for line in proc.stdout:
        now = time.perf_counter() - start
        for key, marker in (("simulating", start_marker), ("finished", "MQSim finished at")):
            if line.startswith(marker):
                stamps[key] = now
        if line.strip():
            tail = [*tail, line.strip()][-5:]
    status = proc.wait()
    stamps["exited"] = time.perf_counter() - start
    return stamps, status, " | ".join(tail)


def mqsim_simulated_s(log: Path) -> float | None:
    """The simulated time of the log's last line (µs in its first column)."""
    try:
        lines = [x for x in log.read_text().splitlines()[1:] if x.strip()]
    except OSError:
        return None
    return float(lines[-1].split()[0]) / 1e6 if lines else None


def mqsim_counts(result_xml: Path) -> dict[str, float]:
    root = ET.parse(result_xml).getroot()
    flow = root.find("Host/Host.IO_Flow")
    ftl = root.find("SSDDevice/SSDDevice.FTL")
    if flow is None or ftl is None:
        raise ValueError(f"{result_xml}: no Host.IO_Flow or SSDDevice.FTL element")
    gc_runs = float(ftl.get("Total_GC_Executions", "0"))
    moved_per_gc = float(ftl.get("Average_Page_Movement_For_GC", "0").replace("-nan", "0").replace("nan", "0"))
    return {"requests": float(flow.findtext("Request_Count", "0")), "gc_pages_moved": gc_runs * moved_per_gc}


def run_mqsim(exe: Path, drive: Drive, w: Workload, requests: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mqsim-bench-") as tmp:
        cwd = Path(tmp)
        # MQSim's preconditioning hangs a STREAMING flow (after 10 requests here, at any
        # occupancy): the sequential writes run on an unconditioned, empty drive, and the
        # timed phase starts when the scenario does (building the model takes ~30 ms).
        precondition = w.occupancy_percent > 0
        (cwd / "ssdconfig.xml").write_text(mqsim_ssd_config(drive, precondition))
        (cwd / "workload.xml").write_text(mqsim_workload(drive, w, requests))
        marker = "Finished preconditioning" if precondition else "Executing scenario"
        stamps, status, tail = stamped_run(exe, cwd, marker)
        result = cwd / "workload_scenario_1.xml"
        # MQSim may crash freeing its model after it wrote the results (exit status -6 or
        # -11 here): figures it wrote in full stand, with the status beside them.
        if not result.is_file() or not {"simulating", "finished"} <= stamps.keys():
            return {"error": f"exit status {status}, output ends: {tail}"}
        try:
            counts = mqsim_counts(result)
        except (ET.ParseError, ValueError) as e:
            return {"error": f"exit status {status}, unreadable results: {e}"}
        simulated_s = mqsim_simulated_s(cwd / "workload.IO_Flow.No_0.log")
    if counts["requests"] != requests:
        # A deadlocked model ends when its event queue empties, with what it did so far.
        return {"error": f"exit status {status}, stopped after {counts['requests']:,.0f} of {requests:,} requests"}
    out = figures(
        requests=int(counts["requests"]),
        simulated_s=simulated_s,
        wall_s=stamps["finished"] - stamps["simulating"],
        gc_pages_moved=round(counts["gc_pages_moved"]),
    )
    out.update({"setup_wall_s": stamps["simulating"], "process_wall_s": stamps["exited"], "exit_status": status})
    return out


def mqsim_commit(directory: Path | None) -> str | None:
    if directory is None or not directory.is_dir():
        return None
    try:
        return subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


# --- figures and output ----------------------------------------------------------------


def figures(*, requests: int, simulated_s: float | None, wall_s: float, gc_pages_moved: int) -> dict[str, Any]:
    return {
        "requests": requests,
        "simulated_s": simulated_s,
        "wall_s": wall_s,
        "requests_per_wall_s": requests / wall_s if wall_s > 0 else None,
        "simulated_iops": requests / simulated_s if simulated_s else None,
        "gc_pages_moved": gc_pages_moved,
    }


def speed_ratio(twin: dict[str, Any], mq: dict[str, Any] | None) -> float | None:
    if not mq or not mq.get("requests_per_wall_s") or not twin.get("requests_per_wall_s"):
        return None
    return float(twin["requests_per_wall_s"]) / float(mq["requests_per_wall_s"])


def number(value: object, digits: int = 0) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:,.{digits}f}"


def table(rows: list[dict[str, Any]]) -> str:
    head = ("workload", "simulator", "requests", "simulated_s", "wall_s", "setup_wall_s", "requests/wall_s", "sim IOPS")
    lines = [head]
    for row in rows:
        for name in ("ssdtwin", "mqsim"):
            f = row.get(name)
            if f is None:
                continue
            if "error" in f:
                # The reason went to stderr when it happened; the table keeps its columns.
                lines.append((row["workload"], "MQSim", "failed", "-", "-", "-", "-", "-"))
                continue
            lines.append(
                (
                    row["workload"],
                    "ssdtwin" if name == "ssdtwin" else "MQSim",
                    number(f["requests"]),
                    number(f["simulated_s"], 4),
                    number(f["wall_s"], 3),
                    number(f["setup_wall_s"], 2),
                    number(f["requests_per_wall_s"]),
                    number(f["simulated_iops"]),
                )
            )
        if row.get("speed_ratio") is not None:
            lines.append((row["workload"], "ssdtwin/MQSim", "", "", "", "", f"x {row['speed_ratio']:,.1f}", ""))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join(aligned(line, widths) for line in lines)


def aligned(cells: tuple[str, ...], widths: list[int]) -> str:
    """Names (the first two columns) to the left, figures to the right."""
    return "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mqsim", metavar="DIR", help="MQSim checkout (default: $MQSIM_DIR)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every workload's request count")
    parser.add_argument("--repeat", type=int, default=3, help="ssdtwin runs per workload; the median is reported")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    if args.scale <= 0:
        parser.error(f"--scale must be positive, not {args.scale}")
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")

    drive = Drive()
    directory = mqsim_dir(args.mqsim)
    exe, why_not = ensure_mqsim(directory)
    if exe is None:
        # With --json on stderr, so that stdout stays one JSON object (which says it too).
        print(f"MQSim skipped: {why_not}", file=sys.stderr if args.json else sys.stdout, flush=True)

    rows = []
    for w in WORKLOADS:
        requests = w.requests(args.scale)
        twin = run_ssdtwin(drive, w, requests, args.repeat)
        mq = run_mqsim(exe, drive, w, requests) if exe is not None else None
        if mq is not None and "error" in mq:
            print(f"MQSim failed on {w.name}: {mq['error']}", file=sys.stderr)
        rows.append(
            {
                "workload": w.name,
                "rw": w.rw,
                "block_bytes": w.block_bytes,
                "queue_depth": w.queue_depth,
                "ssdtwin": twin,
                "mqsim": mq,
                "speed_ratio": speed_ratio(twin, mq),
            }
        )

    if args.json:
        mqsim: dict[str, Any] = {"dir": str(directory) if directory else None, "commit": mqsim_commit(directory)}
        if exe is None:
            mqsim["skipped"] = why_not
        result = {
            "machine": machine(),
            "load_average": os.getloadavg(),
            "ssdtwin": {"version": ssdtwin_version(), "commit": commit()},
            "mqsim": mqsim,
            "drive": {
                **dataclasses.asdict(drive),
                "raw_bytes": drive.raw_bytes,
                "capacity_bytes": drive.capacity_bytes,
            },
            "workloads": rows,
            "command": "python3 bench/mqsim.py " + " ".join(sys.argv[1:]),
        }
        print(json.dumps(result, indent=1))
    else:
        m = machine()
        print(f"{m['cpu']}, {m['cores']} cores; ssdtwin {ssdtwin_version()} at {commit()}", end="")
        print(f"; MQSim at {mqsim_commit(directory)}" if exe is not None else "")
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
