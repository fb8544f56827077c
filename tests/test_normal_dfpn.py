"""Normal play by df-pn over couples: the published outcomes and nimbers of 0*n, the same
nimbers as the depth-first search, and stores whose every fact the checker re-derives."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_helpers import run_cli
from sprouts_helpers import random_playout
from sproutsdb.solver.normal.check import Checker
from sproutsdb.solver.normal.solver import NormalSolver
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore
from sproutsdb.solver.search.options import SolveOptions
from sproutsdb.solver.sprouts.game import SproutsGame

GAME = SproutsGame()
NIMBERS = [0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1]  # of 0*0 .. 0*10 (Nimbers are inevitable)


def dfpn() -> NormalSolver:
    return NormalSolver(GAME, MemoryProofStore(), search="dfpn")


def expected_outcome(n: int) -> str:
    """0*n is a loss for the player to move iff n mod 6 is 0, 1 or 2 (known up to 0*44)."""
    return "L" if n % 6 in (0, 1, 2) else "W"


@pytest.mark.parametrize("n", range(1, 12))
def test_outcomes_of_one_to_eleven_spots(n: int) -> None:
    assert dfpn().outcome(f"0*{n}") == expected_outcome(n)


@pytest.mark.slow
@pytest.mark.parametrize("n", [12, 13, 14])
def test_outcomes_of_twelve_to_fourteen_spots(n: int) -> None:
    assert dfpn().outcome(f"0*{n}") == expected_outcome(n)


@pytest.mark.parametrize("n", range(11))
def test_nimbers_of_zero_to_ten_spots(n: int) -> None:
    assert dfpn().nimber(f"0*{n}" if n else "!") == NIMBERS[n]


@pytest.mark.parametrize("seed", range(4))
def test_same_nimbers_as_depth_first_search_and_every_fact_checks(seed: int) -> None:
    rng = random.Random(seed)
    positions = random_playout(GAME, "0*7", rng, moves=6)[1:]
    store = MemoryProofStore()
    solver = NormalSolver(GAME, store, search="dfpn")
    for position in positions:
        depth_first = NormalSolver(GAME, MemoryProofStore(), search="dfs")
        assert solver.nimber(position) == depth_first.nimber(position), position
    facts = store.get(FactKind.NIMBER, list(store._facts[FactKind.NIMBER]))
    assert facts
    checker = Checker(GAME, store)
    for land in facts:
        assert checker.check(land).ok, land


def test_a_dfpn_solve_leaves_a_store_that_checks_clean(tmp_path: Path) -> None:
    store = tmp_path / "store"
    done = run_cli("solve", "0*10", "--search", "dfpn", "--json", "--quiet", "--store", str(store))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["outcome"], report["nimber"]) == ("W", 1)
    checked = run_cli("check", "--store", str(store), "--all", "--json", "--quiet")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rooted = run_cli("check", "--store", str(store), "--root", "0*10", "--json")
    assert rooted.returncode == 0 and json.loads(rooted.stdout)["nimber"] == 1


@pytest.mark.parametrize("search", ["dfpn", "dfs"])
def test_a_table_far_too_small_is_cleared_and_the_answers_stay_right(search: str) -> None:
    store = MemoryProofStore()
    solver = NormalSolver(GAME, store, search=search, options=SolveOptions(table_capacity=100))
    assert [solver.nimber(f"0*{n}") for n in range(8)] == NIMBERS[:8]
    assert solver.outcome("0*4+0.AB|AB") == "W"
    assert solver.stats.table_clears > 0
    facts = store.get(FactKind.NIMBER, list(store._facts[FactKind.NIMBER]))
    checker = Checker(GAME, store)
    for land in facts:
        assert checker.check(land).ok, land


class _GameThatCannotStop(SproutsGame):
    """The same game without `component_children_until`: every land's children made whole."""

    component_children_until = None  # type: ignore[assignment]


def test_stopping_at_a_known_losing_child_keeps_the_search_and_makes_fewer_children() -> None:
    made: dict[str, int] = {"whole": 0, "stopped": 0}
    stopping = SproutsGame()
    until = stopping.component_children_until

    def counted(component: str, accept: Callable[[tuple[str, ...]], bool]) -> object:
        children, found = until(component, accept)
        made["whole" if found is None else "stopped"] += 1
        return children, found

    stopping.component_children_until = counted  # type: ignore[method-assign,assignment]
    runs = []
    for game in (stopping, _GameThatCannotStop()):
        store = MemoryProofStore()
        solver = NormalSolver(game, store)
        assert solver.outcome("0*11") == "W"
        facts = dict(store.iter_facts(FactKind.NIMBER))
        runs.append((solver.stats.nodes, solver.stats.facts_stored, facts))
    assert runs[0] == runs[1]  # the same visits, and the same facts stored
    assert made["stopped"] > 0 and made["whole"] > 0


def test_children_until_falls_back_to_the_whole_list() -> None:
    game = SproutsGame()
    # GLOP 1.x text: the C core hands it to the Python path, which gives every child
    children, found = game.component_children_until("0.AB.}AB.}]!", lambda child: True)
    assert found is None and children == game.component_children("0.AB.}AB.}]!")
    # a land whose children are cached is given whole, unoffered
    whole = game.component_children("0*4")
    assert game.component_children_until("0*4", lambda child: True) == (whole, None)
    taken = SproutsGame().component_children_until("0*4", lambda child: True)
    assert taken == (None, whole[0])
