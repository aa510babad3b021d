"""The ``ssdtwin`` command. Each subcommand is a module; errors are handled here, once.

Bad input of any kind prints one line, ``ssdtwin: <message>``, on stderr and exits with
status 2; ``--debug`` shows the traceback instead. A closed pipe exits 0; Ctrl-C exits 130.
"""

from __future__ import annotations

import importlib
import os
import sys
import time

import click

from .. import __version__
from ..errors import SsdtwinError
from ..realtime import simulated_ns, summary

#: Each subcommand and the module that defines it as ``command``. A module is imported only
#: when its command runs (or ``--help`` lists them all), so ``ssdtwin --version`` and a
#: command's own start do not pay for pandas, numpy or rich where they are not used.
SUBCOMMANDS = {
    "compare": "compare",
    "fio": "fio",
    "nvme": "nvme",
    "perftest": "perftest",
    "precondition": "precondition",
    "probe": "probe",
    "profile": "profile",
    "profiles": "profiles",
    "serve": "serve",
    "smartctl": "smartctl",
    "study": "study",
    "sweep": "sweep",
    "trace": "trace",
    "zdb": "zdb",
    "zfs": "zfs",
    "zpool": "zpool",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use (click's documented
    pattern, "Lazily Loading Subcommands")."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = SUBCOMMANDS.get(cmd_name)
        if module is None:
            return None
        command = importlib.import_module(f"{__name__}.{module}").command
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.option("--quiet", is_flag=True, help="No progress bars or closing speed line, even on a terminal.")
@click.version_option(version=__version__, prog_name="ssdtwin")
@click.pass_context
def cli(ctx: click.Context, debug: bool, quiet: bool) -> None:
    """A digital twin of flash SSDs: run fio jobs on simulated drives, and read them with nvme-cli
    and smartctl; and of ZFS pools of disks and SSDs (zpool, zdb, zfs plan)."""
    ctx.obj = {"debug": debug, "quiet": quiet}


def _debug_requested(args: list[str]) -> bool:
    """True if ``--debug`` is among the options before the subcommand (after it, the
    argument belongs to the subcommand: ``ssdtwin fio --debug`` is fio's option)."""
    for arg in args:
        if arg == "--debug":
            return True
        if not arg.startswith("-"):
            return False
    return False


def _discard_stdout() -> None:
    """After a closed pipe, sends what is left on stdout to /dev/null, so the interpreter's
    final flush does not fail again (the Python docs' advice on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (e.g. under test)
        pass


def _say_speed(ctx: click.Context, simulated: int, wall_s: float) -> None:
    """Ends a command that simulated anything with its simulated time and how many times
    faster than real time it ran, on stderr (not with ``ssdtwin --quiet``). Like the
    progress bars, it reads a clock for the person watching only: the figure goes to no
    output, so results stay byte-identical."""
    if simulated > 0 and not (ctx.obj or {}).get("quiet"):
        click.echo(summary(simulated, wall_s), err=True)


def _fail(message: str) -> int:
    click.echo(f"ssdtwin: {message}", err=True)
    return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the command and turns every error into one line and a status."""
    args = sys.argv[1:] if argv is None else argv
    for n, arg in enumerate(args, 1):
        # Python hands undecodable bytes over as lone surrogates; nothing below can use them.
        if any("\udc80" <= ch <= "\udcff" for ch in arg):
            shown = arg.encode("utf-8", "surrogateescape")[:60]
            return _fail(f"argument {n} ({shown!r}) is not valid UTF-8; give names, options and paths in UTF-8")
    debug = _debug_requested(args)
    try:
        # What cli.main() does, minus its own error handling: even outside standalone mode
        # it turns a closed pipe into sys.exit(1) and Ctrl-C into Abort.
        started, simulated_before = time.monotonic(), simulated_ns()
        with cli.make_context("ssdtwin", list(args)) as ctx:
            cli.invoke(ctx)
            _say_speed(ctx, simulated_ns() - simulated_before, time.monotonic() - started)
    except click.exceptions.Exit as e:
        return int(e.exit_code)
    except click.exceptions.Abort:
        return 130
    except click.UsageError as e:
        if debug:
            raise
        hint = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None and e.ctx.info_name else ""
        return _fail(f"{e.format_message()}{hint}")
    except click.ClickException as e:
        if debug:
            raise
        return _fail(e.format_message())
    except (SsdtwinError, FileNotFoundError, FileExistsError, PermissionError, IsADirectoryError) as e:
        if debug:
            raise
        return _fail(str(e))
    except BrokenPipeError:
        _discard_stdout()
        return 0
    except OSError as e:
        # Disk full, EIO, a path under a file: one line naming the file, never a traceback.
        if debug:
            raise
        where = f"{e.filename}: " if e.filename else ""
        return _fail(f"{where}{e.strerror or e}")
    except KeyboardInterrupt:
        click.echo("ssdtwin: interrupted", err=True)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
