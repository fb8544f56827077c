"""The engine commands as a user runs them: output, JSON, stdin batches, errors."""

from __future__ import annotations

import json

import pytest

from cli_helpers import run_cli


def test_canon_reads_both_syntaxes_and_stdin() -> None:
    done = run_cli("canon", "0.AB.}AB.}]!", "0*3", "-", stdin="1a1a\n\n# comment\n0.0\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["0.AB|AB", "0*3", "1a1a", "0*2"]


def test_children_json() -> None:
    done = run_cli("children", "0*3", "--json")
    assert done.returncode == 0
    report = json.loads(done.stdout)
    assert report["position"] == "0*3"
    assert sorted(report["children"]) == sorted(["0*2.AB|AB", "0.AB|0.AB", "0.1a1a"])


def test_tree_stats_json() -> None:
    done = run_cli("tree-stats", "0*3", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["positions"] == 148  # 181 with canon_version 1
    assert report["canonical_trees"] == 55
    assert report["max_lives"] == 9
    assert report["seconds"] >= 0


@pytest.mark.parametrize(
    "args", [["canon", "AB|A"], ["children", "0..0"], ["tree-stats", "0#"], ["canon", "-"]]
)
def test_bad_positions_give_one_line_and_exit_2(args: list[str]) -> None:
    done = run_cli(*args, stdin="0*2\nA\n")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert "error:" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "command", ["canon", "children", "tree-stats", "solve", "nimber", "query", "rct", "rct-table"]
)
def test_every_command_has_help(command: str) -> None:
    done = run_cli(command, "--help")
    assert done.returncode == 0
    assert "usage:" in done.stdout
