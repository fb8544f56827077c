"""`solve --jobs N`: helper processes share facts through the store; the answer never changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sproutsdb.solver.sprouts.game import SproutsGame
from sproutsdb.tools.parallel_solve import helper_share, root_options


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


def test_helpers_share_the_root_options_from_the_other_end() -> None:
    options = root_options(SproutsGame(), "0*5", 0)
    shares = [helper_share(options, index, 2) for index in range(2)]
    assert sorted(shares[0] + shares[1]) == sorted(options)
    assert shares[0][0] == options[-1]  # the main search starts from the small end


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    done = run_cli("solve", "0*3", "--jobs", "0", "--store", str(tmp_path / "s"))
    assert done.returncode == 2
    assert "--jobs must be at least 1" in done.stderr
