"""Studies: sweeps of simulations that answer one question each and return a tidy table.

A study is a plain function from parameters to a DataFrame (one row per point, units in
column names) plus an optional text report; it never prints, plots or writes files. Each
module here defines one :class:`Study`; :data:`REGISTRY` lists them for the CLI.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .base import Study
from .cdm import STUDY as CDM
from .endurance import STUDY as ENDURANCE
from .hmb import STUDY as HMB
from .lbaf import STUDY as LBAF
from .qd_sweep import STUDY as QD_SWEEP
from .qlc_tr import STUDY as QLC_TR
from .read_after_write import STUDY as READ_AFTER_WRITE
from .slc_write import STUDY as SLC_WRITE
from .thermal import STUDY as THERMAL

#: Every study, in the order ``ssdtwin study --help`` lists them.
REGISTRY: list[Study] = [HMB, QLC_TR, SLC_WRITE, READ_AFTER_WRITE, LBAF, CDM, QD_SWEEP, ENDURANCE, THERMAL]

__all__ = ["REGISTRY", "Study", "run_study_drive"]


def run_study_drive(
    name: str, profile: str, overrides: dict[str, Any], kwargs: dict[str, Any]
) -> tuple[pd.DataFrame, str]:
    """Study ``name`` on one drive: a point a sweep executor can run (a top-level function
    of the study's name, so that another process can import it)."""
    study = next(s for s in REGISTRY if s.name == name)
    return study.run(profile=profile, overrides=overrides, **kwargs)
