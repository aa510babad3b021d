"""Profiles from datasheets: a sheet of the facts one can find about a drive (:mod:`.sheet`),
the priors for what it leaves out (``priors.toml``, :mod:`.priors`), and the builder that
turns them into a drive profile whose every field says where it came from (:mod:`.build`)."""

from .build import build_from_sheet, idema_bytes
from .sheet import Calibration, Measured, Sheet, load_sheet, parse_sheet

__all__ = ["Calibration", "Measured", "Sheet", "build_from_sheet", "idema_bytes", "load_sheet", "parse_sheet"]
