"""The df-pn refinements of normal play (`Levers`) switch on and off without changing an
answer: each lever off still finds the published nimbers, and does change the search."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from sproutsdb.solver.normal.dfpn import Levers
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import MemoryProofStore
from sproutsdb.solver.sprouts.game import SproutsGame

OFF = {
    "no 1+eps": Levers(epsilon=0.0),
    "flat delta": Levers(sized_delta=False),
    "move order": Levers(tie_order=False),
}


@cache
def visits_and_nimbers(levers: Levers) -> tuple[int, list[int]]:
    """Nimbers of 0*1..0*7 (published: 0 0 1 1 1 0 0) and the visits they took."""
    solver = NormalSolver(SproutsGame(), MemoryProofStore(), levers=levers)
    nimbers = [solver.nimber(f"0*{n}") for n in range(1, 8)]
    return solver.stats.nodes, nimbers


@pytest.mark.parametrize("name", sorted(OFF))
def test_a_lever_off_keeps_the_nimbers_and_changes_the_search(name: str) -> None:
    built_visits, built = visits_and_nimbers(Levers())
    visits, nimbers = visits_and_nimbers(OFF[name])
    assert built == nimbers == [0, 0, 1, 1, 1, 0, 0]
    assert visits != built_visits


def test_the_twins_lever_keeps_the_outcomes_and_changes_the_search() -> None:
    """Levers(twins=True) only starts some children at δ = 1 (their smaller twin, six
    spots fewer in one run, a known loss): 0*10 and 0*11 (W, W) keep their outcomes in
    other visits (0*10 is the first root with a child of a run of seven spots)."""
    for n in (10, 11):
        built = NormalSolver(SproutsGame(), MemoryProofStore())
        twins = NormalSolver(SproutsGame(), MemoryProofStore(), levers=Levers(twins=True))
        assert built.outcome(f"0*{n}") == twins.outcome(f"0*{n}") == "W"
        assert built.stats.nodes != twins.stats.nodes


def test_smaller_twins_have_six_empty_spots_fewer_in_one_run() -> None:
    game = SproutsGame()
    assert game.smaller_twins("0*37.1a1a") == ("0*31.1a1a",)
    assert game.smaller_twins("0*21.1aAa|0*15.A.BC|BC") == (
        "0*15.1aAa|0*15.A.BC|BC",
        "0*21.1aAa|0*9.A.BC|BC",
    )
    assert game.smaller_twins("0*7") == ("0",)
    assert game.smaller_twins("0*6.1a1a") == () == game.smaller_twins("1a1a")


def test_a_negative_epsilon_is_refused() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        NormalSolver(SproutsGame(), MemoryProofStore(), levers=Levers(epsilon=-1.0))


def test_the_bench_stops_a_long_run_as_ctrl_c_does_and_says_how_far_it_got(
    tmp_path: Path,
) -> None:
    """bench/levers.py --seconds: a run past its budget (0*14 takes far longer than 2 s)
    is interrupted like a solve, and reports its visits and the root's options it settled,
    the measure of a lever at roots that do not end in a bench's time (0*33)."""
    out = tmp_path / "levers.json"
    bench = Path(__file__).resolve().parent.parent / "bench" / "levers.py"
    command = [sys.executable, str(bench), "--n", "14", "--lever", "as-built"]
    done = subprocess.run(
        [*command, "--seconds", "2", "--out", str(out)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(out.read_text())["runs"]
    assert run["outcome"] is None and run["visits"] > 0
    assert run["options"] == 8 and 0 <= run["settled"] < 8
    assert "stopped" in done.stdout and f"{run['settled']}/8" in done.stdout


def test_the_guided_lever_counts_the_guides_solves_and_agrees_with_the_search(
    tmp_path: Path,
) -> None:
    """bench/levers.py's guided lever: bench/analogy.py first finds a losing reply to
    0*8.1a1a from 0*2.1a1a's proof in the library, then 0*10 (W) is solved in the same store;
    the outcome is the search's, and the guide's visits are counted with the solve's."""
    out = tmp_path / "levers.json"
    bench = Path(__file__).resolve().parent.parent / "bench" / "levers.py"
    command = [sys.executable, str(bench), "--n", "10", "--lever", "guided", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    built, guided = json.loads(out.read_text())["runs"]
    assert (built["lever"], guided["lever"]) == ("as-built", "guided")
    assert built["outcome"] == guided["outcome"] == "W"
    assert guided["visits"] > 0 and guided["cpu_s"] > 0
