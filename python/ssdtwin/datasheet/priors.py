"""The priors of ``priors.toml``: what a drive of a class most likely has where its sheet is
silent, each with its cited source. Read once; the builder asks here, never in code."""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any


@functools.cache
def priors() -> dict[str, Any]:
    """The whole priors file."""
    return tomllib.loads(resources.files(__package__).joinpath("priors.toml").read_text(encoding="utf-8"))


def interface_prior(interface: str) -> dict[str, Any]:
    """The link and controller generation that go with ``interface``."""
    return dict(priors()["interface"][interface])


def nand_generation(cell: str, layers: int) -> dict[str, Any]:
    """The NAND generation of ``cell`` with ``layers`` layers: the first bracket that holds it.

    >>> nand_generation("tlc", 176)["t_read_us"], nand_generation("qlc", 64)["die_gbit"]
    (40.0, 1024)
    """
    for g in priors()["nand"]:
        if g["cell"] == cell and layers <= g["layers_max"]:
            return dict(g)
    raise LookupError(f"no {cell} generation in priors.toml holds {layers} layers")


def source(key: str) -> str:
    """The citation of a source key of ``priors.toml``."""
    return str(priors()["sources"][key])
