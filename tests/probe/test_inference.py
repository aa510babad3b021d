"""The prober's inferences on tables whose answer is known: fio's outputs parsed with the
time scale, the cliff, the coverage knee, the SNIA rules, the fixed path and the die count.
No drive runs here: each table is built from the mechanism the inference assumes."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from ssdtwin.probe.cooling import COOL_MAX_S, COOL_STEP_S, THROTTLE_BAND_K, Cooling
from ssdtwin.probe.estimate import Estimate, fit_line
from ssdtwin.probe.facts import Facts
from ssdtwin.probe.floor import infer_floor, link_ceiling, link_rate, nearest_link, nearest_payload
from ssdtwin.probe.geometry import CHANNEL_CMD_NS, native_tr
from ssdtwin.probe.map_cache import infer_coverage
from ssdtwin.probe.profile import build_profile
from ssdtwin.probe.runner import Health, Job, Runner, parse_bw_log, parse_fio_json
from ssdtwin.probe.slc import find_cliff, infer_recovery, levels
from ssdtwin.probe.steady import window

from ..helpers import REFERENCE_DIR

GIB = 1 << 30


# ---- fio's outputs -------------------------------------------------------------------------


def test_real_fio_json_is_read_and_divided_by_the_time_scale() -> None:
    """fio 3.33's nbd engine output (connection lines before the JSON) as the served twin
    at time scale 16 would give it: latencies over 16, rates times 16."""
    text = (REFERENCE_DIR / "nbd-randread.json").read_text()
    job = Job("nbd", "randread", 4096, iodepth=8)
    plain, scaled = parse_fio_json(text, job, 1.0), parse_fio_json(text, job, 16.0)
    assert plain.read is not None and scaled.read is not None and plain.write is None
    assert (plain.read.ios, plain.read.bytes) == (14115, 57815040)
    assert plain.read.mean_lat_ns == pytest.approx(1133203.390436)
    assert scaled.read.mean_lat_ns == pytest.approx(plain.read.mean_lat_ns / 16)
    assert scaled.read.iops == pytest.approx(plain.read.iops * 16)
    assert scaled.runtime_s == pytest.approx(2.001 / 16)
    assert plain.main is plain.read


def test_a_transport_s_round_trip_comes_off_latencies_not_rates() -> None:
    """An NBD transport adds its round trip (over the time scale) to every request fio
    times: the runner takes it off the latencies; rates, set by the drive at depth, stay."""
    text = (REFERENCE_DIR / "nbd-randread.json").read_text()
    job = Job("nbd", "randread", 4096, iodepth=8)
    plain, net = parse_fio_json(text, job, 16.0), parse_fio_json(text, job, 16.0, transport_ns=2000.0)
    assert plain.read is not None and net.read is not None
    assert net.read.mean_lat_ns == pytest.approx(plain.read.mean_lat_ns - 2000.0)
    assert net.read.p99_lat_ns == pytest.approx(plain.read.p99_lat_ns - 2000.0)
    assert (net.read.iops, net.read.bytes_per_s) == (plain.read.iops, plain.read.bytes_per_s)
    # A round trip longer than a latency leaves zero, never a negative time.
    assert parse_fio_json(text, job, 16.0, transport_ns=1e12).read.mean_lat_ns == 0.0  # type: ignore[union-attr]


def test_a_mixed_job_gives_both_directions_and_its_reads_first() -> None:
    """fio 3.33's randrw output (70 % reads, group reporting): the suspend step reads the
    reads' latency and the writes' rate from one job."""
    text = (REFERENCE_DIR / "randrw-2jobs-group.json").read_text()
    job = Job("mix", "randrw", 4096, iodepth=8, write_bs=131072, rwmixread=70)
    assert job.fio_options(1.0)[2:5] == ["--bs=4096,131072", "--iodepth=8", "--rwmixread=70"]
    out = parse_fio_json(text, job, 1.0)
    assert out.read is not None and out.write is not None
    assert (out.read.ios, out.write.ios) == (221465, 95011)
    assert out.main is out.read


def test_a_bandwidth_log_is_bytes_per_second_at_interval_ends(tmp_path: Path) -> None:
    log = tmp_path / "probe_bw.1.log"
    log.write_text("100, 2048, 1, 0, 0\n100, 1024, 0, 0, 0\n200, 1024, 1, 0, 0\n")
    assert parse_bw_log(log, 1.0) == ((0.1, 3072 * 1024.0), (0.2, 1024 * 1024.0))
    assert parse_bw_log(log, 4.0)[0] == (0.025, 3072 * 1024.0 * 4)
    assert parse_bw_log(tmp_path / "missing.log", 1.0) == ()


def test_job_times_stretch_with_the_time_scale() -> None:
    job = Job("w", "write", 131072, runtime_s=0.5, ramp_s=0.25, log_interval_s=0.01)
    opts = job.fio_options(16.0)
    assert "--runtime=8000ms" in opts and "--ramp_time=4000ms" in opts and "--log_avg_msec=160" in opts
    assert "--time_based" in opts and "--write_bw_log=probe" in opts


# ---- the write cliff -----------------------------------------------------------------------


def fill_log(levels_: list[tuple[float, float]], interval_s: float = 0.1) -> list[tuple[int, float]]:
    """A bandwidth log of sequential writes: (bytes at each level, rate) in order."""
    out, written = [], 0.0
    for size, rate in levels_:
        end = written + size
        while written < end:
            written += rate * interval_s
            out.append((int(written), rate))
    return out


def test_the_cliff_is_the_fall_to_the_last_level_after_a_buffer_fills() -> None:
    # A 1 GiB buffer filling at the link's rate, a 2.8 GiB cache at 725 MB/s, then 200 MB/s.
    log = fill_log([(GIB, 3.5e9), (2.8 * GIB, 725e6), (3 * GIB, 200e6)], interval_s=0.012)
    assert [round(r / 1e6) for _, r in levels(log)] == [3500, 725, 200]
    at, before, after = find_cliff(log) or (0, 0, 0)
    assert (before, after) == (725e6, 200e6)
    # Within one interval at the cache's rate of where the log's last fast interval ends.
    end_of_cache = max(w for w, r in log if r == 725e6)
    assert abs(at - end_of_cache) <= 725e6 * 0.012


def test_a_steady_rate_and_short_dips_are_no_cliff() -> None:
    log = fill_log([(4 * GIB, 1.6e9)], interval_s=0.01)
    dip = [*log[:50], (log[50][0], 0.5e9), (log[51][0], 0.5e9), *log[52:]]
    assert find_cliff(log) is None and find_cliff(dip) is None


def test_recovery_gives_the_fold_rate_and_the_idle_delay() -> None:
    # Folding at 150 MB/s from 2 s of idle; each burst also fills a 32 MiB buffer.
    from ssdtwin.probe.slc import Cliff

    cliff = Cliff(pd.DataFrame(), True, 140e9, 1.6e9, 150e6, 200 * GIB, [])
    buffer = 32 << 20
    rows = [{"trigger": "idle", "seconds": t, "recovered_bytes": buffer + 150e6 * max(0, t - 2)} for t in (1, 10, 60)]
    table = pd.DataFrame([{**r, "burst_bytes": 0} for r in rows])
    rate, delay = infer_recovery(table, cliff)
    assert rate.value == pytest.approx(150e6) and delay.value == pytest.approx(2000)
    flat = table.assign(recovered_bytes=buffer)
    assert infer_recovery(flat, cliff)[0].status == "absent"


# ---- map-cache coverage --------------------------------------------------------------------


def coverage_table(coverage: float, spans: list[float], hit_us: float = 100.0, miss_us: float = 90.0) -> pd.DataFrame:
    """QD1 latency over spans for a cache covering ``coverage`` bytes (hit ratio C / S)."""
    rows = [
        {"span_bytes": s, "iodepth": 1, "refined": False, "iops": 1e6 / lat, "mean_lat_us": lat}
        for s in spans
        for lat in [hit_us + miss_us * max(0.0, 1 - coverage / s)]
    ]
    return pd.DataFrame(rows)


def test_the_knee_of_latency_against_span_is_the_coverage() -> None:
    coarse = [2**k * GIB for k in range(0, 8)] + [238 * GIB]
    refined = [140 * GIB, 160 * GIB, 185 * GIB, 210 * GIB]
    table = coverage_table(128.25 * GIB, coarse + refined)
    table.loc[table.span_bytes.isin(refined), "refined"] = True
    est = infer_coverage(table.sort_values("span_bytes"), Facts(256 * GIB, 512, 131072, "t"), 0)
    got = {e.name: e.value for e in est.estimates}
    assert got["map_coverage_bytes"] == pytest.approx(128.25 * GIB, rel=1e-6)
    assert got["map_miss_penalty_ns"] == pytest.approx(90e3, rel=1e-6)


def test_a_map_that_never_misses_has_no_knee() -> None:
    table = coverage_table(1e15, [2**k * GIB for k in range(0, 9)])
    est = infer_coverage(table, Facts(256 * GIB, 512, 131072, "t"), 0)
    assert est.coverage_bytes is None and est.estimates[0].status == "absent"


# ---- SNIA PTS steady state -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "steady"),
    [
        ([100, 100, 100, 100, 100], True),
        ([110, 90, 110, 90, 100], True),  # excursion 20 %: at the limit
        ([111, 89, 111, 89, 100], False),  # 22 %
        ([104, 102, 100, 98, 96], True),  # slope excursion 8 % of the average
        ([106, 103, 100, 97, 94], False),  # 12 %
        ([100, 100, 100, 100], None),  # fewer than five rounds
    ],
)
def test_the_window_rules(values: list[float], steady: bool | None) -> None:
    w = window(values)
    assert (w.steady if w is not None else None) is steady


# ---- the fixed path and the dies -----------------------------------------------------------


def test_the_fixed_path_gives_command_costs_cores_and_link() -> None:
    """A drive with 2 cores, 22 us per read command, 1.7 us per 4 KiB and a Gen3 x2 link
    (fetch and post at the defaults): the floor's lines and ceilings as the model makes them."""
    gen, lanes, link = nearest_link(1.7876e9)
    assert (gen, lanes) == (3, 2)
    unit_ns, read_cmd, write_cmd, fixed = 1700.0, 22000.0, 15000.0, 1100.0
    per_unit = unit_ns + 4096 / link * 1e9
    rows = []
    for bs in (4096, 8192, 16384, 32768, 65536, 131072):
        units = bs / 4096
        rows.append(
            {"test": "qd1 read", "bs": bs, "iodepth": 1, "mean_lat_us": (fixed + read_cmd + per_unit * units) / 1e3}
        )
        rows.append(
            {"test": "qd1 write", "bs": bs, "iodepth": 1, "mean_lat_us": (fixed + write_cmd + per_unit * units) / 1e3}
        )
    ceiling = 2 / ((read_cmd + unit_ns) * 1e-9)
    rows.append({"test": "link", "bs": 131072, "iodepth": 32, "mb_per_s": link / 1e6, "iops": link / 131072})
    rows.append({"test": "firmware", "bs": 4096, "iodepth": 128, "iops": ceiling, "mb_per_s": ceiling * 4096 / 1e6})
    floor = infer_floor(pd.DataFrame(rows))
    got = {e.name: e.value for e in floor.estimates}
    assert got["controller_cores"] == 2 and got["unit_ns"] == pytest.approx(unit_ns, abs=1)
    assert got["read_cmd_ns"] == pytest.approx(read_cmd, abs=1) and got["write_cmd_ns"] == pytest.approx(
        write_cmd, abs=1
    )


def test_native_tr_is_the_mean_of_the_units_slower_than_fresh_data() -> None:
    # Units on the lower and upper pages of native word lines (tR 90 and 120 us around a
    # 105 us mean) beside units still in SLC (46 us): the mean of the native ones.
    est, two = native_tr([46e3, 90e3, 120e3, 46e3], 46e3, "t")
    assert two and est.value == 105e3 and est.uncertainty == 15e3
    est, two = native_tr([65e3, 65e3], 65e3, "t")
    assert not two and est.value == 65e3


def test_a_line_through_noisy_points_has_an_error_that_covers_the_truth() -> None:
    xs = [1, 2, 4, 8, 16, 32]
    ys = [10 + 3 * x + (0.5 if i % 2 else -0.5) for i, x in enumerate(xs)]
    line = fit_line(xs, ys)
    assert abs(line.slope - 3) <= 3 * line.slope_error and not math.isclose(line.slope_error, 0)


def test_the_link_is_the_highest_plateau_of_any_read_at_depth_and_sets_the_payload() -> None:
    """Gen4 x4 at 256-byte payloads carries 7.15 GB/s: 4 KiB reads at depth 32 and 128 fill
    it while 128 KiB reads stop at 6.84 GB/s (a per-command cost on the link); a plateau at
    1.66 GB/s is a Gen2 x4 (or Gen3 x2) link at 128-byte payloads; a rate still rising
    with depth is only a lower bound and leaves the payload at its default."""
    link = link_rate(4, 4, 256)

    def table(seq: tuple[float, float], small: tuple[float, float]) -> pd.DataFrame:
        rows = [
            {"test": "link", "iodepth": d, "bs": 131072, "mb_per_s": r / 1e6}
            for d, r in zip((32, 128), seq, strict=True)
        ]
        rows += [
            {"test": "firmware", "iodepth": d, "bs": 4096, "mb_per_s": r / 1e6}
            for d, r in zip((32, 128), small, strict=True)
        ]
        return pd.DataFrame(rows)

    rate, plateau = link_ceiling(table((6.845e9, 6.238e9), (link, link)))
    assert rate == pytest.approx(link) and plateau
    rate, plateau = link_ceiling(table((1.662e9, 1.662e9), (1.66e9, 1.66e9)))
    assert plateau and nearest_payload(*nearest_link(rate)[:2], rate)[0] == 128
    assert nearest_payload(2, 4, rate)[1] == pytest.approx(rate, rel=0.01)
    rate, plateau = link_ceiling(table((1.306e9, 1.522e9), (0.29e9, 0.29e9)))
    assert rate == pytest.approx(1.522e9) and not plateau


class _Heating(Runner):
    """A drive whose temperature is scripted: each segment written adds ``rise_k``, each
    idle step takes away ``cool_k`` (down to ``floor_k``, what idle alone holds it at)."""

    def __init__(self, rise_k: int, cool_k: int, floor_k: int) -> None:
        super().__init__()
        self.temperature, self.rise_k, self.cool_k, self.floor_k = 300, rise_k, cool_k, floor_k
        self.idled = 0.0

    def health(self) -> Health:
        return Health(self.temperature, self.temperature >= 343)

    def _idle(self, seconds: float) -> None:
        self.idled += seconds
        self.temperature = max(self.floor_k, self.temperature - self.cool_k)

    def write_segment(self) -> None:
        self.temperature += self.rise_k


@pytest.mark.parametrize("floor_k", [300, 330])
def test_a_drive_is_let_cool_before_a_segment_could_take_it_to_wctemp(floor_k: int) -> None:
    """WCTEMP 343 K, 12 K a segment from 300 K: without cooling the fourth segment would end
    above it. With it, no segment ends within the throttling band; where idle holds the
    drive at 330 K, waiting stops once the temperature no longer falls."""
    drive = _Heating(rise_k=12, cool_k=5, floor_k=floor_k)
    facts = Facts(64 * GIB, 512, 128 << 10, "scripted", wctemp_kelvin=343)
    cooling = Cooling.start(drive, facts, "test")
    hot = []
    for written in range(8):
        cooling.before(written)
        drive.write_segment()
        hot.append(cooling.after())
    assert cooling.cooled_at and drive.idled > 0
    if floor_k == 300:
        assert not any(hot) and drive.temperature < 343 - THROTTLE_BAND_K
    else:
        # Idle holds it at 330 K, 13 K below: a 12 K segment ends within the band. Each wait
        # takes at most the three steps down to 330 K and one that does not fall, not COOL_MAX_S.
        assert drive.idled <= len(cooling.cooled_at) * 4 * COOL_STEP_S < COOL_MAX_S and any(hot)


# ---- a program time calibrated behind the link ----------------------------------------------


def test_a_calibrated_native_tprog_takes_the_link_bound_slc_tprog_down_with_it() -> None:
    """32 dies of 32 KiB units behind a 1 GB/s link: the in-cache and post-cache writes
    both run at the link's rate, so both program times derived from them are the same
    upper bound. Calibrated at 60 % of it, native tPROG takes the SLC one down by the same
    share; a calibration that found nothing leaves both at the bound."""
    facts = Facts(64 * GIB, 512, 128 << 10, "t")
    rate = 1e9

    def est(name: str, value: float, status: str = "inferred") -> Estimate:
        return Estimate(name, value, "", None, "m", "m", status)

    estimates = {
        e.name: e
        for e in (
            est("dies", 32),
            est("program_unit_bytes", 32768),
            est("channel_bytes_per_s", 800e6),
            est("link_bytes_per_s", rate),
            est("native_write_bytes_per_s", rate),
            est("slc_write_bytes_per_s", rate),
            est("slc_cache_bytes", 4 * GIB),
        )
    }
    transfer_ns = CHANNEL_CMD_NS + 32768 / 800e6 * 1e9  # the unit's command and channel transfer
    bound_us = (32 * 32768 / rate * 1e9 - transfer_ns) / 1e3

    def t_prog_us(extra: Estimate | None) -> tuple[float, float]:
        chosen = dict(estimates) | ({extra.name: extra} if extra is not None else {})
        nand = tomllib.loads(build_profile(facts, chosen).toml())["nand"]
        return nand[nand["cell"]]["t_prog_us"], nand["slc"]["t_prog_us"]

    assert t_prog_us(None) == pytest.approx((bound_us, bound_us))
    calibrated = est("native_program_time_ns", 0.6 * bound_us * 1e3)
    assert t_prog_us(calibrated) == pytest.approx((0.6 * bound_us, 0.6 * bound_us))
    missed = Estimate("native_program_time_ns", None, "ns", None, "m", "none within 5 %", "not inferred")
    assert t_prog_us(missed) == pytest.approx((bound_us, bound_us))
