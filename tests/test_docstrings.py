"""Every docstring example in the package runs and prints what it shows (doctest over every
module of ssdtwin, as pydantic-core's tests/test_docstrings.py runs its examples)."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest
import ssdtwin
import ssdtwin.jobs
import ssdtwin.nvme
import ssdtwin.studies.qd_sweep
import ssdtwin.testing

MODULES = sorted(m.name for m in pkgutil.walk_packages(ssdtwin.__path__, "ssdtwin."))
FINDER = doctest.DocTestFinder(exclude_empty=True)
#: Modules whose examples run a study of several seconds: the slow tier runs them.
SLOW_EXAMPLES = {"ssdtwin.studies.hmb"}


def examples(module: ModuleType) -> list[doctest.DocTest]:
    return [t for t in FINDER.find(module, module.__name__) if t.examples]


def test_every_module_is_found() -> None:
    expected = {
        "ssdtwin._ssdtwin",
        "ssdtwin.cli",
        "ssdtwin.cli.common",
        "ssdtwin.cli.fio",
        "ssdtwin.cli.nvme",
        "ssdtwin.cli.precondition",
        "ssdtwin.cli.profiles",
        "ssdtwin.cli.progress",
        "ssdtwin.cli.smartctl",
        "ssdtwin.cli.study",
        "ssdtwin.device",
        "ssdtwin.errors",
        "ssdtwin.jobs",
        "ssdtwin.nvme",
        "ssdtwin.nvme.cfmt",
        "ssdtwin.nvme.constants",
        "ssdtwin.nvme.health",
        "ssdtwin.nvme.id_ctrl",
        "ssdtwin.nvme.id_ns",
        "ssdtwin.nvme.jsonc",
        "ssdtwin.nvme.show_id_ctrl",
        "ssdtwin.nvme.show_id_ns",
        "ssdtwin.nvme.show_list",
        "ssdtwin.nvme.smartctl",
        "ssdtwin.studies",
        "ssdtwin.studies.base",
        "ssdtwin.studies.cdm",
        "ssdtwin.studies.lbaf",
        "ssdtwin.studies.qd_sweep",
        "ssdtwin.testing",
    }
    assert expected <= set(MODULES)


@pytest.mark.parametrize(
    "name",
    ["ssdtwin", *(pytest.param(m, marks=pytest.mark.slow) if m in SLOW_EXAMPLES else m for m in MODULES)],
)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in examples(module):
        runner.run(test, out=report.append)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, "".join(report)


def test_there_are_examples_to_run() -> None:
    counts = {name: sum(len(t.examples) for t in examples(importlib.import_module(name))) for name in MODULES}
    counts["ssdtwin"] = sum(len(t.examples) for t in examples(ssdtwin))
    for name in ("ssdtwin", "ssdtwin.device", "ssdtwin.jobs", "ssdtwin.studies.qd_sweep", "ssdtwin.testing"):
        assert counts[name] >= 3, (name, counts[name])
    assert sum(counts.values()) >= 35


@pytest.mark.parametrize(
    "obj",
    [
        ssdtwin.Device,
        ssdtwin.profiles,
        ssdtwin.profile_toml,
        ssdtwin.jobs.job_input,
        ssdtwin.studies.qd_sweep.qd_sweep,
        ssdtwin.testing.small_overrides,
        ssdtwin.testing.small_device_overrides,
        ssdtwin.testing.fio_jobs,
        *(getattr(ssdtwin.nvme, name) for name in ssdtwin.nvme.__all__),
    ],
    ids=lambda o: o.__qualname__,
)
def test_public_functions_show_an_example(obj: object) -> None:
    doc = inspect.getdoc(obj) or ""
    assert ">>> " in doc


def test_every_public_name_is_documented() -> None:
    for name in ssdtwin.__all__:
        obj = getattr(ssdtwin, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert inspect.getdoc(obj), name
            for attr, member in vars(obj).items() if inspect.isclass(obj) else []:
                if not attr.startswith("_") and callable(member):
                    assert inspect.getdoc(member), f"{name}.{attr}"
