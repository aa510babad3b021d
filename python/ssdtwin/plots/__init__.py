"""Figures: each module draws the finished table of one study (or of a probe) and returns a
matplotlib figure; none simulates. matplotlib is imported inside the functions, on the Agg
backend, so that ``import ssdtwin`` stays light and figures draw without a display.

:data:`FIGURES` gives the CLI each study's figure by the study's name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from .cdm import plot_cdm
from .dirty_recovery import plot_dirty_recovery
from .endurance import plot_endurance
from .hmb import plot_hmb
from .lbaf import plot_lbaf
from .memory import plot_memory
from .placement import plot_placement
from .pts import plot_pts
from .qd_sweep import plot_qd_sweep
from .qlc_tr import plot_qlc_tr
from .qos import plot_qos
from .read_after_write import plot_read_after_write
from .slc_fill import plot_fill
from .slc_write import plot_slc_write
from .thermal import plot_thermal
from .zfs_special import plot_zfs_special

#: Each study's figure, by the study's name.
FIGURES: dict[str, Callable[[pd.DataFrame], Any]] = {
    "cdm": plot_cdm,
    "dirty-recovery": plot_dirty_recovery,
    "endurance": plot_endurance,
    "hmb": plot_hmb,
    "lbaf": plot_lbaf,
    "memory": plot_memory,
    "placement": plot_placement,
    "pts": plot_pts,
    "qd-sweep": plot_qd_sweep,
    "qlc-tr": plot_qlc_tr,
    "qos": plot_qos,
    "read-after-write": plot_read_after_write,
    "slc-fill": plot_fill,
    "slc-write": plot_slc_write,
    "thermal": plot_thermal,
    "whole-fill": plot_fill,
    "zfs-special": plot_zfs_special,
}
