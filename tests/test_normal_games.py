"""Normal-play solver on Kayles and Grundy's game against independent oracles.

The truth comes from `normal_games`: a bottom-up mex table and, for tiny sums, a plain
search of the whole sum. The solver must agree on every nimber and every outcome.
"""

from __future__ import annotations

from functools import reduce
from operator import xor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from normal_games import (
    HeapGame,
    brute_force_losing,
    grundy_moves,
    grundys_game,
    kayles,
    kayles_moves,
    mex_table,
)
from sproutsdb.solver.normal.solver import NormalSolver, engine_order, fewest_lives_first
from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore

LIMIT = 70
GAMES = {
    "kayles": (kayles(), mex_table(kayles_moves, LIMIT), kayles_moves),
    "grundy": (grundys_game(), mex_table(grundy_moves, LIMIT), grundy_moves),
}


def test_oracles_match_the_published_sequences() -> None:
    # OEIS A002186 (Kayles) and A002188 (Grundy's game), first terms.
    assert GAMES["kayles"][1][:16] == [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7]
    assert GAMES["grundy"][1][:16] == [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1]


def position(game: HeapGame, heaps: list[int]) -> str:
    return game.join(game.heap(h) for h in heaps)


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("order", [fewest_lives_first, engine_order])
def test_nimbers_of_all_small_heaps(name: str, order) -> None:  # type: ignore[no-untyped-def]
    game, truth, _ = GAMES[name]
    solver = NormalSolver(game, MemoryProofStore(), order=order)
    assert [solver.nimber(position(game, [n])) for n in range(LIMIT + 1)] == truth


@pytest.mark.parametrize("name", sorted(GAMES))
def test_fresh_solver_per_heap_from_the_top(name: str) -> None:
    """Asked cold, largest first: the search must find every sub-nimber on its own."""
    game, truth, _ = GAMES[name]
    for n in (LIMIT, 45, 31, 17):
        solver = NormalSolver(game, MemoryProofStore())
        assert solver.nimber(position(game, [n])) == truth[n]
        assert solver.outcome(position(game, [n])) == ("L" if truth[n] == 0 else "W")


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(GAMES)),
    heaps=st.lists(st.integers(min_value=0, max_value=LIMIT), max_size=5),
    n=st.integers(min_value=0, max_value=9),
)
def test_random_sums_agree_with_the_mex_table(name: str, heaps: list[int], n: int) -> None:
    game, truth, _ = GAMES[name]
    total = reduce(xor, (truth[h] for h in heaps), 0)
    solver = NormalSolver(game, MemoryProofStore())
    key = position(game, heaps)
    assert solver.outcome(key) == ("L" if total == 0 else "W")
    assert solver.couple_outcome(key, n) == ("L" if total == n else "W")
    assert solver.position_nimber(key) == total


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(sorted(GAMES)),
    heaps=st.lists(st.integers(min_value=0, max_value=9), max_size=4),
)
def test_tiny_sums_agree_with_a_search_that_knows_no_nimbers(name: str, heaps: list[int]) -> None:
    game, _, moves = GAMES[name]
    solver = NormalSolver(game, MemoryProofStore())
    expected = "L" if brute_force_losing(moves, heaps) else "W"
    assert solver.outcome(position(game, heaps)) == expected


def test_stored_facts_are_correct_nimbers_of_single_components() -> None:
    for game, truth, _ in GAMES.values():
        store = MemoryProofStore()
        solver = NormalSolver(game, store)
        solver.outcome(position(game, [LIMIT, 33, 20]))
        facts = store.get(FactKind.NIMBER, [game.heap(h) for h in range(LIMIT + 1)])
        assert facts, "the search stored nothing"
        for key, value in facts.items():
            assert game.components(key) == (key,)
            assert value == truth[int(key[1:])]
        assert store.count(FactKind.NIMBER) == len(facts) == solver.stats.facts_stored
