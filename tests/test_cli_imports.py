"""A command imports only what it runs: the parser of one subcommand loads that command's
module alone, and a local normal-play solve loads no server, client, checker, tqdm,
Ray, OpenSSL (hashlib) or process pool (multiprocessing)."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

from sproutsdb.tools.cli import COMMANDS, build_parser

# Modules a local `solve --outcome-only` never needs (each with its own imports).
NOT_FOR_A_LOCAL_SOLVE = (
    "grpc",
    "hashlib",
    "multiprocessing",
    "google.protobuf",
    "ray",
    "tqdm",
    "sproutsdb.server",
    "sproutsdb.client",
    "sproutsdb.ops.check",
    "sproutsdb.ops.describe",
    "sproutsdb.ops.exchange",
    "sproutsdb.solver.cgt.algebra",
    "sproutsdb.solver.misere.solver",
    "sproutsdb.trusted_tables",
)


def registered(module: str) -> list[str]:
    """The subcommands `module` registers."""
    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    importlib.import_module(module).register(subparsers)
    return list(subparsers.choices)


def test_each_module_registers_the_commands_the_cli_lists_for_it() -> None:
    for module, commands in COMMANDS.items():
        assert registered(module) == list(commands), module


def test_a_command_word_builds_its_command_alone_and_no_word_builds_all() -> None:
    every = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(every) == [name for names in COMMANDS.values() for name in names]
    solve = build_parser("solve")._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(solve) == ["solve", "nimber", "query"]
    unknown = build_parser("solv")._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(unknown) == list(every)


def test_a_local_solve_imports_no_heavy_module(tmp_path: Path) -> None:
    program = (
        "import json, sys\n"
        "from sproutsdb.tools.cli import main\n"
        f"main(['solve', '0*5', '--outcome-only', '--store', {str(tmp_path / 's')!r}, '--quiet'])\n"
        f"heavy = {NOT_FOR_A_LOCAL_SOLVE!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(heavy))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out.strip().splitlines()[-1]) == []


def test_the_library_verbs_imported_on_first_use_are_those_it_lists() -> None:
    import sproutsdb.ops as ops

    lazy = {name for names in ops._LAZY.values() for name in names}
    eager = {"SolveInterrupted", "SolveReport", "SolveSettings", "Solving", "solve"}
    assert lazy | eager == set(ops.__all__) and not lazy & eager
    for home, names in ops._LAZY.items():  # each module imported before its verbs are asked
        module = importlib.import_module(f"sproutsdb.ops.{home}")
        for name in names:
            assert getattr(ops, name) is getattr(module, name)
    assert callable(ops.solve) and not isinstance(ops.solve, type(ops))
    assert callable(ops.describe) and not isinstance(ops.describe, type(ops))
