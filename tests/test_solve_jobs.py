"""`solve --jobs N`: helper processes share facts through the store; the answer never changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.tools.parallel_solve import SPLIT_DEPTH, first_tasks, root_options, split


@pytest.mark.parametrize("position", ["0*8", "0*9", "0*4+0.AB|AB"])
def test_jobs_give_the_same_answer_and_a_store_that_checks(tmp_path: Path, position: str) -> None:
    answers = []
    for jobs in (1, 2):
        store = tmp_path / f"jobs{jobs}"
        done = run_cli(
            "solve",
            position,
            "--jobs",
            str(jobs),
            "--store",
            str(store),
            "--json",
            "--quiet",
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["jobs"] == jobs
        answers.append((report["outcome"], report["nimber"]))
        checked = run_cli("check", "--store", str(store), "--root", position, "--json", timeout=300)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert answers[0] == answers[1]


def test_helpers_start_from_the_other_end_and_split_a_long_couple_into_its_options() -> None:
    game = SproutsGame()
    options = root_options(game, "0*5", 0)
    first = first_tasks(game, "0*5", 0)
    assert [(key, n) for key, n, _ in first] == options[::-1]  # the main starts small
    assert all(depth == 1 for _, _, depth in first)
    couple = (options[0][0], 2, 1)
    parts = split(game, couple)
    assert parts[-1] == (couple[0], 2, SPLIT_DEPTH)  # proven whole once its options are
    assert [(key, n) for key, n, _ in parts[:-1]] == root_options(game, couple[0], 2)
    assert {(couple[0], 0), (couple[0], 1)} <= {(key, n) for key, n, _ in parts}
    assert all(depth == 2 for _, _, depth in parts[:-1])


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    done = run_cli("solve", "0*3", "--jobs", "0", "--store", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "--jobs must be at least 1" in done.stderr
