"""The one `sproutsdb` command: a thin argparse front over the subcommand modules.

Each `tools/cmd_*.py` module contributes subcommands through `register(subparsers)`.
Errors a user can fix (bad positions, missing stores) become one line on stderr and
exit code 2; nothing the user typed ever produces a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterator, Sequence

from sproutsdb import __version__
from sproutsdb.errors import UsageError as UsageError  # raised by the library verbs too
from sproutsdb.errors import UserError

# Modules that register subcommands, in the order their commands appear in --help, with the
# commands each registers: a command's run imports its module alone, not the others' imports
# (tests/test_cli_imports.py checks the names against what each module registers).
COMMANDS = {
    "sproutsdb.tools.cmd_engine": ("canon", "children", "tree-stats"),
    "sproutsdb.tools.cmd_solve": ("solve", "nimber", "query"),
    "sproutsdb.tools.cmd_rct": ("rct", "rct-table"),
    "sproutsdb.tools.cmd_serve": ("serve", "stats"),
    "sproutsdb.tools.cmd_web": ("web",),
    "sproutsdb.tools.cmd_check": ("check",),
    "sproutsdb.tools.cmd_exchange": ("export", "import"),
    "sproutsdb.tools.cmd_pull": ("pull",),
    "sproutsdb.tools.cmd_check_table": ("check-table",),
    "sproutsdb.tools.cmd_results": ("results",),
    "sproutsdb.tools.cmd_rekey": ("rekey",),
    "sproutsdb.tools.cmd_fleet": ("fleet",),
}


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, after the command kept what it had proven: the message says what was kept
    and how to resume (printed in place of a bare "interrupted")."""


# What Ctrl-C leaves behind, for the commands that resume (solve and nimber say it
# themselves, with their counts, through Interrupted).
RESUME_NOTES = {
    "import": "the facts stored so far are kept; run the same command again to resume",
    "pull": "the facts stored so far are kept as claims; run the same command again to resume",
    "solve": "what was proven so far is stored; run the same command again to resume",
}

SLOW_ENGINE_NOTE = (
    "note: the compiled core of the engine is missing (it is built at install time and "
    "needs a C compiler), so the pure-Python engine runs, about 50x slower; reinstall "
    "with a C compiler for full speed"
)


def add_store_option(parser: argparse.ArgumentParser, what: str = "store directory") -> None:
    """The one `--store DIR` option, its default told from server.store.location's rule."""
    from sproutsdb.store.location import DEFAULT_DIRNAME, ENV_VAR

    parser.add_argument(
        "--store",
        metavar="DIR",
        default=None,
        help=f"{what} (default: ${ENV_VAR} or ./{DEFAULT_DIRNAME})",
    )


def invoked_as(argv0: str | None = None) -> str:
    """How to run this `sproutsdb` again from the same shell, for the hints commands print:
    `sproutsdb` when that name on PATH is this very program, else the path it was started
    by (`make run` starts `.venv/bin/sproutsdb`, not on PATH), else `PYTHON -m sproutsdb`."""
    import shutil
    from pathlib import Path

    argv0 = sys.argv[0] if argv0 is None else argv0
    if Path(argv0).name != "sproutsdb":  # python -m sproutsdb, or an embedding program
        return f"{sys.executable} -m sproutsdb"
    on_path = shutil.which("sproutsdb")
    if on_path is not None and Path(on_path).resolve() == Path(argv0).resolve():
        return "sproutsdb"
    return argv0


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: with `command` one of COMMANDS', only the module that
    registers it is imported (--help and unknown words get every command)."""
    parser = argparse.ArgumentParser(
        prog="sproutsdb",
        description=(
            "A database of proven Sprouts positions: canonical forms, nimbers (normal play), "
            "misère outcomes and reduced canonical trees. Positions are written in GLOP "
            "notation, 2.x (`0.AB|AB`, `0*6`) or 1.x (`0.AB.}AB.}]!`)."
        ),
        epilog="Run `sproutsdb COMMAND --help` for the options and examples of each command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"sproutsdb {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    modules = [name for name, commands in COMMANDS.items() if command in commands]
    for name in modules or COMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def command_word(argv: Sequence[str]) -> str | None:
    """The subcommand named by argv (its first word: the top level has options only)."""
    return argv[0] if argv and not argv[0].startswith("-") else None


def warn_if_slow_engine() -> None:
    """Say once on stderr when the compiled core is missing (not when it was turned off
    with SPROUTSDB_PURE_PYTHON=1): every command then runs the pure-Python engine."""
    import os

    from sproutsdb.games import get_game

    if get_game().implementation == "python" and os.environ.get(PURE_PYTHON, "") in ("", "0"):
        print(f"sproutsdb: {SLOW_ENGINE_NOTE}", file=sys.stderr)


PURE_PYTHON = "SPROUTSDB_PURE_PYTHON"


def describe_os_error(error: OSError) -> str:
    """An OSError in one line that names the file and the reason, without errno numbers:
    `cannot open x.spr: permission denied`."""
    reason = (error.strerror or str(error)).lower()
    if error.filename is None:
        return reason if error.strerror else str(error)
    where = f"{error.filename}" + (f" -> {error.filename2}" if error.filename2 else "")
    if isinstance(error, PermissionError):
        return f"cannot open {where}: permission denied (check the file's permissions)"
    if isinstance(error, IsADirectoryError):
        return f"{where} is a directory, not a file"
    if isinstance(error, FileNotFoundError):
        return f"{where}: no such file or directory"
    return f"{where}: {reason}"


def main(argv: Sequence[str] | None = None) -> int:
    from sproutsdb import progress

    words = sys.argv[1:] if argv is None else argv
    parser = build_parser(command_word(words))
    args = parser.parse_args(words)
    progress.set_command(args.command)
    warn_if_slow_engine()
    try:
        return int(args.handler(args) or 0)
    except BrokenPipeError:
        # before OSError, its parent: a reader that stopped early (`| head`) is no error
        # of the command, whose output was not wrong; exit status 2 said it was bad input
        _silence_stdout()
        return 0
    except UserError as error:
        print(f"sproutsdb {args.command}: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"sproutsdb {args.command}: error: {describe_os_error(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as error:
        note = str(error) if isinstance(error, Interrupted) else RESUME_NOTES.get(args.command)
        tail = f": {note}" if note else ""
        print(f"sproutsdb {args.command}: interrupted{tail}", file=sys.stderr)
        return 130
    except RecursionError:
        # positions are bounded (notation.MAX_POSITION_VERTICES) so that this cannot
        # happen; if some input still nests too deeply, say so in one line
        print(
            f"sproutsdb {args.command}: error: the input nests too deeply for this command",
            file=sys.stderr,
        )
        return 2
    except MemoryError:
        print(f"sproutsdb {args.command}: error: out of memory on this input", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null so flushing it at exit cannot raise again (Python docs)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())


def positions_from(args: list[str]) -> Iterator[str]:
    """The positions named on the command line; `-` reads one per line from stdin."""
    for arg in args:
        if arg == "-":
            for line in sys.stdin:
                line = line.strip()
                if line and not line.startswith("#"):
                    yield line
        else:
            yield arg


def add_search_option(parser: argparse.ArgumentParser) -> None:
    """`--search`: which normal-play search proves couples (the answers are the same)."""
    from sproutsdb.solver.normal.solver import SEARCHES

    parser.add_argument(
        "--search",
        choices=SEARCHES,
        default="dfpn",
        help="normal play: dfpn (default), proof-number search over couples, picks the "
        "cheapest-looking option first and stores far fewer facts; dfs, the depth-first "
        "search of the paper in a fixed move order (0*12: 40 CPU s and 29 036 facts, "
        "where dfpn takes 7 s and 1 057)",
    )
