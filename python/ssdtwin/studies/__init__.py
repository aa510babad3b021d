"""Studies: sweeps of simulations that answer one question each and return a tidy table.

A study is a plain function from parameters to a DataFrame (one row per point, units in
column names) plus an optional text report; it never prints, plots or writes files. Each
module here defines one :class:`Study`; :data:`REGISTRY` lists them for the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..errors import SsdtwinError
from ..sweep.engine import run_parts
from .base import Advance, Study
from .cdm import STUDY as CDM
from .dirty_recovery import STUDY as DIRTY_RECOVERY
from .endurance import STUDY as ENDURANCE
from .hmb import STUDY as HMB
from .lbaf import STUDY as LBAF
from .memory import STUDY as MEMORY
from .placement import STUDY as PLACEMENT
from .pts import STUDY as PTS
from .qd_sweep import STUDY as QD_SWEEP
from .qlc_tr import STUDY as QLC_TR
from .qos import STUDY as QOS
from .read_after_write import STUDY as READ_AFTER_WRITE
from .slc_fill import SLC_FILL, WHOLE_FILL
from .slc_write import STUDY as SLC_WRITE
from .thermal import STUDY as THERMAL

#: Every study, in the order ``ssdtwin study --help`` lists them.
REGISTRY: list[Study] = [
    HMB,
    QLC_TR,
    SLC_WRITE,
    SLC_FILL,
    WHOLE_FILL,
    DIRTY_RECOVERY,
    READ_AFTER_WRITE,
    LBAF,
    CDM,
    QD_SWEEP,
    QOS,
    MEMORY,
    ENDURANCE,
    THERMAL,
    PTS,
    PLACEMENT,
]

__all__ = ["REGISTRY", "Study", "StudyPart", "run_part", "run_study", "study_parts"]


@dataclass(frozen=True)
class StudyPart:
    """One independent part of a study on one drive: what a sweep executor runs."""

    study: str
    profile: str
    overrides: Mapping[str, Any]
    #: The study's options, as given for the whole study.
    options: Mapping[str, Any]
    #: The option values this part replaces them with.
    part: Mapping[str, Any]

    @property
    def label(self) -> str:
        """The part's profile and the option values that set it apart, for progress bars."""
        return " ".join([self.profile, *(str(v) for v in self.part.values())])


def _by_name(name: str) -> Study:
    try:
        return next(s for s in REGISTRY if s.name == name)
    except StopIteration:
        raise SsdtwinError(f"study '{name}': allowed {', '.join(s.name for s in REGISTRY)}") from None


def study_parts(
    name: str, profiles: Sequence[str], overrides: Mapping[str, Any], options: Mapping[str, Any]
) -> list[StudyPart]:
    """The parts of study ``name`` on each of ``profiles``, drive by drive, in table order."""
    study = _by_name(name)
    parts = []
    for profile in profiles:
        for part in study.parts(profile=profile, overrides=overrides, **options):
            parts.append(StudyPart(name, profile, overrides, options, part))
    return parts


def run_part(part: StudyPart, advance: Advance = None) -> pd.DataFrame:
    """One part's table (a top-level function, so that another process can import it)."""
    options = {**part.options, **part.part}
    return _by_name(part.study).sweep(advance=advance, profile=part.profile, overrides=part.overrides, **options)


def run_study(
    name: str,
    profiles: Sequence[str],
    *,
    overrides: Mapping[str, Any] | None = None,
    executor: Executor | None = None,
    advance: Advance = None,
    **options: Any,
) -> dict[str, tuple[pd.DataFrame, str]]:
    """Study ``name`` on each drive of ``profiles``: its table and text report per drive.
    Every part of every drive is a point of the sweep engine, run in this process or on
    ``executor`` (any :class:`concurrent.futures.Executor`); the tables are the same either
    way. ``advance`` is called per step in this process, per part on an executor.

    >>> small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30}
    >>> out = run_study("qd-sweep", ["generic-tlc-1tb"], overrides=small, rw="randread,read", depths="1",
    ...                 bs="4k", seconds=0.01, span_gib=1.0, seed=1, host="none")
    >>> list(out["generic-tlc-1tb"][0].rw)
    ['randread', 'read']
    """
    study = _by_name(name)
    overrides = dict(overrides or {})
    parts = study_parts(name, profiles, overrides, options)
    tables = run_parts(run_part, parts, executor, advance)
    results = {}
    for profile in profiles:
        mine = [tables[i] for i, part in enumerate(parts) if part.profile == profile]
        table = study.finish(pd.concat(mine, ignore_index=True))
        results[profile] = (table, study.report(table, profile=profile, overrides=overrides, **options))
    return results
