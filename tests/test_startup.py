"""Start-up stays light (STYLE.md §5): ``import ssdtwin`` and ``ssdtwin --version`` load
neither pandas, numpy, pyarrow, matplotlib nor rich, and the command line imports a
subcommand's module only when that subcommand runs. ``bench/startup.py`` times them."""

from __future__ import annotations

import json
import subprocess
import sys

from ssdtwin.cli import SUBCOMMANDS

HEAVY = ("pandas", "numpy", "pyarrow", "matplotlib", "rich")


def loaded_after(code: str) -> dict[str, object]:
    """Runs ``code`` in a fresh interpreter; returns what it printed (JSON) and which of the
    heavy modules and ssdtwin's CLI modules were imported by then."""
    probe = (
        f"import sys, json\n{code}\n"
        "print(json.dumps({'heavy': sorted(m for m in "
        f"{HEAVY!r} if m in sys.modules), 'cli': sorted(m for m in sys.modules if m.startswith('ssdtwin.cli.'))}}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    loaded: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return loaded


def test_import_ssdtwin_loads_no_table_or_plot_library() -> None:
    assert loaded_after("import ssdtwin") == {"heavy": [], "cli": []}


def test_version_imports_no_subcommand() -> None:
    code = "from ssdtwin.cli import main\nassert main(['--version']) == 0"
    assert loaded_after(code) == {"heavy": [], "cli": []}


def test_a_subcommand_imports_only_its_own_module() -> None:
    code = "from ssdtwin.cli import main\nassert main(['profiles']) == 0"
    loaded = loaded_after(code)
    others = {f"ssdtwin.cli.{m}" for m in SUBCOMMANDS.values()} - {"ssdtwin.cli.profiles"}
    cli = loaded["cli"]
    assert isinstance(cli, list) and "ssdtwin.cli.profiles" in cli
    assert not others & set(cli), loaded


def test_tables_still_come_back_as_dataframes() -> None:
    import ssdtwin

    small = {"nand.blocks_per_plane": 24, "identity.capacity_bytes": 8 << 30}
    dev = ssdtwin.Device("generic-tlc-1tb", overrides=small)
    result = dev.run(["--name=r", "--rw=randread", "--bs=4k", "--size=64m", "--runtime=10ms"])
    assert type(result.summary).__name__ == "DataFrame"
    assert result.summary["iops"].iloc[0] > 0
